"""Chasing and the two-square rule exactly as the written rules say (docs/rules.md), and a property test of
the engine's chase bookkeeping against a second, plainly written reading of the same rule text."""

from __future__ import annotations

import random

import pytest
from conftest import make, mv, play

from strategolab import BLUE, CLASSIC, ISF, RED, Move, State
from strategolab.board import STRIDE, parse_square, square_name

# -- R1: a chase may begin with a capture ---------------------------------------------------------------


def test_a_chase_that_begins_with_a_capture() -> None:
    """The Miner takes the Scout on E3 and so threatens the Spy on D3: the capture is the chase's first
    threatening move, and the position after it may not come back."""
    state = make("F3:r3 E3:b2 D3:bS A10:rF J10:bF", ISF)
    play(state, "F3-E3", "D3-D2", "E3-E2", "D2-D1", "E2-E1", "D1-D2", "E1-E2", "D2-D3")
    reason = state.illegal_reason(mv("E2-E3"))
    assert reason is not None and "more-squares rule" in reason and "E3" in reason and "D3" in reason
    assert mv("E2-E3") not in state.legal_moves


def test_the_same_loop_after_a_quiet_threat() -> None:
    state = make("F3:r3 D3:bS A10:rF J10:bF", ISF)
    play(state, "F3-E3", "D3-D2", "E3-E2", "D2-D1", "E2-E1", "D1-D2", "E1-E2", "D2-D3")
    reason = state.illegal_reason(mv("E2-E3"))
    assert reason is not None and "more-squares rule" in reason


# -- R2: chases of one or more pieces; an evasion that is itself a threat -----------------------------------


def test_an_evading_move_that_threatens_starts_a_chase() -> None:
    """Blue's General evades the Marshal to E3 and so threatens the Sergeant on D3: Blue's chase begins
    with that move, and its position (General E3, Sergeant D3) may not come back."""
    state = make("G2:rX F3:b9 D3:r4 A10:rF J10:bF", ISF)
    play(state, "G2-G3", "F3-E3", "D3-D2", "E3-E2", "D2-D1", "E2-E1", "D1-D2", "E1-E2", "D2-D3")
    reason = state.illegal_reason(mv("E2-E3"))
    assert reason is not None and "more-squares rule" in reason and "D3" in reason
    assert mv("E2-E3") not in state.legal_moves


def test_a_chase_of_two_pieces() -> None:
    """"One or more pieces": the chaser threatens two pieces at once; whichever evades is chased on."""
    state = make("E1:rX D2:b4 F2:b5 A10:rF J10:bF", ISF)
    play(state, "E1-E2", "F2-F1")  # E2 threatens D2 and F2; F2 evades to F1
    assert state._chase[RED][2] == {parse_square("F1")}  # the evaders
    play(state, "E2-E1")  # a chasing move (next to F1)
    play(state, "D2-D3")  # D2 was threatened by E1? no: moving it is no evasion, and Red's chase ends
    assert state._chase is None or state._chase[RED] is None


def test_another_chasing_piece_keeps_the_chase() -> None:
    """A second piece of the chaser may take over: it is still the same player threatening non-stop."""
    state = make("C2:rX E5:r9 D3:b4 A10:rF J10:bF", ISF)
    play(state, "C2-C3", "D3-D4", "E5-E4")  # the Marshal threatens D3; it evades to D4; the General chases
    chase = state._chase[RED]
    assert chase is not None and chase[2] == {parse_square("D4")}  # the evader
    assert chase[4] == (parse_square("E5"), parse_square("E4"))  # the chaser's last move


# -- R3: the classic square rule counts squares stood on during the chase ----------------------------------


def test_square_rule_counts_squares_from_the_first_threat_on() -> None:
    state = make("E1:rX D2:b4 A10:rF J10:bF", CLASSIC)
    play(state, "E1-E2", "D2-D1")
    assert state.illegal_reason(mv("E2-E1")) is None  # E1 was left before the chase began
    play(state, "E2-E1", "D1-D2")
    reason = state.illegal_reason(mv("E1-E2"))
    assert reason is not None and "chasing rule" in reason and "already stood on E2" in reason


# -- the ISF Scout clause of the two-square rule -----------------------------------------------------------


def scout_state() -> State:
    return make("I8:r2 A1:rF J1:r4 A10:bF J10:bX", ISF)


def test_scout_clause_allows_a_move_beyond_the_common_boundary() -> None:
    """I8-A8, A8-H8, H8-D8 all cross D8|E8 ... G8|H8; D8-C8 crosses none of them: allowed."""
    state = scout_state()
    play(state, "I8-A8", "J10-J9", "A8-H8", "J9-J10", "H8-D8", "J10-J9")
    assert state.illegal_reason(mv("D8-C8")) is None
    for target in ("E8", "H8", "I8"):
        reason = state.illegal_reason(mv(f"D8-{target}"))
        assert reason is not None and "two-square rule" in reason and "D8" in reason and "H8" in reason


def test_scout_clause_allows_moves_without_a_common_boundary() -> None:
    """D9-D7, D7-D8, D8-D9 share no boundary (D7|D8 and D8|D9 are never both crossed): D9-D8 is allowed."""
    state = make("D9:r2 A1:rF J1:r4 A10:bF J10:bX", ISF)
    play(state, "D9-D7", "J10-J9", "D7-D8", "J9-J10", "D8-D9", "J10-J9")
    assert state.illegal_reason(mv("D9-D8")) is None
    play(state, "D9-D8")


def test_scout_clause_still_refuses_stopping_one_square_short() -> None:
    state = make("A1:r2 E1:rF J1:r4 A10:bF J10:bX", ISF)
    play(state, "A1-A4", "J10-J9", "A4-A2", "J9-J10", "A2-A3", "J10-J9")
    reason = state.illegal_reason(mv("A3-A2"))
    assert reason is not None and "between A2 and A3" in reason
    assert state.illegal_reason(mv("A3-A4")) is None  # A3|A4 was not crossed by A2-A3


# -- the property test: the engine against a plain reading of the rule text --------------------------------


class ReferenceChase:
    """The chasing rules read plainly from docs/rules.md, on whole boards and named pieces (slow, simple).

    Every piece gets a number when the game starts; a position is where every numbered piece stands.
    """

    def __init__(self, state: State) -> None:
        self.rule = state.ruleset.chase_rule
        self.ids = {sq: n for n, sq in enumerate(state.squares())}  # square -> piece number
        self.owner = {n: state.owner_at(sq) for sq, n in self.ids.items()}
        self.width, self.height = state.ruleset.width, state.ruleset.height
        self.lakes = state.geometry.lakes
        self.chase: dict[int, dict | None] = {RED: None, BLUE: None}

    def neighbours(self, sq: int) -> list[int]:
        out = []
        for d in (1, -1, STRIDE, -STRIDE):
            t = sq + d
            if abs(d) == 1 and t // STRIDE != sq // STRIDE:
                continue
            if 0 <= t < self.height * STRIDE and t % STRIDE < self.width and t not in self.lakes:
                out.append(t)
        return out

    def position(self) -> frozenset[tuple[int, int]]:
        return frozenset((n, sq) for sq, n in self.ids.items())

    def threatened(self, player: int, sq: int) -> set[int]:
        """Numbers of the enemy pieces next to ``sq``."""
        return {self.ids[s] for s in self.neighbours(sq) if s in self.ids and self.owner[self.ids[s]] != player}

    def forbids(self, player: int, f: int, to: int) -> bool:
        """Does the chasing rule forbid ``player``'s move ``f``-``to`` now?"""
        chase = self.chase[player]
        if chase is None or not chase["evaded"] or to in self.ids:
            return False  # no chase waiting for a chasing move, or an attack (never refused)
        mover = self.ids[f]
        after = dict(self.ids)
        del after[f]
        after[to] = mover
        if not {after[s] for s in self.neighbours(to) if s in after} & chase["evaders"]:
            return False  # it threatens no piece that evaded in this chase: not a chasing move
        if self.rule == "square":
            return to in chase["stood"].get(mover, [])
        if chase["last"] == (mover, to, f):
            return False  # straight back to the square it came from
        return frozenset((n, sq) for sq, n in after.items()) in chase["positions"]

    def play(self, state: State, move: Move) -> None:
        """Follow ``move`` (about to be played on ``state``, which decides the battle)."""
        player, f, to = state.turn, move.from_square, move.to_square
        mover = self.ids.pop(f)
        probe = state.copy()
        probe.push(move)
        if to in self.ids:  # a battle: who is left on `to`?
            defender = self.ids.pop(to)
            survivor = probe.owner_at(to)
            if survivor == player:
                self.ids[to] = mover
            elif survivor is not None:
                self.ids[to] = defender
        else:
            self.ids[to] = mover
        stands = self.ids.get(to) == mover
        threats = self.threatened(player, to) if stands else set()
        other = self.chase[1 - player]
        if other is not None:  # the opponent's chase: is this move an evasion?
            if not other["evaded"] and mover in other["threatened"]:
                other["evaded"] = True
                other["evaders"] = {n for n in other["evaders"] | {mover} if n in self.ids.values()}
            else:
                self.chase[1 - player] = None
        mine = self.chase[player]
        evaders_alive = {n for n in mine["evaders"] if n in self.ids.values()} if mine else set()
        if mine is not None and mine["evaded"] and threats & evaders_alive:
            mine.update(evaded=False, threatened=threats, evaders=evaders_alive, last=(mover, f, to))
            mine["stood"].setdefault(mover, []).append(to)
            mine["positions"].add(self.position())
        elif threats:
            self.chase[player] = {"evaded": False, "threatened": threats, "evaders": set(), "last": (mover, f, to),
                                  "stood": {mover: [to]}, "positions": {self.position()}}
        else:
            self.chase[player] = None


def chase_game(rs_name: str, seed: int, plies: int = 120) -> tuple[int, int]:
    """A random game biased towards chases; at every ply each of the mover's moves is judged by the engine
    and by the reference.  Returns (chasing moves judged, moves the rule refused)."""
    base = ISF if rs_name == "isf" else CLASSIC
    rs = base.replace(name=f"{rs_name}-chase-only", two_square_limit=None, draw_limit=None)
    rng = random.Random(seed)
    squares = [sq for sq in range(10 * STRIDE) if sq % STRIDE < 10 and sq not in State(rs).geometry.lakes]
    picked = rng.sample(squares, 10)
    kinds = ["F", "X", "9", "4", "3"]
    spec = " ".join(f"{square_name(sq)}:{'rb'[i % 2]}{kinds[i // 2]}" for i, sq in enumerate(picked))
    state = make(spec, rs)
    ref = ReferenceChase(state)
    judged = refused = 0
    last_mover: int | None = None
    for _ in range(plies):
        if state.outcome() is not None:
            break
        player = state.turn
        pseudo = state._pseudo_legal(player)
        legal = set(state.generate_legal_moves())
        for m in pseudo:
            expected = ref.forbids(player, m.from_square, m.to_square)
            assert (m not in legal) == expected, (
                f"seed {seed} ply {state.ply}: {m} engine {'refuses' if m not in legal else 'allows'}, "
                f"reference {'refuses' if expected else 'allows'}; moves {[str(x) for x in state.move_stack]}")
            chase = ref.chase[player]
            judged += chase is not None and chase["evaded"]
            refused += expected
        if not legal:
            break
        moves = sorted(legal)
        # Bias: follow the piece that just moved (chase it) or move a threatened piece away (evade).
        near = [m for m in moves if last_mover is not None and last_mover in ref.neighbours(m.to_square)
                and not state.board[m.to_square]]
        mine = ref.chase[1 - player]
        fleeing = [m for m in moves if mine and not mine["evaded"] and ref.ids[m.from_square] in mine["threatened"]
                   and not state.board[m.to_square]]
        pool = fleeing if fleeing and rng.random() < 0.9 else near if near and rng.random() < 0.9 else moves
        move = rng.choice(pool)
        ref.play(state, move)
        state.push(move)
        last_mover = move.to_square
    return judged, refused


@pytest.mark.parametrize("rule", ["isf", "classic"])
def test_chase_rules_agree_with_a_plain_reading_of_the_text(rule: str) -> None:
    judged = refused = 0
    for seed in range(150):
        j, r = chase_game(rule, seed)
        judged += j
        refused += r
    assert judged > 10_000  # the games really were full of chases
    assert refused > 40  # and the rule really refused moves in them
