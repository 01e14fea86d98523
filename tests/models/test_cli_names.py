"""`desktop-mt models` with names it cannot act on: said plainly, before anything else."""

from __future__ import annotations

import pytest

from desktop_mt.app.settings import remove_model
from desktop_mt.base.errors import ModelNotFoundError
from desktop_mt.cli import main as cli


def test_download_of_an_unknown_name_says_so_before_any_download_line(home, capsys):
    assert cli.main(["models", "download", "nonexist"]) == 1
    err = capsys.readouterr().err
    assert "no model 'nonexist' in the catalog (known: " in err
    assert "downloading" not in err and "huggingface" not in err


def test_remove_bundled_says_it_cannot_be_removed(home, capsys):
    assert cli.main(["models", "remove", "bundled"]) == 1
    err = capsys.readouterr().err
    assert "the bundled model ships with the app and cannot be removed" in err
    assert "no installed model" not in err
    with pytest.raises(ModelNotFoundError, match="cannot be removed"):
        remove_model("bundled")


def test_remove_of_an_unknown_name_still_names_the_models_folder(home, capsys):
    assert cli.main(["models", "remove", "nonexist"]) == 1
    assert f"no installed model 'nonexist' in {home / 'models'}" in capsys.readouterr().err
