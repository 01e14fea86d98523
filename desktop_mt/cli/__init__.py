"""The command line, ``desktop-mt COMMAND``: :mod:`desktop_mt.cli.main` parses and runs it (the
entry point), with the ``models``, ``ocr`` and ``show`` commands beside it and the window's
launcher (:mod:`desktop_mt.cli.gui_launch`).
"""

__all__: list[str] = []
