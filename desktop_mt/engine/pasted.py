"""Moved to :mod:`desktop_mt.pasted`; removed once gui/pasting.py imports desktop_mt.pasted."""

from ..pasted import is_table_row, join_lines

__all__ = ["is_table_row", "join_lines"]
