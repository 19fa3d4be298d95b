"""Peak memory and time of the command line on hostile inputs (issue 12, items 5 and 6).

    python benchmarks/hostile.py [--cases header10 header50 ...] [--members 100000] [--limit-gb 4]

Each case writes its input to a scratch folder and runs ``python -m strategolab ...`` in a child process
(with the same interpreter and ``PYTHONPATH``, so pointing ``PYTHONPATH`` at another checkout measures
that code); the child's peak resident memory comes from ``os.wait4`` (``ru_maxrss``), the time is wall
clock.  Memory is also shown as a multiple of the input's size, after taking off the peak of the same
command on a one-game file (the interpreter and the kit themselves).  ``--limit-gb`` caps the child's address
space, so a reader that would take 8 GB fails with a MemoryError instead of taking the machine down.

Cases: a 10 MB and a 50 MB header value (``validate`` and ``info``), the same 10 MB value with its closing
quote missing, one 96 MB line of moves, a million headers, and a zip of empty members read by
``info -j 1`` and ``info -j 2``.  Figures depend on what else the machine is running.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

SETUPS = ('[RedSetup "3859BS7642/B3B3236B4B/F52355X487/22222647B6"]\n'
          '[BlueSetup "258F32S5XB/26647B7354/626327834B/22942BB35B"]\n')
MB = 1024 * 1024


def header_value(size: int, closed: bool = True) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / f"header-{size // MB}mb{'' if closed else '-open'}.sgn"
        quote = '"' if closed else ""
        with path.open("w") as f:
            f.write(f'[Event "{"x" * size}{quote}]\n{SETUPS}\n*\n')
        return path
    return make


def long_line(size: int) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / f"line-{size // MB}mb.sgn"
        pattern = "A4-A5 A7-A6 A5-A4 A6-A7 "
        with path.open("w") as f:
            f.write(f"{SETUPS}\n")
            f.write(pattern * (size // len(pattern)))
            f.write("*\n")
        return path
    return make


def many_headers(count: int) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / f"headers-{count}.sgn"
        with path.open("w") as f:
            f.writelines(f'[H{i} "v"]\n' for i in range(count))
            f.write(f"{SETUPS}\n*\n")
        return path
    return make


def empty_members(count: int) -> Callable[[Path], Path]:
    def make(folder: Path) -> Path:
        path = folder / f"empty-{count}.zip"
        with zipfile.ZipFile(path, "w") as z:
            for i in range(count):
                z.writestr(f"classic-{i}.xml", b"")
        return path
    return make


def run(args: list[str], limit: int) -> tuple[float, float, int]:
    """Seconds, peak resident MiB and exit code of ``python -m strategolab ARGS`` in a child process."""
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "strategolab", *args], stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, preexec_fn=cap)
    assert child.stderr is not None
    tail = child.stderr.read()[-300:]
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if b"MemoryError" in tail:
        print(f"      (MemoryError at the {limit / 2**30:.0f} GB limit)")
    return seconds, usage.ru_maxrss / 1024, child.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="*", default=None, help="run only these cases")
    parser.add_argument("--members", type=int, default=100_000, help="members of the zip of empty members")
    parser.add_argument("--limit-gb", type=float, default=4.0, help="address-space cap of each child")
    args = parser.parse_args()
    limit = int(args.limit_gb * 2**30)
    cases: dict[str, tuple[Callable[[Path], Path], list[list[str]]]] = {
        "header10": (header_value(10 * MB), [["validate"], ["info"]]),
        "header50": (header_value(50 * MB), [["validate"], ["info"]]),
        "open10": (header_value(10 * MB, closed=False), [["validate"]]),
        "line96": (long_line(96 * MB), [["validate"], ["info"]]),
        "headers1m": (many_headers(1_000_000), [["validate"]]),
        "zip": (empty_members(args.members), [["info", "-j", "1"], ["info", "-j", "2"]]),
    }
    chosen = args.cases or list(cases)
    probe = subprocess.run([sys.executable, "-c", "import strategolab; print(strategolab.__file__)"],
                           capture_output=True, text=True, check=True).stdout.strip()
    print(f"code under test: {probe}")
    print(f"{'case':<10} {'command':<12} {'input MB':>9} {'seconds':>8} {'peak MiB':>9} {'x input':>8} {'exit':>5}")
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "one.sgn"
        small.write_text(f"{SETUPS}\n*\n")
        base = run(["validate", str(small)], limit)[1]
        print(f"baseline (validate, one small game): {base:.0f} MiB")
        for name in chosen:
            make, commands = cases[name]
            path = make(Path(tmp))
            size = path.stat().st_size
            for command in commands:
                seconds, peak, code = run([*command, "--no-progress", str(path)], limit)
                print(f"{name:<10} {' '.join(command):<12} {size / MB:>9.1f} {seconds:>8.1f} {peak:>9.0f} "
                      f"{(peak - base) * MB / size:>8.1f} {code:>5}", flush=True)
            path.unlink()


if __name__ == "__main__":
    main()
