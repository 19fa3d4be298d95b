"""Players: the interface, the random player, the game driver and self-play series."""

from __future__ import annotations

import random

import pytest
from conftest import ALL_RULESETS, RULESET_IDS

from strategolab import BLUE, RED, IllegalMoveError, Move, Ruleset, Setup, State, View, get_ruleset
from strategolab.ai import ComputerPlayer
from strategolab.players import Player, RandomPlayer, game_seed, make_player, play_game, selfplay


class Recorder:
    """A random player that keeps everything the driver hands it."""

    def __init__(self, seed: int = 0) -> None:
        self.inner = RandomPlayer(seed)
        self.name = "recorder"
        self.seen: list[object] = []

    def choose_setup(self, ruleset: Ruleset, rng: random.Random) -> Setup:
        return self.inner.choose_setup(ruleset, rng)

    def choose_move(self, view: View) -> Move:
        self.seen.append(view)
        return self.inner.choose_move(view)


def test_players_follow_the_protocol() -> None:
    for player in (RandomPlayer(1), ComputerPlayer("easy", seed=1), make_player("hard"), Recorder()):
        assert isinstance(player, Player)


def test_make_player_knows_the_names() -> None:
    assert isinstance(make_player("random", 3), RandomPlayer)
    for level in ("easy", "medium", "hard"):
        player = make_player(level, 5)
        assert isinstance(player, ComputerPlayer) and player.level.name == level and player.seed == 5
    with pytest.raises(ValueError, match="unknown player"):
        make_player("grandmaster")


def test_random_player_picks_a_legal_move_reproducibly() -> None:
    state = State.random("classic", 4)
    view = state.view(RED)
    moves = [RandomPlayer(9).choose_move(view) for _ in range(3)]
    assert len(set(moves)) == 1 and moves[0] in view.generate_legal_moves()
    others = {RandomPlayer(seed).choose_move(view) for seed in range(20)}
    assert len(others) > 1


@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=RULESET_IDS)
def test_random_setups_are_valid(ruleset: Ruleset) -> None:
    assert RandomPlayer().choose_setup(ruleset, random.Random(1)).is_valid()


def test_play_game_hands_each_player_only_its_view() -> None:
    red, blue = Recorder(1), Recorder(2)
    state = play_game(red, blue, "pocket", seed=3, max_plies=60)
    assert red.seen and blue.seen
    for player, side in ((red, RED), (blue, BLUE)):
        for view in player.seen:
            assert type(view) is View and view.player == side and view.turn == side
            enemy = view.squares(1 - side)
            hidden = [s for s in enemy if not view.is_revealed(s)]
            assert all(view.piece_at(s) is None for s in hidden)
    assert len(red.seen) + len(blue.seen) == len(state.move_stack)


@pytest.mark.parametrize("ruleset", ["pocket", "barrage"])
def test_random_games_end_and_replay_identically(ruleset: str) -> None:
    a = play_game(RandomPlayer(1), RandomPlayer(2), ruleset, seed=11)
    b = play_game(RandomPlayer(1), RandomPlayer(2), ruleset, seed=11)
    assert a.outcome() is not None
    assert a.move_stack == b.move_stack and a.outcome() == b.outcome()


def test_max_plies_stops_a_game_that_would_run_on() -> None:
    endless = get_ruleset("classic").replace(name="endless", draw_limit=None, two_square_limit=None,
                                             chase_rule=None)
    state = play_game(RandomPlayer(1), RandomPlayer(2), endless, seed=1, max_plies=50)
    assert len(state.move_stack) <= 50


def test_observer_sees_every_move_before_it_is_played() -> None:
    seen: list[tuple[int, int, Move, float]] = []

    def observe(state: State, side: int, move: Move, seconds: float) -> None:
        assert state.turn == side and state.is_legal(move) and seconds >= 0
        seen.append((len(state.move_stack), side, move, seconds))

    state = play_game(RandomPlayer(1), RandomPlayer(2), "pocket", seed=5, observer=observe)
    assert [m for _, _, m, _ in seen] == state.move_stack
    assert [n for n, _, _, _ in seen] == list(range(len(state.move_stack)))


class Cheater(RandomPlayer):
    """Tries to move an enemy piece: the driver must refuse it."""

    def choose_move(self, view: View) -> Move:
        enemy = view.squares(1 - view.player)[0]
        return Move(enemy, enemy + 1)


def test_an_illegal_move_is_refused_with_the_player_named() -> None:
    with pytest.raises(IllegalMoveError, match="cheater"):
        play_game(Cheater(name="cheater"), RandomPlayer(), "classic", seed=1)


class BadSetup(RandomPlayer):
    def choose_setup(self, ruleset: Ruleset, rng: random.Random) -> Setup:
        return Setup(ruleset, (None,) * len(Setup.random(ruleset, rng).pieces))


def test_an_invalid_setup_is_refused() -> None:
    with pytest.raises(ValueError, match="invalid setup"):
        play_game(BadSetup(name="bad"), RandomPlayer(), "pocket", seed=1)


def test_selfplay_series_is_reproducible_and_alternates_colours() -> None:
    red, blue = RandomPlayer(1, name="one"), RandomPlayer(2, name="two")
    games = list(selfplay(red, blue, "pocket", n=4, seed=8))
    again = list(selfplay(red, blue, "pocket", n=4, seed=8))
    assert len(games) == 4 and all(g.outcome() is not None for g in games)
    assert [g.move_stack for g in games] == [g.move_stack for g in again]
    assert len({tuple(g.move_stack) for g in games}) > 1
    # Game i of a series is play_game with game_seed(seed, i); alternate swaps the colours of odd games.
    assert games[2].move_stack == play_game(red, blue, "pocket", game_seed(8, 2)).move_stack
    swapped = list(selfplay(red, blue, "pocket", n=2, seed=8, alternate=True))
    assert swapped[0].move_stack == games[0].move_stack
    assert swapped[1].move_stack == play_game(blue, red, "pocket", game_seed(8, 1)).move_stack
