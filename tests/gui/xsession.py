"""A real X session for GUI tests: Xvfb on a free display, the trayer tray host, X clients
run on it (xdotool...), and waiting on another process's state with a deadline."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TITLE = "English"  # part of the window title "desktop-mt — English → 中文"
POLL_S = 0.1


def wait_for(predicate, timeout: float, what: str):
    """Poll ``predicate`` until it returns something truthy (returned) or fail naming ``what``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(POLL_S)  # condition polling of another process, not a fixed wait
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


class XSession:
    """Xvfb on a free display plus the trayer tray host."""

    def __init__(self, tmp: Path) -> None:
        read, write = os.pipe()
        self.xvfb = subprocess.Popen(
            # -noreset: by default the server resets when its last client leaves, and a client
            # connecting during the reset is refused ("cannot open display", seen under load).
            ["Xvfb", "-displayfd", str(write), "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset"],
            pass_fds=(write,),
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as f:
            self.display = ":" + f.readline().strip()
        self.env = {
            **os.environ,
            "DISPLAY": self.display,
            "QT_QPA_PLATFORM": "xcb",
            "DESKTOP_MT_HOME": str(tmp / "home"),
            "DESKTOP_MT_FIRST_START": "off",  # the tests click where the panes are: no first-start page above them
            "PYTHONPATH": str(ROOT),
        }
        for var in ("WAYLAND_DISPLAY", "XDG_SESSION_TYPE", "QT_SCALE_FACTOR"):
            self.env.pop(var, None)
        self.tray = subprocess.Popen(
            ["trayer", "--edge", "top", "--align", "right", "--widthtype", "request", "--height", "24"],
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_for(lambda: self.x("xdotool", "search", "--class", "trayer"), 20, "the tray host")
        except AssertionError:
            self.stop()
            raise

    def x(self, *cmd: str, check: bool = False) -> str:
        """Run an X client on this display; its stdout."""
        out = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=30)
        if check and out.returncode:
            raise AssertionError(f"{' '.join(cmd)} failed: {out.stderr}")
        return out.stdout.strip()

    def visible_windows(self) -> list[str]:
        """The app's mapped windows. An X error is raised, not read as "no window": a close
        test would otherwise take a failed query for a hidden window."""
        cmd = ["xdotool", "search", "--onlyvisible", "--name", TITLE]
        out = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=30)
        if out.stderr.strip():  # no match is rc 1 with nothing on stderr
            raise AssertionError(f"{' '.join(cmd)} failed: {out.stderr.strip()}")
        return out.stdout.split()

    def close_window(self, wid: str) -> None:
        """What a window manager does for the close button: WM_DELETE_WINDOW."""
        from Xlib import X, display, protocol

        d = display.Display(self.display)
        window = d.create_resource_object("window", int(wid))
        atom = d.intern_atom
        event = protocol.event.ClientMessage(
            window=window,
            client_type=atom("WM_PROTOCOLS"),
            data=(32, [atom("WM_DELETE_WINDOW"), X.CurrentTime, 0, 0, 0]),
        )
        window.send_event(event, event_mask=X.NoEventMask)
        d.flush()
        d.close()

    def close_until_hidden(self, wid: str, timeout: float, every: float = 3.0) -> int:
        """Press the close button (``close_window``) until no window of the app shows; the number
        of presses. Under load Qt can lose the first WM_DELETE_WINDOW: while it docks its tray
        icon, a message sent then never reached the app's native event filter, and the same
        message sent 20 s later hid the window at once. A user would press again; so does this."""
        deadline = time.monotonic() + timeout
        presses = 0
        while time.monotonic() < deadline:
            self.close_window(wid)
            presses += 1
            try:
                wait_for(lambda: not self.visible_windows(), min(every, deadline - time.monotonic()), "")
                return presses
            except AssertionError:
                continue
        raise AssertionError(f"{presses} presses of close in {timeout:.0f} s: the window still shows")

    def stop(self) -> None:
        for proc in (self.tray, self.xvfb):
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
