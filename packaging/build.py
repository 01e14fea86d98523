"""Build the desktop-mt one-folder bundle with PyInstaller, check it, and report on it.

    python packaging/build.py                      # bundled models -> dist/desktop-mt/
    python packaging/build.py --model-dir DIR      # bundle another exported model (repeatable)
    python packaging/build.py --variants all       # ship fp32 too (default: int8 only)
    python packaging/build.py --self-test          # also run `desktop-mt self-test` in it
    python packaging/build.py --measure 5          # also time cold starts (median of 5)
    python packaging/build.py --report-only        # report on an existing dist/ folder

Needs the ``package`` extra (``pip install -e '.[package]'``: PySide6, pynput, PyInstaller)
on the platform you build for: PyInstaller does not cross-compile. The result:

- Linux: ``dist/desktop-mt/desktop-mt`` (+ ``desktop-mt.desktop``, ``desktop-mt.png``,
  ``install.sh`` next to it);
- Windows: ``dist\\desktop-mt\\desktop-mt.exe`` (GUI) and ``desktop-mt-cli.exe`` (console);
- macOS: ``dist/desktop-mt.app`` (and the plain folder ``dist/desktop-mt/``).

After the build it checks that the bundle holds the model and no torch / transformers /
onnx / export_tools / tests, prints the size and the largest ten files, and with
``--self-test`` / ``--measure`` runs the bundle. Exit code 0 only if every check passed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HERE = ROOT / "packaging"
SPEC = HERE / "desktop-mt.spec"
MANIFEST = "desktop_mt.json"
# Top-level modules that must never be inside the bundle (the export / test stack).
FORBIDDEN_MODULES = (
    "torch",
    "transformers",
    "onnx",
    "export_tools",
    "tests",
    "tokenizers",
    "sympy",
    "matplotlib",
    "pytest",
    "hypothesis",
    "cv2",
)  # OpenCV would bring a second Qt; OCR runs on numpy and Pillow
SIZE_BUDGET_MB = 275
# What the bundle must have for every command the README advertises (`serve` included): a
# build environment without them would build a bundle that cannot do what it says.
SERVER_MODULES = ("fastapi", "uvicorn", "starlette", "pydantic", "python_multipart", "prometheus_client")


def default_model_dirs() -> list[Path]:
    """Every ``desktop_mt/resources/models/<name>/`` with a manifest: the bundled models (one
    per direction, English->Chinese and Chinese->English; ``bundled_model_dir(direction)`` finds
    each in the bundle)."""
    models = ROOT / "desktop_mt" / "resources" / "models"
    found = sorted(p for p in models.glob("*") if (p / MANIFEST).is_file()) if models.is_dir() else []
    if not found:
        raise SystemExit(f"build.py: no bundled model in {models} (a folder with {MANIFEST}); pass --model-dir DIR")
    return found


def default_model_dir() -> Path:
    """The first bundled model (what ``bundled_model_dir()`` picks with no direction)."""
    return default_model_dirs()[0]


def _manifest_variants(model_dir: Path) -> list[str]:
    try:
        return list(json.loads((model_dir / MANIFEST).read_text(encoding="utf-8")).get("variants", {}))
    except (OSError, ValueError):
        return []


def stage_models(model_dirs: list[Path], stage: Path, variants: str) -> list[Path]:
    """Stage every model (``stage/resources/models/`` is emptied first). ``variants``: "all",
    "auto" (int8 where a model has it, else all) or a comma-separated list."""
    models = stage / "resources" / "models"
    if models.exists():
        shutil.rmtree(models)
    names = [d.name for d in model_dirs]
    if len(set(names)) != len(names):
        raise SystemExit(f"build.py: two models with one folder name in {', '.join(map(str, model_dirs))}")
    out = []
    for model_dir in model_dirs:
        keep: list[str] | None = None
        if variants.strip() == "auto" and "int8" in _manifest_variants(model_dir):
            keep = ["int8"]
        elif variants.strip() not in ("all", "auto"):
            keep = [v.strip() for v in variants.split(",") if v.strip()]
        out.append(stage_model(model_dir, stage, keep, clear=False))
    return out


def stage_model(model_dir: Path, stage: Path, variants: list[str] | None, clear: bool = True) -> Path:
    """Copy the model into ``stage/resources/models/<name>/``; optionally keep only some variants
    (their files go, and the copied manifest lists only the kept ones). ``clear``: empty
    ``stage/resources/models/`` first (the model is then the only one)."""
    manifest_path = model_dir / MANIFEST
    if not manifest_path.is_file():
        raise SystemExit(
            f"build.py: {model_dir} has no {MANIFEST}; the bundle finds its model by "
            f"the manifest (export it with `python -m export_tools export`)"
        )
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    all_variants = manifest.get("variants", {})
    keep = variants if variants else list(all_variants)
    unknown = [v for v in keep if v not in all_variants]
    if unknown:
        raise SystemExit(
            f"build.py: {model_dir} has no variant {', '.join(unknown)} (it has {', '.join(all_variants)})"
        )
    drop = {spec["file"] for v, entry in all_variants.items() if v not in keep for spec in entry["files"].values()}
    drop -= {spec["file"] for v in keep for spec in all_variants[v]["files"].values()}
    models = stage / "resources" / "models"
    if clear and models.exists():
        shutil.rmtree(models)
    dest = models / model_dir.name
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    for src in sorted(model_dir.rglob("*")):
        rel = src.relative_to(model_dir).as_posix()
        if src.is_dir() or rel in drop or src.name.startswith(".") or src.suffix in (".tmp", ".lock"):
            continue
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / rel)
    manifest["variants"] = {v: all_variants[v] for v in keep}
    (dest / MANIFEST).write_text(json.dumps(manifest, indent=2, ensure_ascii=False), encoding="utf-8")
    return dest


def compile_translations() -> None:
    """The interface's .qm from its .ts (desktop_mt.gui.i18n), so the bundle ships the .ts's
    words even where the .ts was edited after the last ``compile`` (the frozen app has no
    lrelease to compile it at start). The committed .qm names the digest of the .ts it was made
    from (``.qm.source``): when that is this .ts, it is used as it is (no lrelease run)."""
    folder = ROOT / "desktop_mt" / "resources" / "i18n"
    stale = [
        ts.name
        for ts in sorted(folder.glob("*.ts"))
        if not (source := ts.with_suffix(".qm.source")).is_file()
        or source.read_text(encoding="utf-8").strip() != hashlib.sha256(ts.read_bytes()).hexdigest()[:16]
    ]
    if stale:
        print(f"compiling the interface translations ({', '.join(stale)})", flush=True)
        subprocess.run([sys.executable, "-m", "desktop_mt.gui.i18n", "compile"], check=True, cwd=ROOT)


def run_pyinstaller(dist: Path, work: Path, stage: Path, strip: bool) -> None:
    cmd = [
        sys.executable,
        "-m",
        "PyInstaller",
        str(SPEC),
        "--noconfirm",
        "--log-level",
        "WARN",
        "--distpath",
        str(dist),
        "--workpath",
        str(work),
        "--",
        "--stage",
        str(stage),
    ]
    if strip:
        cmd.append("--strip")
    print("+", " ".join(cmd), flush=True)
    started = time.monotonic()
    subprocess.run(cmd, check=True, cwd=ROOT)
    print(f"PyInstaller finished in {time.monotonic() - started:.0f} s", flush=True)


def bundle_paths(dist: Path) -> tuple[Path, Path]:
    """(bundle folder, the executable that runs the CLI) for this platform."""
    folder = dist / "desktop-mt"
    if sys.platform == "win32":
        return folder, folder / "desktop-mt-cli.exe"
    if sys.platform == "darwin" and (dist / "desktop-mt.app").is_dir():
        app = dist / "desktop-mt.app"
        return app, app / "Contents" / "MacOS" / "desktop-mt"
    return folder, folder / "desktop-mt"


def add_linux_files(folder: Path) -> None:
    """The menu entry, its icon and install.sh next to the executable (Linux only)."""
    shutil.copy2(HERE / "linux" / "desktop-mt.desktop", folder / "desktop-mt.desktop")
    shutil.copy2(HERE / "icons" / "desktop-mt.png", folder / "desktop-mt.png")
    shutil.copy2(HERE / "linux" / "install.sh", folder / "install.sh")
    os.chmod(folder / "install.sh", 0o755)


# --- checks and report ---------------------------------------------------------------------


def files_by_size(folder: Path) -> list[tuple[int, Path]]:
    out = []
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            out.append((path.stat().st_size, path))
    return sorted(out, key=lambda t: -t[0])


def mb(n: int) -> str:
    return f"{n / 1e6:.1f} MB"


def pyz_modules(folder: Path) -> list[str]:
    """Module names inside the bundle's PYZ archive (pure-Python code)."""
    from PyInstaller.archive.readers import CArchiveReader, ZlibArchiveReader

    pyz = next(folder.rglob("*.pyz"), None)
    if pyz is not None:
        return list(ZlibArchiveReader(str(pyz)).toc)
    # PyInstaller >= 6 embeds the PYZ in the executable's CArchive
    exe = bundle_paths(folder.parent)[1]
    archive = CArchiveReader(str(exe))
    names = [n for n in archive.toc if n.endswith(".pyz") or archive.toc[n][-1] == "z"]
    if not names:
        return []
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        data = archive.extract(names[0])
        tmp_pyz = Path(tmp) / "x.pyz"
        tmp_pyz.write_bytes(data)
        return list(ZlibArchiveReader(str(tmp_pyz)).toc)


def missing_build_modules() -> None:
    """Stop before building when this environment lacks what the bundle must carry."""
    import importlib.util

    missing = [name for name in ("PyInstaller", "PySide6") + SERVER_MODULES if importlib.util.find_spec(name) is None]
    if missing:
        raise SystemExit(
            f"build.py: this environment lacks {', '.join(missing)}: the bundle would miss the "
            f"commands that need them. Install the build's extra: pip install -e '.[package]'"
        )


def check_bundle(folder: Path) -> list[str]:
    """Problems with the bundle's contents (empty list = fine)."""
    problems = []
    modules = set(pyz_modules(folder))
    tops = {m.split(".")[0] for m in modules}
    for name in FORBIDDEN_MODULES:
        if name in tops:
            problems.append(f"the bundle contains the module {name!r}")
    for name in (
        "desktop_mt.cli.main",
        "desktop_mt.gui.app",
        "desktop_mt.engine.translator",
        "onnxruntime",
        "PySide6",
        "pynput.keyboard",
        "docx",
        "platformdirs",
        "desktop_mt.server.run",
        "uvicorn.loops.auto",
        "uvicorn.protocols.http.auto",
        "desktop_mt.ocr",
        "desktop_mt.cli.ocr",
        "desktop_mt.gui.features.ocr",
        "desktop_mt.gui.platform.portal",
        "PIL.Image",
        "PIL.PngImagePlugin",
        "PIL.JpegImagePlugin",
        "PIL.WebPImagePlugin",
    ) + SERVER_MODULES:
        if name not in modules:
            problems.append(f"the bundle lacks the module {name!r}")
    backend = {"win32": ["pynput.keyboard._win32"], "darwin": ["pynput.keyboard._darwin"]}.get(
        sys.platform, ["pynput.keyboard._xorg", "pynput._util.xorg", "Xlib.display"]
    )
    for name in backend:  # imported by name at run time: the analysis cannot see it
        if name not in modules:
            problems.append(f"the bundle lacks the global-hotkey backend module {name!r}")
    files = [p.relative_to(folder).as_posix() for _, p in files_by_size(folder)]
    for ext in ("QtCore", "QtGui", "QtWidgets", "QtNetwork", "QtSvg"):  # extension modules: files, not PYZ
        if ext != "QtSvg" and not any(re.search(rf"PySide6/{ext}\.(abi3\.so|pyd|.*\.so)$", f) for f in files):
            problems.append(f"the bundle lacks PySide6.{ext}")
    for name in FORBIDDEN_MODULES:
        hits = [
            f
            for f in files
            if f.startswith((f"_internal/{name}/", f"Contents/Frameworks/{name}/", f"Contents/Resources/{name}/"))
        ]
        if hits:
            problems.append(f"the bundle contains {hits[0]}")
    if not any(re.search(r"desktop_mt/resources/models/[^/]+/" + MANIFEST + "$", f) for f in files):
        problems.append("the bundle has no desktop_mt/resources/models/<name>/desktop_mt.json")
    from desktop_mt.ocr import MODEL_FILES  # no onnxruntime import: the model list only

    for name, _size, _sha in MODEL_FILES.values():
        if not any(f.endswith("desktop_mt/resources/ocr/" + name) for f in files):
            problems.append(f"the bundle lacks the OCR model {name}")
    if sys.platform.startswith("linux"):
        for plugin in ("libqxcb.so", "libqoffscreen.so", "libqsvg.so", "libqsvgicon.so"):
            if not any(f.endswith("/" + plugin) for f in files):
                problems.append(f"the bundle lacks the Qt plugin {plugin}")
        problems += unresolved_libraries(folder)
    return problems


def unresolved_libraries(folder: Path) -> list[str]:
    """Linux: shared libraries in the bundle that link to something neither the bundle nor
    this system has (``ldd`` with the bundle's library folders, as the bootloader sets them)."""
    if not shutil.which("ldd"):
        return []
    internal = folder / "_internal"
    env = dict(os.environ, LD_LIBRARY_PATH=os.pathsep.join([str(internal), str(internal / "PySide6" / "Qt" / "lib")]))
    problems: list[str] = []
    from_system: dict[str, list[str]] = {}
    for path in sorted(folder.rglob("*.so*")):
        if path.is_symlink() or not path.is_file():
            continue
        proc = subprocess.run(["ldd", str(path)], capture_output=True, text=True, env=env)
        missing = sorted({line.split("=>")[0].strip() for line in proc.stdout.splitlines() if "not found" in line})
        # The desktop's own libraries (see SYSTEM_LIBRARY) are not the bundle's to carry.
        system = [m for m in missing if SYSTEM_LIBRARY.fullmatch(m)]
        for name in system:
            from_system.setdefault(name, []).append(path.name)
        missing = [m for m in missing if m not in system]
        if missing:
            problems.append(f"{path.relative_to(folder)} links to missing {', '.join(missing)}")
    from desktop_mt.gui.platform.display_check import DEBIAN_PACKAGES  # the names the app's message uses

    for name, users in sorted(from_system.items()):
        package = f" (Debian/Ubuntu: {DEBIAN_PACKAGES[name]})" if name in DEBIAN_PACKAGES else ""
        print(
            f"note: {name} (not on this build machine) comes from the user's system{package}; "
            f"{len(users)} bundled files use it, e.g. {users[0]}",
            file=sys.stderr,
        )
    return problems


# Libraries that every Linux desktop has and that Qt documents as its X11 / Wayland
# requirements ("Qt for X11 Requirements": the xcb libraries, xkbcommon, fontconfig,
# freetype, X11, OpenGL/EGL, D-Bus), plus the compositor's own (Wayland, GTK, DRM, Vulkan).
# Missing on the build machine they are not a failure: the user's system provides them, and
# they belong to its X server / compositor version (docs/PACKAGING.md lists the packages).
SYSTEM_LIBRARY = re.compile(
    r"lib(xcb(-[a-z0-9-]+)?|X11(-xcb)?|Xext|Xrender|Xi|Xau|Xdmcp|xkbcommon(-x11)?|fontconfig|"
    r"freetype|dbus-1|EGL|GL|GLX|GLdispatch|OpenGL|vulkan|wayland-[a-z]+|gtk-3|gdk-3|drm|gbm)"
    r"\.so(\.\d+)*"
)


def report(folder: Path) -> int:
    """Print size, the largest ten files and a per-component summary; return total bytes."""
    sizes = files_by_size(folder)
    total = sum(s for s, _ in sizes)
    print(f"\nbundle: {folder}\nsize: {mb(total)} unpacked, {len(sizes)} files (budget {SIZE_BUDGET_MB} MB)")
    print("largest ten files:")
    for size, path in sizes[:10]:
        print(f"  {mb(size):>9}  {path.relative_to(folder).as_posix()}")
    groups: dict[str, int] = {}
    for size, path in sizes:
        rel = path.relative_to(folder).parts
        inner = rel[1:] if rel[0] in ("_internal", "Contents") else rel
        if rel[0] == "Contents" and inner and inner[0] in ("Frameworks", "Resources", "MacOS"):
            inner = inner[1:]
        if rel[0] not in ("_internal", "Contents") and len(rel) == 1:
            key = "(executables, launcher files)"
        elif len(inner) == 1:
            key = "(shared libraries next to Python)"
        elif inner[:2] == ("PySide6", "Qt"):
            key = "/".join(inner[:3])
        elif inner[:2] == ("desktop_mt", "resources"):  # package data: the model, icons, styles
            key = "/".join(inner[:4])
        else:
            key = inner[0]
        groups[key] = groups.get(key, 0) + size
    print("by component:")
    for key, size in sorted(groups.items(), key=lambda kv: -kv[1])[:15]:
        print(f"  {mb(size):>9}  {key}")
    return total


def evict_from_page_cache(folder: Path) -> None:
    """Ask the kernel to drop the bundle's files from the page cache (a 'cold' start)."""
    if not hasattr(os, "posix_fadvise"):
        return
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            try:
                fd = os.open(path, os.O_RDONLY)
                try:
                    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
                finally:
                    os.close(fd)
            except OSError:
                pass


def timed_self_test(exe: Path, env: dict[str, str], variant: str = "int8") -> dict:
    """Run ``self-test --variant V``; time to the first translation line and to exit.

    On POSIX stdout is a pseudo-terminal, so the bundle's Python line-buffers it and the
    result line arrives when it is printed (through a pipe it would come only at exit)."""
    cmd = [str(exe), "self-test", "--variant", variant]
    started = time.perf_counter()
    first = None
    if os.name == "posix":
        import pty

        master, slave = pty.openpty()
        proc = subprocess.Popen(cmd, stdout=slave, stderr=subprocess.PIPE, env=env)
        os.close(slave)
        chunks = b""
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            chunks += data
            # "int8: ..." (one model) or "en-zh int8: ..." (a model per direction)
            if first is None and re.search(rb"(^|\n)([a-z]{2}-[a-z]{2} )?" + variant.encode() + rb": ", chunks):
                first = time.perf_counter() - started
        os.close(master)
        with proc.stderr:  # closed here: an open pipe is a ResourceWarning (an error in the tests)
            stderr = proc.stderr.read().decode("utf-8", "replace")
        rc = proc.wait()
        stdout = chunks.decode("utf-8", "replace").replace("\r\n", "\n")
    else:
        proc = subprocess.run(cmd, capture_output=True, env=env)
        rc, stdout = proc.returncode, proc.stdout.decode("utf-8", "replace")
        stderr = proc.stderr.decode("utf-8", "replace")
    total = time.perf_counter() - started
    return {"rc": rc, "stdout": stdout, "stderr": stderr, "first": first, "total": total}


def bundle_env(home: Path) -> dict[str, str]:
    """Environment for running the bundle: user files under ``home``, no display needed."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", DESKTOP_MT_HOME=str(home / "desktop-mt"))
    env.pop("PYTHONPATH", None)
    return env


def measure(folder: Path, exe: Path, runs: int) -> dict:
    import tempfile

    results = {"cold_first": [], "cold_total": [], "warm_first": [], "warm_total": []}
    with tempfile.TemporaryDirectory() as home:
        env = bundle_env(Path(home))
        for kind in ("cold", "warm"):
            for _ in range(runs):
                if kind == "cold":
                    evict_from_page_cache(folder)
                r = timed_self_test(exe, env)
                if r["rc"] != 0:
                    raise SystemExit(f"self-test failed (rc {r['rc']}):\n{r['stdout']}{r['stderr']}")
                if r["first"] is not None:
                    results[f"{kind}_first"].append(r["first"])
                results[f"{kind}_total"].append(r["total"])
    print(
        f"\nstart-up, `{exe.name} self-test --variant int8`, {runs} runs each "
        f"(cold = bundle files evicted from the page cache first):"
    )
    for key, values in results.items():
        if values:
            label = {"first": "process start -> first translation printed", "total": "process start -> exit"}[
                key.split("_")[1]
            ]
            print(
                f"  {key.split('_')[0]:>4}: {label}: median {statistics.median(values):.2f} s "
                f"(runs: {', '.join(f'{v:.2f}' for v in values)})"
            )
    return {k: statistics.median(v) for k, v in results.items() if v}


def _snapshot(folder: Path) -> dict[str, tuple]:
    return {
        p.relative_to(folder).as_posix(): (
            p.is_dir(),
            p.stat(follow_symlinks=False).st_size,
            p.stat(follow_symlinks=False).st_mtime_ns,
        )
        for p in [folder, *folder.rglob("*")]
    }


def _as_unprivileged_user(env: dict[str, str], home: Path) -> tuple[list[str], dict[str, str]]:
    """As root, write permissions do not bind: run as ``nobody`` (setpriv) so they do."""
    if os.name != "posix" or os.geteuid() != 0 or not shutil.which("setpriv"):
        return [], env
    home.chmod(0o777)
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"], dict(env, HOME=str(home))


class ReadOnlyInstall:
    """A copy of the bundle made read-only (chmod -R a-w) in a fresh folder, run by a user who
    cannot write there (``nobody`` when we are root), with a separate writable home.

        with ReadOnlyInstall(folder) as ro:
            subprocess.run(ro.prefix + [str(ro.path_of(exe)), "self-test"], env=ro.env)
            assert ro.changed() == []
    """

    def __init__(self, folder: Path) -> None:
        import tempfile

        self.folder = folder
        self.root = Path(tempfile.mkdtemp(prefix="desktop-mt-ro-"))
        self.root.chmod(0o755)  # the unprivileged user must reach the copy
        self.copy = self.root / "install" / folder.name
        self.home = self.root / "home"

    def __enter__(self) -> ReadOnlyInstall:
        self.copy.parent.mkdir()
        self.copy.parent.chmod(0o755)
        shutil.copytree(self.folder, self.copy, symlinks=True)
        for path in [self.copy, *self.copy.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode & ~0o222)
        self.home.mkdir()
        self.prefix, self.env = _as_unprivileged_user(bundle_env(self.home), self.home)
        self._before = _snapshot(self.copy)
        return self

    def path_of(self, path: Path) -> Path:
        """Where ``path`` (inside the original bundle) is in the read-only copy."""
        return self.copy / Path(path).relative_to(self.folder)

    def changed(self) -> list[str]:
        """Paths inside the copy that were added, removed or modified since it was made."""
        after = _snapshot(self.copy)
        return sorted(k for k in set(self._before) | set(after) if self._before.get(k) != after.get(k))

    def __exit__(self, *exc) -> None:
        for path in [self.copy, *self.copy.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | 0o200)
        shutil.rmtree(self.root, ignore_errors=True)


def run_read_only(
    folder: Path, exe: Path, args: list[str], timeout: float = 300
) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run ``exe args`` from a read-only install of the bundle (see ReadOnlyInstall).
    Returns the process and the paths inside the bundle that changed (should be none)."""
    with ReadOnlyInstall(folder) as ro:
        proc = subprocess.run(
            ro.prefix + [str(ro.path_of(exe)), *args],
            env=ro.env,
            capture_output=True,
            text=True,
            encoding="utf-8",
            errors="replace",
            timeout=timeout,
        )
        return proc, ro.changed()


def gui_smoke(
    exe: Path,
    home: Path,
    seconds: float = 8.0,
    platform: str = "offscreen",
    xvfb: bool = False,
    prefix: list[str] | None = None,
    env: dict[str, str] | None = None,
) -> tuple[bool, str]:
    """Start the GUI (no arguments); it must still be running after ``seconds`` with no Qt
    plugin or import error, and have written its log under ``home`` (not into the bundle).
    ``prefix``/``env`` come from a ReadOnlyInstall to run it as that user. Returns (ok, why)."""
    import signal

    env = dict(env or bundle_env(home), QT_QPA_PLATFORM=platform)
    cmd = [str(exe)]
    if xvfb:  # as the same user, so the app may read Xvfb's authority file
        cmd = ["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"] + cmd
    cmd = (prefix or []) + cmd
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        proc.wait(timeout=seconds)
        early = True
    except subprocess.TimeoutExpired:
        early = False
    if not early:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    with proc.stdout, proc.stderr:  # closed here: an open pipe is a ResourceWarning
        out = proc.stdout.read().decode("utf-8", "replace") + proc.stderr.read().decode("utf-8", "replace")
    log = Path(env["DESKTOP_MT_HOME"]) / "logs" / "desktop-mt.log"
    if early:
        return False, f"the GUI exited within {seconds} s (rc {proc.returncode}):\n{out[-3000:]}"
    bad = [
        m
        for m in (
            "Could not load the Qt platform plugin",
            "could not be loaded",
            "Traceback",
            "ImportError",
            "ModuleNotFoundError",
            "GUI is not available",
        )
        if m in out
    ]
    if bad:
        return False, f"the GUI printed {bad}:\n{out[-3000:]}"
    if not log.is_file():
        return False, f"the GUI wrote no log at {log}:\n{out[-3000:]}"
    if " ERROR " in log.read_text(encoding="utf-8", errors="replace"):
        return False, f"the GUI logged an error:\n{log.read_text(encoding='utf-8')[-3000:]}"
    return True, f"the GUI ran {seconds} s on {platform}{' (Xvfb)' if xvfb else ''}; log at {log}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model-dir",
        type=Path,
        action="append",
        help="exported model to bundle; repeat it for several (default: every model in "
        "desktop_mt/resources/models/, one per direction)",
    )
    parser.add_argument(
        "--variants",
        default="auto",
        help="comma-separated variants to ship, or 'all' (default 'auto': int8, "
        "the variant the app and CLI use by default, if the model has it, else "
        "all; fp32 adds about three times int8's size)",
    )
    parser.add_argument("--dist", type=Path, default=ROOT / "dist", help="output folder (default dist/)")
    parser.add_argument(
        "--work",
        type=Path,
        default=ROOT / "build" / "pyinstaller",
        help="PyInstaller work folder (default build/pyinstaller/)",
    )
    parser.add_argument("--strip", action="store_true", help="strip binaries (Linux/macOS; smaller)")
    parser.add_argument("--self-test", action="store_true", help="run `desktop-mt self-test` in the bundle")
    parser.add_argument("--measure", type=int, metavar="N", default=0, help="time N cold and N warm self-test starts")
    parser.add_argument("--report-only", action="store_true", help="skip the build; check dist/")
    args = parser.parse_args(argv)

    dist, work = args.dist.resolve(), args.work.resolve()
    if not args.report_only:
        missing_build_modules()
        model_dirs = [d.resolve() for d in (args.model_dir or default_model_dirs())]
        for model_dir, staged in zip(model_dirs, stage_models(model_dirs, work / "stage", args.variants), strict=True):
            print(
                f"model: {model_dir} -> {staged.relative_to(work)} ({mb(sum(s for s, _ in files_by_size(staged)))})",
                flush=True,
            )
        compile_translations()
        run_pyinstaller(dist, work, work / "stage", args.strip)
        if sys.platform.startswith("linux"):
            add_linux_files(dist / "desktop-mt")
    folder, exe = bundle_paths(dist)
    if not exe.exists():
        raise SystemExit(f"build.py: {exe} does not exist (build first)")

    total = report(folder)
    problems = check_bundle(folder)
    if total > SIZE_BUDGET_MB * 1e6:
        print(f"warning: {mb(total)} is over the {SIZE_BUDGET_MB} MB budget", file=sys.stderr)
    if args.self_test:
        import tempfile

        with tempfile.TemporaryDirectory() as home:
            proc = subprocess.run(
                [str(exe), "self-test"], env=bundle_env(Path(home)), capture_output=True, text=True, encoding="utf-8"
            )
        print(f"\n$ {exe.relative_to(dist)} self-test\n{proc.stdout}{proc.stderr}", end="")
        if proc.returncode != 0:
            problems.append(f"self-test exited {proc.returncode}")
    if args.self_test:
        import tempfile

        proc, changed = run_read_only(folder, exe, ["self-test", "--variant", "int8"])
        print(f"read-only install copy: self-test exit {proc.returncode}, {len(changed)} paths changed inside it")
        if proc.returncode != 0 or changed:
            problems.append(
                f"read-only install: self-test exit {proc.returncode}, changed inside "
                f"the bundle: {changed[:5]}\n{proc.stdout}{proc.stderr}"
            )
        if os.name == "posix" and sys.platform != "darwin":
            with tempfile.TemporaryDirectory() as tmp:
                ok, why = gui_smoke(exe, Path(tmp))
            print(f"GUI smoke test: {'ok' if ok else 'FAILED'}: {why.splitlines()[0]}")
            if not ok:
                problems.append(why)
    if args.measure:
        measure(folder, exe, args.measure)
    for problem in problems:
        print(f"build.py: FAILED: {problem}", file=sys.stderr)
    if not problems:
        print(f"\nok: {exe}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
