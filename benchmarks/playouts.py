"""Paired playouts: versions of a level compared from the same recorded positions, with the same dice.

    python benchmarks/playouts.py benchmarks/results/hard-a4db27f/ladder-isf_*.sgn.gz --player hard \\
        --variant shipped: --variant wide:verify=6,verify_worlds=16 [--movers 10 | --ply 200] [--seeds 2]

A tournament of 100 games judges a change to a level with a standard error of about 5 points, and a change
that acts only late in a game (with few pieces left, say) is drowned by everything before it.  Here every
recorded game of ``--player`` (a kit level) against another kit level is replayed to its first position with
at most ``--movers`` movable pieces on the board (or to ply ``--ply``), and played on from there ``--seeds``
times by each variant of the player's level against the level the record names on the other side.  Every
variant meets the same positions and the same seeds (the opponent's too), so where two variants choose alike
they play the very same game, and a difference in points comes from the change alone.

A variant is ``NAME:FIELD=VALUE,...``: the player's level with those :class:`strategolab.ai.Level` fields
changed (``NAME:`` alone is the level as it is).  Prints per variant its points (a win 1, a draw 1/2) of the
playouts, the playouts it did better and worse in than the first variant, and its move times (median of the
playouts' medians, and its slowest move).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from tournament import READ_ERRORS, read_records  # this folder's sibling script

from strategolab.ai import LEVELS, ComputerPlayer, Level
from strategolab.records import Game
from strategolab.state import State


def variant(text: str, base: Level) -> tuple[str, Level]:
    """``NAME:FIELD=VALUE,...`` as a name and ``base`` with those fields changed; ValueError says what is wrong."""
    name, sep, changes = text.partition(":")
    if not sep or not name:
        raise ValueError(f"variant {text!r}: expected NAME:FIELD=VALUE,... (NAME: alone for the level as it is)")
    fields = {f.name: f for f in dataclasses.fields(Level) if f.name != "name"}
    values: dict[str, object] = {}
    for item in filter(None, changes.split(",")):
        key, eq, raw = item.partition("=")
        if not eq or key not in fields:
            raise ValueError(f"variant {name!r}: {item!r} is not FIELD=VALUE with a field of Level "
                             f"({', '.join(fields)})")
        kind = str(fields[key].type)
        try:
            if raw == "None" and "None" in kind:
                values[key] = None
            elif kind.startswith("bool"):
                values[key] = {"true": True, "false": False}[raw.lower()]
            elif kind.startswith("int"):
                values[key] = int(raw)
            else:
                values[key] = float(raw)
        except (KeyError, ValueError):
            raise ValueError(f"variant {name!r}: {key} is {kind}, not {raw!r}") from None
    return name, dataclasses.replace(base, name=f"{base.name}-{name}", **values)


def movers(state: State) -> int:
    """Movable pieces on the board, both sides together."""
    return sum(1 for s in state.squares() if (p := state.piece_at(s)) is not None and p.type.movable)


def start(game: Game, ply: int | None, most: int) -> State | None:
    """The game's position at ``ply`` (or its first with at most ``most`` movable pieces), None if the game
    ended before it."""

    def there(state: State) -> bool:
        return len(state.move_stack) == ply if ply is not None else movers(state) <= most

    state = game.state()
    for move in game.mainline_moves():
        if there(state):
            break
        state.push(move)
    return state if there(state) and state.outcome() is None else None


Task = tuple[State, int, int, str, list[tuple[str, Level]], int]  # start, seed, side, opponent, variants, plies


def playout(task: Task) -> list[tuple[float, list[float]]]:
    """Play one recorded position on once per variant with one seed: per variant (points, the player's move
    times)."""
    begin, seed, side, opponent, variants, max_plies = task
    out = []
    for _, level in variants:
        state = begin.copy()
        players = {side: ComputerPlayer(level, seed=1000 + seed), 1 - side: ComputerPlayer(opponent, seed=2000 + seed)}
        times = []
        while state.outcome() is None and len(state.move_stack) < max_plies:
            mover = state.turn
            t0 = time.perf_counter()
            move = players[mover].choose_move(state.view(mover))
            if mover == side:
                times.append(time.perf_counter() - t0)
            state.push(move)
        outcome = state.outcome()
        points = 0.5 if outcome is None or outcome.winner is None else float(outcome.winner == side)
        out.append((points, times))
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", nargs="+", type=Path, help="records tournament.py --records kept")
    parser.add_argument("--player", default="hard", help="the kit level whose variants play (default hard)")
    parser.add_argument("--variant", action="append", metavar="NAME:FIELD=VALUE,...",
                        help="a version of the player's level (repeatable; at least two)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--movers", type=int, default=10,
                       help="start at the first position with at most this many movable pieces (default 10)")
    where.add_argument("--ply", type=int, help="start at this ply instead")
    parser.add_argument("--seeds", type=int, default=2, help="playouts per position and variant (default 2)")
    parser.add_argument("--games", type=int, help="only the first GAMES games of the player")
    parser.add_argument("--max-plies", type=int, default=4000, help="a playout unfinished by then is a draw")
    parser.add_argument("--processes", type=int, default=1)
    args = parser.parse_args(argv)
    if args.player not in LEVELS:
        parser.error(f"--player must be a kit level ({', '.join(LEVELS)}), not {args.player!r}")
    try:
        variants = [variant(v, LEVELS[args.player]) for v in args.variant or []]
    except ValueError as exc:
        parser.error(str(exc))
    if len(variants) < 2:
        parser.error("give at least two --variant to compare, e.g. --variant shipped: --variant wide:verify=6")
    tasks: list[Task] = []
    skipped = 0
    for path in args.records:
        try:
            games = read_records(path)
        except READ_ERRORS as exc:
            raise SystemExit(f"{path}: {exc}") from None
        for game in games:
            names = (game.headers.get("Red"), game.headers.get("Blue"))
            if args.player not in names or (args.games is not None and len(tasks) >= args.games * args.seeds):
                continue
            side = names.index(args.player)
            opponent = names[1 - side]
            begin = start(game, args.ply, args.movers) if opponent in LEVELS else None
            if begin is None:
                skipped += 1
                continue
            tasks += [(begin, seed, side, opponent, variants, args.max_plies) for seed in range(args.seeds)]
    if not tasks:
        raise SystemExit(f"no game of {args.player} against a kit level reaches the start position")
    at = f"ply {args.ply}" if args.ply is not None else f"the first position with at most {args.movers} movable pieces"
    print(f"Paired playouts: {len(tasks) // args.seeds} positions ({at}) of {args.player} in {len(args.records)} "
          f"record file(s), {args.seeds} seed(s) each ({skipped} games skipped: ended before, or not against a level)")
    if args.processes > 1:
        with ProcessPoolExecutor(args.processes) as pool:
            results = list(pool.map(playout, tasks))
    else:
        results = [playout(t) for t in tasks]
    n = len(results)
    print(f"{'variant':<16}{'points':>14}{'share':>8}{'better':>8}{'worse':>7}   move median / slowest")
    for v, (name, _) in enumerate(variants):
        points = sum(r[v][0] for r in results)
        better = sum(r[v][0] > r[0][0] for r in results)
        worse = sum(r[v][0] < r[0][0] for r in results)
        medians = [statistics.median(r[v][1]) for r in results if r[v][1]]
        slowest = max((max(r[v][1]) for r in results if r[v][1]), default=0.0)
        median = statistics.median(medians) if medians else 0.0
        compare = ("-", "-") if v == 0 else (str(better), str(worse))
        print(f"{name:<16}{points:>9.1f}/{n:<4}{points / n:>8.1%}{compare[0]:>8}{compare[1]:>7}   "
              f"{median:.3f} / {slowest:.2f} s")


if __name__ == "__main__":
    main()
