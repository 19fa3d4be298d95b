"""The kit's exception types: every error the kit raises on bad input is a :class:`StrategolabError`.

Messages quote what they found with :func:`shown` (and name files with :func:`printable`), so a hostile
name or value can neither drive the terminal (escape codes, fake lines) nor flood it (megabytes echoed).
"""

from __future__ import annotations

import re

_UNPRINTABLE = re.compile(r"[^\x20-\x7e]")  # the candidates: str.isprintable decides
SHOWN_CHARS = 60  # a value in a message is cut to this many characters
NAME_CHARS = 200  # a file name (or zip member name) in a message is cut to this many


def printable(text: str, limit: int = NAME_CHARS) -> str:
    """``text`` with every character a terminal would act on (control codes, line breaks, bidi overrides)
    written as a Python escape, and cut in the middle to about ``limit`` characters."""
    if not text.isprintable():
        text = _UNPRINTABLE.sub(lambda m: m.group() if m.group().isprintable() else repr(m.group())[1:-1], text)
    if len(text) > limit:
        half = limit // 2
        text = f"{text[:half]}...({len(text) - 2 * half:,} characters)...{text[-half:]}"
    return text


def shown(value: object, limit: int = SHOWN_CHARS) -> str:
    """A found value as a message quotes it: ``repr`` (control characters escaped), cut to ``limit``
    characters with the full length said, so a 4 MB attribute costs a line, not 4 MB of output."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


class StrategolabError(Exception):
    """Base class of every error the kit raises about a user's input."""


class IllegalMoveError(StrategolabError, ValueError):
    """A move the rules refuse; ``reason`` says why in words a player understands."""

    def __init__(self, move: object, reason: str) -> None:
        super().__init__(f"illegal move {move}: {reason}")
        self.move = move
        self.reason = reason


class SetupError(StrategolabError, ValueError):
    """A setup that breaks the rule set (wrong pieces, wrong rows, bad setup string)."""


class RecordError(StrategolabError, ValueError):
    """A problem in a game file, located by file name, line and column where they are known (the name as
    :func:`printable` shows it)."""

    def __init__(self, message: str, source: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        where = ":".join(printable(x) if isinstance(x, str) else str(x)
                         for x in (source, line, column) if x is not None)
        super().__init__(f"{where}: {message}" if where else message)
        self.message = message
        self.source = source
        self.line = line
        self.column = column

    def __reduce__(self) -> tuple[type[RecordError], tuple[str, str | None, int | None, int | None]]:
        # Keep source, line and column when the error is pickled (worker processes, saved games).
        return type(self), (self.message, self.source, self.line, self.column)
