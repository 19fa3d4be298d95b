"""The state API: moves and their parsing, refusal reasons, push/pop/copy, position strings, constructors."""

from __future__ import annotations

import pytest
from conftest import make, mv, play

from strategolab import (
    BLUE,
    CLASSIC,
    ORIGINAL_1961,
    POCKET,
    RED,
    BattleResult,
    IllegalMoveError,
    Move,
    Outcome,
    Piece,
    Setup,
    SetupError,
    State,
    Termination,
    parse_square,
)
from strategolab.board import A1, A4, A5, E4, E5, J9, J10
from strategolab.rules import MARSHAL, MINE

# -- Move ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["A4-A5", "a4-a5", "A4A5", "a4 a5", "A4xA5", " A4-A5 "])
def test_move_parse_spellings(text: str) -> None:
    assert Move.parse(text) == Move(A4, A5)


def test_move_values() -> None:
    m = Move.parse("J10-J9")
    assert (m.from_square, m.to_square) == (J10, J9)
    assert str(m) == "J10-J9"
    assert eval(repr(m), {"Move": Move}) == m
    assert len({Move.parse("E4-E5"), Move(E4, E5)}) == 1


@pytest.mark.parametrize("text", ["", "A4", "A4-", "Z4-A5", "A4-A0", "hello"])
def test_move_parse_rejects_garbage(text: str) -> None:
    with pytest.raises(ValueError, match="is not a move"):
        Move.parse(text)


# -- refusal reasons -------------------------------------------------------------------------------------

# Red: Marshal E4, Miner A4, Scouts B1 and A6, Sergeant B3 and B5, Bomb J1, Flag I1; Blue: Lieutenant E7, Flag J10.
POSITION = "E4:rX A4:r3 B1:r2 B3:r4 B5:r4 A6:r2 J1:rB I1:rF E7:b5 J10:bF"

REASONS = [
    ("E5-E6", ["no piece on E5"]),
    ("E7-E6", ["the piece on E7 is Blue's", "Red's turn"]),
    ("J1-J2", ["Bomb", "cannot move"]),
    ("I1-I2", ["Flag", "cannot move"]),
    ("B5-C5", ["C5 is a lake"]),
    ("C5-C4", ["C5 is a lake"]),
    ("A6-E6", ["A6 to E6 crosses a lake"]),
    ("E4-F5", ["E4-F5 is not a straight line", "diagonal"]),
    ("A4-A2", ["Miner", "one square at a time"]),
    ("E4-E6", ["Marshal", "one square at a time"]),
    ("B1-B4", ["from B1 to B4 is blocked on B3"]),
    ("B1-B3", ["B3 holds your own piece"]),
    ("E4-D4", []),  # legal
    ("E4-E4", ["another square"]),
    ("J1-K1", ["K1 is not on the board"]),
    ("K1-J1", ["K1 is not on the board"]),
    ("E4-E11", ["E11 is not on the board"]),
]


@pytest.mark.parametrize(("text", "words"), REASONS, ids=[t for t, _ in REASONS])
def test_refusal_reasons(text: str, words: list[str]) -> None:
    state = make(POSITION)
    before = state.copy()
    move = mv(text)
    reason = state.illegal_reason(move)
    if not words:
        assert reason is None and move in state.legal_moves and state.is_legal(move)
        return
    assert reason is not None
    for w in words:
        assert w in reason
    assert move not in state.legal_moves and not state.is_legal(move)
    assert move not in state.generate_legal_moves()
    with pytest.raises(IllegalMoveError) as err:
        state.push_checked(move)
    assert err.value.reason == reason and err.value.move == move
    assert isinstance(err.value, ValueError)
    assert state == before and state.position() == before.position()
    with pytest.raises(IllegalMoveError):
        state.find_move(move.from_square, move.to_square)


@pytest.mark.parametrize("text", ["J1-J2", "I1-I2", "A4-A2"])
def test_refusal_reasons_name_the_square(text: str) -> None:
    reason = make(POSITION).illegal_reason(mv(text))
    assert text[:2] in reason


def test_square_numbers_off_the_board() -> None:
    state = make(POSITION)
    assert state.illegal_reason(Move(-3, E4)) == "-3 is not on the board"
    assert "not on the board" in state.illegal_reason(Move(E4, 10 * 16 + 4))
    assert "not on the board" in state.illegal_reason(Move(E4, 99 * 16 + 4))


def test_pocket_squares_beyond_the_six_columns_are_off_the_board() -> None:
    state = make("F1:r5 A1:rF A6:bF", POCKET)
    assert state.illegal_reason(mv("F1-G1")) == "G1 is not on the board"
    assert state.illegal_reason(mv("A6-A5")).startswith("the piece on A6 is Blue's")


def test_original_1961_run_and_attack_reason() -> None:
    state = make("A1:r2 A7:b4 J1:rF J10:bF", ORIGINAL_1961)
    reason = state.illegal_reason(mv("A1-A7"))
    assert reason == "the Scout on A1 may not move more than one square and attack in the same turn"


def test_refusals_after_the_game_is_over() -> None:
    state = make("B2:r3 B3:bF A1:rF J10:bX J1:r4")
    play(state, "B2-B3")
    assert state.outcome() == Outcome(Termination.FLAG_CAPTURED, RED)
    before = state.copy()
    with pytest.raises(IllegalMoveError) as err:
        state.push_checked("J10-J9")
    assert "game is over" in err.value.reason and "Red wins" in err.value.reason
    assert state == before


def test_illegal_reason_and_find_move_refuse_after_the_game_is_over() -> None:
    state = make("B2:r3 B3:bF A1:rF J10:bX J1:r4")
    play(state, "B2-B3")
    assert "game is over" in (state.illegal_reason(mv("J10-J9")) or "")
    with pytest.raises(IllegalMoveError, match="game is over"):
        state.find_move("J10", "J9")


def test_push_checked_with_illegal_repetition_leaves_state_unchanged() -> None:
    state = make("A1:rX J10:bX E1:rF E10:bF")
    play(state, "A1-A2", "J10-J9", "A2-A1", "J9-I9", "A1-A2", "I9-I10")
    before = state.copy()
    with pytest.raises(IllegalMoveError, match="two-square rule"):
        state.push_checked("A2-A1")
    assert state == before and state.generate_legal_moves() == before.generate_legal_moves()


# -- legal move collections ------------------------------------------------------------------------------


def test_legal_moves_is_a_lazy_collection() -> None:
    state = make("E4:rX A1:rF J10:bF")
    legal = state.legal_moves
    assert len(legal) == 4 and bool(legal)
    assert {str(m) for m in legal} == {"E4-E5", "E4-E3", "E4-D4", "E4-F4"}
    assert mv("E4-E5") in legal and mv("E4-E6") not in legal and "E4-E5" in legal and "e4 e6" not in legal
    state.push(mv("E4-E5"))
    assert len(legal) == 0  # it follows the position: Blue has no movable piece
    assert "LegalMoves" in repr(state.legal_moves)
    assert state.legal_targets(E5) == []
    state.pop()
    assert set(state.legal_targets(E4)) == {parse_square(s) for s in ("E5", "E3", "D4", "F4")}


def test_generate_legal_moves_for_either_player() -> None:
    state = make("E4:rX E8:b3 A1:rF J10:bF")
    assert {str(m) for m in state.generate_legal_moves(BLUE)} == {"E8-E9", "E8-E7", "E8-D8", "E8-F8"}
    assert state.has_legal_move(BLUE) and state.turn == RED


def test_find_move() -> None:
    state = make("E4:rX A1:rF J10:bF")
    assert state.find_move("E4", "E5") == Move(E4, E5)
    assert state.find_move(E4, E5) == Move(E4, E5)
    with pytest.raises(IllegalMoveError, match="no piece on E6"):
        state.find_move("E6", "E7")


# -- push, pop, copy -------------------------------------------------------------------------------------


def test_push_reports_battles_and_pop_undoes_them() -> None:
    state = make("E4:rX E5:b9 A1:rF J10:bF J9:b4")
    before = state.copy()
    battle = state.push_checked("E4-E5")
    assert battle.result == BattleResult.ATTACKER_WINS and str(battle) == "Red Marshal takes Blue General on E5"
    assert state.turn == BLUE and state.ply == 1 and state.peek() == Move(E4, E5)
    assert state.captured(BLUE) == [state.ruleset.piece_type("9")]
    assert state.battles == [(0, battle)] and state.battle_at(0) == battle
    assert state.pop() == Move(E4, E5)
    assert state == before
    assert state.piece_at(E5) == Piece(BLUE, state.ruleset.piece_type("9"))
    assert not state.is_revealed(E5) and not state.has_moved(E4)


def test_quiet_move_marks_moved_and_not_revealed() -> None:
    state = make("E4:rX A1:rF J10:bF J9:b4")
    assert state.push_checked("E4-E5") is None
    assert state.has_moved(E5) and not state.is_revealed(E5) and state.piece_at(E4) is None
    assert state.battle_at(0) is None


def test_copy_is_independent() -> None:
    state = State.random("classic", 8)
    play(state, *[str(state.generate_legal_moves()[0])])
    c = state.copy()
    assert c == state and c is not state
    c.push(c.generate_legal_moves()[0])
    assert c != state and len(state.move_stack) == 1 and len(c.move_stack) == 2
    c.pop()
    assert c == state
    c.pop()
    assert state.ply == 1 and len(state.move_stack) == 1


def test_equality_sees_history() -> None:
    a = make("E4:rX' A1:rF J10:bX'")
    b = a.copy()
    play(a, "E4-E5", "J10-J9", "E5-E4", "J9-J10")
    assert a.position().split()[0] == b.position().split()[0]
    assert a != b
    assert a != "not a state"


def test_set_piece_only_before_the_first_move() -> None:
    state = make("E4:rX A1:rF J10:bX")
    play(state, "E4-E5")
    with pytest.raises(ValueError, match="before the first move"):
        state.set_piece(A1, None)


def test_set_piece_refuses_foreign_pieces_lakes_and_off_board() -> None:
    state = State.empty()
    with pytest.raises(SetupError, match="Mine is not a piece of classic"):
        state.set_piece(A1, Piece(RED, MINE))
    with pytest.raises(SetupError, match="C5 is a lake"):
        state.set_piece("C5", Piece(RED, MARSHAL))
    with pytest.raises(SetupError, match="K1 is not on the 10x10 board"):
        state.set_piece("K1", Piece(RED, MARSHAL))
    state.set_piece("E4", Piece(RED, MARSHAL))
    state.set_piece("E4", None)
    assert state.squares() == []


# -- constructors and position strings -------------------------------------------------------------------


def test_new_from_setup_strings_and_checks_them() -> None:
    red, blue = Setup.random("classic", 1), Setup.random("classic", 2)
    state = State.new(str(red), str(blue))
    assert state == State.new(red, blue)
    assert len(state.squares(RED)) == 40 and len(state.squares(BLUE)) == 40
    assert state.ruleset is CLASSIC and state.ply == 0 and state.quiet == 0
    bad = str(red).replace("X", "9")
    with pytest.raises(SetupError, match="Marshal"):
        State.new(bad, str(blue))
    with pytest.raises(SetupError, match="Blue's setup is for pocket, the game is classic"):
        State.new(red, Setup.random("pocket", 1), "classic")


def test_random_state_is_reproducible() -> None:
    assert State.random("classic", 42) == State.random("classic", 42)
    assert State.random("classic", 42).position() != State.random("classic", 43).position()


def test_from_placements() -> None:
    state = State.from_placements({"E4": Piece(RED, MARSHAL), E5: Piece(BLUE, MARSHAL)}, "classic", turn=BLUE)
    assert state.turn == BLUE and state.piece_at(E4) == Piece(RED, MARSHAL) and state.owner_at(E5) == BLUE
    assert state.squares(RED) == [E4] and state.squares() == [E4, E5]


def test_position_string_round_trip() -> None:
    state = make("E4:rX E7:b5 A1:rF J10:bF J9:bB A6:r2")
    play(state, "A6-A9", "E7-E6", "E4-E5")
    text = state.position()
    assert text.split()[1:] == ["b", "3", "3"]
    assert "r2'!" in text and "b5'" in text and "~" in text
    back = State.from_position(text)
    assert back.board == state.board and back.turn == state.turn
    assert (back.quiet, back.ply) == (state.quiet, state.ply)
    assert back.position() == text
    assert eval(repr(state), {"State": State}).position() == text


def test_position_string_of_other_rulesets_carries_the_name() -> None:
    state = State.random("pocket", 3)
    assert repr(state).endswith(", 'pocket')")
    assert eval(repr(state), {"State": State}).board == state.board


@pytest.mark.parametrize(("text", "message"), [
    ("x r 0 0", "position has 1 rows"),
    ("../" * 9 + ".. r 0 0", "row 10 has 2 squares"),
    (State.empty().position().replace("~", ".", 1), "C6 is a lake"),
    (State.empty().position().replace(" r ", " g "), "side to move"),
    (State.empty().position().replace("..........", "..rQ......", 1), "has no piece 'Q'"),
    ("only three parts", "expected '<rows>"),
])
def test_position_string_errors(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        State.from_position(text)


def test_outcome_values() -> None:
    o = Outcome(Termination.NO_LEGAL_MOVE, BLUE)
    assert o.result() == "0-1" and str(o) == "Blue wins (no legal move)"
    assert str(Outcome(Termination.QUIET_MOVE_LIMIT, None)) == "draw (quiet-move draw)"
    assert Outcome(Termination.FLAG_CAPTURED, RED).result() == "1-0"


def test_diagram_shows_every_piece_and_the_lakes() -> None:
    text = str(make("E4:rX E7:b5 A1:rF J10:bF"))
    lines = text.splitlines()
    assert lines[0].startswith("10") and lines[-1].split() == list("ABCDEFGHIJ")
    assert " rX" in lines[6] and " b5" in lines[3] and "~~" in lines[4]
