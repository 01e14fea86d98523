"""Translator behaviour: streaming, cancellation, awkward input, model-directory errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading

import pytest

from desktop_mt import (
    Finished,
    GenerationOptions,
    ModelFormatError,
    ModelNotFoundError,
    ProviderUnavailableError,
    SegmentDone,
    SessionOptions,
    TextDelta,
    TranslationCancelled,
    Translator,
    UnsupportedModelError,
)
from desktop_mt.engine.model_format import MANIFEST, inspect_model_dir
from desktop_mt.engine.testing import CountingSessions

TEXT = "I love you. Where is the train station?\n\nTom is here.\n  It's raining.  "


@pytest.fixture(scope="module")
def translator(tiny_marian_dir):
    return Translator(tiny_marian_dir, variant="fp32", options=GenerationOptions(beams=1))


def test_stream_joins_to_translate_and_keeps_layout(translator):
    events = list(translator.translate_stream(TEXT))
    deltas = [e for e in events if isinstance(e, TextDelta)]
    joined = "".join(e.text for e in deltas)
    assert joined == translator.translate(TEXT)
    assert joined.count("\n") == 3 and "\n\n" in joined
    assert joined.startswith(joined.split("\n")[0]) and "\n  " in joined and joined.endswith("  ")
    assert len([e for e in deltas if e.segment >= 0]) > 4  # token by token, not whole sentences
    assert all("▁" not in e.text and "\ufffd" not in e.text for e in deltas)
    done = [e for e in events if isinstance(e, SegmentDone)]
    assert [d.source for d in done] == ["I love you.", "Where is the train station?", "Tom is here.", "It's raining."]
    assert isinstance(events[-1], Finished) and events[-1].stats.segments == 4
    assert events[-1].stats.tokens == sum(d.tokens for d in done) and events[-1].stats.first_token_seconds > 0


def test_beam_stream_joins_to_beam_translation(tiny_marian_dir):
    t = Translator(tiny_marian_dir, variant="fp32", options=GenerationOptions(beams=4))
    events = list(t.translate_stream(TEXT))
    deltas = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(deltas) == t.translate(TEXT)
    assert len(deltas) > 4
    for done in (e for e in events if isinstance(e, SegmentDone)):  # the whole beam result, not a prefix
        raw = t.tokenizer.decode(t.generate_ids([done.source])[0]).strip()
        assert done.translation == t.text.finish_text(raw, t.options)  # after the punctuation pass ("?" -> "？")


@pytest.mark.parametrize("beams", [1, 4])
def test_cancel_stops_within_one_step(tiny_marian_dir, beams):
    t = Translator(tiny_marian_dir, variant="fp32", options=GenerationOptions(beams=beams))
    cancel = threading.Event()
    counting = CountingSessions(t.sessions, on_step=lambda n: cancel.set() if n == 3 else None)
    t.sessions = counting
    events = list(
        t.translate_stream("Tom said that he would come back tomorrow, but nobody believed him. " * 3, cancel=cancel)
    )
    assert counting.steps == 3  # the flag was set during step 3; no step ran after it
    assert isinstance(events[-1], Finished) and events[-1].stats.cancelled
    with pytest.raises(TranslationCancelled):
        t.translate("Hello there.", cancel=cancel)


def test_closing_the_stream_stops_generation(tiny_marian_dir):
    t = Translator(tiny_marian_dir, variant="fp32", options=GenerationOptions(beams=1))
    counting = CountingSessions(t.sessions)
    t.sessions = counting
    stream = t.translate_stream("Tom said that he would come back tomorrow, but nobody believed him.")
    next(e for e in stream if isinstance(e, TextDelta))
    steps = counting.steps
    stream.close()
    assert counting.steps == steps


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "\n\n",
        "\t \r\n ",
        "a" * 50_000,
        ("The cat sat on the mat. " * 2100)[:50_000],
        "Hello\x00world\x07 \x1b[31mred\x1b[0m",
        "I ❤️ you 😀🎉 👩‍👩‍👧",
        "Tokyo 東京 Москва مرحبا שלום नमस्ते",
        "\ud800 lone surrogate",
        "\u200b\u200e\ufeff zero width",
        "ＦＵＬＬＷＩＤＴＨ ｔｅｘｔ",
    ],
)
def test_awkward_input_never_raises(translator, text):
    out = translator.translate(text, GenerationOptions(beams=1, max_length=8))
    assert isinstance(out, str)
    assert out.count("\n") == text.replace("\r\n", "\n").count("\n") + text.replace("\r\n", "").count("\r")
    if not text.strip():
        assert out == text


def test_output_bounded_relative_to_input(translator):
    """A degenerate loop cannot run to the model's max_length on a short input."""
    ids = translator.generate_ids(["Hi."], GenerationOptions(beams=1, max_length_ratio=1.0, max_length_offset=2))
    n_src = len(translator.tokenizer.encode("Hi."))
    assert len(ids[0]) <= n_src + 2


def test_translate_batch_equals_one_by_one(translator):
    lines = ["I love you.", "", "Where is the train station? It's far.", "I love you.", "   ", "Hi."]
    calls = []
    batch = translator.translate_batch(lines, progress=lambda d, n: calls.append((d, n)))
    assert batch == [translator.translate(line).strip() for line in lines]
    assert batch[1] == "" and batch[4] == "" and batch[0] == batch[3]
    assert calls[-1] == (6, 6)
    assert calls == [(d, 6) for d in range(1, 7)]  # once per line


def test_translate_batch_reports_lines_as_their_batches_finish(tiny_marian_dir):
    """Progress comes as batches finish, not after all decoding: with batch_size 2 and six
    distinct sentences (three batches) lines are reported while decoder steps are still to
    come; blank lines are reported before any step."""
    t = Translator(tiny_marian_dir, variant="fp32", options=GenerationOptions(beams=1), batch_size=2)
    counting = CountingSessions(t.sessions)
    t.sessions = counting
    lines = [
        "",
        "I love you.",
        "Where is the train station?",
        "Tom is here.",
        "It's raining.",
        "Hi. How are you?",
        "   ",
    ]
    calls: list[tuple[int, int, int]] = []
    out = t.translate_batch(lines, progress=lambda d, n: calls.append((d, n, counting.steps)))
    assert [(d, n) for d, n, _ in calls] == [(d, 7) for d in range(1, 8)]
    assert calls[0][2] == 0 and calls[1][2] == 0  # the blank lines: before any decoder step
    steps = sorted({s for _, _, s in calls[2:]})
    assert len(steps) >= 2 and steps[0] < steps[-1] == counting.steps  # reported as batches end
    assert out == [t.translate(line).strip() for line in lines]


def test_int8_variant_close_and_smaller(tiny_marian_dir):
    manifest = json.loads((tiny_marian_dir / MANIFEST).read_text())
    v = manifest["validation"]
    assert v["fp32"]["max_abs_logit_diff"] < 1e-4
    assert 0 < v["int8"]["max_abs_logit_diff"] < 1.0  # int8 logits stay close to fp32 (logit std ~ 3)
    size = {k: sum(f["bytes"] for f in e["files"].values()) for k, e in manifest["variants"].items()}
    # d_model 32: biases, norms and graph overhead weigh a lot here (the bundled model is ~0.32).
    assert size["int8"] < 0.7 * size["fp32"]
    t8 = Translator(tiny_marian_dir, variant="int8")
    assert isinstance(t8.translate("I love you."), str)


def test_int8_quantizes_the_tied_output_projection(tiny_marian_dir):
    import onnx

    model = onnx.load(str(tiny_marian_dir / "decoder_with_past_model_quantized.onnx"))
    vocab = json.loads((tiny_marian_dir / "config.json").read_text())["vocab_size"]
    inits = {i.name: i for i in model.graph.initializer}
    float_mats = [
        i
        for i in model.graph.initializer
        if i.data_type == onnx.TensorProto.FLOAT and vocab in i.dims and len(i.dims) == 2 and min(i.dims) > 1
    ]
    int8_mats = [i for i in inits.values() if i.data_type == onnx.TensorProto.INT8 and vocab in i.dims]
    assert not float_mats, "an fp32 [d_model x vocab] matrix (the lm_head) was left unquantized"
    assert int8_mats


def test_optimum_and_transformers_js_layouts_load_and_match(tiny_marian_dir, tmp_path, translator):
    expected = translator.translate(TEXT)
    optimum = tmp_path / "optimum"
    shutil.copytree(tiny_marian_dir, optimum)
    (optimum / MANIFEST).unlink()
    assert Translator(optimum, variant="fp32", options=GenerationOptions(beams=1)).translate(TEXT) == expected
    tjs = tmp_path / "tjs"
    shutil.copytree(optimum, tjs)
    (tjs / "onnx").mkdir()
    for f in tjs.glob("*.onnx"):
        f.rename(tjs / "onnx" / f.name)
    info = inspect_model_dir(tjs)
    assert info.variants == ("int8", "fp32")
    assert Translator(tjs, variant="fp32", options=GenerationOptions(beams=1)).translate(TEXT) == expected


def test_missing_and_corrupt_files_name_the_file(tiny_marian_dir, tmp_path):
    with pytest.raises(ModelNotFoundError, match="does not exist"):
        Translator(tmp_path / "nowhere")
    broken = tmp_path / "broken"
    shutil.copytree(tiny_marian_dir, broken)
    enc = broken / "encoder_model.onnx"
    enc.write_bytes(enc.read_bytes()[:1000])
    with pytest.raises(ModelFormatError, match="encoder_model.onnx"):
        Translator(broken, variant="fp32")
    (broken / "decoder_model.onnx").unlink()
    with pytest.raises(ModelNotFoundError, match="decoder_model.onnx"):
        Translator(broken, variant="fp32")
    (broken / "config.json").write_text("{not json")
    with pytest.raises(ModelFormatError, match="config.json"):
        Translator(broken)


def test_unsupported_architecture_and_provider(tiny_marian_dir, tmp_path):
    other = tmp_path / "bert"
    shutil.copytree(tiny_marian_dir, other)
    cfg = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**cfg, "model_type": "bert"}))
    with pytest.raises(UnsupportedModelError, match="marian"):
        Translator(other)
    with pytest.raises(ProviderUnavailableError, match="available: .*cpu"):
        Translator(tiny_marian_dir, session_options=SessionOptions(provider="cuda"))


def test_engine_imports_neither_torch_nor_qt(tiny_marian_dir):
    code = (
        "import sys, desktop_mt, desktop_mt.cli.main\n"
        f"t = desktop_mt.Translator({str(tiny_marian_dir)!r})\n"
        "assert t.translate('I love you.')\n"
        "bad = [m for m in ('torch', 'PySide6', 'transformers') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_thread_settings_reach_sessions(tiny_marian_dir):
    t = Translator(
        tiny_marian_dir, variant="int8", session_options=SessionOptions(intra_op_threads=1, inter_op_threads=1)
    )
    assert t.sessions.providers == ["CPUExecutionProvider"]
    for session in (t.sessions.encoder, t.sessions.decoder, t.sessions.decoder_with_past):
        opts = session.get_session_options()
        assert (opts.intra_op_num_threads, opts.inter_op_num_threads) == (1, 1)


@pytest.mark.parametrize("beams", [1, 4])
def test_one_translator_serves_several_threads_at_once(tiny_marian_dir, beams):
    """docs/ENGINE_API.md: one Translator may be used from several threads at once (ORT's
    run() is thread-safe; searches, caches and decoders are per call). 4 threads translating
    different lines, streamed and batched, from a start barrier: the outputs are those of a
    sequential run. A fresh Translator, so the tiny log-softmax / row-top sessions are first
    made while the threads race."""
    t = Translator(tiny_marian_dir, variant="fp32", options=GenerationOptions(beams=beams))
    lines = [
        "I love you. Where is the train station?",
        "Tom is here.\n\nIt's raining.",
        "Tom said that he would come back tomorrow, but nobody believed him.",
        "Hi. How are you?",
    ] * 2
    start = threading.Barrier(4)
    results: dict[tuple[str, int], object] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            start.wait(timeout=30)
            for i in range(k, len(lines), 4):
                streamed = "".join(e.text for e in t.translate_stream(lines[i]) if isinstance(e, TextDelta))
                results[("stream", i)] = streamed
            results[("batch", k)] = t.translate_batch(lines[k::4])
            results[("alternatives", k)] = [a.text for a in t.alternatives(lines[k].split(".")[0] + ".", 2)]
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not errors, errors
    sequential = Translator(tiny_marian_dir, variant="fp32", options=GenerationOptions(beams=beams))
    for i, line in enumerate(lines):
        assert results[("stream", i)] == sequential.translate(line), line
    for k in range(4):
        assert results[("batch", k)] == sequential.translate_batch(lines[k::4])
        alternatives = sequential.alternatives(lines[k].split(".")[0] + ".", 2)
        assert results[("alternatives", k)] == [a.text for a in alternatives]
