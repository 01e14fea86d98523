"""The catalog's int8 is built at install from the fp32 files (issue 32): a download through the
stand-in Hub ends with the step layout and per-row int8 active, shown in `models list` and the
Models dialog's backend; a download the converter refuses still gives a working int8 choice."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from desktop_mt import Translator
from desktop_mt.models import download_model, list_installed, load_catalog
from tests.models.conftest import catalog_entry
from tests.models.test_convert import (  # noqa: F401 - fixtures used by name
    check_converted,
    merged_entry,
    merged_hub,
    tiny_merged_export,
)
from tests.models.test_download_rules import models_cli


def built_entry(entry: dict) -> dict:
    """``entry`` with the shipped catalog's int8: the fp32 files, built at install."""
    fp32 = entry["variants"]["fp32"]
    entry["variants"]["int8"] = {"files": dict(fp32["files"]), "built_from": "fp32", "approx_bytes": 3000}
    return entry


def use_catalog(home: Path, entry: dict) -> None:
    import os

    catalog = Path(str(home) + "-built-catalog.json")
    catalog.write_text(json.dumps({"models": [entry]}), encoding="utf-8")
    os.environ["DESKTOP_MT_CATALOG"] = str(catalog)  # the home fixture's monkeypatch restores it


def test_the_shipped_catalog_builds_int8_from_the_fp32_files():
    for entry in load_catalog():
        if entry.repo.startswith("Xenova/opus-mt-"):
            int8, fp32 = entry.variants["int8"], entry.variants["fp32"]
            assert int8.built_from == "fp32" and int8.files == fp32.files and int8.int8_kind is None


@pytest.mark.parametrize("layout", ["split", "merged"])
def test_a_catalog_int8_download_ends_in_the_step_layout(layout, home, capsys, request):
    from desktop_mt.gui.features.models import StoreBackend

    server = request.getfixturevalue("hub" if layout == "split" else "merged_hub")
    entry = built_entry(catalog_entry() if layout == "split" else merged_entry())
    use_catalog(home, entry)
    path = download_model(entry["name"], "int8", endpoint=server.url)
    manifest = check_converted(path)
    # The downloaded files are the fp32 variant, verified by the Hub's hashes; nothing else was fetched.
    fp32 = manifest["variants"]["fp32"]["files"]
    assert {spec["file"] for spec in fp32.values()} == set(entry["variants"]["fp32"]["files"].values())
    assert not any("_quantized" in f for f in manifest["download"]["files"])
    assert Translator(path, variant="fp32").translate("I love you.")
    (model,) = list_installed()
    assert model.layout == "step" and model.layout_text.startswith("step (built at install")
    assert models_cli("list") == 0
    assert "layout step (built at install from the downloaded weights)" in capsys.readouterr().out
    item = next(i for i in StoreBackend().installed() if i.name == entry["name"])
    assert item.layout == model.layout_text
    # Asking again finds it installed (no second download, no second conversion).
    seconds = manifest["converted"]["seconds"]
    assert download_model(entry["name"], "int8", endpoint=server.url) == path
    assert json.loads((path / "desktop_mt.json").read_text())["converted"]["seconds"] == seconds


def test_a_refused_build_leaves_a_working_int8_choice(hub, home, monkeypatch):
    from desktop_mt.models import convert

    def refuse(*args: object, **kwargs: object) -> None:
        raise convert.ConversionRefused("not this graph")

    monkeypatch.setattr(convert, "convert_model_dir", refuse)
    entry = built_entry(catalog_entry())
    use_catalog(home, entry)
    path = download_model(entry["name"], "int8", endpoint=hub.url)
    manifest = json.loads((path / "desktop_mt.json").read_text())
    assert manifest["converted"] == {"refused": "not this graph"}
    assert manifest["variants"]["int8"] == manifest["variants"]["fp32"] and "int8" not in manifest
    assert Translator(path, variant="int8").translate("I love you.")
    (model,) = list_installed()
    assert "not converted: not this graph" in model.layout_text
