"""Squares, their names, and the move geometry of a board (rays, neighbours), computed once per rule set.

A square is an ``int``: ``row * 16 + column`` with row 0 = row 1 on the rules pages (Red's back row) and
column 0 = ``A``.  The stride of 16 makes a square's number independent of the board's width, so
``C5`` is the same number on every board and a :class:`~strategolab.state.Move` prints the same way in
every variant.
"""

from __future__ import annotations

import functools
import operator
from typing import NamedTuple

from strategolab.rules import Ruleset

STRIDE = 16
COLUMNS = "ABCDEFGHIJKLMNOP"
Square = int
DIRECTIONS = (1, -1, STRIDE, -STRIDE)
# Offsets to the squares two steps away by rows and columns.  A board may be STRIDE columns wide, so an offset
# can wrap into the next row: check the column too (and that the square is on the board).
TWO_STEPS = (2, -2, 2 * STRIDE, -2 * STRIDE, STRIDE + 1, STRIDE - 1, 1 - STRIDE, -1 - STRIDE)


def square(column: int, row: int) -> Square:
    """The square in 0-based ``column`` and 0-based ``row`` (row 0 is row 1 on the board)."""
    return row * STRIDE + column


def square_column(sq: Square) -> int:
    return sq % STRIDE


def square_row(sq: Square) -> int:
    return sq // STRIDE


def square_name(sq: Square) -> str:
    """``0`` → ``'A1'``; ``9 * 16 + 9`` → ``'J10'``.  Raises ``ValueError`` for a number that is no square."""
    try:
        sq = operator.index(sq)
    except TypeError:
        raise TypeError(f"a square is a number (as parse_square gives), not {type(sq).__name__} {sq!r}") from None
    if not 0 <= sq < 99 * STRIDE:
        raise ValueError(f"{sq} is not a square number (expected 0 to {99 * STRIDE - 1}, as parse_square gives)")
    return f"{COLUMNS[sq % STRIDE]}{sq // STRIDE + 1}"


def parse_square(name: str) -> Square:
    """``'C5'`` → square number; case-insensitive.  Raises ``ValueError`` naming the bad text."""
    if not isinstance(name, str):
        raise TypeError(f"a square name is a str like 'C5', not {type(name).__name__} {name!r}")
    text = name.strip()
    col = COLUMNS.find(text[:1].upper()) if text else -1
    digits = text[1:]
    if col < 0 or not (digits.isascii() and digits.isdigit()) or not 1 <= int(digits) <= 99:
        raise ValueError(f"{name!r} is not a square name (expected a column letter and a row, like 'C5')")
    return (int(digits) - 1) * STRIDE + col


# Named constants A1 ... J10, as python-chess has chess.E4.
for _r in range(10):
    for _c in range(10):
        globals()[f"{COLUMNS[_c]}{_r + 1}"] = _r * STRIDE + _c
del _r, _c


class Geometry(NamedTuple):
    """Precomputed move geometry of one board: what the move generator reads in its inner loop."""

    width: int
    height: int
    size: int  # length of the board list (height * STRIDE)
    land: tuple[Square, ...]  # every square that is on the board and not a lake, A1 first
    lakes: frozenset[Square]
    neighbours: tuple[tuple[Square, ...], ...]  # per square: adjacent land squares
    rays: tuple[tuple[tuple[Square, ...], ...], ...]  # per square: per direction, land squares until a lake/edge
    setup_squares: tuple[tuple[Square, ...], tuple[Square, ...]]  # per player, in that player's reading order

    def on_board(self, sq: Square) -> bool:
        return 0 <= sq < self.size and sq % STRIDE < self.width

    def contains(self, sq: Square) -> bool:
        """On the board and not a lake."""
        return self.on_board(sq) and sq not in self.lakes


@functools.cache
def geometry(ruleset: Ruleset) -> Geometry:
    """The board geometry of a rule set (cached: rule sets are frozen values)."""
    w, h = ruleset.width, ruleset.height
    lakes = frozenset(parse_square(n) for n in ruleset.lakes)
    size = h * STRIDE
    land = tuple(square(c, r) for r in range(h) for c in range(w) if square(c, r) not in lakes)
    landset = set(land)
    rays: list[tuple[tuple[Square, ...], ...]] = [()] * size
    neighbours: list[tuple[Square, ...]] = [()] * size
    for sq in land:
        sq_rays = []
        for d in DIRECTIONS:
            ray = []
            col = sq % STRIDE
            t = sq
            while True:
                if (d == 1 and col == w - 1) or (d == -1 and col == 0):
                    break
                t += d
                col += 1 if d == 1 else -1 if d == -1 else 0
                if t not in landset:
                    break
                ray.append(t)
            sq_rays.append(tuple(ray))
        rays[sq] = tuple(sq_rays)
        neighbours[sq] = tuple(r[0] for r in sq_rays if r)
    setup = []
    for player, rows in enumerate(ruleset.setup_rows):
        # Reading order as the owner sees the board from their seat (at the bottom, by row 1, or at the top):
        # front row first, left to right.
        bottom = ruleset.sits_at_bottom(player)
        ordered_rows = sorted(rows, reverse=bottom)
        cols = range(w) if bottom else range(w - 1, -1, -1)
        setup.append(tuple(square(c, r - 1) for r in ordered_rows for c in cols if square(c, r - 1) in landset))
    return Geometry(w, h, size, land, lakes, tuple(neighbours), tuple(rays), (setup[0], setup[1]))
