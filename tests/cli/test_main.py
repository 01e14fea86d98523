"""The ``desktop-mt`` command: usage, exit codes, stdin->stdout, progress, GUI hand-off and
resume after SIGKILL. Structural tests use the fake translator of tests/batch; the tests
marked ``engine`` run the real engine on a model directory."""

from __future__ import annotations

import errno
import importlib.util
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import types
from pathlib import Path

import pytest

from desktop_mt import batch
from desktop_mt.cli import main as cli
from desktop_mt.cli import show as cli_show

TESTS = Path(__file__).resolve().parents[1]
ROOT = TESTS.parent


def subprocess_env(**extra: str) -> dict:
    """Environment for child processes: the checkout first on sys.path, whatever the install."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return dict(os.environ, PYTHONPATH=path, **extra)


_spec = importlib.util.spec_from_file_location("fake_translator", TESTS / "batch" / "fake_translator.py")
fake_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake_module)
FakeTranslator, fake_translation = fake_module.FakeTranslator, fake_module.fake_translation


@pytest.fixture
def fake(monkeypatch):
    """Make the CLI build a FakeTranslator instead of loading a model."""
    translator = FakeTranslator()
    monkeypatch.setattr(cli, "make_translator", lambda args, variant=None: translator)
    return translator


def _stdio(monkeypatch, data: bytes, tty: bool = False):
    stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    stdin.isatty = lambda: tty
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", stdout)
    return stdout


@pytest.mark.parametrize(
    "argv",
    [
        ["translate", "a.txt", "b.txt", "-o", "out.txt"],
        ["translate", "--beams", "0", "a.txt"],
        ["translate", "--batch-size", "x", "a.txt"],
        ["translate", "--bogus"],
        ["translate", "-", "--out-dir", "d"],
        ["translate", "-o", "x", "--out-dir", "d", "a.txt"],
        ["translate", "-", "a.txt"],
        ["translate", "--format", "rtf", "a.txt"],
        ["frobnicate"],
    ],
)
def test_usage_errors_exit_2_before_loading_a_model(monkeypatch, capsys, argv):
    def no_model(*a, **k):
        raise AssertionError("the model must not be loaded for a usage error")

    monkeypatch.setattr(cli, "make_translator", no_model)
    assert cli.main(argv) == 2
    assert "desktop-mt" in capsys.readouterr().err


def test_help_exits_0(capsys):
    assert cli.main(["translate", "--help"]) == 0
    assert "--resume" in capsys.readouterr().out


def test_stdin_to_stdout_one_line_per_line(monkeypatch, fake):
    data = b"Hello.\n\n  Indented.\r\nLast"
    stdout = _stdio(monkeypatch, data)
    assert cli.main(["translate"]) == 0
    stdout.flush()
    out = stdout.buffer.getvalue().decode("utf-8")
    assert out == (
        fake_translation("Hello.") + "\n\n  " + fake_translation("Indented.") + "\r\n" + fake_translation("Last")
    )


def test_stdin_dash_to_output_file(monkeypatch, fake, tmp_path):
    _stdio(monkeypatch, b"One.\nTwo.\n")
    assert cli.main(["translate", "-", "-o", str(tmp_path / "o.txt")]) == 0
    assert (tmp_path / "o.txt").read_text("utf-8").splitlines() == [fake_translation("One."), fake_translation("Two.")]


def test_interactive_terminal_translates_each_line(monkeypatch, fake):
    stdout = _stdio(monkeypatch, b"First.\nSecond.\n", tty=True)
    assert cli.main(["translate"]) == 0
    stdout.flush()
    assert stdout.buffer.getvalue().decode() == (fake_translation("First.") + "\n" + fake_translation("Second.") + "\n")
    assert len(fake.calls) == 2  # one call per entered line, not one at EOF


def test_undecodable_stdin_exits_1(monkeypatch, fake, capsys):
    _stdio(monkeypatch, b"ok\n\xff\xfe\xfa bad\n")
    assert cli.main(["translate"]) == 1
    err = capsys.readouterr().err
    assert "<stdin>" in err and "line 2" in err


def test_files_good_and_bad_exit_1_naming_file_and_line(fake, tmp_path, capsys):
    good, bad = tmp_path / "good.txt", tmp_path / "bad.txt"
    good.write_text("Fine.\n", "utf-8")
    bad.write_bytes(b"Fine.\nStill fine.\nNot \x81 fine.\n")
    assert cli.main(["translate", str(bad), str(good)]) == 1
    err = capsys.readouterr().err
    assert "bad.txt" in err and "line 3" in err
    assert (tmp_path / "good.zh.txt").read_text("utf-8") == fake_translation("Fine.") + "\n"
    assert not (tmp_path / "bad.zh.txt").exists()


def test_missing_file_and_overwrite_refusal_exit_1(fake, tmp_path, capsys):
    src = tmp_path / "a.txt"
    src.write_text("Hi.\n", "utf-8")
    assert cli.main(["translate", str(tmp_path / "missing.txt")]) == 1
    assert "missing.txt: no such file" in capsys.readouterr().err
    assert cli.main(["translate", str(src), "-o", str(src)]) == 1
    assert "overwrite the input" in capsys.readouterr().err
    assert src.read_text("utf-8") == "Hi.\n"


def test_out_dir_and_formats(fake, tmp_path):
    (tmp_path / "a.txt").write_text("Alpha.\n", "utf-8")
    (tmp_path / "b.srt").write_text("1\n00:00:01,000 --> 00:00:02,000\nBeta.\n", "utf-8")
    out = tmp_path / "out"
    assert cli.main(["translate", str(tmp_path / "a.txt"), str(tmp_path / "b.srt"), "--out-dir", str(out)]) == 0
    assert (out / "a.txt").read_text("utf-8") == fake_translation("Alpha.") + "\n"
    assert (out / "b.srt").read_text("utf-8") == (
        "1\n00:00:01,000 --> 00:00:02,000\n" + fake_translation("Beta.") + "\n"
    )


def test_progress_only_when_asked_or_on_a_terminal(fake, tmp_path, capsys):
    src = tmp_path / "a.txt"
    src.write_text("".join(f"Line {i}.\n" for i in range(10)), "utf-8")
    assert cli.main(["translate", str(src)]) == 0
    assert "seg/s" not in capsys.readouterr().err  # stderr is not a terminal here
    assert cli.main(["translate", str(src), "--progress"]) == 0
    err = capsys.readouterr().err
    assert "10/10" in err and "seg/s" in err


def test_model_error_exits_1(monkeypatch, tmp_path, capsys):
    src = tmp_path / "a.txt"
    src.write_text("Hi.\n", "utf-8")
    assert cli.main(["translate", "--model", str(tmp_path / "no-model"), str(src)]) == 1
    assert "no-model" in capsys.readouterr().err


def test_no_arguments_start_the_gui(monkeypatch):
    seen = []
    app = types.ModuleType("desktop_mt.gui.app")
    app.main = lambda argv, share_threads=False: seen.append((argv, share_threads)) or 0
    monkeypatch.setitem(sys.modules, "desktop_mt.gui.app", app)
    monkeypatch.setattr(cli_show.instance_client, "send", refuse_connection)  # `show`: no window runs
    assert cli.main([]) == 0
    assert cli.main(["gui", "--model", "DIR"]) == 0
    # The command owns its process: the window's sessions share one thread pool.
    assert cli.main([], share_threads=True) == 0
    assert cli.main(["gui", "--model", "DIR"], share_threads=True) == 0
    assert cli.main(["show", "--clipboard"], share_threads=True) == 0
    assert seen == [
        ([], False),
        (["--model", "DIR"], False),
        ([], True),
        (["--model", "DIR"], True),
        (["--clipboard"], True),
    ]


def refuse_connection(argv):
    raise cli_show.instance_client.NotRunning()


def test_gui_missing_is_a_clear_message(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "desktop_mt.gui.app", None)  # import raises ImportError
    assert cli.main([]) == 1
    assert "GUI is not available" in capsys.readouterr().err


def test_cli_never_imports_pyside6(tmp_path):
    code = (
        "import sys, desktop_mt.cli.main as c; c.build_parser();assert 'PySide6' not in sys.modules, 'PySide6 imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120, env=subprocess_env(), cwd=tmp_path)


# --- resume after SIGKILL ----------------------------------------------------------------

FAKE_MAIN = textwrap.dedent("""
    import sys
    sys.path.insert(0, {batch_dir!r})
    sys.path.insert(0, {tests_dir!r})
    from fake_translator import FakeTranslator
    from pausing import pausing
    from desktop_mt.cli import main as cli
    translator = FakeTranslator()
    cli.make_translator = lambda args, variant=None: pausing(translator)
    code = cli.main(sys.argv[1:])
    print("FAKE-LINES", translator.lines_translated, file=sys.stderr)
    sys.exit(code)
""")
# The real engine, paused the same way (tests/pausing.py).
REAL_MAIN = textwrap.dedent("""
    import sys
    sys.path.insert(0, {tests_dir!r})
    from pausing import pausing
    from desktop_mt.cli import main as cli
    real = cli.make_translator
    cli.make_translator = lambda args, variant=None: pausing(real(args, variant))
    sys.exit(cli.main(sys.argv[1:]))
""")


def fake_main(tmp_path: Path, template: str = FAKE_MAIN) -> Path:
    """A script that runs ``desktop-mt`` with the translator of ``template``."""
    script = tmp_path / "main.py"
    script.write_text(template.format(batch_dir=str(TESTS / "batch"), tests_dir=str(TESTS)), "utf-8")
    return script


def _journal_chunks(path: Path) -> int:
    try:
        return max(path.read_bytes().count(b"\n") - 1, 0)
    except FileNotFoundError:
        return 0


def kill_then_resume(
    command: list[str], src: Path, dst: Path, chunk: int, pause_after: int, timeout: float = 300
) -> subprocess.CompletedProcess:
    """Run ``command`` (a script of :func:`fake_main`) with ``--chunk-size chunk`` until its
    journal holds ``pause_after`` chunks (its translator then stands still: tests/pausing.py),
    SIGKILL it, then rerun with ``--resume``; returns the resumed run."""
    command = [*command, "--chunk-size", str(chunk)]
    env = subprocess_env(PAUSE_AFTER_CALLS=str(pause_after))
    journal = dst.with_name(dst.name + ".journal.jsonl")
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + timeout
    try:
        while _journal_chunks(journal) < pause_after:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the journal never showed progress"
            time.sleep(0.05)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    assert not dst.exists()  # nothing half-written in place
    assert _journal_chunks(journal) == pause_after
    env.pop("PAUSE_AFTER_CALLS")
    resumed = subprocess.run(command + ["--resume"], env=env, capture_output=True, text=True, timeout=timeout)
    assert resumed.returncode == 0, resumed.stderr
    assert not journal.exists()
    return resumed


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX only")
def test_resume_after_sigkill_every_line_once(tmp_path):
    lines = [f"Line number {i} of a big file." if i % 7 else "" for i in range(600)]
    src, dst = tmp_path / "big.txt", tmp_path / "out.txt"
    src.write_text("\n".join(lines) + "\n", "utf-8")
    script = fake_main(tmp_path)
    command = [sys.executable, str(script), "translate", str(src), "-o", str(dst)]
    resumed = kill_then_resume(command, src, dst, chunk=50, pause_after=3)
    distinct = len({line for line in lines if line})
    assert f"FAKE-LINES {distinct - 150}" in resumed.stderr  # only the rest was translated
    out = dst.read_text("utf-8").split("\n")
    assert out[-1] == "" and len(out) - 1 == len(lines)
    assert out[:-1] == [fake_translation(line) for line in lines]


# --- on the real engine ------------------------------------------------------------------

# The repository's own sample (short sentences first, longer towards the end, like the full file).
TATOEBA = ROOT / "tests" / "data" / "tatoeba-sample.tsv"


def english_lines(count: int, start: int = 60) -> list[str]:
    """Real English sentences (Tatoeba), with blank and indented lines mixed in."""
    with open(TATOEBA, encoding="utf-8-sig") as f:
        sentences = list(dict.fromkeys(row.split("\t", 1)[0].strip() for row in f))
    lines = sentences[start : start + count]
    for k in range(0, len(lines), 9):
        lines[k] = "" if k % 2 else "   " + lines[k]
    return lines


@pytest.fixture(scope="session")
def model_dir(request):
    """A real exported model: $DESKTOP_MT_TEST_MODEL, else the engine's tiny test model,
    else the bundled model; skipped when there is none."""
    if os.environ.get("DESKTOP_MT_TEST_MODEL"):
        return Path(os.environ["DESKTOP_MT_TEST_MODEL"])
    for name in ("tiny_model_dir", "tiny_marian_dir", "tiny_model"):
        try:
            return Path(request.getfixturevalue(name))
        except pytest.FixtureLookupError:
            continue
    from desktop_mt.engine.model_format import bundled_model_dir

    try:
        path = bundled_model_dir()
    except Exception:  # noqa: BLE001 - any failure to find it means "not available here"
        path = None
    if path is None or not Path(path).is_dir():
        pytest.skip("no exported model available")
    return Path(path)


@pytest.fixture(scope="session")
def real_lines():
    lines = english_lines(120)  # the sample is part of the repository: never skipped
    assert len(lines) == 120, f"{TATOEBA} has too few sentences"
    return lines


def test_engine_batching_gives_the_same_output_as_one_by_one(model_dir, real_lines, tmp_path):
    """fp32: batched decoding (padding, bucketing, dropped rows, chunks) is exact. (int8 is not
    compared: dynamic quantization scales activations per tensor, i.e. per batch, so a row's
    neighbours can flip a near-tie; benchmarks/batch_throughput.py reports that rate.)"""
    from desktop_mt import Translator
    from desktop_mt.batch import translate_file

    src = tmp_path / "in.txt"
    src.write_text("\n".join(real_lines) + "\n", "utf-8")
    outputs = []
    for size in (16, 1):
        translator = Translator(model_dir, variant="fp32", batch_size=size)
        outputs.append(translate_file(src, tmp_path / f"out{size}.txt", translator).read_text("utf-8"))
    assert outputs[0] == outputs[1]
    assert len(outputs[0].split("\n")) == len(real_lines) + 1


def test_engine_end_to_end_cli(model_dir, real_lines, tmp_path):
    from desktop_mt import Translator

    lines = real_lines[:40] + ["word " * 600, "emoji 😀 and 中文 mixed", "\x07control"]
    src, dst = tmp_path / "in.txt", tmp_path / "out.txt"
    src.write_bytes(("\r\n".join(lines) + "\r\n").encode("utf-8"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "desktop_mt",
            "translate",
            str(src),
            "-o",
            str(dst),
            "--model",
            str(model_dir),
            "--variant",
            "fp32",
            "--batch-size",
            "8",
        ],
        capture_output=True,
        env=subprocess_env(),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr.decode()
    out = dst.read_bytes().decode("utf-8").split("\r\n")
    assert len(out) == len(lines) + 1 and out[-1] == ""
    one = Translator(model_dir, variant="fp32", batch_size=1)
    for got, line in zip(out, lines):
        if not line.strip():
            assert got == line
        else:  # each line as the engine translates it alone, indentation kept
            lead, trail = line[: len(line) - len(line.lstrip())], line[len(line.rstrip()) :]
            alone = one.translate_batch([line.strip().replace("\x07", " ").strip()])[0]
            assert got == lead + alone + trail


def test_engine_stdin_to_stdout(model_dir, real_lines):
    lines = real_lines[:10]
    done = subprocess.run(
        [sys.executable, "-m", "desktop_mt", "translate", "--model", str(model_dir)],
        input="\n".join(lines) + "\n",
        text=True,
        capture_output=True,
        env=subprocess_env(),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.split("\n")) == len(lines) + 1


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX only")
def test_engine_resume_after_sigkill(model_dir, real_lines, tmp_path):
    src = tmp_path / "big.txt"
    src.write_text("\n".join(real_lines) + "\n", "utf-8")
    base = [sys.executable, str(fake_main(tmp_path, REAL_MAIN)), "translate", str(src), "--model", str(model_dir)]
    clean = tmp_path / "clean.txt"
    # The same chunks as the killed run: with int8, batch composition can change a near-tie.
    done = subprocess.run(
        base + ["-o", str(clean), "--chunk-size", "20"], capture_output=True, timeout=600, env=subprocess_env()
    )
    assert done.returncode == 0, done.stderr.decode()
    dst = tmp_path / "out.txt"
    kill_then_resume(base + ["-o", str(dst)], src, dst, chunk=20, pause_after=2)
    assert dst.read_bytes() == clean.read_bytes()  # every line exactly once, none lost


# --- self-test ---------------------------------------------------------------------------


def test_self_test_without_a_model_fails_clearly(tmp_path, capsys):
    assert cli.main(["self-test", "--model", str(tmp_path / "nothing-here")]) == 1
    err = capsys.readouterr().err
    assert "self-test FAILED" in err and "nothing-here" in err


def test_self_test_on_a_real_model_loads_every_variant(model_dir, capsys):
    code = cli.main(["self-test", "--model", str(model_dir)])
    out = capsys.readouterr().out
    assert "int8:" in out and "fp32:" in out and "load" in out
    # A random tiny model may print no Chinese (then it fails, naming the reason); the
    # bundled model must pass.
    assert code in (0, 1)


def test_self_test_on_the_bundled_model_passes(capsys):
    from desktop_mt import ModelNotFoundError
    from desktop_mt.engine.model_format import bundled_model_dir

    try:
        bundled_model_dir()
    except ModelNotFoundError:
        pytest.skip("no bundled model yet")
    # A fresh process: under pytest, pytest-qt has already imported PySide6.
    done = subprocess.run(
        [sys.executable, "-m", "desktop_mt", "self-test"],
        capture_output=True,
        text=True,
        env=subprocess_env(),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "self-test passed" in done.stdout and "int8:" in done.stdout


def _bundled_copy(tmp_path: Path) -> Path:
    """The bundled English->Chinese model as a folder of its own: its small files copied (to
    be edited), its graphs linked."""
    from desktop_mt import ModelNotFoundError
    from desktop_mt.engine.model_format import bundled_model_dir

    try:
        source = bundled_model_dir("en-zh")
    except ModelNotFoundError:
        pytest.skip("no bundled model")
    folder = tmp_path / source.name
    folder.mkdir()
    for path in source.iterdir():
        if path.suffix == ".onnx":
            (folder / path.name).symlink_to(path)
        else:
            shutil.copy(path, folder / path.name)
    return folder


@pytest.mark.parametrize(
    ("file", "key", "value"),
    [
        ("generation_config.json", "num_beams", "four"),
        ("config.json", "max_position_embeddings", "big"),
        ("desktop_mt.json", "format_version", "two"),
        ("vocab.json", "▁the", "x"),
    ],
)
def test_a_model_file_holding_a_word_for_a_number_fails_naming_it(tmp_path, capsys, file, key, value):
    """The ValueError the self-test once caught: a model file whose value is not a number
    ("num_beams": "four") was int()'s bare ValueError (translate crashed with a traceback); it
    is a ModelFormatError naming the file, for self-test and translate alike."""
    folder = _bundled_copy(tmp_path)
    data = json.loads((folder / file).read_text(encoding="utf-8"))
    data[key] = value
    (folder / file).write_text(json.dumps(data), encoding="utf-8")
    assert cli.main(["self-test", "--model", str(folder), "--variant", "int8"]) == 1
    err = capsys.readouterr().err
    assert "self-test FAILED" in err and str(folder / file) in err, err
    src = tmp_path / "a.txt"
    src.write_text("Hello.\n", "utf-8")
    assert cli.main(["translate", "--model", str(folder), "--variant", "int8", str(src)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("desktop-mt: error: ") and str(folder / file) in err, err


def test_translate_closes_its_translator(monkeypatch, fake, tmp_path):
    src = tmp_path / "a.txt"
    src.write_text("Hi.\n", "utf-8")
    assert cli.main(["translate", str(src)]) == 0
    assert fake.closed


def test_ctrl_c_exits_130_and_keeps_the_journal(monkeypatch, tmp_path, capsys):
    class Interrupted(FakeTranslator):
        def translate_batch(self, lines, **kwargs):
            if self.calls:
                raise KeyboardInterrupt
            return super().translate_batch(lines, **kwargs)

    translator = Interrupted()
    monkeypatch.setattr(cli, "make_translator", lambda args, variant=None: translator)
    monkeypatch.setattr(batch, "default_chunk_size", lambda batch_size: 5)  # chunks of 5 lines
    src = tmp_path / "a.txt"
    src.write_text("".join(f"Line {i}.\n" for i in range(20)), "utf-8")
    assert cli.main(["translate", str(src)]) == 130
    assert "--resume" in capsys.readouterr().err
    assert not (tmp_path / "a.zh.txt").exists()
    assert (tmp_path / "a.zh.txt.journal.jsonl").exists()
    monkeypatch.setattr(cli, "make_translator", lambda args, variant=None: FakeTranslator())
    assert cli.main(["translate", str(src), "--resume"]) == 0
    assert (tmp_path / "a.zh.txt").read_text("utf-8").splitlines() == [
        fake_translation(f"Line {i}.") for i in range(20)
    ]


def test_engine_translate_file_cancel_then_resume(model_dir, real_lines, tmp_path):
    """The GUI's path: translate_file in a worker thread, cancel, later resume."""
    import threading

    from desktop_mt import TranslationCancelled, Translator
    from desktop_mt.batch import translate_file

    src = tmp_path / "in.txt"
    src.write_text("\n".join(real_lines[:60]) + "\n", "utf-8")
    translator = Translator(model_dir, variant="fp32")
    clean = translate_file(src, tmp_path / "clean.txt", translator, chunk_size=16).read_bytes()
    cancel, seen, errors = threading.Event(), [], []

    def progress(done, total):
        seen.append(done)
        if done > 0:
            cancel.set()  # as if the user pressed Cancel after the first chunk

    def job():
        try:
            translate_file(src, tmp_path / "out.txt", translator, progress=progress, cancel=cancel, chunk_size=16)
        except TranslationCancelled as exc:
            errors.append(exc)

    worker = threading.Thread(target=job)
    worker.start()
    worker.join(300)
    assert errors and not (tmp_path / "out.txt").exists()
    assert (tmp_path / "out.txt.journal.jsonl").exists()
    resumed = []
    out = translate_file(
        src, tmp_path / "out.txt", translator, resume=True, chunk_size=16, progress=lambda d, t: resumed.append(d)
    )
    assert resumed[0] == 16  # the cancelled run's chunk was kept
    assert out.read_bytes() == clean


# --- file-system errors and what --resume says --------------------------------------------


def _twenty_lines(tmp_path) -> Path:
    src = tmp_path / "in.txt"
    src.write_text("".join(f"Line {i}.\n" for i in range(20)), "utf-8")
    return src


def test_disk_full_names_the_journal_then_resume_says_what_it_recovered(monkeypatch, tmp_path, capsys):
    from desktop_mt.batch.errors import mount_point

    from ..batch.failing_disk import FailingDisk

    monkeypatch.setattr(batch, "default_chunk_size", lambda batch_size: 5)  # chunks of 5 lines
    src, dst = _twenty_lines(tmp_path), tmp_path / "out" / "in.zh.txt"
    journal = dst.with_name("in.zh.txt.journal.jsonl")
    disk = FailingDisk(monkeypatch)
    disk.fail_write(lambda name: name == str(journal), after=2, partial=True)
    monkeypatch.setattr(cli, "make_translator", lambda args, variant=None: FakeTranslator())
    assert cli.main(["translate", str(src), "-o", str(dst)]) == 1
    assert capsys.readouterr().err == (
        f"desktop-mt: error: {journal}: cannot write the progress journal of {dst}: the disk is "
        f"full; free space on {mount_point(dst.parent)}, then rerun the same command with "
        f"--resume (10 of 20 segments translated so far are saved in {journal})\n"
    )
    assert not dst.exists()

    disk.heal()
    again = FakeTranslator()
    monkeypatch.setattr(cli, "make_translator", lambda args, variant=None: again)
    assert cli.main(["translate", str(src), "-o", str(dst), "--resume"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(
        f"desktop-mt: resuming {src}: 10 of 20 segments recovered from {journal}, 10 left to translate\n"
    )
    assert again.lines_translated == 10
    assert dst.read_text("utf-8").splitlines() == [fake_translation(f"Line {i}.") for i in range(20)]


def test_permission_denied_names_the_output_and_the_fix(monkeypatch, fake, tmp_path, capsys):
    from ..batch.failing_disk import FailingDisk

    src, folder = _twenty_lines(tmp_path), tmp_path / "locked"
    folder.mkdir()
    FailingDisk(monkeypatch).fail_open(lambda name: name.startswith(str(folder)), errno.EACCES)
    assert cli.main(["translate", str(src), "--out-dir", str(folder)]) == 1
    assert capsys.readouterr().err == (
        f"desktop-mt: error: {folder / 'in.txt'}: cannot write the output: permission denied in "
        f"the folder {folder}; choose another output folder with -o or --out-dir, or make "
        f"{folder} writable\n"
    )
    assert fake.calls == []


def test_an_output_folder_that_is_a_file_is_named(fake, tmp_path, capsys):
    src = _twenty_lines(tmp_path)
    assert cli.main(["translate", str(src), "-o", str(src / "out.txt")]) == 1
    assert capsys.readouterr().err == (
        f"desktop-mt: error: {src / 'out.txt'}: cannot write the output: {src} is a file, not a "
        f"folder; choose another output folder with -o or --out-dir\n"
    )


def test_stdin_to_a_full_disk_names_the_output(monkeypatch, fake, tmp_path, capsys):
    from desktop_mt.batch.errors import mount_point

    from ..batch.failing_disk import FailingDisk

    dst = tmp_path / "out.txt"
    _stdio(monkeypatch, b"Hello.\n")
    FailingDisk(monkeypatch).fail_write(lambda name: name.startswith(str(tmp_path / ".out.txt")))
    assert cli.main(["translate", "-o", str(dst)]) == 1
    assert capsys.readouterr().err == (
        f"desktop-mt: error: {dst}: cannot write the output: the disk is full; free space on "
        f"{mount_point(tmp_path)}, then run it again\n"
    )


def test_resume_says_why_it_starts_over(monkeypatch, tmp_path, capsys):
    from ..batch.failing_disk import FailingDisk

    def dynamic_int8(args, variant=None):  # a model whose output depends on the batch
        return FakeTranslator(batch_invariant=False, batch_size=args.batch_size or 16)

    monkeypatch.setattr(cli, "make_translator", dynamic_int8)
    monkeypatch.setattr(batch, "default_chunk_size", lambda batch_size: 5)  # chunks of 5 lines
    src = _twenty_lines(tmp_path)
    journal = tmp_path / "in.zh.txt.journal.jsonl"
    disk = FailingDisk(monkeypatch)

    def interrupted_run(*extra: str) -> None:
        disk.fail_write(lambda name: name == str(journal), after=1)
        assert cli.main(["translate", str(src), *extra]) == 1
        disk.heal()
        capsys.readouterr()

    def resume(*extra: str) -> str:
        assert cli.main(["translate", str(src), "--resume", *extra]) == 0
        return capsys.readouterr().err.splitlines()[0]

    assert resume() == (
        f"desktop-mt: not resuming {src}, starting over: there is no journal {journal} of an earlier run"
    )
    interrupted_run()
    src.write_text(src.read_text("utf-8") + "Line 20.\n", "utf-8")
    assert resume() == (
        f"desktop-mt: not resuming {src}, starting over: the input changed since the journal {journal} was written"
    )
    interrupted_run("--batch-size", "8")
    assert resume("--batch-size", "4") == (
        f"desktop-mt: not resuming {src}, starting over: the batch size changed since the "
        f"journal {journal} was written (8 -> 4, and this model's int8 output depends on the "
        f"batch size)"
    )
    interrupted_run("--batch-size", "8")
    assert resume("--batch-size", "8") == (
        f"desktop-mt: resuming {src}: 5 of 21 segments recovered from {journal}, 16 left to translate"
    )


TMPFS_RUN = """
mount -t tmpfs -o size=16k tmpfs "$SMALL" || exit 99
"$PY" "$SCRIPT" translate "$SRC" -o "$SMALL/out.txt" --chunk-size 50 2> "$LOGS/first.err"
echo $? > "$LOGS/first.rc"
ls -A "$SMALL" > "$LOGS/first.ls"
mount -o remount,size=1m "$SMALL" || exit 98
"$PY" "$SCRIPT" translate "$SRC" -o "$SMALL/out.txt" --chunk-size 50 --resume 2> "$LOGS/second.err"
echo $? > "$LOGS/second.rc"
cp "$SMALL/out.txt" "$LOGS/out.txt"
"""


def _tmpfs_available(folder: Path) -> bool:
    """Whether this machine lets us mount a tmpfs in a private (user + mount) namespace."""
    if sys.platform != "linux" or not shutil.which("unshare"):
        return False
    folder.mkdir()
    probe = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", f"mount -t tmpfs -o size=4k tmpfs '{folder}'"],
        capture_output=True,
    )
    return probe.returncode == 0


def test_a_real_full_disk_then_resume(tmp_path):
    """ENOSPC from the kernel: a 16 KiB tmpfs, in a private mount namespace, fills up while the
    journal is written; after 'freeing space' (remount at 1 MiB) --resume finishes the job."""
    small = tmp_path / "small"
    if not _tmpfs_available(small):
        pytest.skip("cannot mount a tmpfs in a user namespace here (unshare)")
    lines = [f"Line number {i} of a big file." if i % 7 else "" for i in range(600)]
    src = tmp_path / "big.txt"
    src.write_text("\n".join(lines) + "\n", "utf-8")
    script = fake_main(tmp_path)
    env = subprocess_env(
        SMALL=str(small),
        PY=sys.executable,
        SCRIPT=str(script),
        SRC=str(src),
        LOGS=str(tmp_path),
    )
    done = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", TMPFS_RUN],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    out, journal = small / "out.txt", small / "out.txt.journal.jsonl"
    first = (tmp_path / "first.err").read_text("utf-8")
    assert (tmp_path / "first.rc").read_text().strip() == "1", first
    match = re.match(
        rf"desktop-mt: error: {re.escape(str(journal))}: cannot write the progress journal of "
        rf"{re.escape(str(out))}: the disk is full; free space on {re.escape(str(small))}, then "
        rf"rerun the same command with --resume \((\d+) of (\d+) segments translated so far are "
        rf"saved in {re.escape(str(journal))}\)\n",
        first,
    )
    assert match, first
    kept, total = int(match[1]), int(match[2])
    assert 0 < kept < total == len({line for line in lines if line})
    assert (tmp_path / "first.ls").read_text().split() == ["out.txt.journal.jsonl"]  # no temp files
    second = (tmp_path / "second.err").read_text("utf-8")
    assert (tmp_path / "second.rc").read_text().strip() == "0", second
    assert second.startswith(
        f"desktop-mt: resuming {src}: {kept} of {total} segments recovered "
        f"from {journal}, {total - kept} left to translate\n"
    )
    assert f"FAKE-LINES {total - kept}" in second
    assert (tmp_path / "out.txt").read_text("utf-8").split("\n")[:-1] == [fake_translation(line) for line in lines]


# --- --join-lines, --bilingual, already-Chinese counts (issue 19) -----------------------------


def test_join_lines_is_off_by_default_and_joins_pdf_lines_when_asked(monkeypatch, fake):
    pasted = b"The model was trained on a large cor-\npus of news.\n"
    stdout = _stdio(monkeypatch, pasted)
    assert cli.main(["translate"]) == 0
    assert fake.calls[-1] == ["The model was trained on a large cor-", "pus of news."]
    stdout = _stdio(monkeypatch, pasted)
    assert cli.main(["translate", "--join-lines"]) == 0
    stdout.flush()
    assert fake.calls[-1] == ["The model was trained on a large corpus of news."]
    expected = fake_translation("The model was trained on a large corpus of news.") + "\n"
    assert stdout.buffer.getvalue().decode() == expected


def test_bilingual_stdin_and_kept_count_on_stderr(monkeypatch, fake, capsys):
    stdout = _stdio(monkeypatch, "Hello.\n你好。\n".encode())
    assert cli.main(["translate", "--bilingual"]) == 0
    stdout.flush()
    assert stdout.buffer.getvalue().decode() == (
        f"Hello.\n{fake_translation('Hello.')}\n你好。\n{fake_translation('你好。')}\n"
    )
    assert "desktop-mt: 1 kept as they were (no Chinese->English model)" in capsys.readouterr().err


def test_file_summary_counts_lines_already_chinese(fake, tmp_path, capsys):
    src = tmp_path / "mixed.txt"
    src.write_text("Good morning.\n早上好。\n今天天气很好。\n", "utf-8")
    assert cli.main(["translate", str(src)]) == 0
    err = capsys.readouterr().err
    assert f"{src} -> {tmp_path / 'mixed.zh.txt'} (3 segments, 2 kept as they were (no Chinese->English model), " in err


BILINGUAL_SRT = (
    "1\n00:00:01,000 --> 00:00:03,500\nWhere is the train station?\n\n"
    "2\n00:00:04,000 --> 00:00:06,000\n<i>I love you.</i>\n\n"
    "3\n00:00:06,500 --> 00:00:09,000\n- Are you coming tomorrow?\n- Yes, I will be there.\n\n"
    "4\n00:00:09,500 --> 00:00:11,000\n你好，世界。\n\n"
    "5\n00:00:11,500 --> 00:00:14,000\nThe weather is nice today,\nso let us go for a walk.\n"
)


def test_bilingual_srt_on_the_bundled_model(tmp_path, capsys):
    """Into Chinese (--to zh): each cue keeps its English line(s) above the Chinese; the Chinese
    cue is written once (--to auto would put it into English: tests/cli/test_direction.py)."""
    src = tmp_path / "talk.srt"
    src.write_text(BILINGUAL_SRT, "utf-8")
    assert cli.main(["translate", "--bilingual", "--to", "zh", str(src)]) == 0
    out = (tmp_path / "talk.zh.srt").read_text("utf-8")
    cues = [cue.split("\n") for cue in out.strip("\n").split("\n\n")]
    sources = [cue.split("\n")[2:] for cue in BILINGUAL_SRT.strip("\n").split("\n\n")]
    assert [cue[:2] for cue in cues] == [cue.split("\n")[:2] for cue in BILINGUAL_SRT.strip("\n").split("\n\n")]
    for cue, source in zip(cues, sources):
        text = cue[2:]
        assert text[: len(source)] == source  # the English as it was, on top
        chinese = text[len(source) :]
        if source == ["你好，世界。"]:
            assert chinese == []  # already Chinese: once
        else:
            assert chinese and all(any("\u4e00" <= c <= "\u9fff" for c in line) for line in chinese), cue
    assert cues[1][3].startswith("<i>") and cues[1][3].endswith("</i>")
    assert [line[:2] for line in cues[2][4:]] == ["- ", "- "]
    assert "(6 segments, 1 kept as they were (already Chinese)" in capsys.readouterr().err
