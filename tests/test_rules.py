"""One test (or more) per sentence of the rules table in DESIGN.md, for every rule set, played through the engine."""

from __future__ import annotations

import pytest
from conftest import ALL_RULESETS, RULESET_IDS, census, make, mv, piece_type, play

from strategolab import (
    BARRAGE,
    BLUE,
    CLASSIC,
    IMMOBILE,
    ISF,
    ORIGINAL_1961,
    POCKET,
    RED,
    RULESETS,
    RUN,
    STEP,
    BattleResult,
    IllegalMoveError,
    Move,
    Piece,
    Ruleset,
    Setup,
    State,
    Termination,
    attack_table,
    get_ruleset,
    parse_square,
    square_name,
)
from strategolab.board import A1, A2, B1, B2, C5, geometry
from strategolab.rules import FLAG, MARSHAL, MINER, SCOUT, SPY, PieceType

W, L, EQ = BattleResult.ATTACKER_WINS, BattleResult.DEFENDER_WINS, BattleResult.BOTH_DIE
WEAK = "3"  # a middling stepping piece in every rule set: the Miner, or the pocket Guard
TEN_BY_TEN = (CLASSIC, ISF, ORIGINAL_1961, BARRAGE)
CLASSIC_LAKES = {"C5", "D5", "C6", "D6", "G5", "H5", "G6", "H6"}
CLASSIC_ARMY = {"Marshal": 1, "General": 1, "Colonel": 2, "Major": 3, "Captain": 4, "Lieutenant": 4,
                "Sergeant": 4, "Miner": 5, "Scout": 8, "Spy": 1, "Bomb": 6, "Flag": 1}

# What DESIGN.md's rules table says about each rule set, field by field.
EXPECTED = {
    "classic": dict(size=(10, 10), lakes=CLASSIC_LAKES, army=CLASSIC_ARMY, rows=({1, 2, 3, 4}, {7, 8, 9, 10}),
                    two_square=3, scout_clause=False, chase="square", draw=200, run_attack=True),
    "isf": dict(size=(10, 10), lakes=CLASSIC_LAKES, army=CLASSIC_ARMY, rows=({1, 2, 3, 4}, {7, 8, 9, 10}),
                two_square=3, scout_clause=True, chase="position", draw=200, run_attack=True),
    "original-1961": dict(size=(10, 10), lakes=CLASSIC_LAKES, army=CLASSIC_ARMY,
                          rows=({1, 2, 3, 4}, {7, 8, 9, 10}), two_square=None, scout_clause=False, chase=None,
                          draw=None, run_attack=False),
    "barrage": dict(size=(10, 10), lakes=CLASSIC_LAKES,
                    army={"Marshal": 1, "General": 1, "Miner": 1, "Scout": 2, "Spy": 1, "Bomb": 1, "Flag": 1},
                    rows=({1, 2, 3, 4}, {7, 8, 9, 10}), two_square=3, scout_clause=False, chase="square",
                    draw=200, run_attack=True),
    "pocket": dict(size=(6, 6), lakes=set(),
                   army={"Flag": 1, "Mine": 2, "Runner": 3, "Sapper": 2, "Guard": 2, "Captain": 1, "Commander": 1},
                   rows=({1, 2}, {5, 6}), two_square=None, scout_clause=False, chase=None, draw=80,
                   run_attack=True),
}

params = pytest.mark.parametrize("rs", ALL_RULESETS, ids=RULESET_IDS)
ten_by_ten = pytest.mark.parametrize("rs", TEN_BY_TEN, ids=[r.name for r in TEN_BY_TEN])


def strongest(rs: Ruleset) -> str:
    """Symbol of the strongest movable piece (the Marshal, or the pocket Commander)."""
    return max((p for p in rs.piece_types if p.movable), key=lambda p: p.strength).symbol


def blocker(rs: Ruleset) -> str:
    """Symbol of the immobile non-Flag piece (Bomb, or pocket Mine)."""
    return next(p for p in rs.piece_types if not p.movable and not p.is_flag).symbol


def top(rs: Ruleset, column: str = "A") -> str:
    return f"{column}{rs.height}"


# -- the rule sets as values -----------------------------------------------------------------------------


@params
def test_ruleset_fields_match_the_design(rs: Ruleset) -> None:
    e = EXPECTED[rs.name]
    assert (rs.width, rs.height) == e["size"]
    assert set(rs.lakes) == e["lakes"]
    assert {p.name: n for p, n in rs.army if n} == e["army"]
    assert rs.army_size == sum(e["army"].values())
    assert tuple(set(r) for r in rs.setup_rows) == e["rows"]
    assert rs.two_square_limit == e["two_square"]
    assert rs.two_square_scout_clause == e["scout_clause"]
    assert rs.chase_rule == e["chase"]
    assert rs.draw_limit == e["draw"]
    assert rs.scout_attacks_after_run == e["run_attack"]
    assert rs.first_player == RED
    assert get_ruleset(rs.name) is rs and RULESETS[rs.name] is rs


def test_default_ruleset_is_classic() -> None:
    assert get_ruleset(None) is CLASSIC
    assert State().ruleset is CLASSIC
    with pytest.raises(ValueError, match=r"unknown ruleset 'chess'.*classic"):
        get_ruleset("chess")


def test_classic_ranks_in_modern_and_old_notation() -> None:
    labels = {p.name: (p.label("modern"), p.label("old")) for p in CLASSIC.piece_types}
    assert labels == {
        "Marshal": ("10", "1"), "General": ("9", "2"), "Colonel": ("8", "3"), "Major": ("7", "4"),
        "Captain": ("6", "5"), "Lieutenant": ("5", "6"), "Sergeant": ("4", "7"), "Miner": ("3", "8"),
        "Scout": ("2", "9"), "Spy": ("S", "S"), "Bomb": ("B", "B"), "Flag": ("F", "F"),
    }
    strengths = [CLASSIC.piece_type(n).strength for n in
                 ("Marshal", "General", "Colonel", "Major", "Captain", "Lieutenant", "Sergeant", "Miner", "Scout")]
    assert strengths == sorted(strengths, reverse=True) and len(set(strengths)) == 9
    with pytest.raises(ValueError, match="notation"):
        MARSHAL.label("roman")


def test_original_1961_uses_the_old_numbering() -> None:
    assert ORIGINAL_1961.notation == "old"
    assert CLASSIC.notation == "modern"
    old = {p.label(ORIGINAL_1961.notation): p for p in ORIGINAL_1961.piece_types}
    assert (old["1"], old["8"], old["9"]) == (MARSHAL, MINER, SCOUT)
    assert ORIGINAL_1961.piece_type("1") is MARSHAL  # a label that is no piece's symbol
    header = attack_table(ORIGINAL_1961).rows()[0]
    assert header == ["att \\ def", "1", "2", "3", "4", "5", "6", "7", "8", "9", "S", "B", "F"]
    assert attack_table(CLASSIC).rows()[0][1:4] == ["10", "9", "8"]


def test_pocket_pieces_and_mobility() -> None:
    kinds = {p.name: p for p in POCKET.piece_types}
    assert {n: kinds[n].strength for n in ("Runner", "Sapper", "Guard", "Captain", "Commander")} == {
        "Runner": 1, "Sapper": 2, "Guard": 3, "Captain": 4, "Commander": 5}
    assert {n for n, p in kinds.items() if p.mobility == STEP} == {"Runner", "Sapper", "Guard", "Captain",
                                                                     "Commander"}
    assert {n for n, p in kinds.items() if p.mobility == IMMOBILE} == {"Mine", "Flag"}
    assert not any(p.mobility == RUN for p in POCKET.piece_types)


@params
def test_board_size_and_lakes(rs: Ruleset) -> None:
    geo = geometry(rs)
    assert (geo.width, geo.height) == (rs.width, rs.height)
    assert {square_name(s) for s in geo.lakes} == EXPECTED[rs.name]["lakes"]
    assert len(geo.land) == rs.width * rs.height - len(rs.lakes)
    state = State.empty(rs)
    for lake in geo.lakes:
        with pytest.raises(ValueError, match=f"{square_name(lake)} is a lake"):
            state.set_piece(lake, Piece(RED, FLAG))
    off = parse_square(f"{rs.columns[-1]}1") + 1
    with pytest.raises(ValueError, match="not on the"):
        state.set_piece(off, Piece(RED, FLAG))


@ten_by_ten
def test_no_piece_enters_or_crosses_a_lake(rs: Ruleset) -> None:
    """A lone Scout on every land square: none of its moves touches a lake on the way or at the end."""
    lakes = geometry(rs).lakes
    for sq in geometry(rs).land:
        state = State.empty(rs)
        state.set_piece(sq, Piece(RED, SCOUT))
        for m in state.generate_legal_moves():
            step = 1 if m.from_square // 16 == m.to_square // 16 else 16
            path = range(min(m.from_square, m.to_square), max(m.from_square, m.to_square) + 1, step)
            assert not lakes.intersection(path), f"{m} touches a lake"
    state = make("B5:r2 A6:r2 E5:r3", rs)
    assert mv("B5-C5") not in state.legal_moves
    assert "C5 is a lake" in state.illegal_reason(mv("B5-C5"))
    assert "crosses a lake" in state.illegal_reason(mv("B5-E5"))
    assert "crosses a lake" in state.illegal_reason(mv("A6-F6"))
    assert "D5 is a lake" in state.illegal_reason(mv("E5-D5"))
    assert {str(m) for m in state.generate_legal_moves() if m.from_square == parse_square("B5")} == {
        "B5-A5", "B5-B6", "B5-B7", "B5-B8", "B5-B9", "B5-B10", "B5-B4", "B5-B3", "B5-B2", "B5-B1"}


@params
def test_setup_rows(rs: Ruleset) -> None:
    rows = EXPECTED[rs.name]["rows"]
    for player in (RED, BLUE):
        squares = geometry(rs).setup_squares[player]
        assert {s // 16 + 1 for s in squares} == rows[player]
        assert len(squares) == len(rows[player]) * rs.width - sum(
            1 for lake in rs.lakes if int(lake[1:]) in rows[player])
        placed = Setup.random(rs, 11).placements(player)
        assert {s // 16 + 1 for s in placed} <= rows[player]


@params
def test_army_counts_on_a_new_board(rs: Ruleset) -> None:
    state = State.random(rs, 4)
    counts = census(state)
    for player in (RED, BLUE):
        assert {name: n for (owner, name), n in counts.items() if owner == player} == EXPECTED[rs.name]["army"]


# -- Scouts ----------------------------------------------------------------------------------------------

SCOUT_RULESETS = (CLASSIC, ISF, ORIGINAL_1961, BARRAGE)
scout_params = pytest.mark.parametrize("rs", SCOUT_RULESETS, ids=[r.name for r in SCOUT_RULESETS])


@scout_params
def test_scout_runs_through_empty_squares_only(rs: Ruleset) -> None:
    state = make("A1:r2 A4:r3 B1:r2 J1:bF", rs)
    targets = {square_name(m.to_square) for m in state.generate_legal_moves() if m.from_square == A1}
    assert targets == {"A2", "A3"}
    assert "blocked on A4" in state.illegal_reason(mv("A1-A6"))
    targets = {square_name(m.to_square) for m in state.generate_legal_moves() if m.from_square == B1}
    assert targets == {"B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "C1", "D1", "E1", "F1", "G1",
                       "H1", "I1"} | ({"J1"} if rs.scout_attacks_after_run else set())  # J1: a run ending in an attack


@pytest.mark.parametrize("rs", (CLASSIC, ISF, BARRAGE), ids=("classic", "isf", "barrage"))
def test_scout_may_attack_at_the_end_of_a_run(rs: Ruleset) -> None:
    state = make("A1:r2 A7:bS J1:rF J10:bF", rs)
    assert mv("A1-A7") in state.legal_moves
    battle = state.push_checked("A1-A7")
    assert battle is not None and battle.result == W
    assert state.piece_at(parse_square("A7")) == Piece(RED, SCOUT)


def test_original_1961_scout_may_not_run_and_attack() -> None:
    state = make("A1:r2 A7:bS B6:r2 J1:rF J10:bF", ORIGINAL_1961)
    assert mv("A1-A7") not in state.legal_moves
    assert mv("A1-A6") in state.legal_moves  # running is still allowed
    with pytest.raises(IllegalMoveError) as err:
        state.push_checked("A1-A7")
    assert "may not move more than one square and attack" in err.value.reason
    assert mv("B6-A6") in state.legal_moves  # one square sideways, then ...
    state2 = make("A6:r2 A7:bS J1:rF J10:bF", ORIGINAL_1961)
    assert mv("A6-A7") in state2.legal_moves  # ... an adjacent attack is fine
    assert state2.push_checked("A6-A7").result == W


@scout_params
def test_a_run_of_more_than_one_square_reveals_the_scout(rs: Ruleset) -> None:
    state = make("A1:r2 B1:r2 J1:rF J10:bF J8:b2", rs)
    play(state, "A1-A3")
    assert state.is_revealed(parse_square("A3"))
    assert state.view(BLUE).piece_at(parse_square("A3")) == Piece(RED, SCOUT)
    play(state, "J8-J7")  # one square: stays hidden
    assert not state.is_revealed(parse_square("J7"))
    assert state.view(RED).is_unknown(parse_square("J7"))
    play(state, "B1-B2")
    assert not state.is_revealed(parse_square("B2"))
    play(state, "J7-J4")
    assert state.is_revealed(parse_square("J4"))
    assert state.view(RED).piece_at(parse_square("J4")) == Piece(BLUE, SCOUT)
    play(state, "A3-A4")  # a revealed Scout stays revealed when it steps on
    assert state.is_revealed(parse_square("A4"))


def test_pocket_pieces_step_one_square_only() -> None:
    for symbol in ("1", "2", "3", "4", "5"):
        state = make(f"C3:r{symbol} F1:rF A6:bF", POCKET)
        targets = {square_name(m.to_square) for m in state.generate_legal_moves() if m.from_square == parse_square(
            "C3")}
        assert targets == {"C2", "C4", "B3", "D3"}
        assert "one square at a time" in state.illegal_reason(mv("C3-C5"))
    state = make("A1:rM B1:rF A6:bF", POCKET)
    assert state.generate_legal_moves() == []
    assert "Mine" in state.illegal_reason(mv("A1-A2")) and "cannot move" in state.illegal_reason(mv("A1-A2"))


# -- battles ---------------------------------------------------------------------------------------------


def fight(rs: Ruleset, attacker: str, defender: str, attacker_owner: int = RED) -> tuple[State, object]:
    """Put ``attacker`` on B2 and ``defender`` on B3 (the other colour), attack, return state and battle.

    Both sides also get a Flag and a spare movable piece far away, so the game is still on before the attack.
    """
    a, d = ("r", "b") if attacker_owner == RED else ("b", "r")
    right, h = rs.columns[-1], rs.height
    flags = f"{right}1:{a}F" + ("" if defender == "F" else f" {right}{h}:{d}F")
    state = make(f"B2:{a}{attacker} B3:{d}{defender} {flags} {right}2:{a}3 {right}{h - 1}:{d}3", rs,
                 turn=attacker_owner)
    assert state.outcome() is None
    return state, state.push_checked("B2-B3")


BATTLES = [
    (CLASSIC, "S", "X", W),  # the Spy beats the Marshal when the Spy attacks ...
    (CLASSIC, "X", "S", W),  # ... but the Marshal attacking the Spy wins
    (CLASSIC, "S", "9", L),
    (CLASSIC, "S", "S", EQ),
    (CLASSIC, "2", "S", W),
    (CLASSIC, "3", "B", W),  # the Miner defuses a Bomb
    (CLASSIC, "X", "B", L),  # every other attacker dies on it
    (CLASSIC, "S", "B", L),
    (CLASSIC, "4", "B", L),
    (CLASSIC, "X", "X", EQ),  # equal ranks both die
    (CLASSIC, "2", "2", EQ),
    (CLASSIC, "7", "7", EQ),
    (CLASSIC, "X", "9", W),
    (CLASSIC, "4", "5", L),
    (CLASSIC, "S", "F", W),  # any mover captures the Flag
    (CLASSIC, "2", "F", W),
    (ORIGINAL_1961, "S", "X", W),
    (ORIGINAL_1961, "X", "S", W),
    (ORIGINAL_1961, "3", "B", W),
    (ISF, "S", "X", W),
    (BARRAGE, "S", "X", W),
    (BARRAGE, "X", "S", W),
    (BARRAGE, "3", "B", W),
    (BARRAGE, "9", "B", L),
    (BARRAGE, "2", "2", EQ),
    (POCKET, "5", "4", W),  # higher number wins
    (POCKET, "1", "2", L),
    (POCKET, "3", "3", EQ),  # equal numbers both removed
    (POCKET, "1", "1", EQ),
    (POCKET, "2", "M", W),  # a Sapper defeats a Mine
    (POCKET, "1", "M", L),  # every other attacker loses to a Mine
    (POCKET, "3", "M", L),
    (POCKET, "4", "M", L),
    (POCKET, "5", "M", L),
    (POCKET, "1", "F", W),  # any moving piece captures the Flag
]


@pytest.mark.parametrize(("rs", "attacker", "defender", "expected"), BATTLES,
                         ids=[f"{r.name}-{a}x{d}" for r, a, d, _ in BATTLES])
@pytest.mark.parametrize("owner", (RED, BLUE), ids=("red-attacks", "blue-attacks"))
def test_battle(rs: Ruleset, attacker: str, defender: str, expected: BattleResult, owner: int) -> None:
    state, battle = fight(rs, attacker, defender, owner)
    a, d = piece_type(rs, attacker), piece_type(rs, defender)
    assert battle.result == expected
    assert battle.attacker == Piece(owner, a) and battle.defender == Piece(1 - owner, d)
    assert battle.square == parse_square("B3")
    assert state.piece_at(B2) is None
    on_target = state.piece_at(parse_square("B3"))
    if expected == W:
        assert on_target == Piece(owner, a)
    elif expected == L:
        assert on_target == Piece(1 - owner, d)  # the Bomb (or Mine) stays where it was
    else:
        assert on_target is None
    if on_target is not None:  # a surviving combatant is revealed to both players
        assert state.is_revealed(parse_square("B3"))
        assert state.view(1 - on_target.owner).piece_at(parse_square("B3")) == on_target
    assert state.quiet == 0


@params
def test_attack_table_agrees_with_battles_played_through_push(rs: Ruleset) -> None:
    table = attack_table(rs)
    movable = [p for p in rs.piece_types if p.movable]
    assert len(table) == len(movable) * len(rs.piece_types)
    assert {a.name for a in table.attackers} == {p.name for p in movable}
    seen = 0
    for a, d, result in table:
        assert table[a, d] == table[a.name, d.name] == result
        for owner in (RED, BLUE):
            state = State.empty(rs)
            state.set_piece(B2, Piece(owner, a))
            state.set_piece(B2 + 16, Piece(1 - owner, d))
            state.turn = owner
            battle = state.push(Move(B2, B2 + 16))
            assert battle is not None and battle.result == result, f"{a.name} attacks {d.name}"
            survivor = {W: Piece(owner, a), L: Piece(1 - owner, d), EQ: None}[result]
            assert state.piece_at(B2 + 16) == survivor
            seen += 1
    assert seen == 2 * len(table)
    with pytest.raises(KeyError, match="cannot attack"):
        table[FLAG, MARSHAL] if rs.name != "pocket" else table["F", "5"]


def test_attack_table_text_marks() -> None:
    rows = {r[0]: r[1:] for r in attack_table(CLASSIC).rows()[1:]}
    header = attack_table(CLASSIC).rows()[0][1:]
    assert rows["S"][header.index("10")] == "W"
    assert rows["10"][header.index("S")] == "W"
    assert rows["3"][header.index("B")] == "W"
    assert rows["10"][header.index("B")] == "L"
    assert rows["5"][header.index("5")] == "="
    assert all(r[header.index("F")] == "W" for r in rows.values())
    assert "F" not in rows and "B" not in rows  # immobile pieces never attack
    assert "Spy" not in str(attack_table(CLASSIC)).split("\n")[0]


@params
def test_any_mover_captures_the_flag_and_wins(rs: Ruleset) -> None:
    weakest = min((p for p in rs.piece_types if p.movable), key=lambda p: p.strength)
    for owner in (RED, BLUE):
        state, battle = fight(rs, weakest.symbol, "F", owner)
        assert battle.result == W
        assert state.outcome() == (Termination.FLAG_CAPTURED, owner)
        with pytest.raises(IllegalMoveError) as err:
            state.push_checked(state.generate_legal_moves()[0] if state.generate_legal_moves() else "A1-A2")
        assert "game is over" in err.value.reason


def test_bomb_stays_and_is_revealed_after_killing_an_attacker() -> None:
    state = make("E3:rX E4:bB A1:rF J10:bF J9:b4", CLASSIC)
    battle = state.push_checked("E3-E4")
    assert battle.result == L
    assert state.piece_at(parse_square("E4")) == Piece(BLUE, CLASSIC.piece_type("B"))
    assert state.is_revealed(parse_square("E4"))
    assert not state.has_moved(parse_square("E4"))
    assert state.view(RED).piece_at(parse_square("E4")).type.name == "Bomb"
    assert state.captured(RED) == [MARSHAL] and state.captured(BLUE) == []


def test_spy_attacked_by_anything_dies() -> None:
    for symbol in ("2", "3", "9", "X"):
        _, battle = fight(CLASSIC, symbol, "S")
        assert battle.result == W, symbol


# -- the quiet-move draw ---------------------------------------------------------------------------------


def cycling_position(rs: Ruleset) -> State:
    """A Red piece in the bottom-left and a Blue piece in the top-right corner, far apart, flags elsewhere."""
    w, h = rs.width, rs.height
    mid = rs.columns[w // 2]
    piece = strongest(rs)
    right = rs.columns[w - 1]
    return make(f"A1:r{piece} {right}{h}:b{piece} {mid}1:rF {mid}{h}:bF", rs)


def cycle_moves(rs: Ruleset) -> list[str]:
    """Red walks round A1-A2-B2-B1, Blue round the top-right 2x2: no back-and-forth, no threat."""
    r, rr, h = rs.columns[rs.width - 1], rs.columns[rs.width - 2], rs.height
    red = ["A1-A2", "A2-B2", "B2-B1", "B1-A1"]
    blue = [f"{r}{h}-{r}{h - 1}", f"{r}{h - 1}-{rr}{h - 1}", f"{rr}{h - 1}-{rr}{h}", f"{rr}{h}-{r}{h}"]
    return [m for pair in zip(red, blue, strict=True) for m in pair]


@params
def test_quiet_move_draw_at_exactly_the_limit(rs: Ruleset) -> None:
    limit = rs.draw_limit
    state = cycling_position(rs)
    cycle = cycle_moves(rs)
    assert state.quiet_moves_left == limit
    if limit is None:  # original-1961: the text has no draw rule, so 300 quiet moves end nothing
        for i in range(300):
            state.push_checked(cycle[i % len(cycle)])
        assert state.outcome() is None and not state.draw_warning()
        return
    warned_at = None
    for i in range(limit - 1):
        state.push_checked(cycle[i % len(cycle)])
        assert state.quiet == i + 1
        assert state.quiet_moves_left == limit - i - 1
        if warned_at is None and state.quiet_moves_left <= rs.draw_warning:
            warned_at = state.quiet
    assert warned_at == limit - 20 and rs.draw_warning == 20  # the warning is due when 20 quiet moves remain
    assert state.outcome() is None
    assert state.quiet_moves_left == 1
    state.push_checked(cycle[(limit - 1) % len(cycle)])
    assert state.quiet_moves_left == 0
    assert state.outcome() == (Termination.QUIET_MOVE_LIMIT, None)
    assert state.outcome().result() == "1/2-1/2"
    with pytest.raises(IllegalMoveError) as err:
        state.push_checked(cycle[limit % len(cycle)])
    assert "game is over" in err.value.reason
    state.pop()
    assert state.outcome() is None and state.quiet_moves_left == 1


def test_draw_warning_is_twenty_in_every_ruleset() -> None:
    assert {rs.draw_warning for rs in ALL_RULESETS} == {20}


@params
def test_any_battle_resets_the_quiet_counter_even_when_the_defender_survives(rs: Ruleset) -> None:
    strong = strongest(rs)
    state = make(f"A1:r{strong} B1:r3 B4:b{strong} {top(rs, 'F')}:bF {rs.columns[-1]}1:rF", rs)
    play(state, "A1-A2", "B4-B3", "A2-A3")
    assert state.quiet == 3
    battle = state.push_checked("B3-B2")  # Blue's strong piece steps into nothing ...
    assert battle is None and state.quiet == 4
    battle = state.push_checked("B1-B2")  # ... and Red's weak piece attacks it and loses
    assert battle.result == L and state.piece_at(B2) == Piece(BLUE, piece_type(rs, strong))
    assert state.quiet == 0 and state.quiet_moves_left == rs.draw_limit
    state.push_checked("B2-C2")
    assert state.quiet == 1
    assert state.is_revealed(parse_square("C2"))  # the survivor stays revealed after moving on


# -- the two-square rule ---------------------------------------------------------------------------------


def shuttle(rs: Ruleset, extra: str = "") -> State:
    """Red's strongest piece on A1 free to shuttle to A2; Blue has a piece far away walking in a loop."""
    return make(f"A1:r{strongest(rs)} "
                f"{rs.columns[-1]}{rs.height}:b{strongest(rs)} {rs.columns[rs.width // 2]}1:rF "
                f"{rs.columns[rs.width // 2]}{rs.height}:bF {extra}", rs)


def blue_loop(rs: Ruleset) -> list[str]:
    return cycle_moves(rs)[1::2]


@params
def test_two_square_rule_refuses_the_fourth_back_and_forth_move(rs: Ruleset) -> None:
    state = shuttle(rs)
    blue = blue_loop(rs)
    play(state, "A1-A2", blue[0], "A2-A1", blue[1], "A1-A2", blue[2])  # three times in a row is allowed
    if rs.two_square_limit is None:  # original-1961 and pocket have no repetition rules
        play(state, "A2-A1")
        assert state.piece_at(A1) is not None
        return
    assert mv("A2-A1") not in state.legal_moves
    reason = state.illegal_reason(mv("A2-A1"))
    assert reason is not None and "two-square rule" in reason and "A1" in reason and "A2" in reason
    with pytest.raises(IllegalMoveError) as err:
        state.push_checked("A2-A1")
    assert err.value.reason == reason and str(err.value).startswith("illegal move A2-A1")
    assert mv("A2-A3") in state.legal_moves  # moving on is fine
    assert mv("A2-B2") in state.legal_moves


@params
def test_two_square_rule_allows_the_move_again_after_another_piece_moved(rs: Ruleset) -> None:
    state = shuttle(rs, extra="B3:r3")  # a second Red piece
    blue = blue_loop(rs)
    play(state, "A1-A2", blue[0], "A2-A1", blue[1], "A1-A2", blue[2], "B3-B4", blue[3])
    assert mv("A2-A1") in state.legal_moves
    play(state, "A2-A1")


@params
def test_two_square_rule_counts_one_piece_only(rs: Ruleset) -> None:
    """Blue shuttling too does not make Red's third move illegal, and Red's moves do not count for Blue."""
    h, right = rs.height, rs.columns[-1]
    state = shuttle(rs)
    blue = [f"{right}{h}-{right}{h - 1}", f"{right}{h - 1}-{right}{h}"]
    play(state, "A1-A2", blue[0], "A2-A1", blue[1], "A1-A2", blue[0])
    if rs.two_square_limit is None:
        return
    assert "two-square rule" in state.illegal_reason(mv("A2-A1"))
    play(state, "A2-A3")
    assert "two-square rule" in state.illegal_reason(mv(blue[1]))


def test_isf_scout_clause_against_classic_exact_squares() -> None:
    for rs in (CLASSIC, ISF):
        state = make("A1:r2 J10:bX E1:rF E10:bF", rs)
        blue = blue_loop(rs)
        play(state, "A1-A4", blue[0], "A4-A1", blue[1], "A1-A4", blue[2])
        assert "two-square rule" in state.illegal_reason(mv("A4-A1"))
        assert mv("A4-A5") in state.legal_moves
        assert mv("A4-B4") in state.legal_moves
        if rs is CLASSIC:  # only the very same two squares count
            assert mv("A4-A2") in state.legal_moves
            assert mv("A4-A3") in state.legal_moves
        else:  # the whole range the Scout covered counts
            for target in ("A4-A2", "A4-A3"):
                reason = state.illegal_reason(mv(target))
                assert reason is not None and "two-square rule" in reason, target
                assert "A1" in reason and "A4" in reason


def test_isf_scout_clause_applies_to_shorter_moves_inside_the_range() -> None:
    for rs, refused in ((CLASSIC, False), (ISF, True)):
        state = make("A1:r2 J10:bX E1:rF E10:bF", rs)
        blue = blue_loop(rs)
        play(state, "A1-A4", blue[0], "A4-A2", blue[1], "A2-A4", blue[2])
        assert (state.illegal_reason(mv("A4-A1")) is not None) is refused
        assert (state.illegal_reason(mv("A4-A3")) is not None) is refused


# -- the chasing rule ------------------------------------------------------------------------------------


def chase_start(rs: Ruleset, turn: int = RED) -> State:
    """Red's strongest piece on E2, a weaker Blue piece on F3 (diagonal: no threat yet)."""
    return make(f"E2:r{strongest(rs)} F3:b{WEAK} A1:rF {top(rs)}:bF", rs, turn=turn)


@params
def test_chasing_rule_back_to_the_square_the_threat_started_from(rs: Ruleset) -> None:
    """The square the chaser left to make its first threat was stood on before the chase ("during that
    chase" counts from the threat on), so stepping back onto it is allowed; a square of the chase is not."""
    state = chase_start(rs)
    play(state, "E2-E3", "F3-F2")  # E3 threatens F3; the Blue piece evades to F2 (next to E2)
    assert state.illegal_reason(mv("E3-E2")) is None
    play(state, "E3-E2", "F2-F3")  # a chasing move; the Blue piece evades back to F3 (next to E3)
    reason = state.illegal_reason(mv("E2-E3"))
    if rs.chase_rule == "square":  # E3 is a square the chaser already stood on in this chase
        assert reason is not None and "chasing rule" in reason
        assert "E2" in reason and "F3" in reason and "E3" in reason
        with pytest.raises(IllegalMoveError, match="chasing rule"):
            state.push_checked("E2-E3")
        assert mv("E2-F2") in state.legal_moves  # a fresh square next to F3 is fine
    else:  # ISF: stepping back to the square it came from; 1961 and pocket: no chasing rule
        assert reason is None
        play(state, "E2-E3")


@ten_by_ten
def test_chasing_rule_any_square_of_the_chase(rs: Ruleset) -> None:
    state = make(f"E3:r{strongest(rs)} G3:b{WEAK} A1:rF A10:bF", rs)
    play(state, "E3-F3", "G3-G4", "F3-G3", "G4-F4")
    reason = state.illegal_reason(mv("G3-F3"))
    if rs.chase_rule == "square":
        assert reason is not None and "chasing rule" in reason and "F3" in reason and "F4" in reason
        assert mv("G3-G4") in state.legal_moves
    else:  # ISF: (F3, F4) is a new position (and F3 is where the chaser came from); 1961: no rule
        assert reason is None


@ten_by_ten
def test_more_squares_rule_refuses_a_repeated_chase_position(rs: Ruleset) -> None:
    """The pieces circle round F3-G3-G4-F4; the chaser would bring back the position (F3, G3)."""
    state = make(f"E3:r{strongest(rs)} G3:b{WEAK} A1:rF A10:bF", rs)
    play(state, "E3-F3", "G3-G4", "F3-G3", "G4-F4", "G3-G4", "F4-F3", "G4-F4", "F3-G3")
    reason = state.illegal_reason(mv("F4-F3"))
    if rs.chase_rule is None:
        assert reason is None
        return
    if rs.chase_rule == "square":  # the classic rule forbids it too: the chaser stood on F3 before
        assert reason is not None and "chasing rule" in reason and "F3" in reason
        return
    assert reason is not None and "more-squares rule" in reason and "F3" in reason and "G3" in reason
    assert mv("F4-F3") not in state.legal_moves
    assert mv("F4-G4") in state.legal_moves  # stepping back where it came from is allowed


def test_more_squares_rule_step_back_exception() -> None:
    """(F3, G3) comes back, but by stepping back to the square the chaser came from: ISF allows it."""
    moves = ["E3-F3", "G3-G2", "F3-F2", "G2-G3"]
    for rs in (CLASSIC, ISF):
        state = make("E3:rX G3:b3 A1:rF A10:bF", rs)
        play(state, *moves)
        reason = state.illegal_reason(mv("F2-F3"))
        if rs is ISF:
            assert reason is None
            play(state, "F2-F3")
        else:
            assert reason is not None and "chasing rule" in reason and "F3" in reason


def test_more_squares_step_back_is_still_bound_by_the_two_square_rule() -> None:
    """Stepping back is allowed only when it does not break the two-square rule."""
    state = make("F3:rX G3:b3 A1:rF A10:bF J10:b4", ISF)
    play(state, "F3-F2", "J10-J9")  # no threat yet: G3 is diagonal to F2
    play(state, "F2-F3", "G3-G2", "F3-F2", "G2-G3")  # threat, evasion, chase, evasion
    reason = state.illegal_reason(mv("F2-F3"))  # the step back would be the fourth move between F2 and F3
    assert reason is not None and "two-square rule" in reason


def test_an_evasion_by_capture_keeps_the_chase_going() -> None:
    """An evading move may be an attack ("to move: to move plus attacking"): the chase goes on."""
    state = make("E2:rX F3:b3 F2:rS A1:rF A10:bF", CLASSIC)
    play(state, "E2-E3")  # threat on F3
    battle = state.push_checked("F3-F2")  # the Blue Miner evades by taking the Spy: a battle
    assert battle is not None and battle.result == W
    play(state, "E3-E2", "F2-F3")  # chasing the Miner on F2; it evades back to F3, next to E3
    reason = state.illegal_reason(mv("E2-E3"))
    assert reason is not None and "chasing rule" in reason and "E3" in reason


def test_moving_another_piece_ends_the_chase() -> None:
    state = make("E2:rX F3:b3 A1:rF A10:bF J1:r4", CLASSIC)
    play(state, "E2-E3", "F3-F2", "J1-J2", "F2-G2")
    assert state.illegal_reason(mv("E3-E2")) is None


def test_blue_can_be_the_chaser() -> None:
    state = make("E9:bX F8:r3 A1:rF A10:bF", CLASSIC, turn=BLUE)
    play(state, "E9-E8", "F8-F9", "E8-E9", "F9-F8")
    reason = state.illegal_reason(mv("E9-E8"))
    assert reason is not None and "chasing rule" in reason and "E8" in reason


# -- the end of the game ---------------------------------------------------------------------------------


@params
def test_player_without_legal_move_because_of_pieces_loses(rs: Ruleset) -> None:
    b, x = blocker(rs), strongest(rs)
    state = make(f"A1:r{x} A2:r{b} B1:r{b} {rs.columns[-1]}1:rF C{rs.height - 1}:b{x} {top(rs)}:bF", rs)
    assert state.generate_legal_moves() == []
    assert not state.legal_moves
    assert state.outcome() == (Termination.NO_LEGAL_MOVE, BLUE)
    assert state.outcome().result() == "0-1"
    state.turn = BLUE  # while Blue moves, Red still has a movable piece: the game goes on
    assert state.outcome() is None


@pytest.mark.parametrize("rs", (CLASSIC, ISF, BARRAGE), ids=("classic", "isf", "barrage"))
def test_player_without_legal_move_because_of_the_rules_loses(rs: Ruleset) -> None:
    b = blocker(rs)
    state = make(f"A1:rX A3:r{b} B1:r{b} B2:rF J10:bX E10:bF", rs)
    blue = blue_loop(rs)
    play(state, "A1-A2", blue[0], "A2-A1", blue[1], "A1-A2", blue[2])
    assert state.generate_legal_moves() == []  # A2-A1 would be the fourth time; everything else is blocked
    assert state.outcome() == (Termination.NO_LEGAL_MOVE, BLUE)


@pytest.mark.parametrize("rs", (ORIGINAL_1961, POCKET), ids=("original-1961", "pocket"))
def test_no_repetition_rule_so_the_shuttling_piece_may_go_on(rs: Ruleset) -> None:
    b = blocker(rs)
    state = make(f"A1:r{strongest(rs)} A3:r{b} B1:r{b} B2:rF {rs.columns[-1]}{rs.height}:b{strongest(rs)} "
                 f"C{rs.height}:bF", rs)
    blue = blue_loop(rs)
    play(state, "A1-A2", blue[0], "A2-A1", blue[1], "A1-A2", blue[2], "A2-A1", blue[3], "A1-A2")
    assert state.outcome() is None


@params
def test_neither_side_can_move_is_a_draw(rs: Ruleset) -> None:
    b, x = blocker(rs), strongest(rs)
    right, h = rs.columns[-1], rs.height
    left2 = rs.columns[-2]
    state = make(f"A1:r{x} A2:r{b} B1:r{b} C1:rF {right}{h}:b{x} {right}{h - 1}:b{b} {left2}{h}:b{b} "
                 f"A{h}:bF", rs)
    for turn in (RED, BLUE):
        state.turn = turn
        assert state.outcome() == (Termination.NEITHER_CAN_MOVE, None)
    only_static = make(f"A1:r{b} B1:rF A{h}:b{b} B{h}:bF", rs)
    assert only_static.outcome() == (Termination.NEITHER_CAN_MOVE, None)


@params
def test_side_left_without_movable_pieces_loses_at_once(rs: Ruleset) -> None:
    b, x = blocker(rs), strongest(rs)
    state = make(f"B2:r{x} B3:b{b} A1:rF C{rs.height}:b{x} A{rs.height}:bF", rs)
    battle = state.push_checked("B2-B3")  # Red's last movable piece dies on a Bomb/Mine
    assert battle.result == L
    assert state.turn == BLUE
    if rs.no_movable_piece_loses:
        assert state.outcome() == (Termination.NO_LEGAL_MOVE, BLUE)
        return
    # original-1961: that rule is a house rule (the text has none); Red loses when it has to move and cannot.
    assert state.outcome() is None
    state.push_checked(f"C{rs.height}-C{rs.height - 1}")
    assert state.outcome() == (Termination.NO_LEGAL_MOVE, BLUE)


@params
def test_a_position_set_up_without_movable_pieces_ends_as_the_docs_say(rs: Ruleset) -> None:
    """A loaded position where Blue has only immovable pieces: Blue has lost, Red to move or not."""
    b, x = blocker(rs), strongest(rs)
    for turn in (RED, BLUE):
        state = make(f"B2:r{x} A1:rF C{rs.height}:b{b} A{rs.height}:bF", rs, turn=turn)
        expected = (Termination.NO_LEGAL_MOVE, RED) if rs.no_movable_piece_loses or turn == BLUE else None
        assert state.outcome() == expected, turn


def test_the_no_movable_piece_rule_can_be_switched_off() -> None:
    rs = CLASSIC.replace(name="classic-no-house-rule", no_movable_piece_loses=False)
    state = make("B2:rX B3:bB A1:rF C10:bX A10:bF", rs)
    state.push_checked("B2-B3")  # Red's Marshal dies on the Bomb: Red can never move again
    assert state.outcome() is None  # ...but the game goes on while Blue moves
    state.push_checked("C10-C9")
    assert state.outcome() == (Termination.NO_LEGAL_MOVE, BLUE)
    with pytest.raises(TypeError, match="no_movable_piece_loses"):
        CLASSIC.replace(name="bad", no_movable_piece_loses=1)


def test_no_move_accepted_after_a_side_lost_its_last_movable_piece() -> None:
    state = make("B2:rX B3:bB A1:rF C10:bX A10:bF", CLASSIC)
    state.push_checked("B2-B3")
    assert state.outcome() is not None
    with pytest.raises(IllegalMoveError, match="game is over"):
        state.push_checked("C10-C9")


@params
def test_last_movable_pieces_dying_together_is_a_draw(rs: Ruleset) -> None:
    x = strongest(rs)
    state = make(f"B2:r{x} B3:b{x} A1:rF A{rs.height}:bF", rs)
    assert state.push_checked("B2-B3").result == EQ
    assert state.outcome() == (Termination.NEITHER_CAN_MOVE, None)


# -- who moves first -------------------------------------------------------------------------------------


@params
def test_who_moves_first_is_a_setting(rs: Ruleset) -> None:
    red, blue = Setup.random(rs, 1), Setup.random(rs, 2)
    assert State.new(red, blue, rs).turn == RED
    assert State.empty(rs).turn == RED
    assert State.new(red, blue, rs, first_player=BLUE).turn == BLUE
    blue_first = rs.replace(name=f"{rs.name}-blue-first", first_player=BLUE)
    state = State.new(Setup.parse(str(red), blue_first), Setup.parse(str(blue), blue_first), blue_first)
    assert state.turn == BLUE
    red_move = next(m for m in State.new(red, blue, rs).generate_legal_moves())
    with pytest.raises(IllegalMoveError) as err:
        state.push_checked(red_move)
    assert "Red's; it is Blue's turn" in err.value.reason
    assert all(state.owner_at(m.from_square) == BLUE for m in state.generate_legal_moves())
    state.push_checked(state.generate_legal_moves()[0])
    assert state.turn == RED


# -- custom rule sets ------------------------------------------------------------------------------------

MINI = CLASSIC.replace(
    name="mini", width=8, height=8, lakes=frozenset({"C4", "C5", "F4", "F5"}),
    army=((MARSHAL, 1), (MINER, 1), (SCOUT, 2), (SPY, 1), (CLASSIC.piece_type("B"), 2), (FLAG, 1)),
    setup_rows=((1, 2), (7, 8)), draw_limit=50, two_square_limit=2,
)


def test_custom_ruleset_board_army_and_rows() -> None:
    geo = geometry(MINI)
    assert (geo.width, geo.height, len(geo.land)) == (8, 8, 60)
    state = State.random(MINI, 3)
    assert {sq // 16 + 1 for sq in state.squares(RED)} <= {1, 2}
    assert {sq // 16 + 1 for sq in state.squares(BLUE)} <= {7, 8}
    assert sum(census(state).values()) == 16
    assert state.illegal_reason(Move(parse_square("A1"), parse_square("I1"))) == "I1 is not on the board"
    assert state.illegal_reason(Move(parse_square("A8"), parse_square("A9"))) == "A9 is not on the board"
    lone = make("B4:r2 A1:rF H8:bF", MINI)
    assert {square_name(m.to_square) for m in lone.generate_legal_moves()} == {
        "A4", "B1", "B2", "B3", "B5", "B6", "B7", "B8"}
    assert "C4 is a lake" in lone.illegal_reason(mv("B4-C4"))


def test_custom_ruleset_draw_limit_and_two_square_limit() -> None:
    state = make("A1:rX H8:bX D1:rF D8:bF", MINI)
    play(state, "A1-A2", "H8-H7", "A2-A1", "H7-G7")
    assert "two-square rule" in state.illegal_reason(mv("A1-A2"))  # limit 2: the third move is refused
    cycle = ["A1-B1", "G7-G8", "B1-B2", "G8-H8", "B2-A2", "H8-H7", "A2-A1", "H7-G7"]
    for i in range(46):
        state.push_checked(cycle[i % 8])
    assert state.quiet == 50
    assert state.outcome() == (Termination.QUIET_MOVE_LIMIT, None)


def test_custom_ruleset_plays_random_games_to_the_end() -> None:
    import random

    rng = random.Random(5)
    state = State.random(MINI, rng)
    while state.outcome() is None:
        state.push_checked(rng.choice(state.generate_legal_moves()))
    assert state.outcome().termination in set(Termination)
    assert len(attack_table(MINI)) == 4 * 6


def test_custom_ruleset_no_draw_rule() -> None:
    rs = CLASSIC.replace(name="endless", draw_limit=None)
    state = make("A1:rX J10:bX E1:rF E10:bF", rs)
    assert state.quiet_moves_left is None
    cycle = cycle_moves(rs)
    for i in range(250):
        state.push_checked(cycle[i % 8])
    assert state.outcome() is None


def test_custom_piece_type_works_without_engine_changes() -> None:
    knight = PieceType("Knight", "K", 6, RUN, "K", "K")
    rs = CLASSIC.replace(name="knights", army=((knight, 2), (MINER, 1), (FLAG, 1)), setup_rows=((1,), (10,)))
    state = make("A1:rK A8:bK E1:rF E10:bF", rs)
    assert mv("A1-A8") in state.legal_moves
    assert state.push_checked("A1-A8").result == EQ


BAD_RULESETS = [
    (dict(width=1), "board 1x10 is outside"),
    (dict(height=0), "board 10x0 is outside"),
    (dict(lakes=frozenset({"K5"})), "lake 'K5' is not a square of a 10x10 board"),
    (dict(lakes=frozenset({"C11"})), "lake 'C11'"),
    (dict(army=((MARSHAL, 1),)), "exactly one Flag"),
    (dict(army=((MARSHAL, 1), (FLAG, 1), (FLAG.__class__("Banner", "N", 0, IMMOBILE, is_flag=True), 1))),
     "exactly one Flag"),
    (dict(army=((MARSHAL, 1), (MARSHAL, 1), (FLAG, 1))), "distinct names and symbols"),
    (dict(army=((MARSHAL, -1), (FLAG, 1))), "must not be negative"),
    (dict(setup_rows=((1, 2, 3, 4), (4, 7, 8, 9))), "overlap"),
    (dict(setup_rows=((1,), (10,))), "Red's setup rows hold 10 squares, the army has 40"),
    (dict(setup_rows=((0, 1, 2, 3, 4), (7, 8, 9, 10))), "Red setup row 0 is off the board"),
    (dict(setup_rows=((1, 2, 3, 4), (7, 8, 9, 11))), "Blue setup row 11 is off the board"),
    (dict(two_square_limit=0), "two_square_limit must be at least 1"),
    (dict(chase_rule="sometimes"), "chase_rule 'sometimes'"),
    (dict(draw_limit=0), "draw_limit must be at least 1"),
    (dict(first_player=2), "first_player must be RED"),
    (dict(notation="roman"), "notation 'roman'"),
]


@pytest.mark.parametrize(("changes", "message"), BAD_RULESETS, ids=[m[:24] for _, m in BAD_RULESETS])
def test_bad_custom_ruleset_raises_value_error(changes: dict, message: str) -> None:
    with pytest.raises(ValueError) as err:
        CLASSIC.replace(name="bad", **changes)
    assert message in str(err.value)
    assert str(err.value).startswith("invalid ruleset 'bad': ")


def test_bad_custom_ruleset_lists_every_problem() -> None:
    with pytest.raises(ValueError) as err:
        Ruleset("bad", draw_limit=0, notation="roman", first_player=5)
    text = str(err.value)
    assert "draw_limit" in text and "notation" in text and "first_player" in text


def test_board_wider_than_the_square_numbering_is_refused_or_works() -> None:
    try:
        wide = CLASSIC.replace(name="wide", width=20, lakes=frozenset())
    except ValueError as e:
        assert "20" in str(e)
        return
    state = State.random(wide, 1)
    assert len(state.squares(RED)) == 40 and len(set(geometry(wide).land)) == 200


def test_named_square_constants() -> None:
    assert (A1, B1, A2, C5) == (0, 1, 16, 4 * 16 + 2)
    assert parse_square("c5") == C5 and square_name(C5) == "C5"
    assert square_name(parse_square("J10")) == "J10"
    with pytest.raises(ValueError, match="'Z0' is not a square name"):
        parse_square("Z0")
