"""Converting between Gravon XML and the kit's notation: exact export, clear refusals, and the whole shared
archive converted to the notation and back without losing a move, a player or a result."""

from __future__ import annotations

import collections
import os
import stat
import zipfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest
from conftest import ARCHIVE

import strategolab as sl
from strategolab.archive import (
    CONVERTIBLE,
    ConversionError,
    UnrepresentableError,
    archive_files,
    to_game,
    to_gravon,
    write_gravon,
    write_gravon_zip,
)
from strategolab.gravon import (
    GravonError,
    GravonGame,
    decode_field,
    dump_gravon,
    dump_gravon_zip,
    parse_gravon,
    read_gravon,
    read_part,
    split_parts,
)
from strategolab.notation import read_game, write_game

RED_SETUP = "2348596523/67B8S47B26/2B54372326/BFB32X452B"
BLUE_SETUP = "32658X4523/67B4S87B26/2B54372326/BFB329452B"
# Red's rows 1-4, the lake rows, Blue's rows 7-10 as Gravon letters (Red B-M, Blue N-Y, A empty, _ lake).
RED_ROWS = "MBBBBBBCDD" "DDDDDDEEEE" "EFFFFGGGGH" "HHHIIIJJKL"
BLUE_ROWS = "".join(chr(ord(c) + 12) for c in RED_ROWS)
FIELD = RED_ROWS + "AA__AA__AA" * 2 + BLUE_ROWS


def classic_game(moves: list[str], **headers: str) -> sl.Game:
    game = sl.Game(sl.State.new(RED_SETUP, BLUE_SETUP, "classic"), headers)
    game.add_line(moves)
    return game


def gravon_xml(moves: list[str], *, field: str | None = FIELD, game_type: str = "classic",
               result: str = '<result type="3" winner="1"/>') -> bytes:
    lines = [f'<move id="{i}" source="{m[:2]}" target="{m[3:]}"/>' for i, m in enumerate(moves, 1)]
    field_line = f'<field content="{field}"/>' if field is not None else ""
    return (f'<stratego><game type="{game_type}">{field_line}{"".join(lines)}<player id="1">Ann</player>'
            f'<player id="2">Bob</player>{result}</game></stratego>').encode()


# -- kit -> Gravon ------------------------------------------------------------------------------------------


def test_export_writes_field_moves_players_and_result_as_gravon_does() -> None:
    # Red's Scout runs A4-A6; Blue's Marshal steps out and takes a Lieutenant.
    game = classic_game(["A4-A6", "E7-E6", "E4-E5", "E6xE5"], Red="Ann", Blue="Bob", Result="0-1",
                        Termination="resignation")
    xml = write_gravon(game).decode()
    assert xml.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<stratego>\n <game type="classic">\n')
    field = xml.split('content="')[1][:100]
    assert len(field) == 100 and [i for i, c in enumerate(field) if c == "_"] == [42, 43, 46, 47, 52, 53, 56, 57]
    placements = decode_field(field)
    start = game.start
    assert {sq: (p.owner, p.type.name) for sq in start.squares() if (p := start.piece_at(sq))} == placements
    assert '<move id="1" source="A4" target="A6"/>' in xml
    assert '<move id="4" source="E6" target="E5"/>' in xml
    assert '<player id="1">Ann</player>\n  <player id="2">Bob</player>' in xml
    assert '<result type="3" winner="2"/>' in xml
    back = parse_gravon(xml.encode(), "x.xml")
    assert back.moves == tuple((m.from_square, m.to_square) for m in game.mainline_moves())
    assert (back.game_type, back.players, back.result_type, back.winner) == ("classic", ("Ann", "Bob"), 3, sl.BLUE)


def free_field(**pieces: str) -> str:
    """A Gravon field with a few pieces, given as kit square=Gravon letter (``J10="D"``: a Red Scout)."""
    cells = ["_" if i in (42, 43, 46, 47, 52, 53, 56, 57) else "A" for i in range(100)]
    for name, letter in pieces.items():
        cells["ABCDEFGHIJ".index(name[0]) + 10 * (int(name[1:]) - 1)] = letter
    return "".join(cells)


def test_column_j_and_row_ten_are_written_the_gravon_way() -> None:
    game = classic_game(["J4-J5", "J7-J6"])
    assert '<move id="1" source="K4" target="K5"/>\n  <move id="2" source="K7" target="K6"/>' in write_gravon(
        game).decode()
    lesson = sl.State.empty("gravon-classicfree")
    for square, owner, piece in (("J10", sl.RED, sl.rules.SCOUT), ("A1", sl.RED, sl.rules.FLAG),
                                 ("A10", sl.BLUE, sl.rules.FLAG), ("J1", sl.BLUE, sl.rules.SCOUT)):
        lesson.set_piece(square, sl.Piece(owner, piece))
    free = sl.Game(lesson, {"Result": "1-0"})
    free.add_line(["J10-B10", "J1-J2", "B10xA10"])
    xml = write_gravon(free).decode()
    assert 'type="classicfree"' in xml and 'source="K:" target="B:"' in xml
    assert xml.split('content="')[1][:100] == free_field(A1="M", J1="P", A10="Y", J10="D")
    assert '<result type="1" winner="1"/>' in xml  # no [Termination]: the flag capture the engine saw


@pytest.mark.parametrize(("headers", "expected"), [
    ({"Result": "1-0", "Termination": "resignation"}, (3, sl.RED)),
    ({"Result": "1/2-1/2", "Termination": "agreed draw"}, (4, None)),
    ({"Result": "0-1", "Termination": "time forfeit"}, (11, sl.BLUE)),
    ({"Result": "1/2-1/2", "Termination": "abandoned"}, (10, None)),
    ({"Result": "1-0", "Termination": "resignation", "GravonResult": "13"}, (13, sl.RED)),
    ({"Result": "*"}, (None, None)),
])
def test_result_types(headers: dict[str, str], expected: tuple[int | None, int | None]) -> None:
    gg = to_gravon(classic_game(["E4-E5"], **headers))
    assert (gg.result_type, gg.winner) == expected
    back = parse_gravon(dump_gravon(gg))
    assert (back.result_type, back.winner) == expected
    assert ("<result" in dump_gravon(gg).decode()) == (expected[0] is not None)


@pytest.mark.parametrize(("headers", "message"), [
    ({"Result": "1-0"}, "no result type for no [Termination]"),
    ({"Result": "1/2-1/2", "Termination": "quiet-move draw"}, 'no result type for [Termination "quiet-move draw"]'),
    ({"Result": "1-0", "Termination": "the cat sat on the board"}, "expected one of no legal move, flag captured"),
    ({"Result": "1-0", "GravonResult": "one"}, "expected Gravon's result type"),
    ({"Result": "*", "GravonResult": "3"}, "without a result"),
])
def test_results_gravon_cannot_hold_are_refused(headers: dict[str, str], message: str) -> None:
    with pytest.raises(ConversionError, match=r"Gravon|GravonResult") as info:
        to_gravon(classic_game(["E4-E5"], **headers))
    assert message in str(info.value)


def test_games_gravon_cannot_hold_are_refused_with_the_reason() -> None:
    pocket = sl.Game(sl.State.random("pocket", seed=1))
    with pytest.raises(UnrepresentableError, match="no game type for the rule set 'pocket'"):
        to_gravon(pocket)
    with pytest.raises(UnrepresentableError, match="'original-1961'"):
        to_gravon(sl.Game(sl.State.random("original-1961", seed=1)))
    imposter = sl.CLASSIC.replace(draw_limit=10)  # named "classic", but not the classic rules
    with pytest.raises(UnrepresentableError, match="'classic'"):
        to_gravon(sl.Game(sl.State.new(RED_SETUP, BLUE_SETUP, imposter)))
    blue_first = sl.Game(sl.State.new(RED_SETUP, BLUE_SETUP, "classic", first_player=sl.BLUE))
    with pytest.raises(UnrepresentableError, match="Red to move; this one starts at ply 0 with Blue to move"):
        to_gravon(blue_first)
    mid_game = classic_game(["E4-E5", "E7-E6"]).end().state()
    lesson = sl.State.from_position(mid_game.position(), "classic")
    with pytest.raises(UnrepresentableError, match="starts at ply 2"):
        to_gravon(sl.Game(lesson))
    moved = sl.State.from_position(mid_game.position().rsplit(" ", 2)[0] + " 0 0", "gravon-classicfree")
    with pytest.raises(UnrepresentableError, match="E5 has moved or is revealed"):
        to_gravon(sl.Game(moved))
    sparse = sl.State.empty("classic")
    sparse.set_piece("A1", sl.Piece(sl.RED, sl.rules.FLAG))
    with pytest.raises(UnrepresentableError, match="two full setups; Red's is not one"):
        to_gravon(sl.Game(sparse))


def test_barrage_and_duell_export_as_their_types() -> None:
    barrage = sl.Game(sl.State.random("barrage", seed=3))
    assert to_gravon(barrage).game_type == "barrage"
    duell = sl.Game(sl.State.random("gravon-duell", seed=3))
    gg = to_gravon(duell)
    assert gg.game_type == "duell" and sum(c not in "A_" for c in gg.field or "") == 20


def test_hostile_text_is_escaped_or_refused() -> None:
    game = classic_game(["E4-E5"], Red='<b>"Ann" & co</b>', Blue="]]> -->", Result="*")
    data = write_gravon(game)
    assert parse_gravon(data).players == ('<b>"Ann" & co</b>', "]]> -->")
    game.headers["Red"] = "bell\x07"
    with pytest.raises(GravonError, match="cannot hold"):
        write_gravon(game)


def test_zip_member_names_are_safe_and_unique(tmp_path: Path) -> None:
    games = []
    for source in ("strados2014-0.zip:classic-2014.0-5.xml", "x.zip:classic-2014.0-5.xml", "../../evil.xml",
                   "C:\\temp\\classic-1.xml", "a.zip:barrage-7.xml"):
        games.append(classic_game(["E4-E5"], Result="*", Source=source))
    path = tmp_path / "out.zip"
    assert write_gravon_zip(games, path) == 5
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
    assert names == ["classic-2014.0-5.xml", "classic-2.xml", "classic-3.xml", "classic-1.xml", "classic-5.xml"]
    assert [g.source for g in read_gravon(path)] == [f"{path}:{n}" for n in sorted(names)]
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_a_failed_zip_leaves_nothing_behind(tmp_path: Path) -> None:
    path = tmp_path / "out.zip"
    path.write_bytes(b"old")
    with pytest.raises(UnrepresentableError):
        write_gravon_zip([classic_game(["E4-E5"], Result="*"), sl.Game(sl.State.random("pocket", seed=1))], path)
    assert path.read_bytes() == b"old" and sorted(tmp_path.iterdir()) == [path]


# -- Gravon -> kit ---------------------------------------------------------------------------------------------


def test_gravon_game_becomes_a_record_with_its_metadata() -> None:
    gg = parse_gravon(gravon_xml(["E4 E5", "I7 I6"]), "strados2014-3.zip:classic-2014.3-17.xml")
    game = to_game(gg)
    text = write_game(game)
    assert text.startswith('[Site "Gravon"]\n[Red "Ann"]\n[Blue "Bob"]\n[Result "1-0"]\n'
                           '[Termination "resignation"]\n[Ruleset "gravon-classic"]\n[GravonResult "3"]\n'
                           '[Source "strados2014-3.zip:classic-2014.3-17.xml"]\n[RedSetup ')
    assert read_game(text) == game
    back = to_gravon(read_game(text))
    assert (back.field, back.moves, back.players, back.result_type, back.winner) == (
        gg.field, gg.moves, gg.players, gg.result_type, gg.winner)


def test_an_ending_the_engine_does_not_confirm_keeps_gravons_words() -> None:
    # Gravon says Blue could not move; the engine sees a game going on.
    gg = parse_gravon(gravon_xml(["E4 E5"], result='<result type="0" winner="1"/>'), "g.xml")
    game = to_game(gg)
    assert game.headers["Termination"] == "opponent cannot move (scored by Gravon)"
    assert "Blue still has" in game.comment and "legal moves" in game.comment
    assert read_game(write_game(game)) == game
    assert to_gravon(game).result_type == 0
    del game.headers["GravonResult"]
    assert to_gravon(game).result_type == 0  # the words say which code it was


def test_what_the_notation_cannot_hold_is_refused_with_the_reason() -> None:
    no_field = parse_gravon(gravon_xml([], field=None), "n.xml")
    with pytest.raises(UnrepresentableError, match="no <field>"):
        to_game(no_field)
    illegal = parse_gravon(gravon_xml(["E4 E5", "I7 I6", "A1 A2"]), "i.xml")
    with pytest.raises(ConversionError, match=r"i.xml: move 3 A1-A2 is illegal under gravon-classic: the Flag"):
        to_game(illegal)
    unconfirmed = parse_gravon(gravon_xml(["E4 E5"], result='<result type="1" winner="2"/>'), "c.xml")
    assert to_game(unconfirmed).headers["Termination"] == "flag captured (scored by Gravon)"
    capture = free_field(A1="M", J1="D", J10="Y", A10="P")
    wrong = parse_gravon(gravon_xml(["K1 K:"], field=capture, game_type="classicfree",
                                    result='<result type="1" winner="2"/>'), "w.xml")
    with pytest.raises(ConversionError, match=r"recorded as 0-1 \(flag captured\), but after the last move the "
                                              r"engine ends the game 1-0: Red wins \(flag captured\)"):
        to_game(wrong)


def test_classicfree_games_start_from_a_position() -> None:
    field = free_field(E1="M", A10="D", E10="Y", J1="P")
    gg = parse_gravon(gravon_xml(["A: A9"], field=field, game_type="classicfree",
                                 result='<result type="4" winner="3"/>'), "f.xml")
    game = to_game(gg)
    text = write_game(game)
    assert '[Ruleset "gravon-classicfree"]' in text and "[Position " in text and "RedSetup" not in text
    back = to_gravon(read_game(text))
    assert (back.game_type, back.field, back.moves, back.result_type, back.winner) == (
        "classicfree", gg.field, gg.moves, 4, None)


def test_every_convertible_type_has_a_registered_rule_set() -> None:
    for game_type, rs in CONVERTIBLE.items():
        assert sl.get_ruleset(rs.name) is rs, game_type
    assert sl.get_ruleset("gravon-duell").army_size == 10
    with pytest.raises(ValueError, match="different rule set"):
        sl.rules.register_ruleset(sl.rules.GRAVON_CLASSIC.replace(draw_limit=7))


# -- the whole shared archive --------------------------------------------------------------------------------


def _kept(game: GravonGame) -> tuple[object, ...]:
    """Everything a Gravon file says about a game (what dump_gravon writes)."""
    return game.game_type, game.field, game.moves, game.players, game.result_type, game.winner, game.rescues


def _round_trip(part: tuple[str, list[int] | None]) -> tuple[collections.Counter, list[str]]:
    """Gravon -> the kit's notation (text, read back with every move checked) -> Gravon, per game; what
    dump_gravon makes of the result is checked by reading an exported month back (below)."""
    tally: collections.Counter = collections.Counter()
    problems = []
    for gg in read_part(part):
        if isinstance(gg, GravonError):
            problems.append(str(gg))
            continue
        try:
            game = to_game(gg)
        except UnrepresentableError:
            tally[f"not convertible: {gg.game_type}"] += 1
            continue
        except ConversionError as e:
            problems.append(str(e))
            continue
        back = to_gravon(read_game(write_game(game), name=gg.source))
        if _kept(back) != _kept(gg):
            problems.append(f"{gg.source}: differs after the round trip")
        tally[gg.game_type] += 1
        tally["moves"] += len(back.moves)
        tally["scored by Gravon"] += "(scored by Gravon)" in game.headers.get("Termination", "")
    return tally, problems


@pytest.mark.skipif(not ARCHIVE.is_dir(), reason=f"the shared Gravon archive is not at {ARCHIVE} (CI always has it)")
def test_whole_archive_round_trips_through_the_notation() -> None:
    parts = list(split_parts(archive_files([ARCHIVE])))
    tally: collections.Counter = collections.Counter()
    problems: list[str] = []
    with ProcessPoolExecutor(max(1, min(os.cpu_count() or 1, 4))) as pool:
        for t, p in pool.map(_round_trip, parts):
            tally.update(t)
            problems += p
    assert problems == []
    assert tally == {"classic": 10_498, "barrage": 1_281, "duell": 31, "classicfree": 40, "ultimate lightning": 51,
                     "moves": 3_630_568 + 6_958, "not convertible: classic": 1, "scored by Gravon": 68}


@pytest.mark.skipif(not ARCHIVE.is_dir(), reason=f"the shared Gravon archive is not at {ARCHIVE} (CI always has it)")
def test_exported_month_reads_back_as_the_same_games(tmp_path: Path) -> None:
    source = ARCHIVE / "strados2014-6.zip"
    games = [g for g in read_gravon(source) if g.game_type in CONVERTIBLE and g.has_setup][:150]
    out = tmp_path / "month.zip"
    assert dump_gravon_zip((to_gravon(to_game(g)) for g in games), out) == len(games)
    again = {g.source.rpartition(":")[2]: g for g in read_gravon(out)}
    for g in games:
        name = g.source.rpartition(":")[2]
        assert again[name] == GravonGame(f"{out}:{name}", g.game_type, g.field, g.moves, g.players, g.result_type,
                                         g.winner, g.rescues, g.warnings)
