"""Are the computer's beliefs calibrated?  When it says a hidden piece is the Spy at 20 %, is it one time in five?

    python benchmarks/calibration.py [ARCHIVE] [--games 600] [--skip 1500] [--type Spy] [--near Marshal]
    python benchmarks/calibration.py --records benchmarks/results/hard-a4db27f/ladder-isf_*.sgn.gz --player hard
    python benchmarks/calibration.py --type Bomb --near '' --unmoved 3 --plies 200-300 [--off stillness]

Replays real games (the classic Gravon games with a setup in ARCHIVE, by default $STRATEGOLAB_GRAVON or
``../shared/data/gravon`` beside the repository; ``--skip`` passes over the first games, by default the 1,500 the
soft evidence's weights were counted from in ``benchmarks/behaviour.py``, so the check is on games the weights
never saw), or a tournament's records from ``--player``'s side.  In every ``--every`` plies from ply 20, from
the view of the side to move and then of the other, the ``--level``'s beliefs are read about the enemy's hidden
pieces; with ``--near`` (a piece type) only from a side whose piece of that type is known, and only about the
hidden pieces that have moved and stand within two squares of it (by rows and columns): the Spy beside a known
Marshal, by default.  With ``--unmoved ROWS`` only the hidden pieces that have never moved, on those rows
counted from their owner's back row (0; ``3`` is the front row in classic), and with ``--plies A-B`` only in
those plies: a Bomb left standing late on the front row (``strategolab.stillness``).  ``--on FLAG`` and
``--off FLAG`` judge the level with one of its switches on or off (``stillness``, ``honesty``, ...).

Prints, per tenth of belief in ``--type``, how many such pieces, the belief on average and how often the piece
was of that type; then the pieces of that type expected by the beliefs against those there were, and the
calibration error (the gap between belief and truth per bin, weighted by the pieces in it).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import os
from collections.abc import Iterable
from pathlib import Path

from strategolab import Move
from strategolab.ai import LEVELS, ComputerPlayer, Level
from strategolab.board import Square, square_column, square_row
from strategolab.errors import StrategolabError
from strategolab.state import State
from strategolab.stillness import row_from_back

ROOT = Path(__file__).resolve().parents[1]


class Calibration:
    """Beliefs in one type, binned by tenths, against what the pieces were."""

    def __init__(self, kind: str, near: str | None = "Marshal", level: str | Level = "hard",
                 unmoved: frozenset[int] | None = None, plies: tuple[int, int] = (0, 1 << 30)) -> None:
        self.kind = kind
        self.near = near
        self.unmoved = unmoved
        self.plies = plies
        self.player = ComputerPlayer(level)
        self.bins: list[list[float]] = [[0, 0.0, 0] for _ in range(10)]  # pieces, sum of beliefs, of the type

    def watched(self, state: State, side: int) -> list[Square]:
        """The other side's hidden pieces to judge from ``side``'s view (none if ``near`` is not known there)."""
        if not self.plies[0] <= len(state.move_stack) < self.plies[1]:
            return []
        hidden = [s for s in state.squares(1 - side) if not state.is_revealed(s)]
        if self.unmoved is not None:
            hidden = [s for s in hidden if not state.has_moved(s)
                      and row_from_back(state.ruleset, s, 1 - side) in self.unmoved]
        if self.near is None:
            return hidden
        known = [s for s in state.squares(side) if state.is_revealed(s)
                 and (p := state.piece_at(s)) is not None and p.type.name == self.near]
        return [s for s in hidden if state.has_moved(s) and any(
            abs(square_row(s) - square_row(k)) + abs(square_column(s) - square_column(k)) <= 2 for k in known)]

    def position(self, state: State, side: int) -> None:
        """Judge the pieces :meth:`watched` in this position from ``side``'s view."""
        squares = self.watched(state, side)
        if not squares:
            return
        beliefs = self.player.beliefs(state.view(side))
        for s in squares:
            p = beliefs[s].get(self.kind, 0.0)
            row = self.bins[min(9, int(p * 10))]
            row[0] += 1
            row[1] += p
            row[2] += state.piece_at(s).type.name == self.kind  # type: ignore[union-attr]

    def game(self, state: State, moves: Iterable[Move], every: int, side: int | None = None) -> None:
        """Replay a game from ``state``, judging two positions in every ``every`` plies from ply 20 (one from
        each side's view; ``side``'s only, if given)."""
        for i, mv in enumerate(moves):
            if i >= 20 and i % every < 2 and side in (None, state.turn):
                self.position(state, state.turn)
            state.push(mv)

    def report(self) -> None:
        """Print the table, the totals and the calibration error."""
        print(f"{'belief in ' + self.kind:<16} {'pieces':>7} {'believed':>9} {'were':>7}")
        total = believed = were = gap = 0.0
        for i, (n, p, k) in enumerate(self.bins):
            if not n:
                continue
            print(f"{f'{10 * i}-{10 * i + 10} %':<16} {int(n):>7} {p / n:>9.3f} {k / n:>7.3f}")
            total, believed, were, gap = total + n, believed + p, were + k, gap + abs(p - k)
        if not total:
            print("no piece to judge")
            return
        print(f"{int(total)} pieces: the beliefs expected {believed:.0f} of them to be a {self.kind}, "
              f"{int(were)} were; calibration error {gap / total:.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive", nargs="?", default=os.environ.get("STRATEGOLAB_GRAVON")
                        or str(ROOT.parent / "shared" / "data" / "gravon"))
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--skip", type=int, default=1500, help="pass over the first SKIP games (default 1500)")
    parser.add_argument("--type", default="Spy", help="the piece type whose beliefs are judged (default Spy)")
    parser.add_argument("--near", default="Marshal",
                        help="only moved pieces within two squares of this known piece of ours ('' for every "
                             "hidden piece; default Marshal)")
    parser.add_argument("--level", default="hard")
    parser.add_argument("--every", type=int, default=4,
                        help="judge two positions (one each side) in every EVERY plies (default 4)")
    parser.add_argument("--unmoved", metavar="ROWS", help="only pieces never moved, on these rows from their owner's "
                        "back row (0), comma-separated: 3 is classic's front row")
    parser.add_argument("--plies", metavar="A-B", help="only positions from ply A to before ply B")
    parser.add_argument("--on", action="append", default=[], metavar="FLAG",
                        help="the level with this switch on (a Level field such as stillness; repeatable)")
    parser.add_argument("--off", action="append", default=[], metavar="FLAG",
                        help="the level with this switch off (a Level field such as honesty; repeatable)")
    parser.add_argument("--records", nargs="+", metavar="FILE", help="a tournament's records instead")
    parser.add_argument("--player", help="with --records: whose beliefs (a name in the Red/Blue headers)")
    args = parser.parse_args(argv)
    if (args.records is None) != (args.player is None):
        parser.error("--records and --player go together")
    level = LEVELS[args.level]
    for flags, value in ((args.on, True), (args.off, False)):
        for flag in flags:
            if not isinstance(getattr(level, flag, None), bool):
                parser.error(f"{'--on' if value else '--off'} {flag}: not a switch of Level")
            level = dataclasses.replace(level, **{flag: value})
    try:
        unmoved = None if args.unmoved is None else frozenset(int(r) for r in args.unmoved.split(","))
        plies = (0, 1 << 30) if args.plies is None else tuple(int(x) for x in args.plies.split("-"))
        if len(plies) != 2:
            raise ValueError
    except ValueError:
        parser.error("--unmoved takes rows like 2,3 and --plies a range like 200-300")
    calib = Calibration(args.type, args.near or None, level, unmoved, plies)
    if args.records:
        from losses import read, side_of  # this folder's sibling script (only run as a script)

        games = 0
        for game in read(args.records):
            side = side_of(game, args.player)
            if side is not None:
                games += 1
                calib.game(game.start.copy(), game.mainline_moves(), args.every, side)
        if not games:
            raise SystemExit(f"{args.player!r} played none of these games")
        print(f"{games} games of {args.player} in {len(args.records)} record file(s)")
    else:
        from behaviour import archive_games  # this folder's sibling script (only run as a script)

        games = 0
        for state, moves in archive_games(args.archive, args.games, args.skip):
            games += 1
            with contextlib.suppress(StrategolabError):  # a move the rules refuse ends that game there
                calib.game(state, moves, args.every)
        print(f"{games} classic games from {args.archive} (after the first {args.skip})")
    where = f"moved pieces within two squares of a known {args.near}" if args.near else "every hidden piece"
    if unmoved is not None:
        where += f", never moved, on rows {args.unmoved} from their owner's back row"
    if args.plies:
        where += f", plies {args.plies}"
    off = "".join(f" with {', '.join(flags)} {word}" for flags, word in ((args.on, "on"), (args.off, "off")) if flags)
    print(f"{args.level}'s beliefs{off}, two positions in every {args.every} plies: {where}\n")
    calib.report()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
