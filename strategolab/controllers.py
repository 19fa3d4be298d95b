"""The logic of the play and replay notebooks, as plain Python objects that tests drive without a browser.

:class:`PlayController` runs a match against the computer: settings, deployment (swap two squares by
clicking them, shuffle, ready-made setups), clicks with select / cancel / switch / move semantics, the
computer's replies through the :class:`~strategolab.players.Player` interface (it is handed
``state.view(computer)`` and nothing else), a battle log in board coordinates, the quiet-move warning, the end
with every identity revealed, confirmations, atomic save and restore, and export in the kit's notation.

:class:`ReplayController` steps through a record (the kit's notation or a Gravon game) from Red's view, Blue's
view or with everything revealed, follows variations, and edits comments and marks.

Both describe the board as a list of :class:`Cell` built from a :class:`~strategolab.views.View` (or, where
everything is public, the full state), so a front end cannot show what the viewer does not know.  Nothing here
imports ipywidgets or matplotlib: :mod:`strategolab.widgets` is a thin view over these classes.
"""

from __future__ import annotations

import base64
import datetime
import errno
import json
import os
import random
import re
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from strategolab.archive import GRAVON_RULESETS, REPLAYABLE, initial_state, replay
from strategolab.board import STRIDE, Square, geometry, square_name
from strategolab.errors import StrategolabError
from strategolab.files import atomic_output, same_file, user_folder
from strategolab.gravon import GravonGame, read_gravon
from strategolab.notation import battle_text, read_game, read_games, write_game, write_games
from strategolab.records import MARK_SYMBOLS, Game, GameNode, to_mark
from strategolab.rules import BLUE, PLAYER_NAMES, RED, RULESETS, BattleResult, PieceType, Ruleset, get_ruleset
from strategolab.setups import Setup
from strategolab.state import Battle, Move, Outcome, Piece, Position, State, Termination, _square_number

if TYPE_CHECKING:
    from strategolab.ai import Reasoning
    from strategolab.players import Player

PlayerFactory = Callable[[str, int], "Player"]  # (level, seed) -> the computer opponent

PLAY_RULESETS = ("classic", "pocket", "original-1961", "barrage")
LEVELS = ("easy", "medium", "hard")  # the computer's levels offered to a player; "random" works too (tests)
FIRST = ("you", "computer")

SETUP = "setup"  # deploying: the human arranges their pieces
PLAY = "play"  # the match is running
OVER = "over"  # the match has ended: everything is revealed

# What a click did (returned by ``click`` so tests and front ends can react without parsing messages).
SELECTED = "selected"
CANCELLED = "cancelled"
SWITCHED = "switched"
MOVED = "moved"
SWAPPED = "swapped"
REFUSED = "refused"
IGNORED = "ignored"

SAVE_SUFFIX = ".sgn"  # the kit's notation
TAKEN_BACK = "taken back"  # the starting comment of a variation that records a take-back
SEALED = "Sealed"  # the header that holds the computer's setup and the seed while a match is on
BELIEF_SHOWN = 0.35  # the overlay shows the computer's guess about a piece when it is at least this sure


def move_number(ply: int) -> str:
    """The move number before the move at ``ply``, as the notation writes it: ``12.`` or ``12...``."""
    return f"{ply // 2 + 1}{'...' if ply % 2 else '.'}"


def _piece_words(piece: Piece, ruleset: Ruleset) -> str:
    """``Red Miner (3)``: the owner, the type and its rank in the rule set's notation (if it has a number)."""
    label = piece.type.label(ruleset.notation)
    return f"{PLAYER_NAMES[piece.owner]} {piece.type.name}" + (f" ({label})" if label.isdigit() else "")


def describe_battle(battle: Battle, ruleset: Ruleset) -> str:
    """A battle in words with ranks and board coordinates: who attacked whom, where, and who won."""
    a, d = battle.attacker, battle.defender
    if battle.result == BattleResult.ATTACKER_WINS:
        result = f"the {a.type.name} wins"
    elif battle.result == BattleResult.DEFENDER_WINS:
        result = f"the {d.type.name} wins"
    else:
        result = "both are removed"
    return (f"{_piece_words(a, ruleset)} attacks {_piece_words(d, ruleset)} on {square_name(battle.square)}: "
            f"{result}")


# -- the board as cells ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """What one square shows: enough for a front end to draw it, and nothing its viewer may not know.

    ``piece`` is the piece type's name, or ``None`` for an empty square or an enemy piece whose identity the
    viewer does not know (then ``owner`` is set and ``label`` is ``"?"``).  ``belief`` is the computer's
    best guess about this (human) piece when the beliefs overlay is on, ``belief_level`` how close it is to
    the truth (0 no overlay, 1 the computer is far off, 2 it suspects, 3 it knows or nearly knows).
    """

    square: Square
    name: str
    label: str = ""
    owner: int | None = None
    piece: str | None = None
    lake: bool = False
    zone: int | None = None  # whose setup rows this square is in
    moved: bool = False
    revealed: bool = False
    selected: bool = False
    target: bool = False
    movable: bool = False  # one of the viewer's pieces that can move now
    last: bool = False  # the last move left or entered this square
    battle: bool = False  # the last move's battle happened here
    belief: str = ""
    belief_level: int = 0
    hint: str = ""  # a sentence for a tooltip
    hinted: bool = False  # a square of the move a hint suggests
    icon: str = ""  # "flag" or "bomb" (Bombs and Mines) when the piece is drawn as a symbol, as the drawer does

    @property
    def text(self) -> str:
        """The button text: the rank label, and the computer's guess on a second line."""
        return f"{self.label}\n{self.belief}" if self.belief else self.label


def board_cells(pos: Position, viewer: int | None, *, selected: Square | None = None,
                targets: Iterable[Square] = (), movable: Iterable[Square] = (), last_move: Move | None = None,
                battle: Battle | None = None, beliefs: Mapping[Square, Mapping[str, float]] | None = None,
                hinted: Iterable[Square] = ()) -> list[Cell]:
    """Every square of ``pos`` (lakes included), row 1 first and column A first in each row.

    ``pos`` is what the viewer knows: a :class:`~strategolab.views.View`, or a state when everything is
    public (the end of a match, the "all" perspective of a replay, a deployment board).  ``viewer`` only
    words the hints ("your Marshal").  With ``beliefs`` (the computer's, about the viewer's pieces), the
    viewer's pieces carry the computer's top guess.
    """
    rs = pos.ruleset
    geo = geometry(rs)
    zones = {sq: p for p, squares in enumerate(geo.setup_squares) for sq in squares}
    targets = set(targets)
    movable = set(movable)
    hinted = set(hinted)
    ends = set(last_move) if last_move is not None else set()
    out = []
    for row in range(geo.height):
        for col in range(geo.width):
            sq = row * STRIDE + col
            name = square_name(sq)
            if sq in geo.lakes:
                out.append(Cell(sq, name, lake=True, hint=f"{name}: lake"))
                continue
            owner = pos.owner_at(sq)
            piece = pos.piece_at(sq)
            label, hint, belief, level = "", f"{name}: empty", "", 0
            if owner is not None:
                whose = "your" if owner == viewer else PLAYER_NAMES[owner] + ("'s" if viewer is not None else "")
                if piece is None:
                    label, hint = "?", f"{name}: {whose} unknown piece"
                else:
                    label = piece.type.label(rs.notation)
                    hint = f"{name}: {whose} {piece.type.name} ({label})"
                if pos.has_moved(sq):
                    hint += ", has moved"
                if pos.is_revealed(sq):
                    hint += ", revealed"
                if beliefs is not None and owner == viewer and piece is not None:
                    belief, level, words = _belief(beliefs.get(sq), piece, rs, pos.is_revealed(sq))
                    hint += f"; the computer thinks: {words}"
            out.append(Cell(
                sq, name, label=label, owner=owner, piece=piece.type.name if piece is not None else None,
                zone=zones.get(sq), moved=owner is not None and pos.has_moved(sq),
                revealed=owner is not None and pos.is_revealed(sq), selected=sq == selected,
                target=sq in targets, movable=sq in movable, last=sq in ends,
                battle=battle is not None and battle.square == sq and sq in ends, belief=belief,
                belief_level=level, hint=hint, hinted=sq in hinted,
                icon=piece_icon(piece.type) if piece is not None else ""))
    return out


def piece_icon(kind: PieceType) -> str:
    """The symbol a piece type is drawn with (as :mod:`strategolab.draw` draws it): "flag", "bomb" or ""."""
    return "flag" if kind.is_flag else "" if kind.movable else "bomb"


def _belief(probs: Mapping[str, float] | None, piece: Piece, rs: Ruleset, revealed: bool) -> tuple[str, int, str]:
    """The overlay of one of the human's pieces: top guess text, how near the truth, and a sentence."""
    if probs is None:
        return ("✓", 3, f"it knows this is a {piece.type.name}") if revealed else ("", 0, "nothing")
    top, p = max(probs.items(), key=lambda kv: kv[1])
    ranked = sorted(probs.items(), key=lambda kv: -kv[1])[:3]
    words = ", ".join(f"{name} {q:.0%}" for name, q in ranked)
    if p < BELIEF_SHOWN:  # no real idea (at easy level nearly every piece): nothing worth drawing
        return "", 0, f"no real idea ({words})"
    truth = probs.get(piece.type.name, 0.0)
    level = 3 if truth >= 0.5 else 2 if truth >= 0.2 else 1
    return f"{rs.piece_type(top).label(rs.notation)} {p:.0%}", level, words


# -- playing ------------------------------------------------------------------------------------------------


class Messages:
    """The one-line message a controller leaves for its front end after each action, and how to show it."""

    message = ""
    message_kind = "info"  # "info", "refused" (a move the rules refuse) or "error" (a file that failed)

    def say(self, text: str, kind: str = "info") -> None:
        """Set the message a front end shows (``kind``: ``"info"``, ``"refused"`` or ``"error"``)."""
        self.message = text
        self.message_kind = kind


@dataclass(frozen=True)
class LogEntry:
    """One move of the match as the log shows it: number, side, move and, for an attack, the battle."""

    ply: int
    player: int
    move: Move
    battle: Battle | None
    text: str


@dataclass(frozen=True)
class Pending:
    """An action waiting for the player's yes or no (a new game or a restore while a match runs)."""

    action: str  # "new game", "restore" or "resign"
    question: str
    path: str | None = None
    settings: Mapping[str, object] | None = None


@dataclass(frozen=True)
class Hint:
    """A move the computer suggests for the human, and its reason in words."""

    move: Move
    reason: str


_LEVEL_WORDS = {
    "easy": "At easy level it looks only at the battle a move starts, and often picks by chance among moves "
            "that look alike.",
    "medium": "At medium level it looks two moves ahead (a move and the answers to it, judged by what you can "
              "know of its pieces; in a small army only whether its piece could be taken right back), and it "
              "imagines {worlds} ways the hidden pieces might stand.",
    "hard": "At hard level it looks two moves ahead (in a small army three: its own next move too; in a full "
            "army it looks three ahead at its best four moves once more), reads how your pieces behave as a clue "
            "to what they are, knows the ready-made setups (and spots one in use), and imagines {worlds} "
            "ways the hidden pieces might stand.",
}


def explain(why: Reasoning, subject: str, flag: str = "your Flag") -> str:
    """A computer player's reasoning in a learner's words (``subject`` starts the first sentence, ``flag``
    names the Flag it looks for)."""
    best, *others = why.candidates or [None]
    move = why.move
    lines = [f"{subject} would play {move}" if subject.startswith("In your place") else f"{subject} played {move}"]
    if best is not None and best.note:
        lines[0] += f": it {best.note}"
    lines[0] += "."
    if why.level in _LEVEL_WORDS:
        lines.append(_LEVEL_WORDS[why.level].format(worlds=why.worlds))
    if others and best is not None:
        words = []
        for c in others[:3]:
            gap = best.score - c.score
            judged = "about as good" if gap < 1 else "a little worse" if gap < 5 else "clearly worse"
            words.append(f"{c.move} ({judged}" + (f"; it {c.note}" if c.note else "") + ")")
        lines.append("Other moves it weighed: " + ", ".join(words) + ".")
    if why.flag_guesses and why.flag_guesses[0][1] >= 0.1:  # a real idea of where the Flag is
        lines.append(f"It looks for {flag} on " + ", ".join(
            f"{square_name(sq)} ({p:.0%})" for sq, p in why.flag_guesses[:3]) + ".")
    if why.plan is not None:  # hard knows the ready-made setups (Level.book) and takes the enemy's for one
        name, odds = why.plan
        plan = name.removesuffix(" (mirrored)")
        whose = flag.removesuffix("Flag").strip()
        lines.append(f"It takes {whose} setup for the ready-made {plan!r}"
                     + (" turned left to right" if plan != name else "")
                     + f" ({odds:.0%}, from what the battles have shown), so it expects {whose} other pieces "
                       f"where that setup has them.")
    if why.approaches is not None and why.approaches[2] != why.approaches[3]:  # hard reads how honest you are
        shown, lost, weight, habit = why.approaches
        whose = flag.removesuffix("Flag").strip()
        seen = f"Of {whose} pieces that stepped next to its known ones, it has seen {shown} since, " + (
            "and none was weaker" if not lost else f"and {lost} of them {'was' if lost == 1 else 'were'} weaker")
        now, most = (("expects a piece that steps up to beat its piece", "more") if weight < habit
                     else ("suspects a piece that steps up of bluffing", "less"))
        lines.append(f"{seen}: it now {now} (a weaker one counts {weight:.2f} of a stronger one; most players "
                     f"bluff {most}, {habit:.2f}).")
    return "\n".join(lines)


class PlayController(Messages):
    """A match against the computer, driven by clicks on squares and a few buttons.

    The human plays ``human`` (Red by default, the bottom of the board); ``first`` says who moves first
    (``"you"`` or ``"computer"``); ``level`` is the computer's level (:data:`LEVELS`, or ``"random"``).
    The same ``seed`` gives the same deployment, computer setup and computer moves.  ``opponent`` makes the
    computer player from ``(level, seed)`` (default :func:`~strategolab.players.make_player`): any
    :class:`~strategolab.players.Player` can be plugged in.
    """

    def __init__(self, ruleset: str | Ruleset = "classic", level: str = "easy", *, human: int = RED,
                 first: str = "you", seed: int = 0, opponent: PlayerFactory | None = None) -> None:
        from strategolab.players import make_player

        if opponent is not None and not callable(opponent):
            raise TypeError(f"opponent makes the computer player from (level, seed); {opponent!r} is not callable")
        self.show_beliefs = False
        self.pending: Pending | None = None
        self._factory: PlayerFactory = opponent or make_player
        self.opponent: Player | None = None
        self.forfeit: tuple[Outcome, str] | None = None  # the opponent lost by failing, and why
        self._configure(get_ruleset(ruleset), level, human, first, seed)

    # -- settings and deployment -----------------------------------------------------------------------

    def _configure(self, ruleset: Ruleset, level: str, human: int, first: str, seed: int) -> None:
        if human not in (RED, BLUE):
            raise ValueError(f"human must be RED (0) or BLUE (1), not {human!r}")
        if first not in FIRST:
            raise ValueError(f"first={first!r}: expected 'you' or 'computer'")
        self._end_opponent(None)
        self.opponent = self._factory(level, seed)
        self.forfeit = None
        self.ruleset = ruleset
        self.level = level
        self.human = human
        self.computer = 1 - human
        self.first = first
        self.seed = seed
        self._rng = random.Random(f"strategolab-play/{seed}/human")
        self.setup = self._fresh_setup()
        self.state: State | None = None
        self.phase = SETUP
        self.selected: Square | None = None
        self.targets: list[Square] = []
        self.log: list[LogEntry] = []
        self.setup_name = ""  # the ready-made setup deployed, "" once it is changed
        self.taken_back: list[tuple[int, list[Move]]] = []  # (ply, moves) of every take-back, for the record
        self.resigned = False
        self.hinted: Hint | None = None  # the hint on show (cleared by the next click)
        self._beliefs: tuple[tuple[Move, ...], dict[Square, dict[str, float]]] | None = None
        self.say(f"Deploy your pieces on rows {self._rows()}: click two squares to swap them, shuffle, or pick "
                 "a ready-made setup; then begin the match.")

    def configure(self, *, ruleset: str | Ruleset | None = None, level: str | None = None,
                  human: int | None = None, first: str | None = None) -> None:
        """Change the settings while deploying (a new rule set or side deals a fresh deployment)."""
        if self.phase != SETUP:
            raise ValueError("settings change between matches: start a new game first")
        rs = get_ruleset(ruleset) if ruleset is not None else self.ruleset
        side = self.human if human is None else human
        if rs == self.ruleset and side == self.human:
            keep = self.setup
            self._configure(rs, level or self.level, side, first or self.first, self.seed)
            self.setup = keep
        else:
            self._configure(rs, level or self.level, side, first or self.first, self.seed)

    def use_opponent(self, opponent: PlayerFactory | None) -> None:
        """Play against the players ``opponent(level, seed)`` makes (an external program:
        ``lambda level, seed: UccEngine(command)``) from the next match on, or against the computer's level
        again with ``None``; only while deploying."""
        from strategolab.players import call_hook, make_player

        self._need(SETUP)
        if opponent is not None:
            if not callable(opponent):
                raise TypeError(f"opponent makes the player from (level, seed); {opponent!r} is not callable")
            call_hook(opponent(self.level, self.seed), "end_game", None)  # a bad command fails here, before
            # anything changes (and a program it started is ended)
        self._factory = opponent or make_player
        self._configure(self.ruleset, self.level, self.human, self.first, self.seed)
        if opponent is not None:
            self.say(f"Your opponent is {self.opponent.name}. Deploy, then begin the match.")  # type: ignore[union-attr]

    def _end_opponent(self, outcome: Outcome | None) -> None:
        """Tell an opponent that keeps a game (an external program) that it is over."""
        from strategolab.players import call_hook

        if self.opponent is not None:
            call_hook(self.opponent, "end_game", outcome)

    def _rows(self) -> str:
        rows = sorted(self.ruleset.setup_rows[self.human])
        return f"{rows[0]}–{rows[-1]}"

    def setup_names(self) -> list[str]:
        """The ready-made setups of this rule set, by name."""
        from strategolab.setup_library import library

        return list(library(self.ruleset))

    def use_setup(self, name: str) -> None:
        """Deploy a ready-made setup by name."""
        from strategolab.setup_library import describe, library

        self._need(SETUP)
        setups = library(self.ruleset)
        if name not in setups:
            raise ValueError(f"no ready-made {self.ruleset.name} setup {name!r}; known: {', '.join(setups)}")
        self.setup = setups[name]
        self.selected = None
        self.setup_name = name
        words = f"Ready-made setup {name!r}: {describe(name, self.ruleset)}."
        if self._knows_library():
            words += (f" The computer at {self.level} level knows the ready-made setups too: once its battles show "
                      f"pieces where this one has them, it expects the rest.")
        self.say(words)

    def _knows_library(self) -> bool:
        """Does the computer opponent know the setup library's plans (``Level.book``), so may spot one?"""
        from strategolab.ai import ComputerPlayer

        return isinstance(self.opponent, ComputerPlayer) and self.opponent.level.book

    def shuffle(self) -> None:
        """Deploy the pieces afresh, at random but the way real players do (no Flag in the front row)."""
        self._need(SETUP)
        self.setup = self._fresh_setup()
        self.selected = None
        self.setup_name = ""
        self.say("Shuffled your pieces (where real players tend to put them).")

    def _fresh_setup(self) -> Setup:
        """A random deployment drawn from real setup statistics, so a first game starts from a sensible one."""
        from strategolab.setup_library import statistical_setup

        return statistical_setup(self.ruleset, self._rng)

    def _need(self, phase: str) -> None:
        if self.phase != phase:
            raise ValueError(f"this needs the {phase} phase; the match is in the {self.phase} phase")

    def begin(self) -> None:
        """Start the match: the computer deploys (from its own generator), then whoever moves first moves."""
        self._need(SETUP)
        self.setup.validate()
        from strategolab.players import Forfeit, call_hook

        assert self.opponent is not None
        try:
            call_hook(self.opponent, "start_game", self.computer, "you")
            theirs = self.opponent.choose_setup(self.ruleset, random.Random(f"strategolab-play/{self.seed}/computer"))
        except Forfeit as e:
            raise StrategolabError(f"{self.opponent.name} could not deploy: {e.reason}") from None
        if theirs.ruleset != self.ruleset or not theirs.is_valid():
            raise ValueError(f"the computer chose an invalid setup: {'; '.join(theirs.problems())}")
        red, blue = (self.setup, theirs) if self.human == RED else (theirs, self.setup)
        first = self.human if self.first == "you" else self.computer
        self.state = State.new(red, blue, self.ruleset, first_player=first)
        self.phase = PLAY
        self.selected = None
        self.log = []
        self.say("The match has begun. " + ("Your move: select one of your pieces." if first == self.human
                                            else "The computer moves first."))

    # -- the match ---------------------------------------------------------------------------------------

    @property
    def in_progress(self) -> bool:
        """A match has begun and not ended (leaving it needs a confirmation)."""
        return self.phase == PLAY

    @property
    def outcome(self) -> Outcome | None:
        """How the match ended (``None`` before the end): on the board, by the human's resignation, or by
        the opponent's forfeit (an external program that crashed, hung or moved illegally)."""
        if self.state is None:
            return None
        if self.forfeit is not None:
            return self.forfeit[0]
        if self.resigned:
            return Outcome(Termination.RESIGNATION, self.computer)
        return self.state.outcome()

    @property
    def human_to_move(self) -> bool:
        """The match runs and waits for the human's click."""
        return self.phase == PLAY and self.state is not None and self.state.turn == self.human

    @property
    def computer_to_move(self) -> bool:
        """The match runs and waits for :meth:`computer_reply` (a front end calls it after redrawing)."""
        return self.phase == PLAY and self.state is not None and self.state.turn == self.computer

    def view(self) -> Position:
        """What the human sees now: their view while the match runs, everything once it has ended."""
        if self.state is None:
            board = State.empty(self.ruleset)
            for sq, kind in self.setup.placements(self.human).items():
                board.set_piece(sq, Piece(self.human, kind))
            return board
        return self.state if self.phase == OVER else self.state.view(self.human)

    def click(self, sq: Square) -> str:
        """A click on a square: swap during deployment, select / cancel / switch / move during the match."""
        try:
            sq = _square_number(sq)
        except TypeError:
            raise TypeError(f"a click is on a square number (as Cell.square gives), not {type(sq).__name__} "
                            f"{sq!r}") from None
        self.hinted = None
        if sq in geometry(self.ruleset).lakes:
            self.say(f"{square_name(sq)} is a lake: no piece may stand on it or cross it.", "refused")
            return REFUSED
        if self.phase == SETUP:
            return self._click_setup(sq)
        if self.phase == OVER:
            self.say(f"The game is over: {self.result_text()}. Start a new game to play again.")
            return IGNORED
        if not self.human_to_move:
            self.say("Wait: it is the computer's turn.")
            return IGNORED
        view = self.view()
        if not view.geometry.on_board(sq):
            self.say(f"Square {sq} is not on the {self.ruleset.width}x{self.ruleset.height} board.", "refused")
            return REFUSED
        if view.owner_at(sq) == self.human and sq != self.selected:
            return self._select(view, sq)
        if self.selected is None:
            self.say("Select one of your pieces first.")
            return IGNORED
        if sq == self.selected:
            self.selected, self.targets = None, []
            self.say("Selection cancelled.")
            return CANCELLED
        move = Move(self.selected, sq)
        reason = view.illegal_reason(move)
        if reason:
            self.say(f"{move} refused: {reason}", "refused")
            return REFUSED
        self._play(move)
        return MOVED

    def _select(self, view: Position, sq: Square) -> str:
        piece = view.piece_at(sq)
        assert piece is not None
        targets = view.legal_targets(sq)
        if not targets:
            neighbours = view.geometry.neighbours[sq]
            reason = next((r for n in neighbours if (r := view.illegal_reason(Move(sq, n)))), None)
            where = f"the {piece.type.name} on {square_name(sq)}"
            if reason and reason.lower().startswith(where.lower()):  # the reason names the piece: say it once
                text = reason[0].upper() + reason[1:]
            else:
                text = f"The {piece.type.name} on {square_name(sq)} cannot move now" + (f": {reason}" if reason else "")
            self.say(text.rstrip(".") + ".", "refused")
            return REFUSED
        switched = self.selected is not None
        self.selected, self.targets = sq, targets
        self.say(f"{piece.type.name} on {square_name(sq)}: {len(targets)} legal "
                 f"{'move' if len(targets) == 1 else 'moves'} light up. Click one to move, the piece again "
                 "to cancel.")
        return SWITCHED if switched else SELECTED

    def _click_setup(self, sq: Square) -> str:
        squares = geometry(self.ruleset).setup_squares[self.human]
        if sq not in squares:
            self.say(f"Deploy on your setup rows ({self._rows()}).", "refused")
            return REFUSED
        if self.selected is None:
            self.selected = sq
            self.say(f"{square_name(sq)} selected: click another square of your rows to swap.")
            return SELECTED
        if self.selected == sq:
            self.selected = None
            self.say("Selection cancelled.")
            return CANCELLED
        a, b = self.selected, sq
        self.setup = self.setup.swap(squares.index(a), squares.index(b))
        self.selected = None
        self.setup_name = ""
        self.say(f"Swapped {square_name(a)} and {square_name(b)}.")
        return SWAPPED

    def _play(self, move: Move) -> LogEntry:
        state = self.state
        assert state is not None
        player = state.turn
        ply = state.ply
        battle = state.push_checked(move)
        entry = self._entry(ply, player, move, battle)
        self.log.append(entry)
        self.selected, self.targets = None, []
        outcome = state.outcome()
        if outcome is not None:
            self.phase = OVER
            self._end_opponent(outcome)
            self.say(f"Game over: {self.result_text()}. Every piece is revealed.")
        else:  # the move itself is the newest line of the log: the message says only what comes next
            self.say("The computer is thinking…" if player == self.human else "Your move.")
        return entry

    def _who(self, player: int) -> str:
        return f"You ({PLAYER_NAMES[player]})" if player == self.human else f"Computer ({PLAYER_NAMES[player]})"

    def _entry(self, ply: int, player: int, move: Move, battle: Battle | None) -> LogEntry:
        """A log line: number, side, the move in board coordinates, and what it showed (a battle, a Scout)."""
        text = f"{move_number(ply)} {self._who(player)}: "
        if battle is not None:
            text += f"{str(move).replace('-', 'x')} — {describe_battle(battle, self.ruleset)}"
        else:
            f, t = move
            steps = abs(t - f) if f // STRIDE == t // STRIDE else abs(t - f) // STRIDE
            text += str(move) + (" — a run of several squares: the Scout is revealed" if steps > 1 else "")
        return LogEntry(ply, player, move, battle, text)

    def computer_reply(self) -> LogEntry | None:
        """Let the computer move (given only its own view); ``None`` when it is not its turn."""
        if not self.computer_to_move:
            return None
        from strategolab.players import Forfeit

        state = self.state
        assert state is not None and self.opponent is not None
        try:
            move = self.opponent.choose_move(state.view(self.computer))
        except Forfeit as e:  # an external program crashed, hung or moved illegally: it loses
            self.forfeit = (Outcome(e.termination, self.human), f"{self.opponent.name} forfeits: {e.reason}")
            self.phase = OVER
            self.say(f"Game over: {self.result_text()}: {self.forfeit[1]}. Every piece is revealed.")
            return None
        reason = state.illegal_reason(move)
        if reason:
            raise StrategolabError(f"the computer proposed an illegal move {move}: {reason}")
        return self._play(move)

    def reasoning(self) -> str:
        """Why the computer played its last move, in a learner's words: what the move does, how its level
        thinks, the other moves it weighed, where it looks for your Flag (``""`` when it cannot say)."""
        why = getattr(self.opponent, "last_reasoning", None)
        if why is None or self.state is None or not self.log or self.log[-1].player != self.computer:
            return ""
        return explain(why, "The computer")

    # -- take back, resign, hint -------------------------------------------------------------------------

    @property
    def can_take_back(self) -> bool:
        """The match runs, it is the human's turn, and the human has a move to take back."""
        return (self.human_to_move and any(entry.player == self.human for entry in self.log)
                and not self._keeps_game)

    @property
    def _keeps_game(self) -> bool:
        """The opponent keeps a game of its own (an external program): moves cannot be taken back from it."""
        return callable(getattr(self.opponent, "start_game", None))

    def take_back(self) -> None:
        """Take back the human's last move and the computer's reply to it (the record keeps them as a
        variation marked "taken back")."""
        if self.phase == PLAY and self._keeps_game:
            raise ValueError(f"{self.opponent.name} keeps its own game and cannot take moves back")  # type: ignore[union-attr]
        if not self.can_take_back:
            raise ValueError("nothing to take back: " + ("the match is not running" if self.phase != PLAY else
                                                         "wait for the computer's move" if not self.human_to_move
                                                         else "you have not moved yet"))
        state = self.state
        assert state is not None
        undone: list[Move] = []
        while not undone or state.turn != self.human:
            undone.insert(0, state.pop())
        del self.log[len(self.log) - len(undone):]
        self.taken_back.append((state.ply, undone))
        self.selected, self.targets, self.hinted = None, [], None
        text = f"your move {undone[0]}" + (f" and the computer's reply {undone[1]}" if len(undone) > 1 else "")
        self.say(f"Took back {text}. Your move.")

    def resign(self, *, confirm: bool = False) -> bool:
        """Give up the match: the computer wins, and every piece is revealed.

        Without ``confirm=True`` the request waits in :attr:`pending` for :meth:`confirm`, as a new game does.
        """
        self._need(PLAY)
        if not confirm:
            self.pending = Pending("resign", "Resign this match? The computer wins and every piece is shown.")
            self.say(self.pending.question)
            return False
        self.pending = None
        self.resigned = True
        self.phase = OVER
        self._end_opponent(self.outcome)
        self.selected, self.targets, self.hinted = None, [], None
        self.say(f"Game over: {self.result_text()}. Every piece is revealed.")
        return True

    def hint(self) -> Hint:
        """What the computer would play in the human's place, thinking from the human's view only, and why."""
        if not self.human_to_move:
            raise ValueError("a hint is for your move: " + ("the match is not running" if self.phase != PLAY
                                                           else "wait for the computer's move"))
        from strategolab.players import make_player

        state = self.state
        assert state is not None
        adviser = make_player(self.level if self.level in LEVELS else "medium", self.seed + 1000 + state.ply)
        move = adviser.choose_move(state.view(self.human))
        why = getattr(adviser, "last_reasoning", None)
        reason = explain(why, "In your place the computer", "the computer's Flag") if why is not None else ""
        self.hinted = Hint(move, reason)
        self.selected, self.targets = None, []
        self.say(f"Hint: in your place the computer would play {move} (marked on the board); why is said below.")
        return self.hinted

    def captured(self) -> dict[int, list[str]]:
        """The pieces each side has lost, by type name in rank order (public: battles reveal both pieces)."""
        lost: dict[int, list[str]] = {RED: [], BLUE: []}
        for entry in self.log:
            b = entry.battle
            if b is None:
                continue
            if b.result != BattleResult.ATTACKER_WINS:
                lost[b.attacker.owner].append(b.attacker.type.name)
            if b.result != BattleResult.DEFENDER_WINS:
                lost[b.defender.owner].append(b.defender.type.name)
        order = {k.name: i for i, k in enumerate(self.ruleset.piece_types)}
        return {side: sorted(names, key=order.__getitem__) for side, names in lost.items()}

    def result_text(self) -> str:
        """The result in words from the human's side, ``""`` while the match runs."""
        outcome = self.outcome
        if outcome is None:
            return ""
        if outcome.termination == Termination.RESIGNATION and outcome.winner == self.computer:
            return "the computer wins: you resigned"
        who = "draw" if outcome.winner is None else "you win" if outcome.winner == self.human else "the computer wins"
        return f"{who} ({outcome.termination.value})"

    @property
    def warning(self) -> str:
        """The quiet-move warning when the draw is near (``""`` otherwise)."""
        state = self.state
        if self.phase != PLAY or state is None or not state.draw_warning():
            return ""
        left = state.quiet_moves_left
        return (f"Draw warning: {left} more {'move' if left == 1 else 'moves'} without an attack and the game "
                f"is drawn.")

    def status(self) -> str:
        """One line: the phase, whose turn, the result."""
        if self.phase == SETUP:
            return f"Deployment — {self.ruleset.name}, you play {PLAYER_NAMES[self.human]}, level {self.level}"
        if self.phase == OVER:
            return f"Game over: {self.result_text()}"
        turn = "your move" if self.human_to_move else "the computer is to move"
        assert self.state is not None
        return f"Move {self.state.ply // 2 + 1}: {turn} ({PLAYER_NAMES[self.state.turn]})"

    # -- what the board shows ------------------------------------------------------------------------------

    def movable(self) -> list[Square]:
        """The human's pieces that can move now (during the match, on the human's turn)."""
        if not self.human_to_move:
            return []
        assert self.state is not None
        return sorted({m.from_square for m in self.state.view(self.human).generate_legal_moves()})

    def beliefs(self) -> dict[Square, dict[str, float]]:
        """What the computer believes each of the human's hidden pieces is (from the computer's view only).

        Empty before the match, after it, or when the opponent has no beliefs (the random player).
        """
        state = self.state
        beliefs = getattr(self.opponent, "beliefs", None)
        if self.phase != PLAY or state is None or beliefs is None:
            return {}
        moves = tuple(state.move_stack)  # not just how many: a take-back and another move give as many
        if self._beliefs is None or self._beliefs[0] != moves:
            self._beliefs = (moves, beliefs(state.view(self.computer)))
        return self._beliefs[1]

    def cells(self) -> list[Cell]:
        """The board as the human sees it now, with selection, targets, last move and the beliefs overlay."""
        state = self.state
        last = state.move_stack[-1] if state is not None and state.move_stack else None
        return board_cells(self.view(), self.human, selected=self.selected, targets=self.targets,
                           movable=self.movable(), last_move=last,
                           battle=state.last_battle() if state is not None else None,
                           beliefs=self.beliefs() if self.show_beliefs and self.phase == PLAY else None,
                           hinted=self.hinted.move if self.hinted is not None else ())

    # -- new game, confirmations ------------------------------------------------------------------------------

    def new_game(self, *, confirm: bool = False, ruleset: str | Ruleset | None = None, level: str | None = None,
                 human: int | None = None, first: str | None = None) -> bool:
        """Go back to deployment for a new match, with any settings changed (the next seed, too).

        While a match is in progress this needs ``confirm=True``; without it the request waits in
        :attr:`pending` for :meth:`confirm`, and nothing changes.  Returns whether the new game started.
        """
        settings = {"ruleset": ruleset, "level": level, "human": human, "first": first}
        if self.in_progress and not confirm:
            self.pending = Pending("new game", "A match is in progress. Abandon it and start a new game?",
                                   settings=settings)
            self.say(self.pending.question)
            return False
        self.pending = None
        self._configure(get_ruleset(ruleset) if ruleset is not None else self.ruleset, level or self.level,
                        self.human if human is None else human, first or self.first, self.seed + 1)
        return True

    def confirm(self, yes: bool = True) -> bool:
        """Answer the pending question: ``yes`` carries the action out, otherwise nothing changes."""
        pending, self.pending = self.pending, None
        if pending is None:
            return False
        if not yes:
            self.say(f"Kept the current match ({pending.action} cancelled).")
            return False
        if pending.action == "new game":
            return self.new_game(confirm=True, **(pending.settings or {}))  # type: ignore[arg-type]
        if pending.action == "resign":
            return self.resign(confirm=True)
        return self.restore(pending.path or "", confirm=True)

    # -- records ----------------------------------------------------------------------------------------------

    def game(self) -> Game:
        """The match as a game record: players, result, and the headers a restore needs."""
        state = self.state
        if state is None:
            raise ValueError("the match has not begun: there is no game to record yet")
        name = getattr(self.opponent, "name", "computer")
        headers = {
            "Event": "strategolab: play against the computer",
            "Date": datetime.date.today().strftime("%Y.%m.%d"),
            PLAYER_NAMES[self.human]: "You",
            PLAYER_NAMES[self.computer]: str(name),
            "Level": self.level,
            "Human": PLAYER_NAMES[self.human],
            "Seed": str(self.seed),
        }
        outcome = self.outcome
        if outcome is not None:
            headers["Result"] = outcome.result()
            headers["Termination"] = outcome.termination.value
        game = Game.from_state(state, headers)
        for ply, moves in self.taken_back:  # each take-back stays in the record, as a variation
            node: GameNode = game
            for _ in range(ply - game.start.ply):
                node = node.variations[0]
            if node.has_variation(moves[0]):
                continue  # the same line was taken back before
            node.add_variation(moves[0], starting_comment=TAKEN_BACK).add_line(moves[1:])
        if self.forfeit is not None:
            game.end().comment = self.forfeit[1]
        return game

    def export(self) -> str:
        """The match in the kit's notation (for the replay notebook); while it is on, the computer's setup
        and the seed are sealed (see :meth:`save`)."""
        text = write_game(self.game())
        return self._seal(text) if self.phase == PLAY else text

    def _seal(self, text: str) -> str:
        """The record with the computer's setup and the seed out of plain view, in one ``[Sealed]`` header."""
        hidden = {}
        for name in (f"{PLAYER_NAMES[self.computer]}Setup", "Position", "Seed"):  # a lesson starts from a Position
            found = re.search(rf'^\[{name} "([^"]*)"\]\n', text, re.M)
            if found is not None:
                hidden[name] = found.group(1)
                text = text[:found.start()] + text[found.end():]
        blob = base64.b85encode(zlib.compress(json.dumps(hidden).encode())).decode()
        return re.sub(r"^(\[Ruleset [^\n]*\n)", lambda m: f'{m.group(1)}[{SEALED} "{blob}"]\n', text, count=1,
                      flags=re.M)

    @staticmethod
    def _unseal(text: str) -> str:
        """A sealed record made whole again (text without a ``[Sealed]`` header comes back as it is)."""
        found = re.search(rf'^\[{SEALED} "([^"]*)"\]\n', text, re.M)
        if found is None:
            return text
        try:
            hidden = json.loads(zlib.decompress(base64.b85decode(found.group(1))))
            lines = "".join(f'[{name} "{value}"]\n' for name, value in hidden.items()
                            if name.endswith("Setup") or name in ("Position", "Seed"))
        except (ValueError, zlib.error, AttributeError) as e:
            raise ValueError(f"the [{SEALED}] header is damaged ({e})") from None
        return text[:found.start()] + lines + text[found.end():]

    def save(self, path: str | Path) -> bool:
        """Write the match to ``path`` atomically; on failure say why and leave the match as it was.

        While the match is on, the computer's setup and the seed are sealed: in one ``[Sealed]`` header,
        not in plain text (a game rule, not security: the kernel holds everything).  :meth:`restore` reads
        the file back exactly.  Once the game is over the file is the complete record, both setups shown.
        """
        _check_path(path)
        if self.state is None:
            self.say("Nothing to save yet: begin the match first.", "error")
            return False
        try:
            with atomic_output(path) as f:
                f.write(self.export())
        except OSError as e:
            self.say(f"Could not save to {path}: {_os_problem(e, path)}. The match goes on.", "error")
            return False
        self.say(f"Saved the match to {path}.")
        return True

    def restore(self, path: str | Path, *, confirm: bool = False) -> bool:
        """Replace the match with the one saved at ``path`` (asks first while a match is in progress).

        A file that cannot be read or is not a match leaves the current match untouched; the message says
        what went wrong.
        """
        _check_path(path)
        if self.in_progress and not confirm:
            self.pending = Pending("restore", f"A match is in progress. Replace it with the match saved in "
                                              f"{path}?", path=str(path))
            self.say(self.pending.question)
            return False
        self.pending = None
        try:
            text = Path(path).read_text(encoding="utf-8")
            # A record as it is is read from its file, so that an error names the file, line and column.
            game = read_game(self._unseal(text)) if f'[{SEALED} "' in text else read_game(Path(path))
            side = game.headers.get("Human", "Red")
            if side not in PLAYER_NAMES:
                raise ValueError(f"[Human \"{side}\"]: expected Red or Blue")
            level = game.headers.get("Level", self.level)
            seed_text = game.headers.get("Seed", "0")
            if not (seed_text.isascii() and seed_text.removeprefix("-").isdigit()):
                raise ValueError(f"[Seed \"{seed_text}\"]: expected a whole number")
            seed = int(seed_text)
            if game.ruleset.name not in RULESETS:
                raise ValueError(f"rule set {game.ruleset.name!r} is not one the play notebook offers")
            state = game.end().state()
            human = PLAYER_NAMES.index(side)
            self._configure(game.ruleset, level, human, self.first, seed)
        except OSError as e:
            self.say(f"Could not restore {path}: {_os_problem(e, path)}. Nothing changed.", "error")
            return False
        except (ValueError, StrategolabError) as e:
            self.say(f"Could not restore {path}: {e}. Nothing changed.", "error")
            return False
        self.first = "you" if game.start.turn == human else "computer"
        self.state = state
        start = game.start
        self.log = [self._entry(start.ply + i, (start.turn + i) % 2, node.move, node.battle)  # type: ignore[arg-type]
                    for i, node in enumerate(game.mainline())]
        self.taken_back = [(node.ply(), [v.move, *v.mainline_moves()])  # type: ignore[list-item]
                           for node in (game, *game.mainline()) for v in node.variations[1:]
                           if v.starting_comment == TAKEN_BACK]
        self.resigned = game.headers.get("Termination") == Termination.RESIGNATION.value
        self.phase = OVER if self.outcome is not None else PLAY
        self.say(f"Restored the match from {path} ({len(self.log)} moves played"
                 + (f"; {self.result_text()}" if self.phase == OVER else "") + ").")
        return True


# -- replaying ------------------------------------------------------------------------------------------------


PERSPECTIVES: dict[str, int | None] = {"red": RED, "blue": BLUE, "all": None}
RESULT_WORDS = {"1-0": "Red wins", "0-1": "Blue wins", "1/2-1/2": "draw", "*": "no result"}
SORTS = ("file", "shortest", "longest", "player", "result")  # how the game browser can order the games


def reflow(text: str) -> str:
    """A comment as running text: the record's line breaks inside a paragraph become spaces, a blank line
    still separates paragraphs (records wrap long comments at a fixed width)."""
    paragraphs = (" ".join(part.split()) for part in text.replace("\r\n", "\n").split("\n\n"))
    return "\n\n".join(p for p in paragraphs if p)


@dataclass(frozen=True)
class MoveEntry:
    """One move of the line being replayed, as the move list shows it."""

    index: int  # position in the line (1 = the first move)
    text: str  # "2... E6xE5 X>5 ??"
    current: bool
    comment: str
    alternatives: int  # other moves that could have been played here (variations)


@dataclass(frozen=True)
class GameRow:
    """One game of the open file as the game browser lists it (read without replaying the game)."""

    index: int  # its number in the file (for :meth:`ReplayController.choose_game`)
    name: str  # the Gravon file name inside the zip, or the record's Event
    variant: str
    red: str
    blue: str
    result: str  # "1-0", "0-1", "1/2-1/2" or "*"
    ending: str  # why the game ended ("flag captured", "resigned" ...), "" when the record does not say
    moves: int

    @property
    def label(self) -> str:
        """One line for a list: name, players, variant, length, result and why the game ended."""
        players = f"{self.red or '?'} vs {self.blue or '?'}" if self.red or self.blue else "players unknown"
        ending = f" ({self.ending})" if self.ending else ""
        return f"{self.name} — {players}, {self.variant}, {self.moves} moves, {self.result}{ending}"


@dataclass(frozen=True)
class GameFilter:
    """Which games of a file to list and in what order; empty text and ``None`` mean "any"."""

    variant: str = ""
    result: str = ""
    ending: str = ""
    min_moves: int = 0
    max_moves: int | None = None
    player: str = ""  # part of either player's name, any case
    sort: str = "file"  # one of :data:`SORTS`

    def __post_init__(self) -> None:
        if self.sort not in SORTS:
            raise ValueError(f"sort={self.sort!r}: expected one of {', '.join(SORTS)}")
        for name in ("min_moves", "max_moves"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
                raise ValueError(f"{name}={value!r}: expected a number of moves (0 or more)")

    def apply(self, rows: Iterable[GameRow]) -> list[GameRow]:
        """The rows that pass, in the chosen order."""
        player = self.player.strip().casefold()
        top = self.max_moves if self.max_moves is not None else float("inf")
        out = [r for r in rows
               if (not self.variant or r.variant == self.variant) and (not self.result or r.result == self.result)
               and (not self.ending or r.ending == self.ending) and self.min_moves <= r.moves <= top
               and (not player or player in r.red.casefold() or player in r.blue.casefold())]
        keys: dict[str, Callable[[GameRow], object]] = {
            "file": lambda r: r.index, "shortest": lambda r: (r.moves, r.index),
            "longest": lambda r: (-r.moves, r.index), "player": lambda r: (r.red.casefold(), r.blue.casefold()),
            "result": lambda r: (r.result, r.ending, r.index)}
        return sorted(out, key=keys[self.sort])


class ReplayController(Messages):
    """Step through a recorded game from either side's view or with everything revealed, and annotate it.

    The line being replayed is the path from the start to the current node followed by that node's main
    continuation; :meth:`follow` switches to a variation.  The state at the current node is kept in step
    with one :class:`~strategolab.state.State` (``push``/``pop``), so stepping costs one move, not a replay.

    Nothing the user made is dropped: a comment being typed (:meth:`edit`) is kept before the position
    changes; opening another file while annotations are unsaved, or saving over a file that exists, waits in
    :attr:`pending` for :meth:`confirm`; saves go by default to :func:`~strategolab.files.user_folder` under a
    name no other file has, and keep every game of a file of the kit's notation.
    """

    def __init__(self, game: Game | None = None) -> None:
        if game is not None and not isinstance(game, Game):
            raise TypeError(f"ReplayController replays a Game (or use ReplayController.from_file), "
                            f"not {type(game).__name__}")
        self.source: Path | None = None
        self.kind = "game"  # "game" (given in memory), "notation" or "gravon"
        self.games: list[Game] = []
        self._gravon: list[GravonGame] = []
        self._converted: dict[int, Game] = {}
        self._catalog: list[GameRow] | None = None
        self.game_index = 0
        self.line: list[GameNode] = []  # the line being replayed: the game (start), then its moves
        self.index = 0
        self.revision = 0  # counts changes of the line or its annotations (a front end redraws the move list)
        self.perspective: int | None = None
        self.pending: Pending | None = None
        self._unsaved: set[int] = set()  # games of the open file with annotations not saved yet
        self._saved_to: dict[int, Path] = {}  # where a game (or, key -1, the whole notation file) was saved
        self._draft: tuple[GameNode, str, str] | None = None  # a comment and mark typed but not kept yet
        if game is not None:
            self.games = [game]
            self._start(game)

    @property
    def dirty(self) -> bool:
        """Whether some annotation (kept, or still being typed) is not saved in a file yet."""
        return bool(self._unsaved) or self.has_draft

    # -- opening ----------------------------------------------------------------------------------------------

    @classmethod
    def from_file(cls, path: str | Path, index: int = 0) -> ReplayController:
        """A controller on game ``index`` of a record in the kit's notation or a Gravon file/zip."""
        c = cls()
        if not c.open(path, index):
            raise StrategolabError(c.message)
        return c

    def open(self, path: str | Path, index: int = 0, *, confirm: bool = False) -> bool:
        """Open a record (``.xml``/``.zip``: Gravon; anything else: the kit's notation) at game ``index``.

        While annotations are unsaved this needs ``confirm=True`` (else it waits in :attr:`pending`).  A file
        that cannot be read leaves the current game open; the message says why.
        """
        _check_path(path)
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"index is a game number (0 for the first), not {index!r}")
        self._keep_draft()
        if self._unsaved and not confirm:
            games = len(self._unsaved)
            self.pending = Pending("open", f"The annotations of {games} {'game' if games == 1 else 'games'} "
                                           f"here are not saved. Open {Path(path).name} and drop them?",
                                   path=str(path), settings={"index": index})
            self.say(self.pending.question)
            return False
        self.pending = None
        p = Path(path)
        try:
            if p.suffix.lower() in (".zip", ".xml"):
                gravon = list(read_gravon(p, types=REPLAYABLE, errors="skip"))
                if not gravon:
                    raise StrategolabError(f"{p}: no classic or barrage game that can be replayed")
                games: list[Game] = []
            else:
                with read_games(p, rulesets=GRAVON_RULESETS.values()) as reader:
                    games = list(reader)
                gravon = []
                if not games:
                    raise StrategolabError(f"{p}: no game in this file")
            if not 0 <= index < len(games or gravon):
                raise StrategolabError(f"{p} has {len(games or gravon)} games; there is no game {index}")
        except (OSError, StrategolabError, ValueError) as e:
            self.say(f"Could not open {p}: {e}", "error")
            return False
        self.source = p
        self.kind = "gravon" if gravon else "notation"
        self.games, self._gravon, self._converted, self._catalog = games, gravon, {}, None
        self._unsaved, self._saved_to = set(), {}
        self.choose_game(index)
        return True

    def catalog(self) -> list[GameRow]:
        """Every game of the open file (or the one game given), for the game browser; read once per file."""
        if self._catalog is None:
            if self._gravon:
                self._catalog = [
                    GameRow(i, g.source.rpartition(":")[2], g.game_type, g.players[0], g.players[1],
                            "*" if g.result_type is None else {RED: "1-0", BLUE: "0-1", None: "1/2-1/2"}[g.winner],
                            g.result_text, len(g.moves)) for i, g in enumerate(self._gravon)]
            else:
                self._catalog = [
                    GameRow(i, g.headers.get("Event") or (self.source.name if self.source else "game"),
                            g.ruleset.name, _player(g, "Red"), _player(g, "Blue"), g.result,
                            g.headers.get("Termination", ""), len(g.mainline())) for i, g in enumerate(self.games)]
        return self._catalog

    def find_games(self, **criteria: object) -> list[GameRow]:
        """The games of the open file that fit the criteria of :class:`GameFilter`, in its order."""
        return GameFilter(**criteria).apply(self.catalog())  # type: ignore[arg-type]

    def game_labels(self) -> list[str]:
        """One line per game in the open file, to pick one."""
        return [row.label for row in self.catalog()]

    def choose_game(self, index: int) -> None:
        """Replay game ``index`` of the open file (annotations of the others stay, to be saved)."""
        count = len(self._gravon or self.games)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise ValueError(f"there is no game {index!r}: the open file has {count} "
                             + (f"(0 to {count - 1})" if count else "(open a record first)"))
        self._keep_draft()
        if self._gravon:
            if index not in self._converted:
                self._converted[index] = gravon_game(self._gravon[index])
            game = self._converted[index]
        else:
            game = self.games[index]
        self.game_index = index
        self._start(game)
        self.say(f"Opened {self.title()}" + (f" from {self.source}" if self.source else "") + ".")

    def _start(self, game: Game) -> None:
        self.game = game
        self._state = game.start
        self._first_ply = self._state.ply  # plies before the record's first move (a lesson position)
        self.line = [game, *game.mainline()]
        self.index = 0
        self.revision += 1

    def confirm(self, yes: bool = True) -> bool:
        """Answer the pending question: ``yes`` carries the open or the save out, otherwise nothing changes."""
        pending, self.pending = self.pending, None
        if pending is None:
            return False
        if not yes:
            self.say(f"Nothing changed ({pending.action} cancelled).")
            return False
        if pending.action == "open":
            return self.open(pending.path or "", int((pending.settings or {}).get("index", 0)),  # type: ignore[call-overload]
                             confirm=True)
        return self.save(pending.path, confirm=True)

    # -- moving through the line ---------------------------------------------------------------------------------

    def _need_game(self) -> None:
        if not self.line:
            raise ValueError("no game is open: open a record first (open(path) or ReplayController(game))")

    @property
    def node(self) -> GameNode:
        """The record's node at the current position (the game itself at the start)."""
        self._need_game()
        return self.line[self.index]

    @property
    def length(self) -> int:
        """Moves in the current line."""
        return len(self.line) - 1

    def goto(self, index: int) -> None:
        """Go to position ``index`` of the line (0: the start; clamped to the line); a comment being typed is
        kept first."""
        self._need_game()
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"a position in the line is a whole number (0: the start), not {index!r}")
        index = max(0, min(index, self.length))
        if index != self.index:
            self._keep_draft()
        state = self._state
        while self.index > index:
            state.pop()
            self.index -= 1
        while self.index < index:
            self.index += 1
            node = self.line[self.index]
            state.push(node.move)  # type: ignore[arg-type]
            if node.rescue is not None:  # Ultimate Lightning: the piece this move brought back
                state.add_rescue(node.rescue)

    def first(self) -> None:
        """To the start position."""
        self.goto(0)

    def prev(self) -> None:
        """One move back."""
        self.goto(self.index - 1)

    def next(self) -> None:
        """One move forward."""
        self.goto(self.index + 1)

    def last(self) -> None:
        """To the end of the line."""
        self.goto(self.length)

    def choices(self) -> list[str]:
        """The moves that could follow the current position, main continuation first (variations if > 1)."""
        self._need_game()
        rs = self.game.ruleset
        return [self._move_text(child, self._first_ply + self.index, rs) for child in self.node.variations]

    def follow(self, k: int) -> None:
        """Play the ``k``-th continuation (0: the main one) and make its line the one being replayed."""
        n = len(self.node.variations)
        if isinstance(k, bool) or not isinstance(k, int) or not 0 <= k < n:
            raise ValueError(f"there is no continuation {k!r} here: " + (f"choose 0 to {n - 1}" if n else
                                                                         "this is the end of the line"))
        self._keep_draft()
        child = self.node.variations[k]
        self.line = [*self.line[:self.index + 1], child, *child.mainline()]
        self.revision += 1
        self.goto(self.index + 1)

    def main_line(self) -> None:
        """Back to the game's main line, at the last position the current line shares with it."""
        self._need_game()
        keep = 0
        for i, node in enumerate(self.line):
            if not node.is_mainline():
                break
            keep = i
        self.goto(min(self.index, keep))
        self.line = [self.game, *self.game.mainline()]
        self.revision += 1

    # -- what is shown ----------------------------------------------------------------------------------------

    def set_perspective(self, who: str | int | None) -> None:
        """``"red"``, ``"blue"`` or ``"all"`` (or ``RED``, ``BLUE``, ``None``)."""
        if isinstance(who, str):
            if who.lower() not in PERSPECTIVES:
                raise ValueError(f"perspective {who!r}: expected red, blue or all")
            who = PERSPECTIVES[who.lower()]
        if who not in (RED, BLUE, None):
            raise ValueError(f"perspective {who!r}: expected RED, BLUE or None")
        self.perspective = who

    def position(self) -> Position:
        """What the chosen side knew at the current node (its view), or a copy of the full state for ``"all"``."""
        self._need_game()
        return self._state.copy() if self.perspective is None else self._state.view(self.perspective)

    def cells(self) -> list[Cell]:
        """The board at the current node from the chosen perspective, the last move marked."""
        node = self.node
        pos = self._state if self.perspective is None else self._state.view(self.perspective)
        return board_cells(pos, self.perspective, last_move=node.move, battle=node.battle)

    def _move_text(self, node: GameNode, ply: int, rs: Ruleset) -> str:
        assert node.move is not None
        text = f"{move_number(ply)} {node.move}"
        if node.battle is not None:
            text = f"{text.replace('-', 'x')} {battle_text(node.battle, rs)}"
        marks = " ".join(MARK_SYMBOLS.get(m, f"${m}") for m in sorted(node.marks))
        return f"{text} {marks}" if marks else text

    def moves(self) -> list[MoveEntry]:
        """The moves of the current line, the current one marked."""
        self._need_game()
        rs = self.game.ruleset
        return [MoveEntry(i, self._move_text(node, self._first_ply + i - 1, rs), i == self.index, node.comment,
                          len(node.parent.variations) - 1 if node.parent is not None else 0)
                for i, node in enumerate(self.line[1:], 1)]

    def title(self) -> str:
        """The game's name: its players, else its Event, else the file's name."""
        self._need_game()
        red, blue = _player(self.game, "Red"), _player(self.game, "Blue")
        if red or blue:
            return f"{red or 'unknown'} (Red) vs {blue or 'unknown'} (Blue)"
        if self.game.headers.get("Event"):
            return self.game.headers["Event"]
        return self.source.name if self.source is not None else "A game"

    def ending(self) -> str:
        """How the line being replayed ends: the engine's verdict on its last position, else (main line) the
        result the record gives and why, else that the record stops without one."""
        self._need_game()
        end = self.line[-1]
        outcome = end.state().outcome() if end is not self.node else self._state.outcome()
        if outcome is not None:
            return f"Game over: {outcome}."
        if not end.is_mainline() or self.game.result == "*":
            return "The record ends here, without a result."
        why = self.game.headers.get("Termination")
        return f"Game over: {RESULT_WORDS[self.game.result]}" + (f" ({why})." if why else ".")

    def describe(self) -> str:
        """The current position in words: move number, the move, its battle, and at the end how it ended."""
        node = self.node
        if node.move is None:
            return f"Start position — {self.length} moves in this line"
        rs = self.game.ruleset
        text = f"Move {self.index} of {self.length}: {self._move_text(node, self._first_ply + self.index - 1, rs)}"
        if node.battle is not None:
            text += f" — {describe_battle(node.battle, rs)}"
        if self.index == self.length:
            text += f". {self.ending()}"
        return text

    def notes(self) -> str:
        """What the record says before the current move (a variation's opening words), with the move it
        leads to, so that such a comment never reads as a sentence with a word missing; ``""`` if nothing."""
        node = self.node
        if not node.starting_comment or node.move is None:
            return ""
        move = self._move_text(node, self._first_ply + self.index - 1, self.game.ruleset)
        return f"{reflow(node.starting_comment)} {move}"

    def headers(self) -> dict[str, str]:
        """The record's headers, the rule set first."""
        self._need_game()
        out = {"Ruleset": self.game.ruleset.name}
        out.update(self.game.headers)
        return out

    # -- annotating -----------------------------------------------------------------------------------------------

    def annotate(self, comment: str | None = None, mark: str | int | None = None) -> None:
        """Set the comment and the mark of the current move (``mark=""`` clears it; ``None`` leaves either).

        At the start position the comment is the game's comment; a mark needs a move.
        """
        node = self.node
        if mark is not None and node.move is None and mark != "":
            raise ValueError("a mark judges a move: step to a move first")
        self._draft = None
        if comment is not None:
            node.comment = comment
        if mark is not None and node.move is not None:
            node.marks = () if mark == "" else (to_mark(mark),)
        self._unsaved.add(self.game_index)
        self.revision += 1
        self.say("Annotation kept (save to write it to a file).")

    def edit(self, comment: str | None = None, mark: str | None = None) -> None:
        """What the user is typing for the current move, not kept yet (``None`` leaves either as it is).

        It is kept (as :meth:`annotate` would) before the position changes or the record is saved, so a
        comment typed and not kept by hand is never thrown away.
        """
        node = self.node
        if self._draft is not None and self._draft[0] is node:
            _, old_comment, old_mark = self._draft
        else:
            old_comment, old_mark = reflow(node.comment), self.mark()
        self._draft = (node, old_comment if comment is None else comment, old_mark if mark is None else mark)

    @property
    def has_draft(self) -> bool:
        """Whether a comment or mark is being typed that differs from what the current move has."""
        if self._draft is None:
            return False
        node, comment, mark = self._draft
        return reflow(comment) != reflow(node.comment) or (node.move is not None and mark != _mark_text(node))

    def _keep_draft(self) -> None:
        """Keep the comment being typed (if it changes anything) on its move."""
        if not self.has_draft:
            self._draft = None
            return
        node, comment, mark = self._draft  # type: ignore[misc]
        assert node is self.node  # every change of position keeps the draft first
        self.annotate(comment, mark if node.move is not None else None)
        where = f"move {self.index}" if node.move is not None else "the start"
        self.say(f"Kept your annotation of {where} (not saved to a file yet).")

    def mark(self) -> str:
        """The current move's first mark as text (``"!"``, ``"$14"``), ``""`` for none."""
        return _mark_text(self.node)

    # -- saving -----------------------------------------------------------------------------------------------

    def _save_key(self) -> int:
        return -1 if self.kind == "notation" else self.game_index

    def default_save_path(self) -> Path:
        """Where :meth:`save` writes without a path: where this game was saved before, else a file in
        :func:`~strategolab.files.user_folder` named after the record (the open file itself when it is there)
        under a name no other file has yet, so a default save never replaces anything."""
        saved = self._saved_to.get(self._save_key())
        if saved is not None:
            return saved
        folder = user_folder()
        if self.kind == "notation" and self.source is not None:
            if same_file(self.source.parent, folder):
                return self.source
            stem = self.source.stem
        elif self.kind == "gravon":
            stem = Path(self._gravon[self.game_index].source.rpartition(":")[2].rpartition("/")[2]).stem
        else:
            stem = re.sub(r"[^a-z0-9]+", "-", self.game.headers.get("Event", "").lower()).strip("-")[:60]
        stem = stem or "annotated"
        target, n = folder / f"{stem}{SAVE_SUFFIX}", 1
        while os.path.lexists(target):
            n += 1
            target = folder / f"{stem}-{n}{SAVE_SUFFIX}"
        return target

    def save(self, path: str | Path | None = None, *, confirm: bool = False) -> bool:
        """Write the annotated record atomically: every game of a file in the kit's notation (none is lost),
        else the game being replayed.

        Replacing a file that exists needs ``confirm=True`` (else the question waits in :attr:`pending`),
        unless it is where this record was saved before.  Links are written through.
        """
        self._need_game()
        if path is not None:
            _check_path(path)
        self._keep_draft()
        key = self._save_key()
        target = Path(path) if path else self.default_save_path()
        games = self.games if self.kind == "notation" else [self.game]
        count = f"{len(games)} {'game' if len(games) == 1 else 'games'}"
        before = self._saved_to.get(key)
        if os.path.lexists(target) and not confirm and not (before is not None and same_file(before, target)):
            self.pending = Pending("save", f"{target} already exists. Replace it with this record ({count})?",
                                   path=str(target))
            self.say(self.pending.question)
            return False
        self.pending = None
        try:
            if path is None:
                target.parent.mkdir(parents=True, exist_ok=True)
            write_games(games, target)
        except (OSError, ValueError) as e:
            problem = _os_problem(e, target) if isinstance(e, OSError) else str(e)
            self.say(f"Could not save to {target}: {problem}. The annotations are still here.", "error")
            return False
        self._saved_to[key] = target
        if self.kind == "notation":
            self._unsaved.clear()
        else:
            self._unsaved.discard(self.game_index)
        self.say(f"Saved {count} to {target}.")
        return True


def _player(game: Game, side: str) -> str:
    """A player's name from the headers, ``""`` when the record does not know it (missing or ``?``)."""
    name = game.headers.get(side, "").strip()
    return "" if name in ("", "?") else name


def _mark_text(node: GameNode) -> str:
    marks = sorted(node.marks)
    return MARK_SYMBOLS.get(marks[0], f"${marks[0]}") if marks else ""


def _os_problem(e: OSError, path: str | Path) -> str:
    """What went wrong with a file, in words that name the user's file and never a temporary one."""
    folder = Path(path).parent
    if e.errno == errno.ENOENT and not folder.is_dir():
        return f"there is no folder {folder}"
    if e.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if e.strerror:  # str(e) would name the file, perhaps the temporary one beside the target
        return e.strerror
    return str(e) if e.filename is None and str(e) else type(e).__name__


def _check_path(path: object) -> None:
    if not isinstance(path, str | Path):
        raise TypeError(f"a file is given by its path (str or pathlib.Path), not {type(path).__name__} {path!r}")


def gravon_game(g: GravonGame) -> Game:
    """A Gravon game as a game record, checked by the engine under the rules Gravon played.

    Moves up to the first one the engine refuses are kept (a comment says where and why the record stops);
    the result is written only when the final position agrees with it.
    """
    rs = GRAVON_RULESETS[g.game_type]
    checked = replay(g, rs)
    moves = [Move(f, t) for f, t in g.moves]
    member = g.source.rpartition(":")[2]
    headers = {"Event": f"Gravon {member}", "Site": "gravon.de"}
    headers.update((side, name) for side, name in zip(PLAYER_NAMES, g.players, strict=True) if name)
    game = Game(initial_state(g, rs), headers)
    if checked.illegal is not None:
        n, move, reason = checked.illegal
        game.add_line(moves[:n - 1])
        game.comment = f"The record stops before move {n}, {move}, which the engine refuses: {reason}."
        return game
    game.add_line(moves)
    outcome = checked.state.outcome()
    if checked.result_problem is not None:
        game.comment = f"The recorded result does not fit the final position: {checked.result_problem}."
    elif outcome is not None:
        game.result = outcome.result()
        game.headers["Termination"] = outcome.termination.value
    elif g.result_type is not None and (g.winner is not None or g.result_type in (2, 4)):
        game.result = {RED: "1-0", BLUE: "0-1", None: "1/2-1/2"}[g.winner]
        game.headers["Termination"] = g.result_text
    return game


def record_files(folder: str | Path) -> list[Path]:
    """Game records in a folder (the kit's notation, Gravon files and zips), by name."""
    p = Path(folder)
    if not p.is_dir():
        return []
    return sorted(f for f in p.iterdir() if f.is_file() and f.suffix.lower() in (SAVE_SUFFIX, ".zip", ".xml"))


def record_choices(folders: Mapping[str, str | Path]) -> list[tuple[str, str]]:
    """(label, path) for every record in the named folders (``{"shipped": data/games, "yours": ...}``), so a
    front end lists them all without the user typing a path; folders that are absent are left out."""
    return [(f"{label}: {f.name}", str(f)) for label, folder in folders.items() for f in record_files(folder)]


__all__ = [
    "CANCELLED", "FIRST", "IGNORED", "LEVELS", "MOVED", "OVER", "PERSPECTIVES", "PLAY", "PLAY_RULESETS",
    "REFUSED", "RESULT_WORDS", "SELECTED", "SETUP", "SORTS", "SWAPPED", "SWITCHED", "Cell", "GameFilter", "GameRow",
    "Hint", "LogEntry", "Messages", "MoveEntry", "Pending", "PlayController", "PlayerFactory", "ReplayController",
    "board_cells", "describe_battle", "explain", "gravon_game", "move_number", "piece_icon", "record_choices",
    "record_files", "reflow",
]
