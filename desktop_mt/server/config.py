"""Settings of ``desktop-mt serve`` and the checks that keep it safe by default.

No FastAPI here: the CLI builds its parser from this module without the ``server`` extra.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import json
import os

from ..app.i18n import _
from ..base.errors import DesktopMTError
from ..engine.model_format import VARIANTS, Variant

__all__ = [
    "CONFIG_ENV",
    "CORS_HEADERS",
    "ServeConfigError",
    "ServerConfig",
    "is_loopback",
    "check_safe",
    "cors_origins",
    "add_serve_arguments",
    "config_from_args",
]

_API_KEY_ENV = "DESKTOP_MT_API_KEY"
CONFIG_ENV = "DESKTOP_MT_SERVE_CONFIG"  # the config handed to --workers processes
_LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
# --cors-origin presets: the origins of desktop apps whose web views call the server. Pot is a
# Tauri app: its web view's origin is tauri://localhost (macOS, Linux) or
# http(s)://tauri.localhost (Windows), and it streams OpenAI answers with fetch() from there.
_CORS_PRESETS = {"pot": ("tauri://localhost", "https://tauri.localhost", "http://tauri.localhost")}
CORS_HEADERS = ("Content-Type", "Authorization", "api-key")  # api-key: Pot's Azure option


class ServeConfigError(DesktopMTError):
    """The server settings are unsafe or inconsistent (the message says which flag to change)."""


@dataclasses.dataclass(frozen=True)
class ServerConfig:
    """Everything a worker process needs to build the app (JSON-serialisable for ``--workers``).

    Limits: ``char_limit`` characters per text, ``batch_limit`` texts per request,
    ``max_body_bytes`` per request body. Batching: up to ``max_batch`` texts per engine call,
    collected for at most ``batch_window_ms`` after the first one arrives; at most
    ``queue_size`` texts wait (more get 503 + Retry-After). ``max_streams`` concurrent
    unbatched generations: ``/translate/stream`` streams and the n-best searches of
    ``alternatives``. ``alternatives_limit``: the most alternatives a request may ask for
    (each one widens the beam search). Connections: the request line and headers must arrive
    within ``header_timeout_s`` of the connection (or of the previous answer), the body within
    ``body_timeout_s`` (408), an idle keep-alive connection is closed after ``keep_alive_s``;
    beyond ``max_connections`` open connections a new one is answered 503 and closed.
    Shutdown (SIGTERM, Ctrl+C, the app's quit): work already running gets ``drain_s`` seconds
    to finish (:meth:`.service.TranslationService.drain`).
    ``cors_origins`` may name presets (:data:`_CORS_PRESETS`, e.g. ``pot``).

    Models: ``models`` the ``--model`` values (folders or installed names, at most one per
    direction, resolved by ``app.factory.build_translator``; none: the active, else the
    bundled model of each direction); ``model`` one model folder (a front end that passes its
    own translator names its model here). ``tm``: None (default) no translation memory, ``""``
    the user's own, else a file (:mod:`.memory`).
    """

    host: str = "127.0.0.1"
    port: int = 5000
    model: str | None = None
    models: tuple[str, ...] = ()
    tm: str | None = None
    variant: Variant = "int8"
    threads: int = 0
    provider: str = "cpu"
    api_key: str | None = None
    workers: int = 1
    cors_origins: tuple[str, ...] = ()
    char_limit: int = 5000
    batch_limit: int = 128
    max_body_bytes: int = 2_000_000
    max_batch: int = 32
    batch_window_ms: float = 5.0
    queue_size: int = 256
    max_streams: int = 4
    alternatives_limit: int = 5
    retry_after_s: int = 1
    header_timeout_s: float = 10.0
    body_timeout_s: float = 30.0
    keep_alive_s: float = 5.0
    max_connections: int = 256
    drain_s: float = 10.0

    def __post_init__(self) -> None:
        for name in (
            "char_limit",
            "batch_limit",
            "max_body_bytes",
            "max_batch",
            "queue_size",
            "max_streams",
            "workers",
            "alternatives_limit",
            "max_connections",
        ):
            if getattr(self, name) < 1:
                raise ServeConfigError(f"--{name.replace('_', '-')} must be >= 1")
        for name in ("header_timeout_s", "body_timeout_s", "keep_alive_s"):
            if not getattr(self, name) > 0:
                raise ServeConfigError(f"--{name[:-2].replace('_', '-')} must be > 0")
        if not 0 <= self.drain_s <= 3600:
            raise ServeConfigError("--drain-timeout must be 0-3600 seconds")
        if self.batch_window_ms < 0:
            raise ServeConfigError("--batch-window-ms must be >= 0")
        if not 0 <= self.port <= 65535:
            raise ServeConfigError(f"--port must be 0-65535, not {self.port}")
        if self.variant not in VARIANTS:  # a config passed as JSON (from_json) is not argparse-checked
            raise ServeConfigError(f"--variant must be one of {', '.join(VARIANTS)}, not {self.variant!r}")

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> ServerConfig:
        data = json.loads(text)
        data["cors_origins"] = tuple(data.get("cors_origins") or ())
        data["models"] = tuple(data.get("models") or ())
        return cls(**data)

    @property
    def model_choices(self) -> tuple[str, ...]:
        """The models asked for: ``models``, else ``model``, else none (the defaults)."""
        return self.models or ((self.model,) if self.model else ())


def is_loopback(host: str) -> bool:
    """Whether ``host`` only accepts connections from this machine."""
    if host.strip("[]").lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name other than localhost: it may resolve to anything


def check_safe(config: ServerConfig) -> None:
    """Refuse settings that would expose the translator to the network without a key."""
    if not is_loopback(config.host) and not config.api_key:
        raise ServeConfigError(
            f"refusing to listen on {config.host} without an API key: anyone who can reach this "
            f"machine could use the translator. Give --api-key KEY (or set {_API_KEY_ENV}), or "
            f"bind to 127.0.0.1 (the default)."
        )
    for origin in config.cors_origins:
        if origin == "*":
            raise ServeConfigError(
                "--cors-origin '*' would let every web page call the server; "
                "list the origins that may (e.g. --cors-origin "
                "https://example.org)"
            )
        if "://" not in origin and origin not in _CORS_PRESETS:
            raise ServeConfigError(
                f"--cors-origin {origin}: give an origin such as "
                f"https://example.org, or a preset: {', '.join(_CORS_PRESETS)}"
            )


def cors_origins(config: ServerConfig) -> list[str]:
    """The allowed browser origins, presets expanded."""
    origins: list[str] = []
    for origin in config.cors_origins:
        origins += _CORS_PRESETS.get(origin, (origin,))
    return list(dict.fromkeys(origins))


def add_serve_arguments(parser: argparse.ArgumentParser) -> None:
    """The ``serve`` options other than the model ones (the CLI adds --model/--variant/...)."""
    d = ServerConfig()
    parser.add_argument(
        "--host", default=d.host, help=_("address to bind (default 127.0.0.1; any other needs --api-key)")
    )
    parser.add_argument("--port", type=int, default=d.port, help=_("TCP port (default 5000)"))
    parser.add_argument(
        "--api-key",
        metavar="KEY",
        help=_(
            "require this key (api_key in the body, or 'Authorization: Bearer KEY'); default: ${variable} if set"
        ).format(variable=_API_KEY_ENV),
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=d.workers,
        metavar="N",
        help=_("worker processes, each with its own copy of the model (default 1)"),
    )
    parser.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        dest="cors_origins",
        help=_(
            "allow browser pages from ORIGIN (repeatable; default none); "
            "'pot' allows Pot's web view (tauri://localhost ...)"
        ),
    )
    parser.add_argument(
        "--char-limit",
        type=int,
        default=d.char_limit,
        metavar="N",
        help=_("most characters per text (default {default})").format(default=d.char_limit),
    )
    parser.add_argument(
        "--batch-limit",
        type=int,
        default=d.batch_limit,
        metavar="N",
        help=_("most texts per request (default {default})").format(default=d.batch_limit),
    )
    parser.add_argument(
        "--max-batch",
        type=int,
        default=d.max_batch,
        metavar="N",
        help=_("most texts per engine call (default {default})").format(default=d.max_batch),
    )
    parser.add_argument(
        "--batch-window-ms",
        type=float,
        default=d.batch_window_ms,
        metavar="MS",
        help=_("how long to collect requests into a batch (default {default})").format(
            default=f"{d.batch_window_ms:g}"
        ),
    )
    parser.add_argument(
        "--queue-size",
        type=int,
        default=d.queue_size,
        metavar="N",
        help=_("most waiting texts before answering 503 (default {default})").format(default=d.queue_size),
    )
    parser.add_argument(
        "--max-streams",
        type=int,
        default=d.max_streams,
        metavar="N",
        help=_("most concurrent /translate/stream requests and alternatives searches (default {default})").format(
            default=d.max_streams
        ),
    )
    parser.add_argument(
        "--alternatives-limit",
        type=int,
        default=d.alternatives_limit,
        metavar="N",
        help=_("most alternatives one text may ask for (default {default})").format(default=d.alternatives_limit),
    )
    parser.add_argument(
        "--header-timeout",
        type=float,
        default=d.header_timeout_s,
        metavar="S",
        dest="header_timeout_s",
        help=_("seconds a connection may take to send its request line and headers (default {default})").format(
            default=f"{d.header_timeout_s:g}"
        ),
    )
    parser.add_argument(
        "--body-timeout",
        type=float,
        default=d.body_timeout_s,
        metavar="S",
        dest="body_timeout_s",
        help=_("seconds a request body may take to arrive (default {default}; then 408)").format(
            default=f"{d.body_timeout_s:g}"
        ),
    )
    parser.add_argument(
        "--drain-timeout",
        type=float,
        default=d.drain_s,
        metavar="S",
        dest="drain_s",
        help=_(
            "on SIGTERM/Ctrl+C, seconds running work gets to finish (default {default}); "
            "waiting requests get 503 at once"
        ).format(default=f"{d.drain_s:g}"),
    )
    parser.add_argument(
        "--keep-alive",
        type=float,
        default=d.keep_alive_s,
        metavar="S",
        dest="keep_alive_s",
        help=_("seconds an idle keep-alive connection stays open (default {default})").format(
            default=f"{d.keep_alive_s:g}"
        ),
    )
    parser.add_argument(
        "--max-connections",
        type=int,
        default=d.max_connections,
        metavar="N",
        help=_("open connections; more are answered 503 and closed (default {default})").format(
            default=d.max_connections
        ),
    )
    parser.add_argument(
        "--no-batching", action="store_true", help=_("serve one text at a time (for comparison; --max-batch 1)")
    )
    parser.add_argument(
        "--tm",
        nargs="?",
        const="",
        default=None,
        metavar="FILE",
        help=_(
            "use a translation memory (default: none): its exact matches are the translation and "
            "never sent to the model. Alone: your own memory (the window's); FILE: a TMX file or "
            "another memory database"
        ),
    )


def config_from_args(args: argparse.Namespace) -> ServerConfig:
    """A :class:`ServerConfig` from parsed ``serve`` arguments (raises ServeConfigError)."""
    no_batching = getattr(args, "no_batching", False)
    return ServerConfig(
        host=args.host,
        port=args.port,
        models=tuple([args.model] if isinstance(args.model, str) else args.model or ()),
        tm=getattr(args, "tm", None),
        variant=args.variant or VARIANTS[0],
        threads=args.threads or 0,
        provider=args.provider,
        api_key=args.api_key or os.environ.get(_API_KEY_ENV) or None,
        workers=args.workers,
        cors_origins=tuple(args.cors_origins),
        char_limit=args.char_limit,
        batch_limit=args.batch_limit,
        max_batch=1 if no_batching else args.max_batch,
        batch_window_ms=0.0 if no_batching else args.batch_window_ms,
        queue_size=args.queue_size,
        max_streams=args.max_streams,
        alternatives_limit=getattr(args, "alternatives_limit", ServerConfig.alternatives_limit),
        **{
            name: getattr(args, name)
            for name in ("header_timeout_s", "body_timeout_s", "keep_alive_s", "max_connections", "drain_s")
            if hasattr(args, name)
        },
    )
