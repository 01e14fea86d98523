"""A Marian checkpoint folder (config.json + model.safetensors + tokenizer) installed without torch (issue 44).

The tiny Marian as transformers saves it is added with ``desktop-mt models add``: the encoder,
cross-K/V and decoder-step graphs are built from the state dict with numpy + onnx, and the
installed model's tokens equal transformers' generate() (greedy and beam 4). A child process
that cannot import torch does the same conversion. A folder with only pytorch_model.bin (a
pickle) and configurations the step graphs do not compute are refused by name.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from desktop_mt import GenerationOptions, Translator
from desktop_mt.engine.model_format import inspect_model_dir, verify_files
from desktop_mt.models.convert import ConversionRefused, checkpoint, find_checkpoint
from tests.conftest import load_torch
from tests.engine.test_parity import NO_BOUND, SENTENCES, hf_generate
from tests.models.test_download import ROOT, run_cli

HF_FILES = ("config.json", "generation_config.json", "model.safetensors", "source.spm", "target.spm", "vocab.json")


def checkpoint_folder(tiny_marian_hf: Path, out: Path) -> Path:
    """The files a Hub checkpoint repo holds (as Helsinki-NLP/opus-mt-* do), nothing else."""
    out.mkdir(parents=True)
    for name in HF_FILES:
        shutil.copy2(Path(tiny_marian_hf) / name, out / name)
    return out


@pytest.fixture(scope="module")
def added(tiny_marian_hf, tmp_path_factory):
    """The checkpoint added with `desktop-mt models add` into a fresh home."""
    base = tmp_path_factory.mktemp("checkpoint_add")
    folder = checkpoint_folder(tiny_marian_hf, base / "opus-mt-tiny")
    (base / "catalog.json").write_text(json.dumps({"models": []}), encoding="utf-8")
    env = {"DESKTOP_MT_HOME": str(base / "home"), "DESKTOP_MT_CATALOG": str(base / "catalog.json")}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        result = run_cli("models", "add", str(folder))
        listed = run_cli("models", "list")
    finally:
        for key, value in old.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return result, listed, base / "home" / "models" / "opus-mt-tiny", folder


def test_models_add_builds_the_step_layout_from_a_safetensors_checkpoint(added):
    result, listed, target, folder = added
    assert result.returncode == 0, result.stderr
    assert f"installed opus-mt-tiny in {target}" in result.stdout
    assert "opus-mt-tiny" in listed.stdout and "layout step" in listed.stdout, listed.stdout
    info = inspect_model_dir(target)
    assert info.manifest is not None and info.manifest["converted"]["by"] == "desktop_mt.models.convert.checkpoint"
    assert info.manifest["added_from"] == str(folder.resolve())
    assert info.int8_kind == "dynamic-per-row"
    for variant in ("fp32", "int8"):
        assert set(info.files[variant]) == {"encoder", "cross_kv", "decoder_step"}
        verify_files(info, variant)
        translator = Translator(target, variant=variant)
        assert translator.sessions is not None and translator.sessions.layout == "step"
        assert translator.batch_invariant
    assert sorted(p.name for p in folder.iterdir()) == sorted(HF_FILES)  # the user's folder is untouched


@pytest.mark.parametrize("beams", [1, 4])
def test_the_converted_checkpoint_gives_the_tokens_of_generate(added, tiny_marian_hf, beams):
    target = added[2]
    opts = GenerationOptions(beams=beams, **NO_BOUND)
    model, tokenizer = load_torch(tiny_marian_hf)
    want = hf_generate(model, tokenizer, SENTENCES, num_beams=beams)
    converted = Translator(target, variant="fp32")
    assert converted.generate_ids(SENTENCES, opts) == want
    for text, ids in zip(SENTENCES, want, strict=True):  # one by one too
        assert converted.generate_ids([text], opts) == [ids]


def test_the_conversion_imports_no_torch(tiny_marian_hf, tmp_path):
    """In a process where importing torch (or transformers) fails, the checkpoint converts and
    translates, and neither module was loaded."""
    folder = checkpoint_folder(tiny_marian_hf, tmp_path / "ckpt")
    script = textwrap.dedent(
        f"""
        import sys
        from importlib.abc import MetaPathFinder

        class NoTorch(MetaPathFinder):
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("torch", "transformers"):
                    raise ImportError("torch is not installed here: " + name)
                return None

        sys.meta_path.insert(0, NoTorch())
        from pathlib import Path
        from desktop_mt import Translator
        from desktop_mt.models.install import install_folder

        target = install_folder(Path({str(folder)!r}), Path({str(tmp_path / "models" / "m")!r}))
        assert Translator(target, variant="int8").translate("I love you.")
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "transformers")))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"


def test_a_pickle_only_checkpoint_is_refused_and_never_loaded(tiny_marian_hf, tmp_path, home):
    folder = checkpoint_folder(tiny_marian_hf, tmp_path / "old-repo")
    (folder / "model.safetensors").unlink()
    (folder / "pytorch_model.bin").write_bytes(b"not a pickle: reading it would fail loudly")
    result = run_cli("models", "add", str(folder))
    assert result.returncode == 1
    assert "pytorch_model.bin" in result.stderr and "pickle" in result.stderr and "model.safetensors" in result.stderr
    assert not (home / "models").exists() or not any((home / "models").iterdir())


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"normalize_before": True}, "normalizes before"),
        ({"activation_function": "gelu_new"}, "gelu_new"),
        ({"share_encoder_decoder_embeddings": False}, "share_encoder_decoder_embeddings"),
        ({"model_type": "bart"}, "'bart'"),
    ],
)
def test_configs_the_step_graphs_do_not_compute_are_refused_by_name(tiny_marian_hf, tmp_path, change, named):
    folder = checkpoint_folder(tiny_marian_hf, tmp_path / "variant")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps({**config, **change}), encoding="utf-8")
    with pytest.raises(ConversionRefused, match=named):
        checkpoint.install_checkpoint(folder, tmp_path / "staging")


def test_weights_that_do_not_match_the_config_are_refused(tiny_marian_hf, tmp_path):
    folder = checkpoint_folder(tiny_marian_hf, tmp_path / "wrong")
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    (folder / "config.json").write_text(json.dumps({**config, "decoder_ffn_dim": 128}), encoding="utf-8")
    with pytest.raises(ConversionRefused, match=r"does not match config.json: decoder.layers.0.fc1"):
        checkpoint.install_checkpoint(folder, tmp_path / "staging")


def test_positions_are_marians_sinusoids():
    """The tables newer transformers no longer save are computed as MarianSinusoidalPositionalEmbedding does."""
    import torch
    from transformers.models.marian.modeling_marian import MarianSinusoidalPositionalEmbedding

    for dim in (32, 33):
        module = MarianSinusoidalPositionalEmbedding(40, dim)
        with torch.no_grad():
            want = module.create_weight().numpy()
        assert (find_checkpoint.sinusoids(40, dim) == want).all()


def checkpoint_entry() -> dict:
    """A catalog entry pointing at a checkpoint repository (as Helsinki-NLP/opus-mt-* are)."""
    from tests.models.conftest import CHECKPOINT_COMMIT, CHECKPOINT_REPO

    return {
        "name": "tiny-checkpoint",
        "title": "Tiny test Marian (checkpoint)",
        "repo": CHECKPOINT_REPO,
        "revision": CHECKPOINT_COMMIT,
        "architecture": "marian",
        "source_lang": "en",
        "target_lang": "zh",
        "licence": "CC-BY-4.0",
        "attribution": "tests",
        "scores": "Tatoeba sample: 0.0 BLEU (a test model)",
        "variants": {v: {"files": {"checkpoint": "model.safetensors"}, "approx_bytes": 2000} for v in ("int8", "fp32")},
    }


def test_a_catalog_checkpoint_is_downloaded_and_built_without_torch(tiny_marian_hf, home, tmp_path, capsys):
    """The catalog's checkpoint entry: the state dict downloaded (verified by the Hub's hash), the
    step layout built at install; `models list` shows the entry's scores and the installed layout."""
    from desktop_mt.cli.main import main
    from desktop_mt.models import download_model
    from tests.models.conftest import CHECKPOINT_COMMIT, CHECKPOINT_REPO
    from tests.models.fake_hub import FakeHub

    catalog = tmp_path / "checkpoint-catalog.json"
    catalog.write_text(json.dumps({"models": [checkpoint_entry()]}), encoding="utf-8")
    os.environ["DESKTOP_MT_CATALOG"] = str(catalog)  # the home fixture's monkeypatch restores it
    server = FakeHub()
    server.add_repo(CHECKPOINT_REPO, CHECKPOINT_COMMIT, {n: (Path(tiny_marian_hf) / n).read_bytes() for n in HF_FILES})
    server.start()
    try:
        path = download_model("tiny-checkpoint", "int8", endpoint=server.url)
        again = download_model("tiny-checkpoint", "fp32", endpoint=server.url)  # both built already
    finally:
        server.stop()
    assert again == path
    info = inspect_model_dir(path)
    assert info.manifest is not None and info.manifest["download"]["repo"] == CHECKPOINT_REPO
    assert info.manifest["download"]["files"]["model.safetensors"]["sha256"]
    for variant in ("int8", "fp32"):
        verify_files(info, variant)
        assert Translator(path, variant=variant).sessions.layout == "step"
    model, tokenizer = load_torch(tiny_marian_hf)
    opts = GenerationOptions(beams=4, **NO_BOUND)
    want = hf_generate(model, tokenizer, SENTENCES, num_beams=4)
    assert Translator(path, variant="fp32").generate_ids(SENTENCES, opts) == want
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "Tatoeba sample: 0.0 BLEU" in out and "checkpoint: built at install" in out and "layout step" in out


def test_a_transformer_big_shaped_checkpoint_converts_exactly(tiny_marian_hf, tmp_path):
    """opus-mt-tc-big-* shapes differ in kind, not only size: relu, more heads, encoder and decoder
    of different depths and widths of feed-forward. A random checkpoint of that kind (small) built
    by transformers gives generate()'s tokens, greedy and beam 4."""
    import torch
    from transformers import MarianConfig, MarianMTModel, MarianTokenizer

    folder = checkpoint_folder(tiny_marian_hf, tmp_path / "big-like")
    base = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    config = MarianConfig(
        **{k: base[k] for k in ("vocab_size", "pad_token_id", "eos_token_id", "decoder_start_token_id")},
        decoder_vocab_size=base["vocab_size"],
        d_model=64,
        encoder_layers=3,
        decoder_layers=2,
        encoder_attention_heads=16,
        decoder_attention_heads=8,
        encoder_ffn_dim=256,
        decoder_ffn_dim=128,
        activation_function="relu",
        max_position_embeddings=64,
        scale_embedding=True,
        share_encoder_decoder_embeddings=True,
    )
    torch.manual_seed(1)
    model = MarianMTModel(config).eval()
    model.generation_config.max_length = 24
    model.save_pretrained(str(folder))  # model.safetensors and config.json replaced
    checkpoint.install_checkpoint(folder, tmp_path / "built")
    tokenizer = MarianTokenizer.from_pretrained(str(tiny_marian_hf))
    for beams in (1, 4):
        opts = GenerationOptions(beams=beams, **NO_BOUND)
        want = hf_generate(model, tokenizer, SENTENCES, num_beams=beams)
        assert Translator(tmp_path / "built", variant="fp32").generate_ids(SENTENCES, opts) == want
