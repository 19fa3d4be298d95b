"""The UCC 2012 Stratego competition protocol, both ways: its lines as kit values, and a kit player as a bot.

The protocol is the one Sam Moore's manager defines (``manager_manual.txt`` in braathwaate/strategoevaluator):
a bot reads ``RED|BLUE <opponent> 10 10`` and answers four setup rows; then on each turn it reads the
opponent's move with its outcome (``START`` on Red's first turn) and ten board rows, answers
``X Y DIRECTION [MULTIPLIER]``, and reads its own move back with the outcome (``OK``, ``KILLS a d``,
``DIES a d``, ``BOTHDIE a d``, ``VICTORY_FLAG``...); ``QUIT [result]`` ends it.  ``x`` runs 0-9 left to right
(columns A-J), ``y`` 0-9 from the top, which is Red's back row: ``y`` is the kit's row number minus one, and
``UP`` goes towards Red.  Ranks are written the old way (``1`` Marshal ... ``9`` Scout, ``s`` Spy, ``B``, ``F``).

:class:`UccBot` is the reverse of :mod:`strategolab.engines`: it serves any kit player to a manager
(``strategolab ucc-bot --level hard``), keeping the game it is told, move by move, in a state whose enemy
pieces carry only what the protocol revealed, so its player's view is exactly the view the kit would give.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from time import perf_counter as _clock
from typing import NamedTuple, TextIO

from strategolab.board import STRIDE, Square, square, square_name
from strategolab.errors import StrategolabError
from strategolab.players import Player, call_hook
from strategolab.rules import CLASSIC, RED, UCC, BattleResult, PieceType, Ruleset
from strategolab.setups import Setup
from strategolab.state import KIND, Battle, Move, Position, State
from strategolab.views import View

WIDTH = HEIGHT = 10
COLOURS = ("RED", "BLUE")
ENEMY, EMPTY, OBSTACLE = "#", ".", "+"
# The manager's one-character ranks, by the kit's piece names.
TOKENS: dict[str, str] = {
    "Marshal": "1", "General": "2", "Colonel": "3", "Major": "4", "Captain": "5", "Lieutenant": "6",
    "Sergeant": "7", "Miner": "8", "Scout": "9", "Spy": "s", "Bomb": "B", "Flag": "F",
}
NAMES: dict[str, str] = {token: name for name, token in TOKENS.items()}
STEPS: dict[str, tuple[int, int]] = {"UP": (0, -1), "DOWN": (0, 1), "LEFT": (-1, 0), "RIGHT": (1, 0)}  # (dx, dy)
BATTLES = {"KILLS": BattleResult.ATTACKER_WINS, "DIES": BattleResult.DEFENDER_WINS,
           "BOTHDIE": BattleResult.BOTH_DIE}
ENDINGS = ("OK", "ILLEGAL", "VICTORY_FLAG", "VICTORY_ATTRITION")
BOARD = frozenset({"C5", "D5", "C6", "D6", "G5", "H5", "G6", "H6"})  # the manager's obstacles, as kit squares


class UccError(StrategolabError, ValueError):
    """A protocol line that cannot be read, or one that contradicts the game so far; says which and why."""


def check_ruleset(ruleset: Ruleset) -> Ruleset:
    """The rule set, if the protocol can carry its games: the classic board, army and Red moving first."""
    problems = []
    if (ruleset.width, ruleset.height) != (WIDTH, HEIGHT) or ruleset.lakes != BOARD:
        problems.append("its board is not the classic 10x10 board with the lakes on C5-D6 and G5-H6")
    if sorted((k.name, n) for k, n in ruleset.army) != sorted((k.name, n) for k, n in CLASSIC.army):
        problems.append("its army is not the classic army of 40")
    if ruleset.setup_rows != CLASSIC.setup_rows:
        problems.append("its setup rows are not 1-4 and 7-10")
    if ruleset.first_player != RED:
        problems.append("Blue moves first (in the protocol Red always does)")
    if problems:
        raise UccError(f"the UCC protocol cannot play {ruleset.name}: {'; '.join(problems)}")
    return ruleset


# -- moves ---------------------------------------------------------------------------------------------------


def xy(sq: Square) -> tuple[int, int]:
    """The protocol's ``(x, y)`` of a kit square: column, and row number minus one."""
    return sq % STRIDE, sq // STRIDE


def format_move(move: Move) -> str:
    """A kit move as the protocol writes it: ``'4 3 DOWN'``, a Scout's run ``'0 6 UP 3'``."""
    (x, y), (tx, ty) = xy(move.from_square), xy(move.to_square)
    if (x != tx) == (y != ty):
        raise ValueError(f"{move} is not a move along a row or column")
    direction = "UP" if ty < y else "DOWN" if ty > y else "LEFT" if tx < x else "RIGHT"
    distance = abs(tx - x) + abs(ty - y)
    return f"{x} {y} {direction}" + (f" {distance}" if distance > 1 else "")


def _move(tokens: list[str], line: str) -> Move:
    """``X Y DIRECTION [MULTIPLIER]`` as a kit move, checked to stay on the board."""
    what = "expected 'X Y DIRECTION [MULTIPLIER]', like '4 6 UP' or '0 6 UP 3'"
    if not 3 <= len(tokens) <= 4:
        raise UccError(f"{line!r} is not a move: {what}")
    x, y, direction, *rest = tokens
    if not all(t.isascii() and t.isdigit() for t in (x, y, *rest)):
        raise UccError(f"{line!r} is not a move: X, Y and MULTIPLIER are whole numbers; {what}")
    if direction not in STEPS:
        raise UccError(f"{line!r} is not a move: the direction {direction!r} is none of UP, DOWN, LEFT, RIGHT")
    x_, y_, n = int(x), int(y), int(rest[0]) if rest else 1
    if not (0 <= x_ < WIDTH and 0 <= y_ < HEIGHT):
        raise UccError(f"{line!r}: ({x}, {y}) is off the board (x and y run from 0 to 9)")
    if n < 1:
        raise UccError(f"{line!r}: the multiplier must be at least 1")
    dx, dy = STEPS[direction]
    tx, ty = x_ + n * dx, y_ + n * dy
    if not (0 <= tx < WIDTH and 0 <= ty < HEIGHT):
        raise UccError(f"{line!r} leaves the board (from {square_name(square(x_, y_))} {n} square"
                       f"{'s' if n > 1 else ''} {direction.lower()})")
    return Move(square(x_, y_), square(tx, ty))


def parse_move(line: str) -> Move:
    """A bot's answer ``'X Y DIRECTION [MULTIPLIER]'`` as a kit move (raises :class:`UccError` saying why not)."""
    return _move(line.split(), line)


def outcome_text(battle: Battle | None) -> str:
    """The manager's outcome of a move: ``OK``, ``KILLS 8 B``, ``DIES 9 2``, ``BOTHDIE 3 3``, ``VICTORY_FLAG``."""
    if battle is None:
        return "OK"
    if battle.defender.type.is_flag:
        return "VICTORY_FLAG"
    word = {BattleResult.ATTACKER_WINS: "KILLS", BattleResult.DEFENDER_WINS: "DIES",
            BattleResult.BOTH_DIE: "BOTHDIE"}[battle.result]
    return f"{word} {TOKENS[battle.attacker.type.name]} {TOKENS[battle.defender.type.name]}"


class Report(NamedTuple):
    """A move as the manager reports it to both bots: the move, its outcome word, and the ranks a battle showed."""

    move: Move
    text: str  # the move as the mover wrote it
    outcome: str  # OK, KILLS, DIES, BOTHDIE, VICTORY_FLAG, VICTORY_ATTRITION or ILLEGAL
    attacker: str | None = None  # piece names, for a battle
    defender: str | None = None

    @classmethod
    def parse(cls, line: str) -> Report:
        """Read ``'X Y DIRECTION [MULTIPLIER] OUTCOME'`` (the manager copies the mover's answer, then adds the
        outcome, so anything between the move and the outcome is the mover's own and is skipped)."""
        tokens = line.split()
        if len(tokens) >= 6 and tokens[-3] in BATTLES:
            ranks = tokens[-2:]
            unknown = [t for t in ranks if t not in NAMES]
            if unknown:
                raise UccError(f"{line!r}: {unknown[0]!r} is no rank (ranks: {' '.join(NAMES)})")
            word, attacker, defender, body = tokens[-3], NAMES[ranks[0]], NAMES[ranks[1]], tokens[:-3]
        elif len(tokens) >= 4 and tokens[-1] in ENDINGS:
            word, attacker, defender, body = tokens[-1], None, None, tokens[:-1]
        else:
            raise UccError(f"{line!r} is no move report: expected 'X Y DIRECTION [MULTIPLIER] OUTCOME' with "
                           f"OUTCOME one of {', '.join(ENDINGS)}, or KILLS/DIES/BOTHDIE and two ranks")
        return cls(_move(body[:4] if len(body) >= 4 and body[3].isdigit() else body[:3], line),
                   " ".join(body), word, attacker, defender)

    def __str__(self) -> str:
        ranks = f" {TOKENS[self.attacker]} {TOKENS[self.defender]}" if self.attacker and self.defender else ""
        return f"{self.text} {self.outcome}{ranks}"


# -- setups and boards ---------------------------------------------------------------------------------------------


def _zone(side: int) -> range:
    """The protocol rows (``y``) of a side's setup, top first: Red 0-3, Blue 6-9."""
    return range(0, 4) if side == RED else range(HEIGHT - 4, HEIGHT)


def setup_rows(setup: Setup, side: int) -> list[str]:
    """A setup as the four rows a bot answers, top row first (Red's back row, Blue's front row)."""
    check_ruleset(setup.ruleset)
    placed = setup.placements(side)
    rows = []
    for y in _zone(side):
        kinds = [placed.get(square(x, y)) for x in range(WIDTH)]
        rows.append("".join(TOKENS[k.name] if k is not None else EMPTY for k in kinds))
    return rows


def parse_setup(rows: list[str], side: int, ruleset: Ruleset = UCC) -> Setup:
    """Four setup rows from a bot as a kit :class:`Setup`; raises :class:`UccError` naming the row and column."""
    check_ruleset(ruleset)
    if len(rows) != 4:
        raise UccError(f"a setup is 4 rows, got {len(rows)}")
    placed: dict[Square, PieceType] = {}
    for y, row in zip(_zone(side), rows, strict=True):
        if len(row) != WIDTH:
            raise UccError(f"setup row {row!r} (y = {y}) has {len(row)} characters, expected {WIDTH}")
        for x, ch in enumerate(row):
            if ch not in NAMES:
                raise UccError(f"setup row {row!r} (y = {y}), character {x + 1}: {ch!r} is no piece "
                               f"(pieces: {' '.join(NAMES)}; the manager wants all 40 placed)")
            placed[square(x, y)] = ruleset.piece_type(NAMES[ch])
    setup = Setup.from_placements(placed, side, ruleset)
    problems = setup.problems()
    if problems:
        raise UccError(f"the setup {'/'.join(rows)} is not a full army: {'; '.join(problems)}")
    return setup


def board_rows(position: Position, player: int) -> list[str]:
    """The ten board rows the manager prints to ``player``: own pieces by rank, every enemy piece ``#``
    (even a revealed one), ``+`` for a lake, ``.`` for an empty square."""
    rows = []
    lakes = position.geometry.lakes
    for y in range(HEIGHT):
        cells = []
        for x in range(WIDTH):
            sq = square(x, y)
            owner = position.owner_at(sq)
            if sq in lakes:
                cells.append(OBSTACLE)
            elif owner is None:
                cells.append(EMPTY)
            elif owner == player:
                cells.append(TOKENS[position.piece_at(sq).type.name])  # type: ignore[union-attr]
            else:
                cells.append(ENEMY)
        rows.append("".join(cells))
    return rows


def turn_lines(view: View, since: int, answers: Mapping[int, str] | None = None) -> list[str]:
    """What the manager tells ``view.player`` when it is its turn: ``START`` (Red's first turn) or each move
    from ply ``since`` on with its outcome (a move as its mover wrote it, if ``answers`` has its words), then
    the board."""
    battles = dict(view.battles)
    lines = ["START"] if not view.move_stack else []
    for ply in range(since, len(view.move_stack)):
        words = (answers or {}).get(ply) or format_move(view.move_stack[ply])
        lines.append(f"{words} {outcome_text(battles.get(ply))}")
    return lines + board_rows(view, view.player)


def colour_line(side: int, opponent: str) -> str:
    """The line that opens a game for a bot: its colour, its opponent's name (no whitespace), the board size."""
    name = "_".join(opponent.split()) or "opponent"
    return f"{COLOURS[side]} {name} {WIDTH} {HEIGHT}"


# -- a kit player as a bot ------------------------------------------------------------------------------------


# The rules the kit holds its own moves to: the manager's game with classic's two-square and chasing rules, so
# a move the bot sends is legal under both ``ucc`` and ``classic``.
OWN_MOVES = UCC.replace(name="ucc (own moves by classic repetition rules)",
                        two_square_limit=CLASSIC.two_square_limit, chase_rule=CLASSIC.chase_rule)


class UccBot:
    """A kit player serving as a UCC bot: :meth:`feed` takes each line from the manager and returns the lines
    to answer.

    The bot keeps the game it is told in a state under :data:`~strategolab.rules.UCC`: its own pieces, and enemy
    pieces that are placeholders until a battle or a Scout's run shows what they are, so the player's view is
    the one the kit would give it.  The player sees the ``ucc`` rules (no repetition rules, no quiet-move
    draw); a move it picks that classic's two-square or chasing rule forbids is asked again from the view under
    :data:`OWN_MOVES`, so every move the bot sends is legal under both rule sets.  Every report and board the
    manager sends is checked against the game so far (a disagreement raises :class:`UccError`).
    """

    def __init__(self, player: object, seed: int = 0) -> None:
        if not isinstance(player, Player):
            raise TypeError(f"a UCC bot serves a Player (choose_setup and choose_move), not {player!r}")
        self.player = player
        self.seed = seed
        self.side: int | None = None
        # The game as the manager tells it, under UCC.  Enemy pieces it has not seen are placeholder Scouts:
        # read it through game.view(side), which hides them.
        self.game: State | None = None
        self._strict: State | None = None  # the same moves under OWN_MOVES
        self._board: list[str] | None = None  # board rows being read, when a board is due
        self._sent: Move | None = None  # our answer, until the manager echoes it
        self.finished = False

    def feed(self, line: str) -> list[str]:
        """Take one line from the manager (without its newline); return the lines to answer."""
        line = line.rstrip("\r\n")
        if self.finished:
            return []
        if line.split()[:1] == ["QUIT"]:
            self.finished = True
            call_hook(self.player, "end_game", None)
            return []
        if self.side is None:
            return self._start(line)
        if self._board is not None:
            self._board.append(line)
            return self._answer() if len(self._board) == HEIGHT else []
        if line == "START":
            if self.side != RED or self.game is None or self.game.move_stack:
                raise UccError("'START' comes only to Red, once, before the first move")
            self._board = []
            return []
        self._apply(Report.parse(line))
        if self.game is not None and self.game.turn == self.side:
            self._board = []  # the opponent has moved: the board follows, then our turn
        return []

    # -- the protocol's steps ------------------------------------------------------------------------------

    def _start(self, line: str) -> list[str]:
        parts = line.split()
        if len(parts) != 4 or parts[0] not in COLOURS or parts[2:] != [str(WIDTH), str(HEIGHT)]:
            raise UccError(f"{line!r}: expected the opening line 'RED|BLUE <opponent> 10 10'")
        self.side = side = COLOURS.index(parts[0])
        call_hook(self.player, "start_game", side, parts[1])
        rng = random.Random(f"strategolab-ucc/{self.seed}/{side}")
        setup = self.player.choose_setup(UCC, rng)  # type: ignore[attr-defined]
        setup = Setup(UCC, setup.pieces).validate()
        self.game = _new_game(setup, side, UCC)
        self._strict = _new_game(setup, side, OWN_MOVES)
        return setup_rows(setup, side)

    def _answer(self) -> list[str]:
        """The board is complete: check it against the game so far, then move."""
        game, strict, side, rows = self.game, self._strict, self.side, self._board
        assert game is not None and strict is not None and side is not None and rows is not None
        self._board = None
        expected = board_rows(game, side)
        for y, (got, want) in enumerate(zip(rows, expected, strict=True)):
            if got != want:
                raise UccError(f"board row y = {y} reads {got!r}; the moves so far give {want!r}")
        view = game.view(side)
        if not view.generate_legal_moves():
            return ["SURRENDER"]  # the kit's rule: a player with no legal move loses
        started = _clock()
        move = self.player.choose_move(view)  # type: ignore[attr-defined]
        if strict.illegal_reason(move) is not None and strict.generate_legal_moves():
            # Asked again within the same move's time: a player with a time limit gets what is left of it.
            limit = getattr(self.player, "time_limit", None)
            if limit is not None:
                self.player.time_limit = max(0.001, limit - (_clock() - started))  # type: ignore[attr-defined]
            try:
                move = self.player.choose_move(strict.view(side))  # type: ignore[attr-defined]
            finally:
                if limit is not None:
                    self.player.time_limit = limit  # type: ignore[attr-defined]
        reason = game.illegal_reason(move)
        if reason:
            raise UccError(f"the player chose {move}, which the rules refuse: {reason}")
        self._sent = move
        return [format_move(move)]

    def _apply(self, report: Report) -> None:
        """A move report (our own echoed, or the opponent's): learn what it shows, then play it."""
        game, strict = self.game, self._strict
        assert game is not None and strict is not None
        mover = game.turn
        if mover == self.side and report.move != self._sent:
            raise UccError(f"the manager echoes {report.text!r}, but this bot answered "
                           f"{format_move(self._sent) if self._sent else 'nothing'}")
        self._sent = None
        if report.outcome == "ILLEGAL":  # the manager's -i: the move is not made and the turn passes
            game.turn = strict.turn = 1 - mover
            return
        f, to = report.move
        if game.owner_at(f) != mover:
            raise UccError(f"{str(report)!r}: {square_name(f)} holds no {COLOURS[mover]} piece in the game so far")
        target = game.owner_at(to)
        if target == mover:
            raise UccError(f"{str(report)!r}: {square_name(to)} holds a {COLOURS[mover]} piece")
        if report.outcome in BATTLES or report.outcome == "VICTORY_FLAG":
            if target is None:
                raise UccError(f"{str(report)!r} reports a battle, but {square_name(to)} is empty")
            for sq, name in ((f, report.attacker), (to, report.defender or "Flag")):
                if name is not None:
                    self._learn(sq, name, str(report))
        elif target is not None:
            raise UccError(f"{str(report)!r} reports no battle, but {square_name(to)} holds a piece")
        elif abs(to - f) not in (1, STRIDE):
            self._learn(f, "Scout", str(report))  # only a Scout runs
        battle = game.push(report.move)
        strict.push(report.move)
        if report.outcome in BATTLES and (battle is None or battle.result != BATTLES[report.outcome]):
            raise UccError(f"{str(report)!r}: the kit's rules decide this battle otherwise ({battle})")

    def _learn(self, sq: Square, name: str, report: str) -> None:
        """Give the piece on ``sq`` the identity the report shows: check one of ours, set an enemy's."""
        game, strict = self.game, self._strict
        assert game is not None and strict is not None
        piece = game.piece_at(sq)
        if game.owner_at(sq) == self.side or game.is_revealed(sq):
            if piece is None or piece.type.name != name:
                whose = "this bot's piece there is" if game.owner_at(sq) == self.side else "it showed itself as"
                raise UccError(f"{report!r} says the piece on {square_name(sq)} is a {name}, but {whose} a "
                               f"{piece.type.name if piece else 'nothing'}")
            return
        for g in (game, strict):
            _set_kind(g, sq, g.ruleset.piece_type(name))


def _set_kind(state: State, sq: Square, kind: PieceType) -> None:
    """Give the piece on ``sq`` another kind, keeping its owner and its moved and revealed marks."""
    state.board[sq] = (state.board[sq] & ~KIND) | (state.ruleset.piece_types.index(kind) + 1)


def _new_game(setup: Setup, side: int, ruleset: Ruleset) -> State:
    """The start of a game as ``side`` knows it: its own setup, and a full enemy zone of placeholders that all
    move (so no battle ends the game for want of movable enemy pieces it may have)."""
    mine = Setup(ruleset, setup.pieces)
    stand_in = Setup.random(ruleset, 0)
    state = State.new(*((mine, stand_in) if side == RED else (stand_in, mine)), ruleset)
    scout = ruleset.piece_type("Scout")
    for sq in state.squares(1 - side):
        _set_kind(state, sq, scout)
    return state


def serve(player: object, lines: Iterable[str], out: TextIO, seed: int = 0) -> int:
    """Serve ``player`` as a bot: read the manager's lines, write the answers (flushed at once); returns the
    exit status, 0 when the game ended with ``QUIT`` or the manager closed the pipe."""
    bot = UccBot(player, seed)
    for line in lines:
        for answer in bot.feed(line):
            out.write(answer + "\n")
        out.flush()
        if bot.finished:
            break
    return 0


def transcript_lines(text: str) -> Iterator[tuple[str, str]]:
    """Read a recorded exchange: lines ``>> text`` (manager to bot) and ``<< text`` (bot to manager);
    ``#`` lines are comments.  Yields ``(direction, text)``."""
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip() or raw.startswith("#"):
            continue
        if raw[:3] not in (">> ", "<< "):
            raise UccError(f"transcript line {number}: expected '>> ' or '<< ' at the start, found {raw[:3]!r}")
        yield raw[:2], raw[3:]


__all__ = [
    "COLOURS", "NAMES", "OWN_MOVES", "TOKENS", "Report", "UccBot", "UccError", "board_rows", "check_ruleset",
    "colour_line", "format_move", "outcome_text", "parse_move", "parse_setup", "serve", "setup_rows",
    "transcript_lines", "turn_lines", "xy",
]
