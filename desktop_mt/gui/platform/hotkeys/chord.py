"""A global shortcut as the OS registration APIs want it: modifiers plus one key.

Settings keep shortcuts as Qt's portable text ("Ctrl+Alt+E", what ``QKeySequenceEdit``
writes); :func:`parse_chord` turns that into a :class:`Chord`, and :data:`_KEYS` gives each key
its code on every platform (the X11 keysym name, the Windows virtual-key code, the macOS
virtual key code of the ANSI layout). Pure Python: the backends and their tests share it.
"""

from __future__ import annotations

import dataclasses
import string

__all__ = [
    "Chord",
    "NO_MAC_KEY",
    "parse_chord",
]


# Qt's portable order of the modifiers in a shortcut's text.
_MODIFIERS = ("meta", "ctrl", "alt", "shift")
_MODIFIER_NAMES = {
    "ctrl": "ctrl",
    "control": "ctrl",
    "alt": "alt",
    "option": "alt",
    "shift": "shift",
    "meta": "meta",
    "super": "meta",
    "win": "meta",
    "cmd": "meta",
}


@dataclasses.dataclass(frozen=True)
class _KeyCodes:
    """One key on each platform: X11 keysym name, Windows VK code, macOS kVK code."""

    x11: str
    windows: int
    mac: int


def _letters_and_digits() -> dict[str, _KeyCodes]:
    # macOS kVK_ANSI_* codes follow the physical ANSI layout, not the alphabet.
    mac = dict(zip("ASDFHGZXCVBQWERYT123465", [*range(0x00, 0x0A), *range(0x0B, 0x18)], strict=True))
    mac.update({"9": 0x19, "7": 0x1A, "8": 0x1C, "0": 0x1D, "O": 0x1F, "U": 0x20, "I": 0x22, "P": 0x23})
    mac.update({"L": 0x25, "J": 0x26, "K": 0x28, "N": 0x2D, "M": 0x2E})
    keys = {c: _KeyCodes(c.lower(), ord(c), mac[c]) for c in string.ascii_uppercase}
    keys.update({d: _KeyCodes(d, ord(d), mac[d]) for d in string.digits})
    return keys


_MAC_F = [0x7A, 0x78, 0x63, 0x76, 0x60, 0x61, 0x62, 0x64, 0x65, 0x6D, 0x67, 0x6F, 0x69, 0x6B, 0x71, 0x6A]
_MAC_F += [0x40, 0x4F, 0x50, 0x5A]  # F17..F20; macOS has no F21..F24 codes
NO_MAC_KEY = -1

# Qt's portable name of each key -> its codes.
_KEYS: dict[str, _KeyCodes] = {
    **_letters_and_digits(),
    **{f"F{n}": _KeyCodes(f"F{n}", 0x6F + n, _MAC_F[n - 1] if n <= 20 else NO_MAC_KEY) for n in range(1, 25)},
    "Space": _KeyCodes("space", 0x20, 0x31),
    "Tab": _KeyCodes("Tab", 0x09, 0x30),
    "Esc": _KeyCodes("Escape", 0x1B, 0x35),
    "Return": _KeyCodes("Return", 0x0D, 0x24),
    "Enter": _KeyCodes("KP_Enter", 0x0D, 0x4C),
    "Backspace": _KeyCodes("BackSpace", 0x08, 0x33),
    "Ins": _KeyCodes("Insert", 0x2D, 0x72),
    "Del": _KeyCodes("Delete", 0x2E, 0x75),
    "Home": _KeyCodes("Home", 0x24, 0x73),
    "End": _KeyCodes("End", 0x23, 0x77),
    "PgUp": _KeyCodes("Prior", 0x21, 0x74),
    "PgDown": _KeyCodes("Next", 0x22, 0x79),
    "Left": _KeyCodes("Left", 0x25, 0x7B),
    "Up": _KeyCodes("Up", 0x26, 0x7E),
    "Right": _KeyCodes("Right", 0x27, 0x7C),
    "Down": _KeyCodes("Down", 0x28, 0x7D),
    "Print": _KeyCodes("Print", 0x2C, NO_MAC_KEY),
    "Pause": _KeyCodes("Pause", 0x13, NO_MAC_KEY),
    ";": _KeyCodes("semicolon", 0xBA, 0x29),
    "=": _KeyCodes("equal", 0xBB, 0x18),
    ",": _KeyCodes("comma", 0xBC, 0x2B),
    "-": _KeyCodes("minus", 0xBD, 0x1B),
    ".": _KeyCodes("period", 0xBE, 0x2F),
    "/": _KeyCodes("slash", 0xBF, 0x2C),
    "`": _KeyCodes("grave", 0xC0, 0x32),
    "[": _KeyCodes("bracketleft", 0xDB, 0x21),
    "\\": _KeyCodes("backslash", 0xDC, 0x2A),
    "]": _KeyCodes("bracketright", 0xDD, 0x1E),
    "'": _KeyCodes("apostrophe", 0xDE, 0x27),
}
_KEY_ALIASES = {
    "escape": "Esc",
    "enter": "Enter",
    "insert": "Ins",
    "delete": "Del",
    "pageup": "PgUp",
    "pagedown": "PgDown",
    "pgdn": "PgDown",
}
_BY_LOWER = {name.lower(): name for name in _KEYS} | _KEY_ALIASES


@dataclasses.dataclass(frozen=True)
class Chord:
    """Modifiers (a subset of :data:`_MODIFIERS`) and one key of :data:`_KEYS`."""

    modifiers: frozenset[str]
    key: str

    @property
    def text(self) -> str:
        """Qt's portable text, as Settings store it and messages name it: "Ctrl+Alt+E"."""
        return "+".join([*(m.capitalize() for m in _MODIFIERS if m in self.modifiers), self.key])

    @property
    def codes(self) -> _KeyCodes:
        """The key's code on each platform."""
        return _KEYS[self.key]

    def __str__(self) -> str:
        return self.text


def parse_chord(sequence: str) -> Chord:
    """Qt portable text ("Ctrl+Alt+E", "Meta+Shift+F9") -> :class:`Chord`.

    Raises ValueError naming what is wrong: empty, an unknown key, or no Ctrl/Alt/Meta (a
    function key alone is allowed), which would take a key away from normal typing."""
    text = sequence.strip()
    # "Ctrl++" is the plus key; split so that a trailing "+" stays a key name.
    parts = text[:-1].split("+") + ["+"] if text.endswith("++") else text.split("+")
    parts = [p.strip() for p in parts]
    if not text or any(not p for p in parts):
        raise ValueError(f"'{sequence}' is not a key combination like Ctrl+Alt+E")
    modifiers = set()
    for part in parts[:-1]:
        name = _MODIFIER_NAMES.get(part.lower())
        if name is None:
            raise ValueError(f"'{part}' in '{sequence}' is not a modifier (Ctrl, Alt, Shift, Meta)")
        modifiers.add(name)
    key = _BY_LOWER.get(parts[-1].lower())
    if key is None:
        raise ValueError(f"Unknown key '{parts[-1]}' in '{sequence}'")
    chord = Chord(frozenset(modifiers), key)
    if not modifiers & {"ctrl", "alt", "meta"} and not (key.startswith("F") and key[1:].isdigit()):
        raise ValueError(f"'{sequence}' needs Ctrl, Alt or Meta (or a function key), or it would swallow normal typing")
    return chord
