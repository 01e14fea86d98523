"""What the Qt-free layers say, in the interface language, at the GUI's edge.

The engine, the batch translator and the app core never import Qt: their messages are
English. Where the GUI shows one, it words it here from the object's type and fields (a
:class:`~desktop_mt.batch.JobSummary`'s counts, a
:class:`~desktop_mt.batch.errors.BatchOutputError`'s errno and paths), so the words are in
the catalog with the rest of the interface; an error this module does not know is said from
the command line's gettext catalog where it carries a translatable template
(:func:`desktop_mt.app.i18n.describe`), else in the layer's own English (:func:`error_text`).
"""

from __future__ import annotations

import errno
import re
from typing import Any

from desktop_mt.app.i18n import ENGLISH, SIMPLIFIED, describe
from desktop_mt.batch.errors import FOLDER_ERRNOS, BatchOutputError, first_non_folder, mount_point
from desktop_mt.engine import direction
from desktop_mt.engine.direction import AUTO, DIRECTION_TITLES, Direction, DirectionUnavailableError, Target

from .i18n import QT_TRANSLATE_NOOP, translate
from .platform.hotkeys.hub import FALLBACK_HINT, NO_X_DISPLAY, WAYLAND_PROBLEM

CJK = re.compile(r"[\u3400-\u9fff\uff00-\uffef）」』]")

__all__ = [
    "FOLDER_ERRNOS",
    "describe_text",
    "described",
    "direction_title",
    "direction_unavailable",
    "error_text",
    "failure",
    "hotkey_error",
    "hotkey_reason",
    "interface_language",
    "job_summary",
    "output_error",
    "sentence",
]


def job_summary(summary: Any) -> str:
    """A file job's summary ("120 segments, 3 kept as they were (already English)") from a
    ``JobSummary``'s counts; the kept segments' reason and the format's notes stay as the batch
    words them (free text)."""
    # The counts as plain names: lupdate reads a translate() call's count only as a name.
    segments, kept, repeated = int(summary.segments), int(summary.kept), int(summary.repeated)
    parts = [translate("Messages", "%n segment(s)", None, segments)]
    if kept:
        said = translate("Messages", "%n kept as they were", None, kept)
        parts.append(said + (translate("Messages", " ({why})").format(why=summary.why) if summary.why else ""))
    if repeated:
        parts.append(translate("Messages", "%n repeated (translated once)", None, repeated))
    text = translate("Messages", ", ").join(parts)
    return text + "".join(translate("Messages", "; {note}").format(note=note) for note in summary.notes)


def _reason_and_fix(exc: BatchOutputError) -> tuple[str, str]:
    """:meth:`BatchOutputError._reason_and_fix` in the interface language (the GUI's remedies:
    translate the file again, choose another output folder)."""
    folder, code = exc.output.parent, exc.errno
    choose = translate("Messages", "choose another output folder")
    again = translate("Messages", "then translate the file again")
    if code == errno.ENOSPC:
        return translate("Messages", "the disk is full"), translate("Messages", "free space on {drive}, {then}").format(
            drive=mount_point(folder), then=again
        )
    if code == getattr(errno, "EDQUOT", errno.ENOSPC):
        return translate("Messages", "the disk quota is exceeded"), translate(
            "Messages", "free space on {drive}, {then}"
        ).format(drive=mount_point(folder), then=again)
    if code in (errno.EACCES, errno.EPERM):
        return (
            translate("Messages", "permission denied in the folder {folder}").format(folder=folder),
            translate("Messages", "{choose}, or make {folder} writable").format(choose=choose, folder=folder),
        )
    if code == errno.EROFS:
        return translate("Messages", "{folder} is on a read-only file system").format(folder=folder), choose
    if code == errno.ENOENT:
        return (
            translate("Messages", "the folder {folder} does not exist").format(folder=folder),
            translate("Messages", "create it, or {choose}").format(choose=choose),
        )
    if code in (errno.ENOTDIR, errno.EEXIST):
        return translate("Messages", "{path} is a file, not a folder").format(path=first_non_folder(folder)), choose
    if code == errno.EISDIR:
        return (
            translate("Messages", "a folder of that name is in the way"),
            translate("Messages", "remove or rename that folder, or {choose}").format(choose=choose),
        )
    return exc.strerror, translate("Messages", "check the disk, or {choose}").format(choose=choose)


def output_error(exc: BatchOutputError) -> str:
    """A file job's output (or journal) that could not be written: which file, why, the fix,
    and how much is saved in the journal."""
    if exc.journal_failed:
        subject = translate("Messages", "{journal}: cannot write the progress journal of {output}").format(
            journal=exc.journal, output=exc.output
        )
    else:
        subject = translate("Messages", "{output}: cannot write the output").format(output=exc.output)
    reason, fix = _reason_and_fix(exc)
    kept = ""
    if exc.kept and exc.journal is not None:
        kept = translate("Messages", " ({kept} of {total} segments translated so far are saved in {journal})").format(
            kept=exc.kept, total=exc.total, journal=exc.journal
        )
    return translate("Messages", "{subject}: {reason}; {fix}{kept}").format(
        subject=subject, reason=reason, fix=fix, kept=kept
    )


# engine.direction.DIRECTION_TITLES (the one table of the directions' titles) marked for lupdate,
# which reads only literal strings: every window part says a title in this context through
# direction_title; a test checks these are the engine's titles, in its order.
MARKED_DIRECTION_TITLES = (
    QT_TRANSLATE_NOOP("Messages", "English → Chinese"),
    QT_TRANSLATE_NOOP("Messages", "Chinese → English"),
)


def direction_title(way: Direction) -> str:
    """A direction's title in the interface language ("English → Chinese", "英文 → 中文")."""
    return translate("Messages", DIRECTION_TITLES[way])


# engine.direction.describe()'s other words, marked for lupdate: the languages' names
# (LANGUAGE_NAMES, in its order) and the sentences describe() puts a name in, long and short. A
# test checks that these are the engine's words; the window says them through ``described``.
MARKED_LANGUAGE_NAMES = (
    QT_TRANSLATE_NOOP("Messages", "English"),
    QT_TRANSLATE_NOOP("Messages", "Chinese"),
    QT_TRANSLATE_NOOP("Messages", "Japanese"),
    QT_TRANSLATE_NOOP("Messages", "Korean"),
)
_MIXED_WORDS = (
    QT_TRANSLATE_NOOP("Messages", "mixed: each sentence into the other language"),
    QT_TRANSLATE_NOOP("Messages", "mixed"),
)
_LANGUAGE_WORDS = (
    QT_TRANSLATE_NOOP("Messages", "{language}: left as it is"),
    QT_TRANSLATE_NOOP("Messages", "{language}: already {language}, left as it is"),
    QT_TRANSLATE_NOOP("Messages", "{language}: kept"),
)


def described(said: str) -> str:
    """:func:`engine.direction.describe`'s words (long or short) in the interface language:
    a direction's title (:func:`direction_title`), "mixed...", "Japanese: left as it is"
    ("日文：保持原样"); words it does not know (none today) as they are."""
    titles = {title: way for way, title in DIRECTION_TITLES.items()}
    if said in titles:
        return direction_title(titles[said])
    if said in _MIXED_WORDS:
        return translate("Messages", said)
    for template in _LANGUAGE_WORDS:
        for name in MARKED_LANGUAGE_NAMES:
            if template.format(language=name) == said:
                return translate("Messages", template).format(language=translate("Messages", name))
    return said


def describe_text(text: str, target: Target = AUTO, *, short: bool = False) -> str:
    """What happens to ``text`` (:func:`engine.direction.describe`) in the interface language;
    "" when nothing is to be done."""
    return described(direction.describe(text, target, short=short))


def direction_unavailable(exc: DirectionUnavailableError) -> str:
    """Text that needs a direction no loaded model translates: which, and the model to get
    (the engine's English where it added a detail this wording would lose)."""
    if str(exc) != str(DirectionUnavailableError(exc.direction, model=exc.model)):
        return str(exc)
    way = direction_title(exc.direction)
    if exc.model:
        return translate(
            "Messages",
            "no {way} model is available; download {model} in File > Models… "
            "(or with `desktop-mt models download {model}`)",
        ).format(way=way, model=exc.model)
    return translate("Messages", "no {way} model is available; install one and choose it in File > Models…").format(
        way=way
    )


def error_text(exc: BaseException) -> str:
    """An error of a Qt-free layer in the interface language: worded here where its type is
    known, else from the gettext catalog the command line shares (app.i18n.describe: the
    common errors carry a translatable template), else its own English message, which names
    the file and the fix."""
    if isinstance(exc, BatchOutputError):
        return output_error(exc)
    if isinstance(exc, DirectionUnavailableError):
        return direction_unavailable(exc)
    return describe(exc, interface_language())


def interface_language() -> str:
    """ "zh_CN" while the window's Chinese translators are installed, else "en": the language
    the window speaks now, told by whether a sentence of this module is translated (the
    Settings' "system" choice was resolved by Qt's locale, which gettext cannot read)."""
    probe = MARKED_DIRECTION_TITLES[0]
    return SIMPLIFIED if translate("Messages", probe) != probe else ENGLISH


def sentence(message: str) -> str:
    """``message`` as a sentence for a banner: capitalised, ending in a full stop (a Chinese
    one ends as it is)."""
    if not message or message.endswith((".", "。", "!", "！", "?", "？")):
        return message[:1].upper() + message[1:]
    return message[:1].upper() + message[1:] + ("。" if CJK.search(message[-1]) else ".")


def failure(what: str, exc: BaseException) -> str:
    """A bug's message ("Translation failed (KeyError: 'x'). Details are in the log file."):
    ``what`` is the translated lead ("Translation failed")."""
    return translate("Messages", "{what} ({error}: {message}). Details are in the log file.").format(
        what=what, error=type(exc).__name__, message=exc
    )


# The global-shortcut layer (gui/hotkeys, Qt-free) words its reasons from these sentences; the
# same English is marked here, and a test checks that each is still the layer's.
HOTKEY_SENTENCES = (
    (
        WAYLAND_PROBLEM,
        QT_TRANSLATE_NOOP(
            "Messages",
            "Global shortcuts need the desktop's GlobalShortcuts portal on Wayland (KDE Plasma 6, GNOME 48 "
            "or newer): apps may not grab keys there. Without it, bind `desktop-mt show` or "
            "`desktop-mt --clipboard` to a shortcut in the desktop's keyboard settings. ",
        ),
    ),
    (
        NO_X_DISPLAY,
        QT_TRANSLATE_NOOP("Messages", "Global shortcuts are unavailable: there is no X display (DISPLAY is not set). "),
    ),
    (
        FALLBACK_HINT,
        QT_TRANSLATE_NOOP(
            "Messages", 'Use the in-app shortcut Ctrl+Shift+V or the tray icon\'s "Translate clipboard" instead.'
        ),
    ),
)


def hotkey_reason(reason: str) -> str:
    """Why global shortcuts cannot work here (``HotkeyHub.reason``) in the interface language:
    its known sentences translated, any other words (an OS error) as they are."""
    for english, marked in HOTKEY_SENTENCES:
        if english == marked:
            reason = reason.replace(english, translate("Messages", marked))
    return reason


# The same layer's refusals of one shortcut, as it words them (hotkeys/base.py, hub.py,
# chord.py): the English templates, marked; a test checks each against the layer's own text.
_HOTKEY_ERRORS = (
    QT_TRANSLATE_NOOP("Messages", "{keys} is used by another program. Choose another shortcut in Settings."),
    QT_TRANSLATE_NOOP("Messages", "{keys} is already the shortcut for {action}."),
    QT_TRANSLATE_NOOP("Messages", "'{keys}' is not a key combination like Ctrl+Alt+E"),
    QT_TRANSLATE_NOOP("Messages", "'{part}' in '{keys}' is not a modifier (Ctrl, Alt, Shift, Meta)"),
    QT_TRANSLATE_NOOP("Messages", "Unknown key '{part}' in '{keys}'"),
    QT_TRANSLATE_NOOP(
        "Messages", "'{keys}' needs Ctrl, Alt or Meta (or a function key), or it would swallow normal typing"
    ),
)


def _template_pattern(template: str) -> re.Pattern[str]:
    """A regular expression matching ``template``'s English with its ``{fields}`` as groups."""
    parts = re.split(r"\{(\w+)\}", template)
    return re.compile("^" + "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts)) + "$")


def hotkey_error(message: str) -> str:
    """Why one shortcut could not be registered, in the interface language where the layer
    worded it from a known template (its fields kept); else as it is (an OS error)."""
    for template in _HOTKEY_ERRORS:
        found = _template_pattern(template).match(message)
        if found:
            return translate("Messages", template).format(**found.groupdict())
    return message
