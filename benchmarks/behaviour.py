"""How hidden pieces behave next to known enemy pieces: in real players' games, the figures behind the weights
of the computer's soft evidence (``APPROACH_TIE``, ``APPROACH_LOSE``, ``FLEE_SAFE``, ``STAY_BEATEN`` in
:mod:`strategolab.ai.beliefs`); in a tournament's records, how one player's pieces behave (does the medium
level's Spy stalk a known Marshal?).

    python benchmarks/behaviour.py [ARCHIVE] [--games 1500]
    python benchmarks/behaviour.py --records benchmarks/results/hard-1f27dbc/ladder-isf_*.sgn.gz --player medium

ARCHIVE defaults to $STRATEGOLAB_GRAVON or ``../shared/data/gravon`` beside the repository; the first
``--games`` classic games with a setup are replayed.  With ``--records`` (files ``benchmarks/tournament.py
--records`` kept, plain or gzipped) only the steps of ``--player``'s hidden pieces count, in every game it
played.  Prints:

- *approach*: a hidden piece steps next to a known enemy piece it was not next to.  Per type of the known
  piece, how often the stepper would win, tie or lose that battle, against how often a type drawn from its
  side's hidden movable pieces would: the ratio of the two, for a tie and a loss as a share of a win's, is how
  much more weight behaviour gives the winning types; then the mean over all steps.
- *close*: a hidden piece steps to two squares (by rows and columns) from a known enemy piece, from three, and
  not next to any known piece: the same table, for the strongest such piece.
- *flee / stay*: a known piece steps next to a hidden one; on its side's next move the hidden piece runs
  (to a square not next to the known piece), or stays though it had an empty square to step to.  How often a
  type the known piece beats runs rather than stays, against any other type.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path

from strategolab import Move
from strategolab.archive import games_with_setup
from strategolab.board import STRIDE, TWO_STEPS
from strategolab.errors import StrategolabError
from strategolab.rules import BattleResult, PieceType, resolve_battle
from strategolab.state import Piece, State

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES = (BattleResult.ATTACKER_WINS, BattleResult.BOTH_DIE, BattleResult.DEFENDER_WINS)


def hidden_movers(state: State, player: int) -> Counter[PieceType]:
    """The types of ``player``'s movable pieces the other side has not seen, with their numbers."""
    out: Counter[PieceType] = Counter()
    for s in state.squares(player):
        piece = state.piece_at(s)
        if piece is not None and piece.type.movable and not state.is_revealed(s):
            out[piece.type] += 1
    return out


class Tally:
    """Counts of the behaviour seen and of what a type drawn at random would have been."""

    def __init__(self) -> None:
        # approach: known piece's type -> (outcome seen -> count, outcome expected -> count)
        self.approach: dict[str, tuple[Counter, Counter]] = defaultdict(lambda: (Counter(), Counter()))
        self.close: dict[str, tuple[Counter, Counter]] = defaultdict(lambda: (Counter(), Counter()))  # the same
        # (run or stay, known piece beats it) -> count
        self.answer: Counter[tuple[str, bool]] = Counter()

    def game(self, state: State, moves: Iterable[tuple[int, int]], only: int | None = None) -> None:
        """Replay a game from ``state``, counting the hidden pieces' behaviour (only ``only``'s, if given)."""
        nb = state.geometry.neighbours
        pending: tuple[int, Piece, list[tuple[int, Piece]]] | None = None  # (known piece's square, it, hidden ones)
        for f, t in moves:
            p = state.piece_at(f)
            if p is None:
                return
            q = state.piece_at(t)
            if pending is not None and p.owner != pending[1].owner:
                self.answered(state, pending, f, t, q is None)
            pending = None
            if q is None and abs(t - f) in (1, STRIDE) and not state.is_revealed(f) and only in (None, p.owner):
                self.stepped(state, p, f, t)
            state.push((f, t))
            # A known piece's quiet move (a Scout's run shows it): as the beliefs read it (read_history).
            if q is None and p.type.movable and state.is_revealed(t) and only in (None, 1 - p.owner):
                near = [(n, o) for n in nb[t] if n != f and (o := state.piece_at(n)) is not None
                        and o.owner != p.owner and o.type.movable and not state.is_revealed(n)]
                if near:
                    pending = (t, p, near)

    def stepped(self, state: State, piece: Piece, f: int, t: int) -> None:
        """A hidden piece steps from ``f`` to ``t``: next to a known enemy piece it was not next to?"""
        nb = state.geometry.neighbours
        for n in nb[t]:
            known = state.piece_at(n)
            if n == f or n in nb[f] or known is None or known.owner == piece.owner or not state.is_revealed(n) \
                    or not known.type.movable:
                continue
            self.count(self.approach, state, piece, known.type)
            return  # one known piece per step
        row, col = divmod(t, STRIDE)
        near: PieceType | None = None  # the strongest known enemy piece two squares off now, three before
        for n in (t + d for d in TWO_STEPS):
            if not state.geometry.on_board(n) or abs(n % STRIDE - col) > 2 or abs(n // STRIDE - row) > 2 \
                    or abs(n - f) in (1, STRIDE):
                continue
            known = state.piece_at(n)
            if known is not None and known.owner != piece.owner and state.is_revealed(n) and known.type.movable \
                    and (near is None or known.type.strength > near.strength):
                near = known.type
        if near is not None:
            self.count(self.close, state, piece, near)

    @staticmethod
    def count(table: dict[str, tuple[Counter, Counter]], state: State, piece: Piece, known: PieceType) -> None:
        """Note one step of ``piece`` towards a ``known`` enemy piece: the battle it would have, and the battles
        a type drawn from its side's hidden movable pieces would have had."""
        seen, expected = table[known.name]
        seen[resolve_battle(piece.type, known)] += 1
        pool = hidden_movers(state, piece.owner)
        total = sum(pool.values())
        for kind, count in pool.items():
            expected[resolve_battle(kind, known)] += count / total

    def answered(self, state: State, pending: tuple[int, Piece, list[tuple[int, Piece]]], f: int, t: int,
                 quiet: bool) -> None:
        """The side of the hidden pieces next to our known one moves: each ran, or stayed though it could step."""
        at, known, near = pending
        nb = state.geometry.neighbours
        for s, piece in near:
            if state.piece_at(s) != piece:
                continue
            beaten = resolve_battle(known.type, piece.type) == BattleResult.ATTACKER_WINS
            if f == s:
                if quiet and t not in nb[at]:
                    self.answer["run", beaten] += 1
            elif any(state.piece_at(n) is None for n in nb[s]):
                self.answer["stay", beaten] += 1


def table(counts: dict[str, tuple[Counter, Counter]]) -> None:
    """Print one table of steps towards known pieces: per known type, the battles seen against those expected."""
    print(f"{'known piece':<12} {'steps':>6} {'win':>6} {'tie':>6} {'lose':>6} {'tie/win':>8} {'lose/win':>9}")
    steps = tie_sum = lose_sum = 0.0
    for name, (seen, expected) in sorted(counts.items(), key=lambda kv: -sum(kv[1][0].values())):
        n = sum(seen.values())
        ratio = [seen[o] / expected[o] if expected[o] else float("nan") for o in OUTCOMES]
        # No step by a type that would win (a small sample): no share of a win to give.
        tie, lose = (ratio[1] / ratio[0], ratio[2] / ratio[0]) if ratio[0] else (float("nan"), float("nan"))
        print(f"{name:<12} {n:>6} {ratio[0]:>6.2f} {ratio[1]:>6.2f} {ratio[2]:>6.2f} {tie:>8.2f} {lose:>9.2f}")
        if tie == tie and lose == lose:  # not NaN
            steps += n
            tie_sum += n * tie
            lose_sum += n * lose
    if steps:
        print(f"{'mean':<12} {int(steps):>6} {'':>6} {'':>6} {'':>6} {tie_sum / steps:>8.2f} {lose_sum / steps:>9.2f}")


def archive_games(archive: str, games: int, skip: int = 0) -> Iterator[tuple[State, list[Move]]]:
    """The classic Gravon games with a setup in ``archive`` (their start and moves), ``games`` of them after the
    first ``skip``."""
    return games_with_setup([archive], "classic", games, skip)


def from_archive(tally: Tally, archive: str, limit: int) -> int:
    """Count the first ``limit`` classic Gravon games with a setup in ``archive``; returns how many."""
    games = 0
    for state, moves in archive_games(archive, limit):
        games += 1
        with contextlib.suppress(StrategolabError):  # a move the rules refuse ends that game's count there
            tally.game(state, moves)
    return games


def from_records(tally: Tally, paths: list[str], player: str) -> int:
    """Count ``player``'s hidden pieces in every game it played in the records at ``paths``; returns how many.
    Raises ``SystemExit`` naming a file that cannot be read, as ``losses.py`` does."""
    from losses import read, side_of  # this folder's sibling script (only run as a script)

    games = 0
    for game in read(paths):
        side = side_of(game, player)
        if side is None:
            continue
        games += 1
        moves = tuple((m.from_square, m.to_square) for m in game.mainline_moves())
        tally.game(game.start.copy(), moves, only=side)
    return games


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive", nargs="?", default=os.environ.get("STRATEGOLAB_GRAVON")
                        or str(ROOT.parent / "shared" / "data" / "gravon"))
    parser.add_argument("--games", type=int, default=1500)
    parser.add_argument("--records", nargs="+", metavar="FILE", help="read a tournament's records instead")
    parser.add_argument("--player", help="with --records: whose pieces to watch (a name in the Red/Blue headers)")
    args = parser.parse_args(argv)
    if (args.records is None) != (args.player is None):
        parser.error("--records and --player go together")
    tally = Tally()
    if args.records:
        games = from_records(tally, args.records, args.player)
        if not games:
            raise SystemExit(f"{args.player!r} played none of these games")
        print(f"{games} games of {args.player} in {len(args.records)} record file(s): its hidden pieces' steps")
    else:
        games = from_archive(tally, args.archive, args.games)
        print(f"{games} classic games from {args.archive}")
    print("\napproach: a hidden piece steps next to a known one; how often, against a random hidden type, it")
    print("would win / tie / lose, and tie and loss as a share of a win")
    table(tally.approach)
    print("\nclose: a hidden piece steps to two squares from a known one, from three (not next to one); the same")
    table(tally.close)
    a = tally.answer
    runs, stays = a["run", True] + a["run", False], a["stay", True] + a["stay", False]
    print(f"\nflee / stay: {runs} ran, {stays} stayed")
    if a["stay", True] and a["stay", False]:
        beaten, safe = a["run", True] / a["stay", True], a["run", False] / a["stay", False]
        ratio = f"{safe / beaten:.2f}" if beaten else "- (none that it beats ran)"
        print(f"  runs per stay: a type the known piece beats {beaten:.2f}, any other {safe:.2f}; ratio {ratio}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
