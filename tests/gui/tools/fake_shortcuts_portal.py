"""A fake ``org.freedesktop.portal.Desktop`` with the GlobalShortcuts interface, for tests on a
private session bus (DBUS_SESSION_BUS_ADDRESS). It answers as the real portal does: each call
returns its Request path (made from the caller's name and ``handle_token``) and then emits
``Response`` on it; BindShortcuts binds every shortcut asked for (trigger_description = its
preferred trigger) unless the command line names ids to refuse (``--refuse ID``).

Prints one line per event on stdout ("ready", "session PATH", "bound ID TRIGGER DESCRIPTION",
"closed PATH"); reads "activate ID" lines on stdin and emits ``Activated`` for the last session.
"""

from __future__ import annotations

import sys
import threading

from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

PATH = "/org/freedesktop/portal/desktop"
INTERFACE = "org.freedesktop.portal.GlobalShortcuts"
INTROSPECTION = f"""<node>
  <interface name="{INTERFACE}">
    <method name="CreateSession"><arg type="a{{sv}}" direction="in"/><arg type="o" direction="out"/></method>
    <method name="BindShortcuts"><arg type="o" direction="in"/><arg type="a(sa{{sv}})" direction="in"/>
      <arg type="s" direction="in"/><arg type="a{{sv}}" direction="in"/><arg type="o" direction="out"/></method>
    <signal name="Activated"><arg type="o"/><arg type="s"/><arg type="t"/><arg type="a{{sv}}"/></signal>
  </interface>
</node>"""


def main() -> None:
    refuse = set(sys.argv[sys.argv.index("--refuse") + 1 :]) if "--refuse" in sys.argv else set()
    conn = open_dbus_connection(bus="SESSION")
    conn.send_and_get_reply(message_bus.RequestName("org.freedesktop.portal.Desktop"))
    lock = threading.Lock()  # two threads send: the stdin reader and the main loop
    sessions: list[str] = []

    def send(msg) -> None:
        with lock:
            conn.send(msg)

    def respond(request: str, results: dict) -> None:
        send(
            new_signal(
                DBusAddress(request, interface="org.freedesktop.portal.Request"), "Response", "ua{sv}", (0, results)
            )
        )

    def read_stdin() -> None:
        for line in sys.stdin:
            words = line.split()
            if words[:1] == ["activate"] and sessions:
                body = (sessions[-1], words[1], 0, {})
                send(new_signal(DBusAddress(PATH, interface=INTERFACE), "Activated", "osta{sv}", body))

    threading.Thread(target=read_stdin, daemon=True).start()
    print("ready", flush=True)
    while True:
        msg = conn.receive()
        if msg.header.message_type != MessageType.method_call:
            continue
        fields = msg.header.fields
        member, path = fields.get(HeaderFields.member), fields.get(HeaderFields.path)
        sender = str(fields.get(HeaderFields.sender, "")).lstrip(":").replace(".", "_")
        if member == "Introspect":
            send(new_method_return(msg, "s", (INTROSPECTION,)))
        elif member == "CreateSession":
            options = msg.body[0]
            request = f"{PATH}/request/{sender}/{options['handle_token'][1]}"
            session = f"{PATH}/session/{sender}/{options['session_handle_token'][1]}"
            sessions.append(session)
            send(new_method_return(msg, "o", (request,)))
            print(f"session {session}", flush=True)
            respond(request, {"session_handle": ("o", session)})
        elif member == "BindShortcuts":
            session, shortcuts, _parent, options = msg.body
            request = f"{PATH}/request/{sender}/{options['handle_token'][1]}"
            send(new_method_return(msg, "o", (request,)))
            bound = []
            for sid, details in shortcuts:
                if sid in refuse:
                    continue
                trigger = details["preferred_trigger"][1]
                print(f"bound {sid} {trigger} {details['description'][1]}", flush=True)
                bound.append((sid, {"description": details["description"], "trigger_description": ("s", trigger)}))
            respond(request, {"shortcuts": ("a(sa{sv})", bound)})
        elif member == "Close" and path in sessions:
            sessions.remove(path)
            send(new_method_return(msg))
            print(f"closed {path}", flush=True)
        else:
            send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod"))


if __name__ == "__main__":
    main()
