"""``python -m desktop_mt`` is the ``desktop-mt`` command."""

import sys

from .cli import entry

sys.exit(entry())
