"""Engine throughput: validated replay of the shared Gravon archive against the unchecked replay (same
run, interleaved), random self-play with full legal-move generation, and the package's import time.

    python benchmarks/engine.py [--archive ../shared/data/gravon] [--repeat 3] [--processes 2]

Prints medians; the validation cost is the ratio of the two replay medians measured side by side.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import strategolab as sl
from strategolab.archive import archive_files, verify
from strategolab.gravon import read_gravon

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ARCHIVE = ROOT.parent / "shared" / "data" / "gravon"


def replay_pass(files: list[str], check: bool, processes: int) -> tuple[float, int, int]:
    """Seconds, moves and games for one replay of every game verify replays (XML parsing included)."""
    start = time.perf_counter()
    report = verify(files, check=check, processes=processes)
    return time.perf_counter() - start, report.moves, report.games


def parse_pass(files: list[str]) -> tuple[float, int]:
    """Seconds and moves for reading every game of the archive (one process), without replaying."""
    start = time.perf_counter()
    moves = sum(len(g.moves) for f in files for g in read_gravon(f))
    return time.perf_counter() - start, moves


def selfplay(ruleset: str, seconds: float, seed: int) -> tuple[float, int, int]:
    """Random games for about ``seconds``: every ply generates the full legal-move list and checks the end."""
    rng = random.Random(seed)
    plies = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = sl.State.random(ruleset, rng)
        games += 1
        while state.outcome() is None:
            moves = state.generate_legal_moves()
            state.push(moves[int(rng.random() * len(moves))])
            plies += 1
    return time.perf_counter() - start, plies, games


def import_time() -> float:
    code = ("import time, sys; t = time.perf_counter(); import strategolab; "
            "d = time.perf_counter() - t; assert 'matplotlib' not in sys.modules; print(d)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    return float(out.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--archive", default=str(DEFAULT_ARCHIVE), help="folder of Gravon zips")
    parser.add_argument("--repeat", type=int, default=3, help="replay passes of each kind (median reported)")
    parser.add_argument("--processes", type=int, default=2, help="worker processes for the replay passes")
    parser.add_argument("--selfplay-seconds", type=float, default=5.0)
    args = parser.parse_args()

    imports = [import_time() for _ in range(5)]
    print(f"import strategolab: median {statistics.median(imports) * 1000:.0f} ms over 5 fresh interpreters")

    for ruleset in ("classic", "barrage", "pocket"):
        runs = [selfplay(ruleset, args.selfplay_seconds / 5, seed) for seed in range(5)]
        rates = [plies / secs for secs, plies, _ in runs]
        games = sum(g for _, _, g in runs)
        print(f"random self-play {ruleset}: median {statistics.median(rates):,.0f} plies/s "
              f"(1 process, {games} games, full legal-move generation every ply)")

    if not Path(args.archive).is_dir():
        print(f"archive folder {args.archive} not found: replay figures skipped")
        return
    files = archive_files([args.archive])
    secs, moves = parse_pass(files)
    print(f"reading alone: {moves:,} moves in {secs:.1f} s = {moves / secs:,.0f} moves/s (1 process)")
    checked, unchecked = [], []
    for _ in range(args.repeat):
        for check, into in ((True, checked), (False, unchecked)):
            secs, moves, games = replay_pass(files, check, args.processes)
            into.append(secs)
    c, u = statistics.median(checked), statistics.median(unchecked)
    print(f"replay {games:,} games / {moves:,} moves, {args.processes} processes, XML parsing included:")
    print(f"  validated: median {c:.1f} s = {moves / c:,.0f} moves/s  (runs: {', '.join(f'{x:.1f}' for x in checked)})")
    print(f"  unchecked: median {u:.1f} s = {moves / u:,.0f} moves/s  (runs: "
          f"{', '.join(f'{x:.1f}' for x in unchecked)})")
    print(f"  validation cost: {c / u:.2f}x the unchecked pass")


if __name__ == "__main__":
    main()
