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

import datetime
import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from strategolab.archive import GRAVON_RULESETS, REPLAYABLE, initial_state, replay
from strategolab.board import STRIDE, Square, geometry, square_name
from strategolab.errors import StrategolabError
from strategolab.gravon import GravonGame, read_gravon
from strategolab.notation import battle_text, read_game, read_games, write_game, write_games
from strategolab.records import MARK_SYMBOLS, Game, GameNode, to_mark
from strategolab.rules import BLUE, PLAYER_NAMES, RED, RULESETS, BattleResult, Ruleset, get_ruleset
from strategolab.setups import Setup
from strategolab.state import Battle, Move, Outcome, Piece, Position, State, _square_number

if TYPE_CHECKING:
    from strategolab.players import Player

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

    @property
    def text(self) -> str:
        """The button text: the rank label, and the computer's guess on a second line."""
        return f"{self.label}\n{self.belief}" if self.belief else self.label


def board_cells(pos: Position, viewer: int | None, *, selected: Square | None = None,
                targets: Iterable[Square] = (), movable: Iterable[Square] = (), last_move: Move | None = None,
                battle: Battle | None = None, beliefs: Mapping[Square, Mapping[str, float]] | None = None
                ) -> list[Cell]:
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
                belief_level=level, hint=hint))
    return out


def _belief(probs: Mapping[str, float] | None, piece: Piece, rs: Ruleset, revealed: bool) -> tuple[str, int, str]:
    """The overlay of one of the human's pieces: top guess text, how near the truth, and a sentence."""
    if probs is None:
        return ("known", 3, f"it knows this is a {piece.type.name}") if revealed else ("", 0, "nothing")
    top, p = max(probs.items(), key=lambda kv: kv[1])
    truth = probs.get(piece.type.name, 0.0)
    level = 3 if truth >= 0.5 else 2 if truth >= 0.2 else 1
    ranked = sorted(probs.items(), key=lambda kv: -kv[1])[:3]
    words = ", ".join(f"{name} {q:.0%}" for name, q in ranked)
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

    action: str  # "new game" or "restore"
    question: str
    path: str | None = None
    settings: Mapping[str, object] | None = None


class PlayController(Messages):
    """A match against the computer, driven by clicks on squares and a few buttons.

    The human plays ``human`` (Red by default, the bottom of the board); ``first`` says who moves first
    (``"you"`` or ``"computer"``); ``level`` is the computer's level (:data:`LEVELS`, or ``"random"``).
    The same ``seed`` gives the same deployment, computer setup and computer moves.
    """

    def __init__(self, ruleset: str | Ruleset = "classic", level: str = "easy", *, human: int = RED,
                 first: str = "you", seed: int = 0) -> None:
        self.show_beliefs = False
        self.pending: Pending | None = None
        self._configure(get_ruleset(ruleset), level, human, first, seed)

    # -- settings and deployment -----------------------------------------------------------------------

    def _configure(self, ruleset: Ruleset, level: str, human: int, first: str, seed: int) -> None:
        from strategolab.players import make_player

        if human not in (RED, BLUE):
            raise ValueError(f"human must be RED (0) or BLUE (1), not {human!r}")
        if first not in FIRST:
            raise ValueError(f"first={first!r}: expected 'you' or 'computer'")
        self.opponent: Player = make_player(level, seed)
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
        self._beliefs: tuple[int, dict[Square, dict[str, float]]] | None = None
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
        self.say(f"Ready-made setup {name!r}: {describe(name, self.ruleset)}.")

    def shuffle(self) -> None:
        """Deploy the pieces afresh, at random but the way real players do (no Flag in the front row)."""
        self._need(SETUP)
        self.setup = self._fresh_setup()
        self.selected = None
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
        theirs = self.opponent.choose_setup(self.ruleset, random.Random(f"strategolab-play/{self.seed}/computer"))
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
        """How the match ended (``None`` before the end)."""
        return self.state.outcome() if self.state is not None else None

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
            self.say(f"The {piece.type.name} on {square_name(sq)} cannot move now"
                     + (f": {reason}" if reason else "") + ".", "refused")
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
            self.say(f"Game over: {self.result_text()}. Every piece is revealed.")
        else:
            self.say(f"{entry.text}. " + ("The computer is thinking…" if player == self.human else "Your move."))
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
        state = self.state
        assert state is not None
        move = self.opponent.choose_move(state.view(self.computer))
        reason = state.illegal_reason(move)
        if reason:
            raise StrategolabError(f"the computer proposed an illegal move {move}: {reason}")
        return self._play(move)

    def reasoning(self) -> str:
        """Why the computer played its last move, in words: its best candidates with their scores, what it
        thinks the pieces it could attack are, where it looks for your Flag (``""`` when it cannot say)."""
        why = getattr(self.opponent, "last_reasoning", None)
        return "" if why is None or self.state is None else str(why)

    def result_text(self) -> str:
        """The result in words from the human's side, ``""`` while the match runs."""
        outcome = self.outcome
        if outcome is None:
            return ""
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
        if self._beliefs is None or self._beliefs[0] != len(state.move_stack):
            self._beliefs = (len(state.move_stack), beliefs(state.view(self.computer)))
        return self._beliefs[1]

    def cells(self) -> list[Cell]:
        """The board as the human sees it now, with selection, targets, last move and the beliefs overlay."""
        state = self.state
        last = state.move_stack[-1] if state is not None and state.move_stack else None
        return board_cells(self.view(), self.human, selected=self.selected, targets=self.targets,
                           movable=self.movable(), last_move=last,
                           battle=state.last_battle() if state is not None else None,
                           beliefs=self.beliefs() if self.show_beliefs and self.phase == PLAY else None)

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
        outcome = state.outcome()
        if outcome is not None:
            headers["Result"] = outcome.result()
            headers["Termination"] = outcome.termination.value
        return Game.from_state(state, headers)

    def export(self) -> str:
        """The match in the kit's notation (for the replay notebook)."""
        return write_game(self.game())

    def save(self, path: str | Path) -> bool:
        """Write the match to ``path`` atomically; on failure say why and leave the match as it was."""
        _check_path(path)
        if self.state is None:
            self.say("Nothing to save yet: begin the match first.", "error")
            return False
        try:
            write_games([self.game()], path)
        except (OSError, ValueError) as e:
            self.say(f"Could not save to {path}: {e}. The match goes on.", "error")
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
            game = read_game(Path(path))
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
        except (OSError, ValueError, StrategolabError) as e:
            self.say(f"Could not restore {path}: {e}. Nothing changed.", "error")
            return False
        self.first = "you" if game.start.turn == human else "computer"
        self.state = state
        start = game.start
        self.log = [self._entry(start.ply + i, (start.turn + i) % 2, node.move, node.battle)  # type: ignore[arg-type]
                    for i, node in enumerate(game.mainline())]
        self.phase = OVER if state.outcome() is not None else PLAY
        self.say(f"Restored the match from {path} ({len(self.log)} moves played"
                 + (f"; {self.result_text()}" if self.phase == OVER else "") + ").")
        return True


# -- replaying ------------------------------------------------------------------------------------------------


PERSPECTIVES: dict[str, int | None] = {"red": RED, "blue": BLUE, "all": None}


@dataclass(frozen=True)
class MoveEntry:
    """One move of the line being replayed, as the move list shows it."""

    index: int  # position in the line (1 = the first move)
    text: str  # "2... E6xE5 X>5 ??"
    current: bool
    comment: str
    alternatives: int  # other moves that could have been played here (variations)


class ReplayController(Messages):
    """Step through a recorded game from either side's view or with everything revealed, and annotate it.

    The line being replayed is the path from the start to the current node followed by that node's main
    continuation; :meth:`follow` switches to a variation.  The state at the current node is kept in step
    with one :class:`~strategolab.state.State` (``push``/``pop``), so stepping costs one move, not a replay.
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
        self.game_index = 0
        self.line: list[GameNode] = []  # the line being replayed: the game (start), then its moves
        self.index = 0
        self.revision = 0  # counts changes of the line or its annotations (a front end redraws the move list)
        self.perspective: int | None = None
        self.dirty = False
        if game is not None:
            self.games = [game]
            self._start(game)

    # -- opening ----------------------------------------------------------------------------------------------

    @classmethod
    def from_file(cls, path: str | Path, index: int = 0) -> ReplayController:
        """A controller on game ``index`` of a record in the kit's notation or a Gravon file/zip."""
        c = cls()
        if not c.open(path, index):
            raise StrategolabError(c.message)
        return c

    def open(self, path: str | Path, index: int = 0) -> bool:
        """Open a record (``.xml``/``.zip``: Gravon; anything else: the kit's notation) at game ``index``.

        A file that cannot be read leaves the current game open; the message says why.
        """
        _check_path(path)
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"index is a game number (0 for the first), not {index!r}")
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
        self.games, self._gravon, self._converted = games, gravon, {}
        self.dirty = False
        self.choose_game(index)
        return True

    def game_labels(self) -> list[str]:
        """One line per game in the open file, to pick one."""
        if self._gravon:
            return [f"{g.source.rpartition(':')[2]} — {g.players[0]} vs {g.players[1]}, {len(g.moves)} moves"
                    for g in self._gravon]
        return [f"{i + 1}. {g.headers.get('Red', '?')} vs {g.headers.get('Blue', '?')} "
                f"({g.ruleset.name}, {len(g.mainline())} moves, {g.result})" for i, g in enumerate(self.games)]

    def choose_game(self, index: int) -> None:
        """Replay game ``index`` of the open file."""
        count = len(self._gravon or self.games)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < count:
            raise ValueError(f"there is no game {index!r}: the open file has {count} "
                             + (f"(0 to {count - 1})" if count else "(open a record first)"))
        if self._gravon:
            if index not in self._converted:
                self._converted[index] = gravon_game(self._gravon[index])
            game = self._converted[index]
        else:
            game = self.games[index]
        self.game_index = index
        self._start(game)
        self.say(f"Opened {self.game_labels()[index]}" + (f" from {self.source}" if self.source else "") + ".")

    def _start(self, game: Game) -> None:
        self.game = game
        self._state = game.start
        self._first_ply = self._state.ply  # plies before the record's first move (a lesson position)
        self.line = [game, *game.mainline()]
        self.index = 0
        self.revision += 1

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
        """Go to position ``index`` of the line (0: the start; clamped to the line)."""
        self._need_game()
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"a position in the line is a whole number (0: the start), not {index!r}")
        index = max(0, min(index, self.length))
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

    def describe(self) -> str:
        """The current position in words: move number, the move, its battle."""
        node = self.node
        if node.move is None:
            return f"Start position — {self.length} moves in this line"
        rs = self.game.ruleset
        text = f"Move {self.index} of {self.length}: {self._move_text(node, self._first_ply + self.index - 1, rs)}"
        if node.battle is not None:
            text += f" — {describe_battle(node.battle, rs)}"
        outcome = self._state.outcome()
        if self.index == self.length and outcome is not None:
            text += f". {outcome}"
        return text

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
        if comment is not None:
            node.comment = comment
        if mark is not None and node.move is not None:
            node.marks = () if mark == "" else (to_mark(mark),)
        self.dirty = True
        self.revision += 1
        self.say("Annotation kept (save to write it to a file).")

    def mark(self) -> str:
        """The current move's first mark as text (``"!"``, ``"$14"``), ``""`` for none."""
        marks = sorted(self.node.marks)
        return MARK_SYMBOLS.get(marks[0], f"${marks[0]}") if marks else ""

    def default_save_path(self) -> Path:
        """Where :meth:`save` writes without a path: the record itself, or (a Gravon game, a game given in
        memory) a new record in the working folder."""
        if self.kind == "notation" and self.source is not None:
            return self.source
        if self.source is not None:
            member = self._gravon[self.game_index].source.rpartition(":")[2].rpartition("/")[2]
            return Path.cwd() / (Path(member).stem + SAVE_SUFFIX)
        return Path.cwd() / f"annotated{SAVE_SUFFIX}"

    def save(self, path: str | Path | None = None) -> bool:
        """Write the annotated record atomically (every game of a notation file, so none is lost)."""
        self._need_game()
        if path is not None:
            _check_path(path)
        target = Path(path) if path else self.default_save_path()
        games = self.games if self.kind == "notation" and target == self.source else [self.game]
        try:
            write_games(games, target)
        except (OSError, ValueError) as e:
            self.say(f"Could not save to {target}: {e}. The annotations are still here.", "error")
            return False
        self.dirty = False
        self.say(f"Saved {len(games)} {'game' if len(games) == 1 else 'games'} to {target}.")
        return True


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
    headers = {"Event": f"Gravon {member}", "Site": "gravon.de", "Red": g.players[0] or "?",
               "Blue": g.players[1] or "?"}
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


__all__ = [
    "CANCELLED", "FIRST", "IGNORED", "LEVELS", "MOVED", "OVER", "PERSPECTIVES", "PLAY", "PLAY_RULESETS",
    "REFUSED", "SELECTED", "SETUP", "SWAPPED", "SWITCHED", "Cell", "LogEntry", "Messages", "MoveEntry", "Pending",
    "PlayController", "ReplayController", "board_cells", "describe_battle", "gravon_game", "move_number",
    "record_files",
]
