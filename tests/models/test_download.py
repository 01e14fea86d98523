"""Downloads from a local fake Hub: install, resume, verification, errors, CLI.

Nothing here reaches the real Hub: every endpoint is the FakeHub on 127.0.0.1 (or a closed port).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from desktop_mt import Translator
from desktop_mt.app.settings import (
    active_model_dir,
    get_active,
    remove_model,
    resolve_endpoint,
    set_active,
    set_endpoint_setting,
)
from desktop_mt.base.errors import (
    DesktopMTError,
    DownloadCancelled,
    DownloadVerificationError,
    HubUnreachableError,
    ModelNotFoundError,
    NotEnoughSpaceError,
)
from desktop_mt.models import download_model, list_installed
from tests.models.conftest import CHECKPOINT_REPO, COMMIT, REPO, TOKENIZER, repo_files

ROOT = Path(__file__).resolve().parents[2]
INT8 = [
    "onnx/encoder_model_quantized.onnx",
    "onnx/decoder_model_quantized.onnx",
    "onnx/decoder_with_past_model_quantized.onnx",
]
SENTENCES = ["I love you.", "Where is the train station?", "It's raining again."]


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "desktop_mt", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=dict(os.environ),
    )


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def test_cli_download_resumes_a_dropped_connection_installs_and_translates(hub, home, tiny_marian_dir):
    hub.drop_after["onnx/decoder_model_quantized.onnx"] = 2000  # the server hangs up mid-file once
    result = run_cli("models", "download", "tiny", "--endpoint", hub.url)
    assert result.returncode == 0, result.stderr
    assert "downloading onnx/decoder_model_quantized.onnx" in result.stderr
    # huggingface_hub's http_get asked again (from its last whole 10 MB chunk: here byte 0, see
    # test_a_dropped_connection_continues_with_a_range_request for the Range request)
    assert len(hub.gets("onnx/decoder_model_quantized.onnx")) == 2
    # only the int8 variant (plus config and tokenizer) was fetched
    assert hub.gets("onnx/encoder_model.onnx") == [] and hub.gets("README.md") == []
    target = home / "models" / "tiny"
    for path in INT8:
        assert (target / path).read_bytes() == (tiny_marian_dir / Path(path).name).read_bytes(), path
    assert not (home / "models" / ".downloads" / "tiny").exists()
    manifest = json.loads((target / "desktop_mt.json").read_text(encoding="utf-8"))
    assert manifest["download"]["revision"] == COMMIT and list(manifest["variants"]) == ["int8"]

    listing = run_cli("models", "list")
    assert listing.returncode == 0, listing.stderr
    assert "tiny" in listing.stdout and "installed: int8" in listing.stdout
    assert f"{REPO}@{COMMIT[:12]}" in listing.stdout

    out = run_cli("translate", "--model", "tiny", stdin="\n".join(SENTENCES) + "\n")
    assert out.returncode == 0, out.stderr
    expected = [Translator(tiny_marian_dir, variant="int8").translate(s) for s in SENTENCES]
    assert out.stdout.splitlines() == expected


def test_cli_rejects_a_corrupted_file_and_installs_nothing(hub, home):
    hub.corrupt.add("onnx/encoder_model_quantized.onnx")
    result = run_cli("models", "download", "tiny", "--endpoint", hub.url)
    assert result.returncode == 1
    assert "onnx/encoder_model_quantized.onnx" in result.stderr and "sha256" in result.stderr
    assert "nothing was installed" in result.stderr
    assert not (home / "models" / "tiny").exists()
    assert list_installed() == []
    assert not list((home / "models").rglob("encoder_model_quantized.onnx*"))  # the bad file is gone
    missing = run_cli("translate", "--model", "tiny", stdin="Hello.\n")
    assert missing.returncode == 1 and "models download tiny" in missing.stderr

    hub.corrupt.clear()  # the endpoint is fixed: a rerun installs, without fetching verified files again
    assert run_cli("models", "download", "tiny", "--endpoint", hub.url).returncode == 0
    assert len(hub.gets("config.json")) == 1
    assert [m.name for m in list_installed()] == ["tiny"]


@pytest.fixture
def small_chunks(monkeypatch):
    """http_get writes whole chunks of DOWNLOAD_CHUNK_SIZE (10 MB): 1 KiB ones make the tiny
    files span several, as the real model's files span several 10 MB chunks."""
    import huggingface_hub.constants as hf_constants

    monkeypatch.setattr(hf_constants, "DOWNLOAD_CHUNK_SIZE", 1024)


def test_a_dropped_connection_continues_with_a_range_request(hub, home, tiny_marian_dir, small_chunks):
    target = "onnx/decoder_model_quantized.onnx"
    hub.drop_after[target] = 3072
    path = download_model("tiny", endpoint=hub.url)
    assert hub.gets(target) == [None, "bytes=3072-"]
    assert (path / target).read_bytes() == (tiny_marian_dir / "decoder_model_quantized.onnx").read_bytes()


def test_cancel_keeps_the_partial_file_and_a_rerun_resumes_it(hub, home, tiny_marian_dir, small_chunks):
    target = "onnx/decoder_model_quantized.onnx"
    part = home / "models" / ".downloads" / "tiny" / (target + ".part")

    class CancelOnceStarted:  # "Cancel" pressed while the file is half there
        def is_set(self) -> bool:
            return part.is_file() and part.stat().st_size > 0

    with pytest.raises(DownloadCancelled) as cancelled:
        download_model("tiny", endpoint=hub.url, cancel=CancelOnceStarted())
    assert not isinstance(cancelled.value, DesktopMTError)  # a cancel is no failure: error handlers let it by
    kept = part.stat().st_size
    assert 0 < kept < len(repo_files(tiny_marian_dir)[target])
    assert list_installed() == [] and not (home / "models" / "tiny").exists()

    reports = []
    path = download_model("tiny", endpoint=hub.url, progress=reports.append)
    assert hub.gets(target) == [None, f"bytes={kept}-"]
    assert (path / target).read_bytes() == (tiny_marian_dir / "decoder_model_quantized.onnx").read_bytes()
    phases = [r.phase for r in reports]
    assert phases[0] == "listing" and phases[-1] == "done" and "installing" in phases
    last = reports[-1]
    assert (
        last.done
        == last.total
        == sum(
            len(repo_files(tiny_marian_dir)[p]) for p in ["config.json", "generation_config.json", *INT8, *TOKENIZER]
        )
    )


def test_unreachable_endpoint_names_it_and_the_mirror(home):
    url = closed_port_url()
    with pytest.raises(HubUnreachableError) as err:
        download_model("tiny", endpoint=url)
    assert url in str(err.value)
    result = run_cli("models", "download", "tiny", "--endpoint", "https://huggingface.co.invalid")
    assert result.returncode == 1
    assert "cannot reach the model hub at https://huggingface.co.invalid" in result.stderr
    assert not (home / "models" / "tiny").exists()


def test_default_endpoint_error_gives_the_mirror_hint(home, monkeypatch):
    from desktop_mt.models.hub import unreachable_message

    assert "HF_ENDPOINT=https://hf-mirror.com" in unreachable_message("https://huggingface.co", "timed out")


def test_endpoint_order_explicit_then_setting_then_hf_endpoint(home, monkeypatch, hub):
    assert resolve_endpoint() == "https://huggingface.co"
    monkeypatch.setenv("HF_ENDPOINT", hub.url + "/")
    assert resolve_endpoint() == hub.url
    set_endpoint_setting("https://mirror.example")
    assert resolve_endpoint() == "https://mirror.example"
    assert resolve_endpoint("http://127.0.0.1:1") == "http://127.0.0.1:1"
    set_endpoint_setting("")
    assert download_model("tiny").name == "tiny"  # HF_ENDPOINT honoured
    assert hub.gets("config.json")


def test_tokenizer_files_come_from_the_checkpoint_repo_when_missing(hub, home, tiny_marian_dir):
    hub.add_repo(REPO, COMMIT, repo_files(tiny_marian_dir, with_tokenizer=False))
    path = download_model("tiny", endpoint=hub.url)
    for name in TOKENIZER:
        assert (path / name).read_bytes() == (tiny_marian_dir / name).read_bytes()
        assert any(
            p == f"/{CHECKPOINT_REPO}/resolve/{hub.repos[CHECKPOINT_REPO]['sha']}/{name}"
            for m, p, _ in hub.requests
            if m == "GET"
        )
    assert Translator(path, variant="int8").translate("I love you.")


def test_not_enough_space_downloads_nothing(hub, home, monkeypatch):
    import shutil

    from desktop_mt.models import download as dl

    monkeypatch.setattr(dl.shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10 << 30, 10 << 30, 1000))
    with pytest.raises(NotEnoughSpaceError, match="free some space"):
        download_model("tiny", endpoint=hub.url)
    assert not any(m == "GET" and "/resolve/" in p for m, p, _ in hub.requests)


def test_fp32_is_added_next_to_int8_and_both_load(hub, home):
    download_model("tiny", "int8", endpoint=hub.url)
    path = download_model("tiny", "fp32", endpoint=hub.url)
    assert hub.gets("onnx/encoder_model_quantized.onnx") == [None]  # not fetched twice
    assert hub.gets("config.json") == [None] and hub.gets("vocab.json") == [None]  # shared files reused
    (model,) = list_installed()
    assert model.variants == ("int8", "fp32")
    for variant in ("int8", "fp32"):
        assert Translator(path, variant=variant).translate("Where is the train station?")
    assert download_model("tiny", "fp32", endpoint=hub.url) == path  # installed: nothing to do
    assert len(hub.gets("onnx/encoder_model.onnx")) == 1


def test_use_and_remove(hub, home):
    download_model("tiny", endpoint=hub.url)
    set_active("tiny")
    assert get_active() == "tiny" and active_model_dir() == home / "models" / "tiny"
    remove_model("tiny")
    assert not (home / "models" / "tiny").exists() and get_active() == ""
    with pytest.raises(ModelNotFoundError, match="models download tiny"):
        set_active("tiny")


def test_a_revision_the_endpoint_lacks_is_reported(hub, home, tiny_marian_dir):
    hub.add_repo(REPO, "f" * 40, repo_files(tiny_marian_dir))  # the mirror has another commit only
    with pytest.raises(Exception) as err:
        download_model("tiny", endpoint=hub.url)
    assert "was not found" in str(err.value) and hub.url in str(err.value)
    assert not isinstance(err.value, DownloadVerificationError)


def test_serve_takes_an_installed_name_or_the_active_model(home, tiny_marian_dir):
    import shutil

    from desktop_mt.app.factory import model_folders
    from desktop_mt.cli.main import build_parser
    from desktop_mt.server.config import config_from_args

    shutil.copytree(tiny_marian_dir, home / "models" / "tiny")
    parse = build_parser().parse_args
    assert config_from_args(parse(["serve"])).model_choices == ()  # the defaults: active, else bundled
    assert model_folders()["en-zh"] != home / "models" / "tiny"
    chosen = config_from_args(parse(["serve", "--model", "tiny"])).model_choices
    assert chosen == ("tiny",) and model_folders(list(chosen))["en-zh"] == home / "models" / "tiny"
    set_active("tiny")  # `desktop-mt models use tiny`: the server's default follows
    assert model_folders()["en-zh"] == home / "models" / "tiny"


def test_a_second_download_of_the_same_model_is_refused_while_one_runs(hub, home):
    from filelock import FileLock

    from desktop_mt.base.errors import ModelDownloadError

    lock = FileLock(str(home / "models" / ".downloads" / "tiny.lock"))
    (home / "models" / ".downloads").mkdir(parents=True)
    with lock, pytest.raises(ModelDownloadError, match="already being downloaded"):  # as the GUI's download holds it
        download_model("tiny", endpoint=hub.url)
    assert download_model("tiny", endpoint=hub.url).name == "tiny"


def test_ctrl_c_installs_nothing_and_the_same_command_resumes(hub, home):
    import signal

    target = "onnx/decoder_model_quantized.onnx"
    hub.hold_after[target] = 3072
    command = [sys.executable, "-m", "desktop_mt", "models", "download", "tiny", "--endpoint", hub.url]
    # huggingface_hub gives up on a silent connection after 10 s and resumes; on a loaded machine
    # the Ctrl-C could land after that and find the download finished (seen once in a full run).
    env = dict(os.environ, HF_HUB_DOWNLOAD_TIMEOUT="60")
    # A shell starts background jobs with SIGINT ignored, and a child keeps that (Python then
    # never raises KeyboardInterrupt): the download gets Ctrl-C's default, as in a terminal.
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        assert hub.held.wait(120), "the download never reached the held file"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        hub.release.set()
        if proc.poll() is None:
            proc.kill()
            proc.communicate()  # reaped and its pipes closed, whatever failed above
    assert proc.returncode == 130, err
    assert "interrupted; nothing was installed. Run the same command again to resume." in err
    assert not (home / "models" / "tiny").exists() and list_installed() == []
    staged = home / "models" / ".downloads" / "tiny"
    assert (staged / "config.json").is_file() and (staged / "onnx" / "encoder_model_quantized.onnx").is_file()

    rerun = run_cli("models", "download", "tiny", "--endpoint", hub.url)
    assert rerun.returncode == 0, rerun.stderr
    assert len(hub.gets("config.json")) == 1 and len(hub.gets("onnx/encoder_model_quantized.onnx")) == 1
    assert [m.name for m in list_installed()] == ["tiny"]
