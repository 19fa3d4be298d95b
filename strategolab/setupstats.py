"""Where real players put their pieces: per-square counts of each piece type in real setups.

Small tables derived from the Gravon archive ship with the package (``data/setup_stats_classic.json`` and
``data/setup_stats_barrage.json``); the computer opponent reads them for its priors and the statistics
notebook draws them.  Squares are counted from
the owner's side (reading order: front row first, left to right as the owner sees the board), so Red's
and Blue's setups add up.  Rebuild the table from any archive with::

    python -m strategolab.setupstats build ../shared/data/gravon
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from strategolab.board import Square, geometry
from strategolab.datafiles import read_table, write_table
from strategolab.errors import StrategolabError
from strategolab.rules import Ruleset, get_ruleset
from strategolab.setups import Setup

FORMAT = "strategolab-setup-stats/1"
GROUPS = ("all", "winners", "losers")


@dataclass(frozen=True)
class SetupStats:
    """Counts of piece types per setup square for one rule set, over ``setups`` real setups.

    ``counts[group][piece name][i]`` is how many setups of that group (``all``, ``winners``, ``losers``)
    had that piece on reading-order square ``i``.
    """

    ruleset: Ruleset
    setups: dict[str, int]
    counts: dict[str, dict[str, tuple[int, ...]]]
    source: str = ""

    def frequency(self, piece: str, group: str = "all") -> list[float]:
        """For each setup square (reading order), the share of setups with ``piece`` there."""
        n = self.setups[group]
        return [c / n if n else 0.0 for c in self._row(piece, group)]

    def on_board(self, piece: str, player: int = 0, group: str = "all") -> dict[Square, float]:
        """The frequencies placed on the board as ``player`` deploys (for drawing a heatmap)."""
        squares = geometry(self.ruleset).setup_squares[player]
        return dict(zip(squares, self.frequency(piece, group), strict=True))

    def square_distribution(self, index: int, group: str = "all") -> dict[str, float]:
        """What stands on reading-order square ``index``: piece name -> share of setups (empty included)."""
        n = self.setups[group]
        out = {name: row[index] / n for name, row in self.counts[group].items()} if n else {}
        out["empty"] = max(0.0, 1.0 - sum(out.values()))
        return out

    def _row(self, piece: str, group: str) -> tuple[int, ...]:
        if group not in self.counts:
            raise KeyError(f"no group {group!r}; groups: {', '.join(GROUPS)}")
        try:
            return self.counts[group][self.ruleset.piece_type(piece).name]
        except KeyError:
            raise KeyError(f"{self.ruleset.name} has no piece {piece!r}") from None

    def to_json(self) -> dict:
        return {"format": FORMAT, "ruleset": self.ruleset.name, "source": self.source, "setups": self.setups,
                "counts": {g: {p: list(v) for p, v in rows.items()} for g, rows in self.counts.items()}}

    @classmethod
    def from_json(cls, data: dict, where: str = "<json>") -> SetupStats:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise StrategolabError(f"{where}: not a setup-statistics table (expected format {FORMAT!r})")
        try:
            rs = get_ruleset(data["ruleset"])
            n = len(geometry(rs).setup_squares[0])
            counts = {g: {p: tuple(int(x) for x in v) for p, v in rows.items()} for g, rows in data["counts"].items()}
            if any(len(v) != n for rows in counts.values() for v in rows.values()):
                raise ValueError(f"every row must have {n} squares")
            return cls(rs, {g: int(v) for g, v in data["setups"].items()}, counts, str(data.get("source", "")))
        except (KeyError, TypeError, ValueError) as e:
            raise StrategolabError(f"{where}: malformed setup-statistics table: {e}") from None


class _Tally:
    """Accumulates setups into counts (pure Python: no pandas needed to build the shipped table)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        n = len(geometry(ruleset).setup_squares[0])
        self.setups = dict.fromkeys(GROUPS, 0)
        self.counts = {g: {p.name: [0] * n for p in ruleset.piece_types} for g in GROUPS}

    def add(self, setup: Setup, groups: Iterable[str]) -> None:
        for g in groups:
            self.setups[g] += 1
            rows = self.counts[g]
            for i, p in enumerate(setup.pieces):
                if p is not None:
                    rows[p.name][i] += 1

    def result(self, source: str) -> SetupStats:
        return SetupStats(self.ruleset, dict(self.setups),
                          {g: {p: tuple(v) for p, v in rows.items()} for g, rows in self.counts.items()}, source)


def tally(setups: Iterable[tuple[Setup, str | None]], ruleset: str | Ruleset = "classic",
          source: str = "") -> SetupStats:
    """Count setups given as ``(setup, "winners" | "losers" | None)``; every setup counts in ``all``."""
    t = _Tally(get_ruleset(ruleset))
    for setup, group in setups:
        t.add(setup, ("all",) if group is None else ("all", group))
    return t.result(source)


def gravon_setups(paths: Iterable[str | os.PathLike[str]], game_type: str = "classic"
                  ) -> Iterator[tuple[Setup, str | None]]:
    """Both setups of every Gravon game of ``game_type`` with a setup, tagged winners/losers if decided."""
    from strategolab.archive import archive_files
    from strategolab.gravon import read_gravon

    rs = get_ruleset(game_type)
    by_name = {p.name: p for p in rs.piece_types}
    for f in archive_files(paths):
        for game in read_gravon(f, types={game_type}):
            if not game.has_setup:
                continue
            sides: list[dict[Square, str]] = [{}, {}]
            for sq, (owner, name) in game.placements.items():
                sides[owner][sq] = name
            for player in (0, 1):
                setup = Setup.from_placements({sq: by_name[n] for sq, n in sides[player].items()}, player, rs)
                if not setup.is_valid():
                    continue
                group = None if game.winner is None else ("winners" if game.winner == player else "losers")
                yield setup, group


def build(paths: Iterable[str | os.PathLike[str]], game_type: str = "classic") -> SetupStats:
    """The table for ``game_type`` from Gravon files, zips or folders."""
    paths = list(paths)
    return tally(gravon_setups(paths, game_type), game_type,
                 source=", ".join(Path(p).name for p in paths) + f" (Gravon {game_type} games)")


def _data_file(ruleset: str) -> str:
    return f"setup_stats_{ruleset}.json"


def load(ruleset: str | Ruleset = "classic", path: str | os.PathLike[str] | None = None) -> SetupStats:
    """The shipped table for ``ruleset`` (``classic`` or ``barrage``), or one saved at ``path``."""
    name = get_ruleset(ruleset).name
    data, where = read_table(_data_file(name), path, f"no setup statistics for {name!r}")
    return SetupStats.from_json(data, where)  # type: ignore[arg-type]


def save(stats: SetupStats, path: str | os.PathLike[str]) -> None:
    """Write a table atomically (a temporary file renamed over the target)."""
    write_table(stats.to_json(), path)


def main(argv: list[str] | None = None) -> int:
    """``python -m strategolab.setupstats build PATH... [--out DIR]``: rebuild the shipped tables."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m strategolab.setupstats", description=main.__doc__)
    parser.add_argument("command", choices=("build",))
    parser.add_argument("paths", nargs="+", help="Gravon XML files, monthly zips or folders of them")
    parser.add_argument("--out", default=str(Path(__file__).parent / "data"),
                        help="folder for setup_stats_<ruleset>.json (default: the package's data folder)")
    args = parser.parse_args(argv)
    for game_type in ("classic", "barrage"):
        stats = build(args.paths, game_type)
        save(stats, Path(args.out) / _data_file(game_type))
        print(f"{game_type}: {stats.setups['all']} setups ({stats.setups['winners']} winners, "
              f"{stats.setups['losers']} losers) -> {Path(args.out) / _data_file(game_type)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
