"""The kit's exception types: every error the kit raises on bad input is a :class:`StrategolabError`."""

from __future__ import annotations


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
    """A problem in a game file, located by file name, line and column where they are known."""

    def __init__(self, message: str, source: str | None = None, line: int | None = None,
                 column: int | None = None) -> None:
        where = ":".join(str(x) for x in (source, line, column) if x is not None)
        super().__init__(f"{where}: {message}" if where else message)
        self.message = message
        self.source = source
        self.line = line
        self.column = column
