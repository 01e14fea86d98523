"""``desktop-mt show [--clipboard | --selection] [FILE...]``: trigger the running window.

For desktop shortcuts where an app cannot grab a global hotkey (Wayland: GNOME, KDE; also any
launcher or script): the command hands the request to the running window over the
single-instance channel (:mod:`desktop_mt.app.instance_client`, no Qt import, a few milliseconds)
and exits. When no window runs it starts one with the same request (that launch loads Qt and
the model), unless ``--no-start``.
"""

from __future__ import annotations

import argparse
import sys

from ..app import i18n, instance_client
from ..app.i18n import N_, _
from .gui_launch import run_gui  # loads Qt when it starts the window: only when none runs

__all__ = [
    "add_show_parser",
]

_SHOW_EPILOG = N_("""\
desktop shortcuts (Wayland has no global hotkeys for apps):
  GNOME: Settings > Keyboard > View and Customise Shortcuts > Custom Shortcuts > +,
         command: desktop-mt show --selection
  KDE:   System Settings > Shortcuts > Add New > Command or Script,
         command: desktop-mt show --clipboard

exit codes:
  0 handed over (or the app was started), 1 the running app refused or did not answer,
  or (--no-start) no app runs
""")


def add_show_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``show`` on the ``desktop-mt`` subparsers."""
    parser = sub.add_parser(
        "show",
        help=_(
            "bring the running app forward; --clipboard / --selection: translate "
            "that text there (bind it to a desktop shortcut)"
        ),
        description=_(
            "Bring the running desktop-mt window forward and, with --clipboard or "
            "--selection, translate that text in it. Starts the app when none runs."
        ),
        epilog=_(_SHOW_EPILOG),
        formatter_class=i18n.RawDescriptionHelpFormatter,
    )
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--clipboard", action="store_true", help=_("translate the clipboard"))
    what.add_argument(
        "--selection",
        action="store_true",
        help=_(
            "translate the primary selection (the text selected last; X11 and "
            "most Wayland desktops), or the clipboard where there is none"
        ),
    )
    parser.add_argument(
        "files", nargs="*", metavar="FILE", help=_("files to translate there (.txt, .srt, .docx; one after another)")
    )
    parser.add_argument(
        "--no-start", action="store_true", help=_("do not start the app when none runs (exit 1 instead)")
    )
    parser.set_defaults(func=_cmd_show)


def _gui_argv(args: argparse.Namespace) -> list[str]:
    """The window's own command line for this request."""
    flag = ["--clipboard"] if args.clipboard else ["--selection"] if args.selection else []
    return flag + ["--", *args.files] if args.files else flag


def _cmd_show(args: argparse.Namespace) -> int:
    """Send the request to the running window; start one when none runs."""
    argv = _gui_argv(args)
    try:
        reply = instance_client.send(argv)
    except instance_client.NotRunning:
        if args.no_start:
            print(
                _("desktop-mt show: no desktop-mt window is running (start it with `desktop-mt`, or drop --no-start)"),
                file=sys.stderr,
            )
            return 1
        return run_gui(argv, getattr(args, "share_threads", False))
    except (OSError, ValueError) as exc:
        print(
            _("desktop-mt show: the running desktop-mt did not answer ({error}); quit it and start it again").format(
                error=exc
            ),
            file=sys.stderr,
        )
        return 1
    if not reply.get("ok"):
        print(
            _("desktop-mt show: the running desktop-mt refused: {error}").format(error=reply.get("error")),
            file=sys.stderr,
        )
        return 1
    return 0
