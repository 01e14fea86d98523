"""Can the GUI open a window here? Asked before Qt is loaded.

Without a display, or with a library of Qt's platform plugin missing, Qt prints "Could not
load the Qt platform plugin "xcb"" (blaming libxcb-cursor0 whatever is missing) and aborts
with a core dump. :func:`display_problem` finds the same causes first, from the environment
and from ``ldd`` on the platform plugin itself, and says which package to install, so
``desktop-mt`` can exit with that message instead. Standard library only (no PySide6
import): the CLI asks before it imports the GUI, whose import alone needs libEGL and friends.

Only Linux is checked (Windows and macOS have no such libraries to miss), and only the
platforms that need a display server: a user's ``QT_QPA_PLATFORM=offscreen`` is left alone.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "DEBIAN_PACKAGES",
    "display_problem",
    "platform_plugin",
    "x11_display_problem",
]


# The libraries Qt's xcb and wayland plugins link to (directly or through Qt's own
# libraries), as Debian/Ubuntu packages: what to tell the user to install.
DEBIAN_PACKAGES = {
    "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1",
    "libGLX.so.0": "libglx0",
    "libGLdispatch.so.0": "libglvnd0",
    "libOpenGL.so.0": "libopengl0",
    "libfontconfig.so.1": "libfontconfig1",
    "libfreetype.so.6": "libfreetype6",
    "libdbus-1.so.3": "libdbus-1-3",
    "libglib-2.0.so.0": "libglib2.0-0",
    "libgthread-2.0.so.0": "libglib2.0-0",
    "libz.so.1": "zlib1g",
    "libzstd.so.1": "libzstd1",
    "libpng16.so.16": "libpng16-16",
    "libexpat.so.1": "libexpat1",
    "libX11.so.6": "libx11-6",
    "libX11-xcb.so.1": "libx11-xcb1",
    "libXau.so.6": "libxau6",
    "libXdmcp.so.6": "libxdmcp6",
    "libxkbcommon.so.0": "libxkbcommon0",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0",
    "libxcb.so.1": "libxcb1",
    "libxcb-cursor.so.0": "libxcb-cursor0",
    "libxcb-glx.so.0": "libxcb-glx0",
    "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0",
    "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0",
    "libxcb-render.so.0": "libxcb-render0",
    "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0",
    "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1",
    "libxcb-util.so.1": "libxcb-util1",
    "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-xkb.so.1": "libxcb-xkb1",
    "libwayland-client.so.0": "libwayland-client0",
    "libwayland-cursor.so.0": "libwayland-cursor0",
    "libwayland-egl.so.1": "libwayland-egl1",
}
_PLUGINS = {"xcb": ("X11", "libqxcb.so"), "wayland": ("Wayland", "libqwayland*.so")}
_HEADLESS_HINT = (
    "Without a window, translate on the command line:\n"
    '  echo "Good morning." | desktop-mt translate\n'
    "  desktop-mt translate notes.txt        (more: desktop-mt translate --help)"
)


def display_problem(env: Mapping[str, str] | None = None) -> str | None:
    """Why the GUI cannot open a window here, as a message for the user; None when it can, or
    when this cannot tell (not Linux; a platform such as offscreen; no ``ldd``)."""
    env = os.environ if env is None else env
    if not sys.platform.startswith("linux"):
        return None
    problems: list[str] = []
    for platform in _candidate_platforms(env):
        found = _platform_problems(platform, env)
        if not found:
            return None  # Qt falls back through the candidates: one that works is enough
        problems += [p for p in found if p not in problems]
    if not problems:
        return None
    listed = "".join(f"\n  - {p}" for p in problems)
    return f"desktop-mt: cannot open the window:{listed}\n{_HEADLESS_HINT}"


def _candidate_platforms(env: Mapping[str, str]) -> list[str]:
    """The Qt platform plugins Qt will try: those of QT_QPA_PLATFORM ("wayland;xcb", options
    after ":" dropped), else Wayland in a Wayland session, then X11."""
    chosen = env.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return [name.split(":")[0].strip() for name in chosen.split(";") if name.strip()]
    wayland = env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE") == "wayland"
    return ["wayland", "xcb"] if wayland else ["xcb"]


def _platform_problems(platform: str, env: Mapping[str, str]) -> list[str]:
    """What stops this Qt platform plugin here: no display server, missing libraries."""
    kind = "wayland" if platform.startswith("wayland") else platform
    if kind not in _PLUGINS:
        return []  # offscreen, minimal, vnc, eglfs...: nothing of ours to check
    system, pattern = _PLUGINS[kind]
    problems = [p for p in [x11_display_problem(env) if kind == "xcb" else _wayland_display_problem(env)] if p]
    plugin = platform_plugin(pattern, env)
    missing = _missing_libraries(plugin, env) if plugin else []
    if missing and plugin is not None:
        problems.append(_missing_libraries_message(system, plugin.name, missing, env))
    return problems


def x11_display_problem(env: Mapping[str, str]) -> str | None:
    """None when DISPLAY names a local X server that accepts a connection (or a remote one,
    e.g. ssh -X's localhost:10, which only Qt can try)."""
    display = env.get("DISPLAY", "")
    if not display:
        if env.get("WAYLAND_DISPLAY"):
            return "no X11 display: DISPLAY is not set"
        return "there is no display: neither DISPLAY nor WAYLAND_DISPLAY is set (start it from a desktop session)"
    local = re.fullmatch(r"(?:unix)?:(\d+)(?:\.\d+)?", display)
    if not local:
        return None
    socket_path = f"/tmp/.X11-unix/X{local.group(1)}"
    for address in ("\0" + socket_path, socket_path):  # Linux X servers listen on both
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(5)
            try:
                sock.connect(address)
                return None
            except OSError:
                continue
    return f"no X server answers on DISPLAY={display} (nothing listens on {socket_path})"


def _wayland_display_problem(env: Mapping[str, str]) -> str | None:
    """None when the Wayland socket (WAYLAND_DISPLAY, default wayland-0) exists."""
    name = env.get("WAYLAND_DISPLAY") or "wayland-0"
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if not name.startswith("/") and not runtime:
        return "no Wayland display: XDG_RUNTIME_DIR is not set"
    path = Path(name) if name.startswith("/") else Path(runtime) / name
    return None if path.exists() else f"no Wayland display: {path} does not exist"


def platform_plugin(pattern: str, env: Mapping[str, str]) -> Path | None:
    """The platform plugin file Qt would load (QT_QPA_PLATFORM_PLUGIN_PATH, QT_PLUGIN_PATH as
    the app bundle sets it, else PySide6's own plugins), found without importing PySide6."""
    folders = [Path(env["QT_QPA_PLATFORM_PLUGIN_PATH"])] if env.get("QT_QPA_PLATFORM_PLUGIN_PATH") else []
    folders += [Path(p) / "platforms" for p in env.get("QT_PLUGIN_PATH", "").split(os.pathsep) if p]
    spec = importlib.util.find_spec("PySide6")  # finds the package, does not run it
    if spec is not None and spec.submodule_search_locations:
        folders += [Path(p) / "Qt" / "plugins" / "platforms" for p in spec.submodule_search_locations]
    for folder in folders:
        found = sorted(folder.glob(pattern)) if folder.is_dir() else []
        if found:
            return found[0]
    return None


def _missing_libraries(plugin: Path, env: Mapping[str, str]) -> list[str]:
    """The libraries ``ldd`` reports "not found" for the plugin (and all it loads in turn)."""
    ldd = shutil.which("ldd", path=env.get("PATH", os.defpath))
    if ldd is None:
        return []
    ldd_env = dict(env)
    if getattr(sys, "frozen", False):  # the app bundle: its own libraries come first, as at run time
        bundle = Path(getattr(sys, "_MEIPASS", ""))
        ldd_env["LD_LIBRARY_PATH"] = os.pathsep.join(
            p for p in (str(bundle), str(bundle / "PySide6" / "Qt" / "lib"), env.get("LD_LIBRARY_PATH")) if p
        )
    try:
        proc = subprocess.run([ldd, str(plugin)], capture_output=True, text=True, env=ldd_env, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return []
    return sorted(
        {line.split("=>")[0].strip() for line in proc.stdout.splitlines() if re.search(r"=>\s*not found", line)}
    )


def _missing_libraries_message(system: str, plugin: str, missing: list[str], env: Mapping[str, str]) -> str:
    """Names the missing libraries and the Debian/Ubuntu packages that hold them."""
    packages = list(dict.fromkeys(DEBIAN_PACKAGES[m] for m in missing if m in DEBIAN_PACKAGES))
    unknown = [m for m in missing if m not in DEBIAN_PACKAGES]
    text = f"Qt's {system} plugin ({plugin}) needs libraries that are not installed: {', '.join(missing)}"
    if packages:
        install = f"sudo apt-get install {' '.join(packages)}"
        text += (
            f"\n    install them: {install}"
            if shutil.which("apt-get", path=env.get("PATH", os.defpath))
            else f"\n    install the packages that hold them (Debian/Ubuntu names: {' '.join(packages)})"
        )
    if any(m.startswith(("libQt6", "libicu")) for m in unknown):
        text += "\n    Qt's own libraries are missing: reinstall desktop-mt (or PySide6)"
    return text
