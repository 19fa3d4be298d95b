"""Players: the small interface every opponent implements, a random player, and the game driver.

A player chooses a setup for a rule set and then, move by move, a move from a player's
:class:`~strategolab.views.View`.  The driver :func:`play_game` gives each player ``state.view(player)`` and
nothing else, checks every move it gets back, and returns the finished :class:`~strategolab.state.State`.
The widgets, the command line (``strategolab selfplay`` wraps :func:`play_series`) and the benchmarks all use
this one interface.

A player may also have ``start_game(side, opponent)`` and ``end_game(outcome)``: the drivers call them, when
present, before the setup and after the last move (an external program needs its colour before it deploys,
and is told when the game is over).  A player that cannot go on raises :class:`Forfeit` and loses:
:func:`play_match` records why.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, NamedTuple, Protocol, runtime_checkable

from strategolab.errors import IllegalMoveError, StrategolabError
from strategolab.rules import BLUE, PLAYER_NAMES, RED, Ruleset, get_ruleset
from strategolab.setups import Setup
from strategolab.state import Move, Outcome, State, Termination
from strategolab.views import View

if TYPE_CHECKING:
    from strategolab.records import Game


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


ENGINE_PREFIX = "ucc:"  # make_player("ucc:./bot --fast") runs ./bot as a UCC protocol program


def make_player(spec: str, seed: int = 0) -> Player:
    """A player by name: ``"random"``, a computer level (``"easy"``, ``"medium"``, ``"hard"``, any level of
    :data:`strategolab.ai.LEVELS`), or ``"ucc:COMMAND"``: an external program speaking the UCC 2012 protocol."""
    if spec == "random":
        return RandomPlayer(seed)
    if isinstance(spec, str) and spec.startswith(ENGINE_PREFIX):
        from strategolab.engines import UccEngine

        return UccEngine(spec[len(ENGINE_PREFIX):])
    from strategolab.ai import LEVELS, ComputerPlayer

    if spec in LEVELS:
        return ComputerPlayer(spec, seed=seed)
    raise ValueError(f"unknown player {spec!r}: expected random, {', '.join(LEVELS)} or {ENGINE_PREFIX}COMMAND")


MoveObserver = Callable[[State, int, Move, float], None]


class Forfeit(StrategolabError):
    """Raised by a player that cannot go on (its program crashed, hung past its time, answered nonsense or
    broke the rules): it loses the game, ended by ``termination``, and ``reason`` says what happened."""

    def __init__(self, reason: str, termination: Termination = Termination.ILLEGAL_MOVE) -> None:
        super().__init__(reason)
        self.reason = reason
        self.termination = termination


class GameResult(NamedTuple):
    """A game as :func:`play_match` ends it: the final state (``None`` if a player forfeited at the setup),
    how it ended (``None`` if the ply limit stopped it), and why the loser forfeited, if one did."""

    state: State | None
    outcome: Outcome | None
    reason: str = ""

    @property
    def forfeited(self) -> bool:
        return bool(self.reason)

    def headers(self) -> dict[str, str]:
        """The record headers that say how the game ended (none while it is unfinished)."""
        if self.outcome is None:
            return {}
        return {"Result": self.outcome.result(), "Termination": self.outcome.termination.value}

    def record(self, headers: dict[str, str] | None = None) -> Game | None:
        """The game as a record with these headers and how it ended; a forfeit's reason is the comment after
        the last move.  ``None`` when there is no game to record (a forfeit at the setup)."""
        from strategolab.records import Game

        if self.state is None:
            return None
        game = Game.from_state(self.state, {**(headers or {}), **self.headers()})
        if self.reason:
            game.end().comment = self.reason
        return game


def call_hook(player: object, name: str, *args: object) -> None:
    """Call ``player.start_game`` or ``player.end_game`` if the player has it (the hooks are optional)."""
    method = getattr(player, name, None)
    if callable(method):
        method(*args)


def play_match(red: Player, blue: Player, ruleset: str | Ruleset | None = None, seed: int = 0,
               max_plies: int = 5000, observer: MoveObserver | None = None) -> GameResult:
    """Play one game like :func:`play_game`, except that a player that raises :class:`Forfeit` loses it (the
    result says why) instead of stopping the run.  Players with ``start_game``/``end_game`` are told the
    game's start and end, also when it ends by a forfeit or an error."""
    if red is blue and callable(getattr(red, "start_game", None)):
        raise ValueError(f"{red.name} cannot play both sides: it keeps one game's side; make a second one")
    rs = get_ruleset(ruleset)
    players = (red, blue)
    side = RED
    state: State | None = None
    outcome: Outcome | None = None
    try:
        for side, player in ((RED, red), (BLUE, blue)):
            call_hook(player, "start_game", side, players[1 - side].name)
        setups = []
        for side, player in ((RED, red), (BLUE, blue)):
            rng = random.Random(f"strategolab-setup/{seed}/{side}")
            setup = player.choose_setup(rs, rng)
            problems = setup.problems() if setup.ruleset == rs else [f"it is a {setup.ruleset.name} setup"]
            if problems:
                raise ValueError(f"{player.name} ({PLAYER_NAMES[side]}) chose an invalid setup: "
                                 f"{'; '.join(problems)}")
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
        outcome = state.outcome()
        return GameResult(state, outcome)
    except Forfeit as e:
        outcome = Outcome(e.termination, 1 - side)
        return GameResult(state, outcome, f"{players[side].name} ({PLAYER_NAMES[side]}) forfeits: {e.reason}")
    finally:
        for player in players:
            call_hook(player, "end_game", outcome)


def play_game(red: Player, blue: Player, ruleset: str | Ruleset | None = None, seed: int = 0,
              max_plies: int = 5000, observer: MoveObserver | None = None) -> State:
    """Play one game and return its final state (``state.outcome()`` is ``None`` if ``max_plies`` ran out).

    Setups come from each player's ``choose_setup`` with a generator derived from ``seed``.  Each player
    sees only its own view; a move the rules refuse raises :class:`IllegalMoveError` naming the player, and a
    player's :class:`Forfeit` is raised again naming it (:func:`play_match` scores it as a loss instead).
    ``observer(state_before, player, move, seconds)`` is called before each move is played (for timing and
    progress; ``seconds`` is how long the player took to choose).
    """
    result = play_match(red, blue, ruleset, seed, max_plies, observer)
    if result.forfeited or result.state is None:
        assert result.outcome is not None
        raise Forfeit(result.reason, result.outcome.termination)
    return result.state


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


def play_series(red: Player, blue: Player, ruleset: str | Ruleset | None = None, n: int = 1, seed: int = 0,
                alternate: bool = False, max_plies: int = 5000) -> Iterator[tuple[Player, Player, GameResult]]:
    """:func:`selfplay` with :func:`play_match`: yields ``(red player, blue player, result)`` per game, so a
    forfeit (an external program that fails) is one lost game and the series goes on."""
    for i in range(n):
        a, b = (blue, red) if alternate and i % 2 else (red, blue)
        yield a, b, play_match(a, b, ruleset, game_seed(seed, i), max_plies=max_plies)


__all__ = ["ENGINE_PREFIX", "Forfeit", "GameResult", "MoveObserver", "Player", "RandomPlayer", "call_hook",
           "game_seed", "make_player", "play_game", "play_match", "play_series", "selfplay"]
