"""desktop-mt sends nothing: ONNX Runtime's telemetry is off in every way the app runs.

Official ONNX Runtime builds 1.29+ on Linux/macOS start a telemetry uploader (1DS) when they
load: it writes ``~/.cache/Microsoft/DeveloperTools/.onnxruntime/`` (``deviceid``,
``onnxruntime.db``) at once and, about 9 s after the import, resolves
``mobile.events.data.microsoft.com`` (then retries every ~5.5 s while that fails): measured on
onnxruntime 1.32.0, a 300-line ``translate`` (4 s) made no network syscall, a 3,000-line one
(26 s) made 6 DNS lookups. ``ORT_DISABLE_TELEMETRY=1`` set before the import stops all of it;
desktop_mt sets it (README, "Privacy").

ONNX Runtime also turns its telemetry off by itself when it sees a CI variable (``CI``,
``GITHUB_ACTIONS``, ...), so the child processes here run without those: otherwise the test
would pass in CI whatever desktop_mt does.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from desktop_mt.engine import TELEMETRY_SWITCH, telemetry_disabled

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "tests" / "data" / "tatoeba-sample.tsv"
# What ONNX Runtime reads as "running in CI" or "ORT's own unit tests" (telemetry_environment.h):
# any of them switches its telemetry off and would hide what desktop_mt does.
ORT_SELF_SUPPRESSORS = (
    "CI",
    "TF_BUILD",
    "GITHUB_ACTIONS",
    "GITLAB_CI",
    "CIRCLECI",
    "TRAVIS",
    "JENKINS_URL",
    "CODEBUILD_BUILD_ID",
    "BUILDKITE",
    "TEAMCITY_VERSION",
    "APPVEYOR",
    "BITBUCKET_BUILD_NUMBER",
    "SYSTEM_TEAMFOUNDATIONCOLLECTIONURI",
    "ORT_RUNNING_UNIT_TESTS",
)
# A network syscall: connect to an inet address, or any send on a TCP/UDP socket (strace -yy
# annotates each descriptor: <UDP:[...]>, <TCPv6:[...]>; AF_UNIX sockets stay allowed).
NETWORK_SYSCALL = re.compile(r"\b(connect|sendto|sendmsg|sendmmsg)\((\d+<(TCP|UDP)(v6)?:|.*sa_family=AF_INET6?\b)")
UPLOADER_DEADLINE_S = 90  # the control run's uploader starts ~9 s after the import (measured)


def child_env(tmp_path: Path, name: str, **extra: str) -> dict[str, str]:
    """The environment of a child process: a fresh HOME and cache folder under tmp_path, no
    CI variables, ORT_DISABLE_TELEMETRY unset unless given in ``extra``."""
    env = {k: v for k, v in os.environ.items() if k not in ORT_SELF_SUPPRESSORS + (TELEMETRY_SWITCH,)}
    home = tmp_path / name / "home"
    env.update(HOME=str(home), XDG_CACHE_HOME=str(home / ".cache"), PYTHONPATH=str(ROOT), **extra)
    (home / ".cache").mkdir(parents=True)
    return env


def run_python(code: str, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT
    )


def microsoft_folders(home: Path) -> list[Path]:
    """Any folder ONNX Runtime's uploader leaves (…/.cache/Microsoft/DeveloperTools/...)."""
    return [p for p in home.rglob("Microsoft") if p.is_dir()]


# --- the switch: every entry point sets it before onnxruntime loads -------------------------

# Records ORT_DISABLE_TELEMETRY at the moment `onnxruntime` is first looked up, then imports the
# entry module and the runtime (which imports onnxruntime).
WATCH_IMPORT = """
import json, os, sys
seen = []
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "onnxruntime" and not seen:
            seen.append(os.environ.get("ORT_DISABLE_TELEMETRY"))
        return None
sys.meta_path.insert(0, Watch())
import importlib
importlib.import_module(sys.argv[1])
import desktop_mt.engine.runtime
print(json.dumps({"seen": seen, "final": os.environ.get("ORT_DISABLE_TELEMETRY")}))
"""


@pytest.mark.parametrize(
    "entry",
    [
        "desktop_mt",
        "desktop_mt.cli.main",
        "desktop_mt.gui.app",
        "desktop_mt.server.run",
        "desktop_mt.engine.translator",
    ],
)
def test_every_entry_point_switches_telemetry_off_before_onnxruntime_loads(entry, tmp_path):
    """Library, CLI, GUI and local server: the variable is 1 when onnxruntime is first looked up."""
    if entry.startswith("desktop_mt.server") and importlib.util.find_spec("fastapi") is None:
        pytest.skip("the server extra is not installed (pip install -e '.[server]')")
    env = child_env(tmp_path, "entry", QT_QPA_PLATFORM="offscreen")
    done = run_python(WATCH_IMPORT, env, entry)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.splitlines()[-1])
    assert result == {"seen": ["1"], "final": "1"}, f"{entry}: {result}"


def test_a_value_the_user_set_is_kept(tmp_path):
    env = child_env(tmp_path, "user", ORT_DISABLE_TELEMETRY="0")
    done = run_python(WATCH_IMPORT, env, "desktop_mt")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == {"seen": ["0"], "final": "0"}


def test_importing_onnxruntime_first_warns(tmp_path):
    """Too late to switch the uploader off: say so, and how to fix it."""
    env = child_env(tmp_path, "late")
    done = run_python("import onnxruntime, desktop_mt", env)
    assert done.returncode == 0, done.stderr
    assert "TelemetryWarning: onnxruntime was imported before desktop_mt" in done.stderr
    assert "set ORT_DISABLE_TELEMETRY=1" in done.stderr
    # A user who switched it off (or on) before importing onnxruntime gets no warning.
    for value in ("1", "0"):
        env = child_env(tmp_path, f"late{value}", ORT_DISABLE_TELEMETRY=value)
        done = run_python("import onnxruntime, desktop_mt", env)
        assert done.returncode == 0 and "TelemetryWarning" not in done.stderr, (value, done.stderr)


@pytest.mark.parametrize(
    "value, off",
    [
        ("1", True),
        (" TRUE ", True),
        ("yes", True),
        ("y", True),
        ("0", False),
        ("false", False),
        ("", False),
        (None, False),
    ],
)
def test_switch_read_as_onnxruntime_reads_it(monkeypatch, value, off):
    if value is None:
        monkeypatch.delenv(TELEMETRY_SWITCH, raising=False)
    else:
        monkeypatch.setenv(TELEMETRY_SWITCH, value)
    assert telemetry_disabled() is off


@pytest.mark.parametrize("value, calls", [("1", 1), ("on", 1), ("0", 0)])
def test_telemetry_events_api_follows_the_switch(monkeypatch, value, calls):
    """Windows builds ignore the variable; the engine calls disable_telemetry_events() there
    (and everywhere: one switch, one meaning). A user's 0 leaves ONNX Runtime's default."""
    from desktop_mt.engine.runtime import apply_telemetry_switch

    made = []

    class Runtime:
        @staticmethod
        def disable_telemetry_events():
            made.append("disable")

    monkeypatch.setenv(TELEMETRY_SWITCH, value)
    assert apply_telemetry_switch(Runtime) is bool(calls)
    assert len(made) == calls


def test_bundle_runtime_hook_sets_the_switch(tmp_path):
    hook = ROOT / "packaging" / "rthooks" / "no_telemetry.py"
    spec = (ROOT / "packaging" / "desktop-mt.spec").read_text(encoding="utf-8")
    hooks = re.search(r"runtime_hooks=\[(.*?)\]", spec, re.S).group(1)
    assert '"no_telemetry.py"' in hooks, "the bundle must run packaging/rthooks/no_telemetry.py"
    code = f"import os, runpy; runpy.run_path({str(hook)!r}); print(os.environ.get('{TELEMETRY_SWITCH}'))"
    assert run_python(code, child_env(tmp_path, "hook")).stdout.strip() == "1"
    kept = run_python(code, child_env(tmp_path, "hook0", ORT_DISABLE_TELEMETRY="0"))
    assert kept.stdout.strip() == "0"


# --- the network: a translation that outlives the uploader's start, under strace ------------


def cli_command() -> list[str]:
    script = Path(sys.executable).with_name("desktop-mt")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "desktop_mt"]


def english_lines(count: int) -> str:
    lines = [row.split("\t")[0] for row in SAMPLE.read_text(encoding="utf-8-sig").splitlines()]
    return "\n".join(lines[:count]) + "\n"


def start_traced(tmp_path: Path, name: str, program: list[str] | None = None, **extra: str):
    """``desktop-mt translate`` (stdin to stdout) under strace; it loads the model and waits
    for stdin. openat is traced too, to see when onnxruntime's library is loaded. ``program``:
    another desktop-mt executable (e.g. the bundle's) instead of this environment's."""
    env = child_env(tmp_path, name, **extra)
    log = tmp_path / name / "strace.log"
    command = (
        ["strace", "-f", "-yy", "-e", "trace=openat,connect,sendto,sendmsg,sendmmsg", "-o", str(log)]
        + (program or cli_command())
        + ["translate", "--threads", "1"]
    )
    process = subprocess.Popen(
        command,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        encoding="utf-8",
    )
    return process, log, Path(env["HOME"])


def wait_for_log(process, log: Path, pattern: re.Pattern, what: str) -> None:
    """Poll the strace log until ``pattern`` shows up (the process keeps running meanwhile)."""
    deadline = time.monotonic() + UPLOADER_DEADLINE_S
    while time.monotonic() < deadline:
        if log.is_file() and pattern.search(log.read_text(errors="replace")):
            return
        if process.poll() is not None:
            pytest.fail(f"{what}: the process ended first: {process.stderr.read()[-2000:]}")
        time.sleep(0.2)
    process.kill()
    pytest.fail(f"{what}: not seen within {UPLOADER_DEADLINE_S} s")


def finish(process, text: str) -> list[str]:
    out, err = process.communicate(text, timeout=300)
    assert process.returncode == 0, err[-2000:]
    return out.splitlines()


def network_syscalls(log: Path) -> list[str]:
    return [line for line in log.read_text(errors="replace").splitlines() if NETWORK_SYSCALL.search(line)]


@pytest.mark.slow
def test_translation_makes_no_network_syscall_and_leaves_no_telemetry_files(tmp_path):
    """Two CLI translations at once, each with its own HOME: desktop-mt as shipped, and a
    control with ORT_DISABLE_TELEMETRY=0. The control starts once the first has loaded
    onnxruntime, and both get their input only when the control's uploader has gone on the
    network, so the first one has run at least as long as that took, with the same work."""
    from tests.sysdeps import require

    require("strace")
    text = english_lines(100)
    loaded = re.compile(r"onnxruntime_pybind11_state[^\n]*\.so")
    quiet, quiet_log, quiet_home = start_traced(tmp_path, "shipped")
    control = None
    try:
        wait_for_log(quiet, quiet_log, loaded, "desktop-mt loading onnxruntime")
        control, control_log, control_home = start_traced(tmp_path, "control", ORT_DISABLE_TELEMETRY="0")
        wait_for_log(
            control, control_log, NETWORK_SYSCALL, "the control run's telemetry uploader (ORT_DISABLE_TELEMETRY=0)"
        )
        control_lines = finish(control, text)
        shipped_lines = finish(quiet, text)
    finally:
        for process in (quiet, control):
            if process is not None and process.poll() is None:
                process.kill()
                process.communicate()
    assert len(shipped_lines) == len(control_lines) == 100
    assert microsoft_folders(control_home), "the control run left no telemetry cache to compare with"
    assert network_syscalls(quiet_log) == []
    assert microsoft_folders(quiet_home) == []
