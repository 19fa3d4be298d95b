"""Tests of the pandas tables and setup statistics: small hand-made corpora with known answers, the cache, and
the real Gravon archive's published figures (skipped when the archive is absent)."""

from __future__ import annotations

import os
import stat
import warnings
import zipfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import ARCHIVE, random_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from strategolab import BARRAGE, BLUE, CLASSIC, RED, RULESETS, Piece, RecordError, Setup, State, setupstats, stats
from strategolab.board import geometry, parse_square, square_name
from strategolab.gravon import decode_field, read_gravon

needs_archive = pytest.mark.skipif(
    not ARCHIVE.is_dir(), reason=f"the shared Gravon archive is not at {ARCHIVE} (CI always has it)")

# -- building Gravon-like games by hand ----------------------------------------------------------------------

GRAVON_ORDER = ("Bomb", "Spy", "Scout", "Miner", "Sergeant", "Lieutenant", "Captain", "Major", "Colonel", "General",
                "Marshal", "Flag")
LAKES = {parse_square(n) for n in CLASSIC.lakes}


def field_of(placements: dict[int, Piece]) -> str:
    """A Gravon field (100 characters, A1 first) for pieces on kit squares."""
    chars = []
    for i in range(100):
        sq = (i // 10) * 16 + i % 10
        piece = placements.get(sq)
        if sq in LAKES:
            chars.append("_")
        elif piece is None:
            chars.append("A")
        else:
            chars.append(chr(ord("BN"[piece.owner]) + GRAVON_ORDER.index(piece.type.name)))
    return "".join(chars)


def gravon_square(sq: int) -> str:
    return "ABCDEFGHIK"[sq % 16] + "123456789:"[sq // 16]


def deploy(red: Setup, blue: Setup) -> dict[int, Piece]:
    out = {sq: Piece(RED, p) for sq, p in red.placements(RED).items()}
    out.update({sq: Piece(BLUE, p) for sq, p in blue.placements(BLUE).items()})
    return out


def gravon_xml(placements: dict[int, Piece] | None, moves: Sequence[tuple[int, int]] = (), *, kind: str = "classic",
               result: str = '<result type="1" winner="1"/>') -> str:
    field = "" if placements is None else f'<field content="{field_of(placements)}"/>\n'
    lines = "".join(f'  <move id="{i}" source="{gravon_square(f)}" target="{gravon_square(t)}"/>\n'
                    for i, (f, t) in enumerate(moves, 1))
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<stratego>\n <game type="{kind}">\n  {field}{lines}'
            f'  <player id="1">Ann</player>\n  <player id="2">Bob</player>\n  {result}\n </game>\n</stratego>\n')


def write_zip(path: Path, members: dict[str, str]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in members.items():
            z.writestr(name, text)
    return path


def make_setup(fixed: dict[str, str], ruleset=CLASSIC) -> Setup:
    """A legal setup with some pieces on given squares (owner's view, named as Red's squares), the rest of the
    army filled in reading order (front row first), Bombs first so they stay away from a back-row Flag."""
    pieces = {parse_square(sq): ruleset.piece_type(sym) for sq, sym in fixed.items()}
    rest = [p for p, n in ruleset.army for _ in range(n)]
    for p in pieces.values():
        rest.remove(p)
    rest.sort(key=lambda p: (p.name != "Bomb", p.name))
    free = [sq for sq in geometry(ruleset).setup_squares[RED] if sq not in pieces]
    pieces.update(zip(free, rest, strict=False))
    return Setup.from_placements(pieces, RED, ruleset).validate()


S1 = make_setup({"A1": "F", "B1": "B", "A2": "B"})  # corner Flag, walled in
S2 = make_setup({"E1": "F", "D1": "B", "F1": "B", "E2": "B"})  # back-row Flag, walled in
S3 = make_setup({"E1": "F", "D1": "B", "F1": "B", "E2": "9"})  # one side open
S4 = make_setup({"C4": "F", "B4": "B", "D4": "B", "C3": "B"})  # front row by the lake: the lake needs no Bomb
S5 = make_setup({"E4": "F", "D4": "B", "F4": "B", "E3": "B"})  # front row: the square ahead is open
RED_WINS, BLUE_WINS, DRAW = ('<result type="1" winner="1"/>', '<result type="3" winner="2"/>',
                             '<result type="4" winner="3"/>')
BARRAGE_RED = Setup.random(BARRAGE, seed=1)
BARRAGE_BLUE = Setup.random(BARRAGE, seed=2)


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """Four classic games of known setups and results, a Barrage game and a classic game without a field."""
    folder = tmp_path / "games"
    folder.mkdir()
    write_zip(folder / "month-1.zip", {
        "classic-1.xml": gravon_xml(deploy(S1, S2), [(parse_square("A4"), parse_square("A5"))], result=RED_WINS),
        "classic-2.xml": gravon_xml(deploy(S3, S1), result=BLUE_WINS),
        "classic-3.xml": gravon_xml(deploy(S4, S5), result=DRAW),
    })
    write_zip(folder / "month-2.zip", {
        "barrage-1.xml": gravon_xml(deploy(BARRAGE_RED, BARRAGE_BLUE), kind="barrage", result=BLUE_WINS),
        "classic-4.xml": gravon_xml(deploy(S1, S3), result=RED_WINS),
        "classic-5.xml": gravon_xml(None, result=BLUE_WINS),
    })
    return folder


def load(path: Path | Sequence[Path], **kwargs) -> stats.GameTables:
    kwargs.setdefault("cache", False)
    kwargs.setdefault("progress", False)
    kwargs.setdefault("workers", 1)
    return stats.load_games(path, **kwargs)


# -- the tables ----------------------------------------------------------------------------------------------


def test_games_table(corpus: Path) -> None:
    t = load(corpus)
    g = t.games
    assert list(g.index) == list(range(6)) and g.index.name == "game"
    assert list(g["source"]) == ["month-1.zip:classic-1.xml", "month-1.zip:classic-2.xml", "month-1.zip:classic-3.xml",
                                 "month-2.zip:barrage-1.xml", "month-2.zip:classic-4.xml", "month-2.zip:classic-5.xml"]
    assert list(g["variant"]) == ["classic"] * 3 + ["barrage"] + ["classic"] * 2
    assert list(g["result"]) == ["1-0", "0-1", "1/2-1/2", "0-1", "1-0", "0-1"]
    assert list(g["winner"].astype(object).fillna("-")) == ["Red", "Blue", "-", "Blue", "Red", "Blue"]
    assert list(g["termination"]) == ["flag captured", "resigned", "agreed draw", "resigned", "flag captured",
                                      "resigned"]
    assert list(g["length"]) == [1, 0, 0, 0, 0, 0]
    assert list(g["has_setup"]) == [True] * 5 + [False]
    assert set(g["red"]) == {"Ann"} and set(g["blue"]) == {"Bob"}
    assert t.errors == []
    summary = t.summary()
    assert summary.loc["classic", "games"] == 5 and summary.loc["classic", "draws"] == 1


def test_setups_are_seen_from_their_owners_side(corpus: Path) -> None:
    t = load(corpus)
    s = t.setups
    assert len(s) == 10  # five games with setups, two each
    expected = [S1, S2, S3, S1, S4, S5, BARRAGE_RED, BARRAGE_BLUE, S1, S3]
    assert list(s["setup"]) == [str(x) for x in expected]  # Blue's setups read as Blue deployed them
    assert list(s["side"]) == ["Red", "Blue"] * 5
    assert list(s["outcome"]) == ["won", "lost", "lost", "won", "draw", "draw", "lost", "won", "won", "lost"]
    assert s["valid"].all()


def test_pieces_table(corpus: Path) -> None:
    t = load(corpus)
    p = t.pieces
    assert len(p) == 8 * 40 + 2 * 8
    flags = p[(p["piece"] == "Flag") & (p["variant"] == "classic")]
    assert list(zip(flags["game"], flags["side"], flags["row"], flags["column"], strict=True)) == [
        (0, "Red", 1, "A"), (0, "Blue", 1, "E"), (1, "Red", 1, "E"), (1, "Blue", 1, "A"), (2, "Red", 4, "C"),
        (2, "Blue", 4, "E"), (4, "Red", 1, "A"), (4, "Blue", 1, "E")]
    assert list(flags["square"]) == [30, 34, 34, 30, 2, 4, 30, 34]  # reading order: front row first
    # On the board Blue's E1 (seen from Blue's seat) is F10: that is where the field has Blue's Flag.
    game = next(iter(read_gravon(corpus / "month-1.zip")))
    assert decode_field(game.field)[parse_square("F10")] == (BLUE, "Flag")
    counts = p.groupby(["game", "side"], observed=True).size()
    assert set(counts[counts.index.get_level_values("game") != 3]) == {40}


def test_setup_stats_match_the_pure_python_tally(corpus: Path) -> None:
    t = load(corpus)
    mine = t.setup_stats("classic")
    group = {"won": "winners", "lost": "losers"}
    rows = t.setups[t.setups["variant"] == "classic"].itertuples()
    reference = setupstats.tally([(Setup.parse(row.setup), group.get(row.outcome)) for row in rows], "classic")
    assert mine.setups == reference.setups == {"all": 8, "winners": 3, "losers": 3}
    assert mine.counts == reference.counts
    barrage = t.setup_stats("barrage")
    assert barrage.setups == {"all": 2, "winners": 1, "losers": 1}
    assert t.variants == ("classic", "barrage")


def test_variants_filter_renumbers_games(corpus: Path) -> None:
    t = load(corpus, variants={"barrage"}, moves=True)
    assert list(t.games.index) == [0] and list(t.games["variant"]) == ["barrage"]
    assert set(t.setups["game"]) == {0} and len(t.pieces) == 16
    with pytest.raises(TypeError):
        load(corpus, variants="classic")


# -- statistics with known answers ------------------------------------------------------------------------------


def test_flag_rows_and_columns(corpus: Path) -> None:
    t = load(corpus)
    rows = stats.piece_rows(t, "Flag")
    assert rows.to_dict() == {1: 0.75, 2: 0.0, 3: 0.0, 4: 0.25}
    columns = stats.piece_columns(t, "Flag")
    assert columns["A"] == 3 / 8 and columns["C"] == 1 / 8 and columns["E"] == 4 / 8 and columns.sum() == 1
    bombs = stats.piece_rows(t, "Bomb")
    assert bombs.sum() == pytest.approx(1.0)
    winners = stats.piece_rows(t, "Flag", group="winners")
    assert winners.to_dict() == {1: 1.0, 2: 0.0, 3: 0.0, 4: 0.0}


def test_heatmaps(corpus: Path) -> None:
    t = load(corpus)
    freq = stats.frequencies(t, "Flag")
    assert freq[30] == 3 / 8 and freq[34] == 3 / 8 and freq.sum() == pytest.approx(1.0)
    assert stats.frequencies(t, "Bomb").sum() == pytest.approx(6.0)  # six Bombs per setup
    matrix = stats.heatmap_matrix(t, "Flag")
    assert list(matrix.index) == [4, 3, 2, 1] and list(matrix.columns) == list("ABCDEFGHIJ")
    assert matrix.loc[1, "A"] == 3 / 8 and matrix.loc[4, "C"] == 1 / 8
    squares = stats.heatmap_squares(t, "Flag")
    assert squares[parse_square("A1")] == 3 / 8 and len(squares) == 40
    diff = stats.frequencies(t, "Flag", stats.DIFFERENCE)
    assert diff[30] == 1.0 and diff[34] == -1.0  # every winner's Flag on A1 (S1), every loser's on E1
    shipped = setupstats.load("classic")
    assert stats.heatmap_matrix(shipped, "Flag").shape == (4, 10)
    with pytest.raises(ValueError, match="group"):
        stats.frequencies(t, "Flag", "champions")
    with pytest.raises(ValueError, match="barrage"):
        stats.frequencies(shipped, "Flag", variant="barrage")


def test_wilson_interval_known_values() -> None:
    low, high = stats.wilson_interval([5, 0, 10, 0], [10, 10, 10, 0])
    assert low[0] == pytest.approx(0.2366, abs=1e-4) and high[0] == pytest.approx(0.7634, abs=1e-4)
    assert low[1] == 0 and high[1] == pytest.approx(0.2775, abs=1e-4)
    assert low[2] == pytest.approx(0.7225, abs=1e-4) and high[2] == 1
    assert np.isnan(low[3]) and np.isnan(high[3])


def test_win_rate_by_flag_position(corpus: Path) -> None:
    t = load(corpus)
    by_row = stats.win_rate_by_position(t, "Flag", by="row")
    assert by_row.loc[1, "setups"] == 6 and by_row.loc[1, "wins"] == 3 and by_row.loc[1, "win_rate"] == 0.5
    assert by_row.loc[4, "setups"] == 0 and np.isnan(by_row.loc[4, "win_rate"])  # only a draw there
    low, high = stats.wilson_interval(3, 6)
    assert by_row.loc[1, "low"] == pytest.approx(low) and by_row.loc[1, "high"] == pytest.approx(high)
    by_square = stats.win_rate_by_position(t, "Flag")
    assert by_square.loc["A1", "wins"] == 3 and by_square.loc["A1", "setups"] == 3  # S1, won thrice
    assert by_square.loc["E1", "wins"] == 0 and by_square.loc["E1", "setups"] == 3  # S2 and S3 twice, all lost
    by_column = stats.win_rate_by_position(t, "Flag", by="column")
    assert by_column.loc["A", "win_rate"] == 1.0
    with pytest.raises(ValueError, match="Bomb"):
        stats.win_rate_by_position(t, "Bomb", by="row")


def test_flag_protection(corpus: Path) -> None:
    t = load(corpus)
    p = stats.flag_protection(t)
    expected = {str(S1): (2, 2, True), str(S2): (3, 3, True), str(S3): (3, 2, False), str(S4): (3, 3, True),
                str(S5): (4, 3, False)}
    setups = t.setups.loc[p.index, "setup"]
    for setup, row in zip(setups, p.itertuples(), strict=True):
        assert (row.neighbours, row.bomb_neighbours, row.surrounded) == expected[setup], setup
    assert p["surrounded"].mean() == 5 / 8
    rates = stats.win_rates(p, "surrounded")
    assert rates.loc[True, "setups"] == 4 and rates.loc[True, "wins"] == 3  # S1 thrice (won), S2 (lost)
    assert rates.loc[False, "setups"] == 2 and rates.loc[False, "wins"] == 0  # S3 twice, lost


def test_most_common_setups(corpus: Path) -> None:
    t = load(corpus)
    top = stats.most_common_setups(t, n=2)
    assert list(top["pattern"]) == [str(S1), str(S3)]
    assert list(top["count"]) == [3, 2] and list(top["won"]) == [3, 0] and list(top["lost"]) == [0, 2]
    assert top.loc[0, "share"] == 3 / 8 and top.loc[0, "win_rate"] == 1.0
    back = stats.most_common_setups(t, rows=[1], n=1)
    assert back.loc[0, "pattern"] == str(S1).split("/")[3] and back.loc[0, "count"] == 3
    with pytest.raises(ValueError, match="rows"):
        stats.most_common_setups(t, rows=[7])


def test_similarity_and_nearest_setups(corpus: Path) -> None:
    assert stats.similarity(S1, S1) == 1.0
    squares = str(S1).replace("/", "")
    a, b = next((i, j) for i in range(40) for j in range(40) if squares[i] != squares[j])
    assert stats.similarity(S1, S1.swap(a, b)) == 38 / 40
    assert stats.similarity(str(S1), str(S1.swap(a, b))) == 38 / 40
    # Barrage: only squares occupied in either setup count, not the 32 empty ones both share
    moved = next(BARRAGE_RED.swap(i, j) for i, p in enumerate(BARRAGE_RED.pieces) if p is not None
                 for j, q in enumerate(BARRAGE_RED.pieces) if q is None)
    assert stats.similarity(BARRAGE_RED, moved) == 7 / 9  # 7 pieces stay; 9 squares occupied in either
    t = load(corpus)
    near = stats.nearest_setups(S1, t, k=4)
    assert list(near["similarity"][:3]) == [1.0, 1.0, 1.0] and near["similarity"].iloc[3] < 1
    assert list(near["game"][:3]) == [0, 1, 4]
    profile = stats.similarity_profile(t, sample=100)
    assert len(profile) == 8 and profile["reused"].sum() == 5  # S1 three times, S3 twice


# -- moves: the tracker against the engine -------------------------------------------------------------------


def start_of(state: State) -> State:
    start = state.copy()
    while start.move_stack:
        start.pop()
    return start


def test_moves_follow_the_engines_battles(tmp_path: Path) -> None:
    games = [random_game(CLASSIC, seed, 400) for seed in range(4)]
    members = {}
    for k, state in enumerate(games):
        start = start_of(state)
        placements = {sq: start.piece_at(sq) for sq in start.squares()}
        members[f"classic-{k}.xml"] = gravon_xml(placements, [(m.from_square, m.to_square) for m in state.move_stack])
    t = load(write_zip(tmp_path / "random.zip", members), moves=True)
    m = t.moves
    assert len(m) == sum(len(s.move_stack) for s in games) == t.games["length"].sum()
    assert m["piece"].notna().all()
    for k, state in enumerate(games):
        mine = m[m["game"] == k].reset_index(drop=True)
        assert list(mine["ply"]) == list(range(1, len(state.move_stack) + 1))
        assert list(mine["side"]) == ["Red" if i % 2 == 0 else "Blue" for i in range(len(mine))]
        assert list(mine["from"]) == [square_name(mv.from_square) for mv in state.move_stack]
        fought = mine[mine["battle"].notna()]
        engine = state.battles
        assert len(engine) > 0
        assert list(fought.index) == [i for i, _ in engine]
        assert list(fought["piece"]) == [b.attacker.type.name for _, b in engine]
        assert list(fought["defender"]) == [b.defender.type.name for _, b in engine]
        assert list(fought["battle"]) == [str(b.result) for _, b in engine]


def test_moves_of_an_impossible_record_are_marked_unknown(tmp_path: Path) -> None:
    board = deploy(S1, S2)
    moves = [(parse_square(a), parse_square(b)) for a, b in (("A4", "A5"), ("J6", "J5"), ("A7", "A6"))]  # J6 is empty
    t = load(write_zip(tmp_path / "odd.zip", {"classic-1.xml": gravon_xml(board, moves)}), moves=True)
    assert t.moves["piece"].notna().tolist() == [True, False, False]


# -- records in the kit's notation ---------------------------------------------------------------------------


def test_records_adapter(tmp_path: Path) -> None:
    notation = pytest.importorskip("strategolab.notation")
    records = pytest.importorskip("strategolab.records")
    state = random_game(CLASSIC, 7, 120)
    game = records.Game.from_state(state, {"Red": "Ann", "Blue": "Bob", "Termination": "resignation",
                                           "Result": "0-1"})
    lesson = records.Game(State.from_placements({"A1": Piece(RED, CLASSIC.piece_type("Flag")),
                                                 "E5": Piece(RED, CLASSIC.piece_type("Marshal")),
                                                 "J10": Piece(BLUE, CLASSIC.piece_type("Flag"))}, "classic"))
    path = tmp_path / "club.sgn"
    notation.write_games([game, lesson], path)
    t = load(tmp_path, moves=True)
    assert list(t.games["source"]) == ["club.sgn#1", "club.sgn#2"]
    assert list(t.games["result"]) == ["0-1", "*"] and list(t.games["termination"]) == ["resignation", ""]
    assert list(t.games["has_setup"]) == [True, False]
    assert t.games.loc[0, "length"] == len(state.move_stack)
    start = start_of(state)
    for player, side in ((RED, "Red"), (BLUE, "Blue")):
        mine = {sq: start.piece_at(sq).type for sq in start.squares(player)}
        row = t.setups[t.setups["side"] == side].iloc[0]
        assert row["setup"] == str(Setup.from_placements(mine, player, CLASSIC))
        assert row["outcome"] == ("won" if player == BLUE else "lost")
    fought = t.moves[t.moves["battle"].notna()]
    assert list(fought["ply"] - 1) == [i for i, _ in state.battles]


def test_records_of_every_rule_set(tmp_path: Path) -> None:
    notation = pytest.importorskip("strategolab.notation")
    records = pytest.importorskip("strategolab.records")
    games = [records.Game.from_state(random_game(rs, 3, 30)) for rs in RULESETS.values()]
    notation.write_games(games, tmp_path / "all.sgn")
    t = load(tmp_path / "all.sgn")
    assert list(t.games["variant"]) == list(RULESETS) and t.setups["valid"].all()
    for rs in RULESETS.values():
        pieces = t.pieces[t.pieces["variant"] == rs.name]
        assert len(pieces) == 2 * rs.army_size
        assert set(pieces["row"]) == set(rs.setup_rows[RED]) and t.setup_stats(rs.name).setups["all"] == 2
        flags = stats.flag_protection(t, rs.name)  # Mines wall a pocket Flag in as Bombs do a classic one
        assert len(flags) == 2 and (flags["bomb_neighbours"] <= flags["neighbours"]).all()


# -- the cache -------------------------------------------------------------------------------------------------


class Spy:
    """Counts the units parsed (workers=1 parses in this process)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[str] = []
        real = stats._read_unit

        def read(kind, files, moves):
            self.calls.append(Path(files[0]).name)
            return real(kind, files, moves)

        monkeypatch.setattr(stats, "_read_unit", read)


def frames_equal(a: stats.GameTables, b: stats.GameTables) -> None:
    for name in ("games", "setups", "pieces"):
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


def test_cache_hit_touch_and_replace(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spy = Spy(monkeypatch)
    cache = tmp_path / "cache"
    first = load(corpus, cache=cache)
    assert sorted(spy.calls) == ["month-1.zip", "month-2.zip"]
    assert len(list(cache.glob("*.npz"))) == 2
    spy.calls.clear()
    frames_equal(load(corpus, cache=cache), first)
    assert spy.calls == []  # everything came from the cache
    zip1 = corpus / "month-1.zip"
    st = zip1.stat()
    os.utime(zip1, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # touched: same bytes, new time
    frames_equal(load(corpus, cache=cache), first)
    assert spy.calls == []  # the key is the content, not the time
    write_zip(zip1, {"classic-9.xml": gravon_xml(deploy(S5, S4), result=BLUE_WINS)})  # replaced
    changed = load(corpus, cache=cache)
    assert spy.calls == ["month-1.zip"]
    assert changed.games.loc[0, "source"] == "month-1.zip:classic-9.xml" and len(changed.games) == 4
    spy.calls.clear()
    with_moves = load(corpus, cache=cache, moves=True)  # the games are cached, the moves are not yet
    assert sorted(spy.calls) == ["month-1.zip", "month-2.zip"] and with_moves.moves is not None
    spy.calls.clear()
    load(corpus, cache=cache, moves=True)
    assert spy.calls == []


def test_an_edit_in_place_with_the_time_restored_is_seen(corpus: Path, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """touch -r, cp -p and rsync -t keep size and modification time: the content hash still tells."""
    cache = tmp_path / "cache"
    zip1 = corpus / "month-1.zip"

    def write(result: str) -> None:  # stored, not deflated: the same size whatever the winner
        with zipfile.ZipFile(zip1, "w", zipfile.ZIP_STORED) as z:
            z.writestr(zipfile.ZipInfo("classic-1.xml", (2020, 1, 1, 0, 0, 0)), gravon_xml(deploy(S1, S2),
                                                                                           result=result))

    write(RED_WINS)
    assert load(corpus, cache=cache).games.loc[0, "winner"] == "Red"
    st = zip1.stat()
    write('<result type="1" winner="2"/>')  # edited in place, then its time restored (touch -r, cp -p)
    os.utime(zip1, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert zip1.stat().st_size == st.st_size and zip1.stat().st_mtime_ns == st.st_mtime_ns
    spy = Spy(monkeypatch)
    assert load(corpus, cache=cache).games.loc[0, "winner"] == "Blue"
    assert spy.calls == ["month-1.zip"]


@pytest.mark.parametrize("damage", ["garbage", "truncated", "bit-flip", "npy"])
def test_damaged_cache_is_rebuilt_with_a_warning(corpus: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 damage: str) -> None:
    cache = tmp_path / "cache"
    first = load(corpus, cache=cache)
    for f in cache.glob("*.npz"):
        data = f.read_bytes()
        if damage == "garbage":
            f.write_bytes(b"not a cache file")
        elif damage == "truncated":
            f.write_bytes(data[:len(data) // 2])
        elif damage == "bit-flip":
            f.write_bytes(data[:len(data) // 3] + bytes([data[len(data) // 3] ^ 0x10]) + data[len(data) // 3 + 1:])
        else:
            np.save(f.open("wb"), np.arange(3))
    spy = Spy(monkeypatch)
    with pytest.warns(UserWarning, match="damaged cache file"):
        frames_equal(load(corpus, cache=cache), first)
    assert len(spy.calls) == 2
    spy.calls.clear()
    frames_equal(load(corpus, cache=cache), first)  # rebuilt: served from the cache again, no warning
    assert spy.calls == []
    assert stats.clear_cache(corpus, cache=cache) == 2 and not list(cache.glob("*.npz"))


def test_cache_next_to_the_data(corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(stats.CACHE_ENV, raising=False)
    load(corpus, cache=True)
    folder = corpus / stats.CACHE_FOLDER
    assert len(list(folder.glob("*.games.npz"))) == 2
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"  # never committed by accident
    assert not list(folder.glob("*.tmp"))  # written atomically, no leftovers
    assert len(load(corpus, cache=True).games) == 6  # the cache folder itself is not read as data


def test_read_only_data_caches_in_the_user_folder(corpus: Path, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(stats.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    mode = corpus.stat().st_mode
    corpus.chmod(stat.S_IRUSR | stat.S_IXUSR | stat.S_IRGRP | stat.S_IXGRP | stat.S_IROTH | stat.S_IXOTH)
    try:
        load(corpus, cache=True)
        assert not (corpus / stats.CACHE_FOLDER).exists()  # even as root, a folder without write bits is left alone
        assert len(list((tmp_path / "xdg" / "strategolab").glob("*.games.npz"))) == 2
    finally:
        corpus.chmod(mode)
    monkeypatch.setenv(stats.CACHE_ENV, str(tmp_path / "elsewhere"))
    load(corpus, cache=True)
    assert len(list((tmp_path / "elsewhere").glob("*.npz"))) == 2


def test_workers_give_the_same_tables(corpus: Path) -> None:
    serial = load(corpus, moves=True)
    parallel = load(corpus, moves=True, workers=2)
    frames_equal(serial, parallel)
    pd.testing.assert_frame_equal(serial.moves, parallel.moves)


def test_bad_games_are_reported(corpus: Path) -> None:
    write_zip(corpus / "month-3.zip", {"classic-1.xml": "<stratego><game type='classic'><move", "classic-2.xml":
                                       gravon_xml(deploy(S2, S2))})
    t = load(corpus)
    assert len(t.games) == 7 and len(t.errors) == 1 and "month-3.zip:classic-1.xml" in t.errors[0]
    with pytest.raises(RecordError, match=r"classic-1\.xml"):
        load(corpus, errors="raise")
    with pytest.raises(FileNotFoundError, match="no-such"):
        load(corpus / "no-such.zip")


def test_empty_folder_gives_empty_tables(tmp_path: Path) -> None:
    t = load(tmp_path, moves=True)
    assert len(t.games) == len(t.setups) == len(t.pieces) == len(t.moves) == 0
    assert list(t.pieces.columns) == ["game", "side", "variant", "outcome", "square", "row", "column", "piece"]
    assert t.variants == ()


# -- the explorer behind the notebook's dropdowns --------------------------------------------------------------


def test_explorer_on_the_shipped_tables() -> None:
    ex = stats.HeatmapExplorer()
    assert ex.variants == ("classic", "barrage") and (ex.variant, ex.piece, ex.group) == ("classic", "Flag", "all")
    assert ex.values() == stats.heatmap_squares(setupstats.load("classic"), "Flag")
    ex.select(piece="Bomb")
    assert sum(ex.values().values()) == pytest.approx(6.0)
    ex.select(variant="barrage")
    assert ex.piece == "Bomb" and sum(ex.values().values()) == pytest.approx(1.0)
    ex.select(group=stats.DIFFERENCE)
    assert sum(ex.values().values()) == pytest.approx(0.0)
    assert "winners" in ex.caption() and "minus losers" in ex.caption()
    with pytest.raises(ValueError, match="Colonel"):
        ex.select(piece="Colonel")  # Barrage has none
    ex.select(variant="classic", piece="Colonel").select(variant="barrage")
    assert ex.piece == "Flag"  # a piece the new variant lacks falls back to the Flag
    board = ex.select(group="all").draw()
    assert len(board.drawn("heat")) == 40 and board.caption.startswith("Flag in barrage")
    assert board.shown_rows == 4  # the setup zone, not six empty enemy rows


def test_explorer_on_loaded_games(corpus: Path) -> None:
    ex = stats.HeatmapExplorer(load(corpus), label="test corpus")
    assert ex.variants == ("classic", "barrage")
    assert ex.values()[parse_square("A1")] == 3 / 8
    assert ex.matrix().loc[1, "A"] == 3 / 8
    assert ex.caption() == "Flag in classic: all 8 setups (test corpus)"
    with pytest.raises(ValueError, match="no setups"):
        stats.HeatmapExplorer({})


# -- the real archive ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> stats.GameTables:
    return stats.load_games(ARCHIVE, cache=tmp_path_factory.mktemp("cache"), progress=False)


@needs_archive
def test_archive_tables(archive: stats.GameTables) -> None:
    g = archive.games
    assert len(g) == 11_902 and archive.errors == []
    assert (g["variant"] == "classic").sum() == 10_499 and (g["variant"] == "barrage").sum() == 1_281
    assert g.loc[g["variant"].isin(["classic", "barrage"]), "length"].sum() == 3_625_733  # as docs/rules.md counts
    assert (~g["has_setup"] & (g["variant"] == "classic")).sum() == 1  # the one file without a <field>


@needs_archive
def test_archive_matches_the_published_figures(archive: stats.GameTables) -> None:
    classic = archive.setup_stats("classic")
    back_row = stats.piece_rows(classic, "Flag")[1]
    assert 0.85 <= back_row <= 0.95  # "the Flag on the back row in roughly nine setups out of ten"
    bombs = stats.piece_rows(classic, "Bomb")
    assert set(bombs.nlargest(2).index) == {1, 2}  # Bombs most common on the back two rows
    assert bombs[1] + bombs[2] > 0.5


@needs_archive
def test_archive_reproduces_the_shipped_table(archive: stats.GameTables) -> None:
    for variant in ("classic", "barrage"):
        shipped = setupstats.load(variant)
        mine = archive.setup_stats(variant)
        assert mine.setups == shipped.setups and mine.counts == shipped.counts, variant


@needs_archive
def test_archive_moves_agree_with_the_engine(tmp_path: Path) -> None:
    from strategolab.archive import replay

    zip_path = ARCHIVE / "strados2014-0.zip"
    t = stats.load_games(zip_path, moves=True, cache=tmp_path, progress=False, workers=1)
    games = [g for g in read_gravon(zip_path) if g.game_type == "classic"][:25]
    index = {source: i for i, source in enumerate(t.games["source"])}
    for game in games:
        state = replay(game, check=False).state
        mine = t.moves[t.moves["game"] == index["strados2014-0.zip:" + game.source.rpartition(":")[2]]]
        fought = mine[mine["battle"].notna()]
        assert list(fought["ply"] - 1) == [i for i, _ in state.battles], game.source
        assert list(fought["defender"]) == [b.defender.type.name for _, b in state.battles], game.source


def test_a_first_load_shows_its_progress_bar_in_a_jupyter_kernel(corpus: Path) -> None:
    """What JupyterLab receives while a notebook loads games: a progress widget, filled when the load ends."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        f"from strategolab import stats\ntables = stats.load_games({str(corpus)!r}, cache=False, workers=1)\n"
        "print(len(tables.games), 'games')")]
    nbclient.NotebookClient(nb, kernel_name="python3", timeout=120, store_widget_state=True).execute()
    outputs = nb.cells[0].outputs
    bars = [o for o in outputs if o.output_type == "display_data"
            and "application/vnd.jupyter.widget-view+json" in o.data and "reading games" in o.data["text/plain"]]
    assert bars, f"no progress widget among {outputs}"
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    progress = [m["state"] for m in state.values() if m["model_name"] == "FloatProgressModel"]
    assert len(progress) == 1 and progress[0]["value"] == progress[0]["max"] > 0
    assert outputs[-1].text == "6 games\n"
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_property_any_damaged_cache_is_a_miss(tmp_path_factory: pytest.TempPathFactory, data: st.DataObject) -> None:
    """Flipped bytes, cuts and junk in a cache file: the load reads the source again and gives the same tables."""
    folder = tmp_path_factory.mktemp("damage")
    source = write_zip(folder / "month.zip", {"classic-1.xml": gravon_xml(deploy(S1, S2), result=RED_WINS),
                                              "classic-2.xml": gravon_xml(deploy(S3, S1), result=BLUE_WINS)})
    cache = folder / "cache"
    fresh = load(source, cache=cache)
    (cache_file,) = cache.glob("*.npz")
    raw = bytearray(cache_file.read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        kind = data.draw(st.sampled_from(["flip", "cut", "junk"]))
        at = int(data.draw(st.floats(0, 1, exclude_max=True)) * len(raw))  # the file's size varies with the path
        if kind == "flip" and raw:
            raw[at] ^= 1 << data.draw(st.integers(0, 7))
        elif kind == "cut":
            del raw[at:]
        else:
            raw[at:at] = data.draw(st.binary(min_size=1, max_size=16))
    cache_file.write_bytes(bytes(raw))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # damaged: a warning; a flip in a stored name or padding: no harm at all
        frames_equal(load(source, cache=cache), fresh)
    frames_equal(load(source, cache=cache), fresh)  # and the cache works again
