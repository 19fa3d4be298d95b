"""What one player knows: a :class:`View` of a state, built so that it cannot carry a hidden identity.

A view holds the player's own pieces, enemy pieces as "unknown" (their kind bits zeroed) unless a battle
they survived or a Scout's run revealed them, which enemy pieces have moved, and the public history (moves
and the battles both players saw).  Opponents, drawers and widgets that act for a player get a view only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from strategolab.board import Square
from strategolab.rules import PLAYER_NAMES, PieceType
from strategolab.state import KIND, OWNER, REVEALED, Battle, Move, Position, _diagram, losses

if TYPE_CHECKING:
    from strategolab.state import State


class View(Position):
    """One player's knowledge of a game at one moment (a snapshot; it does not follow later moves)."""

    __slots__ = ("battles", "move_stack", "player")

    def __init__(self, *args: object, **kwargs: object) -> None:
        raise TypeError("build a view with state.view(player)")

    @classmethod
    def of(cls, state: State, player: int) -> View:
        """The view ``player`` has of ``state``."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 (Red) or 1 (Blue), not {player!r}")
        v = object.__new__(cls)
        Position.__init__(v, state.ruleset)
        hide = (1 - player) << 5
        v.board = [c & ~KIND if c and c & OWNER == hide and not c & REVEALED else c for c in state.board]
        v.turn = state.turn
        v.ply = state.ply
        v.quiet = state.quiet
        v._rep = state._rep[:]
        v._chase = state._chase
        v._result = state._result
        v.player = player
        v.move_stack = state.move_stack[:]
        v.battles = state.battles  # both players saw every battle: public
        return v

    def is_unknown(self, sq: Square) -> bool:
        """An enemy piece whose type this player does not know."""
        c = self.board[sq]
        return bool(c) and not c & KIND

    def unknown_squares(self) -> list[Square]:
        return [s for s in self.geometry.land if self.is_unknown(s)]

    def captured(self, player: int) -> list[PieceType]:
        """Pieces ``player`` has lost in battle (public: every battle shows both pieces)."""
        return losses(self.battles, player)

    def last_battle(self) -> Battle | None:
        if self.battles and self.battles[-1][0] == len(self.move_stack) - 1:
            return self.battles[-1][1]
        return None

    def peek(self) -> Move | None:
        return self.move_stack[-1] if self.move_stack else None

    def __str__(self) -> str:
        return _diagram(self)

    def __repr__(self) -> str:
        return (f"<View of {PLAYER_NAMES[self.player]} in {self.ruleset.name}, ply {self.ply}, "
                f"{PLAYER_NAMES[self.turn]} to move, {len(self.unknown_squares())} unknown pieces>")

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for cls in type(self).__mro__ for name in getattr(cls, "__slots__", ())
                if name != "_t"}

    def __setstate__(self, data: dict) -> None:
        from strategolab.state import _tables

        for name, value in data.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_t", _tables(self.ruleset))
