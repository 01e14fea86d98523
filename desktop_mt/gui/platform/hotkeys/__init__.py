"""Global shortcuts that belong to desktop-mt: the OS's own key registration per platform.

- :mod:`.chord`: a shortcut's text ("Ctrl+Alt+E") as modifiers and a key, with each key's code
  on X11, Windows and macOS.
- :mod:`.hub`: which backend this session uses and the registry of the app's shortcuts.
- :mod:`.x11` (``XGrabKey``), :mod:`.windows` (``RegisterHotKey``), :mod:`.macos`
  (``RegisterEventHotKey``): backends that own the key, so the application in front never
  receives it; :mod:`.portal` asks a Wayland desktop for them (GlobalShortcuts portal);
  :mod:`.pynput_backend` listens only, where none of them can be used.

Backends are imported by :func:`.hub.open_backend` on the platform they serve only.
"""

__all__: list[str] = []
