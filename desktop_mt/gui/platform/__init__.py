"""What each OS and desktop does differently: global hotkeys, simulated key presses, screen
capture, the desktop portal, one app per user and whether a display can be opened.
"""

__all__: list[str] = []
