"""How long a computer level thinks, and what it chooses, on positions from kept records: the side-by-side check
of a change meant to make it faster without changing a single choice.

    python benchmarks/thinking.py benchmarks/results/hard-291f4f4/hard-v-vixen_r1-50.sgn.gz [more.sgn ...] \\
        [--player hard] [--level hard] [--games 4] [--every 29] [--repeat 3] [--against /tmp/old-checkout]

From each record file's first ``--games`` games, positions at least ``--every`` plies apart in which ``--player``
(a name in the records' Red/Blue headers) was to move are given, as that player saw them, to a new
:class:`strategolab.ai.ComputerPlayer` of ``--level`` seeded by the ply.  Each run is a child process, so it
starts cold as a game does.  Prints per run the processor time per move (median, 95th percentile, slowest,
total: time the process itself ran, so other jobs on the machine count less than on a wall clock, though
they still slow it) and a digest of every choice with its reasoning in words.

``--against DIR`` times the same positions with the code of another checkout (DIR holds its ``strategolab``
package), the two alternating run by run, ``--repeat`` runs each: prints the median total of each and their
ratio, and whether every choice and its reasoning were the same (the digests agree).  A speed change must keep
the digest: then hard plays the very games it played before, and no measurement of its strength is lost.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tournament import READ_ERRORS, percentile, read_records  # this folder's sibling script

ROOT = Path(__file__).resolve().parents[1]


def positions(paths: list[str], player: str, games: int, every: int) -> list[tuple[int, object]]:
    """(ply, the view of ``player`` to move) at least ``every`` plies apart (the first with ``player`` to move
    from ply 0, then from each taken ply + ``every``) in the first ``games`` games of each file; SystemExit
    names a file that cannot be read or that holds no game of ``player``."""
    out: list[tuple[int, object]] = []
    for path in paths:
        try:
            kept = read_records(path)
        except READ_ERRORS as exc:
            raise SystemExit(f"thinking: {path}: {exc}") from None
        played = [g for g in kept if player in (g.headers.get("Red"), g.headers.get("Blue"))][:games]
        if not played:
            raise SystemExit(f"thinking: {path}: no game of {player!r} (its games name "
                             f"{sorted({g.headers.get(c, '?') for g in kept for c in ('Red', 'Blue')})})")
        for game in played:
            side = 0 if game.headers.get("Red") == player else 1
            state = game.state()
            due = 0  # the first position at or after this ply with the player to move is taken
            for move in game.mainline_moves():
                ply = len(state.move_stack)
                if ply >= due and state.turn == side and state.outcome() is None:
                    out.append((ply, state.view(side)))
                    due = ply + every
                state.push(move)
    return out


def think(args: argparse.Namespace) -> dict[str, object]:
    """One run, in this process: each position's choice timed (processor seconds), and the digest."""
    import strategolab
    from strategolab.ai import ComputerPlayer

    used = Path(strategolab.__file__).resolve().parent
    if used != args.child.resolve() / "strategolab":
        raise SystemExit(f"thinking: asked for the code in {args.child}, but Python imported {used}")

    views = positions(args.records, args.player, args.games, args.every)
    times = []
    digest = hashlib.md5()
    for ply, view in views:
        computer = ComputerPlayer(args.level, seed=ply)
        start = time.process_time()
        move = computer.choose_move(view)  # type: ignore[arg-type]
        times.append(time.process_time() - start)
        digest.update(f"{ply} {move}\n{computer.last_reasoning}\n".encode())
    return {"times": times, "digest": digest.hexdigest()}


def run(tree: Path, args: argparse.Namespace) -> dict[str, object]:
    """One run in a child process with the code of ``tree`` (its ``strategolab`` imported first): the child
    must not fall back on the package installed in the environment."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    argv = [*(str(Path(r).resolve()) for r in args.records), "--player", args.player, "--level", args.level,
            "--games", str(args.games), "--every", str(args.every), "--child", str(tree)]
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), *argv], capture_output=True, text=True,
                          env=env, cwd=ROOT)
    if done.returncode:
        raise SystemExit(f"thinking: the run with {tree} failed:\n{done.stderr.strip()}")
    return json.loads(done.stdout.splitlines()[-1])


def summary(times: list[float]) -> str:
    return (f"median {statistics.median(times):.3f} s, 95th percentile {percentile(times, 0.95):.3f} s, "
            f"slowest {max(times):.3f} s, total {sum(times):.2f} s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", help="records benchmarks/tournament.py --records kept")
    parser.add_argument("--player", default="hard", help="whose positions (a Red/Blue header name; default hard)")
    parser.add_argument("--level", default="hard", help="the level that thinks (default hard)")
    parser.add_argument("--games", type=int, default=4, help="games per record file (default 4)")
    parser.add_argument("--every", type=int, default=29, help="plies between positions (default 29)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each version (default 3)")
    parser.add_argument("--against", type=Path, help="another checkout, timed alternately with this one")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)  # a run's process: the checkout it is for
    args = parser.parse_args(argv)
    if args.games < 1 or args.every < 1 or args.repeat < 1:
        parser.error("--games, --every and --repeat must be at least 1")
    if args.child is not None:
        print(json.dumps(think(args)))
        return
    if args.against is not None and not (args.against / "strategolab" / "__init__.py").is_file():
        parser.error(f"--against {args.against}: no strategolab package there")
    trees = [("this", ROOT)] + ([("against", args.against.resolve())] if args.against is not None else [])
    totals: dict[str, list[float]] = {name: [] for name, _ in trees}
    digests: dict[str, set[str]] = {name: set() for name, _ in trees}
    print(f"{args.level} thinking for {args.player}: every {args.every} plies of the first {args.games} game(s) "
          f"of {len(args.records)} record file(s)")
    for i in range(args.repeat):
        for name, tree in trees:
            result = run(tree, args)
            times = result["times"]
            assert isinstance(times, list)
            totals[name].append(sum(times))
            digests[name].add(str(result["digest"]))
            print(f"  run {i + 1}, {name} ({tree}): {len(times)} moves, {summary(times)}; digest "
                  f"{str(result['digest'])[:12]}", flush=True)
    for name in totals:
        print(f"{name}: median total {statistics.median(totals[name]):.2f} s over {args.repeat} run(s)")
    if len(trees) == 2:
        ratio = statistics.median(totals["this"]) / statistics.median(totals["against"])
        same = digests["this"] == digests["against"] and len(digests["this"]) == 1
        print(f"this / against: {ratio:.3f} (medians measured side by side); every choice and reasoning "
              f"{'the same' if same else 'NOT the same'}")


if __name__ == "__main__":
    main()
