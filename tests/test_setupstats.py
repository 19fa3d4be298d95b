"""Setup statistics: counts on hand-made setups, the shipped table, and rebuilding it from the archive."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ARCHIVE

from strategolab import BLUE, RED, Setup, StrategolabError
from strategolab.board import parse_square
from strategolab.setupstats import build, load, save, tally

# Two barrage setups: the Flag on the first back-row square (index 30) in both, the Marshal on
# reading-order square 0 in one and 1 in the other.
A = Setup.parse("X9......../....3...../.22......./F.BS......", "barrage")
B = Setup.parse("9X......../....3...../.22......./F.BS......", "barrage")


def test_tally_counts_known_setups() -> None:
    stats = tally([(A, "winners"), (B, "losers"), (A, None)], "barrage")
    assert stats.setups == {"all": 3, "winners": 1, "losers": 1}
    assert stats.frequency("Flag")[30] == 1.0
    assert stats.frequency("Marshal")[:2] == [2 / 3, 1 / 3]
    assert stats.frequency("Marshal", "winners")[:2] == [1.0, 0.0]
    assert stats.frequency("Scout")[21] == 1.0 and stats.frequency("Scout")[22] == 1.0
    dist = stats.square_distribution(0)
    assert dist["Marshal"] == pytest.approx(2 / 3) and dist["General"] == pytest.approx(1 / 3)
    assert dist["empty"] == pytest.approx(0.0)
    assert stats.square_distribution(5)["empty"] == 1.0


def test_on_board_follows_the_owner() -> None:
    stats = tally([(A, None)], "barrage")
    assert stats.on_board("Flag", RED)[parse_square("A1")] == 1.0  # Red's back row, Red's left
    assert stats.on_board("Flag", BLUE)[parse_square("J10")] == 1.0  # Blue's back row, Blue's left


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    stats = tally([(A, "winners"), (B, "losers")], "barrage", source="two setups")
    save(stats, tmp_path / "t.json")
    assert load("barrage", tmp_path / "t.json") == stats


def test_bad_tables_are_refused_with_the_file_name(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(StrategolabError, match=r"x\.json:1:2: not JSON"):
        load("classic", tmp_path / "x.json")
    (tmp_path / "y.json").write_text(json.dumps({"format": "other"}))
    with pytest.raises(StrategolabError, match="not a setup-statistics table"):
        load("classic", tmp_path / "y.json")
    data = tally([(A, None)], "barrage").to_json()
    data["counts"]["all"]["Flag"] = [1, 2]
    (tmp_path / "z.json").write_text(json.dumps(data))
    with pytest.raises(StrategolabError, match=r"malformed.*40 squares"):
        load("barrage", tmp_path / "z.json")
    with pytest.raises(StrategolabError, match="no setup statistics for 'pocket'"):
        load("pocket")


def test_shipped_classic_table_agrees_with_what_is_published() -> None:
    stats = load("classic")
    assert stats.setups["all"] == 20_996
    flag = stats.frequency("Flag")
    assert 0.85 < sum(flag[30:40]) < 0.95  # the Flag on the back row in about nine setups out of ten
    bombs = stats.frequency("Bomb")
    back_two = sum(bombs[20:40]) / 6
    assert back_two > 0.7  # Bombs mostly on the back two rows
    for piece, count in stats.ruleset.army:
        assert sum(stats.frequency(piece.name)) == pytest.approx(count)


@pytest.mark.skipif(not ARCHIVE.is_dir(), reason=f"Gravon archive not found at {ARCHIVE}")
def test_build_from_one_month_matches_a_direct_count() -> None:
    stats = build([ARCHIVE / "strados2014-2.zip"], "barrage")
    assert stats.setups["all"] % 2 == 0 and stats.setups["all"] > 100
    assert sum(stats.frequency("Marshal")) == pytest.approx(1.0)
    assert stats.setups["winners"] == stats.setups["losers"] <= stats.setups["all"] // 2
