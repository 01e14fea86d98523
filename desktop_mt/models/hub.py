"""What the Hub says about a pinned revision, and Hub errors turned into desktop-mt errors.

Uses ``huggingface_hub`` (``HfApi.model_info(files_metadata=True)``) against an explicit endpoint:
the Hub, or a mirror that speaks its API. No token is ever sent: the catalog holds public models
and a mirror must not receive the user's Hub token.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
from collections.abc import Iterator
from pathlib import Path

from ..base.errors import N_, HubUnreachableError, ModelDownloadError
from ..base.version import __version__
from .installed import MIRROR_HINT

__all__ = [
    "RemoteFile",
    "file_digest",
    "unreachable_message",
    "unreachable_error",
    "hub_errors",
    "list_revision",
]


@dataclasses.dataclass(frozen=True)
class RemoteFile:
    """One file of a repo at a commit, with the Hub's size and hash (sha256 for LFS files, the
    git blob sha1 for small ones)."""

    repo: str
    revision: str
    path: str
    size: int
    sha256: str | None = None
    blob_id: str | None = None

    def matches(self, local: Path) -> bool:
        """Whether ``local`` has exactly the bytes the Hub describes."""
        if local.stat().st_size != self.size:
            return False
        return file_digest(local, self) == self.expected_digest

    @property
    def expected_digest(self) -> str:
        return self.sha256 or self.blob_id or ""

    @property
    def digest_name(self) -> str:
        return "sha256" if self.sha256 else "git-sha1"


def file_digest(path: Path, remote: RemoteFile) -> str:
    """The digest of ``path`` in the form the Hub gives for ``remote`` (sha256 or git blob sha1)."""
    if remote.sha256:
        digest = hashlib.sha256()
    else:
        digest = hashlib.sha1()
        digest.update(f"blob {path.stat().st_size}\0".encode())
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def unreachable_message(endpoint: str, detail: str) -> str:
    hint = (
        f"check the connection, or use a mirror: `--endpoint {MIRROR_HINT}` or the environment "
        f"variable HF_ENDPOINT={MIRROR_HINT}"
    )
    if endpoint.rstrip("/") != "https://huggingface.co":
        hint = (
            f"check the connection and that {endpoint} is a Hub mirror "
            "(HF_ENDPOINT / --endpoint / the app's mirror setting)"
        )
    return f"cannot reach the model hub at {endpoint} ({detail}); {hint}"


def unreachable_error(endpoint: str, detail: str) -> HubUnreachableError:
    """:class:`HubUnreachableError` with :func:`unreachable_message`, translatable."""
    if endpoint.rstrip("/") != "https://huggingface.co":
        template = N_(
            "cannot reach the model hub at {endpoint} ({detail}); check the connection and that "
            "{endpoint} is a Hub mirror (HF_ENDPOINT / --endpoint / the app's mirror setting)"
        )
    else:
        template = N_(
            "cannot reach the model hub at {endpoint} ({detail}); check the connection, or use a mirror: "
            "`--endpoint {mirror}` or the environment variable HF_ENDPOINT={mirror}"
        )
    error = HubUnreachableError(unreachable_message(endpoint, detail))
    return error.worded(template, endpoint=endpoint, detail=detail, mirror=MIRROR_HINT)


@contextlib.contextmanager
def hub_errors(endpoint: str, what: str) -> Iterator[None]:
    """Turn network and Hub HTTP errors into :class:`ModelDownloadError` s naming ``endpoint``."""
    import httpx2
    from huggingface_hub import errors as hf

    try:
        yield
    except hf.OfflineModeIsEnabled as exc:
        raise HubUnreachableError.of(
            N_(
                "downloads are switched off: HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE) is set "
                "in the environment; unset it to download from {endpoint}"
            ),
            endpoint=endpoint,
        ) from exc
    except httpx2.TransportError as exc:
        raise unreachable_error(endpoint, f"{type(exc).__name__}: {exc}") from exc
    except (hf.RepositoryNotFoundError, hf.RevisionNotFoundError, hf.RemoteEntryNotFoundError) as exc:
        raise ModelDownloadError(
            f"{what} was not found at {endpoint} ({type(exc).__name__}); a mirror may not "
            f"have it yet: try another endpoint"
        ) from exc
    except hf.HfHubHTTPError as exc:
        status = getattr(getattr(exc, "response", None), "status_code", "?")
        raise ModelDownloadError(
            f"{endpoint} answered HTTP {status} for {what}; try again later or use "
            f"another endpoint (e.g. {MIRROR_HINT})"
        ) from exc
    except hf.FileMetadataError as exc:
        raise ModelDownloadError(f"{endpoint} does not behave like a Hub endpoint for {what} ({exc})") from exc


def list_revision(repo: str, revision: str, endpoint: str) -> dict[str, RemoteFile]:
    """The files of ``repo`` at ``revision`` with sizes and hashes, by path."""
    from huggingface_hub import HfApi

    api = HfApi(endpoint=endpoint, token=False, library_name="desktop-mt", library_version=__version__)
    with hub_errors(endpoint, f"{repo}@{revision[:12]}"):
        info = api.model_info(repo, revision=revision, files_metadata=True, timeout=30)
    if info.sha and len(revision) == 40 and info.sha != revision:
        raise ModelDownloadError(f"{endpoint} answered for {repo} with commit {info.sha}, not the pinned {revision}")
    files = {}
    for s in info.siblings or []:
        if s.size is None:
            raise ModelDownloadError(f"{endpoint} gave no size for {repo}/{s.rfilename}; it cannot be verified")
        files[s.rfilename] = RemoteFile(
            repo, info.sha or revision, s.rfilename, int(s.size), s.lfs.sha256 if s.lfs else None, s.blob_id
        )
    return files
