"""Wayland: the desktop's ``org.freedesktop.portal.GlobalShortcuts`` (xdg-desktop-portal 1.17+,
implemented by KDE Plasma 6 and GNOME 48+). No Wayland client may grab keys; the portal lets an
app *ask* the desktop for shortcuts, which the user confirms in the desktop's own dialog (and
may give other keys there).

The calls, as the portal documents them: ``CreateSession`` -> a Request whose ``Response``
carries ``session_handle``; ``BindShortcuts(session, a(sa{sv}), parent_window, options)`` with
each shortcut's ``description`` and ``preferred_trigger`` -> a Request whose ``Response`` lists
the shortcuts bound (with the keys the desktop chose, ``trigger_description``); then
``Activated(session, shortcut_id, timestamp, options)`` on each press. The desktop keeps one set
per session, so a change of the set closes the session and binds the new set in a new one.

D-Bus goes through jeepney (pure Python; QtDBus from Python cannot marshal the ``a(sa{sv})``
argument) on a connection of its own, read in Qt's event loop (a ``QSocketNotifier``; the
messages that arrive during a blocking call are kept by jeepney's filters and handled after it).
"""

from __future__ import annotations

import itertools
import logging
import os
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from jeepney import DBusAddress, HeaderFields, MatchRule, Message, MessageType, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import DBusConnection, open_dbus_connection
from PySide6.QtCore import QObject, QSocketNotifier, QTimer

from .base import HotkeyError
from .chord import Chord

__all__ = [
    "INTERFACE",
    "PATH",
    "REQUEST",
    "SERVICE",
    "SESSION",
    "open_portal_backend",
    "preferred_trigger",
]


_logger = logging.getLogger(__name__)

SERVICE = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
INTERFACE = "org.freedesktop.portal.GlobalShortcuts"
REQUEST = "org.freedesktop.portal.Request"
SESSION = "org.freedesktop.portal.Session"
_CALL_TIMEOUT_S = 10  # the methods answer at once; the user's choice comes later, as a signal
_PORTAL = DBusAddress(PATH, bus_name=SERVICE, interface=INTERFACE)
_tokens = itertools.count(1)
_TRIGGER_MODIFIERS = {"ctrl": "CTRL", "alt": "ALT", "shift": "SHIFT", "meta": "LOGO"}


def _shortcut_id(chord: Chord) -> str:
    """The shortcut's id in the portal: stable for the same keys ("ctrl-alt-e")."""
    return chord.text.lower().replace("+", "-")


def preferred_trigger(chord: Chord) -> str:
    """The XDG shortcuts notation of ``chord``: "CTRL+ALT+e" (modifiers, then the keysym)."""
    mods = [_TRIGGER_MODIFIERS[m] for m in ("ctrl", "alt", "shift", "meta") if m in chord.modifiers]
    return "+".join([*mods, chord.codes.x11])


def _portal_supported(conn: DBusConnection) -> bool:
    """Whether the desktop's portal offers GlobalShortcuts (its introspection lists it; the
    portal exports an interface only where the desktop implements it)."""
    call = new_method_call(
        DBusAddress(PATH, bus_name=SERVICE, interface="org.freedesktop.DBus.Introspectable"), "Introspect"
    )
    try:
        reply = conn.send_and_get_reply(call, timeout=_CALL_TIMEOUT_S)
    except (OSError, TimeoutError) as exc:
        _logger.info("global shortcuts: no portal answered (%s)", exc)
        return False
    return reply.header.message_type == MessageType.method_return and INTERFACE in str(reply.body[0])


class _PortalBackend(QObject):
    """Global shortcuts bound through the portal on ``conn`` (see the module docstring)."""

    name = "GlobalShortcuts portal"
    owns_keys = True
    note = (
        "Wayland: the desktop binds these shortcuts through its GlobalShortcuts portal; it may ask "
        "you to confirm them, or let you choose other keys, in its own dialog."
    )

    def __init__(self, conn: DBusConnection, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.conn = conn
        self._inbox: deque[Message] = deque()
        self._filters = []
        for rule in (
            MatchRule(type="signal", interface=REQUEST, member="Response", path_namespace=f"{PATH}/request"),
            MatchRule(type="signal", interface=INTERFACE, member="Activated", path=PATH),
        ):
            conn.send_and_get_reply(_add_match(rule), timeout=_CALL_TIMEOUT_S)
            self._filters.append(conn.filter(rule, queue=self._inbox))
        self._wanted: dict[str, tuple[Chord, Callable[[], None], str]] = {}  # id -> chord, callback, description
        self._pending: dict[str, Callable[[int, dict[str, Any]], None]] = {}  # request path -> its answer
        self.session = ""  # the session handle, once the portal gave one
        self.bound: dict[str, str] = {}  # id -> the keys the desktop bound it to, in its words
        self._bind_timer = QTimer(self, singleShot=True, interval=0)  # one bind for many registrations
        self._bind_timer.timeout.connect(self._bind)
        self._notifier: QSocketNotifier | None = QSocketNotifier(conn.sock.fileno(), QSocketNotifier.Type.Read, self)
        self._notifier.activated.connect(self._drain)

    # ---- the Backend protocol ---------------------------------------------------------------
    def register(self, chord: Chord, callback: Callable[[], None], action: str = "") -> None:
        """Ask for ``chord`` (with the others, in one bind); the desktop answers later."""
        if self._notifier is None:
            raise HotkeyError("The connection to the desktop's portal was lost.")
        self._wanted[_shortcut_id(chord)] = (chord, callback, f"desktop-mt: {action or chord.text}")
        self._bind_timer.start()

    def unregister(self, chord: Chord) -> None:
        """Drop ``chord``: the remaining set is bound again (none left: the session closes)."""
        if self._wanted.pop(_shortcut_id(chord), None) is not None:
            self._bind_timer.start()

    def close(self) -> None:
        """Close the session and the connection."""
        self._bind_timer.stop()
        self._wanted.clear()
        self._close_session()
        if self._notifier is not None:
            self._notifier.setEnabled(False)
            self._notifier = None
        self.conn.close()

    def bound_trigger(self, chord: Chord) -> str:
        """The keys the desktop bound ``chord``'s shortcut to, in its words ("" while it has
        not: the user has not confirmed yet, or the desktop refused it)."""
        return self.bound.get(_shortcut_id(chord), "")

    # ---- the portal's calls ---------------------------------------------------------------
    def _call(self, method: str, signature: str, body: tuple[Any, ...], answer: Callable[..., None]) -> None:
        token = f"desktop_mt_{os.getpid()}_{next(_tokens)}"
        sender = (self.conn.unique_name or "").lstrip(":").replace(".", "_")
        self._pending[f"{PATH}/request/{sender}/{token}"] = answer  # known before the call: no answer missed
        options = {**body[-1], "handle_token": ("s", token)}
        reply = self.conn.send_and_get_reply(
            new_method_call(_PORTAL, method, signature, (*body[:-1], options)), timeout=_CALL_TIMEOUT_S
        )
        if reply.header.message_type == MessageType.error:
            _logger.warning("global shortcuts: the portal's %s failed: %s", method, reply.body)
        QTimer.singleShot(0, self._drain)  # signals jeepney kept while it waited for the reply

    def _bind(self) -> None:
        self._close_session()
        self.bound = {}
        if not self._wanted:
            return
        token = f"desktop_mt_session_{next(_tokens)}"
        self._call("CreateSession", "a{sv}", ({"session_handle_token": ("s", token)},), self._on_session)

    def _on_session(self, code: int, results: dict[str, Any]) -> None:
        if code != 0 or "session_handle" not in results:
            _logger.warning("global shortcuts: the portal refused a session (response %d)", code)
            return
        self.session = str(results["session_handle"][1])
        shortcuts = [
            (sid, {"description": ("s", description), "preferred_trigger": ("s", preferred_trigger(chord))})
            for sid, (chord, _callback, description) in self._wanted.items()
        ]
        self._call("BindShortcuts", "oa(sa{sv})sa{sv}", (self.session, shortcuts, "", {}), self._on_bound)

    def _on_bound(self, code: int, results: dict[str, Any]) -> None:
        if code != 0:
            _logger.warning("global shortcuts: the desktop did not bind them (response %d: cancelled or refused)", code)
            return
        for sid, details in results.get("shortcuts", ("", []))[1]:
            self.bound[sid] = str(details.get("trigger_description", ("s", ""))[1])
        missing = sorted(set(self._wanted) - set(self.bound))
        _logger.info("global shortcuts: the desktop bound %d of %d", len(self.bound), len(self._wanted))
        if missing:
            _logger.warning("global shortcuts: not bound by the desktop: %s", ", ".join(missing))

    def _close_session(self) -> None:
        session, self.session = self.session, ""
        if session:
            close = new_method_call(DBusAddress(session, bus_name=SERVICE, interface=SESSION), "Close")
            try:
                self.conn.send_and_get_reply(close, timeout=_CALL_TIMEOUT_S)
            except (OSError, TimeoutError) as exc:
                _logger.warning("global shortcuts: closing the portal session failed: %s", exc)

    # ---- incoming messages --------------------------------------------------------------------
    def _drain(self) -> None:
        try:
            while True:
                self.conn.recv_messages(timeout=0)
        except TimeoutError:
            pass  # nothing more to read now
        except (OSError, ValueError) as exc:  # the bus went away
            _logger.warning("global shortcuts: the portal connection closed (%s); shortcuts stop", exc)
            if self._notifier is not None:
                self._notifier.setEnabled(False)
                self._notifier = None
        while self._inbox:
            self._handle(self._inbox.popleft())

    def _handle(self, msg: Message) -> None:
        fields = msg.header.fields
        path, member = str(fields.get(HeaderFields.path, "")), str(fields.get(HeaderFields.member, ""))
        if member == "Response":
            answer = self._pending.pop(path, None)
            if answer is not None:
                code, results = msg.body
                answer(int(code), dict(results))
        elif member == "Activated":
            session, sid = str(msg.body[0]), str(msg.body[1])
            wanted = self._wanted.get(sid)
            if session == self.session and wanted is not None:
                wanted[1]()


def _add_match(rule: MatchRule) -> Message:
    return message_bus.AddMatch(rule)


def open_portal_backend(env: Mapping[str, str]) -> tuple[_PortalBackend | None, str]:
    """The portal backend on the session bus, or None and why not."""
    address = env.get("DBUS_SESSION_BUS_ADDRESS", "")
    if not address:
        return None, "there is no session bus (DBUS_SESSION_BUS_ADDRESS is not set). "
    try:
        conn = open_dbus_connection(bus=address)
    except (OSError, ValueError, KeyError) as exc:
        return None, f"the session bus could not be opened ({exc}). "
    if not _portal_supported(conn):
        conn.close()
        return None, "the desktop's portal has no GlobalShortcuts interface. "
    return _PortalBackend(conn), ""
