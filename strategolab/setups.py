"""Setups: one player's deployment, as a value that validates itself, prints as a short string, and
can be drawn at random.

A setup is stored in its owner's reading order (front row first, left to right as the owner sees the
board from their seat), so a Red setup and a Blue setup with the same string look the same to their
owners, and setups of both colours can be compared square by square.
"""

from __future__ import annotations

import functools
import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from strategolab.board import Square, geometry, parse_square, square_name
from strategolab.errors import SetupError
from strategolab.rules import PLAYER_NAMES, RED, PieceType, Ruleset, check_player, get_ruleset

EMPTY = "."


@dataclass(frozen=True)
class Setup:
    """One player's deployment: a piece type (or ``None``) for each setup square in reading order."""

    ruleset: Ruleset
    pieces: tuple[PieceType | None, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.ruleset, Ruleset):
            raise TypeError(f"a setup's ruleset is a Ruleset (get_ruleset('classic')), not {self.ruleset!r}")
        if not isinstance(self.pieces, tuple):
            raise TypeError(f"a setup's pieces are a tuple of piece types (or None), not {self.pieces!r}")
        for i, p in enumerate(self.pieces):
            if p is not None and not isinstance(p, PieceType):
                raise TypeError(f"setup square {i + 1} (reading order): expected a PieceType or None, not {p!r} "
                                f"(Setup.parse reads symbols)")

    # -- building ------------------------------------------------------------------------------------

    @classmethod
    def parse(cls, text: str, ruleset: str | Ruleset | None = None) -> Setup:
        """Read a setup string: rows front to back separated by ``/``, one symbol per square.

        Symbols are the rule set's (classic: ``F B S 2 3 4 5 6 7 8 9 X``, and ``10`` is accepted for the
        Marshal; original-1961 uses its old ranks ``1`` = Marshal ... ``9`` = Scout), ``.`` marks an empty
        square; spaces are ignored.
        """
        if not isinstance(text, str):
            raise TypeError(f"a setup string is a str like 'F B S ...', not {type(text).__name__} {text!r}")
        rs = get_ruleset(ruleset)
        geo = geometry(rs)
        row_sizes, by_symbol, ten = _parse_tables(rs)
        texts = text.replace(" ", "").replace("\n", "/").strip("/").split("/")
        if len(texts) != len(row_sizes):
            raise SetupError(f"setup string has {len(texts)} rows separated by '/', "
                             f"{rs.name} needs {len(row_sizes)}")
        pieces: list[PieceType | None] = []
        for i, (row_text, size) in enumerate(zip(texts, row_sizes, strict=True)):
            row: list[PieceType | None] = []
            k = 0
            while k < len(row_text):
                ch = row_text[k]
                if ch == EMPTY:
                    row.append(None)
                elif ch in by_symbol:
                    row.append(by_symbol[ch])
                elif ten is not None and row_text.startswith("10", k):
                    row.append(ten)
                    k += 1
                else:
                    known = " ".join(f"{rs.symbol(p)}={p.name}" for p in rs.piece_types)
                    raise SetupError(f"setup string row {i + 1}, character {k + 1}: {ch!r} is not a piece of "
                                     f"{rs.name} (pieces: {known}; '.' for an empty square)")
                k += 1
            if len(row) != size:
                raise SetupError(f"setup string row {i + 1} has {len(row)} squares, expected {size}")
            pieces.extend(row)
        assert len(pieces) == len(geo.setup_squares[RED])
        return cls(rs, tuple(pieces))

    @classmethod
    def from_placements(cls, placements: Mapping[Square | str, PieceType | str], player: int,
                        ruleset: str | Ruleset | None = None) -> Setup:
        """A setup from squares (as placed on the board by ``player``) to piece types or their symbols."""
        rs = get_ruleset(ruleset)
        player = check_player(player)
        geo = geometry(rs)
        squares = geo.setup_squares[player]
        index = {sq: i for i, sq in enumerate(squares)}
        pieces: list[PieceType | None] = [None] * len(squares)
        rows = ", ".join(str(r) for r in sorted(rs.setup_rows[player]))
        for key, value in placements.items():
            sq = parse_square(key) if isinstance(key, str) else key
            if isinstance(sq, bool) or (sq not in index and (not isinstance(sq, int) or not geo.on_board(sq))):
                raise SetupError(f"{key!r} is not a square of the {rs.width}x{rs.height} board "
                                 f"(expected a name like 'C5' or a square number)")
            try:
                kind = value if isinstance(value, PieceType) else rs.piece_type(value)
            except KeyError as e:
                raise SetupError(f"{square_name(sq)}: {e.args[0]}") from None
            if sq not in index:
                raise SetupError(f"{PLAYER_NAMES[player]}'s {kind.name} on {square_name(sq)} is outside "
                                 f"{PLAYER_NAMES[player]}'s setup rows ({rows})")
            pieces[index[sq]] = kind
        return cls(rs, tuple(pieces))

    @classmethod
    def random(cls, ruleset: str | Ruleset | None = None, seed: int | random.Random | None = None) -> Setup:
        """A uniformly random legal setup (reproducible from ``seed``)."""
        rs = get_ruleset(ruleset)
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        n = len(geometry(rs).setup_squares[RED])
        pieces: list[PieceType | None] = [p for p, count in rs.army for _ in range(count)]
        pieces += [None] * (n - len(pieces))
        rng.shuffle(pieces)
        return cls(rs, tuple(pieces))

    # -- checking and using --------------------------------------------------------------------------

    def problems(self) -> list[str]:
        """Everything wrong with this setup, in words (empty when it is legal)."""
        rs = self.ruleset
        out = []
        n = len(geometry(rs).setup_squares[RED])
        if len(self.pieces) != n:
            out.append(f"a {rs.name} setup has {n} squares, this one {len(self.pieces)}")
        have = Counter(p.name for p in self.pieces if p is not None)
        for kind, count in rs.army:
            if have[kind.name] != count:
                plural = "" if count == 1 else "s"
                out.append(f"{have[kind.name]} × {kind.name} where {rs.name} needs {count} {kind.name}{plural}")
        known = {p.name: p for p in rs.piece_types}
        distinct = {id(p): p for p in self.pieces if p is not None}.values()  # every object, cheaply
        strangers = {p.name for p in distinct if known.get(p.name) is not p and known.get(p.name) != p}
        out += [f"a {name} is not a piece of {rs.name}" for name in sorted(strangers)]
        return out

    def validate(self) -> Setup:
        """Raise :class:`SetupError` listing every problem; return the setup when it is legal."""
        problems = self.problems()
        if problems:
            raise SetupError(f"invalid {self.ruleset.name} setup: " + "; ".join(problems))
        return self

    def is_valid(self) -> bool:
        return not self.problems()

    def placements(self, player: int) -> dict[Square, PieceType]:
        """Where the pieces stand on the board when ``player`` deploys this setup."""
        squares = geometry(self.ruleset).setup_squares[check_player(player)]
        return {sq: p for sq, p in zip(squares, self.pieces, strict=True) if p is not None}

    def swap(self, a: int, b: int) -> Setup:
        """A copy with the pieces at reading-order positions ``a`` and ``b`` exchanged."""
        n = len(self.pieces)
        for i in (a, b):
            if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < n:
                raise ValueError(f"setup position {i!r} is not one of 0..{n - 1} (reading order)")
        pieces = list(self.pieces)
        pieces[a], pieces[b] = pieces[b], pieces[a]
        return Setup(self.ruleset, tuple(pieces))

    def __str__(self) -> str:
        out = []
        k = 0
        for size in _row_sizes(self.ruleset):
            out.append("".join(self.ruleset.symbol(p) if p else EMPTY for p in self.pieces[k:k + size]))
            k += size
        return "/".join(out)

    def __repr__(self) -> str:
        rs = "" if self.ruleset.name == "classic" else f", {self.ruleset.name!r}"
        return f"Setup.parse({str(self)!r}{rs})"

    def _repr_png_(self) -> bytes | None:
        """The setup deployed on Red's side of the board, so a bare setup in a notebook draws itself."""
        from strategolab.state import _png

        return _png(self)


@functools.cache
def _parse_tables(rs: Ruleset) -> tuple[tuple[int, ...], dict[str, PieceType], PieceType | None]:
    """What reading a setup string of ``rs`` needs: row sizes, pieces by symbol, the piece written ``10``."""
    ten = next((p for p in rs.piece_types if p.label(rs.notation) == "10"), None)
    return tuple(_row_sizes(rs)), {rs.symbol(p): p for p in rs.piece_types}, ten


def _row_sizes(rs: Ruleset) -> list[int]:
    """Land squares per setup row, front row first (the same for both players on a symmetric board)."""
    geo = geometry(rs)
    squares = geo.setup_squares[RED]
    sizes: dict[int, int] = {}
    for sq in squares:
        sizes[sq // 16] = sizes.get(sq // 16, 0) + 1
    return list(sizes.values())
