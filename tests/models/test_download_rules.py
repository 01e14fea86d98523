"""Downloads tried as a new user would (issue 32): a trickling mirror meets the stall rule and
resumes, every request a download makes is known and telemetry is off, speed and time left are
shown; the catalog's Chinese->English model downloads like the English->Chinese one (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_mt.app.settings import get_active, set_active
from desktop_mt.base.errors import ModelDownloadError
from desktop_mt.models import DownloadProgress, download_model, list_installed, load_catalog
from tests.models.conftest import COMMIT, REPO, catalog_entry

TRICKLED = "onnx/decoder_model_quantized.onnx"


def test_a_trickling_mirror_stalls_with_a_clear_error_and_a_rerun_resumes(hub, home, tiny_marian_dir):
    hub.trickle[TRICKLED] = 0.05  # a byte every 50 ms: ~20 B/s, far below the rule's floor
    with pytest.raises(ModelDownloadError) as failed:
        download_model("tiny", endpoint=hub.url, stall_seconds=0.5)
    message = str(failed.value)
    assert "stalled" in message and hub.url in message and TRICKLED in message
    assert "resume" in message and "mirror" in message and "HF_ENDPOINT" in message  # how to choose another
    part = home / "models" / ".downloads" / "tiny" / (TRICKLED + ".part")
    kept = part.stat().st_size
    assert list_installed() == []  # nothing half installed

    hub.trickle.clear()  # the mirror is fine again: the rerun continues where it stopped
    path = download_model("tiny", endpoint=hub.url)
    assert hub.gets(TRICKLED)[-1] == (f"bytes={kept}-" if kept else None)
    assert (path / TRICKLED).read_bytes() == (tiny_marian_dir / Path(TRICKLED).name).read_bytes()


def test_a_download_makes_only_the_listed_requests_and_no_telemetry(hub, home, tmp_path, monkeypatch):
    import huggingface_hub.constants as hf_constants
    from huggingface_hub.utils import _detect_agent, build_hf_headers

    # Telemetry on, as huggingface_hub starts, with its endpoint pointing at the stand-in Hub so
    # that anything it fetches on its own is logged there too.
    monkeypatch.delenv("HF_HUB_DISABLE_TELEMETRY", raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_DISABLE_TELEMETRY", False)
    monkeypatch.setattr(hf_constants, "ENDPOINT", hub.url)
    monkeypatch.setattr(
        hf_constants, "HUGGINGFACE_CO_URL_TEMPLATE", hub.url + "/{repo_id}/resolve/{revision}/{filename}"
    )
    monkeypatch.setattr(hf_constants, "AGENT_HARNESSES_PATH", str(tmp_path / "agent_harnesses.json"))
    monkeypatch.setattr(_detect_agent, "_registry", None)
    build_hf_headers()  # the control: huggingface_hub's own telemetry fetch shows in the log
    assert ("GET", "/api/agent-harnesses", None) in hub.requests
    hub.requests.clear()
    hub.user_agents.clear()
    monkeypatch.setattr(_detect_agent, "_registry", None)

    download_model("tiny", endpoint=hub.url)
    routes = {
        (method, path.split("/resolve/")[0] + ("/resolve" if "/resolve/" in path else ""))
        for method, path, _ in hub.requests
    }
    assert routes == {
        ("GET", f"/api/models/{REPO}/revision/{COMMIT}"),
        ("HEAD", f"/{REPO}/resolve"),
        ("GET", f"/{REPO}/resolve"),
    }  # (the checkpoint repository's listing and files too when the repo lacks the tokenizer)
    assert not any("agent-harnesses" in path for _, path, _ in hub.requests)
    for agent in hub.user_agents:
        assert agent.startswith("desktop-mt/") and "torch/" not in agent and "agent/" not in agent


def test_progress_reports_speed_and_time_left_and_the_cli_shows_them(capsys):
    from desktop_mt.cli.models import _Progress

    report = DownloadProgress("downloading", 20_000_000, 80_000_000, "onnx/encoder.onnx", 4_000_000.0)
    assert report.eta == 15.0 and DownloadProgress("downloading", 1, 2).eta is None
    progress = _Progress()
    progress.tty = False
    progress(report)
    assert "4.0 MB/s, 15 s left" in capsys.readouterr().err


# ---- the Chinese->English model downloads like the English->Chinese one (issue 26) -------------
def test_shipped_zh_en_entry_is_shaped_like_the_en_zh_one(monkeypatch):
    monkeypatch.delenv("DESKTOP_MT_CATALOG", raising=False)
    entries = {e.name: e for e in load_catalog()}
    en_zh, zh_en = entries["opus-mt-en-zh"], entries["opus-mt-zh-en"]
    assert (zh_en.source_lang, zh_en.target_lang) == ("zh", "en") and zh_en.repo == "Xenova/opus-mt-zh-en"
    assert set(zh_en.variants) == set(en_zh.variants)
    for variant in en_zh.variants:
        assert set(zh_en.variants[variant].files) == set(en_zh.variants[variant].files)
    assert zh_en.licence == en_zh.licence and zh_en.attribution and zh_en.tokenizer_fallback


@pytest.fixture
def zh_en_catalog(home, tmp_path, monkeypatch):
    """The tiny repo also offered as a Chinese->English catalog model (its manifest says so)."""
    zh_en = {**catalog_entry("tiny-zh-en"), "source_lang": "zh", "target_lang": "en"}
    path = tmp_path / "catalog2.json"
    path.write_text(json.dumps({"models": [catalog_entry(), zh_en]}), encoding="utf-8")
    monkeypatch.setenv("DESKTOP_MT_CATALOG", str(path))
    return path


def models_cli(*args: str) -> int:
    """``desktop-mt models ARGS`` through its own parser (what cli.main dispatches to)."""
    import argparse

    from desktop_mt.cli.models import add_models_parser

    parser = argparse.ArgumentParser(prog="desktop-mt")
    add_models_parser(parser.add_subparsers(dest="command"))
    parsed = parser.parse_args(["models", *args])
    return int(parsed.func(parsed))


def test_a_zh_en_catalog_model_downloads_and_is_listed_and_chosen_per_direction(hub, home, zh_en_catalog, capsys):
    download_model("tiny", endpoint=hub.url)
    download_model("tiny-zh-en", endpoint=hub.url)
    assert {m.name: m.direction for m in list_installed()} == {"tiny": "en-zh", "tiny-zh-en": "zh-en"}
    assert set_active("tiny-zh-en") == "zh-en"
    assert get_active("zh-en") == "tiny-zh-en" and get_active("en-zh") == ""
    assert models_cli("list") == 0
    out = capsys.readouterr().out
    en_zh, zh_en = out.index("English → Chinese (en-zh):"), out.index("Chinese → English (zh-en):")
    assert en_zh < out.index("  tiny ", en_zh) < zh_en < out.index("* tiny-zh-en", zh_en)
    bundled_en_zh = out[en_zh:zh_en].splitlines()[1]
    assert bundled_en_zh.startswith("* bundled")  # the demo is still the active en-zh model
    assert "layout split" in out or "layout step" in out  # as downloaded, or as models.convert rebuilt it
    assert models_cli("use", "tiny") == 0 and get_active("en-zh") == "tiny"
    assert models_cli("use", "bundled", "--direction", "zh-en") == 0 and get_active("zh-en") == ""


def test_a_download_the_converter_rebuilds_shows_the_step_layout(hub, home, capsys):
    """The fastest layout, built at install by models.convert, is what the list and the dialog show."""
    from desktop_mt.gui.features.models import StoreBackend

    download_model("tiny", "fp32", endpoint=hub.url)
    (model,) = list_installed()
    assert model.layout == "step" and model.layout_text.startswith("step (built at install")
    assert models_cli("list") == 0
    assert "layout step (built at install from the downloaded weights)" in capsys.readouterr().out
    item = next(i for i in StoreBackend().installed() if i.name == "tiny")
    assert item.layout == model.layout_text and item.direction == "en-zh"
