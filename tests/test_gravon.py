"""Tests of the Gravon archive reader: the real shared archive, hand-made hostile input, and fuzzing."""

from __future__ import annotations

import collections
import contextlib
import io
import pickle
import zipfile
from pathlib import Path

import pytest
from conftest import ARCHIVE
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategolab import rules
from strategolab.board import parse_square, square_name
from strategolab.errors import RecordError
from strategolab.gravon import (
    GAME_TYPES,
    MAX_XML_BYTES,
    RESULT_TYPES,
    GravonError,
    GravonGame,
    decode_field,
    dump_gravon,
    parse_gravon,
    read_gravon,
)

needs_archive = pytest.mark.skipif(
    not ARCHIVE.is_dir(), reason=f"the shared Gravon archive is not at {ARCHIVE} (CI always has it)")

# A classic setup of our own: Red's rows 1-4, the lake rows, Blue's rows 7-10 (Gravon field letters).
RED_ROWS = "MBBBBBBCDD" "DDDDDDEEEE" "EFFFFGGGGH" "HHHIIIJJKL"
BLUE_ROWS = "".join(chr(ord(c) + 12) for c in RED_ROWS)
FIELD = RED_ROWS + "AA__AA__AA" * 2 + BLUE_ROWS
BARRAGE_FIELD = "MBCDDELK" + "A" * 32 + "AA__AA__AA" * 2 + "A" * 32 + "YNOPPQXW"  # the eight pieces each


def game_xml(moves: str = "", *, field: str | None = FIELD, game_type: str = "classic",
             result: str = '<result type="1" winner="2"/>', head: str = "") -> bytes:
    """A small strados2 document laid out as Gravon writes them."""
    field_line = f'<field content="{field}"/>' if field is not None else ""
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n{head}<stratego>\n <game type="{game_type}">\n  '
            f'{field_line}\n{moves}  <player id="1">Ann</player>\n  <player id="2">Bob</player>\n'
            f"  {result}\n </game>\n</stratego>").encode()


def move_lines(*pairs: str) -> str:
    """``move_lines("B4 B5", "K7 K6")`` -> <move> lines with ids counting from 1."""
    return "".join(f'  <move id="{i}" source="{p.split()[0]}" target="{p.split()[1]}"/>\n'
                   for i, p in enumerate(pairs, 1))


def error_of(data: bytes, **kwargs: int) -> GravonError:
    with pytest.raises(GravonError) as info:
        parse_gravon(data, "test.xml", **kwargs)
    return info.value


# --- the real archive --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def archive_games() -> list[GravonGame]:
    """Every game of the shared archive, read once for all the archive tests (a few seconds)."""
    if not ARCHIVE.is_dir():
        pytest.skip(f"the shared Gravon archive is not at {ARCHIVE}")
    reader = read_gravon(ARCHIVE, errors="skip")
    games = list(reader)
    assert reader.errors == []
    return games


@needs_archive
def test_whole_archive_parses_with_the_known_counts(archive_games: list[GravonGame]) -> None:
    counts = collections.Counter(g.game_type for g in archive_games)
    assert counts == {"classic": 10499, "barrage": 1281, "ultimate lightning": 51, "classicfree": 40,
                      "duell": 31}
    assert sum(len(g.moves) for g in archive_games) == 3_637_526
    assert all(g.players == ("Player 1", "Player 2") for g in archive_games)
    assert sum(len(g.rescues) for g in archive_games) == 76
    assert {g.game_type for g in archive_games if g.rescues} == {"ultimate lightning"}


@needs_archive
def test_the_one_game_without_a_field(archive_games: list[GravonGame]) -> None:
    # strados2014-9.zip:classic-2014.9-2525.xml has no <field> and no moves: players and a result only.
    missing = [g for g in archive_games if not g.has_setup]
    assert [g.source.rpartition("/")[2] for g in missing] == ["strados2014-9.zip:classic-2014.9-2525.xml"]
    game = missing[0]
    assert game.field is None and game.moves == () and (game.result_type, game.winner) == (3, rules.RED)
    with pytest.raises(GravonError, match="no <field>") as info:
        _ = game.placements
    assert "classic-2014.9-2525.xml" in str(info.value)


@needs_archive
def test_j_for_k_files_are_repaired_with_warnings(archive_games: list[GravonGame]) -> None:
    # Eight Ultimate Lightning files write the tenth column as J in nine moves, always at the back rows.
    repaired = {g.source.rpartition(":")[2]: [w for w in g.warnings if "'J' read as 'K'" in w]
                for g in archive_games}
    repaired = {name: ws for name, ws in repaired.items() if ws}
    assert len(repaired) == 8
    assert sum(map(len, repaired.values())) == 9
    assert all(name.startswith("ultimate lightning-") for name in repaired)
    assert repaired["ultimate lightning-2014.1-1172.xml"] == [
        "column 'J' read as 'K' in move 55 (source J9, target J:)"]
    game = next(g for g in archive_games if g.source.endswith("ultimate lightning-2014.1-1172.xml"))
    assert [square_name(s) for s in game.moves[54]] == ["J9", "J10"]


@needs_archive
def test_the_other_archive_defects_are_warned(archive_games: list[GravonGame]) -> None:
    # Four games record an agreed draw (type 4) with a winner; the winner is kept as recorded.
    draws = sorted(g.source.rpartition(":")[2] for g in archive_games
                   if any(w.startswith("result type 4 (agreed draw) names winner") for w in g.warnings))
    assert draws == ["classic-2014.8-131.xml", "classicfree-2014.8-912.xml", "classicfree-2014.8-917.xml",
                     "duell-2014.6-1658.xml"]
    other = [w for g in archive_games for w in g.warnings
             if "'J' read as 'K'" not in w and not w.startswith("result type 4")]
    assert other == []


@needs_archive
def test_a_known_game_decodes_to_the_right_squares() -> None:
    # Checked by hand against the XML text of classic-2014.0-5.xml: B4-B5, K7-K6, C4-B4, K6-K5 ...
    # and move 223 I9-I: (row ':' is 10; Gravon column K is the kit's J).
    reader = read_gravon(ARCHIVE / "strados2014-0.zip", types={"classic"})
    game = next(g for g in reader if g.source.endswith(":classic-2014.0-5.xml"))
    reader.close()
    names = [(square_name(a), square_name(b)) for a, b in game.moves]
    assert names[:4] == [("B4", "B5"), ("J7", "J6"), ("C4", "B4"), ("J6", "J5")]
    assert game.moves[0] == (parse_square("B4"), parse_square("B5")) == (49, 65)
    assert names[222] == ("I9", "I10") and names[235] == ("A10", "A9")
    assert len(game.moves) == 346 and (game.result_type, game.winner) == (3, rules.BLUE)
    assert game.field is not None and game.field.startswith("MBIIHBEDDE")
    assert game.placements[parse_square("A1")] == (rules.RED, "Flag")
    assert game.placements[parse_square("D10")] == (rules.BLUE, "Flag")  # field character 94: Y
    assert game.placements[parse_square("J10")] == (rules.BLUE, "Miner")  # the last one: Q


@needs_archive
def test_every_classic_field_is_the_classic_army(archive_games: list[GravonGame]) -> None:
    army = collections.Counter({piece.name: n for piece, n in rules.CLASSIC_ARMY})
    checked = 0
    for game in archive_games:
        if game.game_type != "classic" or not game.has_setup:
            continue
        placements = game.placements
        for owner, rows in ((rules.RED, range(0, 4)), (rules.BLUE, range(6, 10))):
            mine = {sq: name for sq, (who, name) in placements.items() if who == owner}
            assert collections.Counter(mine.values()) == army, game.source
            assert {sq // 16 for sq in mine} == set(rows), game.source
        checked += 1
    assert checked == 10498


@needs_archive
def test_type_filter_and_single_files(tmp_path: Path) -> None:
    with read_gravon(ARCHIVE / "strados2014-6.zip", types={"duell", "barrage"}) as reader:
        kinds = collections.Counter(g.game_type for g in reader)
    with zipfile.ZipFile(ARCHIVE / "strados2014-6.zip") as zf:
        expected = collections.Counter(n.partition("-")[0] for n in zf.namelist())
    assert kinds == {"duell": expected["duell"], "barrage": expected["barrage"]}
    with zipfile.ZipFile(ARCHIVE / "strados2014-6.zip") as zf:
        (tmp_path / "duell-2014.6-1658.xml").write_bytes(zf.read("duell-2014.6-1658.xml"))
    (game,) = read_gravon(tmp_path / "duell-2014.6-1658.xml")
    assert game.source == str(tmp_path / "duell-2014.6-1658.xml") and game.game_type == "duell"
    assert list(read_gravon(tmp_path, types={"classic"})) == []


# --- small documents -----------------------------------------------------------------------------------

def test_a_small_game_reads_completely() -> None:
    data = game_xml(move_lines("B4 B5", "K7 K6", "K:  A:", "I9 I:"), result='<result type="4" winner="3"/>')
    game = parse_gravon(data, "small.xml")
    assert game.source == "small.xml" and game.game_type == "classic" and game.field == FIELD
    assert [(square_name(a), square_name(b)) for a, b in game.moves] == [
        ("B4", "B5"), ("J7", "J6"), ("J10", "A10"), ("I9", "I10")]
    assert game.players == ("Ann", "Bob")
    assert (game.result_type, game.winner, game.warnings, game.rescues) == (4, None, (), ())
    assert RESULT_TYPES[4] == game.result_text == "agreed draw"
    placements = game.placements
    assert len(placements) == 80
    assert placements[parse_square("A1")] == (rules.RED, "Flag")
    assert placements[parse_square("J4")] == (rules.RED, "Marshal")
    assert placements[parse_square("B7")] == (rules.BLUE, "Bomb")
    names = {name for _, name in placements.values()}
    assert names == {piece.name for piece, _ in rules.CLASSIC_ARMY}
    assert "small.xml" in repr(game) and "4 moves" in repr(game)


def test_missing_parts_have_defaults() -> None:
    data = (b'<stratego><game type="barrage"><move id="1" source="A4" target="A5">'
            b'<rescue rescuefield="E4" rescuepiece="11"/></move></game></stratego>')
    game = parse_gravon(data)
    assert game.source == "<bytes>" and game.field is None and not game.has_setup
    assert game.players == ("", "") and game.result_type is None and game.winner is None
    assert game.rescues == ((0, parse_square("E4"), "Marshal"),)
    assert game.moves == ((parse_square("A4"), parse_square("A5")),)
    assert game.result_text == ""


@pytest.mark.parametrize(("move", "code", "piece"), [(1, "11", "Marshal"), (2, "10", "General"),
                                                     (2, "22", "General"), (2, "13", "Bomb")])
def test_rescues_name_the_move_square_and_piece(move: int, code: str, piece: str) -> None:
    """rescuepiece numbers the kind as the field's letters do (B = 1 Bomb ... M = 12 Flag); some files number
    Blue's pieces on (N = 13 ... Y = 24).  The piece is the mover's."""
    moves = move_lines("B4 B5", "K7 K6")
    tag = f'<rescue rescuefield="J5" rescuepiece="{code}"/>'
    lines = moves.splitlines(keepends=True)
    lines[move - 1] = lines[move - 1].replace("/>", f">{tag}</move>")
    game = parse_gravon(game_xml("".join(lines), game_type="ultimate lightning"))
    assert game.rescues == ((move - 1, parse_square("J5"), piece),)
    assert any("column 'J' read as 'K' in the rescue" in w for w in game.warnings)
    again = parse_gravon(dump_gravon(game))
    assert again.rescues == game.rescues and again.moves == game.moves


@pytest.mark.parametrize(("code", "move"), [("0", 1), ("25", 2), ("x", 1), ("13", 1)])
def test_a_bad_rescue_piece_is_refused_where_it_stands(code: str, move: int) -> None:
    lines = move_lines("B4 B5", "K7 K6").splitlines(keepends=True)
    lines[move - 1] = lines[move - 1].replace("/>", f'><rescue rescuefield="E4" rescuepiece="{code}"/></move>')
    err = error_of(game_xml("".join(lines), game_type="ultimate lightning"))
    assert f"the rescue of move {move}" in str(err) and "rescuepiece" in str(err) and err.line is not None


def test_j_column_is_read_as_k_with_a_warning() -> None:
    game = parse_gravon(game_xml(move_lines("A4 A5", "J7 J6")))
    assert game.moves[1] == (parse_square("J7"), parse_square("J6"))
    assert game.warnings == ("column 'J' read as 'K' in move 2 (source J7, target J6)",)


def test_contradicting_results_are_kept_with_a_warning() -> None:
    game = parse_gravon(game_xml(result='<result type="4" winner="1"/>'))
    assert game.winner == rules.RED
    assert game.warnings == ("result type 4 (agreed draw) names winner 1 (Red)",)
    game = parse_gravon(game_xml(result='<result type="1" winner="3"/>'))
    assert game.winner is None and game.warnings == ("result type 1 (flag captured) names no winner",)


def test_attribute_order_and_quotes_do_not_matter() -> None:
    data = game_xml("  <move target='B5' source=\"B4\"\n     id='1' />\n")
    assert parse_gravon(data).moves == ((parse_square("B4"), parse_square("B5")),)


def test_decode_field_rejects_bad_fields() -> None:
    assert decode_field(FIELD)[parse_square("A1")] == (rules.RED, "Flag")
    with pytest.raises(GravonError, match="99 characters, expected 100"):
        decode_field(FIELD[:99])


# --- hostile and broken input ------------------------------------------------------------------------

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE stratego [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<stratego><game type="&lol9;"/></stratego>
"""


def test_billion_laughs_is_refused_before_expansion() -> None:
    error = error_of(BILLION_LAUGHS)
    assert "DTD" in str(error) and error.source == "test.xml" and error.line == 2


@pytest.mark.parametrize("doctype", [
    b'<!DOCTYPE stratego [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
    b'<!DOCTYPE stratego SYSTEM "http://example.invalid/strados.dtd">',
    b'<!DOCTYPE stratego [<!ENTITY % p SYSTEM "http://example.invalid/p.dtd"> %p;]>',
])
def test_external_entities_and_dtds_are_refused(doctype: bytes) -> None:
    data = b'<?xml version="1.0"?>\n' + doctype + b'\n<stratego><game type="classic">&xxe;</game></stratego>'
    error = error_of(data)
    assert "test.xml:2:" in str(error) and "DTD" in error.message


def test_undeclared_entity_is_an_error() -> None:
    assert "undefined entity" in error_of(game_xml(head="").replace(b"Ann", b"&xxe;")).message


@pytest.mark.parametrize(("data", "expected"), [
    (b"", "empty file"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not well-formed XML"),
    (b"just some text", "not well-formed XML"),
    (b"\xff\xfe\x00\x00garbage", "not well-formed XML"),
    (b'<?xml version="1.0" encoding="UTF-8"?>\n<stratego><game type="cl\xe9ssic"/></stratego>',
     "not well-formed XML"),
    (b'<?xml version="1.0" encoding="no-such-codec"?><stratego/>', "encoding"),
    (b'<?xml version="1.0" encoding="rot13"?><stratego/>', "encoding"),
    (b'<?xml version="1.0" encoding="shift_jis"?><stratego/>', "encoding"),
    (b'<?xml version="1.0" encoding="utf-16"?><stratego/>', "encoding"),
    (b"<html><body/></html>", "root element is <html>, expected <stratego>"),
    (b'<move id="1" source="A4" target="A5"/>', "root element is <move>"),
    (b"<stratego/>", "no <game> element"),
    (b'<stratego><game type="classic"/><game type="classic"/></stratego>', "a second <game>"),
    (b'<stratego><game/></stratego>', "<game> has no type attribute"),
    (b'<stratego><move id="1" source="A4" target="A5"/><game type="classic"/></stratego>',
     "<move> before <game>"),
    (b'<stratego><field content="x"/><game type="classic"/></stratego>', "<field> before <game>"),
    (b'<stratego><game type="classic"><stratego/></game></stratego>', "<stratego> inside <stratego>"),
])
def test_broken_documents_raise_gravon_error(data: bytes, expected: str) -> None:
    error = error_of(data)
    assert expected in str(error) and str(error).startswith("test.xml")


def test_truncated_xml_names_the_place() -> None:
    data = game_xml(move_lines(*["B4 B5", "B7 B6"] * 20))
    error = error_of(data[: len(data) // 2])
    assert "truncated XML" in error.message and error.line is not None and error.line > 5
    assert str(error).startswith(f"test.xml:{error.line}:{error.column}: ")


def test_oversize_files_are_refused_before_parsing() -> None:
    data = game_xml(move_lines(*["B4 B5", "B7 B6"] * 20))
    error = error_of(data, max_bytes=1000)
    assert error.message == f"{len(data)} bytes is over the limit of 1000 bytes per XML file"
    assert MAX_XML_BYTES == 4 * 1024 * 1024
    huge = b"<stratego>" + b" " * MAX_XML_BYTES + b"</stratego>"
    assert "over the limit" in error_of(huge).message


@pytest.mark.parametrize(("moves", "expected"), [
    (move_lines("A4 A5", "Z9 A8"), "move 2: source 'Z9' is not a Gravon square"),
    (move_lines("A4 A0"), "move 1: target 'A0' is not a Gravon square"),
    (move_lines("A4 a5"), "target 'a5' is not a Gravon square"),
    (move_lines("A4 A10"), "target 'A10' is not a Gravon square"),
    (move_lines("A4 L5"), "target 'L5' is not a Gravon square"),
    ('  <move id="1" source="A4"/>\n', "move 1 has no target attribute"),
    ('  <move id="x" source="A4" target="A5"/>\n', "move id 'x' is not a number (expected 1)"),
    ('  <move id="" source="A4" target="A5"/>\n', "move id '' is not a number (expected 1)"),
    ('  <move id="\uff11" source="A4" target="A5"/>\n', "is not a number (expected 1)"),
    ('  <move id="' + "9" * 5000 + '" source="A4" target="A5"/>\n', "is out of order: expected 1"),
    ('  <move source="A4" target="A5"/>\n', "<move> has no id attribute (expected id=\"1\")"),
    (move_lines("A4 A5") + '  <move id="3" source="A7" target="A6"/>\n',
     "move id 3 is out of order: expected 2"),
    ('  <move id="2" source="A4" target="A5"/>\n', "move id 2 is out of order: expected 1"),
])
def test_bad_moves_name_the_move_and_the_place(moves: str, expected: str) -> None:
    error = error_of(game_xml(moves))
    assert expected in error.message
    assert error.source == "test.xml" and error.line is not None and error.line >= 5
    assert error.column is not None


@pytest.mark.parametrize(("field", "expected"), [
    (FIELD[:99], "field content has 99 characters, expected 100"),
    (FIELD + "A", "field content has 101 characters, expected 100"),
    (FIELD[:24] + "Z" + FIELD[25:], "unknown field character 'Z' at E3 (field character 25)"),
    (FIELD[:99] + "\u00e9", "unknown field character '\u00e9' at J10"),
    (FIELD[:42] + "A" + FIELD[43:], "field character 'A' at C5 (field character 43): expected '_' (lake)"),
    (FIELD[:40] + "_" + FIELD[41:], "field character '_' at A5 (field character 41): expected a piece"),
])
def test_bad_fields_name_the_character_and_square(field: str, expected: str) -> None:
    error = error_of(game_xml(field=field))
    assert expected in error.message and error.line == 4


@pytest.mark.parametrize(("result", "expected"), [
    ('<result type="x" winner="1"/>', "result type 'x': expected a number, one of 0, 1, 2, 3, 4, 10"),
    ('<result type="1" winner="0"/>', "result winner '0': expected '1' (Red), '2' (Blue) or '3' (draw)"),
    ('<result type="1" winner="1"/><result type="1" winner="1"/>', "a second <result>"),
    ('<player id="3">Cy</player>', "player id '3': expected '1' (Red) or '2' (Blue)"),
    ('<player id="1">Cy</player>', 'a second <player id="1">'),
])
def test_bad_players_and_results(result: str, expected: str) -> None:
    assert expected in error_of(game_xml(result=result)).message
    assert "<b> inside <player>" in error_of(game_xml().replace(b"Ann", b"<b>Ann</b>")).message


def test_unknown_elements_and_attributes_are_warned() -> None:
    moves = '  <move id="1" source="A4" target="A5" time="3"/>\n  <comment/>\n' + "<comment/>" * 1000
    game = parse_gravon(game_xml(moves, game_type="pocket"))
    assert game.warnings == ("unknown game type 'pocket'", "ignored attribute 'time' of move 1",
                             "ignored unknown element <comment> (first at line 6)")
    many = "".join(f"<x{i}/>" for i in range(200))
    warnings = parse_gravon(game_xml(many)).warnings
    assert len(warnings) == 51 and warnings[-1] == "further warnings left out"


def test_errors_survive_pickling() -> None:
    error = error_of(game_xml(move_lines("A4 Z5")))
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.source, copy.line, copy.column) == (
        GravonError, str(error), "test.xml", error.line, error.column)


# --- zips and folders --------------------------------------------------------------------------------

def make_zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_zip_members_are_read_in_name_order_and_filtered(tmp_path: Path) -> None:
    good = game_xml(move_lines("A4 A5"))
    zpath = make_zip(tmp_path / "strados2014-0.zip", {
        "classic-2014.0-2.xml": good, "barrage-2014.0-1.xml": game_xml(field=BARRAGE_FIELD, game_type="barrage"),
        "classic-2014.0-1.xml": good, "notes.txt": b"not a game", "odd-name.xml": good})
    games = list(read_gravon(zpath))
    assert [g.source for g in games] == [f"{zpath}:{n}" for n in (
        "barrage-2014.0-1.xml", "classic-2014.0-1.xml", "classic-2014.0-2.xml", "odd-name.xml")]
    assert games[0].game_type == "barrage"
    classic = list(read_gravon(zpath, types={"classic"}))
    assert [g.source.rpartition(":")[2] for g in classic] == [
        "classic-2014.0-1.xml", "classic-2014.0-2.xml", "odd-name.xml"]


def test_a_member_whose_name_contradicts_its_type_is_warned(tmp_path: Path) -> None:
    zpath = make_zip(tmp_path / "a.zip", {"barrage-1.xml": game_xml()})
    (game,) = read_gravon(zpath)
    assert game.warnings == ("the file name says 'barrage', <game> says 'classic'",)


def test_truncated_zip_names_the_zip(tmp_path: Path) -> None:
    zpath = make_zip(tmp_path / "cut.zip", {f"classic-{i}.xml": game_xml() for i in range(5)})
    zpath.write_bytes(zpath.read_bytes()[:300])
    with pytest.raises(GravonError, match="not a readable zip file") as info:
        list(read_gravon(zpath))
    assert info.value.source == str(zpath)


def test_corrupt_member_names_the_zip_and_member(tmp_path: Path) -> None:
    data = game_xml(move_lines(*["B4 B5", "B7 B6"] * 50))
    zpath = make_zip(tmp_path / "bad.zip", {"classic-1.xml": data})
    raw = bytearray(zpath.read_bytes())
    start = 30 + len("classic-1.xml")  # compressed data follows the local header
    raw[start + 40: start + 60] = bytes(20)
    zpath.write_bytes(bytes(raw))
    with pytest.raises(GravonError, match="corrupt zip member") as info:
        list(read_gravon(zpath))
    assert info.value.source == f"{zpath}:classic-1.xml"


def test_zip_bomb_member_is_refused_by_its_declared_size(tmp_path: Path) -> None:
    zpath = make_zip(tmp_path / "bomb.zip", {"classic-1.xml": b"<stratego>" + b" " * (5 << 20)})
    assert zpath.stat().st_size < 20_000
    with pytest.raises(GravonError, match="declares 5242890 bytes for this member, over the limit") as info:
        list(read_gravon(zpath))
    assert info.value.source == f"{zpath}:classic-1.xml"


def test_member_lying_about_its_size_is_not_read_beyond_it(tmp_path: Path) -> None:
    data = game_xml() + b" " * 100_000
    zpath = make_zip(tmp_path / "liar.zip", {"classic-1.xml": data})
    raw = zpath.read_bytes()
    declared = len(data).to_bytes(4, "little")
    assert raw.count(declared) == 2  # local header and central directory
    zpath.write_bytes(raw.replace(declared, (1000).to_bytes(4, "little")))
    with pytest.raises(GravonError, match="corrupt zip member"):
        list(read_gravon(zpath))


def test_skip_mode_collects_problems_and_goes_on(tmp_path: Path) -> None:
    good = game_xml(move_lines("A4 A5"))
    make_zip(tmp_path / "a.zip", {"classic-1.xml": good, "classic-2.xml": b"<html/>",
                                  "classic-3.xml": good})
    (tmp_path / "b.zip").write_bytes(b"PK\x03\x04 broken")
    (tmp_path / "c.xml").write_bytes(good)
    (tmp_path / "d.xml").write_bytes(BILLION_LAUGHS)
    (tmp_path / "e.txt").write_bytes(b"ignored")
    reader = read_gravon(tmp_path, errors="skip")
    sources = [g.source.rpartition("/")[2] for g in reader]
    assert sources == ["a.zip:classic-1.xml", "a.zip:classic-3.xml", "c.xml"]
    assert [(e.source or "").rpartition("/")[2] for e in reader.errors] == [
        "a.zip:classic-2.xml", "b.zip", "d.xml"]
    assert "root element is <html>" in str(reader.errors[0])
    with pytest.raises(GravonError, match="root element is <html>"):
        list(read_gravon(tmp_path))


def test_workers_give_the_same_games_errors_and_order(tmp_path: Path) -> None:
    good = game_xml(move_lines("A4 A5", "J7 J6"))
    make_zip(tmp_path / "a.zip", {f"classic-{i:03}.xml": good if i % 50 else b"<html/>" for i in range(200)})
    (tmp_path / "b.zip").write_bytes(b"PK\x03\x04 broken")
    (tmp_path / "c.xml").write_bytes(good)
    serial = read_gravon(tmp_path, errors="skip")
    serial_games = list(serial)
    with read_gravon(tmp_path, errors="skip", workers=2) as parallel:
        assert list(parallel) == serial_games
    assert len(serial_games) == 197 and serial_games[1].warnings == (
        "column 'J' read as 'K' in move 2 (source J7, target J6)",)
    assert [str(e) for e in parallel.errors] == [str(e) for e in serial.errors]
    assert len(parallel.errors) == 5
    with pytest.raises(GravonError, match="root element is <html>") as info:
        list(read_gravon(tmp_path, workers=2))
    assert info.value.source == f"{tmp_path / 'a.zip'}:classic-000.xml"


@needs_archive
def test_workers_read_the_archive_like_the_caller() -> None:
    path = ARCHIVE / "strados2014-2.zip"
    assert list(read_gravon(path, workers=2, types={"classic", "duell"})) == list(
        read_gravon(path, types={"classic", "duell"}))


def test_big_xml_file_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "classic-1.xml"
    path.write_bytes(game_xml() + b" " * 2000)
    with pytest.raises(GravonError, match="over the limit of 1000 bytes"):
        list(read_gravon(path, max_bytes=1000))


def test_bad_paths_and_arguments(tmp_path: Path) -> None:
    with pytest.raises(GravonError, match="no such file") as info:
        read_gravon(tmp_path / "missing.zip")
    assert "missing.zip" in str(info.value)
    with pytest.raises(GravonError, match=r"expected a \.xml file, a \.zip file or a folder"):
        read_gravon(tmp_path / "notes.txt")
    with pytest.raises(ValueError, match="errors='ignore'"):
        read_gravon(tmp_path, errors="ignore")
    with pytest.raises(TypeError, match="set of game types"):
        read_gravon(tmp_path, types="classic")
    with pytest.raises(ValueError, match="workers=-1"):
        read_gravon(tmp_path, workers=-1)


# --- fuzzing ---------------------------------------------------------------------------------------------

def sample_game() -> bytes:
    """A real archive game when the archive is there, else a small one of our own."""
    if ARCHIVE.is_dir():
        with zipfile.ZipFile(ARCHIVE / "strados2014-1.zip") as zf:
            return zf.read("ultimate lightning-2014.1-1172.xml")  # rescues and a J-for-K move too
    return game_xml(move_lines("B4 B5", "K7 K6", "J4 J5"))


SAMPLE = sample_game()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=3000))
def test_random_bytes_raise_only_gravon_error(data: bytes) -> None:
    try:
        parse_gravon(data, "fuzz.xml")
    except GravonError as e:
        assert e.source == "fuzz.xml"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_game_files_raise_only_gravon_error(data: st.DataObject) -> None:
    doc = bytearray(SAMPLE)
    for _ in range(data.draw(st.integers(1, 8))):
        where = data.draw(st.integers(0, len(doc)))
        kind = data.draw(st.sampled_from(["replace", "insert", "delete", "cut"]))
        chunk = data.draw(st.binary(min_size=1, max_size=12)
                          | st.sampled_from([b"J", b":", b"<", b"&", b'"', b"<!DOCTYPE x>", b"\xff", b"9"]))
        if kind == "replace":
            doc[where:where + len(chunk)] = chunk
        elif kind == "insert":
            doc[where:where] = chunk
        elif kind == "delete":
            del doc[where:where + len(chunk)]
        else:
            del doc[where:]
    try:
        game = parse_gravon(bytes(doc), "fuzz.xml")
    except GravonError:
        return
    assert all(0 <= a < 160 and 0 <= b < 160 for a, b in game.moves)
    if game.has_setup:
        assert len(game.placements) <= 92


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_zips_raise_only_gravon_error(tmp_path_factory: pytest.TempPathFactory,
                                              data: st.DataObject) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("classic-1.xml", game_xml(move_lines("B4 B5", "K7 K6")))
        zf.writestr("barrage-2.xml", game_xml(field=BARRAGE_FIELD, game_type="barrage"))
    raw = bytearray(buffer.getvalue())
    for _ in range(data.draw(st.integers(1, 6))):
        where = data.draw(st.integers(0, len(raw) - 1))
        raw[where] = data.draw(st.integers(0, 255))
    path = tmp_path_factory.mktemp("zips") / "fuzz.zip"
    path.write_bytes(bytes(raw))
    try:
        list(read_gravon(path))
    except GravonError as e:
        assert (e.source or "").startswith(str(path))


# Any letters on the setup rows, for any game type: a barrage or duell field may hold pieces its army lacks.
_FIELD_LETTERS = "A" * 8 + "BCDEFGHIJKLM" + "NOPQRSTUVWXY"


@st.composite
def fields_of_any_army(draw: st.DrawFn) -> str:
    cells = [draw(st.sampled_from(_FIELD_LETTERS)) for _ in range(80)]
    return "".join(cells[:40]) + "AA__AA__AA" * 2 + "".join(cells[40:])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_type=st.sampled_from(GAME_TYPES), field=fields_of_any_army() | st.just(BARRAGE_FIELD))
def test_fields_of_any_army_are_refused_or_replayed_never_crash(game_type: str, field: str) -> None:
    """The reader refuses a field its game type's army cannot hold; whatever it lets through can be set up,
    replayed and converted (or refused by a RecordError), never a KeyError half-way through a batch."""
    from strategolab.archive import CONVERTIBLE, initial_state, replay, to_game

    try:
        game = parse_gravon(game_xml(move_lines("B4 B5"), field=field, game_type=game_type), "any.xml")
    except GravonError as e:
        assert "army does not have" in e.message and game_type in ("barrage", "duell")
        return
    rs = CONVERTIBLE.get(game_type)
    if rs is None:
        return
    initial_state(game, rs)
    replay(game, rs)
    with contextlib.suppress(RecordError):
        to_game(game)
