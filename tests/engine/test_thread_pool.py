"""One ONNX Runtime thread pool for the process (``runtime.share_thread_pool``): what the
``desktop-mt`` command and the window run on. It is process-wide and ORT cannot undo it, so every
case that turns it on runs in a child process; this test process keeps a pool per session."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import onnxruntime as ort
import pytest

from desktop_mt.base.errors import ModelNotFoundError
from desktop_mt.cli import main as cli
from desktop_mt.engine import runtime
from desktop_mt.engine.options import SessionOptions

# Translates with the bundled model, greedy and beam 4 (the search's small sessions too), and
# prints the tokens and the process's OS threads once every session exists.
CHILD = textwrap.dedent(
    """
    import json, os, sys
    from desktop_mt.engine import runtime
    shared = runtime.share_thread_pool(2) if sys.argv[1] == "shared" else None
    from desktop_mt import GenerationOptions, SessionOptions, Translator
    from desktop_mt.engine.model_format import bundled_model_dir
    t = Translator(bundled_model_dir(), session_options=SessionOptions(intra_op_threads=2))
    lines = ["I love you.", "Where is the train station?", "He has three cats and a dog."]
    out = [t.translate(s, GenerationOptions(beams=b)) for b in (1, 4) for s in lines]
    tasks = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else None
    print(json.dumps({"out": out, "threads": tasks, "pool": runtime.shared_thread_pool(), "set": shared}))
    """
)


def run_child(code: str, *args: str) -> str:
    """Run ``code`` in a fresh interpreter (the shared pool cannot be undone); its stdout."""
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ignored when using a global thread pool" not in done.stderr  # no thread counts set on shared sessions
    return done.stdout


def child(mode: str) -> dict:
    result: dict = json.loads(run_child(CHILD, mode).strip().splitlines()[-1])
    return result


needs_shared_pools = pytest.mark.skipif(
    not hasattr(ort, "set_global_thread_pool_sizes"), reason="onnxruntime < 1.23 cannot share a thread pool"
)


@needs_shared_pools
def test_a_shared_pool_translates_the_same_with_fewer_threads():
    own, shared = child("own"), child("shared")
    assert shared["out"] == own["out"] and all(own["out"])
    assert (own["pool"], shared["pool"], shared["set"]) == (None, 2, 2)
    if own["threads"] is not None:
        # A pool per session: a worker thread for each session with 2 threads (encoder, cross
        # K/V, decoder step, the beam search's small sessions); shared: one for all.
        assert own["threads"] - shared["threads"] >= 2, (own["threads"], shared["threads"])


@needs_shared_pools
def test_the_first_call_decides_the_size_and_sessions_follow_it():
    code = textwrap.dedent(
        """
        from desktop_mt.engine import runtime
        from desktop_mt.engine.options import SessionOptions
        before = runtime.ort_session_options(SessionOptions(intra_op_threads=3)).use_per_session_threads
        sizes = [runtime.share_thread_pool(2), runtime.share_thread_pool(4)]
        after = runtime.ort_session_options(SessionOptions(intra_op_threads=3)).use_per_session_threads
        print(before, sizes, runtime.shared_thread_pool(), after)
        """
    )
    assert run_child(code).split() == ["True", "[2,", "2]", "2", "False"]


@needs_shared_pools
def test_pools_made_by_other_code_first_are_used():
    """ORT refuses a second setting and any session with a pool of its own once global pools exist."""
    code = textwrap.dedent(
        """
        import onnxruntime
        onnxruntime.set_global_thread_pool_sizes(2, 1)  # another library in the same process
        from desktop_mt.engine import runtime
        from desktop_mt import Translator
        from desktop_mt.engine.model_format import bundled_model_dir
        print(runtime.share_thread_pool(3), bool(Translator(bundled_model_dir()).translate("I love you.")))
        """
    )
    assert run_child(code).split() == ["3", "True"]


def test_sessions_keep_their_own_pools_unless_the_process_shares_one():
    assert runtime.shared_thread_pool() is None  # nothing in the test process turns it on
    so = runtime.ort_session_options(SessionOptions(intra_op_threads=3), inter_op_threads=1)
    assert (so.intra_op_num_threads, so.inter_op_num_threads) == (3, 1)


def refuse(*_args, **_kwargs):
    raise ModelNotFoundError("no model in this test")


@pytest.mark.parametrize(
    ("argv", "share", "expected"),
    [
        (["translate", "--threads", "3", "IN"], True, [3]),
        (["translate", "IN"], True, [0]),
        (["translate", "--threads", "3", "IN"], False, []),  # a program calling main() owns no process
        (["models", "list"], True, []),  # runs no model
    ],
)
def test_the_command_shares_a_pool_of_its_threads(monkeypatch, tmp_path, argv, share, expected):
    calls: list[int] = []
    monkeypatch.setattr(runtime, "share_thread_pool", lambda threads=0: calls.append(threads) or threads)
    monkeypatch.setattr(cli, "build_translator", refuse)  # the pool is decided before any model loads
    src = tmp_path / "in.txt"
    src.write_text("Hi.\n", encoding="utf-8")
    cli.main([str(src) if a == "IN" else a for a in argv], share_threads=share)
    assert calls == expected


def test_the_console_command_owns_its_process(monkeypatch):
    seen: list[dict] = []
    monkeypatch.setattr(cli, "main", lambda argv=None, **kw: seen.append(kw) or 0)
    assert cli.entry() == 0
    assert seen == [{"share_threads": True}]
