"""A second X client for the global-shortcut tests: one window that takes the input focus and
prints every KeyPress it receives ("press <keysym name> <state>"), one line each, flushed.

Run with DISPLAY set; it prints "ready <window id>" once focused, then logs until killed.
"""

from __future__ import annotations

import sys

from Xlib import XK, X, display


def main() -> int:
    d = display.Display()
    screen = d.screen()
    window = screen.root.create_window(
        0, 0, 200, 100, 0, screen.root_depth, X.InputOutput, X.CopyFromParent, event_mask=X.KeyPressMask
    )
    window.set_wm_name("key-logger")
    window.map()
    d.sync()
    window.set_input_focus(X.RevertToParent, X.CurrentTime)
    d.sync()
    print(f"ready {window.id}", flush=True)
    while True:
        event = d.next_event()
        if event.type == X.KeyPress:
            keysym = d.keycode_to_keysym(event.detail, 0)
            print(f"press {XK.keysym_to_string(keysym) or keysym} {event.state}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
