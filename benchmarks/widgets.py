"""Click-to-board latency of the notebook widgets, in the kernel: the time from a square's click to the updated
board (controller and view included), and from the human's move to the computer's reply drawn, per level.

    python benchmarks/widgets.py [--games 3] [--seed 1] [--moves 25]

Each game is played through :class:`strategolab.widgets.PlayWidget` by pressing its buttons, as the browser
does: select a piece, cancel, select again, move.  "move" stops the clock when the widget has redrawn the
human's move (before the computer starts thinking), "reply <level>" when it has drawn the computer's answer
(the computer's thinking included).  Widget messages are serialised to JSON as a kernel would (a comm that
encodes and drops them), so their cost counts too; the browser's own rendering is not measured here (the
browser figures are in the issue notes).  Replay steps (the ▶ button) are timed the same way.
Targets on the project's 2-core machine: click to board at most 150 ms, the reply under 400 ms at hard.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

import comm
from comm.base_comm import BaseComm

import strategolab as sl
from strategolab.controllers import PLAY, PlayController, ReplayController
from strategolab.players import make_player, play_game
from strategolab.widgets import PlayWidget, ReplayWidget


class EncodingComm(BaseComm):
    """A comm that JSON-encodes every message, as the kernel's session would, then drops it."""

    bytes_sent = 0

    def publish_msg(self, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None,
                    **keys: Any) -> None:
        EncodingComm.bytes_sent += len(json.dumps({"type": msg_type, "data": data, "metadata": metadata}))


class Clock:
    """Times button presses up to the end of the first redraw they cause (board, log, status, move list)."""

    def __init__(self, widget: PlayWidget | ReplayWidget) -> None:
        self.redrawn: list[float] = []
        refresh = widget.refresh

        def timed_refresh() -> None:
            refresh()
            self.redrawn.append(time.perf_counter())

        widget.refresh = timed_refresh  # type: ignore[method-assign]

    def press(self, button: Any) -> float:
        """Milliseconds from the press to the end of the first redraw."""
        return self.press_all(button)[0]

    def press_all(self, button: Any) -> tuple[float, float]:
        """Milliseconds from the press to the end of the first and of the last redraw it caused."""
        self.redrawn.clear()
        start = time.perf_counter()
        button.click()
        return (self.redrawn[0] - start) * 1000, (self.redrawn[-1] - start) * 1000


def play(ruleset: str, seed: int, samples: dict[str, list[float]], level: str = "easy", moves: int = 200) -> int:
    """One game (at most ``moves`` of the human's) by button presses; returns its number of plies."""
    c = PlayController(ruleset, level, seed=seed)
    pw = PlayWidget(c)
    clock = Clock(pw)
    rng = random.Random(seed)
    pw.begin.click()
    while c.phase == PLAY and len(c.log) < 2 * moves:
        piece = pw.board.buttons[rng.choice(c.movable())]
        samples["select"].append(clock.press(piece))
        samples["cancel"].append(clock.press(piece))
        clock.press(piece)
        shown, replied = clock.press_all(pw.board.buttons[rng.choice(c.targets)])
        samples["move"].append(shown)
        if c.log[-1].player == c.computer:
            samples.setdefault(f"reply {level}", []).append(replied)
    return len(c.log)


def replay(seed: int, samples: dict[str, list[float]]) -> int:
    state = play_game(make_player("easy", seed), make_player("easy", seed + 1), "classic", seed=seed)
    rw = ReplayWidget(ReplayController(sl.Game.from_state(state)))
    clock = Clock(rw)
    for perspective in ("red", "all"):
        rw.perspective.value = perspective
        rw.first.click()
        for _ in range(min(150, rw.controller.length)):
            samples["replay step"].append(clock.press(rw.next))
    return rw.controller.length


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3, help="games per rule set (default 3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--moves", type=int, default=25, help="human moves per game at medium and hard (default 25)")
    args = parser.parse_args()
    comm.create_comm = EncodingComm  # widgets made from now on encode their messages
    samples: dict[str, list[float]] = {"select": [], "cancel": [], "move": [], "replay step": []}
    for ruleset in ("classic", "pocket", "barrage"):
        plies = [play(ruleset, args.seed + i, samples) for i in range(args.games)]
        print(f"played {ruleset}: {len(plies)} games, {sum(plies)} plies")
    for level in ("medium", "hard"):
        plies = [play("classic", args.seed + i, samples, level, args.moves) for i in range(args.games)]
        print(f"played classic at {level}: {len(plies)} games, {sum(plies)} plies")
    print(f"replayed {replay(args.seed, samples)} plies (Red's view and everything revealed)")
    print(f"\n{'click':<12}{'n':>6}{'median ms':>11}{'p90 ms':>9}{'max ms':>9}")
    clicks = []
    for kind, values in samples.items():
        values.sort()
        if kind in ("select", "cancel", "move"):
            clicks += values
        print(f"{kind:<12}{len(values):>6}{statistics.median(values):>11.1f}"
              f"{values[int(0.9 * (len(values) - 1))]:>9.1f}{values[-1]:>9.1f}")
    print(f"\nmedian click to updated board (play): {statistics.median(clicks):.1f} ms (target: at most 150 ms); "
          f"{EncodingComm.bytes_sent / 1e6:.1f} MB of widget messages encoded")
    for level in ("easy", "medium", "hard"):
        target = " (target: under 400 ms)" if level == "hard" else ""
        print(f"median move to the computer's reply drawn at {level}: "
              f"{statistics.median(samples[f'reply {level}']):.1f} ms{target}")


if __name__ == "__main__":
    main()
