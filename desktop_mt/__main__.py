"""``python -m desktop_mt`` is the ``desktop-mt`` command."""

import sys

from .cli.main import entry

sys.exit(entry())
