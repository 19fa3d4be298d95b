"""Opponent memory: what past games showed of an opponent's setups, and the prior it gives the next game.

Many opponents, programs above all, set up alike game after game.  A player who remembers which types an
opponent's pieces turned out to be, and where they started, expects them there again.  :class:`SetupMemory`
keeps, per opponent, one small file per game: the starting square (as an index in the owner's reading order,
so games as Red and as Blue agree) and type of every piece that game *showed*, in a battle or a Scout's run.
It holds nothing the player's views did not show.

:func:`mixture` turns it into the prior of a new game: each remembered setup is one hypothesis, "a setup not
seen before" (real players' statistics) another, and every piece the new game has shown so far weighs each
hypothesis by whether it agrees; a mirrored setup or a second favourite is told apart after a few battles.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import time
import uuid
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path

from strategolab.board import geometry
from strategolab.files import atomic_output
from strategolab.rules import PieceType, Ruleset
from strategolab.views import View

from .beliefs import History, read_history

FORMAT = "strategolab-setup-memory"
VERSION = 1
NEW_SETUP = 2.0  # the prior weight of "a setup not seen before", counted in remembered games
RECALL = 0.9  # on a square a remembered setup showed: the share of its type in that hypothesis' prior
CHANGE = 0.05  # how likely the piece on a square shows another type than a matching setup remembers
MAX_GAMES = 200  # the newest games read per opponent
MAX_BYTES = 64 * 1024  # a game's file is a few hundred bytes; a bigger one is not ours


def shown_setup(view: View, history: History | None = None) -> dict[int, PieceType]:
    """The enemy pieces whose type this game has shown, by starting square as an index in the enemy's reading
    order (``geometry(ruleset).setup_squares``): what a memory may keep of the game."""
    hist = history if history is not None else read_history(view)
    index = {sq: i for i, sq in enumerate(geometry(view.ruleset).setup_squares[1 - view.player])}
    return {index[sq]: kind for sq, kind in hist.shown.items() if sq in index}


class Mixture:
    """The remembered setups of one opponent as a prior (:func:`mixture`), prepared once per game: what each
    setup adds to the statistics, and the logarithms its weighing needs, do not change from move to move."""

    def __init__(self, weights: Sequence[Sequence[float]], remembered: Sequence[Mapping[int, int]],
                 fresh: float = NEW_SETUP) -> None:
        n_kinds, n = len(weights), len(weights[0])
        totals = [sum(weights[k][i] for k in range(n_kinds)) or 1.0 for i in range(n)]
        # real players' probability of type k on square i
        stat = [[max(weights[k][i] / totals[i], 1e-9) for k in range(n_kinds)] for i in range(n)]
        self.weights = weights
        self.remembered = remembered
        self.fresh = fresh  # the prior weight of "a setup not seen before", each remembered one weighing 1
        self.log_stat = [[math.log(p) for p in row] for row in stat]
        self.log_change = [[math.log(CHANGE * p) for p in row] for row in stat]
        # What each remembered setup moves its squares by, towards the types it showed.
        self.deltas = [[(i, j, totals[i] * (RECALL * (j == k) + (1.0 - RECALL) * stat[i][j]) - weights[j][i])
                        for i, k in setup.items() for j in range(n_kinds)] for setup in remembered]

    def posterior(self, now: Mapping[int, int]) -> list[float]:
        """How likely each hypothesis is given the types this game has shown (``now``): "a setup not seen
        before" first, then each remembered setup in order; they sum to 1."""
        log_stat, log_change = self.log_stat, self.log_change
        keep = math.log(1.0 - CHANGE)
        fresh = math.log(self.fresh) + sum(log_stat[i][k] for i, k in now.items())
        logs = [fresh]
        for setup in self.remembered:
            x = 0.0
            for i, k in now.items():
                r = setup.get(i)
                x += log_stat[i][k] if r is None else keep if r == k else log_change[i][k]
            logs.append(x)
        top = max(logs)
        w = [math.exp(x - top) for x in logs]
        mass = sum(w)
        return [x / mass for x in w]

    def prior(self, now: Mapping[int, int], posterior: Sequence[float] | None = None) -> list[list[float]]:
        """The prior, each hypothesis weighed by how well it explains the types this game has shown (``now``;
        ``posterior``: :meth:`posterior` of it, if already worked out)."""
        w = self.posterior(now) if posterior is None else posterior
        out = [list(row) for row in self.weights]  # every hypothesis starts from the statistics ...
        for share, delta in zip(w[1:], self.deltas, strict=True):
            for i, j, d in delta:  # ... and a remembered one moves its squares towards what it showed
                out[j][i] += share * d
        return out


def mixture(weights: Sequence[Sequence[float]], remembered: Sequence[Mapping[int, int]],
            now: Mapping[int, int]) -> list[list[float]]:
    """Priors (the shape of :func:`~strategolab.setup_library.placement_weights`: per type, per setup square,
    the expected number) from real setups' ``weights`` and ``remembered`` setups (setup index -> type index),
    each hypothesis weighed by how well it explains the types this game has shown (``now``)."""
    return Mixture(weights, remembered).prior(now)


def _slug(name: str) -> str:
    """A folder name for an opponent: its readable part and a hash of the whole name (which may be a path)."""
    tail = re.sub(r"[^A-Za-z0-9._-]+", "_", os.path.basename(name.rstrip("/\\")) or name)[:40].strip("._") or "x"
    return f"{tail}-{hashlib.blake2b(name.encode('utf-8', 'replace'), digest_size=5).hexdigest()}"


class SetupMemory:
    """A folder of what past games showed of each opponent's setup (one JSON file per game and opponent).

    Files that cannot be read, or that another rule set, program or version wrote, are skipped with a
    warning and left as they are; a game's file is replaced whole (written beside it, then renamed), so a
    game stopped at any moment leaves the memory readable.
    """

    def __init__(self, folder: str | os.PathLike[str], max_games: int = MAX_GAMES) -> None:
        self.folder = Path(folder)
        self.max_games = max_games

    def __repr__(self) -> str:
        return f"SetupMemory({os.fspath(self.folder)!r})"

    def new_game(self) -> str:
        """A name for a new game's file, unique across processes (games may run side by side)."""
        return f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:10]}"

    def path(self, opponent: str, game: str) -> Path:
        return self.folder / _slug(opponent) / f"{game}.json"

    def record(self, opponent: str, ruleset: Ruleset, game: str, shown: Mapping[int, PieceType]) -> Path:
        """Keep what game ``game`` against ``opponent`` has shown so far (replacing its earlier record)."""
        path = self.path(opponent, game)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"format": FORMAT, "version": VERSION, "opponent": opponent, "ruleset": ruleset.name,
                "shown": {str(i): k.name for i, k in sorted(shown.items())}}
        with atomic_output(path) as f:
            json.dump(data, f, indent=None)
            f.write("\n")
        return path

    def games(self, opponent: str, ruleset: Ruleset, exclude: str | None = None) -> list[dict[int, int]]:
        """The remembered setups of ``opponent`` under ``ruleset`` (setup index -> type index): those of the
        newest ``max_games`` games."""
        folder = self.folder / _slug(opponent)
        try:
            files = sorted((p for p in folder.glob("*.json") if p.stem != exclude), reverse=True)
        except OSError:
            return []
        kinds = {k.name: j for j, k in enumerate(ruleset.piece_types)}
        n = len(geometry(ruleset).setup_squares[0])
        out = []
        for p in files[:self.max_games]:
            try:
                if p.stat().st_size > MAX_BYTES:
                    raise ValueError(f"larger than {MAX_BYTES} bytes")
                data = json.loads(p.read_text(encoding="utf-8"))
                if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
                    raise ValueError(f"not a version {VERSION} {FORMAT} file")
                if data.get("opponent") != opponent or data.get("ruleset") != ruleset.name:
                    continue  # another opponent sharing the folder name, or another rule set: not this memory
                shown = data.get("shown")
                if not isinstance(shown, dict):
                    raise ValueError("'shown' is not a table")
                setup = {}
                for key, name in shown.items():
                    i = int(key)
                    if not 0 <= i < n or name not in kinds:
                        raise ValueError(f"'shown' has {key!r}: {name!r}, not a setup square and piece type")
                    setup[i] = kinds[name]
            except (OSError, ValueError, UnicodeDecodeError, RecursionError) as e:
                warnings.warn(f"{p}: skipped, {e}", stacklevel=2)
                continue
            out.append(setup)
        # In an order of their own, not of the files' names: the same setups give the same prior to the bit.
        return sorted(out, key=lambda setup: sorted(setup.items()))
