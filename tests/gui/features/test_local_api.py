"""Settings > Local API: the app's HTTP server (desktop_mt.gui.features.local_api), for real: uvicorn on
a free loopback port with the bundled model, called with httpx; the window's engine is the
fake (make_controller), the server's is the real one."""

from __future__ import annotations

import dataclasses
import json
import socket
import sys

import pytest

httpx = pytest.importorskip("httpx")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from desktop_mt.gui.dialogs.settings_dialog import SettingsDialog  # noqa: E402
from desktop_mt.gui.features import local_api  # noqa: E402
from desktop_mt.gui.settings import Settings, load_settings, save_settings  # noqa: E402

WAIT_MS = 30_000
TEXT = "Where is the train station?"


@pytest.fixture(scope="module")
def reference():
    """The bundled model, for the translations the server must give."""
    from desktop_mt import Translator

    translator = Translator()
    yield translator
    translator.close()


def free_port() -> int:
    """A loopback port nobody listens on (the OS's choice, released at once)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def api_settings(port: int, **changes) -> Settings:
    # One ORT thread: the test machine is shared.
    return Settings(local_api=True, local_api_port=port, intra_op_threads=1, **changes)


def wait_state(qtbot, feature, state: str) -> None:
    qtbot.waitUntil(lambda: feature.state == state, timeout=WAIT_MS)


def open_dialog(qtbot, window, controller) -> SettingsDialog:
    """Settings… as the app wires it (app.build: settingsRequested -> open_settings, connected
    after the controller's features), once the feature has attached to the dialog."""
    from desktop_mt.gui.app import open_settings

    opened: list[SettingsDialog] = []
    window.settingsRequested.connect(lambda: opened.append(open_settings(controller, window)))
    window.settingsRequested.emit()
    dialog = opened[-1]
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: bool(dialog.property(local_api._ATTACHED)), timeout=WAIT_MS)
    return dialog


def port_is_free(port: int) -> bool:
    try:
        local_api.listen(port).close()
    except OSError:
        return False
    return True


def test_on_serves_libretranslate_and_deepl_with_the_bundled_model(make_controller, qtbot, reference):
    port = free_port()
    window, controller = make_controller(api_settings(port))
    feature = controller.local_api
    wait_state(qtbot, feature, "running")
    url = f"http://127.0.0.1:{port}"
    assert feature.url == url
    assert not feature.label.isHidden() and feature.label.text() == f"Local API on {url}"
    expected = reference.translate(TEXT)
    with httpx.Client(base_url=url, timeout=30) as client:
        body = client.post("/translate", json={"q": TEXT, "source": "en", "target": "zh"}).json()
        assert body == {"translatedText": expected, "fromMemory": False}  # the window's memory is on
        deepl = client.post("/v2/translate", data={"text": TEXT, "target_lang": "ZH"}).json()
        assert deepl == {"translations": [{"detected_source_language": "EN", "text": expected}]}
        # Pot streams from its web view: its preflight (with Pot's api-key header) is allowed.
        preflight = client.options(
            "/v1/chat/completions",
            headers={
                "Origin": "tauri://localhost",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "api-key, content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "tauri://localhost"
    controller.shutdown()
    assert port_is_free(port) and feature.state == "off"


def test_off_in_the_dialog_frees_the_port(make_controller, qtbot):
    port = free_port()
    window, controller = make_controller(api_settings(port))
    feature = controller.local_api
    wait_state(qtbot, feature, "running")
    dialog = open_dialog(qtbot, window, controller)
    assert dialog.local_api_status.text() == f"Local API on http://127.0.0.1:{port}"
    assert not port_is_free(port)
    dialog.local_api_check.setChecked(False)
    with qtbot.waitSignal(feature.stateChanged, timeout=WAIT_MS, check_params_cb=lambda state: state == "off"):
        dialog.apply()
    assert port_is_free(port) and feature.url is None and feature.label.isHidden()
    assert dialog.local_api_status.text() == "Off." and not dialog.local_api_port_spin.isEnabled()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/health", timeout=5)
    assert load_settings(controller.settings_path).settings.local_api is False


def test_a_new_key_or_model_restarts_the_server(make_controller, qtbot):
    port = free_port()
    window, controller = make_controller(api_settings(port))
    feature = controller.local_api
    wait_state(qtbot, feature, "running")
    dialog = open_dialog(qtbot, window, controller)
    dialog.local_api_key_edit.setText("s3cret")
    dialog.apply()
    qtbot.waitUntil(
        lambda: (
            feature.state == "running"
            and feature.wanted().api_key == "s3cret"
            and feature._run.launch.api_key == "s3cret"
        ),
        timeout=WAIT_MS,
    )
    body = {"q": TEXT, "source": "en", "target": "zh"}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        assert client.post("/translate", json={**body, "api_key": "wrong"}).status_code == 403
        assert client.post("/translate", json={**body, "api_key": "s3cret"}).status_code == 200
        assert client.get("/health").json()["variant"] == "int8"
        # Another model (here: the exact variant): the window loads it, the server follows.
        controller.apply_settings(dataclasses.replace(controller.settings, variant="fp32"))
        qtbot.waitUntil(
            lambda: feature.state == "running" and feature._run.launch.engine.variant == "fp32", timeout=WAIT_MS
        )
        assert client.get("/health").json()["variant"] == "fp32"


def test_a_port_in_use_is_explained_and_the_app_keeps_working(make_controller, qtbot):
    taken = local_api.listen(free_port())
    try:
        port = taken.getsockname()[1]
        window, controller = make_controller(api_settings(port))
        feature = controller.local_api
        wait_state(qtbot, feature, "failed")
        assert f"port {port} is in use" in window.banner.label.text()
        assert "choose another port" in window.banner.label.text()
        assert feature.label.text() == "Local API: not running" and feature.url is None
        assert controller.settings.local_api is True  # the setting stays; Apply retries
        with qtbot.waitSignal(controller.requestFinished, timeout=WAIT_MS):
            controller.translate("Hello.")
        assert window.target_text()
        dialog = open_dialog(qtbot, window, controller)
        statuses: list[tuple[str, str]] = []  # the line and its tone ("" = normal), typed (issue 42)
        feature.statusChanged.connect(lambda text, tone: statuses.append((text, tone)))
        dialog.apply()  # still taken: the same warning, shown once (it was listed twice)
        wait_state(qtbot, feature, "failed")
        assert window.banner.label.text().count(f"port {port} is in use") == 1
        assert statuses and statuses[-1][1] == "warning" and f"port {port} is in use" in statuses[-1][0]
    finally:
        taken.close()
    assert f"port {port} is in use" in dialog.local_api_status.text()
    dialog.apply()  # the port is free now: the same settings start it
    wait_state(qtbot, feature, "running")
    assert f"port {port} is in use" not in window.banner.label.text()  # its cause is gone
    assert statuses[-1] == (f"Local API on http://127.0.0.1:{port}", "")


def test_without_the_server_extra_the_message_names_the_fix(make_controller, qtbot, monkeypatch):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # `import uvicorn` raises ImportError
    port = free_port()
    window, controller = make_controller(api_settings(port))
    wait_state(qtbot, controller.local_api, "failed")
    assert "pip install 'desktop-mt[server]'" in window.banner.label.text()
    assert "uvicorn" in window.banner.label.text() and port_is_free(port)


def test_a_model_that_does_not_load_is_explained_and_frees_the_port(make_controller, qtbot):
    from desktop_mt.base.errors import ModelNotFoundError

    def broken(_config):
        raise ModelNotFoundError("no model files in /nowhere")

    port = free_port()
    window, controller = make_controller(api_settings(port), wait_loaded=False)
    controller.local_api.translator_factory = broken  # before the window's model loads
    wait_state(qtbot, controller.local_api, "failed")
    assert "the model could not be loaded: no model files in /nowhere" in window.banner.label.text()
    assert port_is_free(port) and controller.local_api.url is None


def test_the_setting_round_trips_through_the_settings_file(tmp_path):
    path = tmp_path / "settings.json"
    original = Settings(local_api=True, local_api_port=5123, local_api_key="k-1")
    save_settings(original, path)
    assert load_settings(path).settings == original
    assert Settings().local_api is False and Settings().local_api_port == 5000
    path.write_text(json.dumps({"local_api": "yes", "local_api_port": 70000, "local_api_key": 5}))
    result = load_settings(path)
    assert result.settings == Settings() and len(result.warnings) == 3


def test_the_dialog_edits_the_setting(qtbot):
    dialog = SettingsDialog(Settings(local_api_port=5001), False, "")
    qtbot.addWidget(dialog)
    assert not dialog.local_api_check.isChecked() and not dialog.local_api_key_edit.isEnabled()
    dialog.local_api_check.setChecked(True)
    dialog.local_api_port_spin.setValue(5077)
    dialog.local_api_key_edit.setText("  key  ")
    with qtbot.waitSignal(dialog.applied, timeout=10_000) as applied:
        dialog.apply()
    new = applied.args[0]
    assert (new.local_api, new.local_api_port, new.local_api_key) == (True, 5077, "key")
    assert dialog.local_api_port_spin.text() == "5077"  # no group separator in a port


def test_the_apps_memory_answers_its_exact_matches(make_controller, qtbot):
    """Issue 46, defect 6: the app's Local API uses the window's translation memory, as
    ``serve --tm`` does: an approved entry is the answer, the model is not asked."""
    port = free_port()
    window, controller = make_controller(api_settings(port))
    wait_state(qtbot, controller.local_api, "running")
    controller.postedit.memory.add(TEXT, "火车站在哪儿（记忆）？", "en-zh", origin="approved")
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        answer = client.post("/translate", json={"q": TEXT, "source": "en", "target": "zh"})
    assert answer.json() == {"translatedText": "火车站在哪儿（记忆）？", "fromMemory": True}
    assert answer.headers["X-Desktop-MT-Memory"] == "texts=1; whole=1; partial=0; sentences=1"
    controller.shutdown()


def test_the_apps_memory_never_answers_with_an_unapproved_edit(make_controller, qtbot):
    """Issue 46: approved beats edited in the Local API too, as in the window's file jobs: an
    unapproved edit is never an answer unreviewed; the model translates the sentence."""
    port = free_port()
    window, controller = make_controller(api_settings(port))
    wait_state(qtbot, controller.local_api, "running")
    controller.postedit.memory.add(TEXT, "火车站在哪儿（未审）？", "en-zh")  # origin "edited"
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        body = client.post("/translate", json={"q": TEXT, "source": "en", "target": "zh"}).json()
    assert body["translatedText"] != "火车站在哪儿（未审）？" and body["fromMemory"] is False
    assert "未审" not in body["translatedText"] and body["translatedText"].strip()
    controller.shutdown()
