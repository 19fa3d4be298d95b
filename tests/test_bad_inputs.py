"""Bad input to the public API: every refusal is a clear error that names the bad value or where it is."""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from strategolab import (
    BLUE,
    CLASSIC,
    POCKET,
    RED,
    Game,
    IllegalMoveError,
    Move,
    Piece,
    RecordError,
    Setup,
    SetupError,
    State,
    StrategolabError,
    attack_table,
    get_ruleset,
    parse_square,
    read_games,
    square_name,
    write_game,
)
from strategolab.ai import ComputerPlayer
from strategolab.controllers import REFUSED, PlayController, ReplayController
from strategolab.notation import scan_games
from strategolab.players import RandomPlayer, make_player, play_game
from strategolab.rules import BARRAGE_ARMY, BOMB, FLAG, SCOUT

RED_SETUP = "3859BS7642/B3B3236B4B/F52355X487/22222647B6"
BLUE_SETUP = "258F32S5XB/26647B7354/626327834B/22942BB35B"


@pytest.fixture
def state() -> State:
    return State.new(RED_SETUP, BLUE_SETUP)


# -- squares and moves -------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [None, 5, 3.5])
def test_parse_square_refuses_non_text_by_type(value: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(value).__name__} {re.escape(repr(value))}"):
        parse_square(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["", " ", "Z99", "A0", "A100", "A²", "A١", "Ａ1", "A-1", "AA"])
def test_parse_square_refuses_bad_names_naming_them(text: str) -> None:
    with pytest.raises(ValueError, match="is not a square name") as err:
        parse_square(text)
    assert repr(text) in str(err.value)
    assert "invalid literal" not in str(err.value)


@pytest.mark.parametrize("sq", [-1, 99 * 16, 10**20])
def test_square_name_refuses_numbers_that_are_no_square(sq: int) -> None:
    with pytest.raises(ValueError, match=f"{sq} is not a square number"):
        square_name(sq)


def test_square_name_refuses_none_by_type() -> None:
    with pytest.raises(TypeError, match="not NoneType None"):
        square_name(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, 5])
def test_move_parse_refuses_non_text(value: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(value).__name__} {re.escape(repr(value))}"):
        Move.parse(value)  # type: ignore[arg-type]


def test_move_parse_refuses_superscript_digits_naming_the_text() -> None:
    with pytest.raises(ValueError, match="'A²-A3' is not a move"):
        Move.parse("A²-A3")


def test_off_board_move_prints_its_numbers_not_a_made_up_square(state: State) -> None:
    with pytest.raises(IllegalMoveError, match="illegal move -1-A1: -1 is not on the board"):
        state.find_move(-1, 0)


@pytest.mark.parametrize("value", [None, 3.5, [0]])
def test_find_move_refuses_squares_of_the_wrong_type(state: State, value: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(value).__name__}"):
        state.find_move(value, "A5")  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, 5, (1, 2, 3)])
def test_push_checked_refuses_what_is_no_move(state: State, value: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(value).__name__}"):
        state.push_checked(value)  # type: ignore[arg-type]


def test_push_checked_names_squares_of_a_tuple_move(state: State) -> None:
    with pytest.raises(IllegalMoveError, match="illegal move A1-A2: A2 holds your own piece"):
        state.push_checked((0, 16))  # type: ignore[arg-type]


# -- states ----------------------------------------------------------------------------------------------------


def test_pop_without_moves_says_so(state: State) -> None:
    with pytest.raises(IndexError, match="no move to undo"):
        state.pop()


def test_peek_without_moves_says_so(state: State) -> None:
    with pytest.raises(IndexError, match="no move has been played"):
        state.peek()


@pytest.mark.parametrize("player", [2, -1, "red"])
def test_generate_legal_moves_refuses_unknown_player(state: State, player: object) -> None:
    with pytest.raises(ValueError, match=f"not {re.escape(repr(player))}"):
        state.generate_legal_moves(player)  # type: ignore[arg-type]


@pytest.mark.parametrize("first", [2, "red", 1.0])
def test_state_new_refuses_unknown_first_player(first: object) -> None:
    with pytest.raises(ValueError, match=f"first_player must be 0 .Red. or 1 .Blue., not {re.escape(repr(first))}"):
        State.new(RED_SETUP, BLUE_SETUP, first_player=first)  # type: ignore[arg-type]


def test_state_new_refuses_a_setup_of_the_wrong_type_naming_the_side() -> None:
    with pytest.raises(TypeError, match="Blue's setup must be a Setup or a setup string, not NoneType"):
        State.new(RED_SETUP, None)  # type: ignore[arg-type]


def test_state_new_says_which_side_has_a_bad_setup_string() -> None:
    with pytest.raises(SetupError, match="Blue's setup: setup string has 1 rows"):
        State.new(RED_SETUP, "F")


def test_state_new_says_which_side_has_an_invalid_setup() -> None:
    with pytest.raises(SetupError, match="Red's setup is not a valid classic setup: 7 × Bomb"):
        State.new(RED_SETUP.replace("F", "B"), BLUE_SETUP)


@pytest.mark.parametrize("text", [None, 5])
def test_from_position_refuses_non_text(text: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(text).__name__}"):
        State.from_position(text)  # type: ignore[arg-type]


@pytest.mark.parametrize("count", ["²", "١", "-1"])
def test_from_position_refuses_counts_that_are_no_plain_numbers(state: State, count: str) -> None:
    rows = state.position().split()[0]
    with pytest.raises(ValueError, match="expected side to move r/b, then two counts") as err:
        State.from_position(f"{rows} r {count} 0")
    assert count in str(err.value)


@pytest.mark.parametrize("turn", [2, "r"])
def test_state_from_placements_refuses_unknown_turn(turn: object) -> None:
    with pytest.raises(ValueError, match=f"turn must be 0 .Red. or 1 .Blue., not {re.escape(repr(turn))}"):
        State.from_placements({}, turn=turn)  # type: ignore[arg-type]


def test_state_from_placements_refuses_quiet_that_is_no_number() -> None:
    with pytest.raises(ValueError, match="quiet must be a number of moves, 0 or more, not 'x'"):
        State.from_placements({}, quiet="x")  # type: ignore[arg-type]


@pytest.mark.parametrize("piece", ["F", Piece(2, FLAG), Piece(5, FLAG), Piece(RED, "Flag")])
def test_set_piece_refuses_what_is_no_piece_naming_the_square(piece: object) -> None:
    with pytest.raises(TypeError, match="A1: expected a Piece"):
        State().set_piece("A1", piece)  # type: ignore[arg-type]


@pytest.mark.parametrize("sq", [None, 3.5])
def test_set_piece_refuses_squares_of_the_wrong_type(sq: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(sq).__name__} {re.escape(repr(sq))}"):
        State().set_piece(sq, None)  # type: ignore[arg-type]


# -- setups ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", [None, 5])
def test_setup_parse_refuses_non_text(text: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(text).__name__} {re.escape(repr(text))}"):
        Setup.parse(text)  # type: ignore[arg-type]


@pytest.mark.parametrize("player", [2, -1, None, "red"])
def test_setup_from_placements_refuses_unknown_player(player: object) -> None:
    with pytest.raises(ValueError, match=f"player must be 0 .Red. or 1 .Blue., not {re.escape(repr(player))}"):
        Setup.from_placements({"A1": "F"}, player)  # type: ignore[arg-type]


@pytest.mark.parametrize("key", [None, -1, 5000, "K1"])
def test_setup_from_placements_refuses_keys_that_are_no_square(key: object) -> None:
    with pytest.raises(SetupError, match=f"{re.escape(repr(key))} is not a square of the 10x10 board"):
        Setup.from_placements({key: "F"}, RED)  # type: ignore[dict-item]


@pytest.mark.parametrize("value", [None, 5])
def test_setup_from_placements_refuses_pieces_of_the_wrong_type_naming_the_square(value: object) -> None:
    with pytest.raises(SetupError, match=f"A1: ruleset 'classic' has no piece {re.escape(repr(value))}"):
        Setup.from_placements({"A1": value}, RED)  # type: ignore[dict-item]


def test_setup_refuses_symbols_in_place_of_piece_types() -> None:
    with pytest.raises(TypeError, match=r"setup square 1 .reading order.: expected a PieceType or None, not 'F'"):
        Setup(CLASSIC, ("F",) * 40)  # type: ignore[arg-type]


def test_setup_refuses_a_ruleset_of_the_wrong_type() -> None:
    with pytest.raises(TypeError, match=r"a setup's ruleset is a Ruleset .*, not 'classic'"):
        Setup("classic", ())  # type: ignore[arg-type]


@pytest.mark.parametrize("index", [40, -1, "A1"])
def test_setup_swap_refuses_positions_off_the_setup(index: object) -> None:
    with pytest.raises(ValueError, match=f"setup position {re.escape(repr(index))} is not one of 0..39"):
        Setup.random(seed=1).swap(0, index)  # type: ignore[arg-type]


def test_setup_placements_refuses_unknown_player() -> None:
    with pytest.raises(ValueError, match=r"player must be 0 .Red. or 1 .Blue., not 2"):
        Setup.random(seed=1).placements(2)


# -- rule sets -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("field", "value"), [
    ("width", None), ("width", "10"), ("width", 10.5), ("height", None), ("draw_limit", "200"),
    ("two_square_limit", 1.5), ("draw_warning", None), ("name", None), ("name", ""),
])
def test_ruleset_refuses_fields_of_the_wrong_type_by_name(field: str, value: object) -> None:
    with pytest.raises(TypeError, match=f"{field} must be .*, not {re.escape(repr(value))}"):
        CLASSIC.replace(**({"name": "custom"} | {field: value}))


@pytest.mark.parametrize(("field", "value"), [
    ("lakes", None), ("lakes", "C5"), ("lakes", frozenset({5})), ("lakes", {5}),
    ("army", None), ("army", (("Flag", 1),)), ("army", ((FLAG, "1"),)), ("army", [FLAG]),
    ("setup_rows", None), ("setup_rows", (1, 10)), ("setup_rows", (("1",), (10,))),
])
def test_ruleset_refuses_collections_of_the_wrong_shape_by_name(field: str, value: object) -> None:
    with pytest.raises(TypeError, match=f"invalid ruleset 'custom': {field} must be"):
        CLASSIC.replace(name="custom", **{field: value})


def test_ruleset_freezes_sets_and_lists_it_is_given() -> None:
    custom = CLASSIC.replace(name="custom", lakes={"C5", "D5", "C6", "D6"}, setup_rows=[[1, 2, 3, 4], [7, 8, 9, 10]],
                             army=[list(e) for e in CLASSIC.army])
    assert custom.lakes == frozenset({"C5", "D5", "C6", "D6"}) and custom.setup_rows == CLASSIC.setup_rows
    assert custom.army == CLASSIC.army and hash(custom) == hash(custom.replace())


@pytest.mark.parametrize("lake", ["K5", "c5", "A0", "A²", ""])
def test_ruleset_refuses_lakes_off_the_board_naming_them(lake: str) -> None:
    with pytest.raises(ValueError, match=f"lake {re.escape(repr(lake))} is not a square of a 10x10 board"):
        CLASSIC.replace(name="custom", lakes=frozenset({lake}))


def test_ruleset_refuses_overlapping_setup_rows() -> None:
    with pytest.raises(ValueError, match="the two setup zones overlap"):
        CLASSIC.replace(name="custom", setup_rows=((1, 2, 3, 4), (4, 5, 6, 7)))


def test_ruleset_refuses_setup_zones_of_different_shapes() -> None:
    with pytest.raises(ValueError, match=r"setup zones differ in shape .*Red \[6, 10, 10, 10, 10\], Blue \[10"):
        CLASSIC.replace(name="custom", army=BARRAGE_ARMY, setup_rows=((1, 2, 3, 4, 5), (7, 8, 9, 10)))


def test_ruleset_refuses_a_lake_in_one_setup_zone_only() -> None:
    with pytest.raises(ValueError, match=r"setup zones differ in shape .*Red \[10, 10, 10, 9\]"):
        CLASSIC.replace(name="custom", army=BARRAGE_ARMY, lakes=frozenset({"A1"}))


def test_ruleset_accepts_an_odd_board_with_mirrored_zones() -> None:
    rs = CLASSIC.replace(name="odd", height=11, setup_rows=((1, 2, 3, 4), (8, 9, 10, 11)))
    assert State.random(rs, seed=1).outcome() is None


def test_ruleset_refuses_an_empty_army() -> None:
    with pytest.raises(ValueError, match="army must contain exactly one Flag type"):
        CLASSIC.replace(name="custom", army=())


@pytest.mark.parametrize("symbol", ["SC", ".", "/", "~", "", " "])
def test_ruleset_refuses_symbols_that_setup_strings_cannot_hold(symbol: str) -> None:
    odd = dataclasses.replace(SCOUT, symbol=symbol, modern=symbol)
    with pytest.raises(ValueError, match=f"the Scout's symbol {re.escape(repr(symbol))} must be one character"):
        CLASSIC.replace(name="custom", army=((FLAG, 1), (odd, 8)))


def test_ruleset_refuses_more_piece_types_than_a_piece_code_holds() -> None:
    symbols = "abcdeghijklmnopqrstuvwxyzACDEGHI"
    army = ((FLAG, 1), *((dataclasses.replace(SCOUT, name=f"Scout{s}", symbol=s, modern=s), 1) for s in symbols[:31]))
    with pytest.raises(ValueError, match="army has 32 piece types, at most 31"):
        CLASSIC.replace(name="custom", army=army)


def test_ruleset_refuses_a_negative_draw_warning() -> None:
    with pytest.raises(ValueError, match="draw_warning must not be negative, not -5"):
        CLASSIC.replace(name="custom", draw_warning=-5)


@pytest.mark.parametrize("value", [[], 5.0])
def test_get_ruleset_refuses_values_that_are_no_name(value: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(value).__name__} {re.escape(repr(value))}"):
        get_ruleset(value)  # type: ignore[arg-type]


@pytest.mark.parametrize("key", [None, 5])
def test_piece_type_refuses_keys_that_are_no_text(key: object) -> None:
    with pytest.raises(KeyError, match=f"ruleset 'classic' has no piece {re.escape(repr(key))}"):
        CLASSIC.piece_type(key)  # type: ignore[arg-type]


def test_attack_table_names_an_unknown_piece() -> None:
    with pytest.raises(KeyError, match="has no piece 'Q'"):
        attack_table()["Q", "F"]


def test_custom_ruleset_with_only_immobile_pieces_ends_at_once() -> None:
    rs = CLASSIC.replace(name="immobile", army=((FLAG, 1), (BOMB, 3)))
    assert State.random(rs, seed=1).outcome() is not None


# -- records ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("start", [None, "x"])
def test_game_refuses_a_start_that_is_no_state(start: object) -> None:
    with pytest.raises(TypeError, match=f"a game starts from a State .*, not {type(start).__name__}"):
        Game(start)  # type: ignore[arg-type]


@pytest.mark.parametrize("headers", [5, "ab"])
def test_game_refuses_headers_that_are_no_mapping(state: State, headers: object) -> None:
    with pytest.raises(TypeError, match=f"headers are a mapping .*, not {re.escape(repr(headers))}"):
        Game(state, headers)  # type: ignore[arg-type]


def test_game_from_state_refuses_what_is_no_state() -> None:
    with pytest.raises(TypeError, match=r"Game.from_state needs a State, not NoneType"):
        Game.from_state(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("move", [None, 5, (1, 2, 3)])
def test_add_variation_refuses_what_is_no_move(state: State, move: object) -> None:
    with pytest.raises(TypeError, match=f"a move is a Move or a str like 'A4-A5', not {type(move).__name__}"):
        Game(state).add_variation(move)  # type: ignore[arg-type]


def test_add_variation_refuses_off_board_moves_by_name(state: State) -> None:
    with pytest.raises(IllegalMoveError, match="illegal move K4-K5: K4 is not on the board"):
        Game(state).add_variation("K4-K5")


@pytest.mark.parametrize("marks", ["!?", 5, None])
def test_marks_refuse_a_single_mark_in_place_of_a_collection(state: State, marks: object) -> None:
    with pytest.raises(TypeError, match=f"marks are a collection of marks, .*not {re.escape(repr(marks))}"):
        Game(state).add_variation("A4-A5", marks=marks)  # type: ignore[arg-type]


def test_add_line_refuses_one_string_of_moves(state: State) -> None:
    game = Game(state)
    with pytest.raises(TypeError, match=r"add_line takes a list of moves, .*not one str 'A4-A5'"):
        game.add_line("A4-A5")
    assert game.variations == []


def test_add_line_adds_nothing_when_a_move_is_no_move(state: State) -> None:
    game = Game(state)
    with pytest.raises(TypeError, match="not NoneType None"):
        game.add_line(["A4-A5", None])  # type: ignore[list-item]
    assert game.variations == []


@pytest.mark.parametrize("index", [1, -1])
def test_variation_by_index_out_of_range_is_a_key_error_naming_it(state: State, index: int) -> None:
    game = Game(state)
    game.add_variation("A4-A5")
    with pytest.raises(KeyError, match=f"no variation {index} here: this node has 1"):
        game.variation(index)


@pytest.mark.parametrize("key", [None, 1.0])
def test_variation_refuses_keys_of_the_wrong_type(state: State, key: object) -> None:
    with pytest.raises(TypeError, match=f"not {re.escape(repr(key))}"):
        Game(state).variation(key)  # type: ignore[arg-type]


def test_promote_on_a_removed_node_says_it_was_removed(state: State) -> None:
    node = Game(state).add_variation("A4-A5")
    node.remove()
    with pytest.raises(ValueError, match="this node was removed from its game"):
        node.promote()


def test_promote_on_a_node_dropped_from_its_parent_is_a_clear_error(state: State) -> None:
    game = Game(state)
    node = game.add_variation("A4-A5")
    game.variations.remove(node)
    with pytest.raises(ValueError, match="not among its parent's variations"):
        node.promote()


# -- notation --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rulesets", [None, "classic", [5]])
def test_read_games_refuses_rulesets_that_are_no_rulesets(rulesets: object) -> None:
    shown = re.escape(repr(5 if rulesets == [5] else rulesets))
    with pytest.raises(TypeError, match=f"rulesets= takes .*not .*{shown}"):
        read_games("", rulesets=rulesets)  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [None, "text"])
def test_write_game_refuses_what_is_no_game(value: object) -> None:
    with pytest.raises(TypeError, match=f"write_game writes a Game .*, not {type(value).__name__}"):
        write_game(value)  # type: ignore[arg-type]


def test_read_games_locates_a_superscript_count_in_the_position_header(state: State) -> None:
    rows = state.position().split()[0]
    text = f'[Position "{rows} r ² 0"]\n\n*\n'
    with pytest.raises(RecordError, match=r"^<string>:1:11: bad \[Position\]: .* r ² 0': expected side to move"):
        list(read_games(text))


def test_scan_games_locates_an_unknown_ruleset() -> None:
    text = f'[Ruleset "nope"]\n[RedSetup "{RED_SETUP}"]\n[BlueSetup "{BLUE_SETUP}"]\n\n*\n'
    with pytest.raises(RecordError, match=r"^<string>:1:10: found ruleset 'nope'"):
        list(scan_games(text))


# -- players ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spec", [None, "", "Easy", "nope"])
def test_make_player_refuses_unknown_levels_naming_them(spec: object) -> None:
    with pytest.raises(ValueError, match=f"unknown player {re.escape(repr(spec))}"):
        make_player(spec)  # type: ignore[arg-type]


@pytest.mark.parametrize("level", [None, 5])
def test_computer_player_refuses_levels_of_the_wrong_type(level: object) -> None:
    with pytest.raises(TypeError, match=f"level is one of easy, medium, hard or a Level, not {re.escape(repr(level))}"):
        ComputerPlayer(level)  # type: ignore[arg-type]


@pytest.mark.parametrize("spec", ["random", "easy"])
def test_choose_move_on_a_finished_game_says_it_is_over(spec: str) -> None:
    final = play_game(RandomPlayer(1), RandomPlayer(2), POCKET, seed=3)
    assert final.outcome() is not None
    with pytest.raises(ValueError, match="no legal move: the game is over"):
        make_player(spec).choose_move(final.view(final.turn))


def test_random_player_refuses_a_state_in_place_of_a_view(state: State) -> None:
    with pytest.raises(TypeError, match="not State"):
        RandomPlayer().choose_move(state)  # type: ignore[arg-type]


def test_random_player_refuses_the_view_of_the_side_not_to_move(state: State) -> None:
    with pytest.raises(ValueError, match="it is Red's turn, this is Blue's view"):
        RandomPlayer().choose_move(state.view(BLUE))


# -- statistics ------------------------------------------------------------------------------------------------


def test_load_games_names_a_missing_path(tmp_path: Path) -> None:
    from strategolab.stats import load_games

    with pytest.raises(FileNotFoundError, match="nope: no such file or folder"):
        load_games(tmp_path / "nope", cache=False, workers=1, progress=False)


@pytest.mark.parametrize("sources", [None, 5, [None]])
def test_load_games_refuses_sources_that_are_no_paths(sources: object) -> None:
    from strategolab.stats import load_games

    with pytest.raises(TypeError, match=r"load_games reads .*, not .*None|load_games reads .*, not 5"):
        load_games(sources, cache=False, workers=1, progress=False)  # type: ignore[arg-type]


def test_load_games_names_an_unknown_variant(tmp_path: Path) -> None:
    from strategolab.stats import load_games

    with pytest.raises(ValueError, match=r"variants: unknown 'clasic'; known: .*classic"):
        load_games(tmp_path, variants=iter(["classic", "clasic"]), cache=False, workers=1, progress=False)
    assert len(load_games(tmp_path, variants=iter(["barrage"]), cache=False, workers=1, progress=False).games) == 0


def test_load_games_on_an_empty_folder_is_empty(tmp_path: Path) -> None:
    from strategolab.stats import load_games

    tables = load_games(tmp_path, cache=False, workers=1, progress=False)
    assert len(tables.games) == 0 and tables.errors == []


def test_load_games_lists_junk_files_by_their_whole_path(tmp_path: Path) -> None:
    from strategolab.stats import load_games

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "a.sgn").write_text("garbage\n")
    (tmp_path / "b.xml").write_bytes(b"\x00\x01 not xml")
    (tmp_path / "c.zip").write_bytes(b"not a zip")
    tables = load_games(tmp_path, cache=False, workers=1, progress=False)
    assert len(tables.games) == 0 and len(tables.errors) == 3
    assert any(e.startswith(f"{tmp_path / 'sub' / 'a.sgn'}:1:1: found 'garbage'") for e in tables.errors)
    assert any(e.startswith(f"{tmp_path / 'c.zip'}: not a readable zip file") for e in tables.errors)
    with pytest.raises(RecordError, match=str(tmp_path)):
        load_games(tmp_path, cache=False, workers=1, progress=False, errors="raise")


# -- controllers -----------------------------------------------------------------------------------------------


@pytest.fixture
def match() -> PlayController:
    c = PlayController("pocket", "random")
    c.begin()
    return c


@pytest.mark.parametrize("sq", [-1, 10, 6 * 16, 10**6])
def test_play_click_off_the_board_is_refused_naming_the_square(match: PlayController, sq: int) -> None:
    assert match.click(sq) == REFUSED
    assert match.message == f"Square {sq} is not on the 6x6 board."


@pytest.mark.parametrize("sq", [None, "A1", 3.5])
def test_click_refuses_values_that_are_no_square_number(match: PlayController, sq: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(sq).__name__} {re.escape(repr(sq))}"):
        match.click(sq)  # type: ignore[arg-type]


def test_setup_click_off_the_rows_is_refused() -> None:
    c = PlayController("pocket", "random")
    assert c.click(10**6) == REFUSED and "setup rows" in c.message


def test_actions_in_the_wrong_phase_say_which_phase(match: PlayController) -> None:
    with pytest.raises(ValueError, match="needs the setup phase; the match is in the play phase"):
        match.shuffle()
    with pytest.raises(ValueError, match="needs the setup phase; the match is in the play phase"):
        match.begin()


def test_save_to_a_folder_says_it_is_a_folder_and_keeps_the_match(match: PlayController, tmp_path: Path) -> None:
    assert not match.save(tmp_path)
    assert "this is a folder" in match.message and str(tmp_path) in match.message
    assert match.in_progress and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("path", [None, 5])
def test_save_and_restore_refuse_paths_of_the_wrong_type(match: PlayController, path: object) -> None:
    with pytest.raises(TypeError, match=f"not {type(path).__name__} {re.escape(repr(path))}"):
        match.save(path)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=f"not {type(path).__name__} {re.escape(repr(path))}"):
        match.restore(path, confirm=True)  # type: ignore[arg-type]


def test_restore_a_missing_file_changes_nothing(match: PlayController, tmp_path: Path) -> None:
    before = match.state.position()  # type: ignore[union-attr]
    assert not match.restore(tmp_path / "nope.sgn", confirm=True)
    assert "nope.sgn" in match.message and "No such file" in match.message
    assert match.state.position() == before  # type: ignore[union-attr]


def test_restore_a_bad_seed_header_names_it(match: PlayController, tmp_path: Path) -> None:
    path = tmp_path / "m.sgn"
    path.write_text(write_game(match.game()).replace('[Seed "0"]', '[Seed "²"]'))  # a record written by hand
    assert not match.restore(path, confirm=True)
    assert '[Seed "²"]: expected a whole number' in match.message
    assert "invalid literal" not in match.message and match.in_progress


def test_restore_a_garbage_file_names_file_line_and_column(match: PlayController, tmp_path: Path) -> None:
    path = tmp_path / "junk.sgn"
    path.write_text("garbage\n")
    assert not match.restore(path, confirm=True)
    assert f"{path}:1:1: found 'garbage'" in match.message and match.in_progress


def test_replay_without_a_game_says_to_open_one() -> None:
    c = ReplayController()
    for action in (lambda: c.node, c.next, c.cells, c.describe, c.moves, c.headers, c.choices, c.main_line,
                   lambda: c.annotate("x"), lambda: c.save("x.sgn")):
        with pytest.raises(ValueError, match="no game is open: open a record first"):
            action()


def test_replay_refuses_a_game_of_the_wrong_type() -> None:
    with pytest.raises(TypeError, match=r"ReplayController replays a Game .*, not int"):
        ReplayController(5)  # type: ignore[arg-type]


def test_replay_open_missing_and_garbage_files_keep_the_open_game(state: State, tmp_path: Path) -> None:
    game = Game(state)
    c = ReplayController(game)
    assert not c.open(tmp_path / "nope.sgn")
    assert "nope.sgn" in c.message and c.message_kind == "error"
    (tmp_path / "junk.xml").write_bytes(b"\xff\xfe garbage")
    assert not c.open(tmp_path / "junk.xml")
    assert "junk.xml" in c.message and c.game is game


@pytest.mark.parametrize("index", [None, "1", 1.5])
def test_replay_open_refuses_an_index_of_the_wrong_type(tmp_path: Path, index: object) -> None:
    with pytest.raises(TypeError, match=f"index is a game number .*, not {re.escape(repr(index))}"):
        ReplayController().open(tmp_path / "x.sgn", index)  # type: ignore[arg-type]


@pytest.mark.parametrize("index", [5, -1])
def test_replay_choose_game_out_of_range_names_the_index(state: State, index: int) -> None:
    with pytest.raises(ValueError, match=f"there is no game {index}: the open file has 1"):
        ReplayController(Game(state)).choose_game(index)


@pytest.mark.parametrize("k", [1, -1, None])
def test_replay_follow_out_of_range_names_the_continuation(state: State, k: object) -> None:
    game = Game(state)
    game.add_variation("A4-A5")
    with pytest.raises(ValueError, match=f"there is no continuation {re.escape(repr(k))} here: choose 0 to 0"):
        ReplayController(game).follow(k)  # type: ignore[arg-type]


def test_replay_from_file_of_a_missing_file_is_a_kit_error(tmp_path: Path) -> None:
    with pytest.raises(StrategolabError, match=r"nope.sgn: cannot read the file"):
        ReplayController.from_file(tmp_path / "nope.sgn")


def test_legal_moves_contain_move_text_and_nothing_that_is_no_move() -> None:
    state = State.random("classic", 1)
    move = state.generate_legal_moves()[0]
    assert move in state.legal_moves and str(move) in state.legal_moves and tuple(move) in state.legal_moves
    for thing in ("hello", "Z99-A1", ("A4", "A5"), (True, False), None, 5, (1, 2, 3)):
        assert thing not in state.legal_moves


# -- damaged and hostile inputs (issue 12) ------------------------------------------------------------------

# Gravon field letters: a classic army (with Captains, "H"), and a barrage army, each on its owner's rows.
CLASSIC_ROWS = "MBBBBBBCDD" "DDDDDDEEEE" "EFFFFGGGGH" "HHHIIIJJKL"
BARRAGE_ROWS = "MBCDDELK" + "A" * 32
LAKE_ROWS = "AA__AA__AA" * 2


def gravon_field(red: str, blue: str) -> str:
    return red + LAKE_ROWS + "".join(chr(ord(c) + 12) if c != "A" else c for c in blue)


def gravon_doc(game_type: str, field: str) -> bytes:
    return (f'<stratego><game type="{game_type}"><field content="{field}"/>'
            f'<move id="1" source="A4" target="A5"/><result type="3" winner="2"/></game></stratego>').encode()


def test_a_piece_the_army_lacks_is_a_located_error_not_a_key_error(tmp_path: Path) -> None:
    from strategolab.archive import initial_state
    from strategolab.gravon import GravonError, GravonGame, parse_gravon

    with pytest.raises(GravonError, match=r"x\.xml:1:\d+: field character 'H' at I1 \(field character 9\) is a "
                                          r"Captain, which the barrage army does not have \(it has Marshal"):
        parse_gravon(gravon_doc("barrage", gravon_field(BARRAGE_ROWS[:8] + "H" + BARRAGE_ROWS[9:], BARRAGE_ROWS)),
                     "x.xml")
    made = GravonGame("made.xml", "barrage", gravon_field(BARRAGE_ROWS, CLASSIC_ROWS), ())  # built, not read
    with pytest.raises(GravonError, match=r"made\.xml: the field has a \w+ on \w+, which the gravon-barrage army "):
        initial_state(made)


def test_replay_open_skips_a_game_whose_army_is_wrong(tmp_path: Path) -> None:
    import zipfile

    path = tmp_path / "month.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("barrage-1.xml", gravon_doc("barrage", gravon_field(CLASSIC_ROWS, BARRAGE_ROWS)))
        z.writestr("barrage-2.xml", gravon_doc("barrage", gravon_field(BARRAGE_ROWS, BARRAGE_ROWS)))
    c = ReplayController()
    assert c.open(path) and c.game is not None and len(c.game_labels()) == 1
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("barrage-1.xml", gravon_doc("barrage", gravon_field(CLASSIC_ROWS, BARRAGE_ROWS)))
    assert not c.open(path) and c.message_kind == "error"


def test_long_games_pickle_and_copy_without_recursion() -> None:
    import copy
    import pickle

    from conftest import random_game

    state = random_game(CLASSIC, 7, 1200)
    assert len(state.move_stack) >= 600
    game = Game.from_state(state, {"Event": "long"})
    node = game.mainline()[300]
    node.comment = "here"
    node.parent.add_variation(node.parent.state().generate_legal_moves()[-1], comment="instead")  # type: ignore
    for back in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game), copy.copy(game)):
        assert back == game and back.headers == game.headers and back.mainline()[300].comment == "here"
        assert all(n.parent is p for p, n in zip([back, *back.mainline()], back.mainline(), strict=False))
    again, inner = pickle.loads(pickle.dumps((game, node)))  # a node keeps its place in its game
    assert inner.game() is again and inner.ply() == node.ply() and inner.comment == "here"
    assert game.mainline()[0].parent is game  # the original is untouched


def test_rule_set_names_are_one_printable_line() -> None:
    for name in ("x\ny", 'x"]\n[Event "y', "x\r", "\x1b[2J", "x" * 101):
        with pytest.raises(ValueError, match="name must be one line of at most 100 printable characters"):
            CLASSIC.replace(name=name)
    rs = CLASSIC.replace(name='odd "name" [with] \\ and ]')  # quotes and brackets are written escaped
    game = Game(State.random(rs, 1))
    assert read_games(write_game(game), rulesets=[rs]).__next__() == game


def _peak(action: Callable[[], object]) -> int:
    """The peak of memory traced while ``action`` runs (a second time: caches are filled), in bytes."""
    import tracemalloc

    with contextlib.suppress(RecordError):
        action()
    tracemalloc.start()
    try:
        with contextlib.suppress(RecordError):
            action()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


SETUPS = f'[RedSetup "{RED_SETUP}"]\n[BlueSetup "{BLUE_SETUP}"]\n'


@pytest.mark.parametrize("close", ['"]', ""])
def test_a_long_header_value_costs_little_memory_and_is_refused_with_its_place(close: str) -> None:
    from strategolab.notation import MAX_HEADER_CHARS

    ok = f'[Event "{"v" * (MAX_HEADER_CHARS - 10)}{close}\n{SETUPS}\n*\n'
    huge = f'[Event "{"v" * 2_000_000}{close}\n{SETUPS}\n*\n'
    for text in (ok, huge):
        for reader in (read_games, scan_games):
            assert _peak(lambda r=reader, t=text: list(r(t))) < 3 * len(text)  # was 165 bytes per character
    with pytest.raises(RecordError, match=rf"^big\.sgn:1:{MAX_HEADER_CHARS + 1}: found a header line of "
                                          rf"2,000,0\d\d characters, expected at most {MAX_HEADER_CHARS:,}"):
        list(read_games(huge, name="big.sgn"))
    if close:
        assert len(next(read_games(ok)).headers["Event"]) == MAX_HEADER_CHARS - 10


def test_a_long_line_of_moves_costs_little_memory(tmp_path: Path) -> None:
    line = "A4-A5 B7-B6 A5-A4 B6-B7 " * 60_000  # 1.4 MB; the two-square rule refuses the seventh move
    text = f"{SETUPS}\n{line}*\n"
    path = tmp_path / "line.sgn"
    path.write_text(text)
    assert _peak(lambda: list(read_games(path))) < 3 * len(text)  # was 9 bytes per character
    assert _peak(lambda: list(scan_games(path))) < 3 * len(text)
    with pytest.raises(RecordError, match=r"line\.sgn:4:37: illegal move A5-A4: two-square rule"):
        list(read_games(path))


def test_too_many_headers_or_moves_are_refused_where_they_begin(monkeypatch: pytest.MonkeyPatch) -> None:
    from strategolab import notation

    many = "".join(f'[H{i} "v"]\n' for i in range(5_000)) + SETUPS + "\n*\n"
    assert _peak(lambda: list(read_games(many))) < 3 * len(many)  # was 35 bytes per character
    with pytest.raises(RecordError, match=r"^<string>:1001:1: found more than 1,000 headers, expected at most"):
        list(read_games(many))
    monkeypatch.setattr(notation, "MAX_MOVES", 3)
    text = f"{SETUPS}\n1. A4-A5 B7-B6 2. B4-B5 E7-E6 *\n"
    for reader in (read_games, scan_games):
        with pytest.raises(RecordError, match=r"<string>:4:25: found move 4 of this game, expected at most 3"):
            list(reader(text))
    game = Game.from_state(State.new(RED_SETUP, BLUE_SETUP))
    for move in ("A4-A5", "B7-B6", "B4-B5", "E7-E6"):
        game.end().add_variation(move)
    with pytest.raises(ValueError, match="more than 3 moves"):
        write_game(game)  # the writer refuses what the reader would


def test_the_writer_refuses_a_header_the_reader_would_refuse() -> None:
    game = Game(State.new(RED_SETUP, BLUE_SETUP), {"Event": "x" * 70_000})
    with pytest.raises(ValueError, match="header Event holds 70,000 characters: a header line holds at most"):
        write_game(game)
    game.headers = {f"H{i}": "v" for i in range(1_000)}
    with pytest.raises(ValueError, match="headers: the notation holds at most 1,000 per game"):
        write_game(game)


def test_messages_quote_control_characters_and_shorten_long_values() -> None:
    from strategolab.errors import printable, shown
    from strategolab.gravon import GravonError, parse_gravon

    assert shown("a\x1b[2Jb") == "'a\\x1b[2Jb'" and shown("x" * 1000).endswith("... (1,000 characters)")
    assert printable("m\nfake: line\u202e") == "m\\nfake: line\\u202e" and len(printable("y" * 10**6)) < 300
    error = RecordError("bad", "month.zip:classic-\x1b[2J\r\n.xml", 3, 4)
    assert str(error) == "month.zip:classic-\\x1b[2J\\r\\n.xml:3:4: bad"
    doc = f'<stratego><game type="classic"><move id="1" source="{"Z" * 4_000_000}" target="A5"/></game></stratego>'
    with pytest.raises(GravonError) as info:
        parse_gravon(doc.encode(), "big.xml", max_bytes=5_000_000)
    assert len(str(info.value)) < 300 and "(4,000,000 characters)" in str(info.value)
    for value in ("\x1b[2J", "x" * 100_000):
        with pytest.raises(RecordError) as info:
            list(read_games(f'[Result "{value}"]\n{SETUPS}\n*\n'))
        assert "\x1b" not in str(info.value) and len(str(info.value)) < 300


def test_record_errors_pickle_with_their_place() -> None:
    """Games keep their reading errors (game.errors), so pickling a game pickles them."""
    import pickle

    from strategolab.archive import ConversionError

    for error in (RecordError("bad", "a.sgn", 3, 4), ConversionError("illegal", "m.zip:x.xml")):
        back = pickle.loads(pickle.dumps(error))
        assert (type(back), str(back), back.message, back.source, back.line) == (
            type(error), str(error), error.message, error.source, error.line)
