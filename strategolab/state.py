"""The game state: the board, whose turn it is, legal moves, ``push``/``pop``, repetition rules and outcome.

Pieces are stored on a flat list as small ints (kind, owner, "has moved", "revealed" bits) so that move
generation and replay stay fast in pure Python; the public API hands out small value types
(:class:`Piece`, :class:`Move`, :class:`Battle`, :class:`Outcome`).
"""

from __future__ import annotations

import enum
import operator
import random
from collections import Counter
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, NamedTuple

from strategolab.board import COLUMNS, STRIDE, Geometry, Square, geometry, parse_square, square_name
from strategolab.errors import IllegalMoveError, SetupError, shown
from strategolab.rules import (
    BLUE,
    IMMOBILE,
    PLAYER_NAMES,
    RED,
    RUN,
    TWO_SQUARES,
    BattleResult,
    PieceType,
    Ruleset,
    check_player,
    get_ruleset,
    resolve_battle,
)

if TYPE_CHECKING:
    from strategolab.setups import Setup
    from strategolab.views import View

# Piece codes on the board list: low 5 bits kind index + 1 (0 = unknown in a view), then owner and flags;
# PIECE is set on every piece so that a code is never 0 (an empty square) even when its kind is hidden.
KIND = 0x1F
OWNER = 0x20
MOVED = 0x40
REVEALED = 0x80
PIECE = 0x100

_ATTACKER_WINS = int(BattleResult.ATTACKER_WINS)
_DEFENDER_WINS = int(BattleResult.DEFENDER_WINS)
_BOTH_DIE = int(BattleResult.BOTH_DIE)

# Chase phases of one chaser: it has just threatened (waiting for an evasion), or a threatened piece has
# just evaded (the chaser's next move may be a chasing move, which the chasing rule restricts).
_THREAT = 0
_EVADED = 1


class Piece(NamedTuple):
    """A piece: its owner (``RED``/``BLUE``) and its type."""

    owner: int
    type: PieceType

    def __str__(self) -> str:
        return f"{PLAYER_NAMES[self.owner]} {self.type.name}"


class Move(NamedTuple):
    """A move from one square to another (an attack when the target holds an enemy piece)."""

    from_square: Square
    to_square: Square

    @classmethod
    def parse(cls, text: str) -> Move:
        """``'A4-A5'`` (also ``'A4A5'``, ``'a4 a5'``, ``'A4xA5'``) → ``Move``."""
        if not isinstance(text, str):
            raise TypeError(f"a move is written as a str like 'A4-A5', not {type(text).__name__} {text!r}")
        t = text.strip().upper().replace(" ", "-").replace("X", "-")
        if "-" in t:
            a, _, b = t.partition("-")
        else:
            i = next((i for i in range(2, len(t)) if t[i].isalpha()), -1)
            if i < 0:
                raise ValueError(f"{text!r} is not a move (expected two squares, like 'A4-A5')")
            a, b = t[:i], t[i:]
        try:
            return cls(parse_square(a), parse_square(b))
        except ValueError:
            raise ValueError(f"{text!r} is not a move (expected two squares, like 'A4-A5')") from None

    def __str__(self) -> str:
        return f"{_name(self.from_square)}-{_name(self.to_square)}"

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"


class Battle(NamedTuple):
    """What a battle showed both players: who attacked whom, with which pieces, and the result."""

    square: Square
    attacker: Piece
    defender: Piece
    result: BattleResult

    def __str__(self) -> str:
        words = {
            BattleResult.ATTACKER_WINS: "takes",
            BattleResult.DEFENDER_WINS: "loses to",
            BattleResult.BOTH_DIE: "and both die with",
        }
        return f"{self.attacker} {words[self.result]} {self.defender} on {square_name(self.square)}"


class Termination(enum.Enum):
    """Why a game ended."""

    FLAG_CAPTURED = "flag captured"
    NO_LEGAL_MOVE = "no legal move"
    NEITHER_CAN_MOVE = "neither side can move"
    QUIET_MOVE_LIMIT = "quiet-move draw"
    RESIGNATION = "resignation"
    AGREED_DRAW = "agreed draw"
    TIME_FORFEIT = "time forfeit"
    ILLEGAL_MOVE = "illegal move"  # an external program's answer the rules or its protocol refuse
    ABANDONED = "abandoned"


class Rescue(NamedTuple):
    """A captured piece brought back onto ``square`` by a move onto the enemy's back row (Ultimate Lightning)."""

    square: Square
    type: PieceType

    def __str__(self) -> str:
        return f"{self.type.name} on {square_name(self.square)}"


class Outcome(NamedTuple):
    """The end of a game: ``winner`` is ``RED``, ``BLUE`` or ``None`` for a draw."""

    termination: Termination
    winner: int | None

    def result(self) -> str:
        return {RED: "1-0", BLUE: "0-1", None: "1/2-1/2"}[self.winner]

    def __str__(self) -> str:
        who = "draw" if self.winner is None else f"{PLAYER_NAMES[self.winner]} wins"
        return f"{who} ({self.termination.value})"


class _Tables:
    """Per-rule-set lookup tables indexed by a piece code's kind bits, built once."""

    __slots__ = ("battle", "geo", "index", "is_flag", "kinds", "mobility", "moves", "near", "ruleset", "two_squares")

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.geo = geometry(ruleset)
        self.kinds: tuple[PieceType | None, ...] = (None, *ruleset.piece_types)
        self.index = {k.name: i for i, k in enumerate(self.kinds) if k is not None}  # name -> kind code
        self.mobility = tuple(IMMOBILE if k is None else k.mobility for k in self.kinds)
        self.is_flag = tuple(bool(k and k.is_flag) for k in self.kinds)
        self.battle = tuple(
            tuple(0 if a is None or d is None else int(resolve_battle(a, d, ruleset)) for d in self.kinds)
            for a in self.kinds
        )
        # Interned Move objects for every straight line on the board (and, where a piece moves two squares
        # round a corner, every diagonal neighbour): generation never builds a Move.
        self.two_squares = TWO_SQUARES in self.mobility
        self.near = tuple(frozenset(n) for n in self.geo.neighbours)  # per square: its neighbours, as a set
        size = self.geo.size
        rows: list[list[Move | None]] = [[None] * size for _ in range(size)]
        for f in self.geo.land:
            for ray in self.geo.rays[f]:
                for t in ray:
                    rows[f][t] = Move(f, t)
            if self.two_squares:
                for t in _corners(self.geo, f):
                    rows[f][t] = Move(f, t)
        self.moves = rows


def _corners(geo: Geometry, f: Square) -> list[Square]:
    """The diagonal neighbours of ``f`` that a two-square move can reach round a corner (over land)."""
    out = []
    for a in geo.neighbours[f]:
        for t in geo.neighbours[a]:
            if t != f and abs(t - f) not in (2, 2 * STRIDE) and t not in out:
                out.append(t)
    return out


def _two_square_targets(pos: Position, f: Square, bit: int) -> list[Square]:
    """Where a two-square piece on ``f`` may go: a neighbour, or a square next to an empty neighbour
    (straight on or round the corner), empty or holding an enemy piece."""
    board = pos.board
    neighbours = pos._t.geo.neighbours
    out = []
    for a in neighbours[f]:
        d = board[a]
        if not d or d & OWNER != bit:
            out.append(a)
        if not d:
            for t in neighbours[a]:
                e = board[t]
                if t != f and t not in out and (not e or e & OWNER != bit):
                    out.append(t)
    return out


_TABLES: dict[Ruleset, _Tables] = {}


def _tables(ruleset: Ruleset) -> _Tables:
    t = _TABLES.get(ruleset)
    if t is None:
        t = _TABLES[ruleset] = _Tables(ruleset)
    return t


class Position:
    """Board contents, side to move, counters and repetition memory: what the move rules read.

    :class:`State` (everything known) and :class:`~strategolab.views.View` (one player's knowledge) both
    build on it; the move generator here needs only own piece types and which squares are occupied.
    """

    __slots__ = ("_chase", "_rep", "_result", "_t", "board", "ply", "quiet", "ruleset", "turn")

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self._t = _tables(ruleset)
        self.board: list[int] = [0] * self._t.geo.size
        self.turn = ruleset.first_player
        self.ply = 0
        self.quiet = 0
        # Per player: that player's latest moves, all by one piece, each starting where the last ended.
        self._rep: list[tuple[tuple[Square, Square], ...]] = [(), ()]
        # None (no chase), or (Red's chase, Blue's chase, where): each player's continuous chase (a tuple, see
        # the comment before _NO_STOOD) or None, and `where` {square a piece stands on now: the square it stood
        # on when the tracked positions began} for the pieces that stand elsewhere (a position is told apart by
        # where each piece stands).
        self._chase: tuple | None = None
        # Set by a move that decides the game for certain (a Flag taken, a side left with no movable piece).
        self._result: Outcome | None = None

    # -- pieces -------------------------------------------------------------------------------------

    @property
    def geometry(self) -> Geometry:
        return self._t.geo

    def piece_at(self, sq: Square) -> Piece | None:
        """The piece on a square, ``None`` if empty (or, in a view, if its type is unknown)."""
        code = self.board[sq] if 0 <= sq < len(self.board) else 0
        kind = self._t.kinds[code & KIND]
        if kind is None:
            return None
        return Piece((code & OWNER) >> 5, kind)

    def owner_at(self, sq: Square) -> int | None:
        code = self.board[sq] if 0 <= sq < len(self.board) else 0
        return None if not code else (code & OWNER) >> 5

    def has_moved(self, sq: Square) -> bool:
        return bool(self.board[sq] & MOVED)

    def is_revealed(self, sq: Square) -> bool:
        return bool(self.board[sq] & REVEALED)

    def squares(self, player: int | None = None) -> list[Square]:
        """Occupied squares (of one player, if given), A1 first."""
        b = self.board
        if player is None:
            return [s for s in self._t.geo.land if b[s]]
        bit = player << 5
        return [s for s in self._t.geo.land if b[s] and b[s] & OWNER == bit]

    # -- move generation ----------------------------------------------------------------------------

    def _pseudo_legal(self, player: int) -> list[Move]:
        """Moves the pieces allow, before the repetition rules."""
        t = self._t
        board = self.board
        mobility = t.mobility
        table = t.moves
        geo = t.geo
        neighbours = geo.neighbours
        rays = geo.rays
        bit = player << 5
        attack_after_run = self.ruleset.scout_attacks_after_run
        out: list[Move] = []
        append = out.append
        for sq in geo.land:
            c = board[sq]
            if not c or c & OWNER != bit:
                continue
            mob = mobility[c & KIND]
            if not mob:
                continue
            row = table[sq]
            if mob == TWO_SQUARES:
                out += [row[to] for to in _two_square_targets(self, sq, bit)]
            elif mob != RUN:
                for to in neighbours[sq]:
                    d = board[to]
                    if not d or d & OWNER != bit:
                        append(row[to])
            else:
                for ray in rays[sq]:
                    first = True
                    for to in ray:
                        d = board[to]
                        if not d:
                            append(row[to])
                        else:
                            if d & OWNER != bit and (first or attack_after_run):
                                append(row[to])
                            break
                        first = False
        return out

    def _forbidden(self, player: int, moves: list[Move] | None = None) -> dict[Move, str]:
        """Moves the repetition rules forbid ``player`` right now, each with the reason (``moves``: the
        player's pseudo-legal moves, if already at hand)."""
        out: dict[Move, str] = {}
        r = self.ruleset
        limit = r.two_square_limit
        chain = self._rep[player]
        if limit is not None and len(chain) >= limit:
            self._two_square_forbidden(chain[-limit:], out)
        ch = self._chase
        if ch is not None and ch[player] is not None and ch[player][0] == _EVADED:
            zone = ch[player][1]
            board = self.board
            for m in self._pseudo_legal(player) if moves is None else moves:
                if m.to_square in zone and not board[m.to_square] and m not in out:
                    reason = self._chase_reason(player, m.from_square, m.to_square)
                    if reason is not None:
                        out[m] = reason
        return out

    def _two_square_forbidden(self, last: tuple[tuple[Square, Square], ...], out: dict[Move, str]) -> None:
        """Add the moves the two-square rule forbids after the run ``last`` (the player's latest moves)."""
        limit = len(last)
        times = "once" if limit == 1 else "twice" if limit == 2 else f"{limit} times"
        here = last[-1][1]
        table = self._t.moves[here]
        if not self.ruleset.two_square_scout_clause:
            a, b = last[0]
            if all(f in (a, b) and to in (a, b) for f, to in last):
                other = a if here == b else b
                if table[other] is not None:
                    out[table[other]] = (f"two-square rule: this piece has already moved between "
                                         f"{square_name(a)} and {square_name(b)} {times} in a row")
            return
        # The Scout clause: the run's moves all pass between the same two neighbouring squares (they cross a
        # common square boundary); a further move across that boundary is refused.
        common = _crossed(*last[0])
        for f, to in last[1:]:
            common &= _crossed(f, to)
            if not common:
                return
        lo, hi = min(common) // 2, max(common) // 2
        step = 1 if min(common) % 2 == 0 else STRIDE
        ends = (square_name(lo), square_name(hi + step))
        where = f"between {ends[0]} and {ends[1]}" if lo == hi else f"back and forth within {ends[0]}-{ends[1]}"
        reason = f"two-square rule: this piece has already moved {where} {times} in a row"
        for ray in self._t.geo.rays[here]:
            prev, crossed = here, False
            for to in ray:
                crossed = crossed or _edge(prev, to) in common
                if crossed and table[to] is not None:
                    out[table[to]] = reason
                prev = to

    def _chase_reason(self, player: int, f: Square, to: Square) -> str | None:
        """Why the chasing rule forbids ``player``'s quiet move ``f``-``to`` now, if it does."""
        ch = self._chase
        chase = ch[player] if ch is not None else None
        if chase is None or chase[0] != _EVADED or to not in chase[1] or self.board[to]:
            return None
        neighbours = self._t.geo.neighbours[to]
        chased = next((s for s in neighbours if s in chase[2]), None)
        if chased is None:
            return None  # not a chasing move: it threatens no piece that evaded in this chase
        if self.ruleset.chase_rule == "square":
            if to in chase[5].get(f, ()):
                return (f"chasing rule: the piece on {square_name(f)} is chasing the piece on {square_name(chased)} "
                        f"and already stood on {square_name(to)} in this chase")
            return None
        if chase[4] == (to, f):
            return None  # straight back to the square it came from: allowed (the two-square rule still applies)
        if _seen(chase[3], frozenset(_moved(ch[2], f, to).items())):
            return (f"more-squares rule: moving to {square_name(to)} would repeat a position of the chase of "
                    f"the piece on {square_name(chased)}")
        return None

    def generate_legal_moves(self, player: int | None = None) -> list[Move]:
        """Every legal move of ``player`` (default: the side to move), as a fresh list."""
        p = self.turn if player is None else check_player(player)
        if self._over() is not None:
            return []
        moves = self._pseudo_legal(p)
        limit = self.ruleset.two_square_limit
        ch = self._chase
        if (limit is not None and len(self._rep[p]) >= limit) or (ch is not None and ch[p] is not None
                                                                   and ch[p][0] == _EVADED):
            forbidden = self._forbidden(p, moves)
            if forbidden:
                moves = [m for m in moves if m not in forbidden]
        return moves

    @property
    def legal_moves(self) -> LegalMoves:
        """The side to move's legal moves, generated lazily (iterate, ``len``, ``in``, ``bool``)."""
        return LegalMoves(self)

    def _restricted(self, player: int, f: Square, to: Square) -> bool:
        """Could a repetition rule forbid ``player``'s move ``f``-``to`` now?  (A cheap test.)"""
        limit = self.ruleset.two_square_limit
        chain = self._rep[player]
        if limit is not None and len(chain) >= limit and chain[-1][1] == f:
            return True
        ch = self._chase
        if ch is None:
            return False
        chase = ch[player]
        return chase is not None and chase[0] == _EVADED and to in chase[1]

    def illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` is illegal for the side to move, in words; ``None`` if it is legal."""
        # Fast path for the common case, a legal one-square move or clear run; anything else is explained
        # by the careful checks below.
        f, to = move
        t = self._t
        over = self._over()
        if over is not None:
            return over
        if 0 <= f < t.geo.size and 0 <= to < t.geo.size:
            row = t.moves[f]
            board = self.board
            c = board[f]
            bit = self.turn << 5
            if row[to] is not None and c and c & OWNER == bit:
                mob = t.mobility[c & KIND]
                d = board[to]
                if mob and (not d or d & OWNER != bit):
                    diff = to - f
                    if diff == 1 or diff == -1 or diff == STRIDE or diff == -STRIDE:
                        ok = True
                    elif mob == RUN and (not d or self.ruleset.scout_attacks_after_run):
                        step = 1 if -STRIDE < diff < STRIDE else STRIDE
                        step = step if diff > 0 else -step
                        ok = not any(board[s] for s in range(f + step, to, step))
                    else:
                        ok = False
                    if ok:  # the pieces allow it: only a repetition rule could refuse it
                        return self._repetition_reason(move) if self._restricted(self.turn, f, to) else None
        return self._explain(move)

    def _over(self) -> str | None:
        """Why no move is possible any more, if the game has ended by a capture, a lost army or the draw."""
        if self._result is not None:
            return f"the game is over: {self._result}"
        limit = self.ruleset.draw_limit
        if limit is not None and self.quiet >= limit:
            return f"the game is over: {limit} moves in a row without an attack are a draw"
        return None

    def draw_warning(self) -> bool:
        """True when the quiet-move draw is near: no more than ``ruleset.draw_warning`` quiet moves remain."""
        left = self.quiet_moves_left
        return left is not None and left <= self.ruleset.draw_warning

    def _explain(self, move: Move) -> str | None:
        """The careful checks, in the order a player would think of them, each with its reason."""
        t = self._t
        geo = t.geo
        f, to = move
        if not geo.on_board(f):
            return f"{_name(f)} is not on the board"
        if not geo.on_board(to):
            return f"{_name(to)} is not on the board"
        board = self.board
        c = board[f]
        if not c:
            return f"there is no piece on {square_name(f)}" if f not in geo.lakes else f"{square_name(f)} is a lake"
        bit = self.turn << 5
        if c & OWNER != bit:
            other, me = PLAYER_NAMES[1 - self.turn], PLAYER_NAMES[self.turn]
            return f"the piece on {square_name(f)} is {other}'s; it is {me}'s turn"
        kind = t.kinds[c & KIND]
        what = kind.name if kind is not None else "piece"
        mob = t.mobility[c & KIND]
        if not mob:
            return f"the {what} on {square_name(f)} cannot move"
        if to in geo.lakes:
            return f"{square_name(to)} is a lake: no piece may enter it"
        if f == to:
            return "a move must go to another square"
        if mob == TWO_SQUARES and to not in geo.neighbours[f]:
            if board[to] and board[to] & OWNER == bit:
                return f"{square_name(to)} holds your own piece"
            if to not in _two_square_targets(self, f, bit):
                return (f"the {what} on {square_name(f)} moves at most two squares, through an empty square "
                        f"(straight on or round one corner), and {square_name(to)} is not such a square")
            if self._restricted(self.turn, f, to):
                return self._repetition_reason(move)
            return None
        if t.moves[f][to] is None:
            if f // STRIDE != to // STRIDE and f % STRIDE != to % STRIDE:
                return f"{square_name(f)}-{square_name(to)} is not a straight line: pieces never move diagonally"
            return f"the way from {square_name(f)} to {square_name(to)} crosses a lake"
        d = board[to]
        if d and d & OWNER == bit:
            return f"{square_name(to)} holds your own piece"
        steps = abs(to - f) if f // STRIDE == to // STRIDE else abs(to - f) // STRIDE
        if steps > 1:
            if mob != RUN:
                return f"the {what} on {square_name(f)} moves one square at a time"
            step = (to - f) // steps
            for s in range(f + step, to, step):
                if board[s]:
                    return f"the way from {square_name(f)} to {square_name(to)} is blocked on {square_name(s)}"
            if d and not self.ruleset.scout_attacks_after_run:
                return (f"the {what} on {square_name(f)} may not move more than one square and attack "
                        f"in the same turn")
        if self._restricted(self.turn, f, to):
            return self._repetition_reason(move)
        return None

    def _repetition_reason(self, move: Move) -> str | None:
        """Why the two-square or the chasing rule forbids ``move`` of the side to move, if one does."""
        limit = self.ruleset.two_square_limit
        chain = self._rep[self.turn]
        if limit is not None and len(chain) >= limit:
            out: dict[Move, str] = {}
            self._two_square_forbidden(chain[-limit:], out)
            if move in out:
                return out[move]
        return self._chase_reason(self.turn, move.from_square, move.to_square)

    def is_legal(self, move: Move) -> bool:
        return self.illegal_reason(move) is None

    def find_move(self, from_square: Square | str, to_square: Square | str) -> Move:
        """The legal move between two squares (names or numbers); raises :class:`IllegalMoveError`."""
        f = parse_square(from_square) if isinstance(from_square, str) else _square_number(from_square)
        to = parse_square(to_square) if isinstance(to_square, str) else _square_number(to_square)
        move = Move(f, to)
        reason = self.illegal_reason(move)
        if reason:
            raise IllegalMoveError(move, reason)
        return move

    def legal_targets(self, sq: Square) -> list[Square]:
        """Squares the piece on ``sq`` may legally move to now (for highlighting)."""
        return [m.to_square for m in self.generate_legal_moves() if m.from_square == sq]

    def has_legal_move(self, player: int | None = None) -> bool:
        return bool(self.generate_legal_moves(player))

    def _repr_png_(self) -> bytes | None:
        """The board as a PNG, so a bare state or view in a notebook cell draws itself."""
        return _png(self)

    @property
    def quiet_moves_left(self) -> int | None:
        """Moves without an attack left before the draw (``None`` when the rule set has no such draw)."""
        limit = self.ruleset.draw_limit
        return None if limit is None else max(0, limit - self.quiet)

    # -- repetition bookkeeping, shared by State and View ----------------------------------------------

    def _after_move(self, f: Square, to: Square, battle: bool) -> None:
        """Update the two-square chain and both players' chases after the side to move played ``f``-``to``."""
        p = self.turn
        limit = self.ruleset.two_square_limit
        if limit is not None:
            chain = self._rep[p]
            if chain and chain[-1][1] == f:
                self._rep[p] = (*chain[-limit:], (f, to))
            else:
                self._rep[p] = ((f, to),)
        rule = self.ruleset.chase_rule
        if rule is None:
            return
        board = self.board
        bit = p << 5
        code = board[to]
        stands = code and code & OWNER == bit  # the moved piece stands on `to` (it did not fall)
        threats: list[Square] | None = None  # the enemy pieces it threatens there
        if stands:
            for s in self._t.geo.neighbours[to]:
                d = board[s]
                if d and d & OWNER != bit:
                    if threats is None:
                        threats = [s]
                    else:
                        threats.append(s)
        ch = self._chase
        if ch is None:
            if threats:
                chase = (_THREAT, threats, _NO_SQUARES, _START, (f, to), {to: (to,)} if rule == "square" else _NO_STOOD)
                self._chase = (chase, None, {}) if p == RED else (None, chase, {})
            return
        other = ch[1 - p]  # the opponent's chase: did this move evade its threat?
        if other is not None:
            if other[0] == _THREAT and f in other[1]:
                evaders = other[2] - {f} | {to} if stands else other[2] - {f}
                near = self._t.near
                zone = near[next(iter(evaders))] if len(evaders) == 1 else frozenset().union(*map(near.__getitem__,
                                                                                                   evaders))
                other = (_EVADED, zone, evaders, _NO_POSITIONS if battle else other[3], other[4], other[5])
            else:
                other = None
        mine = ch[p]
        if mine is not None and threats and mine[0] == _EVADED and not mine[2].isdisjoint(threats):
            # A chasing move: the chase goes on.  Positions count since the last battle (a battle removes
            # a piece, so no earlier position can come back).
            where = {} if battle or rule != "position" else _moved(ch[2], f, to)
            stood = mine[5]
            if rule == "square":
                stood = {s: v for s, v in stood.items() if s != f}
                stood[to] = (*mine[5].get(f, ()), to)
            mine = (_THREAT, threats, mine[2] - {to} if battle else mine[2],
                          (frozenset(where.items()), _NO_POSITIONS if battle else mine[3]), (f, to), stood)
        elif other is None:  # nothing else goes on: a threat starts a chase from this position, or none
            if threats:
                chase = (_THREAT, threats, _NO_SQUARES, _START, (f, to), {to: (to,)} if rule == "square" else _NO_STOOD)
                self._chase = (chase, None, {}) if p == RED else (None, chase, {})
            else:
                self._chase = None
            return
        else:
            where = {} if battle or rule != "position" else _moved(ch[2], f, to)
            mine = ((_THREAT, threats, _NO_SQUARES, (frozenset(where.items()), None), (f, to),
                           {to: (to,)} if rule == "square" else _NO_STOOD) if threats else None)
        self._chase = (mine, other, where) if p == RED else (other, mine, where)


# A chase: one player's continuous chase (it keeps threatening pieces of the opponent that keep evading), a plain tuple
# for speed: (phase, squares, evaders, positions, last, stood).  ``squares``: the squares of the pieces the
# chaser's last move threatened (phase _THREAT), or, once one of them evaded (_EVADED), the squares next to
# the evaders, where a chasing move would end; ``evaders``: where the pieces that evaded during the chase
# stand now; ``positions``: the positions after the chaser's moves (keys of `where`), a chain of (key,
# earlier ones) pairs; ``last``: the chaser's latest move (from, to); ``stood`` (square rule only): a
# chasing piece's square -> the squares it stood on in this chase.
_NO_STOOD: dict[Square, tuple[Square, ...]] = {}  # never changed: the shared "nothing" of the more-squares rule
_NO_POSITIONS: tuple | None = None
_NO_SQUARES: frozenset[Square] = frozenset()
_START = (frozenset(), None)  # the position the tracking starts from, before any piece moved


def _moved(where: dict[Square, Square], f: Square, to: Square) -> dict[Square, Square]:
    """``where`` after the piece on ``f`` moved to ``to`` (square a piece stands on -> the square it stood on
    when the tracking began, for the pieces that stand elsewhere)."""
    new = dict(where)
    origin = new.pop(f, f)
    if origin != to:
        new[to] = origin
    return new


def _seen(positions: tuple | None, key: frozenset) -> bool:
    """Is ``key`` among the positions of a chase (kept as a chain of (key, earlier) pairs)?"""
    while positions is not None:
        if positions[0] == key:
            return True
        positions = positions[1]
    return False


def _edge(a: Square, b: Square) -> int:
    """A number for the boundary between two neighbouring squares (even: across a row, odd: up a column)."""
    return 2 * min(a, b) + (0 if abs(a - b) == 1 else 1)


def _crossed(f: Square, to: Square) -> set[int]:
    """The square boundaries a straight move from ``f`` to ``to`` crosses (none for a move round a corner)."""
    if f // STRIDE != to // STRIDE and f % STRIDE != to % STRIDE:
        return set()
    step = 1 if f // STRIDE == to // STRIDE else STRIDE
    lo, hi = min(f, to), max(f, to)
    return {2 * s + (0 if step == 1 else 1) for s in range(lo, hi, step)}


def _name(sq: Square) -> str:
    """A square's name, or the number itself when it is no square (for messages about bad input)."""
    return square_name(sq) if isinstance(sq, int) and 0 <= sq < 99 * STRIDE else str(sq)


def _square_number(sq: object) -> Square:
    """A square given as a number (any integer type, NumPy's too), checked to be one (names go through
    :func:`parse_square`)."""
    if not isinstance(sq, bool):
        try:
            return operator.index(sq)  # type: ignore[arg-type]
        except TypeError:
            pass
    raise TypeError(f"a square is a name like 'C5' or a number, not {type(sq).__name__} {sq!r}")


def _as_move(move: object) -> Move:
    """A :class:`Move`, or a pair of square numbers made into one; anything else is refused by name."""
    if isinstance(move, Move):
        return move
    if isinstance(move, tuple) and len(move) == 2:
        return Move(_square_number(move[0]), _square_number(move[1]))
    raise TypeError(f"a move is a Move or a str like 'A4-A5', not {type(move).__name__} {move!r}")


class LegalMoves:
    """A lazy view of the legal moves of a position, like python-chess's ``board.legal_moves``."""

    __slots__ = ("_position",)

    def __init__(self, position: Position) -> None:
        self._position = position

    def __iter__(self) -> Iterator[Move]:
        return iter(self._position.generate_legal_moves())

    def __len__(self) -> int:
        return len(self._position.generate_legal_moves())

    def __bool__(self) -> bool:
        return self._position.has_legal_move()

    def __contains__(self, move: object) -> bool:
        """A :class:`Move`, a pair of square numbers or move text (``"A4-A5"``); anything else is not a move."""
        try:
            m = Move.parse(move) if isinstance(move, str) else _as_move(move)
        except (TypeError, ValueError):
            return False
        return self._position.illegal_reason(m) is None

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(str(m) for m in self)})>"


class State(Position):
    """A full game state: everything on the board, known to the engine and to no player.

    Build one with :meth:`new` (two setups), :meth:`random`, :meth:`empty` plus :meth:`set_piece`, or
    :meth:`from_position`.  ``push``/``pop`` play and undo moves exactly, battles and counters included.
    """

    __slots__ = ("_rescues", "_stack", "move_stack")

    def __init__(self, ruleset: str | Ruleset | None = None) -> None:
        super().__init__(get_ruleset(ruleset))
        self.move_stack: list[Move] = []
        self._stack: list[tuple] = []
        self._rescues: dict[int, Rescue] = {}  # index in move_stack -> the rescue made with that move

    # -- construction -------------------------------------------------------------------------------

    @classmethod
    def empty(cls, ruleset: str | Ruleset | None = None) -> State:
        """A board with no pieces (for lessons and tests); add pieces with :meth:`set_piece`."""
        return cls(ruleset)

    @classmethod
    def new(cls, red: Setup | str, blue: Setup | str, ruleset: str | Ruleset | None = None,
            first_player: int | None = None) -> State:
        """The start of a game from two setups (:class:`~strategolab.setups.Setup` or setup strings)."""
        from strategolab.setups import Setup

        rs = get_ruleset(ruleset if ruleset is not None else
                         red.ruleset if isinstance(red, Setup) else None)
        state = cls(rs)
        for player, setup in ((RED, red), (BLUE, blue)):
            if not isinstance(setup, Setup | str):
                raise TypeError(f"{PLAYER_NAMES[player]}'s setup must be a Setup or a setup string, "
                                f"not {type(setup).__name__} {setup!r}")
            try:
                s = setup if isinstance(setup, Setup) else Setup.parse(setup, rs)
            except SetupError as e:
                raise SetupError(f"{PLAYER_NAMES[player]}'s setup: {e}") from None
            if s.ruleset != rs:
                raise SetupError(f"{PLAYER_NAMES[player]}'s setup is for {s.ruleset.name}, the game is {rs.name}")
            problems = s.problems()
            if problems:
                raise SetupError(f"{PLAYER_NAMES[player]}'s setup is not a valid {rs.name} setup: "
                                 + "; ".join(problems))
            # A valid setup of this rule set: its pieces go straight onto the board (no per-square checks).
            board, index, bits = state.board, state._t.index, PIECE | (player << 5)
            for sq, kind in zip(state._t.geo.setup_squares[player], s.pieces, strict=True):
                if kind is not None:
                    board[sq] = bits | index[kind.name]
        if first_player is not None:
            state.turn = check_player(first_player, "first_player")
        return state

    @classmethod
    def random(cls, ruleset: str | Ruleset | None = None, seed: int | random.Random | None = None) -> State:
        """The start of a game from two random setups (reproducible from ``seed``)."""
        from strategolab.setups import Setup

        rs = get_ruleset(ruleset)
        rng = seed if isinstance(seed, random.Random) else random.Random(seed)
        return cls.new(Setup.random(rs, rng), Setup.random(rs, rng), rs)

    @classmethod
    def from_placements(cls, placements: Mapping[Square | str, Piece], ruleset: str | Ruleset | None = None,
                        turn: int | None = None, quiet: int = 0) -> State:
        """A position from a mapping of squares to pieces (any position, not only a full setup), with
        the side to move and the number of moves already played without an attack (for lessons)."""
        state = cls(ruleset)
        for sq, piece in placements.items():
            state.set_piece(parse_square(sq) if isinstance(sq, str) else sq, piece)
        if turn is not None:
            state.turn = check_player(turn, "turn")
        if isinstance(quiet, bool) or not isinstance(quiet, int) or quiet < 0:
            raise ValueError(f"quiet must be a number of moves, 0 or more, not {quiet!r}")
        state.quiet = quiet
        return state

    def set_piece(self, sq: Square | str, piece: Piece | None, *, moved: bool = False,
                  revealed: bool = False) -> None:
        """Put a piece on a square (or clear it); only before the first move, like setting up a board."""
        if self.move_stack:
            raise ValueError("pieces can only be placed before the first move")
        s = parse_square(sq) if isinstance(sq, str) else _square_number(sq)
        geo = self._t.geo
        if not geo.on_board(s):
            raise SetupError(f"{_name(s)} is not on the {self.ruleset.width}x{self.ruleset.height} board")
        if s in geo.lakes:
            raise SetupError(f"{square_name(s)} is a lake: no piece may stand there")
        if piece is None:
            self.board[s] = 0
            return
        if not isinstance(piece, Piece) or piece.owner not in (RED, BLUE) or not isinstance(piece.type, PieceType):
            raise TypeError(f"{square_name(s)}: expected a Piece(owner RED or BLUE, piece type) or None, "
                            f"not {piece!r}")
        kind = self._t.index.get(piece.type.name, 0)
        known = self._t.kinds[kind]
        if not kind or (known is not piece.type and known != piece.type):
            raise SetupError(f"a {piece.type.name} is not a piece of {self.ruleset.name}")
        self.board[s] = PIECE | kind | (piece.owner << 5) | (MOVED if moved else 0) | (REVEALED if revealed else 0)

    def copy(self) -> State:
        """An independent copy with the full history (``pop`` works on it too)."""
        c = State.__new__(State)
        c.ruleset = self.ruleset
        c._t = self._t
        c.board = self.board[:]
        c.turn = self.turn
        c.ply = self.ply
        c.quiet = self.quiet
        c._rep = self._rep[:]
        c._chase = self._chase
        c.move_stack = self.move_stack[:]
        c._stack = self._stack[:]
        c._result = self._result
        c._rescues = dict(self._rescues)
        return c

    # -- playing ------------------------------------------------------------------------------------

    def push(self, move: Move) -> Battle | None:
        """Play a move without checking it (use :meth:`push_checked` for untrusted moves).

        Returns the battle it caused, if any.  Every change is recorded so that :meth:`pop` undoes it.
        """
        f, to = move
        board = self.board
        mover = board[f]
        target = board[to]
        p = self.turn
        self._stack.append((mover, target, self.quiet, self._rep[p], self._chase, self._result))
        self.move_stack.append(move)
        code = mover | MOVED
        diff = to - f
        if diff != 1 and diff != -1 and diff != STRIDE and diff != -STRIDE and not (
                self._t.two_squares and diff in (2, -2, 2 * STRIDE, -2 * STRIDE)):
            code |= REVEALED  # only a Scout runs (and, where Captains move two squares, only they turn)
        board[f] = 0
        battle = None
        if not target:
            board[to] = code
            self.quiet += 1
        else:
            t = self._t
            res = t.battle[mover & KIND][target & KIND]
            if res == _ATTACKER_WINS:
                board[to] = code | REVEALED
                if t.is_flag[target & KIND]:
                    self._result = Outcome(Termination.FLAG_CAPTURED, p)
            elif res == _DEFENDER_WINS:
                board[to] = target | REVEALED
            else:
                board[to] = 0
            self.quiet = 0
            battle = Battle(to, Piece(p, t.kinds[mover & KIND]), Piece(1 - p, t.kinds[target & KIND]),
                            BattleResult(res))
        self._after_move(f, to, bool(target))
        self.turn = 1 - p
        self.ply += 1
        if battle is not None and self._result is None and self.ruleset.no_movable_piece_loses and not (
                self._has_movable_piece(p) and self._has_movable_piece(1 - p)):
            self._result = self._stalemate()
        return battle

    def push_checked(self, move: Move | str) -> Battle | None:
        """Play a move after checking it; raises :class:`IllegalMoveError` saying why it is refused."""
        m = Move.parse(move) if isinstance(move, str) else _as_move(move)
        reason = self.illegal_reason(m)
        if reason:
            raise IllegalMoveError(m, reason)
        return self.push(m)

    def pop(self) -> Move:
        """Undo the last move exactly (board, battle, counters, repetition memory) and return it."""
        if not self.move_stack:
            raise IndexError("no move to undo: no move has been played in this state")
        move = self.move_stack.pop()
        rescue = self._rescues.pop(len(self.move_stack), None)
        if rescue is not None:
            self.board[rescue.square] = 0
        mover, target, self.quiet, rep, self._chase, self._result = self._stack.pop()
        self.turn = p = 1 - self.turn
        self.ply -= 1
        self._rep[p] = rep
        self.board[move.from_square] = mover
        self.board[move.to_square] = target
        return move

    # -- rescues (Ultimate Lightning) -----------------------------------------------------------------

    def rescue_reason(self, rescue: Rescue) -> str | None:
        """Why the player who just moved may not make ``rescue`` with that move, in words; ``None`` if they may.

        A piece other than a Scout that has just reached the enemy's back row may bring back one of its
        side's captured pieces onto an empty square of its own half, ``ruleset.rescues`` times a game,
        and one piece only once.
        """
        rs = self.ruleset
        if not rs.rescues:
            return f"{rs.name} has no rescues"
        if not isinstance(rescue, Rescue):
            raise TypeError(f"a rescue is a Rescue(square, piece type), not {rescue!r}")
        if not self.move_stack:
            return "a rescue comes with a move onto the enemy's back row, and no move has been played"
        index = len(self.move_stack) - 1
        if index in self._rescues:
            return "this move has already made a rescue"
        if self._result is not None:
            return f"the game is over: {self._result}"
        p = 1 - self.turn
        f, to = self.move_stack[index]
        code = self.board[to]
        kind = self._t.kinds[code & KIND] if code and (code & OWNER) >> 5 == p else None
        back = self._t.geo.height - 1 if rs.sits_at_bottom(p) else 0
        if kind is None or to // STRIDE != back:
            return (f"a rescue needs a piece that has just reached the enemy's back row (row {back + 1}); "
                    f"{PLAYER_NAMES[p]}'s move {_name(f)}-{_name(to)} did not end there with its piece")
        if kind.mobility == RUN:
            return f"a {kind.name} may not make a rescue"
        made = [(i, r) for i, r in sorted(self._rescues.items()) if i % 2 == index % 2]
        if len(made) >= rs.rescues:
            return f"{PLAYER_NAMES[p]} has made all {rs.rescues} rescues of the game"
        if any(self._rescuer_now(i) == f for i, _ in made):
            return f"the piece on {square_name(to)} has already made a rescue: one piece rescues only once"
        lost = Counter(t.name for t in self.captured(p)) - Counter(r.type.name for _, r in made)
        if not lost[rescue.type.name]:
            have = ", ".join(sorted(lost.elements())) or "none"
            return f"{PLAYER_NAMES[p]} has no captured {rescue.type.name} to rescue (captured: {have})"
        sq = rescue.square
        geo = self._t.geo
        half = range(0, geo.height // 2) if rs.sits_at_bottom(p) else range(geo.height - geo.height // 2, geo.height)
        if not geo.contains(sq) or sq // STRIDE not in half:
            return (f"a rescued piece goes onto {PLAYER_NAMES[p]}'s half of the board (rows {half.start + 1}-"
                    f"{half.stop}), not {_name(sq)}")
        if self.board[sq]:
            return f"{square_name(sq)} is not empty"
        return None

    def _rescuer_now(self, index: int) -> Square | None:
        """Where the piece that made the rescue with move ``index`` stood before the last move (None: fallen)."""
        sq = self.move_stack[index].to_square
        for i in range(index + 1, len(self.move_stack) - 1):
            f, to = self.move_stack[i]
            battle = self.battle_at(i)
            if i % 2 == index % 2 and f == sq:  # the rescuer moved on
                if battle is not None and battle.result != BattleResult.ATTACKER_WINS:
                    return None
                sq = to
            elif i % 2 != index % 2 and to == sq and battle is not None and battle.result != BattleResult.DEFENDER_WINS:
                return None  # attacked and taken
        return sq

    def add_rescue(self, rescue: Rescue) -> None:
        """Make ``rescue`` with the move just played (checked; :class:`IllegalMoveError` says why not).

        :meth:`pop` takes the rescued piece off again with the move.
        """
        reason = self.rescue_reason(rescue)
        if reason is not None:
            raise IllegalMoveError(self.move_stack[-1] if self.move_stack else Move(0, 0), reason)
        p = 1 - self.turn
        self.board[rescue.square] = PIECE | self._t.index[rescue.type.name] | (p << 5)
        self._rescues[len(self.move_stack) - 1] = rescue
        if self._chase is not None:  # a piece came back: no position of the chases so far can recur
            self._chase = (*((*c[:3], _NO_POSITIONS, *c[4:]) if c is not None else None for c in self._chase[:2]),
                           {})

    def rescue_at(self, index: int) -> Rescue | None:
        """The rescue made with move number ``index`` of ``move_stack``, if any."""
        return self._rescues.get(index)

    def peek(self) -> Move:
        """The last move played."""
        if not self.move_stack:
            raise IndexError("no move has been played in this state")
        return self.move_stack[-1]

    def battle_at(self, index: int) -> Battle | None:
        """The battle caused by move number ``index`` of ``move_stack`` (``None`` for a quiet move)."""
        mover, target = self._stack[index][:2]
        if not target:
            return None
        t = self._t
        p = (mover & OWNER) >> 5
        res = t.battle[mover & KIND][target & KIND]
        return Battle(self.move_stack[index].to_square, Piece(p, t.kinds[mover & KIND]),
                      Piece(1 - p, t.kinds[target & KIND]), BattleResult(res))

    def last_battle(self) -> Battle | None:
        """The battle the last move caused, if any."""
        return self.battle_at(len(self.move_stack) - 1) if self.move_stack else None

    @property
    def battles(self) -> list[tuple[int, Battle]]:
        """Every battle so far, as ``(index in move_stack, battle)``."""
        return [(i, b) for i in range(len(self.move_stack)) if (b := self.battle_at(i)) is not None]

    def captured(self, player: int) -> list[PieceType]:
        """Pieces ``player`` has lost in battle, in the order they fell."""
        return losses(self.battles, player)

    # -- the end ------------------------------------------------------------------------------------

    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on.

        Flag captured; the quiet-move draw; the side to move has no legal move (it loses, unless the
        other side could not move either: then it is a draw).  A side left with no movable piece at all
        loses at once, as on Gravon (it can never move again, whatever the other side plays), also in a
        position set up that way; ``ruleset.no_movable_piece_loses=False`` switches that off.
        """
        if self._result is not None:
            return self._result
        limit = self.ruleset.draw_limit
        if limit is not None and self.quiet >= limit:
            return Outcome(Termination.QUIET_MOVE_LIMIT, None)
        if self.generate_legal_moves(self.turn) and (not self.ruleset.no_movable_piece_loses
                                                      or self._has_movable_piece(1 - self.turn)):
            return None
        return self._stalemate()

    def _stalemate(self) -> Outcome | None:
        """The end when a side cannot move: it loses, or it is a draw if neither side can move."""
        mover_can = bool(self.generate_legal_moves(self.turn))
        if mover_can and (not self.ruleset.no_movable_piece_loses or self._has_movable_piece(1 - self.turn)):
            return None
        if not mover_can and not self.generate_legal_moves(1 - self.turn):
            return Outcome(Termination.NEITHER_CAN_MOVE, None)
        return Outcome(Termination.NO_LEGAL_MOVE, self.turn if mover_can else 1 - self.turn)

    def _has_movable_piece(self, player: int) -> bool:
        bit = player << 5
        mobility = self._t.mobility
        return any(c and c & OWNER == bit and mobility[c & KIND] for c in self.board)

    def is_game_over(self) -> bool:
        return self.outcome() is not None

    # -- information --------------------------------------------------------------------------------

    def view(self, player: int) -> View:
        """What ``player`` knows: own pieces, enemy pieces unknown unless revealed, public history."""
        from strategolab.views import View

        return View.of(self, player)

    def position(self) -> str:
        """A position string (see :meth:`from_position`) that rebuilds the board, turn and counters."""
        rows = ["".join(row) for row in _cells(self, marks=True)]
        return f"{'/'.join(rows)} {'rb'[self.turn]} {self.quiet} {self.ply}"

    @classmethod
    def from_position(cls, text: str, ruleset: str | Ruleset | None = None) -> State:
        """Rebuild a state from :meth:`position` output.

        Rows from the top (Blue's back row) down, separated by ``/``; per square ``.`` empty, ``~`` lake,
        or ``r``/``b`` (owner) + the piece symbol, then ``'`` if it has moved and ``!`` if revealed.
        Then the side to move (``r``/``b``), the quiet-move count and the move number.
        """
        if not isinstance(text, str):
            raise TypeError(f"a position is a str (as State.position() writes it), not {type(text).__name__}")
        state = cls(ruleset)
        geo = state._t.geo
        parts = text.split()
        if len(parts) != 4:
            raise ValueError(f"position {shown(text, 400)}: expected '<rows> <r|b> <quiet moves> <ply>'")
        rows = parts[0].split("/")
        if len(rows) != geo.height:
            raise ValueError(f"position has {len(rows)} rows, a {state.ruleset.name} board has {geo.height}")
        for i, row_text in enumerate(rows):
            r = geo.height - 1 - i
            c = 0
            k = 0
            while k < len(row_text):
                ch = row_text[k]
                where = f"row {r + 1}, character {k + 1}"
                if c >= geo.width:
                    raise ValueError(f"position: {where}: row {r + 1} has more than {geo.width} squares")
                s = r * STRIDE + c
                if ch in ".~":
                    if (ch == "~") != (s in geo.lakes):
                        raise ValueError(f"position: {where}: {square_name(s)} "
                                         f"{'is' if s in geo.lakes else 'is not'} a lake")
                    k += 1
                elif ch in "rb" and k + 1 < len(row_text):
                    try:
                        kind = state.ruleset.piece_type(row_text[k + 1])
                    except KeyError as e:
                        raise ValueError(f"position: {where}: {e.args[0]}") from None
                    k += 2
                    moved = revealed = False
                    while k < len(row_text) and row_text[k] in "'!":
                        moved |= row_text[k] == "'"
                        revealed |= row_text[k] == "!"
                        k += 1
                    state.set_piece(s, Piece(RED if ch == "r" else BLUE, kind), moved=moved, revealed=revealed)
                else:
                    raise ValueError(f"position: {where}: unexpected {ch!r} (expected '.', '~', or r/b + piece)")
                c += 1
            if c != geo.width:
                raise ValueError(f"position: row {r + 1} has {c} squares, expected {geo.width}")
        if parts[1] not in ("r", "b") or not all(p.isascii() and p.isdigit() for p in parts[2:]):
            raise ValueError(f"position {shown(text, 400)}: expected side to move r/b, then two counts")
        state.turn = RED if parts[1] == "r" else BLUE
        state.quiet = int(parts[2])
        state.ply = int(parts[3])
        return state

    def __repr__(self) -> str:
        rs = "" if self.ruleset.name == "classic" else f", {self.ruleset.name!r}"
        return f"State.from_position({self.position()!r}{rs})"

    def __str__(self) -> str:
        return _diagram(self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return (self.ruleset == other.ruleset and self.board == other.board and self.turn == other.turn
                and self.ply == other.ply and self.quiet == other.quiet and self._rep == other._rep
                and self._chase == other._chase and self.move_stack == other.move_stack
                and self._stack == other._stack and self._result == other._result
                and self._rescues == other._rescues)

    __hash__ = None  # type: ignore[assignment]


def _png(obj: object) -> bytes | None:
    """Draw ``obj`` with the drawer, imported only now (and only if matplotlib is installed)."""
    try:
        from strategolab.draw import png
    except ImportError:
        return None  # no matplotlib: Jupyter falls back to the text repr
    return png(obj)


def losses(battles: list[tuple[int, Battle]], player: int) -> list[PieceType]:
    """The pieces ``player`` lost in these battles, in the order they fell."""
    out = []
    for _, b in battles:
        if b.result != BattleResult.ATTACKER_WINS and b.attacker.owner == player:
            out.append(b.attacker.type)
        if b.result != BattleResult.DEFENDER_WINS and b.defender.owner == player:
            out.append(b.defender.type)
    return out


def _cells(pos: Position, marks: bool) -> list[list[str]]:
    """The board as text cells, top row first: ``~`` lake, ``.`` empty, ``r``/``b`` + the piece's symbol
    (``?`` when a view does not know it), then, with ``marks``, ``'`` if it has moved and ``!`` if revealed."""
    t = pos._t
    geo = t.geo
    rows = []
    for r in range(geo.height - 1, -1, -1):
        cells = []
        for c in range(geo.width):
            s = r * STRIDE + c
            code = pos.board[s]
            if s in geo.lakes:
                cells.append("~")
            elif not code:
                cells.append(".")
            else:
                kind = t.kinds[code & KIND]
                cell = ("b" if code & OWNER else "r") + (pos.ruleset.symbol(kind) if kind else "?")
                if marks:
                    cell += ("'" if code & MOVED else "") + ("!" if code & REVEALED else "")
                cells.append(cell)
        rows.append(cells)
    return rows


def _diagram(pos: Position) -> str:
    """A text board, Blue's back row on top: ``rX`` is a Red Marshal, ``b?`` an unknown Blue piece."""
    geo = pos._t.geo
    lines = [f"{geo.height - i:>2}" + "".join(" ~~" if c == "~" else c.rjust(3) for c in row)
             for i, row in enumerate(_cells(pos, marks=False))]
    lines.append("  " + "".join(f"  {ch}" for ch in COLUMNS[: geo.width]))
    return "\n".join(lines)


__all__ = (
    "KIND", "MOVED", "OWNER", "REVEALED", "Battle", "LegalMoves", "Move", "Outcome", "Piece", "Position",
    "Rescue", "State", "Termination",
)
