"""dev.py's system packages (packaging/system-packages.txt) and the tests' use of the same list;
the lint step of ``dev.py test``."""

from __future__ import annotations

import shutil
import sys

import pytest

from tests import sysdeps

dev = sysdeps.dev
needs_dpkg = pytest.mark.skipif(not shutil.which("dpkg-query"), reason="not a dpkg system")
NO_SUCH = "desktop-mt-no-such-package"


def _package_list(tmp_path, monkeypatch, text: str) -> None:
    path = tmp_path / "system-packages.txt"
    path.write_text(text, encoding="utf-8")
    monkeypatch.setattr(dev, "SYSTEM_PACKAGES", path)


def test_the_list_has_the_qt_libraries_and_the_test_tools():
    app, test = dev.system_packages(("app",)), dev.system_packages(("test",))
    for name in ("libxcb-icccm4", "libxcb-keysyms1", "libxcb-cursor0", "libxkbcommon-x11-0", "fonts-noto-cjk"):
        assert name in app
    for name in ("xvfb", "xauth", "xdotool", "xclip", "strace"):
        assert name in test
    assert not set(app) & set(test)
    assert all(probe for probe in {**app, **test}.values()), "every package has a probe"


def test_groups_comments_and_probes_are_parsed(tmp_path, monkeypatch):
    _package_list(tmp_path, monkeypatch, "# intro\n[app]\nlibfoo1   libfoo.so.1  # why\n\n[test]\n# tools\nbar\n")
    assert dev.system_packages(("app",)) == {"libfoo1": "libfoo.so.1"}
    assert dev.system_packages(("app", "test")) == {"libfoo1": "libfoo.so.1", "bar": ""}


@needs_dpkg
def test_dpkg_tells_installed_from_missing():
    assert dev.missing_packages(["dpkg", NO_SUCH]) == [NO_SUCH]


@needs_dpkg
def test_a_complete_machine_installs_nothing(tmp_path, monkeypatch, capsys):
    _package_list(tmp_path, monkeypatch, "[app]\ndpkg\n")
    monkeypatch.setattr(dev.subprocess, "run", _refuse_apt(dev.subprocess.run))
    assert dev.ensure_system_packages(("app",)) is True
    assert capsys.readouterr() == ("", "")


@needs_dpkg
def test_without_root_it_prints_the_command_and_goes_on(tmp_path, monkeypatch, capsys):
    _package_list(tmp_path, monkeypatch, f"[app]\ndpkg\n[test]\n{NO_SUCH}\n")
    monkeypatch.setattr(dev.os, "geteuid", lambda: 1000)
    monkeypatch.setattr(dev.subprocess, "run", _refuse_apt(dev.subprocess.run))
    assert dev.ensure_system_packages(("app", "test")) is False
    err = capsys.readouterr().err
    assert f"sudo apt-get install -y --no-install-recommends {NO_SUCH}\n" in err
    assert "the tests that need them skip" in err


@needs_dpkg
def test_deps_check_reports_without_installing(tmp_path, monkeypatch, capsys):
    _package_list(tmp_path, monkeypatch, f"[test]\n{NO_SUCH}   /nonexistent/{NO_SUCH}\n")
    monkeypatch.setattr(dev.subprocess, "run", _refuse_apt(dev.subprocess.run))
    assert dev.main(["deps", "--check"]) == 1
    assert f"missing system packages: {NO_SUCH}" in capsys.readouterr().err


def _refuse_apt(run):
    def guarded(cmd, *args, **kwargs):
        assert cmd[0] != "apt-get", f"apt-get was called: {cmd}"
        return run(cmd, *args, **kwargs)

    return guarded


@pytest.mark.parametrize("ci, outcome", [("", pytest.skip.Exception), ("true", pytest.fail.Exception)])
def test_a_missing_package_skips_and_fails_under_ci(tmp_path, monkeypatch, ci, outcome):
    _package_list(tmp_path, monkeypatch, f"[test]\n{NO_SUCH}   /nonexistent/{NO_SUCH}\n")
    monkeypatch.setenv("CI", ci)
    with pytest.raises(outcome, match=f"needs the system package {NO_SUCH} .*dev.py deps"):
        sysdeps.require(NO_SUCH)


def test_require_knows_only_listed_packages():
    with pytest.raises(ValueError, match="not in system-packages.txt"):
        sysdeps.require("some-unlisted-package")


def test_probes_find_commands_libraries_and_files(tmp_path):
    assert sysdeps._probe_finds("sh")
    assert sysdeps._probe_finds(str(tmp_path))
    assert not sysdeps._probe_finds(f"/nonexistent/{NO_SUCH}")
    assert not sysdeps._probe_finds(f"lib{NO_SUCH}.so.1")
    if sys.platform.startswith("linux"):
        assert sysdeps._probe_finds("libc.so.6")


# -- dev.py test: ruff and mypy before pytest ---------------------------------------------------


def _check_name(command: list[str]) -> str:
    """The check a recorded command is: its tool (``-m TOOL``), and ``ruff format`` for the format check."""
    return "ruff format" if command[2:4] == ["ruff", "format"] else command[2]


def _fake_test_run(monkeypatch, failing: set[str]) -> list[list[str]]:
    """dev.main(["test", ...]) with set-up stubbed and every command recorded (none is run);
    a command whose check (:func:`_check_name`) is in ``failing`` exits 1."""
    calls: list[list[str]] = []

    def call(command, cwd=None, env=None):
        assert cwd == dev.ROOT and env["QT_QPA_PLATFORM"]
        calls.append(command)
        return 1 if _check_name(command) in failing else 0

    monkeypatch.setattr(dev, "ensure_system_packages", lambda *a, **k: True)
    monkeypatch.setattr(dev, "ensure_venv", lambda extra: dev.Path("venv-python"))
    monkeypatch.setattr(dev.subprocess, "call", call)
    monkeypatch.delenv(dev.SKIP_LINT, raising=False)
    return calls


def test_lint_commands_are_ruff_and_mypy_from_the_venv():
    commands = dict(dev.lint_commands(dev.Path("py")))
    assert commands == {
        "ruff": ["py", "-m", "ruff", "check", "."],
        "ruff format": ["py", "-m", "ruff", "format", "--check", "."],
        "mypy": ["py", "-m", "mypy"],
    }
    pyproject = (dev.ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "[tool.ruff" in pyproject and "[tool.mypy]" in pyproject  # their settings


def test_clean_lint_runs_then_pytest(monkeypatch):
    calls = _fake_test_run(monkeypatch, failing=set())
    assert dev.main(["test", "-q", "tests/x.py"]) == 0
    assert [_check_name(c) for c in calls] == ["ruff", "ruff format", "mypy", "pytest"]
    assert calls[-1] == ["venv-python", "-m", "pytest", "-q", "tests/x.py"]


@pytest.mark.parametrize(
    ("failing", "named"),
    [({"ruff"}, "ruff"), ({"ruff format"}, "ruff format"), ({"mypy"}, "mypy"), ({"ruff", "mypy"}, "ruff and mypy")],
)
def test_a_lint_failure_fails_the_command_without_running_tests(monkeypatch, capsys, failing, named):
    calls = _fake_test_run(monkeypatch, failing)
    assert dev.main(["test"]) == 1
    assert [_check_name(c) for c in calls] == ["ruff", "ruff format", "mypy"]  # all run: one run reports everything
    err = capsys.readouterr().err
    assert f"{named} failed" in err and dev.SKIP_LINT in err


def test_skip_lint_runs_only_pytest(monkeypatch, capsys):
    calls = _fake_test_run(monkeypatch, failing={"ruff", "ruff format", "mypy"})
    monkeypatch.setenv(dev.SKIP_LINT, "1")
    assert dev.main(["test"]) == 0
    assert [c[2] for c in calls] == ["pytest"]
    assert "ruff and mypy skipped" in capsys.readouterr().out
    monkeypatch.setenv(dev.SKIP_LINT, "0")  # 0 means: do not skip
    calls.clear()
    assert dev.main(["test"]) == 1 and [_check_name(c) for c in calls] == ["ruff", "ruff format", "mypy"]


def test_readme_documents_the_skip():
    readme = (dev.ROOT / "README.md").read_text(encoding="utf-8")
    assert dev.SKIP_LINT in readme
