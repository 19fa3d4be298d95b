"""The computer's reasoning in words: the candidates it compared, and what it believes a target is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from strategolab.board import Square, square_name
from strategolab.rules import PLAYER_NAMES, BattleResult, PieceType, resolve_battle
from strategolab.state import Move
from strategolab.views import View


@dataclass(frozen=True)
class Candidate:
    """One move the computer considered, with its score and the parts it is made of."""

    move: Move
    score: float  # what the choice compared: search value + adjustments + noise
    search: float  # searched value (material, information, Flag safety) averaged over the worlds, minus now
    adjust: float  # root adjustments: repetition, the quiet-move draw, showing an unmoved piece
    note: str = ""

    def __str__(self) -> str:
        return f"{self.move} {self.score:+.1f}" + (f" ({self.note})" if self.note else "")


@dataclass
class Reasoning:
    """Why the computer played its last move: the best candidates and what it believes (for the drawer)."""

    player: int
    level: str
    move: Move
    candidates: list[Candidate]  # best first
    worlds: int
    nodes: int
    flag_guesses: list[tuple[Square, float]] = field(default_factory=list)  # likeliest enemy Flag squares
    memory: str = ""  # what past games against this opponent (RememberingPlayer) or the setup library it draws on
    flag_race: str = ""  # a race to its own Flag it sees itself losing, and whether its move stops it
    verified: int = 0  # how many of the best moves were searched again a ply deeper (Level.verify)
    depth: int = 0  # plies of that deeper search
    verify_worlds: int = 0  # in how many of the worlds
    planned: int = 0  # how many the level would have searched again, when the time limit allowed fewer
    time_limit: float | None = None  # the seconds a move may take (ComputerPlayer.time_limit)
    plan: tuple[str, float] | None = None  # the setup library's plan the enemy's setup looks like, and its odds
    # the enemy's approaches to our known pieces that the game has shown since (Level.honesty): how many, how
    # many of them would have lost that battle, and the weight a type that loses keeps now, and by real habits
    approaches: tuple[int, int, float, float] | None = None

    def __str__(self) -> str:
        guesses = "guess" if self.worlds == 1 else "guesses"
        lines = [f"{PLAYER_NAMES[self.player]} ({self.level}) plays {self.move}: searched {self.worlds} "
                 f"{guesses} at the hidden enemy pieces, {self.nodes} positions; its best moves by score (what it "
                 f"expects to gain in material, safety and information, with small adjustments and its level's "
                 f"noise):"]
        lines += [f"  {c}" for c in self.candidates]
        if self.verified:
            lines.append(f"  the best {self.verified} were searched again {self.depth} plies deep in "
                         f"{self.verify_worlds} of the guesses: those scores are from that search")
        limit = "the time limit" + ("" if self.time_limit is None else f" of {self.time_limit:g} s")
        if self.planned and self.verified:
            lines.append(f"  (the level searches its best {self.planned} again; {limit} left room for "
                         f"{self.verified})")
        elif self.planned:
            lines.append(f"  {limit} left room for fewer than two of the level's second look at its best "
                         f"{self.planned}: these are the {self.depth}-ply scores")
        if self.flag_guesses:
            lines.append("  enemy Flag likeliest on " + ", ".join(
                f"{square_name(s)} {p:.0%}" for s, p in self.flag_guesses))
        if self.memory:
            lines.append(f"  {self.memory}")
        if self.approaches is not None:
            shown, lost, weight, habit = self.approaches
            lines.append(f"  the enemy's pieces that stepped next to mine: {shown} shown since, {lost} of them would "
                         f"have lost that battle; a piece that steps up now counts {weight:.2f} as likely a type "
                         f"that loses as one that wins (real players: {habit:.2f})")
        if self.flag_race:
            lines.append(f"  {self.flag_race}")
        return "\n".join(lines)


def approach_record(honest: Sequence[tuple[PieceType, PieceType]], weight: float, habit: float,
                    ) -> tuple[int, int, float, float] | None:
    """:attr:`Reasoning.approaches` from the shown approaches (the stepper's type, ours), the weight a losing
    type keeps now and by real players' habits; None before the game has shown one."""
    if not honest:
        return None
    lost = sum(resolve_battle(theirs, ours) == BattleResult.DEFENDER_WINS for theirs, ours in honest)
    return len(honest), lost, weight, habit


def describe_move(view: View, move: Move, beliefs: dict[Square, list[float]]) -> str:
    """What a candidate move does, in words a learner can follow: whom it attacks, what the computer believes
    a hidden target is (its three likeliest types) and how likely its piece is to lose there; for a known
    piece stepping next to hidden ones, how likely one of them is to beat it if it attacks."""
    t = move.to_square
    rs = view.ruleset
    mover = view.piece_at(move.from_square)
    if not view.board[t]:
        if mover is None or not view.is_revealed(move.from_square):
            return ""
        # A piece the enemy knows: the hidden pieces around its new square may be ones that beat it.
        safe = 1.0
        for n in view.geometry.neighbours[t]:
            row = beliefs.get(n)
            if row and n != move.from_square:
                safe *= 1.0 - sum(p for k, p in enumerate(row) if rs.piece_types[k].movable
                                  and resolve_battle(rs.piece_types[k], mover.type) == BattleResult.ATTACKER_WINS)
        return f"next to hidden pieces, one of which beats it {1 - safe:.0%}" if safe < 0.995 else ""
    target = view.piece_at(t)
    if target is not None:
        return f"attacks the {target.type.name}"
    probs = beliefs.get(t)
    if not probs:
        return "attacks a hidden piece"
    top = sorted(((p, k) for k, p in enumerate(probs) if p >= 0.005), reverse=True)[:3]
    text = "attacks a hidden piece: " + ", ".join(f"{rs.piece_types[k].name} {p:.0%}" for p, k in top)
    if mover is not None:
        lose = sum(p for k, p in enumerate(probs)
                   if resolve_battle(mover.type, rs.piece_types[k]) == BattleResult.DEFENDER_WINS)
        if lose >= 0.005:
            text += f"; its {mover.type.name} loses {lose:.0%}"
    return text
