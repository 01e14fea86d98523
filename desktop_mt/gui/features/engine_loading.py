"""Loading the engine for the window: which model the settings ask for, asking the worker for
it (the worker builds it in its thread), what the window shows while and after it loads, and
falling back to the bundled model when the chosen one cannot be loaded. :class:`EngineLoading`
is built on the window's :class:`~desktop_mt.gui.services.Services` and the request flow (the
status bar's state, the request a model change interrupts); it publishes ``Events.model_loaded``
and keeps ``--model`` (``model_override``) until Apply chooses another model. The controller
keeps ``engine_config``, ``reload_engine``, ``loaded_config`` and ``model_info``.

The engine has a model per direction (``engine.router``; the worker's ``loaded`` carries them,
``worker.LoadedModels``). The status bar's model label names the model of the direction in use:
the direction control's choice, under Auto the direction of the latest request's text or of the
text the Auto entry describes (typing, an undone swap: the label and the entry agree); every
model, compactly, before any text or for text that needs both, in shorter forms where the label
is narrow ("EN→ZH + ZH→EN models"); a direction without a model says so ("ZH→EN: no model").
Its tooltip and Help > About list every direction's model. A reload follows the saved active
model of each direction too (the settings' Chinese -> English row, the Models dialog).
"""

from __future__ import annotations

import dataclasses
import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from desktop_mt import __version__
from desktop_mt.app import settings as app_settings
from desktop_mt.base.errors import ModelNotFoundError
from desktop_mt.engine import direction
from desktop_mt.engine.direction import AUTO, DIRECTIONS, EN_ZH, ZH_EN, Direction, Target, check_target, direction_into
from desktop_mt.engine.model_format import ModelInfo, bundled_model_dir

from ..i18n import QT_TRANSLATE_NOOP, translate
from ..messages import direction_title
from ..ports import EngineConfig, Status
from ..window.direction_bar import DESCRIBED
from ..workers.translation import LoadedModels

if TYPE_CHECKING:
    from desktop_mt.app.session import Request

    from ..requests import RequestFlow
    from ..services import Services

__all__ = [
    "EngineLoading",
    "about_text",
    "is_demo",
    "label_shorter",
    "label_text",
    "label_tooltip",
]


_logger = logging.getLogger("desktop_mt.gui.controller")  # the log lines kept their old source

_ARROWS: dict[Direction, str] = {  # the status bar's short names of the directions (shown translated: _arrow)
    EN_ZH: QT_TRANSLATE_NOOP("EngineLoading", "EN→ZH"),
    ZH_EN: QT_TRANSLATE_NOOP("EngineLoading", "ZH→EN"),
}


def is_demo(path: Path | str) -> bool:
    """Whether ``path`` is one of the bundled demo models (either direction)."""
    for way in DIRECTIONS:
        try:
            if Path(path).resolve() == bundled_model_dir(way).resolve():
                return True
        except (ModelNotFoundError, OSError):
            continue
    return False


def _arrow(way: Direction) -> str:
    """A direction's short name in the interface language ("EN→ZH", "英→中")."""
    return translate("EngineLoading", _ARROWS[way])


def _way(way: Direction) -> str:
    """A direction's name in the interface language ("English → Chinese")."""
    return direction_title(way)


def _model_name(info: ModelInfo) -> str:
    return info.name or translate("EngineLoading", "model")


def label_text(models: LoadedModels, way: Direction | None) -> str:
    """The status bar's model label: the model of direction ``way`` and the variant ("ZH→EN: no
    model" when it has none); ``way`` None (Auto before any text): every direction, compactly
    ("EN→ZH tatoeba-en-zh-small · ZH→EN tatoeba-zh-en-small · int8"), or the one model alone
    when the translator has one direction only."""
    if way is None:
        shown = models.directions
        if len(shown) != 1:
            no_model = translate("EngineLoading", "{way}: no model")
            parts = [
                f"{_arrow(d)} {_model_name(models.models[d])}" if d in models.models else no_model.format(way=_arrow(d))
                for d in shown
            ]
            return " · ".join([*parts, models.variant])
        way = shown[0]
    info = models.models.get(way)
    if info is None:
        return translate("EngineLoading", "{way}: no model").format(way=_arrow(way))
    return f"{_model_name(info)} · {models.variant}"


def label_shorter(models: LoadedModels, way: Direction | None) -> list[str]:
    """Shorter forms of :func:`label_text`, longest first, for a narrow status bar (the label's
    tooltip keeps every model in full): without the variant; every direction's model in one
    ("EN→ZH + ZH→EN demo models"); the fewest words ("EN⇄ZH demo models")."""
    full = label_text(models, way)
    forms = [full.rsplit(" · ", 1)[0]] if " · " in full else []
    if way is None and len(models.directions) > 1:
        present = [d for d in models.directions if d in models.models]
        demo = all(is_demo(models.models[d].path) for d in present)
        kind = translate("EngineLoading", "demo models") if present and demo else translate("EngineLoading", "models")
        if len(present) == len(models.directions):
            both = translate("EngineLoading", "EN⇄ZH")
            forms += [f"{' + '.join(_arrow(d) for d in present)} {kind}", f"{both} {kind}"]
        else:
            each = [
                translate("EngineLoading", "{way} model").format(way=_arrow(d))
                if d in models.models
                else translate("EngineLoading", "{way}: none").format(way=_arrow(d))
                for d in models.directions
            ]
            forms.append(" · ".join(each))
    return forms


def _get_one(models: LoadedModels, way: Direction) -> str:
    """Where a model for direction ``way`` comes from (the catalog's, when it has one)."""
    get = models.missing.get(way, "")
    if get:
        return translate("EngineLoading", "File > Models… downloads {model}").format(model=get)
    return translate("EngineLoading", "File > Models… adds one")


def _model_line(models: LoadedModels, way: Direction) -> str:
    info = models.models.get(way)
    if info is None:
        return translate("EngineLoading", "{way}: no model installed ({how})").format(
            way=_way(way), how=_get_one(models, way)
        )
    demo = translate("EngineLoading", ", bundled demo model") if is_demo(info.path) else ""
    return f"{_way(way)}: {_model_name(info)} ({models.variant}{demo})"


def label_tooltip(models: LoadedModels) -> str:
    """The model label's tooltip: every direction's model with its variant, the demo ones said."""
    return "\n".join(_model_line(models, d) for d in models.directions)


def _licence_note(info: ModelInfo) -> str:
    path = Path(info.path)  # a stand-in's model_info may hold a str
    notes = [p.name for p in (path / "README.md", path / "LICENSE", path / "LICENSE.txt") if p.is_file()]
    if notes:
        return translate("EngineLoading", "{model}: its licence and data sources are in {files} in {folder}").format(
            model=_model_name(info), files=", ".join(notes), folder=path
        )
    return translate(
        "EngineLoading", "{model}: its folder ({folder}) has no model card; check the licence where you got it"
    ).format(model=_model_name(info), folder=path)


def about_text(models: LoadedModels | ModelInfo, variant: str = "") -> str:
    """Help > About: version, code licence, each direction's model (its variant, whether it is
    the demo, the catalog model to download for a direction without one) and where each model's
    licence is. A lone ``ModelInfo`` (and its ``variant``) is shown as an English->Chinese model."""
    if not isinstance(models, LoadedModels):
        models = LoadedModels({models.direction or EN_ZH: models}, variant)
    lines = []
    for way in models.directions:
        info = models.models.get(way)
        if info is None:
            lines.append(
                translate("EngineLoading", "No {way} model: {how}.").format(way=_way(way), how=_get_one(models, way))
            )
        else:
            lines.append(
                translate("EngineLoading", "Model: {model} ({variant}), {way}").format(
                    model=_model_name(info), variant=models.variant, way=_way(way)
                )
            )
    demos = [_model_name(i) for i in models.models.values() if is_demo(i.path)]
    several = translate(
        "EngineLoading",
        "These are the bundled demo models ({models}): trained on short everyday sentences (Tatoeba pairs, "
        "CC-BY 2.0 FR) only, not for real text. File > Models… downloads a real model.",
    )
    one = translate(
        "EngineLoading",
        "This is the bundled demo model ({models}): trained on short everyday sentences (Tatoeba pairs, "
        "CC-BY 2.0 FR) only, not for real text. File > Models… downloads a real model.",
    )
    demo = "\n" + (several if len(demos) > 1 else one).format(models=", ".join(demos)) + "\n" if demos else ""
    notes = "; ".join(_licence_note(i) for i in models.models.values())
    return (
        translate(
            "EngineLoading",
            "desktop-mt {version}: offline English ⇄ Chinese translation on this machine.\n"
            "Code: MIT licence. Nothing is sent over the network.",
        ).format(version=__version__)
        + "\n\n"
        + "\n".join(lines)
        + f"\n{demo}"
        + translate("EngineLoading", "The models are not part of the code licence: {notes}.").format(notes=notes)
    )


def _active_elsewhere() -> tuple[str, ...]:
    """The saved active model of each direction (the settings dialog's rows, the Models dialog,
    ``desktop-mt models use``): the engine takes the one of the direction the window's model
    does not cover from there, so a change of it reloads too."""
    try:
        if not app_settings.settings_path().is_file():
            return ()  # nothing saved: the bundled models (reading would write the defaults)
        active = app_settings.active_models()
    except Exception as exc:  # noqa: BLE001 - an unreadable file: the load says what is wrong
        _logger.warning("active models unreadable: %s", type(exc).__name__)
        return ()
    return tuple(active.get(way, "") for way in DIRECTIONS)


class EngineLoading(QObject):
    """The window's engine loads (see the module docstring)."""

    _loadRequested = Signal(EngineConfig)  # EngineConfig, queued into the worker's thread

    def __init__(
        self, services: Services, requests: RequestFlow, real_engine: bool, model_override: str | None = None
    ) -> None:
        super().__init__(services.owner)
        self.services, self.requests, self.window = services, requests, services.window
        self.model_override = model_override  # --model for this run; dropped when Apply chooses another
        self._model_path = services.settings.model_path  # the setting --model stands in for
        self.loaded_config: EngineConfig | None = None  # what the engine runs (after a fallback too)
        self._requested_configs: list[EngineConfig] = []  # loads in flight, in worker order
        self.models: LoadedModels | None = None  # each direction's model (None before the first load)
        self.model_info: ModelInfo | None = None  # the English->Chinese one, else the other
        self._tooltip = ""  # the model label's: every direction's model
        self._loaded_key: tuple[object, ...] | None = None
        self._real_engine = real_engine
        self._target: Target = AUTO  # the direction control's choice
        self._latest: Direction | None = None  # under Auto: the direction of the latest request (None: both)
        worker = services.worker
        self._loadRequested.connect(worker.load)
        worker.loadStarted.connect(self.on_load_started)
        worker.loaded.connect(self.on_loaded)
        worker.loadFailed.connect(self.on_load_failed)
        self.window.directionShown.connect(self.on_direction_shown)
        services.session.started.subscribe(self.on_request_started)

    def engine_config(self) -> EngineConfig:
        """What the worker should build from the current settings."""
        s = self.services.settings
        if s.model_path != self._model_path:  # Apply chose another model: --model gives way
            self.model_override, self._model_path = None, s.model_path
        model = self.model_override or s.model_path or None
        pool = _shared_pool_size()
        if pool is not None:  # sized at start (desktop-mt): a changed setting applies at the next start
            return EngineConfig(model, s.variant, pool, 1)
        return EngineConfig(model, s.variant, s.intra_op_threads, s.inter_op_threads)

    def on_load_started(self, description: str) -> None:
        self.requests.set_state(Status.LOADING, description)

    def on_loaded(self, models: LoadedModels) -> None:
        if self._requested_configs:
            self.loaded_config = self._requested_configs.pop(0)
        self.models = models
        self.model_info = models.primary
        self._tooltip = label_tooltip(models)
        self.show_model()
        self.window.about_text = about_text(models)
        _logger.info(
            "models loaded: %s (%s)",
            ", ".join(f"{d} {_model_name(i)}" for d, i in models.models.items()),
            models.variant,
        )
        self.requests.set_state(Status.TRANSLATING if self.requests.current else Status.IDLE)
        self.services.events.model_loaded.publish(models.primary)

    # ---- the model label: the model of the direction in use ----------------------------------
    def shown_direction(self) -> Direction | None:
        """The direction whose model the label names: the direction control's, under Auto the
        latest request's (None: Auto without text yet, or text that needs both: every model)."""
        return direction_into(self._target) or self._latest

    def show_model(self) -> None:
        """Name the model of :meth:`shown_direction` in the status bar (the tooltip: all of them)."""
        if self.models is not None:
            way = self.shown_direction()
            self.window.set_model(label_text(self.models, way), self._tooltip, label_shorter(self.models, way))

    def on_direction_shown(self, target: str) -> None:
        """The direction control changed (the user, a swap, the hotkey's Auto, the saved choice):
        ``target`` is the Target its signal carries."""
        self._target = check_target(target)
        self._latest = None
        self.show_model()

    def on_request_started(self, request: Request) -> None:
        """Under Auto the label follows the request's text (:meth:`on_text_shown`)."""
        self.on_text_shown(request.text)

    def on_text_shown(self, text: str) -> None:
        """Under Auto the label follows the text of a request, or the one the Auto entry
        describes (typing, an undone swap's text): one direction's model, or all of them for
        text that needs both; text with nothing to translate leaves the label as it is."""
        if self._target != AUTO:
            return
        needed = direction.directions_needed(text[:DESCRIBED])
        if needed:
            self._latest = needed.pop() if len(needed) == 1 else None
            self.show_model()

    def on_load_failed(self, message: str) -> None:
        failed = self._requested_configs.pop(0) if self._requested_configs else None
        if failed is not None and failed.model_dir and not self._requested_configs:
            self._fall_back_to_bundled(failed, message)
            return
        self._loaded_key = None  # let the next Apply retry even with the same settings
        self.requests.set_state(Status.ERROR, translate("EngineLoading", "model not loaded"))
        if self.model_info is None:
            self.window.set_model(translate("EngineLoading", "No model"))
        self.window.show_error(translate("EngineLoading", "Could not load the model"), message)

    def reload_engine(self) -> None:
        """Ask the worker for a new Translator if model/variant/threads changed."""
        config = self.engine_config()
        key = (*dataclasses.astuple(config), *_active_elsewhere())
        if key == self._loaded_key:
            return
        self._loaded_key = key
        self.requests.cancel_current()  # a model change interrupts the running job
        self.window.set_busy(False)
        self.requests.set_state(Status.LOADING, config.describe())
        self._request_load(config)

    def _request_load(self, config: EngineConfig) -> None:
        self._requested_configs.append(config)
        self.preload_engine()
        self._loadRequested.emit(config)

    def preload_engine(self) -> None:
        """Import the engine (and with it onnxruntime) here on the main thread before a
        worker does. A first import of ORT's extension in a worker thread while the main
        thread's garbage collector ran crashed the app (segfault, seen in the GUI tests);
        after this the workers' imports are dictionary lookups. Fakes need no engine."""
        if self._real_engine:
            import desktop_mt.engine.runtime  # noqa: F401

    def _fall_back_to_bundled(self, failed: EngineConfig, message: str) -> None:
        """The chosen model is missing or broken: say so in the banner and load the
        bundled model, so the app keeps translating. The setting is kept (the folder may
        come back, e.g. a network drive); Apply in the settings retries it."""
        self._loaded_key = None
        self.window.show_warning(
            translate(
                "EngineLoading",
                "Could not load the chosen model {model}: {why} "
                "Using the bundled model instead; choose another model in Settings.",
            ).format(model=failed.describe(), why=message.splitlines()[0])
        )
        self._request_load(dataclasses.replace(failed, model_dir=None))


def _shared_pool_size() -> int | None:
    """The threads of the process's shared ONNX Runtime pool, or None (``engine.runtime.share_thread_pool``)."""
    from desktop_mt.engine.runtime import shared_thread_pool  # onnxruntime: loaded with the model anyway

    return shared_thread_pool()
