"""The frozen entry point: ``desktop-mt`` (GUI) / ``desktop-mt self-test|translate|gui ...``.

PyInstaller runs this file as ``__main__``; it is exactly ``python -m desktop_mt``.
"""

import sys

from desktop_mt.cli.main import entry

if __name__ == "__main__":
    sys.exit(entry())
