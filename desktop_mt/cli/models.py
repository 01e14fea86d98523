"""``desktop-mt models``: list, download, remove and choose models (see :mod:`desktop_mt.models`).

    desktop-mt models list
    desktop-mt models download NAME [--variant int8|fp32] [--endpoint URL]
    desktop-mt models add FOLDER [--name NAME]
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
from pathlib import Path
from typing import Any

from ..app.i18n import N_, _, describe
from ..app.settings import (
    active_models,
    get_endpoint_setting,
    load_settings,
    remove_model,
    resolve_endpoint,
    set_active,
    set_endpoint_setting,
)
from ..base.errors import DesktopMTError, DownloadCancelled
from ..engine.direction import DIRECTION_TITLES, DIRECTIONS, Direction
from ..engine.model_format import VARIANTS, ModelInfo, bundled_model_dir, inspect_model_dir
from ..engine.tokenizer import default_target_token
from ..models import (
    DownloadProgress,
    InstalledModel,
    catalog_entry,
    download_model,
    list_installed,
    load_catalog,
    models_dir,
)
from ..models.install import install_folder
from ..models.installed import decoder_layout

__all__ = [
    "add_models_parser",
]

_EXIT_OK, _EXIT_FAILED, _EXIT_INTERRUPTED = 0, 1, 130
_BUNDLED = "bundled"  # the name `models use` takes for the demo model (a keyword: not translated)


def add_models_parser(sub: Any) -> None:
    """Add the ``models`` subcommand to the ``desktop-mt`` parser."""
    mp = sub.add_parser(
        "models",
        help=_("list, download, remove and choose translation models"),
        description=_(
            "Models from the catalog are downloaded from the HuggingFace Hub or a mirror "
            "(HF_ENDPOINT, --endpoint, or `models mirror URL`) into your models folder."
        ),
    )
    msub = mp.add_subparsers(dest="models_command", metavar="{list,download,remove,use,mirror}")
    msub.add_parser("list", help=_("the catalog and the installed models (* = active)")).set_defaults(func=_cmd_list)
    dl = msub.add_parser("download", help=_("download and install a catalog model (resumes an interrupted one)"))
    dl.add_argument("name", metavar="NAME")
    dl.add_argument("--variant", choices=VARIANTS, default="int8", help=_("which files (default int8)"))
    dl.add_argument(
        "--endpoint",
        metavar="URL",
        help=_(
            "Hub or mirror, e.g. https://hf-mirror.com (default: the mirror setting, $HF_ENDPOINT, "
            "https://huggingface.co)"
        ),
    )
    dl.set_defaults(func=_cmd_download)
    add = msub.add_parser(
        "add",
        help=_(
            "install a Marian folder exported by Optimum or transformers.js (fp32), built into the fast "
            "layout as a download is; the folder itself is left as it is"
        ),
    )
    add.add_argument("folder", metavar="FOLDER")
    add.add_argument("--name", help=_("the installed model's name (default: the folder's name)"))
    add.set_defaults(func=_cmd_add)
    rm = msub.add_parser("remove", help=_("delete an installed model"))
    rm.add_argument("name", metavar="NAME")
    rm.set_defaults(func=_cmd_remove)
    use = msub.add_parser(
        "use", help=_("make a model the default of its direction, in the app and the CLI ('bundled': the demo)")
    )
    use.add_argument("name", metavar="NAME|DIR|bundled")
    use.add_argument(
        "--direction",
        choices=DIRECTIONS,
        help=_("the direction (default: the model's own; en-zh for 'bundled')"),
    )
    use.set_defaults(func=_cmd_use)
    mirror = msub.add_parser("mirror", help=_("show or set the download mirror ('none' to clear)"))
    mirror.add_argument("url", nargs="?", metavar="URL|none")
    mirror.set_defaults(func=_cmd_mirror)
    mp.set_defaults(func=_cmd_list)


def _reports_errors(command: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """A ``models`` command whose DesktopMTError (its message names the fix) prints and exits 1."""

    @functools.wraps(command)
    def run(args: argparse.Namespace) -> int:
        try:
            _settings_warnings()
            return command(args)
        except DesktopMTError as exc:
            print(_("desktop-mt: {message}").format(message=describe(exc)), file=sys.stderr)
            return _EXIT_FAILED

    return run


def _settings_warnings() -> None:
    """Say what reading the settings found (a broken file kept aside, a migration conflict)."""
    for warning in load_settings().warnings:
        print(_("desktop-mt: {message}").format(message=describe(warning)), file=sys.stderr)


def _mb(n: int) -> str:
    return _("{megabytes} MB").format(megabytes=f"{n / 1e6:,.1f}")


@_reports_errors
def _cmd_list(args: argparse.Namespace) -> int:
    """``models list``: catalog entries, then the installed models of each direction (the
    bundled one included) with sizes, decoder layout and target tokens; ``*`` marks the active
    model of each direction."""
    catalog, found = load_catalog(), list_installed()
    active = active_models()
    by_name = {m.name: m for m in found}
    print(_("Catalog (desktop-mt models download NAME [--variant int8|fp32]):"))
    for e in catalog:
        sizes = ", ".join(
            _("{variant} ~{megabytes} MB").format(variant=v, megabytes=f"{e.approx_bytes(v) / 1e6:,.0f}")
            for v in e.variants
        )
        have = by_name.get(e.name)
        state = _("installed: {variants}").format(variants=", ".join(have.variants)) if have else _("not installed")
        licence = _("licence {licence}").format(licence=e.licence)
        print(f"  {e.name:<18} {e.source_lang}->{e.target_lang}  {sizes}  {licence}  [{state}]")
        kind = "  " + _("(checkpoint: built at install, no torch)") if e.is_checkpoint else ""
        print(f"  {'':<18} {e.repo}@{e.revision[:12]}  {e.title}{kind}")
        if e.scores:
            print(f"  {'':<18} {e.scores}")
    print(
        _("Installed in {folder} (* = active for its direction; choose with `desktop-mt models use NAME`):").format(
            folder=models_dir()
        )
    )
    for direction, title in DIRECTION_TITLES.items():
        chosen = active.get(direction, "")
        print(_("{title} ({direction}):").format(title=_(title), direction=direction))
        print(f"{'*' if not chosen else ' '} {_BUNDLED:<18} {_bundled_line(direction)}")
        members = [m for m in found if m.direction == direction]
        for m in members:
            _print_installed(m, chosen in (m.name, str(m.path)))
        if chosen and not any(chosen in (m.name, str(m.path)) for m in members):
            print("* " + _("{folder}  (a folder outside the models folder)").format(folder=chosen))
    others = [m for m in found if m.direction not in DIRECTION_TITLES]
    if others:
        print(_("Other language pairs (not used by desktop-mt's two directions):"))
        for m in others:
            _print_installed(m, False)
    return _EXIT_OK


def _print_installed(m: InstalledModel, active: bool) -> None:
    source = m.source
    origin = f"  {source['repo']}@{str(source.get('revision', ''))[:12]}" if source.get("repo") else ""
    layout = "  " + _("layout {layout}").format(layout=m.layout_text) if m.layout else ""
    print(f"{'*' if active else ' '} {m.name:<18} {', '.join(m.variants)}  {_mb(m.size_bytes)}{layout}{origin}")
    print(f"  {'':<18} " + _("target tokens: {tokens}").format(tokens=_tokens_line(m.info, m.target_tokens)))


def _bundled_line(direction: Direction) -> str:
    try:
        info = inspect_model_dir(bundled_model_dir(direction))
    except DesktopMTError as exc:
        return _("none ({error})").format(error=exc)
    layout = ", " + _("layout {layout}").format(layout=decoder_layout(info)) if decoder_layout(info) else ""
    return _("{name} ({variants}): the small demo model shipped with the app").format(
        name=info.name, variants=", ".join(info.variants) + layout
    )


def _tokens_line(info: ModelInfo, tokens: tuple[str, ...]) -> str:
    if not tokens:
        return _("none (single target language)")
    default = default_target_token(info, tokens)
    shown = [_("{token} (default)").format(token=t) if t == default else t for t in tokens[:8]]
    more = " ... " + _("({count} in all)").format(count=len(tokens)) if len(tokens) > 8 else ""
    return ", ".join(shown) + more


def _time_left(seconds: float) -> str:
    """``15 s left`` / ``4 min left`` (as the Models dialog words it)."""
    if seconds < 120:
        return _("{seconds} s left").format(seconds=f"{seconds:.0f}")
    return _("{minutes} min left").format(minutes=f"{seconds / 60:.0f}")


def _rate_text(p: DownloadProgress) -> str:
    """``4.0 MB/s, 15 s left`` (empty until the speed is measured)."""
    if not p.speed:
        return ""
    eta = p.eta
    speed = _("{megabytes} MB/s").format(megabytes=f"{p.speed / 1e6:.1f}")
    return speed + (f", {_time_left(eta)}" if eta is not None else "")


class _Progress:
    """Download progress on stderr: one rewritten line on a terminal, a line per file otherwise;
    both with the speed and the time left once they are measured."""

    def __init__(self) -> None:
        self.tty = sys.stderr.isatty()
        self.file = ""

    def __call__(self, p: DownloadProgress) -> None:
        rate = _rate_text(p)
        if p.phase == "downloading" and p.file != self.file and p.file:
            self.file = p.file
            if not self.tty:
                more = f", {rate}" if rate else ""
                done = _("{done} of {total} done").format(done=_mb(p.done), total=_mb(p.total))
                print(_("downloading {file} ({progress})").format(file=p.file, progress=done + more), file=sys.stderr)
        if self.tty and p.total:
            more = f", {rate}" if rate else ""
            amount = _("{done} of {total}").format(done=_mb(p.done), total=_mb(p.total))
            percent = f"{100 * p.done / p.total:.0f}%{more}"
            print(f"\r{_phase(p.phase)} {p.file}: {amount} ({percent})\033[K", end="", file=sys.stderr, flush=True)
        elif p.phase in ("installing", "done") and not self.tty:
            amount = _("{done} of {total}").format(done=_mb(p.done), total=_mb(p.total))
            print(f"{_phase(p.phase)}: {amount}", file=sys.stderr)

    def close(self) -> None:
        if self.tty:
            print(file=sys.stderr)


# The downloader's phases (DownloadProgress.phase) as the progress line words them.
_PHASES = {
    "listing": N_("listing"),
    "downloading": N_("downloading"),
    "verifying": N_("verifying"),
    "installing": N_("installing"),
    "done": N_("done"),
}


def _phase(phase: str) -> str:
    return _(_PHASES[phase]) if phase in _PHASES else phase


def _cmd_download(args: argparse.Namespace) -> int:
    """``models download NAME``: fetch, verify and install; exit 130 on Ctrl-C (rerun resumes)."""
    try:
        _settings_warnings()
        entry = catalog_entry(args.name)  # an unknown name is said before any download line
    except DesktopMTError as exc:
        print(_("desktop-mt: {message}").format(message=describe(exc)), file=sys.stderr)
        return _EXIT_FAILED
    endpoint = resolve_endpoint(args.endpoint)
    print(
        _("downloading {name} ({variant}) from {endpoint}").format(
            name=args.name, variant=args.variant, endpoint=endpoint
        ),
        file=sys.stderr,
    )
    progress = _Progress()
    try:
        path = download_model(entry, args.variant, endpoint=endpoint, progress=progress, cancel=threading.Event())
    except (KeyboardInterrupt, DownloadCancelled):  # Ctrl-C; a cancel is not a failure (no DesktopMTError)
        progress.close()
        print(
            _("desktop-mt: interrupted; nothing was installed. Run the same command again to resume."),
            file=sys.stderr,
        )
        return _EXIT_INTERRUPTED
    except DesktopMTError as exc:
        progress.close()
        print(_("desktop-mt: {message}").format(message=describe(exc)), file=sys.stderr)
        return _EXIT_FAILED
    progress.close()
    print(_("installed {name} ({variant}) in {folder}").format(name=args.name, variant=args.variant, folder=path))
    _print_how_to_use(args.name)
    return _EXIT_OK


def _print_how_to_use(name: str) -> None:
    print(
        _("use it: desktop-mt translate --model {name}   make it the default: desktop-mt models use {name}").format(
            name=name
        )
    )


@_reports_errors
def _cmd_add(args: argparse.Namespace) -> int:
    """``models add FOLDER``: install a model folder like a catalog download (hashes, then the
    step layout with per-row int8), or build one from a Marian checkpoint (config.json +
    model.safetensors, no torch needed); a folder the converter does not apply to is used in place."""
    folder = Path(args.folder).expanduser()
    if not folder.is_dir():
        print(
            _(
                "desktop-mt: {folder} is not a folder; give the folder that holds the model's .onnx files "
                "(or its config.json + model.safetensors)"
            ).format(folder=folder),
            file=sys.stderr,
        )
        return _EXIT_FAILED
    name = args.name or folder.resolve().name
    target = models_dir() / name
    if target.exists():
        print(
            _("desktop-mt: a model named {name} is installed already; choose another with --name").format(name=name),
            file=sys.stderr,
        )
        return _EXIT_FAILED
    print(
        _("adding {folder} as {name} (building the int8 step layout; this takes a minute)").format(
            folder=folder, name=name
        ),
        file=sys.stderr,
    )
    path = install_folder(folder, target)
    if path == folder:
        print(
            _("{folder} is used as it is (already in desktop-mt's layout, or not one the converter builds)").format(
                folder=folder
            )
        )
        print(_("make it the default: desktop-mt models use {folder}").format(folder=folder))
        return _EXIT_OK
    print(_("installed {name} in {folder}").format(name=name, folder=path))
    _print_how_to_use(name)
    return _EXIT_OK


@_reports_errors
def _cmd_remove(args: argparse.Namespace) -> int:
    print(_("removed {name} ({folder})").format(name=args.name, folder=remove_model(args.name)))
    return _EXIT_OK


@_reports_errors
def _cmd_use(args: argparse.Namespace) -> int:
    """``models use NAME|DIR``: the active model of the model's own direction; ``bundled``
    (with ``--direction``, default en-zh) goes back to the bundled model of that direction."""
    if args.name == "bundled":
        direction = set_active("", args.direction or "en-zh")
    else:
        direction = set_active(args.name, args.direction)
    print(_("active {direction} model: {name}").format(direction=direction, name=args.name))
    return _EXIT_OK


@_reports_errors
def _cmd_mirror(args: argparse.Namespace) -> int:
    if args.url is not None:
        set_endpoint_setting("" if args.url == "none" else args.url)
    print(
        _("mirror setting: {mirror}; downloads use {endpoint}").format(
            mirror=get_endpoint_setting() or _("none"), endpoint=resolve_endpoint()
        )
    )
    return _EXIT_OK
