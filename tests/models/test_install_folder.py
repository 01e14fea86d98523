"""A Marian folder in transformers.js's layout added by the user is installed and converted like
a catalog download (issue 32): the step layout with per-row int8, files verified by hash."""

from __future__ import annotations

from pathlib import Path

from desktop_mt import GenerationOptions, Translator
from desktop_mt.engine.model_format import inspect_model_dir, verify_files
from desktop_mt.models.install import install_folder
from tests.engine.test_parity import NO_BOUND, SENTENCES
from tests.models.test_convert import merged_repo, tiny_merged_export  # noqa: F401 - fixture used by name


def test_a_transformers_js_folder_is_installed_in_the_step_layout(tiny_merged_export, tmp_path):  # noqa: F811
    folder = tmp_path / "downloaded"
    for rel, data in merged_repo(tiny_merged_export).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    assert inspect_model_dir(folder).manifest is None
    target = install_folder(folder, tmp_path / "models" / "my-marian")
    info = inspect_model_dir(target)
    assert info.manifest is not None and info.manifest["converted"]["layout"] == "step"
    assert info.manifest["int8"]["kind"] == "dynamic-per-row"
    assert set(info.files["int8"]) == {"encoder", "cross_kv", "decoder_step"}
    for variant in ("int8", "fp32"):
        verify_files(info, variant)
    opts = GenerationOptions(**NO_BOUND)
    assert Translator(target, variant="fp32").generate_ids(SENTENCES, opts) == Translator(
        folder, variant="fp32"
    ).generate_ids(SENTENCES, opts)
    assert Translator(target, variant="int8").sessions.layout == "step"
    # the user's folder is left as it was
    assert not (folder / "desktop_mt.json").exists() and not (folder / "converted").exists()


def test_a_folder_of_ours_is_used_in_place(tiny_marian_dir, tmp_path):
    assert install_folder(Path(tiny_marian_dir), tmp_path / "models" / "x") == Path(tiny_marian_dir)
    assert not (tmp_path / "models").exists()


def test_models_add_installs_a_folder_and_list_shows_the_step_layout(tiny_merged_export, tmp_path, home):  # noqa: F811
    """`desktop-mt models add FOLDER`: the same install as the function, from the command line;
    a second add under the same name is refused with a message naming --name."""
    from tests.models.test_download import run_cli

    folder = tmp_path / "my-marian"
    for rel, data in merged_repo(tiny_merged_export).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    added = run_cli("models", "add", str(folder))
    assert added.returncode == 0, added.stderr
    target = home / "models" / "my-marian"
    assert f"installed my-marian in {target}" in added.stdout
    assert inspect_model_dir(target).manifest["converted"]["layout"] == "step"
    again = run_cli("models", "add", str(folder))
    assert again.returncode == 1 and "--name" in again.stderr
    missing = run_cli("models", "add", str(tmp_path / "nowhere"))
    assert missing.returncode == 1 and "is not a folder" in missing.stderr


def test_the_staging_folder_of_a_cut_off_add_is_removed_by_the_next(tiny_merged_export, tmp_path):  # noqa: F811
    """The app quit in the middle of a conversion (the Settings dialog's add runs on a daemon
    thread): its hidden staging folder goes at the next add once it is a day old; a recent one
    (another process adding now) stays."""
    import os
    import time

    from desktop_mt.models.install import STALE_STAGING_S

    models = tmp_path / "models"
    old, recent = models / ".other.adding-0000aaaa", models / ".other.adding-0000bbbb"
    for path in (old, recent):
        (path / "onnx").mkdir(parents=True)
        (path / "onnx" / "encoder_model.onnx").write_bytes(b"partly copied")
    day_ago = time.time() - STALE_STAGING_S - 60
    os.utime(old, (day_ago, day_ago))
    folder = tmp_path / "downloaded"
    for rel, data in merged_repo(tiny_merged_export).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    install_folder(folder, models / "my-marian")
    assert sorted(p.name for p in models.iterdir()) == [".other.adding-0000bbbb", "my-marian"]


def test_added_before_finds_the_installed_model_not_a_staging_folder(tmp_path):
    """An add still running (or cut off by a quit) has a hidden staging folder whose manifest
    already says where it came from: it is not a model to select, the finished one is."""
    import json

    from desktop_mt.engine.model_format import MANIFEST
    from desktop_mt.models.install import added_before

    folder, models = tmp_path / "downloaded", tmp_path / "models"
    folder.mkdir()
    staging = models / ".my-marian.adding-0000aaaa"
    staging.mkdir(parents=True)
    (staging / MANIFEST).write_text(json.dumps({"added_from": str(folder.resolve())}))
    assert added_before(folder, models) is None
    (models / "my-marian").mkdir()
    (models / "my-marian" / MANIFEST).write_text(json.dumps({"added_from": str(folder.resolve())}))
    assert added_before(folder, models) == models / "my-marian"
    assert added_before(tmp_path / "elsewhere", models) is None


def test_a_running_add_of_an_old_folder_is_not_taken_for_a_cut_off_one(tiny_merged_export, tmp_path, monkeypatch):  # noqa: F811
    """The user's folder was downloaded weeks ago: its staging copy must not carry that age, or
    an add started meanwhile (another process) would remove it as a cut-off add's."""
    import os
    import time

    from desktop_mt.models import install
    from desktop_mt.models.install import STALE_STAGING_S

    folder, models = tmp_path / "downloaded", tmp_path / "models"
    for rel, data in merged_repo(tiny_merged_export).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(data)
    weeks_ago = time.time() - 3 * STALE_STAGING_S
    os.utime(folder, (weeks_ago, weeks_ago))
    models.mkdir()
    removed: list[Path] = []
    sha256_file = install.sha256_file

    def another_add_starts(path: Path) -> str:  # while the copy's files are hashed (seconds for 455 MB)
        removed.extend(install.remove_stale_staging(models))
        return sha256_file(path)

    monkeypatch.setattr(install, "sha256_file", another_add_starts)
    target = install_folder(folder, models / "my-marian")
    assert removed == []
    assert inspect_model_dir(target).manifest["converted"]["layout"] == "step"
