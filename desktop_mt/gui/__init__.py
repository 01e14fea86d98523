"""The PySide6 desktop app of desktop-mt.

Only this package imports PySide6. Layout:

- :mod:`.window`      the passive main window and its parts: intent signals out, setters in.
- :mod:`.features`    what the window does (post-editing, file jobs, the hotkey link, OCR...),
                      each built on :class:`.services.Services` and the features it names.
- :mod:`.dialogs`     Settings, Models, History, the memory, the glossary.
- :mod:`.workers`     QObjects living in QThreads: the translation worker owns the translator.
- :mod:`.platform`    global shortcuts, screen capture, the single instance, display checks.
- :mod:`.services`    the narrow face every feature gets (window, worker, session, settings, events).
- :mod:`.compose`     builds the features in order on the services.
- :mod:`.controller`  owns the session, the worker thread and the services; wires requests.
- :mod:`.app`         ``main(argv)``, the entry point ``desktop-mt`` calls.
"""

__all__: list[str] = []
