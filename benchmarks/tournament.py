"""Tournament of the computer levels: each level against the random player and against each other level.

    python benchmarks/tournament.py [--games 60] [--ruleset classic] [--processes 2] [--seed 2026]

Colours alternate from game to game and every game's seed is fixed (derived from ``--seed``), so a run is
reproducible.  Prints, per pairing, wins/draws/losses of the first-named player, the average game length in
plies, and per level the move time (median and 95th percentile over every move it made), then checks the
targets of issue 5: medium and hard win at least 99% against random; each level beats the one below in at
least 70% of decided games; medium's median move under 0.5 s; hard's 95th percentile under 2 s.
"""

from __future__ import annotations

import argparse
import multiprocessing
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field

from strategolab import ai
from strategolab.players import game_seed, make_player, play_game
from strategolab.rules import BLUE, RED

LEVELS = tuple(ai.LEVELS)  # imported before the workers start, so every worker plays the same code


@dataclass
class Result:
    """One game from the first-named player's side."""

    pairing: tuple[str, str]
    index: int
    score: str  # "win", "draw", "loss" for the first-named player
    termination: str
    plies: int
    times: dict[str, list[float]] = field(default_factory=dict)  # player spec -> seconds per move
    seconds: float = 0.0


def pairings() -> list[tuple[str, str]]:
    """Stronger player first: each level against random, then each level against each lower level."""
    out = [(level, "random") for level in LEVELS]
    out += [(LEVELS[j], LEVELS[i]) for i in range(len(LEVELS)) for j in range(i + 1, len(LEVELS))]
    return out


def play(task: tuple[tuple[str, str], int, str, int, int]) -> Result:
    """Play game ``index`` of a pairing; the first-named player is Red in even games, Blue in odd ones."""
    (a, b), index, ruleset, seed, max_plies = task
    s = game_seed(seed, hash_pairing((a, b)) * 100_000 + index)
    first = make_player(a, s)
    second = make_player(b, s + 1)
    red, blue = (first, second) if index % 2 == 0 else (second, first)
    spec = {RED: a if index % 2 == 0 else b, BLUE: b if index % 2 == 0 else a}
    times: dict[str, list[float]] = defaultdict(list)

    def observe(_state: object, side: int, _move: object, seconds: float) -> None:
        times[spec[side]].append(seconds)

    start = time.perf_counter()
    state = play_game(red, blue, ruleset, s, max_plies=max_plies, observer=observe)
    outcome = state.outcome()
    a_side = RED if index % 2 == 0 else BLUE
    decided = outcome is not None and outcome.winner is not None
    score = "draw" if not decided else "win" if outcome.winner == a_side else "loss"  # type: ignore[union-attr]
    termination = "move limit" if outcome is None else outcome.termination.value
    return Result((a, b), index, score, termination, len(state.move_stack), dict(times),
                  time.perf_counter() - start)


def hash_pairing(pair: tuple[str, str]) -> int:
    """A stable small number per pairing (Python's ``hash`` of strings changes between runs)."""
    names = ("random", *LEVELS)
    return names.index(pair[0]) * 10 + names.index(pair[1])


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60, help="games per pairing (default 60: about 13 min)")
    parser.add_argument("--ruleset", default="classic")
    parser.add_argument("--processes", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--max-plies", type=int, default=4000, help="unfinished games count as draws")
    parser.add_argument("--pairing", action="append", default=None,
                        help="only this pairing, e.g. hard:medium (repeatable)")
    args = parser.parse_args()

    pairs = [tuple(p.split(":")) for p in args.pairing] if args.pairing else pairings()
    # Costliest pairings first so the workers finish together.
    cost = {"random": 0, "easy": 1, "medium": 2, "hard": 6}
    tasks = [(pair, i, args.ruleset, args.seed, args.max_plies) for pair in pairs for i in range(args.games)]
    tasks.sort(key=lambda t: -(cost[t[0][0]] + cost[t[0][1]]))
    results: list[Result] = []
    start = time.perf_counter()
    with multiprocessing.Pool(args.processes) as pool:
        for n, r in enumerate(pool.imap_unordered(play, tasks), 1):
            results.append(r)
            if n % max(1, len(tasks) // 20) == 0 or n == len(tasks):
                print(f"{n}/{len(tasks)} games, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    wall = time.perf_counter() - start

    print(f"Tournament: {args.ruleset}, {args.games} games per pairing, colours alternating, seed {args.seed}, "
          f"{args.processes} processes, {wall:.0f} s wall clock")
    print(f"{'pairing':<18} {'W':>4} {'D':>4} {'L':>4} {'win%':>6} {'decided win%':>13} {'avg plies':>10}  "
          f"endings")
    summary: dict[tuple[str, str], tuple[int, int, int]] = {}
    for pair in pairs:
        rs = [r for r in results if r.pairing == pair]
        w = sum(r.score == "win" for r in rs)
        d = sum(r.score == "draw" for r in rs)
        lo = sum(r.score == "loss" for r in rs)
        summary[pair] = (w, d, lo)
        endings: dict[str, int] = defaultdict(int)
        for r in rs:
            endings[r.termination] += 1
        decided = w / (w + lo) if w + lo else float("nan")
        avg = statistics.mean(r.plies for r in rs)
        print(f"{pair[0] + ' v ' + pair[1]:<18} {w:>4} {d:>4} {lo:>4} {w / len(rs):>6.1%} {decided:>13.1%} "
              f"{avg:>10.1f}  " + ", ".join(f"{k} {v}" for k, v in sorted(endings.items())))
    print()
    print(f"{'player':<8} {'moves':>8} {'median s':>9} {'p95 s':>8} {'max s':>8}")
    times: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for who, ts in r.times.items():
            times[who].extend(ts)
    for who in ("random", *LEVELS):
        ts = times.get(who)
        if ts:
            print(f"{who:<8} {len(ts):>8} {statistics.median(ts):>9.4f} {percentile(ts, 0.95):>8.4f} "
                  f"{max(ts):>8.3f}")
    print()
    checks = []
    for level in ("medium", "hard"):
        if (level, "random") in summary:
            w, d, lo = summary[level, "random"]
            checks.append((f"{level} wins >= 99% against random", w / (w + d + lo) >= 0.99, f"{w}/{w + d + lo}"))
    ladder = ("random", *LEVELS)
    for i in range(len(ladder) - 1):
        pair = (ladder[i + 1], ladder[i])
        if pair in summary:
            w, d, lo = summary[pair]
            rate = w / (w + lo) if w + lo else 0.0
            checks.append((f"{pair[0]} beats {pair[1]} in >= 70% of decided games", rate >= 0.7,
                           f"{w}/{w + lo} = {rate:.1%}"))
    if times.get("medium"):
        med = statistics.median(times["medium"])
        checks.append(("medium median move time < 0.5 s", med < 0.5, f"{med:.3f} s"))
    if times.get("hard"):
        p95 = percentile(times["hard"], 0.95)
        checks.append(("hard 95th percentile move time < 2 s", p95 < 2.0, f"{p95:.3f} s"))
    for text, ok, figure in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {text}: {figure}")


if __name__ == "__main__":
    main()
