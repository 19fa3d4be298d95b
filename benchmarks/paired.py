"""Two versions of the kit's players on the same seeds, game by game: which games they played alike, where the
others parted, and which results changed.

    python benchmarks/paired.py --base benchmarks/results/hard-a4db27f/ladder-isf_*.sgn.gz --new /tmp/new_*.sgn

``--base`` and ``--new`` are records ``benchmarks/tournament.py --records`` kept (plain, gzipped or
``.sgn.partial``), of the same pairings and seeds played by two versions of the code.  The kit's players
choose by their view and seed alone, so a round is the very same game in both until the first move a change
makes differently, and a change that never acts leaves every game as it was.  Comparing the rounds in both
sets pair by pair is therefore far less noisy than comparing two tournaments' shares: only the games that
parted can differ.  (A game against a 2012 bot parts within a few moves whatever the change: the bots draw
their own random numbers.)

For every pairing and seed, from the first-named player's side (``hard`` in ``hard v medium``): the rounds in
both sets; how many were the same game move for move, with their W-D-L; how many parted, at which ply
(median, first, last), and the W-D-L of each version in those; the points of each version over all the rounds
in both (a draw half a point); and every round whose result changed, with the ply where the games parted.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict

from tournament import Key, first_side, keyed_games, score_of  # this folder's sibling script

from strategolab import RED
from strategolab.records import Game

POINTS = {"win": 1.0, "draw": 0.5, "loss": 0.0}
LETTER = {"win": "W", "draw": "D", "loss": "L"}


def parted_at(a: Game, b: Game) -> int | None:
    """The first ply at which two games from one start differ (a move, or one ending before the other), or
    ``None`` if they are the same game."""
    ma, mb = a.mainline_moves(), b.mainline_moves()
    for ply, (x, y) in enumerate(zip(ma, mb, strict=False)):  # one may end first
        if x != y:
            return ply
    return None if len(ma) == len(mb) and a.result == b.result else min(len(ma), len(mb))


def wdl(scores: list[str]) -> str:
    return f"{scores.count('win')}-{scores.count('draw')}-{scores.count('loss')}"


def compare(base: dict[Key, tuple[Game, str]], new: dict[Key, tuple[Game, str]]) -> list[str]:
    """The report's lines, pairing by pairing (and seed), for the rounds in both sets."""
    groups: dict[tuple[tuple[str, str], int], list[int]] = defaultdict(list)
    for key in base:
        if key in new:
            groups[key[:2]].append(key[2])
    lines = []
    for (pair, seed), rounds in groups.items():
        same: list[str] = []
        parts: list[tuple[int, int, str, str]] = []  # (round index, ply, base score, new score)
        for index in sorted(rounds):
            a_side = first_side(index)
            old, now = base[(pair, seed, index)][0], new[(pair, seed, index)][0]
            if old.start.board != now.start.board:
                raise SystemExit(f"round {index + 1} of {pair[0]} v {pair[1]}, seed {seed}, starts from different "
                                 f"setups in {base[(pair, seed, index)][1]} and {new[(pair, seed, index)][1]}: "
                                 "not the same game to compare")
            ply = parted_at(old, now)
            if ply is None:
                same.append(score_of(old, a_side))
            else:
                parts.append((index, ply, score_of(old, a_side), score_of(now, a_side)))
        lines.append(f"{pair[0]} v {pair[1]}, seed {seed}: {len(rounds)} rounds in both; {pair[0]}'s results")
        lines.append(f"  the same game move for move: {len(same)} ({wdl(same)})")
        if parts:
            plies = [p for _, p, _, _ in parts]
            lines.append(f"  parted: {len(parts)}, at ply {statistics.median(plies):.0f} (median; first {min(plies)}, "
                         f"last {max(plies)}): base {wdl([b for _, _, b, _ in parts])}, new "
                         f"{wdl([n for _, _, _, n in parts])}")
        points = sum(POINTS[s] for s in same)
        old_points = points + sum(POINTS[b] for _, _, b, _ in parts)
        new_points = points + sum(POINTS[n] for _, _, _, n in parts)
        lines.append(f"  points: base {old_points:g}, new {new_points:g} of {len(rounds)}")
        changed = [(i, p, b, n) for i, p, b, n in parts if b != n]
        better = sum(POINTS[n] > POINTS[b] for _, _, b, n in changed)
        lines.append(f"  results changed: {len(changed)} (better {better}, worse {len(changed) - better})")
        for i, p, b, n in changed:
            colour = "Red" if first_side(i) == RED else "Blue"
            lines.append(f"    round {i + 1} ({colour}): {LETTER[b]} -> {LETTER[n]}, parted at ply {p}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", nargs="+", required=True, help="records of the version to compare against")
    parser.add_argument("--new", nargs="+", required=True, help="records of the version to judge, same seeds")
    args = parser.parse_args(argv)
    base, new = keyed_games(args.base, "--base"), keyed_games(args.new, "--new")
    lines = compare(base, new)
    if not lines:
        raise SystemExit("no round is in both --base and --new (the same pairing, seed and round)")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
