"""How long real players leave pieces unmoved: counting games, the shipped table, rebuilding it, bad files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ARCHIVE

from strategolab import Move, StrategolabError, get_ruleset
from strategolab.players import make_player, play_game
from strategolab.stillness import BUCKET, LAST, build, for_ruleset, load, main, row_from_back, save, tally


def _random_game(plies: int = 45):
    """A classic game of two random players: its start and its moves as (from, to) pairs."""
    state = play_game(make_player("random", 1), make_player("random", 2), "classic", seed=3, max_plies=plies)
    return state, [(m.from_square, m.to_square) for m in state.move_stack]


def test_tally_counts_the_pieces_never_moved_every_ten_plies() -> None:
    end, moves = _random_game()
    start = end.copy()
    while start.move_stack:
        start.pop()
    table = tally([(start.copy(), moves)], source="one game")
    assert table.games == 1 and table.source == "one game"
    # A direct count: plies 20, 30 and 40 (own moves 10, 15, 20: columns 1, 1 and 2), rows from each owner's back.
    expected: dict[tuple[str, int, int], list[int]] = {}
    state = start.copy()
    origin = {s: s for s in state.squares()}
    for i, (f, t) in enumerate(moves):
        if i in (20, 30, 40):
            for s in state.squares():
                q = state.piece_at(s)
                if q is not None and q.type.movable:
                    cell = expected.setdefault((q.type.name, row_from_back(state.ruleset, origin[s], q.owner),
                                                i // 2 // BUCKET), [0, 0])
                    cell[0] += 1
                    cell[1] += not state.has_moved(s)
        mover = state.piece_at(f)
        was = origin.pop(f)
        state.push(Move(f, t))
        q = state.piece_at(t)
        if q is None:
            origin.pop(t, None)
        elif mover is not None and q.owner == mover.owner:
            origin[t] = was
    got = {(p, r, c): list(cell) for p, rows in table.counts.items() for r, row in enumerate(rows)
           for c, cell in enumerate(row) if cell[0]}
    assert got == expected
    assert sum(v[0] for v in got.values()) > 60  # about 33 movers a side at three plies
    assert any(v[1] < v[0] for v in got.values()) and any(v[1] for v in got.values())


def test_the_shipped_table_says_front_pieces_move_early() -> None:
    table = load("classic")
    assert table.games == 1500 and "Gravon" in table.source
    front, back = 3, 0
    assert table.share("Marshal", front, 100) < 0.15  # a front-row Marshal has nearly always moved by then
    assert table.share("Sergeant", back, 100) > 0.9  # a back-row Sergeant nearly never
    assert table.share("Marshal", front, 0) > table.share("Marshal", front, 50) > table.share("Marshal", front, 200)
    assert table.share("Marshal", front, 10_000) == table.share("Marshal", front, LAST * BUCKET)
    for piece in table.counts:
        for row in range(4):
            for moves in range(0, 400, 10):
                assert 0.0 <= table.share(piece, row, moves) <= 1.0
    assert table.share("Bomb", front, 100) == 1.0  # what never moves is not in the table
    assert table.share("Marshal", 7, 100) == 1.0  # nor a row outside the setup zone


def test_which_rule_sets_use_the_table() -> None:
    for name in ("classic", "isf", "original-1961"):
        assert for_ruleset(get_ruleset(name)) is not None, name
    for name in ("barrage", "pocket"):
        assert for_ruleset(get_ruleset(name)) is None, name


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    end, moves = _random_game()
    start = end.copy()
    while start.move_stack:
        start.pop()
    table = tally([(start, moves)], source="one game")
    save(table, tmp_path / "t.json")
    assert load("classic", tmp_path / "t.json") == table


def test_bad_tables_are_refused_with_the_file_name(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(StrategolabError, match=r"x\.json:1:2: not JSON"):
        load("classic", tmp_path / "x.json")
    (tmp_path / "y.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(StrategolabError, match=r"y\.json: not a stillness table"):
        load("classic", tmp_path / "y.json")
    good = load("classic").to_json()
    for change, message in ((lambda d: d["counts"]["Marshal"].pop(), "4 rows of 31 columns"),
                            (lambda d: d["counts"]["Marshal"][0][0].__setitem__(1, 10**6), "never moved <= on the"),
                            (lambda d: d["counts"].__setitem__("Knight", d["counts"]["Marshal"]), "Knight"),
                            (lambda d: d.__setitem__("bucket", 5), "bucket must be 10")):
        data = json.loads(json.dumps(good))
        change(data)
        (tmp_path / "z.json").write_text(json.dumps(data))
        with pytest.raises(StrategolabError, match=rf"z\.json: malformed stillness table: .*{message}"):
            load("classic", tmp_path / "z.json")
    with pytest.raises(StrategolabError, match="no stillness table for 'pocket'"):
        load("pocket")


@pytest.mark.skipif(not ARCHIVE.is_dir(), reason=f"Gravon archive not found at {ARCHIVE}")
def test_building_from_the_archive_gives_the_shipped_table() -> None:
    assert build([ARCHIVE], 1500).counts == load("classic").counts


def test_the_build_command_says_what_is_wrong(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, said in ((["build", str(tmp_path / "nowhere")], "nowhere: expected a .xml file, a .zip file"),
                       (["build", str(tmp_path)], "no classic game with a setup in"),
                       (["build", str(tmp_path), "--games", "0"], "--games must be at least 1, not 0")):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code in (1, 2) and said in capsys.readouterr().err, argv
    end, moves = _random_game()
    start = end.copy()
    while start.move_stack:
        start.pop()
    save(tally([(start, moves)]), tmp_path / "new" / "folder" / "t.json")  # the folder is made
    assert load("classic", tmp_path / "new" / "folder" / "t.json").games == 1


def test_a_folder_or_binary_file_is_refused_as_a_table(tmp_path: Path) -> None:
    with pytest.raises(StrategolabError, match="cannot read"):
        load("classic", tmp_path)
    (tmp_path / "b.json").write_bytes(b"\xff\xfe\x00binary")
    with pytest.raises(StrategolabError, match=r"cannot read .*b\.json"):
        load("classic", tmp_path / "b.json")
