"""The window's composition root: every part of the window's application built from the
window's :class:`~desktop_mt.gui.services.Services`, each with the parts it uses named.

:func:`compose` is the one place that knows the order they need: the input handling and the
direction control first (the request flow reads them), then the request flow and its results
(the request core), the engine's loading (it sets the status bar's state through the flow),
post-editing (it needs the engine's model config; the flow plans with it once built), the
history (it follows post-editing's edits), the popup, OCR, the hotkey, the file jobs, and last
the parts that follow all of them (drafts, the resume offer, the quit question, progress, undo's
stale guard). A feature subscribes to the session's and the app's topics as it is built, so the
order is also the order in which they hear a request start or end; the controller adapts the
topics to its Qt signals after this, so a test waiting on one sees every feature's work done.

No part gets the controller: the controller owns the session, the worker thread and the
services, calls :func:`compose`, and keeps the names its callers and tests use.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from desktop_mt.engine.protocols import TranslatorFace
from desktop_mt.tm.apply import memory_factory

from .dialogs.glossary_editor import GlossaryStore
from .dialogs.history_dialog import HistoryFeature
from .dialogs.models_dialog import ModelsHub
from .features.alignment import AlignmentFeature
from .features.alternatives import AlternativesFeature
from .features.bilingual import BilingualView
from .features.drafts import DraftKeeper
from .features.engine_loading import EngineLoading
from .features.file_queue import FileJobs
from .features.first_start import FirstStart
from .features.hotkey_link import HotkeyLink
from .features.job_resume import JobResumeOffer
from .features.local_api import LocalApiFeature
from .features.models import StoreBackend
from .features.ocr import OcrFeature
from .features.pasting import InputHandling
from .features.postedit import PostEditFeature
from .features.quitting import QuitGuard
from .features.stale import StaleGuard
from .features.user_memory import UserMemory
from .ports import EngineConfig
from .request_results import RequestResults
from .requests import RequestFlow
from .services import Services
from .settings import Settings
from .window.direction_bar import DirectionBar, DirectionFeature
from .window.popup import PopupFeature
from .window.progress import ProgressFeature

__all__ = ["WindowParts", "compose"]


@dataclasses.dataclass(frozen=True)
class WindowParts:
    """What :func:`compose` built, by the names the controller keeps."""

    input: InputHandling  # join lines on paste, text left as it is
    direction: DirectionFeature  # Auto / EN->ZH / ZH->EN, swap
    requests: RequestFlow  # starts, stops and clears the window's requests (the request core)
    results: RequestResults  # the worker's output of the current request, shown
    engine: EngineLoading  # model loads, the model label, About, the fallback
    glossary: GlossaryStore  # Settings > Glossary
    bilingual: BilingualView  # View > Bilingual
    models_hub: ModelsHub  # the Models dialog and the demo notice
    first_start: FirstStart  # demo models only: the real ones offered
    alignment: AlignmentFeature  # highlights a sentence's counterpart
    alternatives: AlternativesFeature  # n-best of a sentence
    memory: UserMemory  # the user's translation memory: post-editing, file jobs, the Local API
    postedit: PostEditFeature  # the editable translation: completion, memory, incremental
    history: HistoryFeature  # View > History; entries of finished translations
    popup: PopupFeature  # the hotkey's popup at the mouse pointer (setting)
    ocr: OcrFeature  # Translate screen region; pasted and dropped images
    hotkey_link: HotkeyLink  # the clipboard and the global hotkey
    files: FileJobs  # the file queue and the running job, in its own thread
    local_api: LocalApiFeature  # Settings > Local API: the HTTP server in the app
    drafts: DraftKeeper  # the panes saved as they change, restored at start
    job_resume: JobResumeOffer  # an interrupted file job: continue?
    quit_guard: QuitGuard  # quitting while work runs asks first
    progress: ProgressFeature  # sentences done; a stop's mark and state
    stale: StaleGuard  # undo never leaves a translation beside a text it does not belong to


def compose(
    services: Services,
    bar: DirectionBar,
    *,
    translator_factory: Callable[[EngineConfig], TranslatorFace],
    real_engine: bool,
    model_override: str | None,
    apply_settings: Callable[[Settings], None],
) -> WindowParts:
    """Build the window's parts on ``services`` (see the module docstring). ``bar``: the
    window's direction control; ``translator_factory``: what the file jobs' worker builds its
    translator with (the user's memory's exact matches come first, as ``translate --tm``);
    ``real_engine``: the app's engine, not a test's (the fallback to the bundled model);
    ``model_override``: ``--model`` for this run; ``apply_settings``: the Models dialog's Apply."""
    window = services.window
    input_handling = InputHandling(services)
    direction = DirectionFeature(services, bar)
    requests = RequestFlow(services, input_handling, direction)
    results = RequestResults(services, requests)
    engine = EngineLoading(services, requests, real_engine, model_override)
    direction.textShown.connect(engine.on_text_shown)  # the model label agrees with Auto's entry
    engine.on_direction_shown(direction.target)  # the saved direction, shown before the engine was built
    glossary = GlossaryStore(on_error=window.show_warning)
    bilingual = BilingualView(services)
    requests.use_bilingual(bilingual.show_kept)  # History > Open shows paired when Bilingual is on
    models_hub = ModelsHub(services, apply_settings, StoreBackend)
    first_start = FirstStart(services, models_hub)
    alignment = AlignmentFeature(services)
    alternatives = AlternativesFeature(services, alignment.view)
    memory = UserMemory(window, services.owner)  # opened when first needed; shared by the three below
    postedit = PostEditFeature(services, alignment.view, direction, glossary, engine, memory)
    requests.use_postedit(postedit)  # post-editing plans which sentences go to the model
    history = HistoryFeature(services, postedit)
    alternatives.translationReplaced.connect(history.translation_replaced)
    popup = PopupFeature(services, input_handling)
    ocr = OcrFeature(services, popup)
    hotkey_link = HotkeyLink(services, popup, ocr, direction, input_handling)
    files = FileJobs(services, engine, ocr, memory_factory(translator_factory, lambda: memory.memory))
    local_api = LocalApiFeature(services, engine, lambda: memory.memory)
    drafts = DraftKeeper(services, alignment.view, postedit, bilingual=bilingual)
    job_resume = JobResumeOffer(services, drafts, files)
    quit_guard = QuitGuard(services, files)
    progress = ProgressFeature(services)
    restored = drafts.restored
    stale = StaleGuard(services, (restored.source, restored.translation), bilingual)  # after the direction's undo
    return WindowParts(
        input=input_handling,
        direction=direction,
        requests=requests,
        results=results,
        engine=engine,
        glossary=glossary,
        bilingual=bilingual,
        models_hub=models_hub,
        first_start=first_start,
        alignment=alignment,
        alternatives=alternatives,
        memory=memory,
        postedit=postedit,
        history=history,
        popup=popup,
        ocr=ocr,
        hotkey_link=hotkey_link,
        files=files,
        local_api=local_api,
        drafts=drafts,
        job_resume=job_resume,
        quit_guard=quit_guard,
        progress=progress,
        stale=stale,
    )
