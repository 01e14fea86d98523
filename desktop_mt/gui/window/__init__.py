"""The main window: its parts (chrome, menus, the file strip, the direction bar, the panes), the
popup and the tray icon, and how they look (palette, fonts, focus).
"""

__all__: list[str] = []
