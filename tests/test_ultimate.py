"""Ultimate Lightning as the engine plays it (rules established from the Gravon archive: docs/gravon.md)."""

from __future__ import annotations

import pytest
from conftest import make, mv, play

from strategolab import IllegalMoveError, Rescue, State, attack_table, parse_square
from strategolab.notation import read_game, write_game
from strategolab.records import Game
from strategolab.rules import GRAVON_ULTIMATE_LIGHTNING as UL
from strategolab.rules import BattleResult

W, L, EQ = BattleResult.ATTACKER_WINS, BattleResult.DEFENDER_WINS, BattleResult.BOTH_DIE


def targets(state: State, square: str) -> set[str]:
    return {str(m).split("-")[1] for m in state.legal_moves if str(m).startswith(square + "-")}


def test_captains_move_up_to_two_squares_also_round_a_corner() -> None:
    state = make("E3:r6 E4:r4 A1:rF J10:bF", UL)
    assert targets(state, "E3") == {"D3", "F3", "E2", "C3", "G3", "E1", "D2", "F2", "D4", "F4"}
    state = make("E3:r6 E4:b4 D3:r3 A1:rF J10:bF", UL)
    assert "E4" in targets(state, "E3")  # an attack one square away
    assert "E5" not in targets(state, "E3")  # not through the enemy piece
    assert "D4" not in targets(state, "E3")  # both ways round the corner are blocked (D3 own, E4 enemy)
    assert "F4" in targets(state, "E3")  # round the corner through the empty F3
    reason = state.illegal_reason(mv("E3-C3"))
    assert reason is not None and "at most two squares" in reason


def test_a_captain_attacks_on_its_second_square_and_shows_itself_round_a_corner() -> None:
    state = make("E3:r6 F4:b5 A1:rF J10:bF", UL)
    assert state.push_checked("E3-F4").result == W  # round the corner, then the attack
    state = make("E3:r6 A1:rF J10:bF", UL)
    state.push_checked("E3-E5")
    assert not state.is_revealed(parse_square("E5"))  # a Scout could have run two squares straight
    state = make("E3:r6 A1:rF J10:bF", UL)
    state.push_checked("E3-F4")
    assert state.is_revealed(parse_square("F4"))  # only a Captain turns a corner


def test_equal_ranks_the_attacker_wins_and_bombs_go_off_once() -> None:
    table = attack_table(UL)
    assert table["Major", "Major"] == W and table["Spy", "Spy"] == W
    assert table["Marshal", "Bomb"] == EQ and table["Miner", "Bomb"] == EQ  # removed with the piece that hit it
    assert table["Scout", "Bomb"] == W  # a Scout clears a Bomb and stands on its square
    assert table["Spy", "Marshal"] == W and table["Marshal", "Spy"] == W


def rescue_start() -> State:
    """Red's Marshal has fallen on a Bomb; Red's Sergeant on E9 and Scout on A9 are one step from row 10."""
    state = make("B4:rX B5:bB E9:r4 A9:r2 A1:rF J10:bF J8:b5", UL)
    play(state, "B4-B5", "J8-J7")
    assert state.captured(0) == [UL.piece_type("Marshal")]
    return state


def test_a_piece_on_the_enemy_back_row_rescues_a_captured_piece() -> None:
    state = rescue_start()
    play(state, "E9-E10")
    marshal = UL.piece_type("Marshal")
    assert state.rescue_reason(Rescue(parse_square("E7"), marshal)) is not None  # not on Red's half
    assert "no captured General" in state.rescue_reason(Rescue(parse_square("C3"), UL.piece_type("General")))
    assert "not empty" in state.rescue_reason(Rescue(parse_square("A1"), marshal))
    state.add_rescue(Rescue(parse_square("C3"), marshal))
    assert state.piece_at(parse_square("C3")).type is marshal and state.rescue_at(len(state.move_stack) - 1)
    with pytest.raises(IllegalMoveError, match="already made a rescue"):
        state.add_rescue(Rescue(parse_square("D3"), marshal))
    state.pop()
    assert state.piece_at(parse_square("C3")) is None and state.piece_at(parse_square("E9")) is not None


def test_scouts_may_not_rescue_and_one_piece_rescues_once() -> None:
    state = rescue_start()
    play(state, "A9-A10")
    assert "Scout may not make a rescue" in state.rescue_reason(Rescue(parse_square("C3"), UL.piece_type("Marshal")))
    state.pop()
    play(state, "E9-E10")
    state.add_rescue(Rescue(parse_square("C3"), UL.piece_type("Marshal")))
    play(state, "J7-J6", "C3-C4", "J6-J5", "C4-B4", "J5-J4")
    play(state, "B4-B5", "J4-J3")  # the rescued Marshal walks on (the Bomb's square is empty now)
    play(state, "E10-E9", "J3-J2", "E9-E10")
    reason = state.rescue_reason(Rescue(parse_square("C3"), UL.piece_type("Marshal")))
    assert reason is not None and "already made a rescue" in reason


def rescued_game() -> Game:
    """A short game in which Red's Sergeant reaches the back row at E10 and rescues its Marshal onto C3."""
    state = rescue_start()
    play(state, "E9-E10")
    state.add_rescue(Rescue(parse_square("C3"), UL.piece_type("Marshal")))
    play(state, "J7-J6", "C3-C4")
    return Game.from_state(state)


def test_rescues_go_through_the_notation_and_back() -> None:
    game = rescued_game()
    text = write_game(game)
    assert "E9-E10 +X@C3" in text
    assert read_game(text) == game
    with pytest.raises(Exception, match=r"illegal rescue \+X@E7"):
        read_game(text.replace("+X@C3", "+X@E7"))
    with pytest.raises(Exception, match=r"rescue \+Q@C3"):
        read_game(text.replace("+X@C3", "+Q@C3"))


def test_the_replay_controller_steps_through_rescues() -> None:
    from strategolab.controllers import ReplayController

    game = rescued_game()
    replay = ReplayController(game)
    replay.goto(replay.length)
    assert replay._state == game.end().state() and replay._state.piece_at(parse_square("C4")) is not None
    replay.goto(0)
    assert replay._state.piece_at(parse_square("C3")) is None
