"""How real players' hidden pieces behave next to known enemy pieces: the figures behind the weights of the
computer's soft evidence (``APPROACH_TIE``, ``APPROACH_LOSE``, ``FLEE_SAFE``, ``STAY_BEATEN`` in
:mod:`strategolab.ai.beliefs`).

    python benchmarks/behaviour.py [ARCHIVE] [--games 1500]

ARCHIVE defaults to $STRATEGOLAB_GRAVON or ``../shared/data/gravon`` beside the repository; the first
``--games`` classic games with a setup are replayed.  Prints:

- *approach*: a hidden piece steps next to a known enemy piece it was not next to.  Per type of the known
  piece, how often the stepper would win, tie or lose that battle, against how often a type drawn from its
  side's hidden movable pieces would: the ratio of the two, for a tie and a loss as a share of a win's, is how
  much more weight behaviour gives the winning types; then the mean over all steps.
- *flee / stay*: a known piece steps next to a hidden one; on its side's next move the hidden piece runs
  (to a square not next to the known piece), or stays though it had an empty square to step to.  How often a
  type the known piece beats runs rather than stays, against any other type.
"""

from __future__ import annotations

import argparse
import contextlib
import os
from collections import Counter, defaultdict
from pathlib import Path

from strategolab.archive import initial_state
from strategolab.board import STRIDE
from strategolab.errors import StrategolabError
from strategolab.gravon import read_gravon
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
        # (run or stay, known piece beats it) -> count
        self.answer: Counter[tuple[str, bool]] = Counter()

    def game(self, state: State, moves: tuple[tuple[int, int], ...]) -> None:
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
            if q is None and abs(t - f) in (1, STRIDE) and not state.is_revealed(f):
                self.stepped(state, p, f, t)
            state.push((f, t))
            # A known piece's quiet move (a Scout's run shows it): as the beliefs read it (read_history).
            if q is None and p.type.movable and state.is_revealed(t):
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
            seen, expected = self.approach[known.type.name]
            seen[resolve_battle(piece.type, known.type)] += 1
            pool = hidden_movers(state, piece.owner)
            total = sum(pool.values())
            for kind, count in pool.items():
                expected[resolve_battle(kind, known.type)] += count / total
            return  # one known piece per step

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive", nargs="?", default=os.environ.get("STRATEGOLAB_GRAVON")
                        or str(ROOT.parent / "shared" / "data" / "gravon"))
    parser.add_argument("--games", type=int, default=1500)
    args = parser.parse_args(argv)
    tally = Tally()
    games = 0
    for game in read_gravon(args.archive, types=["classic"], errors="skip"):
        if games >= args.games:
            break
        if not game.has_setup:
            continue
        try:
            state = initial_state(game)
        except StrategolabError:
            continue
        games += 1
        with contextlib.suppress(StrategolabError):  # a move the rules refuse ends that game's count there
            tally.game(state, game.moves)
    print(f"{games} classic games from {args.archive}")
    print("\napproach: a hidden piece steps next to a known one; how often, against a random hidden type, it")
    print("would win / tie / lose, and tie and loss as a share of a win")
    print(f"{'known piece':<12} {'steps':>6} {'win':>6} {'tie':>6} {'lose':>6} {'tie/win':>8} {'lose/win':>9}")
    steps = tie_sum = lose_sum = 0.0
    for name, (seen, expected) in sorted(tally.approach.items(), key=lambda kv: -sum(kv[1][0].values())):
        n = sum(seen.values())
        ratio = [seen[o] / expected[o] if expected[o] else float("nan") for o in OUTCOMES]
        tie, lose = ratio[1] / ratio[0], ratio[2] / ratio[0]
        print(f"{name:<12} {n:>6} {ratio[0]:>6.2f} {ratio[1]:>6.2f} {ratio[2]:>6.2f} {tie:>8.2f} {lose:>9.2f}")
        if tie == tie and lose == lose:  # not NaN
            steps += n
            tie_sum += n * tie
            lose_sum += n * lose
    if steps:
        print(f"{'mean':<12} {int(steps):>6} {'':>6} {'':>6} {'':>6} {tie_sum / steps:>8.2f} {lose_sum / steps:>9.2f}")
    a = tally.answer
    runs, stays = a["run", True] + a["run", False], a["stay", True] + a["stay", False]
    print(f"\nflee / stay: {runs} ran, {stays} stayed")
    if a["stay", True] and a["stay", False]:
        beaten, safe = a["run", True] / a["stay", True], a["run", False] / a["stay", False]
        print(f"  runs per stay: a type the known piece beats {beaten:.2f}, any other {safe:.2f}; "
              f"ratio {safe / beaten:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
