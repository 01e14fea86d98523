"""``desktop-mt models``: list, download, remove and choose models (see :mod:`desktop_mt.models`).

    desktop-mt models list
    desktop-mt models download NAME [--variant int8|fp32] [--endpoint URL]
    desktop-mt models remove NAME
    desktop-mt models use NAME|bundled
    desktop-mt models mirror [URL|none]

Download progress goes to stderr. Ctrl-C (or any failure) leaves nothing half installed: the
files fetched so far stay staged, and running the same command again resumes.
"""

from __future__ import annotations

import argparse
import functools
import sys
import threading
from collections.abc import Callable

EXIT_OK, EXIT_FAILED, EXIT_INTERRUPTED = 0, 1, 130


def add_models_parser(sub) -> None:
    """Add the ``models`` subcommand to the ``desktop-mt`` parser."""
    mp = sub.add_parser(
        "models",
        help="list, download, remove and choose translation models",
        description="Models from the catalog are downloaded from the HuggingFace Hub or a mirror "
        "(HF_ENDPOINT, --endpoint, or `models mirror URL`) into your models folder.",
    )
    msub = mp.add_subparsers(dest="models_command", metavar="{list,download,remove,use,mirror}")
    msub.add_parser("list", help="the catalog and the installed models (* = active)").set_defaults(func=cmd_list)
    dl = msub.add_parser("download", help="download and install a catalog model (resumes an interrupted one)")
    dl.add_argument("name", metavar="NAME")
    dl.add_argument("--variant", choices=("int8", "fp32"), default="int8", help="which files (default int8)")
    dl.add_argument(
        "--endpoint",
        metavar="URL",
        help="Hub or mirror, e.g. https://hf-mirror.com (default: the mirror setting, $HF_ENDPOINT, "
        "https://huggingface.co)",
    )
    dl.set_defaults(func=cmd_download)
    rm = msub.add_parser("remove", help="delete an installed model")
    rm.add_argument("name", metavar="NAME")
    rm.set_defaults(func=cmd_remove)
    use = msub.add_parser("use", help="make a model the default of the app and the CLI ('bundled': the demo)")
    use.add_argument("name", metavar="NAME|DIR|bundled")
    use.set_defaults(func=cmd_use)
    mirror = msub.add_parser("mirror", help="show or set the download mirror ('none' to clear)")
    mirror.add_argument("url", nargs="?", metavar="URL|none")
    mirror.set_defaults(func=cmd_mirror)
    mp.set_defaults(func=cmd_list)


def _reports_errors(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A ``models`` command whose DesktopMTError (its message names the fix) prints and exits 1."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        from .errors import DesktopMTError

        try:
            return command(args)
        except DesktopMTError as exc:
            print(f"desktop-mt: {exc}", file=sys.stderr)
            return EXIT_FAILED

    return run


def _mb(n: int) -> str:
    return f"{n / 1e6:,.1f} MB"


@_reports_errors
def cmd_list(args: argparse.Namespace) -> int:
    """``models list``: catalog entries, installed models with sizes and target tokens, the active one."""
    from .models import get_active, list_installed, load_catalog, models_dir

    catalog, found = load_catalog(), list_installed()
    active = get_active()
    by_name = {m.name: m for m in found}
    print("Catalog (desktop-mt models download NAME [--variant int8|fp32]):")
    for e in catalog:
        sizes = ", ".join(f"{v} ~{e.approx_bytes(v) / 1e6:,.0f} MB" for v in e.variants)
        have = by_name.get(e.name)
        state = f"installed: {', '.join(have.variants)}" if have else "not installed"
        print(f"  {e.name:<18} {e.source_lang}->{e.target_lang}  {sizes}  licence {e.licence}  [{state}]")
        print(f"  {'':<18} {e.repo}@{e.revision[:12]}  {e.title}")
    print(f"Installed in {models_dir()} (* = active; choose with `desktop-mt models use NAME`):")
    print(f"{'*' if not active else ' '} {'bundled':<18} {_bundled_line()}")
    for m in found:
        mark = "*" if active in (m.name, str(m.path)) else " "
        source = m.source
        origin = f"  {source['repo']}@{str(source.get('revision', ''))[:12]}" if source.get("repo") else ""
        print(f"{mark} {m.name:<18} {', '.join(m.variants)}  {_mb(m.size_bytes)}{origin}")
        print(f"  {'':<18} target tokens: {_tokens_line(m.info, m.target_tokens)}")
    if active and not any(active in (m.name, str(m.path)) for m in found):
        print(f"* {active}  (a folder outside the models folder)")
    return EXIT_OK


def _bundled_line() -> str:
    from .engine.model_format import bundled_model_dir, inspect_model_dir
    from .errors import DesktopMTError

    try:
        info = inspect_model_dir(bundled_model_dir())
    except DesktopMTError as exc:
        return f"unavailable ({exc})"
    return f"{info.name} ({', '.join(info.variants)}): the small demo model shipped with the app"


def _tokens_line(info, tokens: tuple[str, ...]) -> str:
    from .engine.tokenizer import default_target_token

    if not tokens:
        return "none (single target language)"
    default = default_target_token(info, tokens)
    shown = [f"{t} (default)" if t == default else t for t in tokens[:8]]
    more = f" ... ({len(tokens)} in all)" if len(tokens) > 8 else ""
    return ", ".join(shown) + more


class _Progress:
    """Download progress on stderr: one rewritten line on a terminal, a line per file otherwise."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.file = ""

    def __call__(self, p) -> None:
        if p.phase == "downloading" and p.file != self.file and p.file:
            self.file = p.file
            if not self.tty:
                print(f"downloading {p.file} ({_mb(p.done)} of {_mb(p.total)} done)", file=sys.stderr)
        if self.tty and p.total:
            speed = f", {p.speed / 1e6:.1f} MB/s" if p.speed else ""
            print(
                f"\r{p.phase} {p.file}: {_mb(p.done)} of {_mb(p.total)} ({100 * p.done / p.total:.0f}%{speed})\033[K",
                end="",
                file=sys.stderr,
                flush=True,
            )
        elif p.phase in ("installing", "done") and not self.tty:
            print(f"{p.phase}: {_mb(p.done)} of {_mb(p.total)}", file=sys.stderr)

    def close(self) -> None:
        if self.tty:
            print(file=sys.stderr)


def cmd_download(args: argparse.Namespace) -> int:
    """``models download NAME``: fetch, verify and install; exit 130 on Ctrl-C (rerun resumes)."""
    from .errors import DesktopMTError
    from .models import catalog_entry, download_model, resolve_endpoint

    try:
        entry = catalog_entry(args.name)  # an unknown name is said before any download line
    except DesktopMTError as exc:
        print(f"desktop-mt: {exc}", file=sys.stderr)
        return EXIT_FAILED
    endpoint = resolve_endpoint(args.endpoint)
    print(f"downloading {args.name} ({args.variant}) from {endpoint}", file=sys.stderr)
    progress = _Progress()
    try:
        path = download_model(entry, args.variant, endpoint=endpoint, progress=progress, cancel=threading.Event())
    except KeyboardInterrupt:
        progress.close()
        print("desktop-mt: interrupted; nothing was installed. Run the same command again to resume.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except DesktopMTError as exc:
        progress.close()
        print(f"desktop-mt: {exc}", file=sys.stderr)
        return EXIT_FAILED
    progress.close()
    print(f"installed {args.name} ({args.variant}) in {path}")
    print(f"use it: desktop-mt translate --model {args.name}   make it the default: desktop-mt models use {args.name}")
    return EXIT_OK


@_reports_errors
def cmd_remove(args: argparse.Namespace) -> int:
    from .models import remove_model

    print(f"removed {args.name} ({remove_model(args.name)})")
    return EXIT_OK


@_reports_errors
def cmd_use(args: argparse.Namespace) -> int:
    from .models import set_active

    set_active("" if args.name == "bundled" else args.name)
    print(f"active model: {args.name}")
    return EXIT_OK


@_reports_errors
def cmd_mirror(args: argparse.Namespace) -> int:
    from .models import get_endpoint_setting, resolve_endpoint, set_endpoint_setting

    if args.url is not None:
        set_endpoint_setting("" if args.url == "none" else args.url)
    print(f"mirror setting: {get_endpoint_setting() or 'none'}; downloads use {resolve_endpoint()}")
    return EXIT_OK
