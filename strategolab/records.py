"""Annotated games as trees, the model behind the kit's notation (docs/notation.md).

A :class:`Game` is the root of a tree, as in python-chess: it holds the headers and the start position,
and every :class:`GameNode` below it holds one move, the battle that move caused, comments, move marks and
the alternative lines ("variations") that branch off at it.  The first child of a node continues the main
line; the others are the variations a lesson shows.  Every move in a tree was checked by the engine when it
was added, so a game held in memory can always be written and read back.

The state at a node is not stored: :meth:`GameNode.state` replays the moves from the start, which keeps
the tree small (a node is a few pointers) and makes editing the tree safe.
"""

from __future__ import annotations

import copyreg
import itertools
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, SupportsIndex, cast

from strategolab.errors import RecordError
from strategolab.rules import Ruleset
from strategolab.state import Battle, Move, Rescue, State, _as_move

if TYPE_CHECKING:
    from strategolab.views import View

# Move marks are numbered like PGN's NAGs (numeric annotation glyphs); 1-6 have symbols.
GOOD_MOVE = 1
MISTAKE = 2
BRILLIANT_MOVE = 3
BLUNDER = 4
SPECULATIVE_MOVE = 5
DUBIOUS_MOVE = 6
MARK_SYMBOLS: dict[int, str] = {1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!"}
MARKS: dict[str, int] = {s: n for n, s in MARK_SYMBOLS.items()}
MAX_MARK = 255

_NO_MARKS: frozenset[int] = frozenset()


def to_mark(mark: int | str) -> int:
    """A mark as its number: ``"!?"`` → 5, ``"$14"`` → 14, ``14`` → 14.  Raises ``ValueError`` otherwise."""
    if isinstance(mark, str):
        if mark in MARKS:
            return MARKS[mark]
        digits = mark[1:] if mark.startswith("$") else mark
        if not (digits.isascii() and digits.isdigit()):
            raise ValueError(f"{mark!r} is not a mark: expected one of {' '.join(MARKS)} or $0..${MAX_MARK}")
        mark = int(digits)
    if isinstance(mark, bool) or not isinstance(mark, int) or not 0 <= mark <= MAX_MARK:
        raise ValueError(f"{mark!r} is not a mark: expected one of {' '.join(MARKS)} or 0..{MAX_MARK}")
    return mark


def normalize_comment(text: str) -> str:
    """Comments are kept without surrounding whitespace and with ``\\n`` line ends, so they survive files
    opened in text mode and hand-written padding like ``{ good }``."""
    if not isinstance(text, str):
        raise TypeError(f"a comment is a str, not {type(text).__name__}")
    return text.replace("\r\n", "\n").replace("\r", "\n").strip()


class GameNode:
    """A position in a game tree, reached by ``move`` from ``parent``.

    Build nodes with :meth:`add_variation` (or :meth:`add_line`), which check the move with the engine;
    ``battle`` is what that move caused (``None`` for a quiet move).  ``comment`` follows the move,
    ``starting_comment`` precedes it, ``marks`` is a set of mark numbers (:data:`MARKS`).  ``rescue`` is
    the captured piece the move brought back (Ultimate Lightning), if any.
    """

    __slots__ = ("_comment", "_marks", "_starting_comment", "battle", "move", "parent", "rescue", "variations")

    parent: GameNode | None
    move: Move | None
    battle: Battle | None
    rescue: Rescue | None
    variations: list[GameNode]
    _comment: str
    _starting_comment: str
    _marks: frozenset[int]

    def __init__(self, parent: GameNode | None, move: Move | None, battle: Battle | None = None,
                 rescue: Rescue | None = None) -> None:
        self.parent = parent
        self.move = move
        self.battle = battle
        self.rescue = rescue
        self.variations = []
        self._comment = ""
        self._starting_comment = ""
        self._marks = _NO_MARKS

    # -- annotations ----------------------------------------------------------------------------------

    @property
    def comment(self) -> str:
        """Text after the move (for the game itself: before the first move)."""
        return self._comment

    @comment.setter
    def comment(self, text: str) -> None:
        self._comment = normalize_comment(text)

    @property
    def starting_comment(self) -> str:
        """Text before the move, e.g. "Better was" at the start of a variation."""
        return self._starting_comment

    @starting_comment.setter
    def starting_comment(self, text: str) -> None:
        self._starting_comment = normalize_comment(text)

    @property
    def marks(self) -> frozenset[int]:
        """The move's marks as numbers (``GOOD_MOVE`` = ``!`` ...); assign any iterable of numbers or symbols."""
        return self._marks

    @marks.setter
    def marks(self, marks: Iterable[int | str]) -> None:
        if isinstance(marks, str | int) or not isinstance(marks, Iterable):
            raise TypeError(f"marks are a collection of marks, like {{'!?'}} or (GOOD_MOVE,), not {marks!r} "
                            f"(add_mark adds one)")
        self._marks = frozenset(to_mark(m) for m in marks)

    def add_mark(self, mark: int | str) -> None:
        """Add a mark: ``node.add_mark("!?")`` or ``node.add_mark(SPECULATIVE_MOVE)``."""
        self._marks = self._marks | {to_mark(mark)}

    def remove_mark(self, mark: int | str) -> None:
        """Remove a mark if present."""
        self._marks = self._marks - {to_mark(mark)}

    # -- where this node is -----------------------------------------------------------------------------

    def game(self) -> Game:
        """The root of the tree (raises ``ValueError`` for a node removed from its game)."""
        node = self
        while node.parent is not None:
            node = node.parent
        if not isinstance(node, Game):
            raise ValueError("this node was removed from its game")
        return node

    def path(self) -> list[GameNode]:
        """The nodes from the first move down to this one (empty for the game itself)."""
        out = []
        node: GameNode | None = self
        while node is not None and node.parent is not None:
            out.append(node)
            node = node.parent
        out.reverse()
        return out

    def ply(self) -> int:
        """Plies played at this node, counted like the start position's ply counter."""
        return self.game()._start.ply + len(self.path())

    def state(self) -> State:
        """A fresh :class:`State` at this node, replayed from the start of the game."""
        state = self.game()._start.copy()
        for node in self.path():
            state.push(cast(Move, node.move))
            if node.rescue is not None:
                state.add_rescue(node.rescue)
        return state

    board = state  # python-chess's name for the same thing

    def view(self, player: int) -> View:
        """What ``player`` knows at this node (for replaying a game from one side)."""
        return self.state().view(player)

    def is_mainline(self) -> bool:
        """On the game's main line: every node above is its parent's first child."""
        node = self
        while node.parent is not None:
            if node.parent.variations[0] is not node:
                return False
            node = node.parent
        return True

    def starts_variation(self) -> bool:
        """The first move of an alternative line (not its parent's first child)."""
        return self.parent is not None and self.parent.variations[0] is not self

    def next(self) -> GameNode | None:
        """The main continuation, ``None`` at the end of a line."""
        return self.variations[0] if self.variations else None

    def mainline(self) -> list[GameNode]:
        """The nodes of the main continuation after this one (for the game: the whole main line)."""
        out = []
        node = self
        while node.variations:
            node = node.variations[0]
            out.append(node)
        return out

    def mainline_moves(self) -> list[Move]:
        return [cast(Move, n.move) for n in self.mainline()]

    def end(self) -> GameNode:
        """The last node of the main continuation."""
        node = self
        while node.variations:
            node = node.variations[0]
        return node

    def variation(self, key: int | Move | str) -> GameNode:
        """A child by index, move or move text (``"A4-A5"``); raises ``KeyError``."""
        if isinstance(key, int) and not isinstance(key, Move):
            if not 0 <= key < len(self.variations):
                raise KeyError(f"no variation {key} here: this node has {len(self.variations)} "
                               f"(0 to {len(self.variations) - 1})" if self.variations else
                               f"no variation {key} here: this node has none")
            return self.variations[key]
        if not isinstance(key, str | Move):
            raise TypeError(f"a variation is picked by index, Move or move text like 'A4-A5', not {key!r}")
        move = Move.parse(key) if isinstance(key, str) else key
        for child in self.variations:
            if child.move == move:
                return child
        raise KeyError(f"no variation {move} here")

    def has_variation(self, move: Move | str) -> bool:
        m = Move.parse(move) if isinstance(move, str) else move
        return any(child.move == m for child in self.variations)

    # -- editing the tree -------------------------------------------------------------------------------

    def add_variation(self, move: Move | str, *, comment: str = "", starting_comment: str = "",
                      marks: Iterable[int | str] = (), rescue: Rescue | None = None) -> GameNode:
        """Add a move (with the piece it rescues, in Ultimate Lightning) after this node as a new last
        variation; the engine checks it.

        Raises :class:`~strategolab.errors.IllegalMoveError` with the engine's reason.
        """
        return self._add(move, len(self.variations), comment, starting_comment, marks, rescue)

    def add_main_variation(self, move: Move | str, *, comment: str = "", starting_comment: str = "",
                           marks: Iterable[int | str] = (), rescue: Rescue | None = None) -> GameNode:
        """Add a move after this node as the new main continuation (the old one becomes a variation)."""
        return self._add(move, 0, comment, starting_comment, marks, rescue)

    def _add(self, move: Move | str, index: int, comment: str, starting_comment: str,
             marks: Iterable[int | str], rescue: Rescue | None) -> GameNode:
        m = Move.parse(move) if isinstance(move, str) else _as_move(move)
        state = self.state()
        battle = state.push_checked(m)
        if rescue is not None:
            state.add_rescue(rescue)
        child = GameNode(self, m, battle, rescue)
        child.comment = comment
        child.starting_comment = starting_comment
        child.marks = marks
        self.variations.insert(index, child)
        return child

    def add_line(self, moves: Iterable[Move | str], rescues: Mapping[int, Rescue] | None = None) -> GameNode:
        """Add a sequence of moves as a new variation from this node (replaying once); returns the last node.

        ``rescues`` maps the index of a move in ``moves`` to the piece it rescues (Ultimate Lightning).
        Nothing is added if one of the moves is illegal (the ``IllegalMoveError`` says which).
        """
        if isinstance(moves, str):
            raise TypeError(f"add_line takes a list of moves, like ['A4-A5', 'A7-A6'], not one str {moves!r}")
        state = self.state()
        nodes: list[GameNode] = []
        parent = self
        for i, move in enumerate(moves):
            m = Move.parse(move) if isinstance(move, str) else _as_move(move)
            child = GameNode(parent, m, state.push_checked(m))
            if rescues and i in rescues:
                state.add_rescue(rescues[i])
                child.rescue = rescues[i]
            nodes.append(child)
            parent = child
        for a, b in itertools.pairwise(nodes):
            a.variations.append(b)
        if nodes:
            self.variations.append(nodes[0])
        return parent

    def _siblings(self) -> tuple[list[GameNode], int]:
        if self.parent is None:
            if isinstance(self, Game):
                raise ValueError("the game itself has no siblings")
            raise ValueError("this node was removed from its game")
        siblings = self.parent.variations
        i = next((i for i, v in enumerate(siblings) if v is self), None)
        if i is None:
            raise ValueError("this node is not among its parent's variations any more (removed from the game)")
        return siblings, i

    def promote_to_main(self) -> None:
        """Make this node its parent's main continuation."""
        siblings, i = self._siblings()
        siblings.insert(0, siblings.pop(i))

    def promote(self) -> None:
        """Move this node one place up among its siblings."""
        siblings, i = self._siblings()
        if i > 0:
            siblings[i - 1], siblings[i] = siblings[i], siblings[i - 1]

    def demote(self) -> None:
        """Move this node one place down among its siblings."""
        siblings, i = self._siblings()
        if i + 1 < len(siblings):
            siblings[i], siblings[i + 1] = siblings[i + 1], siblings[i]

    def remove(self) -> None:
        """Cut this node and everything after it out of the game."""
        siblings, i = self._siblings()
        del siblings[i]
        self.parent = None

    # -- comparing ------------------------------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        """Same moves, comments, marks and variations (in order) from here down; parents are not compared."""
        if not isinstance(other, GameNode):
            return NotImplemented
        return _same_tree(self, other)

    __hash__ = None  # type: ignore[assignment]

    # -- pickling and copying -------------------------------------------------------------------------

    def __reduce_ex__(self, protocol: SupportsIndex) -> tuple[Any, ...]:
        """Pickle and copy without recursion (real games run to thousands of moves): a tree is saved from its
        top as one flat list of rows; a node below the top is saved as the top and the path down to it."""
        if self.parent is None:
            return copyreg.__newobj__, (type(self),), self._flat_state()
        path = []
        node = self
        while node.parent is not None:
            path.append(next(i for i, v in enumerate(node.parent.variations) if v is node))
            node = node.parent
        return _node_at, (node, tuple(reversed(path)))

    def _flat_state(self) -> dict[str, Any]:
        """This node's own fields, and every node below it as (parent's row or -1, move, battle, comment,
        starting comment, marks) in depth-first order."""
        state: dict[str, Any] = {name: getattr(self, name) for name in _fields(type(self))}
        rows: list[tuple[int, Move | None, Battle | None, str, str, frozenset[int]]] = []
        stack = [(child, -1) for child in reversed(self.variations)]
        while stack:
            node, parent = stack.pop()
            rows.append((parent, node.move, node.battle, node._comment, node._starting_comment, node._marks))
            stack.extend((child, len(rows) - 1) for child in reversed(node.variations))
        state["tree"] = rows
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            if name != "tree":
                setattr(self, name, value)
        self.parent = None
        self.variations = []
        nodes: list[GameNode] = []
        for parent, move, battle, comment, starting, marks in state["tree"]:
            up = self if parent < 0 else nodes[parent]
            node = GameNode(up, move, battle)
            node._comment, node._starting_comment, node._marks = comment, starting, marks
            up.variations.append(node)
            nodes.append(node)

    def __repr__(self) -> str:
        if self.move is None:
            return "<GameNode root>"
        try:
            ply = self.ply()
            number = f"{ply // 2 + 1}{'...' if ply % 2 else '.'} "
        except ValueError:
            number = ""
        sep = "x" if self.battle is not None else "-"
        text = str(self.move).replace("-", sep)
        marks = "".join(MARK_SYMBOLS.get(m, f" ${m}") for m in sorted(self._marks))
        rescue = f" rescues {self.rescue}" if self.rescue is not None else ""
        return f"<GameNode {number}{text}{marks}{rescue}>"


def _fields(cls: type) -> list[str]:
    """The slots a node's pickle keeps: all but the links, which the flat list of rows rebuilds."""
    return [name for k in cls.__mro__ for name in getattr(k, "__slots__", ()) if name not in ("parent", "variations")]


def _node_at(top: GameNode, path: tuple[int, ...]) -> GameNode:
    """The node ``path`` (variation indexes) below ``top``: how a pickled node finds itself in its tree."""
    node = top
    for i in path:
        node = node.variations[i]
    return node


def _same_tree(a: GameNode, b: GameNode) -> bool:
    """Compare two subtrees without recursion (real games run to thousands of moves)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if (x.move != y.move or x._comment != y._comment or x._starting_comment != y._starting_comment
                or x._marks != y._marks or len(x.variations) != len(y.variations) or x.rescue != y.rescue):
            return False
        stack.extend(zip(x.variations, y.variations, strict=True))
    return True


class Game(GameNode):
    """A game record: headers, a start position and the tree of moves.

    ``headers`` maps names to text (``Event``, ``Red``, ``Blue``, ``Result``, any custom key).  The start
    position is a :class:`State` without history; the notation writes it as two setups when it is a fresh
    deployment, otherwise as a position string, and derives the ``Ruleset``, ``FirstPlayer``,
    ``RedSetup``, ``BlueSetup`` and ``Position`` headers from it (so they are not in ``headers``).
    """

    __slots__ = ("_start", "errors", "headers")

    def __init__(self, start: State, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(None, None)
        if not isinstance(start, State):
            raise TypeError(f"a game starts from a State (State.new(...), State.from_position(...)), "
                            f"not {type(start).__name__}")
        if headers is not None and not isinstance(headers, Mapping):
            raise TypeError(f"headers are a mapping of names to text, like {{'Event': '...'}}, not {headers!r}")
        if start.move_stack:
            raise ValueError("the start state has moves played: use Game.from_state to keep them")
        self._start = start.copy()
        self.headers: dict[str, str] = dict(headers or {})
        self.errors: list[RecordError] = []  # problems met while reading this game leniently

    @classmethod
    def from_state(cls, state: State, headers: Mapping[str, str] | None = None) -> Game:
        """A game whose main line is the moves played in ``state`` (checked again by the engine)."""
        if not isinstance(state, State):
            raise TypeError(f"Game.from_state needs a State, not {type(state).__name__}")
        start = state.copy()
        moves = list(start.move_stack)
        rescues = {i: r for i in range(len(moves)) if (r := state.rescue_at(i)) is not None}
        for _ in moves:
            start.pop()
        game = cls(start, headers)
        game.add_line(moves, rescues)
        return game

    @property
    def start(self) -> State:
        """A copy of the start position."""
        return self._start.copy()

    @property
    def ruleset(self) -> Ruleset:
        return self._start.ruleset

    @property
    def result(self) -> str:
        """``1-0`` (Red wins), ``0-1`` (Blue wins), ``1/2-1/2`` or ``*`` (unfinished, the default)."""
        return self.headers.get("Result", "*")

    @result.setter
    def result(self, value: str) -> None:
        if value not in ("1-0", "0-1", "1/2-1/2", "*"):
            raise ValueError(f"result {value!r}: expected 1-0, 0-1, 1/2-1/2 or *")
        self.headers["Result"] = value

    def game(self) -> Game:
        return self

    def __eq__(self, other: object) -> bool:
        """Same headers (a missing Result counts as ``*``), start position and tree."""
        if not isinstance(other, Game):
            return NotImplemented
        return (_normal_headers(self.headers) == _normal_headers(other.headers)
                and self._start == other._start and _same_tree(self, other))

    __hash__ = None  # type: ignore[assignment]

    def __str__(self) -> str:
        from strategolab.notation import write_game

        return write_game(self)

    def __repr__(self) -> str:
        players = f"{self.headers.get('Red', '?')} vs {self.headers.get('Blue', '?')}"
        n = len(self.mainline())
        return f"<Game {players}, {self.ruleset.name}, {n} plies, {self.result}>"


def _normal_headers(headers: Mapping[str, str]) -> dict[str, str]:
    out = dict(headers)
    out.setdefault("Result", "*")
    return out


__all__ = (
    "BLUNDER", "BRILLIANT_MOVE", "DUBIOUS_MOVE", "GOOD_MOVE", "MARKS", "MARK_SYMBOLS", "MISTAKE",
    "SPECULATIVE_MOVE", "Game", "GameNode", "normalize_comment", "to_mark",
)
