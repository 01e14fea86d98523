"""A local HTTP server that speaks the part of the HuggingFace Hub API that downloads use.

- ``GET /api/models/{owner}/{name}/revision/{rev}``: ``sha`` and ``siblings`` (``rfilename``,
  ``size``, ``blobId``, ``lfs: {sha256, size, pointerSize}`` for LFS files) as ``HfApi.model_info(...,
  files_metadata=True)`` parses them; unknown repo/revision: 404 with ``X-Error-Code``.
- ``HEAD``/``GET /{owner}/{name}/resolve/{rev}/{path}``: ``X-Repo-Commit``, ``ETag`` (git blob id,
  or the sha256 for LFS files, also as ``X-Linked-Etag`` with ``X-Linked-Size``), ``Content-Length``,
  ``Accept-Ranges``; ``Range: bytes=N-`` gets a 206.

Faults for tests: ``drop_after[path] = n`` sends the full headers, then ``n`` bytes, then closes
the connection (once); ``hold_after[path] = n`` sends ``n`` bytes, sets ``held`` and waits for
``release`` before the rest; ``corrupt`` paths are served with one byte changed (the metadata
stays right); ``trickle[path] = seconds`` sends that file one byte every ``seconds`` (a mirror
that never stops and never finishes). ``requests`` logs (method, path, Range header) of every
request, whatever its route (``/api/agent-harnesses`` too), ``user_agents`` their User-Agent.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote, urlsplit

LFS_MIN_BYTES = 1024  # like the Hub: big and binary files are LFS files with a sha256


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(f"blob {len(data)}\0".encode() + data).hexdigest()


class FakeHub:
    def __init__(self) -> None:
        self.repos: dict[str, dict] = {}
        self.drop_after: dict[str, int] = {}
        self.corrupt: set[str] = set()
        self.hold_after: dict[str, int] = {}
        self.trickle: dict[str, float] = {}
        self.user_agents: list[str] = []
        self.held, self.release = threading.Event(), threading.Event()
        self.requests: list[tuple[str, str, str | None]] = []
        self._server: ThreadingHTTPServer | None = None

    def add_repo(self, repo: str, commit: str, files: dict[str, bytes]) -> None:
        self.repos[repo] = {"sha": commit, "files": dict(files)}

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> FakeHub:
        hub = self

        class Handler(_Handler):
            owner = hub

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        self.release.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def gets(self, path: str) -> list[str | None]:
        """The Range headers of the GET requests for one file (None: the whole file)."""
        return [r for m, p, r in self.requests if m == "GET" and p.endswith("/" + path)]

    # -- what the handler asks --------------------------------------------------------------

    def sibling(self, path: str, data: bytes) -> dict:
        entry = {"rfilename": path, "size": len(data), "blobId": git_blob_id(data)}
        if is_lfs(path, data):
            entry["lfs"] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 134}
        return entry


def is_lfs(path: str, data: bytes) -> bool:
    return path.endswith((".onnx", ".spm")) or len(data) >= LFS_MIN_BYTES


class _Handler(BaseHTTPRequestHandler):
    owner: FakeHub
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        self._route(send_body=True)

    def do_HEAD(self) -> None:
        self._route(send_body=False)

    def _route(self, send_body: bool) -> None:
        path = unquote(urlsplit(self.path).path)
        self.owner.requests.append((self.command, path, self.headers.get("Range")))
        self.owner.user_agents.append(self.headers.get("User-Agent") or "")
        parts = path.strip("/").split("/")
        if parts[:2] == ["api", "models"] and len(parts) == 6 and parts[4] == "revision":
            return self._revision_info(f"{parts[2]}/{parts[3]}", parts[5])
        if len(parts) >= 5 and parts[2] == "resolve":
            return self._resolve(f"{parts[0]}/{parts[1]}", parts[3], "/".join(parts[4:]), send_body)
        self._error(404, "RepoNotFound", "no such route")

    def _repo(self, repo: str, revision: str):
        entry = self.owner.repos.get(repo)
        if entry is None:
            self._error(404, "RepoNotFound", f"Repository {repo} not found")
            return None
        if revision not in (entry["sha"], "main"):
            self._error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
            return None
        return entry

    def _revision_info(self, repo: str, revision: str) -> None:
        entry = self._repo(repo, revision)
        if entry is None:
            return
        body = json.dumps(
            {
                "id": repo,
                "modelId": repo,
                "sha": entry["sha"],
                "private": False,
                "siblings": [self.owner.sibling(p, d) for p, d in sorted(entry["files"].items())],
            }
        ).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _resolve(self, repo: str, revision: str, path: str, send_body: bool) -> None:
        entry = self._repo(repo, revision)
        if entry is None:
            return
        data = entry["files"].get(path)
        if data is None:
            self._error(404, "EntryNotFound", f"{path} does not exist", commit=entry["sha"])
            return
        start = self._range_start()
        self.send_response(206 if start else 200)
        self._file_headers(entry["sha"], path, data, start)
        self.end_headers()
        if send_body:
            self._send_body(path, data, start)

    def _range_start(self) -> int:
        value = self.headers.get("Range") or ""
        if value.startswith("bytes=") and value.endswith("-"):
            return int(value[len("bytes=") : -1])
        return 0

    def _file_headers(self, commit: str, path: str, data: bytes, start: int) -> None:
        etag = hashlib.sha256(data).hexdigest() if is_lfs(path, data) else git_blob_id(data)
        self.send_header("X-Repo-Commit", commit)
        self.send_header("ETag", f'"{etag}"')
        if is_lfs(path, data):
            self.send_header("X-Linked-Etag", f'"{etag}"')
            self.send_header("X-Linked-Size", str(len(data)))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(len(data) - start))
        if start:
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")

    def _send_body(self, path: str, data: bytes, start: int) -> None:
        if path in self.owner.corrupt:
            data = data[:-1] + bytes([data[-1] ^ 0xFF])
        body = data[start:]
        hold = self.owner.hold_after.pop(path, None)
        if hold is not None:  # a slow network: the client is mid-file until the test releases it
            self.wfile.write(body[:hold])
            self.wfile.flush()
            self.owner.held.set()
            self.owner.release.wait(60)
            body = body[hold:]
        delay = self.owner.trickle.get(path)
        if delay is not None:  # one byte at a time until the client gives up (or the test ends)
            try:
                for i in range(len(body)):
                    self.wfile.write(body[i : i + 1])
                    self.wfile.flush()
                    if self.owner.release.wait(delay):
                        break
            except OSError:
                pass
            self.close_connection = True
            return
        drop = self.owner.drop_after.pop(path, None)
        if drop is not None:
            self.wfile.write(body[:drop])
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        self.wfile.write(body)

    def _error(self, status: int, code: str, message: str, commit: str | None = None) -> None:
        body = json.dumps({"error": message}).encode()
        self.send_response(status)
        self.send_header("X-Error-Code", code)
        self.send_header("X-Error-Message", message)
        if commit:
            self.send_header("X-Repo-Commit", commit)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
