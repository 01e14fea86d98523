"""Real OSErrors from the lowest level Python writes through, for chosen files.

Tests run as root (chmod does not stop writes) and cannot mount a tiny tmpfs in-process, so
``FailingDisk`` wraps ``os.open`` and ``os.write`` (what desktop_mt.batch.files uses for every
byte it writes): ``os.open`` of a matching path can fail (permission denied, read-only file
system), and ``os.write`` to a matching descriptor can fail after some writes (disk full),
optionally after first writing part of the data, as a filling disk does. Everything above
those two calls is the product's own code path.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Callable


class FailingDisk:
    """Install with ``FailingDisk(monkeypatch)``; add rules with ``fail_open`` / ``fail_write``."""

    def __init__(self, monkeypatch) -> None:
        self._real_open, self._real_write = os.open, os.write
        self._names: dict[int, str] = {}
        self._open_rules: list[tuple[Callable[[str], bool], int]] = []
        self._write_rule: tuple[Callable[[str], bool], int, int, bool] | None = None
        self.writes_seen = 0
        monkeypatch.setattr(os, "open", self._open)
        monkeypatch.setattr(os, "write", self._write)

    def fail_open(self, match: Callable[[str], bool], code: int) -> None:
        """Opening a path for writing where ``match(path)`` raises ``OSError(code)``."""
        self._open_rules.append((match, code))

    def fail_write(
        self, match: Callable[[str], bool], code: int = errno.ENOSPC, after: int = 0, partial: bool = False
    ) -> None:
        """Writes to a file where ``match(path)``: the first ``after`` succeed, then each raises
        ``OSError(code)``; with ``partial`` the first failing write stores half its bytes and
        returns that count (the next one raises), leaving a torn line like a real full disk."""
        self._write_rule = (match, code, after, partial)
        self.writes_seen = 0

    def heal(self) -> None:
        """Space freed / permissions fixed: every later call succeeds."""
        self._open_rules.clear()
        self._write_rule = None

    def _open(self, path, flags, mode=0o777, *, dir_fd=None):
        name = os.fspath(path)
        if flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            for match, code in self._open_rules:
                if match(name):
                    raise OSError(code, os.strerror(code), name)
        fd = self._real_open(path, flags, mode, dir_fd=dir_fd)
        self._names[fd] = name
        return fd

    def _write(self, fd, data):
        name = self._names.get(fd)
        rule = self._write_rule
        if rule is not None and name is not None and rule[0](name):
            match, code, after, partial = rule
            self.writes_seen += 1
            if self.writes_seen > after:
                if partial:
                    self._write_rule = (match, code, self.writes_seen, False)
                    return self._real_write(fd, bytes(data)[: max(1, len(data) // 2)])
                raise OSError(code, os.strerror(code))
        return self._real_write(fd, data)
