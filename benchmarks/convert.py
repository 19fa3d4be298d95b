"""Time to convert the whole shared Gravon archive to the kit's notation and back.

    python benchmarks/convert.py [--archive ../shared/data/gravon] [--jobs 1 2]

Gravon -> notation is what ``strategolab convert ARCHIVE -o all.sgn`` does (parse, replay with every move
checked, write), measured once per number of worker processes.  Notation -> Gravon reads the converted file
back (every move checked again) and writes a Gravon zip, as ``strategolab convert all.sgn -o all.zip`` does.
Figures are wall-clock seconds on this machine, with whatever else it is running at the time.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from strategolab.archive import write_gravon_zip
from strategolab.cli import convert_part, expand, items
from strategolab.files import atomic_output
from strategolab.notation import read_games

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ARCHIVE = ROOT.parent / "shared" / "data" / "gravon"


def to_notation(archive: Path, out: Path, jobs: int) -> tuple[float, int, int, int]:
    """Seconds, games written, games skipped and moves for one conversion of the archive to ``out``."""
    files = expand([archive], (".xml", ".zip"))
    start = time.perf_counter()
    written = skipped = moves = 0
    with atomic_output(out) as f:
        for item in items(files, convert_part, jobs, with_text=True):
            if item.text is None:
                skipped += 1
                continue
            f.write("\n" + item.text if written else item.text)
            written += 1
            moves += item.plies
    return time.perf_counter() - start, written, skipped, moves


def to_gravon(sgn: Path, out: Path) -> tuple[float, int]:
    """Seconds and games for reading the converted notation back and writing it as a Gravon zip."""
    start = time.perf_counter()
    count = write_gravon_zip(read_games(sgn), out)
    return time.perf_counter() - start, count


def rates(seconds: float, games: int, moves: int) -> str:
    return f"{seconds:6.1f} s = {games / seconds:7,.0f} games/s, {moves / seconds:9,.0f} moves/s"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--archive", default=str(DEFAULT_ARCHIVE), help="folder of Gravon zips")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, os.cpu_count() or 1],
                        help="numbers of worker processes to measure (default: 1 and one per core)")
    args = parser.parse_args(argv)
    archive = Path(args.archive)
    if not archive.is_dir():
        print(f"archive folder {archive} not found: nothing to measure")
        return
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, load average "
          f"{', '.join(f'{x:.1f}' for x in os.getloadavg())}; archive {archive}")
    with tempfile.TemporaryDirectory() as tmp:
        sgn = Path(tmp) / "all.sgn"
        moves = 0
        for jobs in dict.fromkeys(args.jobs):
            seconds, written, skipped, moves = to_notation(archive, sgn, jobs)
            print(f"Gravon -> notation, {jobs} process{'es' if jobs > 1 else ''}: {written:,} games "
                  f"({skipped} skipped), {sgn.stat().st_size / 1e6:.0f} MB: {rates(seconds, written, moves)}")
        seconds, count = to_gravon(sgn, Path(tmp) / "all.zip")
        print(f"notation -> Gravon zip, 1 process: {count:,} games: {rates(seconds, count, moves)}")


if __name__ == "__main__":
    main()
