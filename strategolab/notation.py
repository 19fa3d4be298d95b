"""The kit's own game notation: a streaming reader that checks every move with the engine, and a
canonical writer.  The format is specified in ``docs/notation.md``.

The reader cuts the input into games at header lines (a ``[`` at the start of a line), so one bad game
never hides the next.  Within a game, plain move text (numbered moves and battles) is split on spaces and
looked up in tables; anything else goes through one compiled regular expression that also locates errors.
The engine (``illegal_reason``, then ``push``) decides whether each move is legal and what battle it causes.
Every problem is a :class:`~strategolab.errors.RecordError` naming the file, line and column, what was
found and what was expected.  ``strict=True`` raises at the first problem; ``strict=False`` collects the problems, keeps
what it could read of a bad game (``game.errors``) and goes on with the next one.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Generator, Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any, NamedTuple

from strategolab.board import Square, geometry, parse_square, square_name
from strategolab.errors import RecordError, shown
from strategolab.files import atomic_output
from strategolab.records import _NO_MARKS, MARK_SYMBOLS, MARKS, MAX_MARK, Game, GameNode, normalize_comment
from strategolab.rules import (
    BLUE,
    EXTRA_RULESETS,
    PLAYER_NAMES,
    RED,
    RULESETS,
    BattleResult,
    PieceType,
    Ruleset,
)
from strategolab.setups import Setup
from strategolab.state import Battle, Move, Rescue, State, Termination

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
ROSTER = ("Event", "Site", "Date", "Round", "Red", "Blue", "Result", "Termination", "Annotator")
START_KEYS = ("Ruleset", "FirstPlayer", "RedSetup", "BlueSetup", "Position")
WIDTH = 80  # the writer wraps move text at this many characters
# Limits that keep a hostile file from taking the reader's memory (each refused with a located error, and
# refused by the writer too, so that nothing it writes is unreadable); real records are far below them.
MAX_HEADER_CHARS = 65_536  # characters in one header line
MAX_HEADERS = 1_000  # header lines of one game
MAX_MOVES = 200_000  # moves of one game, variations included (the longest Gravon games have a few thousand)
MAX_PROBLEMS = 50  # undecodable lines reported per game
_BLOCK_LINES = 1024  # move-text lines joined into one string as they are read

# Terminations the engine can confirm from the final position; others (resignation ...) are taken on trust.
_CHECKED_TERMINATIONS = {t.value for t in (Termination.FLAG_CAPTURED, Termination.NO_LEGAL_MOVE,
                                           Termination.NEITHER_CAN_MOVE, Termination.QUIET_MOVE_LIMIT)}
_RELATION = {BattleResult.ATTACKER_WINS: ">", BattleResult.DEFENDER_WINS: "<", BattleResult.BOTH_DIE: "="}

Source = str | os.PathLike[str] | IO[str] | IO[bytes]
_Fail = Callable[[str | None, str], RecordError]  # makes a RecordError located at a header

# One token of move text.  The common case, a plain move, is the first alternative; anything that is no
# token at all ends up in "bad", so every non-space character is accounted for.
_TOKEN = re.compile(r"""\s*+(?:
    (?P<move>[A-Za-z][0-9]{1,2}[-x][A-Za-z][0-9]{1,2})(?P<suffix>!!|\?\?|!\?|\?!|!|\?)?
  | (?P<number>[0-9]{1,5})(?P<dots>\.(?:\.\.)?)
  | (?P<battle>(?:10|[^\s(){}$<>=])[<>=](?:10|[^\s(){}$<>=]))
  | \+(?P<rescue>(?:10|[^\s(){}$<>=@])@[A-Za-z][0-9]{1,2})
  | (?P<result>1-0|0-1|1/2-1/2|\*)
  | \{(?P<comment>[^\\}]*+(?:\\.[^\\}]*+)*+)\}
  | (?P<open>\()
  | (?P<close>\))
  | \$(?P<nag>[0-9]{1,4})
  | (?P<mark>!!|\?\?|!\?|\?!|!|\?)
  | (?P<unclosed>\{)
  | (?P<bad>[^\s(){}]+|\})
)""", re.VERBOSE | re.DOTALL)
_MOVE_PARTS = re.compile(r"([A-Za-z][0-9]{1,2})([-x])([A-Za-z][0-9]{1,2})")
_BATTLE_PARTS = re.compile(r"(10|.)([<>=])(10|.)", re.DOTALL)
_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)
_NON_SPACE = re.compile(r"\S")
# Possessive (``*+``, ``++``): no backtracking state is kept per character, so a long value costs nothing extra.
_HEADER = re.compile(r'\[[ \t]*+([A-Za-z][A-Za-z0-9_]*+)[ \t]*+"((?:[^"\\\r]++|\\[^\r])*+)"[ \t]*+\]\s*+')
_WORD = re.compile(r"\S+")
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_BLANKS = re.compile(r"[ \t]*")

# Where a comment goes: the game (before any move), the last move, or the next move (after "(" or a number).
_ROOT, _NODE, _START = 0, 1, 2


# -- reading ------------------------------------------------------------------------------------------


class _Chunk(NamedTuple):
    """The lines of one game: headers with their line numbers, then the move text."""

    headers: list[tuple[int, str]]
    body_line: int  # line number of the first move-text line (or where it should have been)
    body: str  # the move text, lines joined by "\n"
    problems: list[RecordError]  # undecodable lines met while cutting this game out
    refused: RecordError | None = None  # a header over the limits: the game is not read


class _Lines:
    """Lines joined into blocks as they arrive, so that a million short lines cost their characters rather
    than a million string objects."""

    __slots__ = ("blocks", "pending")

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.pending: list[str] = []

    def append(self, line: str) -> None:
        self.pending.append(line)
        if len(self.pending) >= _BLOCK_LINES:
            self.blocks.append("\n".join(self.pending))
            self.pending.clear()

    def __bool__(self) -> bool:
        return bool(self.blocks or self.pending)

    def text(self) -> str:
        return "\n".join([*self.blocks, "\n".join(self.pending)] if self.pending else self.blocks)


class GameReader:
    """The games of one source, read lazily; iterate over it.  ``errors`` lists every problem met so far
    (in strict mode the first one is raised instead)."""

    def __init__(self, source: Source, *, strict: bool = True, name: str | None = None,
                 rulesets: Iterable[Ruleset] = ()) -> None:
        if isinstance(source, str):
            default = "<string>"
        elif isinstance(source, os.PathLike):
            default = os.fspath(source)
        elif hasattr(source, "read"):
            default = str(getattr(source, "name", "<stream>"))
        else:
            raise TypeError(f"read_games needs record text (str), a path (pathlib.Path) or an open file, "
                            f"not {type(source).__name__}")
        if isinstance(rulesets, str | Ruleset) or not isinstance(rulesets, Iterable):
            raise TypeError(f"rulesets= takes a list of Ruleset values (custom rule sets), not {rulesets!r}")
        extra = list(rulesets)
        for r in extra:
            if not isinstance(r, Ruleset):
                raise TypeError(f"rulesets= takes Ruleset values, not {type(r).__name__} {r!r}")
        self.name = name or default
        self.strict = strict
        self.errors: list[RecordError] = []
        self.rulesets: dict[str, Ruleset] = {**RULESETS, **EXTRA_RULESETS, **{r.name: r for r in extra}}
        self._source = source
        self._games: Generator[Game, None, None] = self._read()

    def __iter__(self) -> Iterator[Game]:
        return self

    def __next__(self) -> Game:
        return next(self._games)

    def close(self) -> None:
        """Stop reading and close the file this reader opened (if any)."""
        self._games.close()

    def __enter__(self) -> GameReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _fail(self, error: RecordError, item: Game | ScannedGame | None = None) -> None:
        if self.strict:
            raise error
        self.errors.append(error)
        if item is not None:
            item.errors.append(error)

    def _read(self) -> Generator[Any, None, None]:
        """One item per game (:meth:`_item`), its move text read into it by :meth:`_fill`; a problem goes to
        the item's ``errors`` too (lenient mode), and the item is kept as far as it was read."""
        chunks = self._chunks()
        while True:
            try:
                chunk = next(chunks)
            except StopIteration:
                return
            except RecordError as e:  # the source itself failed (unreadable file, undecodable stream)
                self._fail(e)
                return
            item = None
            try:
                for problem in chunk.problems:
                    self._fail(problem)
                game, where = self._start(chunk)
                item = self._item(game, chunk)
                self._fill(item, game, chunk, where)
            except RecordError as e:
                self._fail(e, item)
            if item is not None:
                yield item

    def _item(self, game: Game, chunk: _Chunk) -> Any:
        """What this reader yields for a game whose headers and start position were read."""
        game.errors.extend(chunk.problems)
        return game

    def _fill(self, item: Any, game: Game, chunk: _Chunk, where: dict[str, tuple[int, int]]) -> None:
        """Read the game's move text into the item (raises :class:`RecordError` at the first problem)."""
        _Moves(self, game, chunk, where).read()

    # -- lines and chunks -------------------------------------------------------------------------------

    def _lines(self) -> Iterator[tuple[int, str, RecordError | None]]:
        """Numbered lines without their line ends, each with its decoding problem if it has one."""
        source = self._source
        if isinstance(source, str):  # one line at a time: a list of every line would cost far more than the text
            start = 0
            for n in itertools.count(1):
                end = source.find("\n", start)
                line = source[start:] if end < 0 else source[start:end]
                yield n, line.removeprefix("\ufeff") if n == 1 else line, None
                if end < 0:
                    return
                start = end + 1
        if isinstance(source, os.PathLike):
            try:
                with open(source, "rb") as f:
                    yield from self._decoded(f)
            except OSError as e:
                raise RecordError(f"cannot read the file: {e.strerror or e}", self.name) from None
            return
        yield from self._decoded(source)

    def _decoded(self, stream: IO[str] | IO[bytes]) -> Iterator[tuple[int, str, RecordError | None]]:
        n = 0
        try:
            for n, raw in enumerate(stream, 1):
                problem = None
                if isinstance(raw, bytes):
                    body = memoryview(raw)[:-1] if raw.endswith(b"\n") else raw  # no copy of a long line
                    try:
                        line = str(body, "utf-8")
                    except UnicodeDecodeError as e:
                        line = str(body, "utf-8", "replace")
                        column = len(raw[:e.start].decode("utf-8", "replace")) + 1
                        problem = RecordError(f"found bytes that are not UTF-8 ({raw[e.start:e.end]!r}), "
                                              f"expected UTF-8 text", self.name, n, column)
                    del body, raw  # only the decoded line stays
                else:
                    line = str(raw)
                    del raw
                    if line.endswith("\n"):
                        line = line[:-1]
                yield n, line.removeprefix("\ufeff") if n == 1 else line, problem
        except UnicodeDecodeError as e:
            raise RecordError(f"found text that is not valid in the file's encoding: {e.reason}", self.name,
                              n + 1) from None

    def _chunks(self) -> Iterator[_Chunk]:
        """Cut the lines into games: a header line after move text starts the next game.  A header line over
        :data:`MAX_HEADER_CHARS`, or a header beyond :data:`MAX_HEADERS`, is not kept: it refuses the game."""
        headers: list[tuple[int, str]] = []
        body = _Lines()
        problems: list[RecordError] = []
        refused: RecordError | None = None
        body_line = n = 0
        for n, line, problem in self._lines():
            if line[:1] == "[":
                if body:
                    chunk = _Chunk(headers, body_line, body.text(), problems, refused)
                    headers, body, problems, refused = [], _Lines(), [], None
                    yield chunk
                if refused is None:
                    refused = self._over_limits(n, line, len(headers))
                    if refused is None:
                        headers.append((n, line))
            elif body:
                body.append(line)
            elif line.strip():
                body_line = n
                body.append(line)
            if problem is not None and len(problems) <= MAX_PROBLEMS:  # a hostile file may have a million
                problems.append(problem if len(problems) < MAX_PROBLEMS else
                                RecordError(f"further lines that are not UTF-8 left out (more than {MAX_PROBLEMS} "
                                            f"in one game)", self.name, n))
        if headers or body or problems or refused:
            yield _Chunk(headers, body_line if body else (headers[-1][0] + 1 if headers else n), body.text(),
                         problems, refused)

    def _over_limits(self, n: int, line: str, headers: int) -> RecordError | None:
        """Why the header ``line`` (line ``n``, after ``headers`` others) is not kept, if it is not."""
        if len(line) > MAX_HEADER_CHARS:
            return RecordError(f"found a header line of {len(line):,} characters, expected at most "
                               f"{MAX_HEADER_CHARS:,} (a header holds one short line of text)", self.name, n,
                               MAX_HEADER_CHARS + 1)
        if headers == MAX_HEADERS:
            return RecordError(f"found more than {MAX_HEADERS:,} headers, expected at most {MAX_HEADERS:,} for "
                               f"one game", self.name, n, 1)
        return None

    # -- headers and the start position --------------------------------------------------------------

    def _start(self, chunk: _Chunk) -> tuple[Game, dict[str, tuple[int, int]]]:
        """The game with its headers and start position, and where each header's value starts."""
        if chunk.refused is not None:
            raise chunk.refused
        if not chunk.headers:
            first = chunk.body.partition("\n")[0]
            col = len(first) - len(first.lstrip()) + 1
            hint = ""
            if isinstance(self._source, str) and "\n" not in self._source and "[" not in self._source:
                hint = " (to read a file, pass a pathlib.Path rather than its name as a str)"
            raise RecordError(f"found {_show(first.strip())}, expected a game's headers, like "
                              f'[Event "..."]{hint}', self.name, chunk.body_line, col)
        values: dict[str, str] = {}
        where: dict[str, tuple[int, int]] = {}
        for n, line in chunk.headers:
            m = _HEADER.fullmatch(line)
            if m is None:
                col, message = _header_problem(line)
                raise RecordError(message, self.name, n, col)
            key = m.group(1)
            if key in values:
                raise RecordError(f"found a second [{key}] header, expected each header once (did the "
                                  f"previous game lose its moves and result?)", self.name, n, m.start(1) + 1)
            value = m.group(2)
            values[key] = _UNESCAPE.sub(r"\1", value) if "\\" in value else value
            where[key] = (n, m.start(2))  # the column of the opening quote
        first_line = chunk.headers[0][0]

        def fail(key: str | None, message: str) -> RecordError:
            line, col = where.get(key or "", (first_line, 1))
            return RecordError(message, self.name, line, col)

        result = values.get("Result")
        if result is not None and result not in RESULTS:
            raise fail("Result", f"found result {shown(result)}, expected one of {', '.join(RESULTS)}")
        rs_name = values.get("Ruleset", "classic")
        rs = self.rulesets.get(rs_name)
        if rs is None:
            raise fail("Ruleset", f"found ruleset {shown(rs_name)}, expected one of {', '.join(self.rulesets)}")
        start = _start_state(values, rs, fail)
        return Game(start, {k: v for k, v in values.items() if k not in START_KEYS}), where


def _start_state(values: dict[str, str], rs: Ruleset, fail: _Fail) -> State:
    """The start position the headers describe: a position string, or two setups."""
    if "Position" in values:
        for key in ("RedSetup", "BlueSetup", "FirstPlayer"):
            if key in values:
                raise fail(key, f"found [{key}] together with [Position], expected one or the other "
                                f"(the position string holds the whole board and the side to move)")
        try:
            return State.from_position(values["Position"], rs)
        except ValueError as e:
            raise fail("Position", f"bad [Position]: {e}") from None
    if "RedSetup" not in values and "BlueSetup" not in values:
        raise fail(None, "found no start position, expected [RedSetup] and [BlueSetup] headers, "
                         "or a [Position] header")
    setups: list[Setup] = []
    for player, key in ((RED, "RedSetup"), (BLUE, "BlueSetup")):
        if key not in values:
            other = "BlueSetup" if player == RED else "RedSetup"
            raise fail(other, f"found [{other}] without [{key}], expected both setups")
        try:
            setups.append(Setup.parse(values[key], rs))
        except ValueError as e:
            raise fail(key, f"bad [{key}]: {e}") from None
    first = values.get("FirstPlayer")
    if first is not None and first not in PLAYER_NAMES:
        raise fail("FirstPlayer", f"found [FirstPlayer {shown(first)}], expected \"Red\" or \"Blue\"")
    try:  # State.new validates both setups; only a bad one is looked at again, to say which header it is
        return State.new(setups[0], setups[1], rs, None if first is None else PLAYER_NAMES.index(first))
    except ValueError as e:
        key = "RedSetup" if setups[0].problems() else "BlueSetup"
        raise fail(key, f"bad [{key}]: {'; '.join(setups[key == 'BlueSetup'].problems()) or e}") from None


def _header_problem(line: str) -> tuple[int, str]:
    """Column and message for a header line that does not parse: say what is wrong, not just that it is."""
    i = _BLANKS.match(line, 1).end()  # type: ignore[union-attr]  # indexes, not slices: a line may be long
    key = _KEY.match(line, i)
    if key is None:
        return i + 1, f"found {_show(line[i:i + 40])}, expected a header name after '[', like [Event \"...\"]"
    j = _BLANKS.match(line, key.end()).end()  # type: ignore[union-attr]
    if line[j:j + 1] != '"':
        return j + 1, f"found {_show(line[j:j + 40])}, expected a quoted value after the header name {key.group()}"
    k = j + 1
    while k < len(line) and line[k] != '"':
        if line[k] == "\r" or line[k:k + 2] == "\\\r":
            return k + 1 + (line[k] != "\r"), ("found a carriage return inside the header value, expected one "
                                               "line of text (a line break of an old Mac file?)")
        k += 2 if line[k] == "\\" else 1
    if k >= len(line):
        return len(line) + 1, "found the end of the line, expected '\"' to close the header value"
    k = _BLANKS.match(line, k + 1).end()  # type: ignore[union-attr]
    if line[k:k + 1] != "]":
        return k + 1, f"found {_show(line[k:k + 40])}, expected ']' to close the header"
    rest = _NON_SPACE.search(line, k + 1)
    if rest is not None:
        at = rest.start()
        return at + 1, f"found {_show(line[at:at + 40])} after the header, expected nothing more on its line"
    return 1, 'found a line that does not read as a header, expected [Name "value"]'  # no case above names it


def _show(text: str) -> str:
    """A found token as shown in messages: its first word, quoted."""
    if not text:
        return "the end of the line"
    word = text.split(maxsplit=1)[0] if not text[0].isspace() else text[0]
    return repr(word[:30] + ("..." if len(word) > 30 else ""))


_MOVE_TABLES: dict[Ruleset, dict[str, tuple[Move, bool]]] = {}


def _move_table(rs: Ruleset) -> dict[str, tuple[Move, bool]]:
    """Every straight-line move on the board by its text, ``A4-A5`` and ``A4xA5``: one dict lookup per move."""
    table = _MOVE_TABLES.get(rs)
    if table is None:
        geo = geometry(rs)
        table = {}
        for f in geo.land:
            for ray in geo.rays[f]:
                for to in ray:
                    move = Move(f, to)
                    a, b = square_name(f), square_name(to)
                    table[f"{a}-{b}"] = (move, False)
                    table[f"{a}x{b}"] = (move, True)
        _MOVE_TABLES[rs] = table
    return table


def _ten_alias(rs: Ruleset) -> str | None:
    """The symbol ``10`` stands for in battle annotations (as in setup strings), if the army has such a piece."""
    return next((rs.symbol(p) for p in rs.piece_types if p.label(rs.notation) == "10"), None)


def battle_text(battle: Battle, ruleset: Ruleset) -> str:
    """A battle as the notation writes it: the attacker's symbol in ``ruleset``, ``>`` (attacker wins),
    ``<`` (defender wins) or ``=`` (both removed), the defender's symbol."""
    symbols = ruleset.symbols  # piece name -> symbol: the same lookup as ruleset.symbol(), without the call
    return symbols[battle.attacker.type.name] + _RELATION[battle.result] + symbols[battle.defender.type.name]


class _Moves:
    """Reads the move text of one game into its tree; raises :class:`RecordError` at the first problem."""

    def __init__(self, reader: GameReader, game: Game, chunk: _Chunk, where: dict[str, tuple[int, int]]) -> None:
        self.reader = reader
        self.game = game
        self.text = chunk.body
        self.first_line = chunk.body_line
        self.where = where

    def error(self, offset: int, message: str) -> RecordError:
        text = self.text
        line = self.first_line + text.count("\n", 0, offset)
        column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        return RecordError(message, self.reader.name, line, column)

    def read(self) -> None:
        """Read the move text: plain text by the fast path, anything else (or any problem) by the full one."""
        if _PLAIN.fullmatch(self.text) is None or not self.read_plain():
            self.game.variations.clear()
            self.read_full()

    def read_plain(self) -> bool:
        """Numbered moves, battle annotations and a result, split on spaces and looked up in tables; ``False``
        (with a half-built tree) at the first thing it does not expect, for :meth:`read_full` to explain."""
        game = self.game
        state = game.state()
        text = self.text
        start, end = _last_token(text)
        result = text[start:end]
        if result not in RESULTS:
            return False
        rs = state.ruleset
        get_move = _move_table(rs).get
        get_ply = _PLIES.get
        illegal_reason = state.illegal_reason
        push = state.push
        new = object.__new__
        node_type = GameNode
        no_marks = _NO_MARKS
        node: GameNode = game
        numbered = False  # a move number waits for its move
        moves = 0
        for m in _WORD.finditer(text, 0, start):  # one token at a time: a list of them all costs 10x the text
            tok = m.group()
            entry = get_move(tok)
            if entry is not None:
                move, attack = entry
                moves += 1
                if moves > MAX_MOVES:
                    return False
                if illegal_reason(move) is not None:
                    return False
                battle = push(move)
                if battle is None and attack:
                    return False
                child = new(node_type)
                child.parent = node
                child.move = move
                child.battle = battle
                child.rescue = None
                child.variations = []
                child._comment = child._starting_comment = ""
                child._marks = no_marks
                node.variations.append(child)
                node = child
                numbered = False
            elif get_ply(tok, -1) == state.ply and not numbered:
                numbered = True
            elif numbered or node.battle is None or tok != battle_text(node.battle, rs):
                return False
        if numbered:
            return False
        try:
            self.check_result(state, result, len(text))
        except RecordError:
            return False
        return True

    def read_full(self) -> None:
        """The general reader: comments, marks, variations, and a located error for every problem."""
        game = self.game
        state = game.state()
        text = self.text
        error = self.error
        table = _move_table(state.ruleset)
        illegal_reason = state.illegal_reason
        push = state.push
        new = object.__new__
        node: GameNode = game
        line_moves = 0  # moves so far in the line being read (the game or a variation)
        frames: list[tuple[GameNode, int, int]] = []  # per open variation: node, line_moves, offset of '('
        slot = _ROOT
        pending = ""  # a starting comment waiting for its move
        number_at = -1  # offset of a move number still waiting for its move
        after_move = False  # marks and battle annotations may follow
        result = None
        result_at = len(text)
        moves = 0
        for m in _TOKEN.finditer(text):
            kind = m.lastgroup
            if kind == "move" or kind == "suffix":
                tok = m.group("move")
                moves += 1
                if moves > MAX_MOVES:
                    raise self.too_many_moves(m.start("move"))
                entry = table.get(tok) or self.odd_move(tok, m.start("move"))
                move = entry[0]
                reason = illegal_reason(move)
                if reason is not None:
                    raise error(m.start("move"), f"illegal move {tok}: {reason}")
                battle = push(move)
                if battle is None and entry[1]:
                    raise error(m.start("move"), f"found {tok}, which claims an attack, but "
                                           f"{square_name(move.to_square)} is empty: expected "
                                           f"{tok.replace('x', '-')}")
                child = new(GameNode)
                child.parent = node
                child.move = move
                child.battle = battle
                child.rescue = None
                child.variations = []
                child._comment = ""
                child._starting_comment = pending
                child._marks = _NO_MARKS if kind == "move" else _SUFFIX_MARKS[m.group("suffix")]
                node.variations.append(child)
                node = child
                pending = ""
                line_moves += 1
                slot = _NODE
                number_at = -1
                after_move = True
            elif kind == "dots":
                if number_at >= 0:
                    raise error(m.start("number"), f"found move number {m.group(0).strip()}, expected "
                                                   f"the move after move number {self.number(number_at)}")
                ply = state.ply
                n = int(m.group("number"))
                dots = m.group("dots")
                if (2 * n - 2 if dots == "." else 2 * n - 1) != ply:
                    raise error(m.start("number"), f"found move number {n}{dots}, expected {_number(ply)} "
                                                   f"(the move numbers count from the start position)")
                number_at = m.start("number")
                slot = _START
                after_move = False
            elif kind == "battle":
                if not after_move:
                    raise error(m.start("battle"), f"found battle annotation {m.group('battle')}, expected it "
                                                   f"right after an attacking move, like D4xD5 9>8")
                self.check_battle(node, m.group("battle"), m.start("battle"))
            elif kind == "rescue":
                if not after_move or node.rescue is not None:
                    raise error(m.start("rescue") - 1, f"found rescue +{m.group('rescue')}, expected it right "
                                                       f"after the move that reached the enemy's back row")
                rescue = self.rescue(m.group("rescue"), m.start("rescue") - 1)
                reason = state.rescue_reason(rescue)
                if reason is not None:
                    raise error(m.start("rescue") - 1, f"illegal rescue +{m.group('rescue')}: {reason}")
                state.add_rescue(rescue)
                node.rescue = rescue
            elif kind == "comment":
                comment = m.group("comment")
                if "\\" in comment:
                    comment = _UNESCAPE.sub(r"\1", comment)
                comment = normalize_comment(comment)
                if comment:
                    if slot == _NODE:
                        node._comment = _join(node._comment, comment)
                    elif slot == _START:
                        pending = _join(pending, comment)
                    else:
                        game._comment = _join(game._comment, comment)
            elif kind == "open":
                if number_at >= 0:
                    raise error(m.start("open"), f"found '(', expected the move after move number "
                                                 f"{self.number(number_at)}")
                if not line_moves:
                    raise error(m.start("open"), "found '(', expected a move first: a variation is an "
                                                 "alternative to the move before it")
                frames.append((node, line_moves, m.start("open")))
                state.pop()
                node = node.parent  # type: ignore[assignment]
                line_moves = 0
                slot = _START
                after_move = False
            elif kind == "close":
                if not frames:
                    raise error(m.start("close"), "found ')', expected a '(' before it: no variation is open")
                if number_at >= 0:
                    raise error(m.start("close"), f"found ')', expected the move after move number "
                                                  f"{self.number(number_at)}")
                if not line_moves:
                    raise error(m.start("close"), "found ')', expected a move: a variation holds at least one")
                for _ in range(line_moves):
                    state.pop()
                node, line_moves, _ = frames.pop()
                state.push(node.move)  # type: ignore[arg-type]
                if node.rescue is not None:
                    state.add_rescue(node.rescue)
                slot = _NODE
                after_move = False
            elif kind == "mark" or kind == "nag":
                tok = m.group(kind)
                if not after_move:
                    raise error(m.start(kind), f"found mark {m.group(0).strip()}, expected a move before it")
                mark = MARKS[tok] if kind == "mark" else int(tok)
                if mark > MAX_MARK:
                    raise error(m.start(kind), f"found mark ${tok}, expected $0 to ${MAX_MARK}")
                node._marks = node._marks | {mark}
            elif kind == "result":
                result, result_at = m.group("result"), m.start("result")
                if number_at >= 0:
                    raise error(result_at, f"found the result {result}, expected the move after move number "
                                           f"{self.number(number_at)}")
                if frames:
                    raise error(result_at, f"found the result {result}, expected ')' to close the variation "
                                           f"opened at {self.place(frames[-1][2])}")
                rest = _NON_SPACE.search(text, m.end())
                if rest is not None:
                    raise error(rest.start(), f"found {_show(text[rest.start():])} after the result, expected "
                                              f"the end of the game (the next game starts with its headers)")
                break
            elif kind == "unclosed":
                raise error(m.start("unclosed"), "found '{' that is never closed, expected '}' to end the comment")
            else:
                raise error(m.start("bad"), self.bad_token(m.group("bad")))
        if result is None:
            end = len(text.rstrip())
            if frames:
                raise error(end, f"found the end of the game, expected ')' to close the variation opened at "
                                 f"{self.place(frames[-1][2])}")
            if number_at >= 0:
                raise error(end, f"found the end of the game, expected the move after move number "
                                 f"{self.number(number_at)}")
            raise error(end, "found the end of the game, expected a result: 1-0, 0-1, 1/2-1/2 or *")
        self.check_result(state, result, result_at)

    def scan(self, moves: list[Move], rescues: dict[int, Rescue]) -> str:
        """The main line's moves appended to ``moves`` (and its rescues to ``rescues``, by move index) without
        the engine, and the result: what a bulk load needs.  Tokens, variations and marks are checked as
        :meth:`read` checks them; move numbers and battle annotations are skipped, and whether the moves are
        legal is not known (:meth:`read` checks all that)."""
        text = self.text
        table = _move_table(self.game.ruleset)
        if _SCAN_PLAIN.fullmatch(text) is not None:
            get = table.get
            for m in _SCAN_MOVE.finditer(text):
                if len(moves) == MAX_MOVES:
                    raise self.too_many_moves(m.start())
                entry = get(m.group())
                moves.append(entry[0] if entry is not None else self.odd_move(m.group(), m.start())[0])
            start, end = _last_token(text)
            return self.check_header_result(text[start:end], start)
        error = self.error
        lines = [0]  # moves so far in the main line and in each open variation
        opened: list[int] = []  # offsets of the open '('
        after_move = False  # a mark may follow
        count = 0
        for m in _TOKEN.finditer(text):
            kind = m.lastgroup
            if kind == "move" or kind == "suffix":
                count += 1
                if count > MAX_MOVES:
                    raise self.too_many_moves(m.start("move"))
                if len(lines) == 1:
                    tok = m.group("move")
                    entry = table.get(tok) or self.odd_move(tok, m.start("move"))
                    moves.append(entry[0])
                lines[-1] += 1
                after_move = True
            elif kind == "open":
                if not lines[-1]:
                    raise error(m.start("open"), "found '(', expected a move first: a variation is an "
                                                 "alternative to the move before it")
                lines.append(0)
                opened.append(m.start("open"))
                after_move = False
            elif kind == "close":
                if len(lines) == 1:
                    raise error(m.start("close"), "found ')', expected a '(' before it: no variation is open")
                if not lines[-1]:
                    raise error(m.start("close"), "found ')', expected a move: a variation holds at least one")
                lines.pop()
                opened.pop()
                after_move = False
            elif kind == "dots":
                after_move = False
            elif kind == "rescue":
                if len(lines) == 1:
                    rescues[len(moves) - 1] = self.rescue(m.group("rescue"), m.start("rescue") - 1)
            elif kind == "mark" or kind == "nag":
                tok = m.group(kind)
                if not after_move:
                    raise error(m.start(kind), f"found mark {m.group(0).strip()}, expected a move before it")
                if kind == "nag" and int(tok) > MAX_MARK:
                    raise error(m.start(kind), f"found mark ${tok}, expected $0 to ${MAX_MARK}")
            elif kind == "result":
                if opened:
                    raise error(m.start("result"), f"found the result {m.group('result')}, expected ')' to "
                                                   f"close the variation opened at {self.place(opened[-1])}")
                rest = _NON_SPACE.search(text, m.end())
                if rest is not None:
                    raise error(rest.start(), f"found {_show(text[rest.start():])} after the result, expected "
                                              f"the end of the game (the next game starts with its headers)")
                return self.check_header_result(m.group("result"), m.start("result"))
            elif kind == "unclosed":
                raise error(m.start("unclosed"), "found '{' that is never closed, expected '}' to end the comment")
            elif kind == "bad":
                raise error(m.start("bad"), self.bad_token(m.group("bad")))
        end = len(text.rstrip())
        if opened:
            raise error(end, f"found the end of the game, expected ')' to close the variation opened at "
                             f"{self.place(opened[-1])}")
        raise error(end, "found the end of the game, expected a result: 1-0, 0-1, 1/2-1/2 or *")

    def too_many_moves(self, at: int) -> RecordError:
        return self.error(at, f"found move {MAX_MOVES + 1:,} of this game, expected at most {MAX_MOVES:,} "
                              f"(variations included)")

    def check_header_result(self, result: str, at: int) -> str:
        """The result token must match the ``[Result]`` header (all the scan checks of the result)."""
        declared = self.game.headers.get("Result")
        if declared is not None and declared != result:
            raise self.error(at, f"found the result {result}, expected {declared} as the [Result] header says")
        self.game.headers["Result"] = result
        return result

    def odd_move(self, tok: str, at: int) -> tuple[Move, bool]:
        """A move the table does not know (lower case, off the board, diagonal): squares parsed here, the
        engine explains the rest."""
        a, sep, b = _MOVE_PARTS.fullmatch(tok).groups()  # type: ignore[union-attr]
        known = _move_table(self.game.ruleset).get(a.upper() + sep + b.upper())
        if known is not None:
            return known
        try:
            return Move(parse_square(a), parse_square(b)), sep == "x"
        except ValueError as e:
            raise self.error(at, f"found {tok}, expected a move between two squares: {e}") from None

    def rescue(self, text: str, at: int) -> Rescue:
        """A rescue token's piece and square (``X@E4`` after the ``+``), checked to name a piece and a square."""
        symbol, _, where = text.rpartition("@")
        rs = self.game.ruleset
        alias = _ten_alias(rs)
        try:
            piece = rs.piece_type(alias if symbol == "10" and alias else symbol)
        except KeyError as e:
            raise self.error(at, f"found rescue +{text}: {e.args[0]}") from None
        try:
            return Rescue(parse_square(where), piece)
        except ValueError as e:
            raise self.error(at, f"found rescue +{text}, expected a piece and a square like +X@E4: {e}") from None

    def check_battle(self, node: GameNode, claim: str, at: int) -> None:
        """A battle annotation must say what the engine computed for the move it follows."""
        battle = node.battle
        move = node.move
        assert move is not None
        if battle is None:
            raise self.error(at, f"found battle annotation {claim}, but {move} attacked nothing: "
                                 f"{square_name(move.to_square)} was empty")
        rs = self.game.ruleset
        expected = battle_text(battle, rs)
        if claim == expected:
            return
        alias = _ten_alias(rs)
        a, rel, d = _BATTLE_PARTS.fullmatch(claim).groups()  # type: ignore[union-attr]
        if alias is not None and f"{alias if a == '10' else a}{rel}{alias if d == '10' else d}" == expected:
            return
        symbols = {rs.symbol(p) for p in rs.piece_types} | ({"10"} if alias else set())
        unknown = [s for s in (a, d) if s not in symbols]
        if unknown:
            raise self.error(at, f"found battle annotation {claim}, but {unknown[0]!r} is not a piece of "
                                 f"{self.game.ruleset.name}; expected {expected} ({battle})")
        raise self.error(at, f"found battle annotation {claim}, but the engine says {expected}: {battle}")

    def check_result(self, state: State, result: str, at: int) -> None:
        """The result token must match the Result header, and both must fit the final position."""
        self.check_header_result(result, at)
        termination = self.game.headers.get("Termination")
        checked = termination in _CHECKED_TERMINATIONS
        if result == "*" and not checked:
            return
        outcome = state.outcome()
        if outcome is not None and result != "*" and outcome.result() != result:
            raise self.error(at, f"found the result {result}, but the engine ends the game with "
                                 f"{outcome.result()}: {outcome}")
        if checked and (outcome is None or outcome.termination.value != termination):
            line, column = self.where["Termination"]
            found = "the game goes on" if outcome is None else str(outcome)
            raise RecordError(f"found [Termination \"{termination}\"], but after the last move the engine "
                              f"says: {found}", self.reader.name, line, column)

    def bad_token(self, tok: str) -> str:
        hint = ""
        if tok.startswith("["):
            hint = " (headers go before the moves, each at the start of its own line)"
        elif tok == "}":
            hint = " (a '}' inside a comment is written \\})"
        return (f"found {_show(tok)}, expected a move (like A4-A5 or D4xD5), a move number (12. or 12...), "
                f"a battle (9>8), a rescue (+X@E4), a mark, a comment {{...}}, '(' or ')', or a result{hint}")

    def place(self, offset: int) -> str:
        e = self.error(offset, "")
        return f"line {e.line}, column {e.column}"

    def number(self, offset: int) -> str:
        m = _TOKEN.match(self.text, offset)
        return m.group(0).strip() if m else "?"


_SUFFIX_MARKS = {s: frozenset({n}) for s, n in MARKS.items()}
_PLAIN = re.compile(r"[^{}()$!?]*")  # move text the fast path may try
# Plain move text as the scan's fast path takes it: moves, move numbers and battles, then the result.
_SCAN_PLAIN = re.compile(r"""\s*+(?:(?:[A-Za-z][0-9]{1,2}[-x][A-Za-z][0-9]{1,2}|[0-9]{1,5}\.(?:\.\.)?
                              |(?:10|[^\s(){}$<>=])[<>=](?:10|[^\s(){}$<>=]))\s++)*+(?:1-0|0-1|1/2-1/2|\*)\s*+""",
                         re.VERBOSE)
_SCAN_MOVE = re.compile(r"[A-Za-z][0-9]{1,2}[-x][A-Za-z][0-9]{1,2}")
_PLIES = {f"{n}{dots}": 2 * n - (2 if dots == "." else 1) for n in range(1, 5001) for dots in (".", "...")}


def _last_token(text: str) -> tuple[int, int]:
    """Where the last token of ``text`` starts and ends (``text.split()[-1]`` without splitting it all)."""
    end = len(text)
    while end and text[end - 1].isspace():
        end -= 1
    start = end
    while start and not text[start - 1].isspace():
        start -= 1
    return start, end


def _join(a: str, b: str) -> str:
    return f"{a} {b}" if a else b


def _number(ply: int) -> str:
    """The move number written before the move at ``ply``: ``12.`` or ``12...``."""
    return f"{ply // 2 + 1}{'...' if ply % 2 else '.'}"


def read_games(source: Source, *, strict: bool = True, name: str | None = None,
               rulesets: Iterable[Ruleset] = ()) -> GameReader:
    """The games in ``source``, read one at a time.

    ``source`` is record text (a ``str``), a ``pathlib.Path`` or an open file (text or binary).  ``name``
    names the source in error messages; ``rulesets`` adds rule sets beyond the named ones (looked up by
    their ``name`` in the ``[Ruleset]`` header).  ``strict=False`` collects problems in ``reader.errors``
    (and each bad game's ``game.errors``) instead of raising the first.
    """
    return GameReader(source, strict=strict, name=name, rulesets=rulesets)


def read_game(source: Source, *, name: str | None = None, rulesets: Iterable[Ruleset] = ()) -> Game:
    """The one game in ``source`` (strict); raises :class:`RecordError` if there is none or more than one."""
    with read_games(source, name=name, rulesets=rulesets) as reader:
        games = list(reader)
    if len(games) != 1:
        raise RecordError(f"found {len(games)} games, expected exactly one (read_games reads many)", reader.name)
    return games[0]


@dataclass(eq=False)
class ScannedGame:
    """One record as :func:`scan_games` reads it: headers, start position and the main line's moves, with no
    tree and no replay.  ``game()`` replays it into a checked :class:`~strategolab.records.Game`."""

    headers: dict[str, str]  # every header but the start position's, with ``Result`` always set
    start: State
    moves: list[Move]  # the main line (variations skipped)
    line: int  # the line its headers begin on
    errors: list[RecordError] = field(default_factory=list)  # in lenient mode: what was wrong with it
    rescues: dict[int, Rescue] = field(default_factory=dict)  # index in moves -> the piece that move rescued

    @property
    def ruleset(self) -> Ruleset:
        return self.start.ruleset

    @property
    def result(self) -> str:
        return self.headers.get("Result", "*")

    def game(self) -> Game:
        """The main line as a game tree, every move checked by the engine (raises ``IllegalMoveError``)."""
        game = Game(self.start, self.headers)
        game.add_line(self.moves, self.rescues)
        return game

    def __repr__(self) -> str:
        return (f"<ScannedGame {self.headers.get('Red', '?')} v {self.headers.get('Blue', '?')}, "
                f"{self.ruleset.name}, {len(self.moves)} moves, {self.result}>")


class GameScanner(GameReader):
    """Like :class:`GameReader`, but yields :class:`ScannedGame` items: headers and the start position are
    checked as always; the move text is only tokenised (comments and variations skipped)."""

    def __iter__(self) -> Iterator[ScannedGame]:  # type: ignore[override]
        return self

    def __next__(self) -> ScannedGame:  # type: ignore[override]
        return next(self._games)

    def __enter__(self) -> GameScanner:
        return self

    def _item(self, game: Game, chunk: _Chunk) -> ScannedGame:
        line = chunk.headers[0][0] if chunk.headers else chunk.body_line
        return ScannedGame(game.headers, game._start, [], line, list(chunk.problems))

    def _fill(self, item: ScannedGame, game: Game, chunk: _Chunk, where: dict[str, tuple[int, int]]) -> None:
        _Moves(self, game, chunk, where).scan(item.moves, item.rescues)


def scan_games(source: Source, *, strict: bool = True, name: str | None = None,
               rulesets: Iterable[Ruleset] = ()) -> GameScanner:
    """The games in ``source`` for bulk loading: headers, start position and main-line moves, several times
    faster than :func:`read_games` because nothing is replayed.  Headers, the start position, tokens,
    variations and marks are checked (errors as :func:`read_games` gives them); move numbers and battle
    annotations are skipped, and neither the legality of the moves nor whether the result and
    ``[Termination]`` fit the final position is checked: use :func:`read_games` for that."""
    return GameScanner(source, strict=strict, name=name, rulesets=rulesets)


# -- writing ------------------------------------------------------------------------------------------


_NAMES = [square_name(s) for s in range(16 * 99)]


def _escape_header(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _comment_token(text: str) -> str:
    """``{ text }`` with ``\\``, ``}`` and a ``[`` that starts a line escaped (so it cannot look like a header)."""
    return "{ " + text.replace("\\", "\\\\").replace("}", "\\}").replace("\n[", "\n\\[") + " }"


def _setups_of(state: State) -> tuple[Setup, Setup] | None:
    """The two setups a start position was made from, or ``None`` if it is not a fresh deployment."""
    if state.ply or state.quiet:
        return None
    rs = state.ruleset
    zones = [set(z) for z in geometry(rs).setup_squares]
    places: tuple[dict[Square | str, PieceType], dict[Square | str, PieceType]] = ({}, {})
    for sq in state.squares():
        piece = state.piece_at(sq)
        if piece is None or state.has_moved(sq) or state.is_revealed(sq) or sq not in zones[piece.owner]:
            return None
        places[piece.owner][sq] = piece.type
    red, blue = (Setup.from_placements(places[p], p, rs) for p in (RED, BLUE))
    return (red, blue) if red.is_valid() and blue.is_valid() else None


def _header_lines(game: Game) -> list[str]:
    """The headers in canonical order: the roster, the rule set, custom keys sorted, the start position."""
    headers = game.headers
    for key, value in headers.items():
        if key in START_KEYS:
            raise ValueError(f"header {key!r} is written from the game's start position; remove it from "
                             f"game.headers (build the game from the state you want instead)")
        if not isinstance(key, str) or not _KEY.fullmatch(key):
            raise ValueError(f"header name {shown(key)}: expected letters, digits and '_', starting with a letter")
        if not isinstance(value, str) or "\n" in value or "\r" in value:
            raise ValueError(f"header {key}: expected one line of text, not {shown(value)}")
    if game.result not in RESULTS:
        raise ValueError(f"result {game.result!r}: expected one of {', '.join(RESULTS)}")
    pairs = [(k, game.result if k == "Result" else headers[k]) for k in ROSTER if k in headers or k == "Result"]
    start = game._start
    rs = start.ruleset
    pairs.append(("Ruleset", rs.name))
    pairs += sorted((k, v) for k, v in headers.items() if k not in ROSTER)
    setups = _setups_of(start)
    if setups is None:
        pairs.append(("Position", start.position()))
    else:
        if start.turn != rs.first_player:
            pairs.append(("FirstPlayer", PLAYER_NAMES[start.turn]))
        pairs += [("RedSetup", str(setups[0])), ("BlueSetup", str(setups[1]))]
    lines = [f'[{k} "{_escape_header(v)}"]' for k, v in pairs]
    if len(lines) > MAX_HEADERS:  # the reader would refuse it: say so now, not when the file is opened
        raise ValueError(f"{len(lines):,} headers: the notation holds at most {MAX_HEADERS:,} per game")
    for (key, value), line in zip(pairs, lines, strict=True):
        if len(line) > MAX_HEADER_CHARS:
            raise ValueError(f"header {key} holds {len(value):,} characters: a header line holds at most "
                             f"{MAX_HEADER_CHARS:,}")
    return lines


_OPEN, _CLOSE, _LINE, _MOVE = 0, 1, 2, 3


def _move_tokens(game: Game) -> list[str]:
    """The move text as tokens, main line first with each variation after the move it replaces.

    Walks the tree with an explicit stack: real games run to thousands of moves.
    """
    tokens: list[str] = []
    add = tokens.append
    names = _NAMES
    rs = game.ruleset
    if game._comment:
        add(_comment_token(game._comment))
    need_number = True
    opening = ""  # "(" waiting to be glued to the next token
    moves = 0
    stack: list[tuple[int, GameNode | None, int]] = [(_LINE, game, game._start.ply)]
    while stack:
        kind, node, ply = stack.pop()
        if kind == _LINE:
            assert node is not None
            if not node.variations:
                continue
            main = node.variations[0]
            stack.append((_LINE, main, ply + 1))
            for alt in reversed(node.variations[1:]):
                stack += [(_CLOSE, None, 0), (_LINE, alt, ply + 1), (_MOVE, alt, ply), (_OPEN, None, 0)]
            node = main
        elif kind == _OPEN:
            opening = "("
            need_number = True
            continue
        elif kind == _CLOSE:
            tokens[-1] += ")"
            need_number = True
            continue
        assert node is not None and node.move is not None
        moves += 1
        if moves > MAX_MOVES:
            raise ValueError(f"the game has more than {MAX_MOVES:,} moves (variations included): the notation "
                             f"holds at most {MAX_MOVES:,}")
        # A move number, the move and its battle form one token, so that wrapping never parts them.
        number = opening
        opening = ""
        if need_number or not ply % 2 or node._starting_comment:
            number += f"{ply // 2 + 1}{'...' if ply % 2 else '.'} "
            if node._starting_comment:
                add(number + _comment_token(node._starting_comment))
                number = ""
        f, to = node.move
        battle = node.battle
        text = f"{number}{names[f]}{'x' if battle else '-'}{names[to]}"
        marks = sorted(node._marks) if node._marks else ()
        if marks and marks[0] in MARK_SYMBOLS:
            text += MARK_SYMBOLS[marks[0]]
            marks = marks[1:]
        if battle is not None:
            text += f" {battle_text(battle, rs)}"
        if node.rescue is not None:
            text += f" +{rs.symbol(node.rescue.type)}@{names[node.rescue.square]}"
        add(text)
        for mark in marks:
            add(f"${mark}")
        if node._comment:
            add(_comment_token(node._comment))
        need_number = bool(node._comment)
    add(game.result)
    return tokens


def _wrap(tokens: list[str], width: int = WIDTH) -> str:
    """Join tokens with spaces, breaking lines before a token that would pass ``width``."""
    out: list[str] = []
    col = 0
    for tok in tokens:
        nl = tok.find("\n")
        first = len(tok) if nl < 0 else nl
        if col and col + 1 + first <= width:
            out.append(" ")
            col += 1
        elif col:
            out.append("\n")
            col = 0
        out.append(tok)
        col = col + len(tok) if nl < 0 else len(tok) - tok.rfind("\n") - 1
    return "".join(out)


def write_game(game: Game) -> str:
    """The game in canonical notation: headers, a blank line, the move text ending in the result."""
    if not isinstance(game, Game):
        raise TypeError(f"write_game writes a Game (Game(state) or Game.from_state(state)), not {type(game).__name__}")
    return "\n".join(_header_lines(game)) + "\n\n" + _wrap(_move_tokens(game)) + "\n"


def write_games(games: Iterable[Game], target: str | os.PathLike[str] | IO[str]) -> int:
    """Write games separated by blank lines to an open text file or a path; returns how many.

    A path is written atomically (a temporary file renamed over it), so a failure never leaves half a file.
    """
    if hasattr(target, "write"):
        return _write_all(games, target)  # type: ignore[arg-type]
    with atomic_output(target) as f:  # type: ignore[arg-type]
        return _write_all(games, f)


def _write_all(games: Iterable[Game], f: IO[str]) -> int:
    count = 0
    for game in games:
        if count:
            f.write("\n")
        f.write(write_game(game))
        count += 1
    return count


__all__ = ("RESULTS", "ROSTER", "START_KEYS", "GameReader", "battle_text", "read_game", "read_games",
           "write_game", "write_games")
