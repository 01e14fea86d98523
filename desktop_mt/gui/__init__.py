"""The PySide6 desktop app of desktop-mt.

Only this package imports PySide6. Layout (Mu's pattern):

- :mod:`.window`      the passive main window: emits intent signals, exposes setters.
- :mod:`.worker`      a QObject living in a QThread that owns the ``Translator``.
- :mod:`.controller`  wires window, worker, settings, tray and hotkey together.
- :mod:`.settings`    the settings dataclass and its JSON persistence (no Qt).
- :mod:`.app`         ``main(argv)``, the entry point ``desktop-mt`` calls.
"""

__all__: list[str] = []
