"""Setup statistics speed on a Gravon archive: loading it into pandas tables (cold and cached) and computing
the heatmaps and the other statistics.

    python benchmarks/stats.py [ARCHIVE] [--repeat 3] [--workers N] [--moves]

ARCHIVE defaults to $STRATEGOLAB_GRAVON or ``../shared/data/gravon`` beside the repository.  "Cold" parses
every file (the cache is emptied before each run), "cached" reads the cache the previous run wrote; both go
into a scratch cache folder, never next to the data.  "Heatmaps" is the per-square tally of the classic and
Barrage setups plus every heatmap matrix (each piece type, for all / winners / losers / winners - losers).
Wall time is the median of ``--repeat`` runs; CPU time adds up this process and its worker processes (about
twice the wall time when both cores were free).  Targets on the project's 2-core machine (issue 7): cold load
at most 10 s, cached at most 1 s.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from strategolab import stats

ROOT = Path(__file__).resolve().parents[1]


def timed(fn: Callable[[], Any], repeat: int, before: Callable[[], None] = lambda: None) -> tuple[float, float, Any]:
    """Median wall and CPU seconds of ``fn()`` over ``repeat`` runs (``before`` runs untimed first), and
    the last result."""
    wall, cpu = [], []
    result = None
    for _ in range(repeat):
        before()
        start, start_cpu = time.perf_counter(), cpu_seconds()
        result = fn()
        wall.append(time.perf_counter() - start)
        cpu.append(cpu_seconds() - start_cpu)
    return statistics.median(wall), statistics.median(cpu), result


def cpu_seconds() -> float:
    """CPU time of this process and of its finished worker processes: compared with the wall time it shows
    whether the cores were free (CPU about cores x wall) or shared with other jobs."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def all_heatmaps(tables: stats.GameTables) -> int:
    """Tally the setups afresh and compute every heatmap matrix; returns how many matrices."""
    tables = dataclasses.replace(tables)  # a copy without the tallies a GameTables memoises
    count = 0
    for variant in ("classic", "barrage"):
        table = tables.setup_stats(variant)
        for piece in table.ruleset.piece_types:
            for group in stats.EXPLORER_GROUPS:
                stats.heatmap_matrix(table, piece.name, group)
                count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("archive", nargs="?", default=os.environ.get("STRATEGOLAB_GRAVON")
                        or str(ROOT.parent / "shared" / "data" / "gravon"))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    parser.add_argument("--moves", action="store_true", help="also time loading with the per-move table")
    args = parser.parse_args()
    archive = Path(args.archive)
    if not archive.is_dir():
        raise SystemExit(f"no Gravon archive at {archive}: pass its folder")
    files = sorted(archive.glob("*.zip"))
    size = sum(f.stat().st_size for f in files) / 1e6
    print(f"archive: {archive} ({len(files)} zips, {size:.1f} MB); {os.cpu_count()} cores; "
          f"workers: {args.workers or 'one per core'}")

    scratch = Path(tempfile.mkdtemp(prefix="strategolab-bench-"))
    try:
        def empty_cache() -> None:
            shutil.rmtree(scratch, ignore_errors=True)

        def load(moves: bool = False) -> stats.GameTables:
            return stats.load_games(archive, cache=scratch, workers=args.workers, progress=False, moves=moves)

        wall, cpu, tables = timed(load, args.repeat, before=empty_cache)
        print(f"load, cold:              {wall:7.2f} s   (CPU {cpu:5.2f} s)   {tables}")
        wall, cpu, tables = timed(load, max(args.repeat, 5))
        print(f"load, cached:            {wall:7.2f} s   (CPU {cpu:5.2f} s)")
        if args.moves:
            wall, cpu, with_moves = timed(lambda: load(moves=True), 1, before=empty_cache)
            print(f"load with moves, cold:   {wall:7.2f} s   (CPU {cpu:5.2f} s)   {len(with_moves.moves):,} moves")
            wall, cpu, _ = timed(lambda: load(moves=True), max(args.repeat, 5))
            print(f"load with moves, cached: {wall:7.2f} s   (CPU {cpu:5.2f} s)")

        repeat = max(args.repeat, 5)
        wall, _, count = timed(lambda: all_heatmaps(tables), repeat)
        print(f"heatmaps:                {1000 * wall:7.1f} ms  ({count} matrices, the two tallies included)")
        wall, _, _ = timed(lambda: stats.flag_protection(tables), repeat)
        print(f"flag protection:         {1000 * wall:7.1f} ms")
        wall, _, _ = timed(lambda: stats.most_common_setups(tables, n=10), repeat)
        print(f"most common setups:      {1000 * wall:7.1f} ms")
        wall, _, _ = timed(lambda: stats.similarity_profile(tables, sample=500), args.repeat)
        print(f"similarity, 500 setups:  {1000 * wall:7.1f} ms  (each against all {len(tables.setups):,})")
    finally:
        empty_cache()


if __name__ == "__main__":
    main()
