"""Property tests over random games of every rule set: conservation, lakes, undo, copies, position strings,
views that never leak, and agreement between the move generator and ``illegal_reason``."""

from __future__ import annotations

import copy
import pickle
import random
from collections import Counter
from collections.abc import Iterator

from conftest import ALL_RULESETS, census, permute_hidden, pick_move, random_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategolab import BLUE, RED, Battle, BattleResult, Game, Move, Ruleset, State, Termination
from strategolab.board import STRIDE, geometry
from strategolab.state import KIND, OWNER, REVEALED

rulesets = st.sampled_from(ALL_RULESETS)
seeds = st.integers(0, 2**32 - 1)
lengths = st.integers(0, 800)
examples = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def walk(rs: Ruleset, seed: int, plies: int) -> Iterator[tuple[State, Move, Battle | None]]:
    """The moves of :func:`random_game`, yielding the state after every push with the move and its battle."""
    rng = random.Random(seed)
    state = State.random(rs, rng)
    for _ in range(plies):
        if state.outcome() is not None:
            return
        assert state.generate_legal_moves(), "outcome() is None but there is no legal move"
        move = pick_move(state, rng)
        battle = state.push(move)
        yield state, move, battle


@examples
@given(rs=rulesets, seed=seeds, plies=lengths)
def test_pieces_leave_the_board_only_through_battles(rs: Ruleset, seed: int, plies: int) -> None:
    before = None
    for state, move, battle in walk(rs, seed, plies):
        after = census(state)
        if before is not None:
            lost = before - after
            assert not (after - before), f"pieces appeared after {move}"
            if battle is None:
                assert not lost, f"pieces vanished in the quiet move {move}"
            else:
                a, d = (battle.attacker.owner, battle.attacker.type.name), (battle.defender.owner,
                                                                          battle.defender.type.name)
                expected = {BattleResult.ATTACKER_WINS: Counter([d]), BattleResult.DEFENDER_WINS: Counter([a]),
                            BattleResult.BOTH_DIE: Counter([a, d])}[battle.result]
                assert lost == expected, f"{battle}"
                assert battle.square == move.to_square and battle.attacker.owner == 1 - state.turn
        before = after


@examples
@given(rs=rulesets, seed=seeds, plies=lengths)
def test_nobody_ever_stands_on_a_lake_or_off_the_board(rs: Ruleset, seed: int, plies: int) -> None:
    geo = geometry(rs)
    outside = [s for s in range(geo.size) if s in geo.lakes or s % STRIDE >= geo.width]
    for state, move, _ in walk(rs, seed, plies):
        assert move.to_square not in geo.lakes
        assert not any(state.board[s] for s in outside), f"a piece on a lake or off the board after {move}"


@examples
@given(rs=rulesets, seed=seeds, plies=lengths)
def test_pop_restores_the_state_exactly(rs: Ruleset, seed: int, plies: int) -> None:
    snapshots = []
    state = None
    for state, _, _ in walk(rs, seed, plies):
        snapshots.append(state.copy())
    if state is None:
        return
    for snap in reversed(snapshots):
        assert state == snap
        assert state.position() == snap.position()
        assert state.generate_legal_moves() == snap.generate_legal_moves()
        assert state.outcome() == snap.outcome()
        state.pop()
    assert state == State.random(rs, random.Random(seed))
    assert state.move_stack == [] and state.ply == 0 and state.quiet == 0


@examples
@given(rs=rulesets, seed=seeds, plies=lengths, extra=st.integers(1, 20))
def test_copy_is_independent(rs: Ruleset, seed: int, plies: int, extra: int) -> None:
    state = random_game(rs, seed, plies)
    frozen = state.copy()
    text = state.position()
    other = state.copy()
    rng = random.Random(seed)
    for _ in range(extra):
        if other.outcome() is not None:
            break
        other.push(rng.choice(other.generate_legal_moves()))
    assert state == frozen and state.position() == text
    while len(other.move_stack) > len(state.move_stack):
        other.pop()
    assert other == state


@examples
@given(rs=rulesets, seed=seeds, plies=lengths)
def test_position_string_rebuilds_board_turn_and_counters(rs: Ruleset, seed: int, plies: int) -> None:
    state = random_game(rs, seed, plies)
    back = State.from_position(state.position(), rs)
    assert back.board == state.board
    assert (back.turn, back.quiet, back.ply) == (state.turn, state.quiet, state.ply)
    assert back.position() == state.position()
    assert back.quiet_moves_left == state.quiet_moves_left


@examples
@given(rs=rulesets, seed=seeds, plies=lengths, shuffle=seeds)
def test_views_never_leak_hidden_identities(rs: Ruleset, seed: int, plies: int, shuffle: int) -> None:
    state = random_game(rs, seed, plies)
    # How a game ends (who can still move) depends on hidden identities, and is announced to both players
    # when it happens: compare the views while the game is still on.
    while state.outcome() is not None:
        state.pop()
    for player in (RED, BLUE):
        view = state.view(player)
        enemy = (1 - player) << 5
        for code in view.board:
            if code and code & OWNER == enemy and not code & REVEALED:
                assert not code & KIND  # no kind bits for an unrevealed enemy piece
        twin = permute_hidden(state, player, random.Random(shuffle))
        assert pickle.dumps(twin.view(player)) == pickle.dumps(view)
        assert str(twin.view(player)) == str(view) and repr(twin.view(player)) == repr(view)


@examples
@given(rs=rulesets, seed=seeds, plies=lengths)
def test_red_view_shows_exactly_what_red_knows(rs: Ruleset, seed: int, plies: int) -> None:
    state = random_game(rs, seed, plies)
    view = state.view(RED)
    for s in state.squares():
        piece = state.piece_at(s)
        if piece.owner == RED or state.is_revealed(s):
            assert view.piece_at(s) == piece
        else:
            assert view.is_unknown(s) and view.owner_at(s) == BLUE
        assert view.has_moved(s) == state.has_moved(s)
    assert view.generate_legal_moves(RED) == state.generate_legal_moves(RED)


@examples
@given(rs=rulesets, seed=seeds, plies=lengths, pairs=st.lists(st.tuples(st.integers(-20, 200),
                                                                        st.integers(-20, 200)), max_size=300))
def test_generated_moves_and_illegal_reason_agree(rs: Ruleset, seed: int, plies: int,
                                                  pairs: list[tuple[int, int]]) -> None:
    state = random_game(rs, seed, plies)
    legal = state.generate_legal_moves()
    legal_set = set(legal)
    assert len(legal_set) == len(legal)
    for m in legal:
        assert state.illegal_reason(m) is None, f"{m} is generated but refused: {state.illegal_reason(m)}"
    # Every move of every own piece to every square in its row or column ...
    geo = geometry(rs)
    for f in state.squares(state.turn):
        for to in geo.land:
            if to != f and (to // STRIDE == f // STRIDE or to % STRIDE == f % STRIDE):
                m = Move(f, to)
                assert (state.illegal_reason(m) is None) == (m in legal_set), str(m)
    # ... and random pairs of numbers, on or off the board.
    for f, to in pairs:
        m = Move(f, to)
        reason = state.illegal_reason(m)
        assert (reason is None) == (m in legal_set), str(m)
        if reason is not None:
            assert isinstance(reason, str) and reason


@examples
@given(rs=rulesets, seed=seeds, plies=st.integers(0, 1500))
def test_outcome_is_consistent_with_the_position(rs: Ruleset, seed: int, plies: int) -> None:
    state = random_game(rs, seed, plies)
    outcome = state.outcome()
    limit = rs.draw_limit
    movable = [any(state.piece_at(s).type.movable for s in state.squares(p)) for p in (RED, BLUE)]
    # Who could move if play went on: once the game is decided the engine generates no moves at all, so
    # ask a copy with the verdict cleared.
    going_on = state.copy()
    going_on._result = None
    can_move = [going_on.has_legal_move(p) for p in (RED, BLUE)]
    flags = [any(state.piece_at(s).type.is_flag for s in state.squares(p)) for p in (RED, BLUE)]
    if outcome is None:
        assert can_move[state.turn] and movable[1 - state.turn] and all(flags)
        assert limit is None or state.quiet < limit
        return
    if outcome.termination == Termination.FLAG_CAPTURED:
        assert not flags[1 - outcome.winner] and flags[outcome.winner]
    elif outcome.termination == Termination.QUIET_MOVE_LIMIT:
        assert outcome.winner is None and state.quiet == limit
    elif outcome.termination == Termination.NEITHER_CAN_MOVE:
        assert outcome.winner is None and not any(can_move)
    else:
        assert outcome.termination == Termination.NO_LEGAL_MOVE
        loser = 1 - outcome.winner
        assert not movable[loser] or (state.turn == loser and not can_move[loser])
        assert can_move[outcome.winner]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rs=rulesets, seed=seeds, plies=st.integers(0, 2000), at=st.floats(0, 1))
def test_games_of_any_length_pickle_and_copy(rs: Ruleset, seed: int, plies: int, at: float) -> None:
    """Real games run to thousands of plies: pickling or copying a game (or a node of it) never recurses."""
    game = Game.from_state(random_game(rs, seed, plies), {"Event": "any"})
    nodes = game.mainline()
    node = nodes[int(at * (len(nodes) - 1))] if nodes else game
    for back in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert back == game and back.headers == game.headers
    copied_game, copied_node = copy.deepcopy((game, node))
    assert copied_node.game() is copied_game and copied_node.ply() == node.ply()
