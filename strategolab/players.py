"""Players: the small interface every opponent implements, a random player, and the game driver.

A player chooses a setup for a rule set and then, move by move, a move from a player's
:class:`~strategolab.views.View`.  The driver :func:`play_game` gives each player ``state.view(player)`` and
nothing else, checks every move it gets back, and returns the finished :class:`~strategolab.state.State`.
The widgets, the command line (``strategolab selfplay`` wraps :func:`selfplay`) and the benchmarks all use
this one interface.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import Protocol, runtime_checkable

from strategolab.errors import IllegalMoveError
from strategolab.rules import BLUE, PLAYER_NAMES, RED, Ruleset, get_ruleset
from strategolab.setups import Setup
from strategolab.state import Move, State
from strategolab.views import View


@runtime_checkable
class Player(Protocol):
    """Anything that can play: a name, a setup for a rule set, a move for a view."""

    name: str

    def choose_setup(self, ruleset: Ruleset, rng: random.Random) -> Setup:
        """A valid setup of ``ruleset`` (in the player's reading order, as :class:`Setup` stores it)."""
        ...

    def choose_move(self, view: View) -> Move:
        """A legal move for the side to move, from that side's view."""
        ...


class RandomPlayer:
    """Plays a uniformly random setup and uniformly random legal moves (reproducible from ``seed``)."""

    def __init__(self, seed: int = 0, name: str = "random") -> None:
        self.seed = seed
        self.name = name

    def __repr__(self) -> str:
        return f"RandomPlayer(seed={self.seed})"

    def choose_setup(self, ruleset: Ruleset, rng: random.Random) -> Setup:
        return Setup.random(ruleset, rng)

    def choose_move(self, view: View) -> Move:
        if not isinstance(view, View):
            raise TypeError(f"a player chooses from a player's View (state.view(player)), not {type(view).__name__}")
        if view.turn != view.player:
            raise ValueError(f"it is {PLAYER_NAMES[view.turn]}'s turn, this is {PLAYER_NAMES[view.player]}'s view")
        moves = view.generate_legal_moves()
        if not moves:
            raise ValueError("no legal move: the game is over")
        # A fresh generator per decision: the same seed and view always give the same move.
        rng = random.Random(f"strategolab-random/{self.seed}/{view.player}/{view.ply}/{len(view.move_stack)}")
        return moves[rng.randrange(len(moves))]


def make_player(spec: str, seed: int = 0) -> Player:
    """A player by name: ``"random"``, or a computer level ``"easy"``, ``"medium"``, ``"hard"``."""
    if spec == "random":
        return RandomPlayer(seed)
    from strategolab.ai import LEVELS, ComputerPlayer

    if spec in LEVELS:
        return ComputerPlayer(spec, seed=seed)
    raise ValueError(f"unknown player {spec!r}: expected random, {', '.join(LEVELS)}")


MoveObserver = Callable[[State, int, Move, float], None]


def play_game(red: Player, blue: Player, ruleset: str | Ruleset | None = None, seed: int = 0,
              max_plies: int = 5000, observer: MoveObserver | None = None) -> State:
    """Play one game and return its final state (``state.outcome()`` is ``None`` if ``max_plies`` ran out).

    Setups come from each player's ``choose_setup`` with a generator derived from ``seed``.  Each player
    sees only its own view; a move the rules refuse raises :class:`IllegalMoveError` naming the player.
    ``observer(state_before, player, move, seconds)`` is called before each move is played (for timing and
    progress; ``seconds`` is how long the player took to choose).
    """
    rs = get_ruleset(ruleset)
    players = (red, blue)
    setups = []
    for side, player in ((RED, red), (BLUE, blue)):
        rng = random.Random(f"strategolab-setup/{seed}/{side}")
        setup = player.choose_setup(rs, rng)
        problems = setup.problems() if setup.ruleset == rs else [f"it is a {setup.ruleset.name} setup"]
        if problems:
            raise ValueError(f"{player.name} ({PLAYER_NAMES[side]}) chose an invalid setup: {'; '.join(problems)}")
        setups.append(setup)
    state = State.new(setups[0], setups[1], rs)
    while len(state.move_stack) < max_plies and state.outcome() is None:
        side = state.turn
        view = state.view(side)
        start = time.perf_counter()
        move = players[side].choose_move(view)
        seconds = time.perf_counter() - start
        reason = state.illegal_reason(move)
        if reason:
            raise IllegalMoveError(move, f"{players[side].name} ({PLAYER_NAMES[side]}) proposed it: {reason}")
        if observer is not None:
            observer(state, side, move, seconds)
        state.push(move)
    return state


def game_seed(seed: int, index: int) -> int:
    """The seed of game ``index`` in a series started from ``seed`` (independent streams per game)."""
    return random.Random(f"strategolab-series/{seed}/{index}").getrandbits(48)


def selfplay(red: Player, blue: Player, ruleset: str | Ruleset | None = None, n: int = 1, seed: int = 0,
             alternate: bool = False, max_plies: int = 5000) -> Iterator[State]:
    """Play ``n`` games and yield each finished state (the command line writes them as records).

    With ``alternate`` the players swap colours every other game (game 0: ``red`` plays Red).  Game ``i``
    uses :func:`game_seed` ``(seed, i)``, so a series is reproducible and any one game can be replayed alone.
    """
    for i in range(n):
        a, b = (blue, red) if alternate and i % 2 else (red, blue)
        yield play_game(a, b, ruleset, game_seed(seed, i), max_plies=max_plies)


__all__ = ["MoveObserver", "Player", "RandomPlayer", "game_seed", "make_player", "play_game", "selfplay"]
