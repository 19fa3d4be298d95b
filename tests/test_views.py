"""Views: what one player knows, and proof that a view carries no hidden identity."""

from __future__ import annotations

import pickle
import random

import pytest
from conftest import make, permute_hidden, play, random_game

from strategolab import BLUE, CLASSIC, RED, BattleResult, Piece, Setup, State, View
from strategolab.board import parse_square

PLAYERS = pytest.mark.parametrize("player", (RED, BLUE), ids=("red", "blue"))


def sq(name: str) -> int:
    return parse_square(name)


@PLAYERS
def test_own_pieces_are_visible(player: int) -> None:
    state = State.random(CLASSIC, 3)
    view = state.view(player)
    assert view.player == player
    for s in state.squares(player):
        assert view.piece_at(s) == state.piece_at(s)
        assert not view.is_unknown(s)


@PLAYERS
def test_enemy_pieces_are_unknown_at_the_start(player: int) -> None:
    state = State.random(CLASSIC, 3)
    view = state.view(player)
    enemy = state.squares(1 - player)
    assert view.unknown_squares() == enemy
    for s in enemy:
        assert view.is_unknown(s)
        assert view.piece_at(s) is None
        assert view.owner_at(s) == 1 - player
    assert "40 unknown pieces" in repr(view)


@PLAYERS
def test_unknown_pieces_show_as_question_marks(player: int) -> None:
    view = State.random(CLASSIC, 3).view(player)
    enemy_letter = "rb"[1 - player]
    assert str(view).count(f"{enemy_letter}?") == 40


def test_blue_sees_moved_red_pieces_as_unknown() -> None:
    """The part of Blue's view that works: a Red piece that has moved is shown as an unknown Red piece."""
    state = make("E4:rX A1:rF J10:bF J9:b4")
    play(state, "E4-E5")
    view = state.view(BLUE)
    assert view.is_unknown(sq("E5")) and view.owner_at(sq("E5")) == RED and view.has_moved(sq("E5"))


@PLAYERS
def test_piece_revealed_by_a_battle_it_survived(player: int) -> None:
    """Red's Marshal dies on a Bomb (the Bomb is revealed); Blue's General takes a Red Spy (revealed too)."""
    state = make("E3:rX E4:bB A4:rS A5:b9 A1:rF J10:bF")
    play(state, "E3-E4", "A5-A4")
    view = state.view(player)
    assert view.piece_at(sq("E4")) == Piece(BLUE, CLASSIC.piece_type("B"))
    assert view.piece_at(sq("A4")) == Piece(BLUE, CLASSIC.piece_type("9"))
    assert view.piece_at(sq("E3")) is None and view.piece_at(sq("A5")) is None
    assert view.captured(RED) == [CLASSIC.piece_type("X"), CLASSIC.piece_type("S")]
    assert view.captured(BLUE) == []
    last = view.last_battle()
    assert last is not None and last.result == BattleResult.ATTACKER_WINS and last.square == sq("A4")
    assert [i for i, _ in view.battles] == [0, 1]


def test_winning_attacker_is_revealed_to_the_other_player() -> None:
    state = make("E3:r3 E4:bB A1:rF J10:bF J9:b4")
    play(state, "E3-E4")
    assert state.view(BLUE).piece_at(sq("E4")) == Piece(RED, CLASSIC.piece_type("3"))
    play(state, "J9-J8")
    assert state.view(BLUE).last_battle() is None


def test_scout_run_reveals_to_the_opponent() -> None:
    state = make("A1:r2 B1:r2 J1:rF J10:bF J9:b2 I9:b2")
    play(state, "A1-A4", "J9-J6", "B1-B2", "I9-I8")
    red_view, blue_view = state.view(RED), state.view(BLUE)
    assert blue_view.piece_at(sq("A4")) == Piece(RED, CLASSIC.piece_type("2"))
    assert red_view.piece_at(sq("J6")) == Piece(BLUE, CLASSIC.piece_type("2"))
    assert red_view.is_unknown(sq("I8")) and red_view.has_moved(sq("I8"))
    assert blue_view.is_unknown(sq("B2")) and blue_view.has_moved(sq("B2"))


def test_moved_markers_of_enemy_pieces() -> None:
    state = State.random(CLASSIC, 12)
    red_move = next(m for m in state.generate_legal_moves())
    state.push(red_move)
    blue_move = next(m for m in state.generate_legal_moves() if state.piece_at(m.to_square) is None)
    state.push(blue_move)
    view = state.view(RED)
    assert view.has_moved(blue_move.to_square) and view.is_unknown(blue_move.to_square)
    assert sum(view.has_moved(s) for s in view.unknown_squares()) == 1
    assert view.move_stack == [red_move, blue_move] and view.peek() == blue_move


def test_view_is_a_snapshot() -> None:
    state = State.random(CLASSIC, 1)
    view = state.view(RED)
    before = pickle.dumps(view)
    state.push(state.generate_legal_moves()[0])
    assert pickle.dumps(view) == before and view.ply == 0 and view.peek() is None


def test_view_is_built_only_from_a_state() -> None:
    with pytest.raises(TypeError, match=r"state\.view"):
        View(CLASSIC)
    with pytest.raises(ValueError, match="player must be 0"):
        State.random(CLASSIC, 1).view(2)


# -- no hidden identity in a view ------------------------------------------------------------------------


def shuffled_enemy(setup: Setup, seed: int) -> Setup:
    pieces = list(setup.pieces)
    random.Random(seed).shuffle(pieces)
    return Setup(setup.ruleset, tuple(pieces))


@PLAYERS
def test_views_of_states_differing_in_hidden_identities_pickle_identically(player: int) -> None:
    red, blue = Setup.random(CLASSIC, 1), Setup.random(CLASSIC, 2)
    a = State.new(red, blue)
    b = State.new(red, shuffled_enemy(blue, 9)) if player == RED else State.new(shuffled_enemy(red, 9), blue)
    assert a.board != b.board
    assert pickle.dumps(a.view(player)) == pickle.dumps(b.view(player))
    assert repr(a.view(player)) == repr(b.view(player)) and str(a.view(player)) == str(b.view(player))


@PLAYERS
@pytest.mark.parametrize("seed", range(4))
def test_mid_game_views_pickle_identically(player: int, seed: int) -> None:
    state = random_game(CLASSIC, seed, 120)
    twin = permute_hidden(state, player, random.Random(seed))
    assert pickle.dumps(state.view(player)) == pickle.dumps(twin.view(player))


def test_hidden_piece_names_appear_nowhere_in_a_view() -> None:
    """Blue's Spy, Bomb and Flag are hidden: no trace of them in the view's data, text or repr."""
    state = make("E4:rX A1:rF E7:bS J9:bB J10:bF")
    view = state.view(RED)
    data = {k: v for k, v in view.__getstate__().items() if k != "ruleset"}  # the rule set is public
    blob = pickle.dumps(data)
    for name in (b"Spy", b"Bomb", b"Flag"):
        assert name not in blob
    text = str(view) + repr(view)
    for hidden in ("bS", "bB", "bF", "Spy", "Bomb"):
        assert hidden not in text
    assert text.count("b?") == 3
    assert pickle.loads(pickle.dumps(view)).board == view.board


def test_view_pickle_round_trip_keeps_working() -> None:
    state = random_game(CLASSIC, 3, 60)
    view = state.view(RED)
    back = pickle.loads(pickle.dumps(view))
    assert back.board == view.board and back.player == RED and back.battles == view.battles
    assert back.generate_legal_moves(RED) == view.generate_legal_moves(RED)


# -- legal moves from a view -----------------------------------------------------------------------------


@PLAYERS
def test_legal_moves_from_a_view_equal_the_states(player: int) -> None:
    for seed in range(4):
        state = random_game(CLASSIC, seed, 2 * seed)  # the start, and a few moves in
        view = state.view(player)
        assert view.generate_legal_moves(player) == state.generate_legal_moves(player), seed
        if state.turn == player:
            assert list(view.legal_moves) == list(state.legal_moves)


def test_blue_view_scout_stops_at_an_unmoved_red_piece() -> None:
    state = make("A4:r3 A1:rF A7:b2 J10:bF", turn=BLUE)
    view = state.view(BLUE)
    assert view.owner_at(sq("A4")) == RED
    assert "A7-A3" not in {str(m) for m in view.generate_legal_moves(BLUE)}  # it cannot run through A4


def test_legal_moves_from_red_view_mid_game() -> None:
    for seed in range(5):
        state = random_game(CLASSIC, seed, 150)
        assert state.view(RED).generate_legal_moves(RED) == state.generate_legal_moves(RED)
