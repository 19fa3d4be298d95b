"""Shared helpers for the rules-engine tests: build positions from short strings, play moves, play random games."""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import settings

from strategolab import (
    BLUE,
    RED,
    RULESETS,
    Battle,
    BattleResult,
    Move,
    Piece,
    PieceType,
    Ruleset,
    State,
    get_ruleset,
    parse_square,
)

# Property tests: CI runs a fixed sequence of examples (same inputs every run, so a red CI is reproducible
# and a green one is not luck); HYPOTHESIS_PROFILE=explore draws fresh random examples on every run
# (run it in a loop to hunt for new failures locally).
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("explore", derandomize=False, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# The shared Gravon archive: ../shared/data/gravon beside the repository (CI always has it), or wherever
# STRATEGOLAB_GRAVON points.  Tests that need it skip with a message when it is absent.
ARCHIVE = Path(os.environ.get("STRATEGOLAB_GRAVON")
               or Path(__file__).resolve().parents[2] / "shared" / "data" / "gravon")



@pytest.fixture(autouse=True)
def user_games_folder(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder default saves go to (strategolab.files.user_folder): private to each test, never the home."""
    folder = tmp_path_factory.mktemp("user-games")
    monkeypatch.setenv("STRATEGOLAB_GAMES_DIR", str(folder))
    return folder


ALL_RULESETS = tuple(RULESETS.values())
RULESET_IDS = tuple(RULESETS)


def piece_type(rs: Ruleset, key: str) -> PieceType:
    """A piece type by its notation-independent symbol (``X`` Marshal ... ``2`` Scout) or its name, so the
    tests write positions the same way in every rule set (original-1961's own symbols are its old ranks)."""
    for p in rs.piece_types:
        if key in (p.symbol, p.name):
            return p
    return rs.piece_type(key)


def make(spec: str, ruleset: str | Ruleset = "classic", turn: int | None = None) -> State:
    """A position from ``"E4:rX E6:b3 A1:rF"``: square, ``:``, owner (``r``/``b``), piece symbol or name.

    A trailing ``'`` marks the piece as moved, a trailing ``!`` as revealed (``"E4:rX'!"``).
    """
    rs = get_ruleset(ruleset)
    state = State.empty(rs)
    for token in spec.split():
        name, _, code = token.partition(":")
        moved, revealed = "'" in code, "!" in code
        code = code.rstrip("'!")
        owner = {"r": RED, "b": BLUE}[code[0]]
        state.set_piece(parse_square(name), Piece(owner, piece_type(rs, code[1:])), moved=moved, revealed=revealed)
    if turn is not None:
        state.turn = turn
    return state


def play(state: State, *moves: str) -> list[Battle | None]:
    """Play moves like ``"E4-E5"`` through ``push_checked`` (so every one is checked); return their battles."""
    return [state.push_checked(m) for m in moves]


def mv(text: str) -> Move:
    return Move.parse(text)


def census(state: State) -> Counter:
    """How many pieces of each (owner, type name) stand on the board."""
    return Counter((p.owner, p.type.name) for sq in state.squares() if (p := state.piece_at(sq)) is not None)


def pick_move(state: State, rng: random.Random) -> Move:
    """A random legal move, biased towards the moves that wake the repetition rules.

    Often the mover steps its last piece back, chases (moves its last piece next to an enemy piece without
    attacking) or evades (moves a piece away from the enemy piece that just moved next to it).
    """
    moves = state.generate_legal_moves()
    stack = state.move_stack
    roll = rng.random()
    if len(stack) >= 2 and roll < 0.6:
        mine, theirs = stack[-2], stack[-1]
        neighbours = state.geometry.neighbours
        me = state.turn
        if roll < 0.2:
            wanted = [m for m in moves if m == (mine.to_square, mine.from_square)]
        elif roll < 0.4:
            wanted = [m for m in moves if m.from_square == mine.to_square and state.owner_at(m.to_square) is None
                      and any(state.owner_at(n) == 1 - me for n in neighbours[m.to_square])]
        else:
            wanted = [m for m in moves if m.from_square in neighbours[theirs.to_square]
                      and state.owner_at(m.to_square) is None]
        if wanted:
            return rng.choice(wanted)
    return rng.choice(moves)


def random_game(ruleset: Ruleset, seed: int, plies: int) -> State:
    """A game of random legal moves (see :func:`pick_move`) from random setups, stopping when the game ends."""
    rng = random.Random(seed)
    state = State.random(ruleset, rng)
    for _ in range(plies):
        if state.outcome() is not None:
            break
        state.push(pick_move(state, rng))
    return state


def permute_hidden(state: State, player: int, rng: random.Random) -> State:
    """The same game replayed with the identities of ``player``'s unrevealed enemy pieces shuffled.

    Pieces still hidden at the end never fought (a battle's survivor is revealed), so every move and battle
    replays identically.  Moved hidden pieces are shuffled among themselves (all movable), unmoved ones among
    themselves, so the replay stays a legal game.  The result differs from ``state`` only in hidden identities.
    """
    start = state.copy()
    while start.move_stack:
        start.pop()
    origin = {sq: sq for sq in start.squares()}  # current square -> square the piece started on
    replay = start.copy()
    for move in state.move_stack:
        battle = replay.push(move)
        mover = origin.pop(move.from_square)
        if battle is None or battle.result == BattleResult.ATTACKER_WINS:
            origin[move.to_square] = mover
        elif battle.result == BattleResult.BOTH_DIE:
            del origin[move.to_square]
    enemy = 1 - player
    new_types = {}
    for moved in (False, True):
        group = [sq for sq in state.squares(enemy) if not state.is_revealed(sq) and state.has_moved(sq) == moved]
        kinds = [state.piece_at(sq).type for sq in group]
        rng.shuffle(kinds)
        new_types.update({origin[sq]: kind for sq, kind in zip(group, kinds, strict=True)})
    twin = State.empty(state.ruleset)
    for sq in start.squares():
        piece = start.piece_at(sq)
        twin.set_piece(sq, Piece(piece.owner, new_types.get(sq, piece.type)), moved=start.has_moved(sq),
                       revealed=start.is_revealed(sq))
    twin.turn = start.turn
    twin.ply, twin.quiet = start.ply, start.quiet
    for move in state.move_stack:
        twin.push(move)
    assert twin.battles == state.battles
    return twin
