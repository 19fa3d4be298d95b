"""Drawing speed: the median time to render a full board to PNG, and to update a live figure after one move.

    python benchmarks/draw.py [--repeat 20] [--seed 1]

"Full render" is ``strategolab.draw.png(state)``: a new figure, every artist, Agg rendering and PNG encoding.
"Update" is what a widget does after a move: ``board.update(state)`` on the figure already drawn, then one
Agg redraw of the canvas (without PNG encoding; a widget sends its own image).  Also printed: the update
alone and the PNG encoding alone, so a slow figure can be traced to its part.  Targets on the project's
2-core machine: full render under 100 ms, update under 30 ms.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import strategolab as sl
from strategolab import draw


def midgame(seed: int, plies: int = 60) -> sl.State:
    """A classic game after ``plies`` random moves: pieces moved, some revealed, battles fought."""
    rng = random.Random(seed)
    state = sl.State.random("classic", rng)
    for _ in range(plies):
        moves = state.generate_legal_moves()
        if not moves or state.outcome() is not None:
            break
        attacks = [m for m in moves if state.piece_at(m.to_square) is not None]
        state.push(rng.choice(attacks) if attacks and rng.random() < 0.4 else rng.choice(moves))
    return state


def median_ms(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Median wall-clock and CPU milliseconds of ``fn()`` (CPU time shows the cost when the 2 cores are shared)."""
    wall, cpu = [], []
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    return 1000 * statistics.median(wall), 1000 * statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    state = midgame(args.seed)
    view = state.view(sl.RED)
    draw.png(state)  # warm the font and text-layout caches once, as a notebook session would be

    full = median_ms(lambda: draw.png(state), args.repeat)
    full_view = median_ms(lambda: draw.png(view), args.repeat)

    # Update after one move: alternate between the position before and after a move, so every repetition
    # changes two squares, the arrow and the caption, as a live game does.
    before = state.copy()
    after = state.copy()
    after.push(after.generate_legal_moves()[0])
    board = draw.draw(before)
    canvas = board.figure.canvas
    canvas.draw()
    frames = [after, before]
    counter = iter(range(10**9))

    def step() -> None:
        board.update(frames[next(counter) % 2])
        canvas.draw()

    def step_only() -> None:
        board.update(frames[next(counter) % 2])

    upd = median_ms(step, args.repeat)
    upd_only = median_ms(step_only, args.repeat)
    encode = median_ms(board.png, args.repeat)

    print(f"classic mid-game, {len(state.squares())} pieces; medians of {args.repeat} runs, wall clock (CPU time)")
    rows = [
        ("full render to PNG (state)", full, "target < 100 ms"),
        ("full render to PNG (Red's view)", full_view, ""),
        ("update after one move + redraw", upd, "target < 30 ms"),
        ("  of which update() alone", upd_only, ""),
        ("PNG of the drawn figure", encode, ""),
    ]
    for name, (wall, cpu), note in rows:
        print(f"  {name:34} {wall:7.1f} ms ({cpu:6.1f} ms)   {note}")


if __name__ == "__main__":
    main()
