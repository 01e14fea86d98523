"""The Windows stage (packaging/windows/wine_stage.py): its own logic, checked without Wine
(how a failed step is reported, the timeouts, the cache entries and their keys, the paths with
Chinese characters and spaces), and the stage itself under Wine, which CI runs."""

from __future__ import annotations

import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests import sysdeps

ROOT = Path(__file__).resolve().parents[2]
WINDOWS = ROOT / "packaging" / "windows"
STAGE = WINDOWS / "wine_stage.py"
_spec = importlib.util.spec_from_file_location("wine_stage", STAGE)
wine_stage = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wine_stage)

# What the stage needs from the system (packaging/system-packages.txt [test]).
STAGE_PACKAGES = ("wine", "wine64", "fonts-wine", "gcc-mingw-w64-x86-64-win32", "nsis", "gcc")
RUN_LOCALLY = "DESKTOP_MT_WINDOWS_STAGE"
STAGE_TIMEOUT_S = 3600  # uncached at load average 11-16: 15 minutes; each step has its own timeout


@pytest.fixture
def stage(tmp_path):
    return wine_stage.Stage(tmp_path / "cache", tmp_path / "work", log=lambda line: None)


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code)]


# --- a failed step is named, with its output -----------------------------------------------
def test_a_command_that_fails_is_its_steps_failure_with_its_output(stage):
    with pytest.raises(wine_stage.StepFailed) as failed:
        stage.run(
            "translate", _python("print('UnicodeEncodeError: charmap'); raise SystemExit(3)"), 120, env=dict(os.environ)
        )
    message = str(failed.value)
    assert message.startswith("Windows step translate failed: exit code 3: ")
    assert "--- output ---\nUnicodeEncodeError: charmap" in message
    assert failed.value.step == "translate"


def test_the_output_kept_is_its_end_where_a_traceback_ends():
    output = "noise\n" * 5000 + "Traceback (most recent call last):\nOSError: the real cause"
    message = str(wine_stage.StepFailed("build", "exit code 1", output))
    assert message.endswith("OSError: the real cause") and len(message) < 6200


def test_any_error_inside_a_step_is_that_steps_failure(stage):
    with pytest.raises(wine_stage.StepFailed) as failed, stage.timed("ocr"):
        raise ValueError("no PNG")
    assert str(failed.value) == "Windows step ocr failed: ValueError: no PNG"
    assert "ocr" not in stage.times


def test_a_step_past_its_timeout_fails_and_its_processes_are_killed(stage, tmp_path):
    """The command and the child it started (as Wine starts a Windows program's) are killed,
    and what it wrote before is in the message."""
    pid_file = tmp_path / "child.pid"
    code = f"""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(pid_file)!r}, "w").write(str(child.pid))
        print("started the child", flush=True)
        time.sleep(600)
    """
    with pytest.raises(wine_stage.StepFailed) as failed:
        stage.run("resume", _python(code), 5, env=dict(os.environ))
    assert str(failed.value).startswith("Windows step resume failed: timed out after 5 s: ")
    assert "started the child" in str(failed.value)
    child = int(pid_file.read_text())
    assert _gone(child), "the step's child process outlived the timeout"


def _gone(pid: int) -> bool:
    """Whether ``pid`` ends (or is a zombie, killed) within a minute of being killed."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state == "Z":
            return True
        time.sleep(0.05)
    return False


def test_cleanup_kills_what_the_stage_started_and_nothing_starts_after(stage):
    proc = stage.spawn(_python("import time; time.sleep(600)"), env=dict(os.environ))
    stage.cleanup()
    assert proc.wait(timeout=60) == -signal.SIGKILL
    with pytest.raises(wine_stage.StepFailed, match="the stage is stopping"):
        stage.spawn(_python("pass"), env=dict(os.environ))


def test_windows_programs_get_no_linux_settings_of_the_checkouts_tools(stage, monkeypatch, tmp_path):
    """A test session's DESKTOP_MT_HOME (a Linux path) once sent the window's log to Z:\\tmp
    under pytest, and the stage waited for it in %LOCALAPPDATA%."""
    for name in ("DESKTOP_MT_HOME", "QT_QPA_PLATFORM", "PYTHONPATH", "OMP_NUM_THREADS", "DISPLAY", "PYTEST_X"):
        monkeypatch.setenv(name, str(tmp_path))
    monkeypatch.setenv("LANG", "C.UTF-8")
    env = stage.env()
    assert not [name for name in env if name.startswith(("DESKTOP_MT_", "QT_", "PYTHON", "OMP_", "PYTEST_"))]
    assert "DISPLAY" not in env and env["LANG"] == "C.UTF-8"
    assert env["WINEPREFIX"] == str(stage.prefix) and env["WINEDEBUG"] == "-all"


def test_without_a_prefix_no_wineserver_is_asked_to_stop(stage):
    """A stage that failed before making its prefix must not create it by stopping Wine."""
    stage.stop_wine()
    assert not stage.prefix.exists()


# --- cache entries ---------------------------------------------------------------------------
def test_a_cache_entry_exists_only_when_complete(tmp_path):
    final = tmp_path / "wheels-abc"
    with pytest.raises(RuntimeError), wine_stage.cache_entry(final) as tmp:
        (tmp / "half.whl").write_text("x")
        raise RuntimeError("pip failed")
    assert not final.exists() and not tmp.exists()
    with wine_stage.cache_entry(final) as tmp:
        (tmp / "whole.whl").write_text("x")
    assert sorted(p.name for p in final.iterdir()) == ["whole.whl"] and not tmp.exists()


def test_a_run_killed_midway_leaves_no_entry_and_the_next_removes_its_leftovers(tmp_path):
    """The stage's process killed (SIGKILL: no cleanup runs) while it fills an entry."""
    cache = tmp_path / "cache"
    final = cache / "bundle-new"
    code = f"""
        import importlib.util, os, signal
        spec = importlib.util.spec_from_file_location("wine_stage", {str(STAGE)!r})
        stage = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(stage)
        from pathlib import Path
        with stage.cache_entry(Path({str(final)!r})) as tmp:
            (tmp / "desktop-mt.exe").write_bytes(b"MZ half")
            os.kill(os.getpid(), signal.SIGKILL)
    """
    proc = subprocess.run(_python(code), capture_output=True, text=True, timeout=120)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert not final.exists()
    leftover = cache / "bundle-new.partial"
    assert leftover.is_dir()
    (cache / "bundle-old").mkdir()
    (cache / "installer-old.exe").write_bytes(b"MZ")
    wine_stage.prune(cache, "bundle", keep="bundle-new")
    assert sorted(p.name for p in cache.iterdir()) == ["installer-old.exe"]


def test_a_file_entry_is_written_under_its_partial_name(tmp_path):
    final = tmp_path / "installer-abc.exe"
    with wine_stage.cache_entry(final, folder=False) as tmp:
        assert tmp.name == "installer-abc.exe.partial" and not tmp.exists()
        tmp.write_bytes(b"MZ setup")
    assert final.read_bytes() == b"MZ setup" and not tmp.exists()


def test_the_tree_digest_follows_every_file_but_caches_and_the_skipped_ones(tmp_path):
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / "__pycache__").mkdir()
    (tmp_path / "pkg" / "sub" / "model.onnx").write_bytes(b"weights")
    (tmp_path / "pkg" / "stage.py").write_text("steps")
    before = wine_stage.tree_digest(tmp_path, ["pkg"], skip=["pkg/stage.py"])
    (tmp_path / "pkg" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"bytecode")
    (tmp_path / "pkg" / "stage.py").write_text("other steps")
    assert wine_stage.tree_digest(tmp_path, ["pkg"], skip=["pkg/stage.py"]) == before
    (tmp_path / "pkg" / "sub" / "model.onnx").write_bytes(b"weights2")
    changed = wine_stage.tree_digest(tmp_path, ["pkg"], skip=["pkg/stage.py"])
    assert changed != before
    (tmp_path / "pkg" / "sub" / "model.onnx").rename(tmp_path / "pkg" / "model.onnx")
    assert wine_stage.tree_digest(tmp_path, ["pkg"], skip=["pkg/stage.py"]) != changed  # a move is a change


def test_digest_parts_are_delimited():
    assert wine_stage.digest("ab", "c") != wine_stage.digest("a", "bc")
    assert wine_stage.digest("ab", "c") == wine_stage.digest(b"ab", b"c")


def test_the_stage_only_files_exist_and_the_bundle_key_covers_the_rest():
    """The files the bundle key leaves out are the stage's own (a wrong name would leave a
    build input out, or nothing): each exists, and none is read by the spec or build.py."""
    build_inputs = (ROOT / "packaging" / "desktop-mt.spec").read_text(encoding="utf-8")
    build_inputs += (ROOT / "packaging" / "build.py").read_text(encoding="utf-8")
    for name in wine_stage.STAGE_ONLY:
        assert (ROOT / "packaging" / name).is_file(), name
        assert Path(name).name not in build_inputs, name
    assert len(wine_stage.bundle_inputs_key()) == 16


def test_the_wheels_key_changes_with_the_stage_pins(tmp_path, monkeypatch):
    before = wine_stage.wheels_key()
    pins = tmp_path / "stage-constraints.txt"
    pins.write_text(wine_stage.CONSTRAINTS.read_text(encoding="utf-8").replace("numpy==2.0.2", "numpy==2.0.1"))
    monkeypatch.setattr(wine_stage, "CONSTRAINTS", pins)
    assert wine_stage.wheels_key() != before


def test_a_second_run_waits_for_the_lock_then_fails_named(tmp_path):
    with wine_stage.locked(tmp_path), pytest.raises(wine_stage.StepFailed) as failed, wine_stage.locked(tmp_path, 0.5):
        pass
    assert str(failed.value).startswith("Windows step lock failed: another run of the stage held")
    with wine_stage.locked(tmp_path, 0.5):  # free again once the first has ended
        pass


# --- the path with Chinese characters and spaces ---------------------------------------------
def test_the_chinese_path_with_spaces_is_one_argument_of_the_exe(stage, tmp_path):
    """No shell between the stage and Wine: the path needs no quoting, and reaches the program
    as one argument, characters intact."""
    note = f"{wine_stage.USER_DIR}\\note.txt"
    cmd = stage.cli_command(tmp_path / "desktop-mt", ["translate", note])
    assert cmd == [wine_stage.win_path(tmp_path / "desktop-mt" / "desktop-mt-cli.exe"), "translate", note]
    echo = _python("import sys; sys.stdout.buffer.write(repr(sys.argv[1:]).encode('utf-8'))")
    out = stage.run("translate", [*echo, *cmd[1:]], 120, env=dict(os.environ, PYTHONUTF8="1")).stdout
    assert out == repr(["translate", "C:\\Users\\张三\\My Documents\\desktop-mt 测试\\note.txt"])


def test_the_chinese_path_is_the_prefix_file_and_back(stage, tmp_path):
    where = stage.unix(wine_stage.USER_DIR)
    assert where == stage.drive_c / "users" / "张三" / "My Documents" / "desktop-mt 测试"
    assert (
        wine_stage.win_path(tmp_path / "张三 的" / "a b.txt")
        == "Z:" + str(tmp_path).replace("/", "\\") + "\\张三 的\\a b.txt"
    )


# --- the stage itself ----------------------------------------------------------------------
@pytest.mark.slow
def test_the_windows_bundle_builds_installs_and_works_under_wine():
    """The whole stage (packaging/windows/wine_stage.py): under CI=true it always runs and a
    failed step fails this test with the step's name and output; elsewhere it runs with
    DESKTOP_MT_WINDOWS_STAGE=1 (it takes minutes), and skips naming what is missing."""
    if not sysdeps.in_ci() and os.environ.get(RUN_LOCALLY, "") in ("", "0"):
        pytest.skip(f"the Windows stage runs under CI=true or {RUN_LOCALLY}=1 (2-15 minutes)")
    sysdeps.require(*STAGE_PACKAGES)
    proc = subprocess.Popen(
        [sys.executable, str(STAGE)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=ROOT,
        start_new_session=True,
    )  # fmt: skip
    try:
        out = proc.communicate(timeout=STAGE_TIMEOUT_S)[0]
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)  # the stage stops Wine on SIGTERM
        try:
            out = proc.communicate(timeout=300)[0]
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            out = proc.communicate()[0]
        pytest.fail(f"the Windows stage ran past {STAGE_TIMEOUT_S} s:\n{out.decode('utf-8', 'replace')[-8000:]}")
    text = out.decode("utf-8", "replace")
    progress = "\n".join(line for line in text.splitlines() if line.startswith("wine_stage: "))
    failure = progress + "\n" + (text[text.find("Windows step ") :] if "Windows step " in text else text[-8000:])
    assert proc.returncode == 0, failure
    assert "wine_stage: passed " in text
    print(text.splitlines()[-1])  # the times, sizes and what came from the cache (pytest -s, -rP)


def test_the_stages_installer_is_the_same_script_with_zlib_and_what_ships_is_lzma(tmp_path):
    """The stage builds the installer in seconds with -DCOMPRESSOR=zlib; without the define
    (the GitHub workflow, a release) installer.nsi compresses with solid LZMA."""
    sysdeps.require("nsis")
    script = (WINDOWS / "installer.nsi").read_text(encoding="utf-8")
    assert '!define COMPRESSOR "lzma"' in script and "SetCompressor /SOLID ${COMPRESSOR}" in script
    assert wine_stage.INSTALLER_COMPRESSOR == "zlib"
    bundle = tmp_path / "desktop-mt"
    (bundle / "_internal").mkdir(parents=True)
    for exe in ("desktop-mt.exe", "desktop-mt-cli.exe"):
        (bundle / exe).write_bytes(b"MZ" + b"\0" * 100_000)
    sizes = {}
    for compressor in ("zlib", "lzma", "none"):
        setup = tmp_path / f"{compressor}.exe"
        cmd = [shutil.which("makensis"), "-V2", "-INPUTCHARSET", "UTF8", f"-DBUNDLE={bundle}", "-DVERSION=1.0"]
        cmd += [f"-DCOMPRESSOR={compressor}", f"-DOUTFILE={setup}", str(WINDOWS / "installer.nsi")]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        sizes[compressor] = (proc.returncode, setup.stat().st_size if setup.exists() else 0)
    assert sizes["zlib"][0] == sizes["lzma"][0] == 0, sizes
    assert sizes["none"][0] != 0  # not a compressor: makensis refuses, so a typo cannot pass
