"""How long real players leave each piece where they set it up: the share of a type's live pieces not yet moved.

A piece that has not moved by the middle of a game is likelier a Bomb (or the Flag) than its setup square alone
says, the more so on the front rows, where players move their pieces early: in the Gravon archive, after 100
moves of their side, 10 % of the Marshals set up on the front row had not moved, 97 % of the Sergeants set up
on the back row.  The computer reads this as evidence (:func:`strategolab.ai.beliefs.belief_table`, ``stillness``).

A small table counted from the Gravon archive ships with the package (``data/stillness_classic.json``): per
movable type, per setup row (0 the owner's back row), per ten moves of the owner's side, how many of those pieces
were on the board and how many of them had never moved.  Rebuild it with::

    python -m strategolab.stillness build ../shared/data/gravon [--games 1500]
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from strategolab.board import STRIDE, Square, geometry
from strategolab.datafiles import read_table, serving_ruleset, write_table
from strategolab.errors import StrategolabError
from strategolab.rules import Ruleset, get_ruleset
from strategolab.state import Move, State

FORMAT = "strategolab-stillness/1"
BUCKET = 10  # moves of the owner's side per column of the table
LAST = 30  # the last column holds every count from LAST * BUCKET moves on
SMOOTH = 20.0  # a type's share leans on the share of all movable types on that row by this many pieces
EVERY = 10  # plies between the positions counted in a game


@dataclass(frozen=True)
class Stillness:
    """``counts[piece][row][column]`` = (pieces on the board, of them never moved), counted in real games every
    :data:`EVERY` plies from ply 20; ``row`` 0 is the owner's back row, ``column`` the owner's moves // BUCKET."""

    ruleset: Ruleset
    games: int
    counts: dict[str, tuple[tuple[tuple[int, int], ...], ...]]
    source: str = ""

    @functools.cached_property
    def _shares(self) -> dict[str, list[list[float]]]:
        rows = len(next(iter(self.counts.values()), ()))
        pooled = [[(sum(c[r][b][1] for c in self.counts.values()), sum(c[r][b][0] for c in self.counts.values()))
                   for b in range(LAST + 1)] for r in range(rows)]
        base = [[still / alive if alive else 1.0 for still, alive in row] for row in pooled]
        return {name: [[(c[r][b][1] + SMOOTH * base[r][b]) / (c[r][b][0] + SMOOTH) for b in range(LAST + 1)]
                       for r in range(rows)] for name, c in self.counts.items()}

    def share(self, piece: str, row: int, moves: int) -> float:
        """The share of ``piece``'s live pieces set up on ``row`` (0: the back row) that real players had not
        moved after ``moves`` moves of their side (smoothed towards all movable types on that row); 1.0 for a
        type or row the table does not hold."""
        rows = self._shares.get(piece)
        if rows is None or not 0 <= row < len(rows):
            return 1.0
        return rows[row][min(max(moves, 0) // BUCKET, LAST)]

    def to_json(self) -> dict:
        return {"format": FORMAT, "ruleset": self.ruleset.name, "source": self.source, "games": self.games,
                "bucket": BUCKET, "counts": {p: [[list(x) for x in row] for row in rows]
                                             for p, rows in self.counts.items()}}

    @classmethod
    def from_json(cls, data: dict, where: str = "<json>") -> Stillness:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise StrategolabError(f"{where}: not a stillness table (expected format {FORMAT!r})")
        try:
            rs = get_ruleset(data["ruleset"])
            if int(data["bucket"]) != BUCKET:
                raise ValueError(f"bucket must be {BUCKET} moves")
            rows = setup_rows(rs)
            counts = {}
            for p, table in data["counts"].items():
                rs.piece_type(p)  # a KeyError names a piece the rule set lacks
                got = tuple(tuple((int(a), int(s)) for a, s in row) for row in table)
                if len(got) != rows or any(len(row) != LAST + 1 for row in got):
                    raise ValueError(f"{p}: {rows} rows of {LAST + 1} columns expected")
                if any(a < 0 or not 0 <= s <= a for row in got for a, s in row):
                    raise ValueError(f"{p}: counts must be 0 <= never moved <= on the board")
                counts[p] = got
            return cls(rs, int(data["games"]), counts, str(data.get("source", "")))
        except (KeyError, TypeError, ValueError) as e:
            raise StrategolabError(f"{where}: malformed stillness table: {e}") from None


def setup_rows(rs: Ruleset) -> int:
    """How many rows each side sets up on."""
    return len({sq // STRIDE for sq in geometry(rs).setup_squares[0]})


def row_from_back(rs: Ruleset, square: Square, owner: int) -> int:
    """The row of ``square`` counted from ``owner``'s back row (0)."""
    row = square // STRIDE
    return row if owner == 0 else rs.height - 1 - row


class _Tally:
    """Counts pieces never moved while a game is replayed (pure Python)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        rows = setup_rows(ruleset)
        self.games = 0
        self.counts = {k.name: [[[0, 0] for _ in range(LAST + 1)] for _ in range(rows)]
                       for k, _ in ruleset.army if k.movable}

    def game(self, state: State, moves: Iterable[tuple[Square, Square]]) -> None:
        """Replay one game from ``state``, counting every :data:`EVERY` plies from ply 20; a move the rules
        refuse ends the count there."""
        rs = self.ruleset
        start = {s: row_from_back(rs, s, q.owner) for s in state.squares() if (q := state.piece_at(s))}
        self.games += 1
        with contextlib.suppress(StrategolabError):
            for i, (f, t) in enumerate(moves):
                if i >= 20 and i % EVERY == 0:
                    column = min(i // 2 // BUCKET, LAST)
                    for s in state.squares():
                        q = state.piece_at(s)
                        if q is not None and q.type.movable:
                            cell = self.counts[q.type.name][start[s]][column]
                            cell[0] += 1
                            cell[1] += not state.has_moved(s)
                mover = state.piece_at(f)
                origin = start.pop(f, None)
                state.push(Move(f, t))
                q = state.piece_at(t)
                if q is None:
                    start.pop(t, None)
                elif mover is not None and q.owner == mover.owner and origin is not None:
                    start[t] = origin

    def result(self, source: str) -> Stillness:
        return Stillness(self.ruleset, self.games, {p: tuple(tuple((a, s) for a, s in row) for row in rows)
                                                    for p, rows in self.counts.items()}, source)


def tally(games: Iterable[tuple[State, Iterable[tuple[Square, Square]]]], ruleset: str | Ruleset = "classic",
          source: str = "") -> Stillness:
    """Count games given as ``(start, moves)`` (a move is ``(from, to)``); the states are played forward."""
    t = _Tally(get_ruleset(ruleset))
    for state, moves in games:
        t.game(state, moves)
    return t.result(source)


def build(paths: Iterable[str | os.PathLike[str]], games: int | None = 1500, game_type: str = "classic") -> Stillness:
    """The table for ``game_type`` from the first ``games`` Gravon games with a setup in ``paths``."""
    from strategolab.archive import games_with_setup

    paths = list(paths)
    table = tally(games_with_setup(paths, game_type, games), game_type)
    return dataclasses.replace(table, source=", ".join(Path(p).name for p in paths)
                               + f" (the first {table.games} Gravon {game_type} games with a setup)")


def _data_file(ruleset: str) -> str:
    return f"stillness_{ruleset}.json"


def load(ruleset: str | Ruleset = "classic", path: str | os.PathLike[str] | None = None) -> Stillness:
    """The shipped table for ``ruleset`` (``classic``), or one saved at ``path``."""
    name = get_ruleset(ruleset).name
    data, where = read_table(_data_file(name), path, f"no stillness table for {name!r}")
    return Stillness.from_json(data, where)  # type: ignore[arg-type]


@functools.cache
def for_ruleset(rs: Ruleset) -> Stillness | None:
    """The shipped table whose army and setup zone match ``rs`` (classic, isf, original-1961), if any."""
    table = serving_ruleset(rs)
    if table is None:
        return None
    try:
        return load(table.name)
    except StrategolabError:
        return None  # (barrage has setup statistics but no stillness table)


def save(table: Stillness, path: str | os.PathLike[str]) -> None:
    """Write a table atomically (a temporary file renamed over the target)."""
    write_table(table.to_json(), path)


def main(argv: list[str] | None = None) -> int:
    """``python -m strategolab.stillness build PATH... [--games N] [--out DIR]``: rebuild the shipped table."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m strategolab.stillness", description=main.__doc__)
    parser.add_argument("command", choices=("build",))
    parser.add_argument("paths", nargs="+", help="Gravon XML files, monthly zips or folders of them")
    parser.add_argument("--games", type=int, default=1500,
                        help="count the first GAMES classic games with a setup (default 1500: the games the "
                             "behaviour weights were counted from, so benchmarks/calibration.py judges others)")
    parser.add_argument("--out", default=str(Path(__file__).parent / "data"),
                        help="folder for stillness_classic.json (default: the package's data folder)")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be at least 1, not {args.games}")
    try:
        table = build(args.paths, args.games)
        if not table.games:
            raise StrategolabError(f"no classic game with a setup in {', '.join(args.paths)}")
        out = Path(args.out) / _data_file(table.ruleset.name)
        save(table, out)
    except StrategolabError as e:
        parser.exit(1, f"{parser.prog}: error: {e}\n")
    print(f"{table.ruleset.name}: {table.games} games -> {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
