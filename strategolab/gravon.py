"""Reader for the Gravon archive (strados2 XML): one game per file, published in monthly zips.

Files are untrusted: each is size-checked before parsing and parsed by expat with every DTD refused, so
entity tricks (billion laughs, external entities) fail at once without expansion.  Every problem raises
:class:`GravonError` naming the file (and zip member), line and column.  Parsing is the first step of
replaying the whole archive, so the ``<move>`` handler has a fast path that builds one tuple per move
from precomputed tables and falls back to a careful path (errors, warnings) only for unusual moves, and
:func:`read_gravon` can parse in worker processes while the caller replays the games already read.
"""

from __future__ import annotations

import collections
import contextlib
import os
import re
import zipfile
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from types import TracebackType
from typing import NoReturn, Self
from xml.parsers import expat
from xml.sax.saxutils import escape as xml_escape

from strategolab import rules
from strategolab.board import Square, square, square_name
from strategolab.errors import SHOWN_CHARS, RecordError, printable, shown
from strategolab.files import atomic_output
from strategolab.processes import worker_pool

__all__ = [
    "GAME_TYPES",
    "MAX_XML_BYTES",
    "RESULT_TYPES",
    "GravonError",
    "GravonGame",
    "GravonReader",
    "Part",
    "close_parts",
    "decode_field",
    "dump_gravon",
    "dump_gravon_zip",
    "encode_field",
    "member_name",
    "parse_gravon",
    "read_gravon",
    "read_part",
    "split_parts",
]

MAX_XML_BYTES = 4 * 1024 * 1024  # default limit per XML file; real games are under 100 KiB
MAX_WARNINGS = 50  # per game: a hostile file cannot grow the list without bound

GAME_TYPES = ("classic", "barrage", "duell", "classicfree", "ultimate lightning")

RESULT_TYPES: dict[int, str] = {
    0: "opponent cannot move",
    1: "flag captured",
    2: "both cannot move",
    3: "resigned",
    4: "agreed draw",
    10: "timeout or player missing (code 10)",
    11: "timeout or player missing (code 11)",
    12: "timeout or player missing (code 12)",
    13: "timeout or player missing (code 13)",
    14: "timeout or player missing (code 14)",
}
_DRAW_RESULTS = frozenset({2, 4})  # result types that cannot have a winner
_DECISIVE_RESULTS = frozenset({0, 1, 3})  # result types that must have one
_WINNERS = {"1": rules.RED, "2": rules.BLUE, "3": None}

# Gravon columns skip J: its tenth column "K" is the kit's "J".  Rows 1-9, then ":" for 10.
_GRAVON_COLUMNS = "ABCDEFGHIK"
_GRAVON_ROWS = "123456789:"
_SQUARES: dict[str, int] = {
    c + r: square(ci, ri) for ci, c in enumerate(_GRAVON_COLUMNS) for ri, r in enumerate(_GRAVON_ROWS)
}
_J_SQUARES: dict[str, int] = {"J" + r: square(9, ri) for ri, r in enumerate(_GRAVON_ROWS)}  # some files
_IDS = [str(i) for i in range(1, 4097)]  # expected id text of move n at index n - 1 (longer games: slow path)

# Field characters: A empty, _ lake, B-M Red pieces, N-Y Blue pieces, both in this order.
_FIELD_ORDER = (rules.BOMB, rules.SPY, rules.SCOUT, rules.MINER, rules.SERGEANT, rules.LIEUTENANT,
                rules.CAPTAIN, rules.MAJOR, rules.COLONEL, rules.GENERAL, rules.MARSHAL, rules.FLAG)
_FIELD_PIECES: dict[str, tuple[int, str]] = {
    chr(first + i): (owner, piece.name)
    for owner, first in ((rules.RED, ord("B")), (rules.BLUE, ord("N")))
    for i, piece in enumerate(_FIELD_ORDER)
}
_FIELD_CHARS = frozenset(_FIELD_PIECES) | {"A", "_"}
# The field characters of the game types with a small army (the letters cover the classic army, which the
# other types use): a Captain in a barrage field is refused here, so a replay never meets a piece it lacks.
_ARMIES = {"barrage": rules.BARRAGE_ARMY, "duell": rules.DUELL_ARMY}
_ARMY_CHARS: dict[str, frozenset[str]] = {
    kind: frozenset(c for c, (_, name) in _FIELD_PIECES.items() if name in {p.name for p, _ in army}) | {"A", "_"}
    for kind, army in _ARMIES.items()}
_FIELD_CODES = {piece.name: i for i, piece in enumerate(_FIELD_ORDER, 1)}  # <rescue rescuepiece>, written 1-12
_FIELD_SQUARES = tuple(square(i % 10, i // 10) for i in range(100))
_LAKE_INDEXES = (42, 43, 46, 47, 52, 53, 56, 57)  # C5 D5 G5 H5 C6 D6 G6 H6
_LAKE_SQUARES = frozenset(_FIELD_SQUARES[i] for i in _LAKE_INDEXES)
_FIELD_LAKES = "_" * len(_LAKE_INDEXES)

# Names pyexpat hands to the handlers are looked up in a per-parser dict; seeding it with these very
# objects lets the fast path's comparisons succeed on identity.
_INTERNED = {s: s for s in ("stratego", "game", "field", "move", "player", "result", "rescue",
                            "id", "source", "target", "type", "content", "winner")}

_SQUARE_HELP = "a column A-K without J and a row 1-9 or ':' for 10, like 'B4' or 'K:'"


def _tag(name: str) -> str:
    """An element name as messages show it: XML names may be megabytes long."""
    return f"<{printable(name, SHOWN_CHARS)}>"


class GravonError(RecordError):
    """A Gravon file the reader cannot use: bad XML, a refused DTD, an oversize file, a bad move or field
    (it pickles with its place, as every RecordError does, to cross from worker processes)."""


@dataclass(frozen=True, slots=True, repr=False)
class GravonGame:
    """One archived game as recorded: setup field, moves as kit squares, players and result.

    ``winner`` uses the kit's convention (0 Red, 1 Blue, None for a draw or no result); battles are not
    recorded, so replay the moves to learn them.  ``warnings`` lists defects the reader repaired or
    tolerated (a ``J`` column read as ``K``, a result that contradicts itself).
    """

    source: str
    game_type: str
    field: str | None
    moves: tuple[tuple[int, int], ...]
    players: tuple[str, str] = ("", "")
    result_type: int | None = None
    winner: int | None = None
    # Ultimate Lightning rescues: (index in ``moves`` of the move that made it, kit square, piece name); the
    # piece is the mover's (Red's moves have even indexes)
    rescues: tuple[tuple[int, int, str], ...] = ()
    warnings: tuple[str, ...] = ()

    @property
    def has_setup(self) -> bool:
        """True when the file has a ``<field>``, the setups of both players."""
        return self.field is not None

    @property
    def placements(self) -> dict[int, tuple[int, str]]:
        """Kit square -> (owner, piece name) for every piece on the field; GravonError if there is none."""
        if self.field is None:
            raise GravonError("the game has no <field>, so it has no setup to decode", self.source)
        return decode_field(self.field, self.source)

    @property
    def result_text(self) -> str:
        """The result in words (``"flag captured"``), for reports; empty when the file has no result."""
        if self.result_type is None:
            return ""
        return RESULT_TYPES.get(self.result_type, f"result type {self.result_type}")

    def __repr__(self) -> str:
        winner = "draw/none" if self.winner is None else rules.PLAYER_NAMES[self.winner]
        return (f"<GravonGame {self.source} {self.game_type}, {len(self.moves)} moves, "
                f"result {self.result_type} winner {winner}>")


def decode_field(field: str, source: str = "<field>") -> dict[int, tuple[int, str]]:
    """Decode a 100-character Gravon field to kit square -> (owner, piece name); GravonError if malformed."""
    _check_field(field, source)
    pieces = _FIELD_PIECES
    return {sq: pieces[c] for sq, c in zip(_FIELD_SQUARES, field, strict=True) if c in pieces}


def _check_field(field: str, source: str, line: int | None = None, column: int | None = None) -> None:
    """Raise GravonError naming the first bad character of a field (and its square) if there is one."""
    if len(field) != 100:
        raise GravonError(f"field content has {len(field)} characters, expected 100 (10 columns x 10 rows)",
                          source, line, column)
    lakes = "".join(field[i] for i in _LAKE_INDEXES)
    if lakes == _FIELD_LAKES and field.count("_") == len(_LAKE_INDEXES) and _FIELD_CHARS.issuperset(field):
        return
    for i, c in enumerate(field):
        sq = _FIELD_SQUARES[i]
        where = f"at {square_name(sq)} (field character {i + 1})"
        if c not in _FIELD_CHARS:
            raise GravonError(f"unknown field character {c!r} {where}: expected 'A' (empty), '_' (lake), "
                              "'B'-'M' (Red) or 'N'-'Y' (Blue)", source, line, column)
        if (c == "_") != (sq in _LAKE_SQUARES):
            expected = "'_' (lake)" if sq in _LAKE_SQUARES else "a piece or 'A' (empty): it is not a lake"
            raise GravonError(f"field character {c!r} {where}: expected {expected}", source, line, column)


class _Builder:
    """Collects one game while expat parses it: ``start`` runs for every element, so it is kept lean."""

    __slots__ = ("field", "game_type", "moves", "name_type", "parser", "player_id", "players", "rescues",
                 "result_type", "seen_players", "source", "start", "text", "unknown", "warnings", "winner")

    def __init__(self, source: str, parser: expat.XMLParserType, name_type: str | None) -> None:
        self.source = source
        self.parser = parser
        self.name_type = name_type  # the game type the member name announces, if any
        self.game_type: str | None = None
        self.field: str | None = None
        self.moves: list[tuple[int, int]] = []
        self.players = ["", ""]
        self.result_type: int | None = None
        self.winner: int | None = None
        self.rescues: list[tuple[int, int, str]] = []
        self.warnings: list[str] = []
        self.unknown: set[str] = set()  # names of the unknown elements warned about
        self.text: list[str] = []
        self.player_id = 0  # the <player> being read
        self.seen_players = 0  # bit set of the player ids read (1 | 2)
        self.start = self.handler()
        parser.StartElementHandler = self.root

    def handler(self) -> Callable[[str, list[str]], None]:
        """The StartElementHandler: the fast path for ordinary moves, everything else via ``element``."""
        def start(name: str, a: list[str], moves: list[tuple[int, int]] = self.moves,
                  add: Callable[[tuple[int, int]], None] = self.moves.append, ids: list[str] = _IDS,
                  squares: dict[str, int] = _SQUARES, slow_move: Callable[[list[str]], None] = self.move,
                  element: Callable[[str, list[str]], None] = self.element) -> None:
            if name == "move":
                try:
                    if (a[1] == ids[len(moves)] and a[0] == "id" and a[2] == "source" and a[4] == "target"
                            and len(a) == 6):
                        add((squares[a[3]], squares[a[5]]))
                        return
                except (IndexError, KeyError):
                    pass
                slow_move(a)
            else:
                element(name, a)

        return start

    def error(self, message: str) -> GravonError:
        """A GravonError at the parser's current position."""
        p = self.parser
        return GravonError(message, self.source, p.CurrentLineNumber, p.CurrentColumnNumber + 1)

    def warn(self, message: str) -> None:
        """Record a tolerated defect, up to MAX_WARNINGS of them."""
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)
        elif len(self.warnings) == MAX_WARNINGS:
            self.warnings.append("further warnings left out")

    def move(self, a: list[str]) -> None:
        """A move the fast path did not take: repair J for K, or raise an error that says what is wrong."""
        expected = len(self.moves) + 1
        if self.game_type is None:
            raise self.error("<move> before <game>: expected <stratego><game type=...> first")
        attrs = dict(zip(a[::2], a[1::2], strict=True))
        text = attrs.pop("id", None)
        if text is None:
            raise self.error(f"<move> has no id attribute (expected id=\"{expected}\")")
        if not (text.isascii() and text.isdigit()):
            raise self.error(f"move id {shown(text)} is not a number (expected {expected})")
        if len(text) > 9 or int(text) != expected:  # the length test keeps int() from huge digit strings
            raise self.error(f"move id {text[:20]} is out of order: expected {expected} "
                             "(ids count up from 1, odd ids Red, even ids Blue)")
        ends = []
        repaired = []
        for role in ("source", "target"):
            where = attrs.pop(role, None)
            if where is None:
                raise self.error(f"move {expected} has no {role} attribute (expected {_SQUARE_HELP})")
            sq, read_j = self.gravon_square(where, f"move {expected}: {role}")
            if read_j:
                repaired.append(f"{role} {where}")
            ends.append(sq)
        if repaired:
            self.warn(f"column 'J' read as 'K' in move {expected} ({', '.join(repaired)})")
        for name in attrs:
            self.warn(f"ignored attribute {shown(name)} of move {expected}")
        self.moves.append((ends[0], ends[1]))

    def gravon_square(self, where: str, what: str) -> tuple[Square, bool]:
        """The square a Gravon name gives, and whether it was read with the misused column 'J' for 'K'."""
        sq = _SQUARES.get(where)
        if sq is not None:
            return sq, False
        sq = _J_SQUARES.get(where)
        if sq is None:
            raise self.error(f"{what} {shown(where)} is not a Gravon square (expected {_SQUARE_HELP})")
        return sq, True

    def rescue(self, attrs: dict[str, str]) -> None:
        """An Ultimate Lightning ``<rescue rescuefield=... rescuepiece=...>`` inside the move that made it."""
        if not self.moves:
            self.warn("<rescue> before any move: ignored")
            return
        n = len(self.moves)
        where = attrs.get("rescuefield", "")
        sq, read_j = self.gravon_square(where, f"the rescue of move {n}: rescuefield")
        if read_j:
            self.warn(f"column 'J' read as 'K' in the rescue of move {n} ({shown(where)})")
        code = attrs.get("rescuepiece", "")
        number = int(code) if code.isascii() and code.isdigit() and len(code) < 3 else 0
        # The piece's kind as the field's letters number them, B = 1 (Bomb) ... M = 12 (Flag); some files
        # number Blue's pieces on, N = 13 ... Y = 24, as the field does.
        if not 1 <= number <= 24 or (number > 12 and n % 2):
            raise self.error(f"the rescue of move {n}: rescuepiece {shown(code)} is not a piece code (expected "
                             f"1-12 for Bomb ... Flag, or 13-24 for Blue's pieces)")
        self.rescues.append((n - 1, sq, _FIELD_ORDER[(number - 1) % 12].name))

    def root(self, name: str, a: list[str]) -> None:
        """The handler for the first element, which must be <stratego>; then ``start`` takes over."""
        if name != "stratego":
            raise self.error(f"root element is {_tag(name)}, expected <stratego> (a strados2 game file)")
        self.parser.StartElementHandler = self.start

    def element(self, name: str, a: list[str]) -> None:
        """Any element but an ordinary move: check where it stands and record what it says."""
        if name == "game":
            attrs = dict(zip(a[::2], a[1::2], strict=True))
            if self.game_type is not None:
                raise self.error("a second <game>: expected one game per file")
            if self.moves:
                raise self.error("<move> before <game>: expected <stratego><game type=...> first")
            game_type = attrs.get("type", "")
            if not game_type:
                raise self.error(f"<game> has no type attribute (expected one of {', '.join(GAME_TYPES)})")
            if game_type not in GAME_TYPES:
                self.warn(f"unknown game type {shown(game_type)}")
            if self.name_type is not None and self.name_type != game_type:
                self.warn(f"the file name says {self.name_type!r}, <game> says {shown(game_type)}")
            self.game_type = game_type
        elif self.game_type is None:
            raise self.error(f"{_tag(name)} before <game>: expected <stratego><game type=...> first")
        elif name == "rescue":
            self.rescue(dict(zip(a[::2], a[1::2], strict=True)))
        elif name == "field":
            self.start_field(dict(zip(a[::2], a[1::2], strict=True)))
        elif name == "player":
            self.start_player(dict(zip(a[::2], a[1::2], strict=True)))
        elif name == "result":
            self.start_result(dict(zip(a[::2], a[1::2], strict=True)))
        elif name == "stratego":
            raise self.error("<stratego> inside <stratego>: expected one game per file")
        elif name not in self.unknown:  # warn once per name: a hostile file may hold a million of them
            self.unknown.add(name)
            self.warn(f"ignored unknown element {_tag(name)} (first at line {self.parser.CurrentLineNumber})")

    def start_field(self, attrs: dict[str, str]) -> None:
        """Check the setup field now, so a bad one is reported with its line like any other error."""
        if self.field is not None:
            raise self.error("a second <field>: expected one setup per game")
        if self.moves:
            raise self.error("<field> after the first move: expected the setup before the moves")
        content = attrs.get("content")
        if content is None:
            raise self.error("<field> has no content attribute (expected 100 field characters)")
        p = self.parser
        _check_field(content, self.source, p.CurrentLineNumber, p.CurrentColumnNumber + 1)
        allowed = _ARMY_CHARS.get(self.game_type or "")
        if allowed is not None and not allowed.issuperset(content):
            i, c = next((i, c) for i, c in enumerate(content) if c not in allowed)
            army = ", ".join(piece.name for piece, _ in _ARMIES[self.game_type or ""])
            raise self.error(f"field character {c!r} at {square_name(_FIELD_SQUARES[i])} (field character "
                             f"{i + 1}) is a {_FIELD_PIECES[c][1]}, which the {self.game_type} army does not "
                             f"have (it has {army})")
        self.field = content

    def start_player(self, attrs: dict[str, str]) -> None:
        """Collect the player's name: text and end handlers are set only here, to keep moves cheap."""
        text = attrs.get("id", "")
        if text not in ("1", "2"):
            raise self.error(f"player id {shown(text)}: expected '1' (Red) or '2' (Blue)")
        if self.seen_players & int(text):
            raise self.error(f"a second <player id=\"{text}\">")
        self.player_id = int(text)
        self.text = []
        p = self.parser
        p.CharacterDataHandler = self.text.append  # only inside <player>: text elsewhere is layout
        p.EndElementHandler = self.end_player
        p.StartElementHandler = self.inside_player

    def inside_player(self, name: str, a: list[str]) -> None:
        """A player's name is plain text: any element inside it is an error."""
        raise self.error(f"{_tag(name)} inside <player>: expected only the player's name")

    def end_player(self, name: str) -> None:
        """Store the name and restore the handlers of the rest of the game."""
        player = self.player_id
        self.players[player - 1] = "".join(self.text).strip()
        self.seen_players |= player
        p = self.parser
        p.CharacterDataHandler = None
        p.EndElementHandler = None
        p.StartElementHandler = self.start

    def start_result(self, attrs: dict[str, str]) -> None:
        """Read the result codes, warning when the result type and the winner contradict each other."""
        if self.result_type is not None:
            raise self.error("a second <result>: expected one per game")
        kind = attrs.get("type", "")
        if not (kind.isascii() and kind.isdigit()) or len(kind) > 4:
            raise self.error(f"result type {shown(kind, 20)}: expected a number, one of "
                             f"{', '.join(map(str, RESULT_TYPES))}")
        code = int(kind)
        if code not in RESULT_TYPES:
            self.warn(f"unknown result type {code}")
        text = attrs.get("winner", "")
        if text not in _WINNERS:
            raise self.error(f"result winner {shown(text)}: expected '1' (Red), '2' (Blue) or '3' (draw)")
        winner = _WINNERS[text]
        if code in _DRAW_RESULTS and winner is not None:
            self.warn(f"result type {code} ({RESULT_TYPES[code]}) names winner {text} "
                      f"({rules.PLAYER_NAMES[winner]})")
        elif code in _DECISIVE_RESULTS and winner is None:
            self.warn(f"result type {code} ({RESULT_TYPES[code]}) names no winner")
        self.result_type = code
        self.winner = winner

    def game(self) -> GravonGame:
        """The finished game, once expat has read the whole document."""
        if self.game_type is None:
            raise GravonError("no <game> element: expected <stratego><game type=...>", self.source)
        return GravonGame(self.source, self.game_type, self.field, tuple(self.moves),
                          (self.players[0], self.players[1]), self.result_type, self.winner, tuple(self.rescues),
                          tuple(self.warnings))


def _refuse_dtd(builder: _Builder) -> Callable[..., NoReturn]:
    """A handler for every DTD and entity callback: refuse before anything is declared or expanded."""
    def refuse(*args: object) -> NoReturn:
        raise builder.error("document type declaration (DTD) refused: a Gravon file needs none, and a DTD "
                            "can declare entities that expand without bound or read other files")
    return refuse


def parse_gravon(data: bytes, source: str = "<bytes>", *, max_bytes: int = MAX_XML_BYTES) -> GravonGame:
    """Parse one strados2 XML game; every problem with the data raises GravonError naming ``source``."""
    return _parse(data, source, max_bytes, None)


def _parse(data: bytes, source: str, max_bytes: int, name_type: str | None) -> GravonGame:
    """parse_gravon, told which game type the file name announces (to warn when <game> disagrees)."""
    if len(data) > max_bytes:
        raise GravonError(f"{len(data)} bytes is over the limit of {max_bytes} bytes per XML file", source)
    if not data:
        raise GravonError("empty file: expected a strados2 XML document", source)
    parser = expat.ParserCreate(intern=dict(_INTERNED))
    parser.ordered_attributes = True
    builder = _Builder(source, parser, name_type)
    refuse = _refuse_dtd(builder)
    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.UnparsedEntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    try:
        parser.Parse(data, True)
    except GravonError:
        raise
    except expat.ExpatError as e:
        what = "truncated XML" if e.code in _TRUNCATED else "not well-formed XML"
        raise GravonError(f"{what} ({expat.ErrorString(e.code)}): expected a strados2 XML document",
                          source, e.lineno, e.offset + 1) from None
    except (LookupError, ValueError) as e:  # pyexpat looks unknown encodings up in Python's codecs
        raise GravonError(f"unsupported encoding in the XML declaration ({e}): expected UTF-8", source,
                          parser.CurrentLineNumber, parser.CurrentColumnNumber + 1) from None
    return builder.game()


_TRUNCATED = frozenset({expat.errors.codes[expat.errors.XML_ERROR_NO_ELEMENTS],
                        expat.errors.codes[expat.errors.XML_ERROR_UNCLOSED_TOKEN],
                        expat.errors.codes[expat.errors.XML_ERROR_PARTIAL_CHAR]})


def _name_type(name: str) -> str | None:
    """The game type a member name announces (``classic-2014.0-5.xml`` -> classic), if it is a known one."""
    kind = name.rpartition("/")[2].partition("-")[0]
    return kind if kind in GAME_TYPES else None


def _open_zip(file: Path) -> zipfile.ZipFile:
    """Open a zip, turning whatever zipfile raises on a broken archive into a GravonError."""
    try:
        return zipfile.ZipFile(file)
    except Exception as e:  # zipfile raises many types on a corrupt archive; all mean the same here
        raise GravonError(f"not a readable zip file ({type(e).__name__}: {e}): expected a Gravon monthly zip",
                          str(file)) from None


def _wanted(name_type: str | None, types: frozenset[str] | None) -> bool:
    """False when the name alone shows the game is of a type not asked for (saves parsing it)."""
    return types is None or name_type is None or name_type in types


def _zip_members(archive: zipfile.ZipFile, types: frozenset[str] | None) -> list[int]:
    """Indexes in ``archive.infolist()`` of the XML members to read, in name order."""
    infos = archive.infolist()
    return sorted((k for k, i in enumerate(infos) if not i.is_dir() and i.filename.lower().endswith(".xml")
                   and _wanted(_name_type(i.filename), types)), key=lambda k: infos[k].filename)


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, source: str, max_bytes: int) -> bytes:
    """The bytes of one zip member, refusing to inflate more than the size limit."""
    if info.file_size > max_bytes:
        raise GravonError(f"the zip declares {info.file_size} bytes for this member, over the limit of "
                          f"{max_bytes} bytes per XML file", source)
    try:
        with archive.open(info) as f:
            return f.read(max_bytes + 1)  # whatever the header says, inflate no more than the limit allows
    except Exception as e:  # bad CRC, zlib errors, bad headers, encryption: zipfile has many types
        raise GravonError(f"corrupt zip member ({type(e).__name__}: {e})", source) from None


def _read_zip(file: Path, types: frozenset[str] | None, max_bytes: int,
              indexes: list[int] | None = None) -> Iterator[GravonGame | GravonError]:
    """The games of one zip (or of the members at ``indexes``), with problems as items, not raised."""
    try:
        archive = _open_zip(file) if indexes is None else _part_zip(file)
    except GravonError as e:
        yield e
        return
    with archive if indexes is None else contextlib.nullcontext(archive):
        infos = archive.infolist()
        for k in _zip_members(archive, types) if indexes is None else indexes:
            info = infos[k]
            source = f"{file}:{info.filename}"
            try:
                yield _parse(_read_member(archive, info, source, max_bytes), source, max_bytes,
                             _name_type(info.filename))
            except GravonError as e:
                yield e


def _read_xml(file: Path, types: frozenset[str] | None, max_bytes: int) -> Iterator[GravonGame | GravonError]:
    """The game of one XML file (nothing if its name shows an unwanted type), or its problem."""
    source = str(file)
    name_type = _name_type(file.name)
    if not _wanted(name_type, types):
        return
    try:
        with file.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > max_bytes:
                raise GravonError(f"{size} bytes is over the limit of {max_bytes} bytes per XML file", source)
            data = f.read(max_bytes + 1)
        yield _parse(data, source, max_bytes, name_type)
    except OSError as e:
        yield GravonError(f"cannot read the file: {e.strerror or e}", source)
    except GravonError as e:
        yield e


_TASK_MEMBERS = 256  # zip members per worker task
_PART_ZIPS: dict[tuple[str, int, int, int], zipfile.ZipFile] = {}  # the zip the parts being read come from


def _part_zip(file: Path) -> zipfile.ZipFile:
    """The open zip for a part of it, kept open for its next parts: opening a zip parses its whole member
    list, so reopening it for every part of 256 members made reading a zip take time in the square of its
    size (100,000 members: 5 minutes instead of seconds).  A changed file is opened again."""
    try:
        st = file.stat()
    except OSError as e:
        raise GravonError(f"cannot read the file: {e.strerror or e}", str(file)) from None
    key = (os.fspath(file), st.st_size, st.st_mtime_ns, st.st_ino)
    archive = _PART_ZIPS.get(key)
    if archive is None:
        close_parts()
        archive = _PART_ZIPS[key] = _open_zip(file)
    return archive


def close_parts() -> None:
    """Close the zip that :func:`read_part` keeps open between parts (each process keeps at most one)."""
    while _PART_ZIPS:
        _PART_ZIPS.popitem()[1].close()

# A piece of work that one process can read on its own: a file, and for a zip the indexes of the members
# to read (``None`` for an XML file).  Splitting big zips lets several processes share one monthly zip.
Part = tuple[str, list[int] | None]


def split_parts(files: Iterable[str | os.PathLike[str]], *, types: Iterable[str] | None = None,
                size: int = _TASK_MEMBERS) -> Iterator[Part | GravonError]:
    """The .xml and .zip ``files`` cut into parts of at most ``size`` games, in reading order; a zip that
    cannot be opened is yielded as its GravonError, so the caller decides whether it stops the work."""
    wanted = frozenset(types) if types is not None else None
    for file in map(Path, files):
        if file.suffix.lower() != ".zip":
            if _wanted(_name_type(file.name), wanted):
                yield str(file), None
            continue
        try:
            with _open_zip(file) as archive:
                members = _zip_members(archive, wanted)
        except GravonError as e:
            yield e
            continue
        for k in range(0, len(members), size):
            yield str(file), members[k:k + size]


def read_part(part: Part, *, max_bytes: int = MAX_XML_BYTES) -> Iterator[GravonGame | GravonError]:
    """The games of one part (see :func:`split_parts`), with each problem as an item rather than raised.  The
    zip stays open for the next part of it (:func:`close_parts` closes it)."""
    path, indexes = part
    file = Path(path)
    return _read_xml(file, None, max_bytes) if indexes is None else _read_zip(file, None, max_bytes, indexes)


# A game as a worker process sends it: the moves packed two bytes a move (squares are below 256), since
# unpickling millions of small tuples would cost the reading process more than parsing saves it.
_Packed = tuple[str, str, str | None, bytes, tuple[str, str], int | None, int | None,
                tuple[tuple[int, int, str], ...], tuple[str, ...]]


def _parse_task(path: str, indexes: list[int] | None, max_bytes: int) -> list[_Packed | GravonError]:
    """Run in a worker process: parse one XML file or some members of a zip, games packed for the trip."""
    return [item if isinstance(item, GravonError) else
            (item.source, item.game_type, item.field, bytes(chain.from_iterable(item.moves)), item.players,
             item.result_type, item.winner, item.rescues, item.warnings)
            for item in read_part((path, indexes), max_bytes=max_bytes)]


def _unpack(p: _Packed) -> GravonGame:
    """A game as a worker sent it, back to a GravonGame (in the reading process)."""
    moves = p[3]
    return GravonGame(p[0], p[1], p[2], tuple(zip(moves[::2], moves[1::2], strict=True)), p[4], p[5], p[6],
                      p[7], p[8])


class GravonReader:
    """Iterator over the games at a path (an .xml file, a .zip or a folder of both), in name order.

    With ``errors="raise"`` the first bad game raises GravonError; with ``errors="skip"`` bad games and
    unreadable files are left out and their errors collected in :attr:`errors`, so one broken file does
    not stop an analysis of thousands.  With ``workers=N`` N processes parse while the caller works on
    the games already read (same games, same order, same errors); scripts that use it need Python's
    usual ``if __name__ == "__main__":`` guard where processes are spawned rather than forked.
    """

    def __init__(self, path: str | os.PathLike[str], *, types: Iterable[str] | None = None,
                 errors: str = "raise", max_bytes: int = MAX_XML_BYTES, workers: int = 0) -> None:
        if errors not in ("raise", "skip"):
            raise ValueError(f"errors={errors!r}: expected 'raise' or 'skip'")
        if isinstance(types, str):
            raise TypeError(f"types={types!r}: expected a set of game types, like {{'classic'}}")
        if not isinstance(workers, int) or workers < 0:
            raise ValueError(f"workers={workers!r}: expected 0 (parse here) or a number of processes")
        self.path = Path(path)
        self.types = frozenset(types) if types is not None else None
        self.raise_errors = errors == "raise"
        self.max_bytes = max_bytes
        self.workers = workers
        self.errors: list[GravonError] = []
        self.files = self._files()
        self._games = self._generate()

    def __iter__(self) -> Self:
        return self

    def __next__(self) -> GravonGame:
        return next(self._games)

    def close(self) -> None:
        """Stop reading: close the open zip file and stop the worker processes, if any."""
        self._games.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def _files(self) -> list[Path]:
        """The files to read, found at once so that a wrong path fails at the call."""
        path = self.path
        if path.is_dir():
            try:
                return sorted(p for p in path.iterdir() if p.suffix.lower() in (".zip", ".xml") and p.is_file())
            except OSError as e:
                raise GravonError(f"cannot list the folder: {e.strerror or e}", str(path)) from None
        if path.suffix.lower() not in (".zip", ".xml"):
            raise GravonError("expected a .xml file, a .zip file or a folder of them", str(path))
        if not path.is_file():
            raise GravonError("no such file: expected a .xml file, a .zip file or a folder", str(path))
        return [path]

    def _generate(self) -> Generator[GravonGame, None, None]:
        """Apply the error mode and the type filter to the items of either reading path."""
        items = self._parallel() if self.workers else self._serial()
        try:
            for item in items:
                if isinstance(item, GravonError):
                    if self.raise_errors:
                        raise item
                    self.errors.append(item)
                elif self.types is None or item.game_type in self.types:
                    yield item
        finally:
            items.close()

    def _serial(self) -> Generator[GravonGame | GravonError, None, None]:
        """Games and problems, parsed in this process one file after the other."""
        for file in self.files:
            if file.suffix.lower() == ".zip":
                yield from _read_zip(file, self.types, self.max_bytes)
            else:
                yield from _read_xml(file, self.types, self.max_bytes)

    def _tasks(self) -> Iterator[Part | GravonError]:
        """The work for the worker processes, in reading order: an XML file, or a run of zip members."""
        return split_parts(self.files, types=self.types)

    def _parallel(self) -> Generator[GravonGame | GravonError, None, None]:
        """Games and problems in the same order as ``_serial``, parsed by worker processes ahead of use."""
        pending: collections.deque[tuple[str, Future[list[_Packed | GravonError]]] | GravonError]
        pending = collections.deque()
        pool = worker_pool(self.workers)
        try:
            for task in self._tasks():
                if isinstance(task, GravonError):
                    pending.append(task)
                else:
                    pending.append((task[0], pool.submit(_parse_task, task[0], task[1], self.max_bytes)))
                if len(pending) > 3 * self.workers:  # keep the workers busy, but memory bounded
                    yield from self._finish(pending.popleft())
            while pending:
                yield from self._finish(pending.popleft())
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    @staticmethod
    def _finish(entry: tuple[str, Future[list[_Packed | GravonError]]] | GravonError,
                ) -> Iterator[GravonGame | GravonError]:
        """The items of one task, waiting for its worker if need be."""
        if isinstance(entry, GravonError):
            yield entry
            return
        path, future = entry
        try:
            results = future.result()
        except BrokenProcessPool as e:
            yield GravonError(f"a worker process died while reading this file ({e})", path)
            return
        for item in results:
            yield item if isinstance(item, GravonError) else _unpack(item)


def read_gravon(path: str | os.PathLike[str], *, types: Iterable[str] | None = None, errors: str = "raise",
                max_bytes: int = MAX_XML_BYTES, workers: int = 0) -> GravonReader:
    """Iterate over the Gravon games at ``path`` (.xml, .zip or a folder); see :class:`GravonReader`."""
    return GravonReader(path, types=types, errors=errors, max_bytes=max_bytes, workers=workers)


# -- writing ---------------------------------------------------------------------------------------------

_GRAVON_NAMES = {sq: name for name, sq in _SQUARES.items()}  # kit square -> Gravon square name
_FIELD_LETTERS = {piece: letter for letter, piece in _FIELD_PIECES.items()}  # (owner, piece name) -> letter
_FIELD_INDEX = {sq: i for i, sq in enumerate(_FIELD_SQUARES)}
_WINNER_CODES = {rules.RED: "1", rules.BLUE: "2", None: "3"}
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # not allowed in XML 1.0
_MEMBER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9 ._-]{0,150}\.xml")


def encode_field(placements: Mapping[int, tuple[int, str]], source: str = "<field>") -> str:
    """The 100-character Gravon field of kit square -> (owner, piece name): the inverse of :func:`decode_field`."""
    cells = ["_" if sq in _LAKE_SQUARES else "A" for sq in _FIELD_SQUARES]
    for sq, (owner, name) in placements.items():
        i = _FIELD_INDEX.get(sq)
        if i is None or sq in _LAKE_SQUARES:
            where = square_name(sq) if 0 <= sq < 16 * 99 else str(sq)
            raise GravonError(f"a {name} on {where}: Gravon's field holds the 10x10 board without the lakes",
                              source)
        letter = _FIELD_LETTERS.get((owner, name))
        if letter is None:
            raise GravonError(f"Gravon's field has no letter for a {name} (only the pieces of the classic army)",
                              source)
        cells[i] = letter
    return "".join(cells)


def _xml_text(text: str, what: str, source: str) -> str:
    """``text`` escaped for an XML attribute or element; GravonError if XML 1.0 cannot hold it at all."""
    bad = _NOT_XML.search(text)
    if bad is not None:
        raise GravonError(f"{what} holds the character {bad.group()!r}, which an XML file cannot hold", source)
    return xml_escape(text, {'"': "&quot;"})


def dump_gravon(game: GravonGame) -> bytes:
    """One game as a strados2 XML file, laid out as Gravon writes them (UTF-8); :func:`parse_gravon` reads
    it back to an equal game.  Raises GravonError for what a Gravon file cannot hold."""
    source = game.source
    if game.game_type not in GAME_TYPES:
        raise GravonError(f"game type {shown(game.game_type)}: expected one of {', '.join(GAME_TYPES)}", source)
    if game.field is None:
        raise GravonError("the game has no field: a Gravon file starts from both setups", source)
    _check_field(game.field, source)
    rescues = {index: (sq, name) for index, sq, name in game.rescues}
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<stratego>", f' <game type="{game.game_type}">',
             f'  <field content="{game.field}"/>']
    names = _GRAVON_NAMES
    for n, (f, t) in enumerate(game.moves, 1):
        a, b = names.get(f), names.get(t)
        if a is None or b is None:
            raise GravonError(f"move {n} leaves the 10x10 board", source)
        rescue = rescues.get(n - 1)
        if rescue is None:
            lines.append(f'  <move id="{n}" source="{a}" target="{b}"/>')
            continue
        sq, name = rescue
        code = _FIELD_CODES.get(name)
        if names.get(sq) is None or code is None:
            raise GravonError(f"the rescue of move {n}: {rescue} is no Gravon square and piece", source)
        lines.append(f'  <move id="{n}" source="{a}" target="{b}"><rescue rescuefield="{names[sq]}" '
                     f'rescuepiece="{code}"/></move>')
    for player, name in enumerate(game.players, 1):
        lines.append(f'  <player id="{player}">{_xml_text(name, f"player {player}", source)}</player>')
    if game.result_type is not None:
        if not 0 <= game.result_type <= 9999:
            raise GravonError(f"result type {game.result_type}: expected a number from 0 to 9999", source)
        if game.winner not in _WINNER_CODES:
            raise GravonError(f"winner {game.winner!r}: expected RED, BLUE or None", source)
        lines.append(f'  <result type="{game.result_type}" winner="{_WINNER_CODES[game.winner]}"/>')
    lines += [" </game>", "</stratego>", ""]
    return "\n".join(lines).encode("utf-8")


def member_name(game: GravonGame) -> str | None:
    """The zip member name ``game.source`` gives (``classic-2014.0-5.xml``), if it is a safe plain file name
    that announces the game's own type; ``None`` otherwise (the caller makes one up)."""
    name = game.source.rpartition(":")[2].replace("\\", "/").rpartition("/")[2]
    if _MEMBER_NAME.fullmatch(name) is None or _name_type(name) != game.game_type:
        return None
    return name


def dump_gravon_zip(games: Iterable[GravonGame], path: str | os.PathLike[str]) -> int:
    """Write games as a zip of strados2 XML files, like a Gravon monthly zip; returns how many.

    Member names come from each game's source where that is a safe name of the right type, else they are
    ``<type>-<n>.xml``.  The zip is written to a temporary file and renamed, so a failure (a game Gravon
    cannot hold) never leaves half a zip, nor replaces an existing file.
    """
    count = 0
    with atomic_output(path, binary=True) as f, zipfile.ZipFile(f, "w", zipfile.ZIP_DEFLATED) as archive:
        used: set[str] = set()
        for count, game in enumerate(games, 1):
            name = member_name(game)
            k = 0
            while name is None or name in used:
                k += 1
                name = f"{game.game_type}-{count}{f'-{k}' if k > 1 else ''}.xml"
            used.add(name)
            archive.writestr(name, dump_gravon(game))
    return count
