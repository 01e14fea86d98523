"""Download a catalog model from the Hub (or a mirror) and install it atomically.

Steps: the Hub API lists the pinned revision (sizes, sha256); the files of the chosen variant
(plus config and tokenizer) are fetched into ``<models>/.downloads/NAME/`` as ``*.part`` files
(a streamed GET on ``huggingface_hub``'s HTTP session; a dropped connection continues with a
Range request from where it stopped), each verified against the Hub's hash; then a
``desktop_mt.json`` manifest is written and the folder is renamed into ``<models>/NAME`` in one
step. A cancelled, interrupted or failed download leaves only the staging folder, which no model
scan loads and which a rerun resumes (finished files are kept, ``*.part`` files continue with a
Range request).

Stall rule: the whole download fails with a :class:`ModelDownloadError` naming the endpoint and
how to choose another when fewer than ``stall_bytes`` (16 KiB) arrive in ``stall_seconds`` (60 s),
whether the server is silent or trickles (a mirror that sends a byte every 5 s never trips a read
timeout on its own). What arrived is kept: a rerun resumes it.

Requests a download makes (nothing else; README "Privacy"): ``GET {endpoint}/api/models/{repo}/
revision/{rev}`` (the file list with sizes and hashes; once more for the checkpoint repository
when the tokenizer files come from there), then per file ``HEAD`` and ``GET {endpoint}/{repo}/
resolve/{rev}/{path}`` (following a redirect to the Hub's file storage). No token, cookie or
telemetry: :func:`_quiet_hub` turns off huggingface_hub's telemetry, which would otherwise fetch
``{HF_ENDPOINT or huggingface.co}/api/agent-harnesses`` once a day to name an AI agent in the
User-Agent and add the torch version to it. The User-Agent sent is ``desktop-mt/VERSION;
hf_hub/VERSION; python/VERSION``.

Why not ``hf_hub_download``: since huggingface_hub 1.x it writes to a process-unique temporary file
and deletes it on any failure, so a rerun after Ctrl-C would start every file from zero; and its
``http_get`` reads 10 MB chunks, so a trickling server is not seen until a chunk is complete.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from ..base.errors import (
    N_,
    DownloadCancelled,
    DownloadVerificationError,
    ModelDownloadError,
    ModelNotFoundError,
    NotEnoughSpaceError,
    Phrase,
)
from ..base.version import __version__
from ..engine.model_format import Variant
from .catalog import CatalogEntry, catalog_entry
from .hub import RemoteFile, file_digest, hub_errors, list_revision
from .install import install_staged, reuse_installed
from .installed import default_endpoint, models_dir, staging_root

__all__ = [
    "DownloadStalledError",
    "CancelFlag",
    "DownloadProgress",
    "ProgressCallback",
    "plan_files",
    "download_model",
]

_SPACE_MARGIN = 32 << 20  # leave this much free after the download
_SOURCE_FILE = "source.json"  # in the staging folder: which repo/revision its files belong to
_STALL_SECONDS = 60.0  # the stall rule: fewer than _STALL_BYTES in this many seconds fails
_STALL_BYTES = 16 << 10
_PIECE_BYTES = 1 << 20  # written and reported in pieces of at most this much
_MAX_RESUMES = 5  # reconnections in a row that bring no new byte before giving up


class DownloadStalledError(ModelDownloadError):
    """The stall rule ended the download (see the module docstring); a rerun resumes it."""

    def __init__(self, message: str, endpoint: str, seconds: float, floor: int) -> None:
        super().__init__(message)
        self.endpoint, self.seconds, self.floor = endpoint, seconds, floor


class CancelFlag(Protocol):
    """What ``cancel`` must offer (a ``threading.Event`` does)."""

    def is_set(self) -> bool: ...


@dataclasses.dataclass(frozen=True)
class DownloadProgress:
    """A progress report. ``phase``: "listing", "downloading", "verifying", "installing", "done".

    ``done``/``total`` count the bytes of the whole download (files resumed from an earlier run
    count as done); ``file`` is the repository path being fetched; ``speed`` is bytes/second over
    the last seconds (None before there is a measurement).
    """

    phase: str
    done: int = 0
    total: int = 0
    file: str = ""
    speed: float | None = None

    @property
    def eta(self) -> float | None:
        """Seconds left at the current speed (None while unknown)."""
        if not self.speed or self.total <= self.done:
            return None
        return (self.total - self.done) / self.speed


ProgressCallback = Callable[[DownloadProgress], None]


class _Reporter:
    """Counts bytes, throttles callbacks to ~10 per second, raises when cancelled and applies
    the stall rule (see the module docstring)."""

    def __init__(
        self,
        progress: ProgressCallback | None,
        cancel: CancelFlag | None,
        total: int,
        endpoint: str = "",
        stall_seconds: float = _STALL_SECONDS,
        stall_bytes: int = _STALL_BYTES,
    ) -> None:
        self.progress, self.cancel, self.total, self.endpoint = progress, cancel, total, endpoint
        self.stall_seconds, self.stall_bytes = stall_seconds, stall_bytes
        self.done, self.file, self.phase = 0, "", "downloading"
        self._window: list[tuple[float, int]] = []
        self._marks: collections.deque[tuple[float, int]] = collections.deque()
        self._last = 0.0

    def check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise DownloadCancelled("download cancelled; run it again to resume where it stopped")

    def add(self, n: int) -> None:
        """Count ``n`` bytes written (checked for a cancel first, so a cancel lands between pieces)."""
        self.check_cancel()
        self.done += n
        now = time.monotonic()
        self._window = [(t, b) for t, b in self._window if now - t < 3.0] + [(now, self.done)]
        self.check_stall(now)
        if now - self._last >= 0.1:
            self.emit()

    def restart_clock(self) -> None:
        """Start the stall rule's window now (after listing, verifying: not transfer time)."""
        self._marks = collections.deque([(time.monotonic(), self.done)])

    def check_stall(self, now: float | None = None) -> None:
        """Raise when fewer than ``stall_bytes`` arrived in the last ``stall_seconds``."""
        now = time.monotonic() if now is None else now
        if not self._marks:
            self._marks.append((now, self.done))
        self._marks.append((now, self.done))
        horizon = now - self.stall_seconds
        while len(self._marks) > 1 and self._marks[1][0] <= horizon:
            self._marks.popleft()
        since, done_then = self._marks[0]
        if since <= horizon and self.done - done_then < self.stall_bytes:
            template = N_(
                "the download from {endpoint} stalled: less than {kib} KiB arrived in {seconds} s (at {file}). "
                "What arrived is kept: run the download again to resume, or choose another mirror (--endpoint "
                "URL, `desktop-mt models mirror URL`, HF_ENDPOINT, or “Download from” in the Models dialog)"
            )
            fields: dict[str, object] = {
                "endpoint": self.endpoint,
                "kib": self.stall_bytes // 1024,
                "seconds": f"{self.stall_seconds:g}",
                "file": self.file or Phrase(N_("the file list")),
            }
            raise DownloadStalledError(
                template.format(**fields), self.endpoint, self.stall_seconds, self.stall_bytes
            ).worded(template, **fields)

    def emit(self, phase: str | None = None) -> None:
        self.phase = phase or self.phase
        self._last = time.monotonic()
        if self.progress is not None:
            self.progress(DownloadProgress(self.phase, self.done, self.total, self.file, self._speed()))

    def _speed(self) -> float | None:
        if len(self._window) < 2 or self._window[-1][0] <= self._window[0][0]:
            return None
        (t0, b0), (t1, b1) = self._window[0], self._window[-1]
        return (b1 - b0) / (t1 - t0)


def plan_files(entry: CatalogEntry, variant: Variant, endpoint: str) -> list[RemoteFile]:
    """The files to fetch for ``variant``, from the Hub's listing of the pinned revision.

    Tokenizer files missing from the repo come from ``entry.tokenizer_fallback`` (the
    checkpoint's own repo), so that tokenization is SentencePiece's, as in training.
    """
    if variant not in entry.variants:
        raise ModelNotFoundError(f"{entry.name} has no {variant!r} variant (it has: {', '.join(entry.variants)})")
    listing = list_revision(entry.repo, entry.revision, endpoint)
    wanted = [*entry.common_files, *entry.variants[variant].files.values()]
    missing = [p for p in wanted if p not in listing]
    if missing:
        raise ModelDownloadError(
            f"{entry.repo}@{entry.revision[:12]} at {endpoint} lacks {', '.join(missing)}; "
            f"the catalog entry {entry.name!r} does not match the repository"
        )
    files = [listing[p] for p in wanted]
    tokenizer_listing = listing
    if not all(p in listing for p in entry.tokenizer_files):
        if not entry.tokenizer_fallback:
            raise ModelDownloadError(
                f"{entry.repo} has no {', '.join(entry.tokenizer_files)} and the catalog names "
                f"no checkpoint repository to take them from"
            )
        fb = entry.tokenizer_fallback
        tokenizer_listing = list_revision(fb["repo"], fb["revision"], endpoint)
    for p in entry.tokenizer_files:
        if p not in tokenizer_listing:
            raise ModelDownloadError(f"tokenizer file {p} is in neither {entry.repo} nor its checkpoint repository")
        files.append(tokenizer_listing[p])
    return files


def _quiet_hub() -> None:
    """Turn off what huggingface_hub sends on its own: its telemetry (the torch version and an
    AI-agent guess in the User-Agent, and the daily ``/api/agent-harnesses`` fetch behind that
    guess). Process-wide, like the environment variable ``HF_HUB_DISABLE_TELEMETRY=1``."""
    import huggingface_hub.constants as hf_constants

    os.environ["HF_HUB_DISABLE_TELEMETRY"] = "1"
    hf_constants.HF_HUB_DISABLE_TELEMETRY = True


def download_model(
    name: str | CatalogEntry,
    variant: Variant = "int8",
    *,
    endpoint: str | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelFlag | None = None,
    stall_seconds: float = _STALL_SECONDS,
    stall_bytes: int = _STALL_BYTES,
) -> Path:
    """Download and install a catalog model's ``variant``; returns the installed folder.

    ``endpoint``: the Hub or a mirror (the front ends pass the app's choice,
    ``app.settings.resolve_endpoint()``); else ``HF_ENDPOINT``, else huggingface.co. ``progress`` receives
    :class:`DownloadProgress` reports (from the calling thread); ``cancel`` is anything with
    ``is_set()`` (a ``threading.Event``), checked between chunks. Already installed: returns at
    once. Raises :class:`ModelDownloadError` subclasses (``HubUnreachableError``,
    ``DownloadVerificationError``, ``NotEnoughSpaceError``, and a stall: see the module
    docstring), or :class:`DownloadCancelled` (a cancellation, outside the error tree) once
    ``cancel`` is set; none leaves a model folder that the app would load half-written.
    """
    _quiet_hub()
    entry = catalog_entry(name) if isinstance(name, str) else name
    endpoint = default_endpoint(endpoint)
    if progress is not None:
        progress(DownloadProgress("listing"))
    files = plan_files(entry, variant, endpoint)
    target = models_dir() / entry.name
    if _already_installed(target, entry, variant, files):
        if progress is not None:
            progress(DownloadProgress("done", 1, 1))
        return target
    with _exclusive(entry.name):
        staging = _prepare_staging(entry)
        reuse_installed(entry, target, staging)
        reporter = _Reporter(progress, cancel, sum(f.size for f in files), endpoint, stall_seconds, stall_bytes)
        _check_space(staging, files)
        for remote in files:
            _fetch(remote, staging, endpoint, reporter)
        reporter.emit("installing")
        path = install_staged(entry, variant, files, staging, target, endpoint)
    reporter.emit("done")
    return path


@contextlib.contextmanager
def _exclusive(name: str) -> Iterator[None]:
    """One download of a model at a time (the GUI and the CLI may both try): a second one fails
    at once instead of writing into the same partial files."""
    from filelock import FileLock, Timeout

    staging_root().mkdir(parents=True, exist_ok=True)
    lock = FileLock(str(staging_root() / f"{name}.lock"))
    try:
        lock.acquire(timeout=0)
    except Timeout as exc:
        raise ModelDownloadError(
            f"{name} is already being downloaded (by the app or another desktop-mt command); wait for it or cancel it"
        ) from exc
    try:
        yield
    finally:
        lock.release()


def _already_installed(target: Path, entry: CatalogEntry, variant: Variant, files: list[RemoteFile]) -> bool:
    try:
        manifest = json.loads((target / "desktop_mt.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    source = manifest.get("download", {})
    return (
        source.get("repo") == entry.repo
        and source.get("revision") == entry.revision
        and variant in manifest.get("variants", {})
        and all((target / f.path).is_file() and (target / f.path).stat().st_size == f.size for f in files)
    )


def _prepare_staging(entry: CatalogEntry) -> Path:
    """The staging folder for ``entry``, emptied if it holds files of another revision."""
    staging = staging_root() / entry.name
    source = {"repo": entry.repo, "revision": entry.revision}
    try:
        current = json.loads((staging / _SOURCE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        current = None
    if current != source and staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True, exist_ok=True)
    (staging / _SOURCE_FILE).write_text(json.dumps(source), encoding="utf-8")
    return staging


def _local_bytes(remote: RemoteFile, staging: Path) -> int:
    done, part = staging / remote.path, staging / (remote.path + ".part")
    if done.is_file():
        return done.stat().st_size
    return part.stat().st_size if part.is_file() else 0


def _check_space(staging: Path, files: list[RemoteFile]) -> None:
    needed = sum(max(f.size - _local_bytes(f, staging), 0) for f in files)
    free = shutil.disk_usage(staging).free
    if needed + _SPACE_MARGIN > free:
        raise NotEnoughSpaceError.of(
            N_(
                "the download needs {needed} MB in {folder} but only {free} MB are free; "
                "free some space and run it again"
            ),
            needed=_mb(needed),
            folder=staging.parent.parent,
            free=_mb(free),
        )


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f}"


def _fetch(remote: RemoteFile, staging: Path, endpoint: str, reporter: _Reporter) -> None:
    """Fetch one file into ``staging`` (resuming a ``.part``) and verify it against the Hub."""
    final, part = staging / remote.path, staging / (remote.path + ".part")
    reporter.file = remote.path
    reporter.check_cancel()
    if final.is_file() and final.stat().st_size == remote.size:
        reporter.add(remote.size)  # verified when it was downloaded
        return
    part.parent.mkdir(parents=True, exist_ok=True)
    if part.is_file() and part.stat().st_size > remote.size:
        part.unlink()
    resume = part.stat().st_size if part.is_file() else 0
    reporter.add(resume)
    reporter.restart_clock()
    _http_fetch(remote, part, resume, endpoint, reporter)
    reporter.emit("verifying")
    actual, size = file_digest(part, remote), part.stat().st_size
    if size != remote.size or actual != remote.expected_digest:
        part.unlink()  # a corrupt file must not be resumed either
        raise DownloadVerificationError.of(
            N_(
                "{file} from {endpoint} ({repo}@{revision}) does not match the Hub's metadata ({digest_name} "
                "{actual}, {size} bytes; expected {expected}, {expected_size} bytes); nothing was installed and "
                "the file was discarded. Run the download again; if it fails again, the endpoint serves a "
                "corrupted copy: try another endpoint"
            ),
            file=remote.path,
            endpoint=endpoint,
            repo=remote.repo,
            revision=remote.revision[:12],
            digest_name=remote.digest_name,
            actual=actual,
            size=size,
            expected=remote.expected_digest,
            expected_size=remote.size,
        )
    os.replace(part, final)
    reporter.restart_clock()
    reporter.emit("downloading")


def _http_fetch(remote: RemoteFile, part: Path, resume: int, endpoint: str, reporter: _Reporter) -> None:
    """HEAD the file (checked against the listing), then GET the rest of it into ``part``."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url
    from huggingface_hub.utils import build_hf_headers  # type: ignore[attr-defined]  # not in its __all__

    url = hf_hub_url(remote.repo, remote.path, revision=remote.revision, endpoint=endpoint)
    headers = build_hf_headers(token=False, library_name="desktop-mt", library_version=__version__)
    with hub_errors(endpoint, f"{remote.repo}/{remote.path}"):
        meta = get_hf_file_metadata(url, token=False, headers=headers, endpoint=endpoint)
        _check_metadata(remote, meta, endpoint)
        if resume >= remote.size:
            return
        with open(part, "ab") as f:
            _stream(meta.location or url, f, resume, headers, remote, reporter)


def _stream(url: str, f: BinaryIO, have: int, headers: dict[str, str], remote: RemoteFile, reporter: _Reporter) -> None:
    """GET ``url`` from byte ``have`` into ``f`` until the file is complete. A read that times
    out or a connection that drops continues with a Range request (the stall rule and
    _MAX_RESUMES bound it); every piece is counted by ``reporter`` (cancel, stall)."""
    import httpx2
    import huggingface_hub.constants as hf_constants
    from huggingface_hub import get_session, hf_raise_for_status

    piece = max(1, min(_PIECE_BYTES, int(hf_constants.DOWNLOAD_CHUNK_SIZE)))
    # Short enough that a silent server meets the stall rule twice per window.
    read_timeout = max(0.05, min(float(hf_constants.HF_HUB_DOWNLOAD_TIMEOUT), reporter.stall_seconds / 2))
    timeout = httpx2.Timeout(float(hf_constants.HF_HUB_DOWNLOAD_TIMEOUT), read=read_timeout)
    fruitless = 0
    while have < remote.size:
        before = have
        request_headers = dict(headers, Range=f"bytes={have}-") if have else dict(headers)
        try:
            with get_session().stream(
                "GET", url, headers=request_headers, timeout=timeout, follow_redirects=True
            ) as response:
                hf_raise_for_status(response)
                if have and response.status_code == 200:  # the server ignored the Range: start over
                    f.seek(f.tell() - have)
                    f.truncate()
                    reporter.add(-have)
                    have = before = 0
                for chunk in response.iter_bytes():
                    for start in range(0, len(chunk), piece):
                        data = chunk[start : start + piece][: remote.size - have]
                        reporter.check_cancel()
                        f.write(data)
                        have += len(data)
                        reporter.add(len(data))
                    reporter.check_stall()
                    if have >= remote.size:
                        break
        except (httpx2.ReadTimeout, httpx2.ReadError, httpx2.RemoteProtocolError):
            pass  # checked below: resume with a Range request, unless it stalled
        f.flush()
        reporter.check_stall()
        fruitless = 0 if have > before else fruitless + 1
        if have < remote.size and fruitless > _MAX_RESUMES:
            raise ModelDownloadError(
                f"{remote.path} from {reporter.endpoint} keeps breaking off at byte {have} of {remote.size}; "
                f"what arrived is kept: run the download again to resume, or try another mirror"
            )


def _check_metadata(remote: RemoteFile, meta: Any, endpoint: str) -> None:
    """The file's HEAD must agree with the listing: same commit, size and (LFS) sha256."""
    problems = []
    if meta.commit_hash and len(remote.revision) == 40 and meta.commit_hash != remote.revision:
        problems.append(f"commit {meta.commit_hash} instead of {remote.revision}")
    if meta.size is not None and meta.size != remote.size:
        problems.append(f"size {meta.size} instead of {remote.size}")
    if remote.sha256 and meta.etag and meta.etag != remote.sha256:
        problems.append(f"etag {meta.etag} instead of sha256 {remote.sha256}")
    if problems:
        raise DownloadVerificationError(
            f"{endpoint}: {remote.repo}/{remote.path} is inconsistent "
            f"({'; '.join(problems)}); nothing was downloaded, try another endpoint"
        )
