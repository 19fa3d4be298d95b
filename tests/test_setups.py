"""Setups: validation messages, setup strings, random setups, and where the pieces land for each colour."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from conftest import ALL_RULESETS, RULESET_IDS

from strategolab import BLUE, CLASSIC, POCKET, RED, Ruleset, Setup, SetupError, State, parse_square, square_name
from strategolab.board import geometry
from strategolab.rules import MARSHAL, MINE

params = pytest.mark.parametrize("rs", ALL_RULESETS, ids=RULESET_IDS)

# A readable classic setup: front row (row 4 for Red) first.
CLASSIC_SETUP = "2323X92323/4567857468/B2S2B2B2B5/FB643B6475"


def test_known_setup_places_pieces_in_reading_order() -> None:
    s = Setup.parse(CLASSIC_SETUP)
    assert s.is_valid() and s.validate() is s and s.problems() == []
    red = {square_name(sq): p.symbol for sq, p in s.placements(RED).items()}
    assert red["A4"] == "2" and red["E4"] == "X" and red["J4"] == "3"  # front row, left to right
    assert red["A1"] == "F" and red["J1"] == "5"  # back row
    blue = {square_name(sq): p.symbol for sq, p in s.placements(BLUE).items()}
    assert blue["J7"] == "2" and blue["F7"] == "X" and blue["A7"] == "3"  # Blue's left is column J
    assert blue["J10"] == "F" and blue["A10"] == "5"


@params
def test_blue_placements_are_red_rotated_180_degrees(rs: Ruleset) -> None:
    s = Setup.random(rs, 5)
    red, blue = s.placements(RED), s.placements(BLUE)
    assert len(red) == len(blue) == rs.army_size
    for sq, kind in red.items():
        col, row = sq % 16, sq // 16
        assert blue[(rs.height - 1 - row) * 16 + (rs.width - 1 - col)] == kind


@params
def test_random_setups_are_valid_and_reproducible(rs: Ruleset) -> None:
    seen = set()
    for seed in range(20):
        s = Setup.random(rs, seed)
        assert s.is_valid(), s.problems()
        assert s == Setup.random(rs, seed) == Setup.random(rs, random.Random(seed))
        counts = Counter(p.name for p in s.pieces if p is not None)
        assert counts == Counter({p.name: n for p, n in rs.army if n})
        seen.add(str(s))
    assert len(seen) == 20  # different seeds give different setups


@params
def test_setup_string_round_trip(rs: Ruleset) -> None:
    for seed in range(10):
        text = str(Setup.random(rs, seed))
        assert str(Setup.parse(text, rs)) == text
        assert Setup.parse(text, rs) == Setup.random(rs, seed)
        assert text.count("/") == len(rs.setup_rows[RED]) - 1
    s = Setup.random(rs, 1)
    assert eval(repr(s), {"Setup": Setup}) == s


def test_setup_string_accepts_10_for_the_marshal_spaces_and_newlines() -> None:
    assert Setup.parse(CLASSIC_SETUP.replace("X", "10")) == Setup.parse(CLASSIC_SETUP)
    spaced = CLASSIC_SETUP.replace("/", "\n").replace("2", "2 ")
    assert Setup.parse(spaced) == Setup.parse(CLASSIC_SETUP)


def test_pocket_setup_string() -> None:
    s = Setup.parse("1F5121/3M24M3", POCKET)
    assert s.is_valid()
    red = {square_name(sq): p.name for sq, p in s.placements(RED).items()}
    assert red["A2"] == "Runner" and red["B2"] == "Flag" and red["B1"] == "Mine"
    blue = {square_name(sq): p.name for sq, p in s.placements(BLUE).items()}
    assert blue["F5"] == "Runner" and blue["E5"] == "Flag" and blue["E6"] == "Mine"


@pytest.mark.parametrize("rows", [((5, 6), (1, 2)), ((1, 2), (5, 6))], ids=["blue-at-bottom", "red-at-bottom"])
def test_every_side_reads_its_setup_from_its_own_seat(rows: tuple) -> None:
    """Hidden Flag Play: "You control the blue army at the bottom" (and the bottom side moves first).  A
    setup string is read front row first, left to right as its owner sees the board, on either seat."""
    rs = POCKET.replace(name=f"pocket-{rows[0][0]}", setup_rows=rows, first_player=BLUE if rows[1] == (1, 2) else RED)
    s = Setup.parse("1F5121/3M24M3", rs)
    for player in (RED, BLUE):
        placed = {square_name(sq): p.name for sq, p in s.placements(player).items()}
        bottom = rs.sits_at_bottom(player)
        front, back = (2, 1) if bottom else (5, 6)
        left, right = ("A", "F") if bottom else ("F", "A")
        assert placed[f"{left}{front}"] == "Runner" and placed[f"B{front}" if bottom else f"E{front}"] == "Flag"
        assert placed[f"{right}{front}"] == "Runner" and placed[f"{right}{back}"] == "Guard"
        assert placed[f"B{back}" if bottom else f"E{back}"] == "Mine"
    state = State.new(s, s, rs)
    bottom_player = BLUE if rows[1] == (1, 2) else RED
    assert state.turn == bottom_player
    assert state.piece_at(parse_square("B2")).type.name == "Flag"  # the bottom side's Flag on its front row
    assert state.piece_at(parse_square("E5")).type.name == "Flag"  # the top side's, on its front row


# -- what is wrong and where ---------------------------------------------------------------------------------


def test_wrong_counts_say_which_piece_and_how_many() -> None:
    text = CLASSIC_SETUP.replace("X", "9")  # no Marshal, two Generals
    s = Setup.parse(text)
    assert not s.is_valid()
    assert s.problems() == ["0 × Marshal where classic needs 1 Marshal",
                            "2 × General where classic needs 1 General"]
    with pytest.raises(SetupError) as err:
        s.validate()
    assert str(err.value) == ("invalid classic setup: 0 × Marshal where classic needs 1 Marshal; "
                              "2 × General where classic needs 1 General")


def test_missing_pieces_and_plural() -> None:
    text = CLASSIC_SETUP.replace("B", ".", 2)
    problems = Setup.parse(text).problems()
    assert problems == ["4 × Bomb where classic needs 6 Bombs"]


def test_piece_of_another_ruleset_is_named() -> None:
    s = Setup.random(CLASSIC, 1)
    pieces = list(s.pieces)
    pieces[pieces.index(MARSHAL)] = MINE
    problems = Setup(CLASSIC, tuple(pieces)).problems()
    assert "a Mine is not a piece of classic" in problems
    assert "0 × Marshal where classic needs 1 Marshal" in problems


def test_wrong_number_of_squares() -> None:
    s = Setup(CLASSIC, Setup.random(CLASSIC, 1).pieces[:-1])
    assert "a classic setup has 40 squares, this one 39" in s.problems()


@pytest.mark.parametrize(("player", "square", "message"), [
    (RED, "E5", "Red's Marshal on E5 is outside Red's setup rows (1, 2, 3, 4)"),
    (RED, "E7", "Red's Marshal on E7 is outside Red's setup rows (1, 2, 3, 4)"),
    (BLUE, "E4", "Blue's Marshal on E4 is outside Blue's setup rows (7, 8, 9, 10)"),
])
def test_piece_outside_setup_rows_names_the_square(player: int, square: str, message: str) -> None:
    with pytest.raises(SetupError) as err:
        Setup.from_placements({square: "X"}, player)
    assert str(err.value) == message


def test_from_placements_round_trip() -> None:
    for player in (RED, BLUE):
        s = Setup.random(CLASSIC, 9)
        again = Setup.from_placements(s.placements(player), player)
        assert again == s
        by_name = Setup.from_placements({square_name(sq): p.symbol for sq, p in s.placements(player).items()},
                                        player)
        assert by_name == s
    partial = Setup.from_placements({"A1": "F", parse_square("B1"): MARSHAL}, RED)
    assert sum(p is not None for p in partial.pieces) == 2
    assert "0 × Bomb where classic needs 6 Bombs" in partial.problems()


def test_from_placements_unknown_symbol_is_a_setup_error() -> None:
    with pytest.raises(SetupError, match="Q"):
        Setup.from_placements({"A1": "Q"}, RED)


@pytest.mark.parametrize(("text", "message"), [
    (CLASSIC_SETUP.replace("X", "Q"), "setup string row 1, character 5: 'Q' is not a piece of classic"),
    (CLASSIC_SETUP[:-1] + "?", "setup string row 4, character 10: '?' is not a piece of classic"),
    (CLASSIC_SETUP.replace("S", "M"), "setup string row 3, character 3: 'M' is not a piece of classic"),
    (CLASSIC_SETUP[:-1], "setup string row 4 has 9 squares, expected 10"),
    (CLASSIC_SETUP.replace("2323X92323", "2323X923233"), "setup string row 1 has 11 squares, expected 10"),
    (CLASSIC_SETUP.rsplit("/", 1)[0], "setup string has 3 rows separated by '/', classic needs 4"),
    (CLASSIC_SETUP + "/..........", "setup string has 5 rows separated by '/', classic needs 4"),
])
def test_bad_setup_strings_say_row_and_character(text: str, message: str) -> None:
    with pytest.raises(SetupError) as err:
        Setup.parse(text)
    assert str(err.value).startswith(message)
    assert isinstance(err.value, ValueError)


def test_bad_character_message_lists_the_pieces() -> None:
    with pytest.raises(SetupError, match="X=Marshal") as err:
        Setup.parse(CLASSIC_SETUP.replace("X", "Q"))
    assert "'.' for an empty square" in str(err.value)


def test_pocket_setup_string_errors() -> None:
    with pytest.raises(SetupError, match="row 2, character 2: 'B' is not a piece of pocket"):
        Setup.parse("1F5121/3B24M3", POCKET)
    with pytest.raises(SetupError, match="row 1 has 7 squares, expected 6"):
        Setup.parse("1F51211/3M24M3", POCKET)


def test_barrage_setup_is_mostly_empty() -> None:
    s = Setup.random("barrage", 3)
    assert len(s.pieces) == 40 and sum(p is not None for p in s.pieces) == 8
    assert str(s).count(".") == 32
    with pytest.raises(SetupError, match="'4' is not a piece of barrage"):
        Setup.parse(CLASSIC_SETUP, "barrage")
    only_known = "".join(c if c in "X932SBF/" else "." for c in CLASSIC_SETUP)
    assert "8 × Scout where barrage needs 2 Scouts" in Setup.parse(only_known, "barrage").problems()


def test_swap() -> None:
    s = Setup.parse(CLASSIC_SETUP)
    t = s.swap(0, 4)
    assert str(t).startswith("X3232") and t.is_valid() and s == Setup.parse(CLASSIC_SETUP)


def test_state_new_uses_both_setups() -> None:
    red, blue = Setup.random(CLASSIC, 1), Setup.random(CLASSIC, 2)
    state = State.new(red, blue)
    for sq, kind in red.placements(RED).items():
        assert state.piece_at(sq).type == kind and state.piece_at(sq).owner == RED
    for sq, kind in blue.placements(BLUE).items():
        assert state.piece_at(sq).type == kind and state.piece_at(sq).owner == BLUE
    assert not any(state.has_moved(sq) or state.is_revealed(sq) for sq in state.squares())


def test_setup_squares_count_matches_geometry() -> None:
    for rs in ALL_RULESETS:
        assert len(geometry(rs).setup_squares[RED]) == len(Setup.random(rs, 0).pieces)
