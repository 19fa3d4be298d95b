"""The engine replays the real Gravon archive: zero illegal moves, results that match the final position."""

from __future__ import annotations

import collections
import dataclasses
import functools

import pytest
from conftest import ARCHIVE

from strategolab.archive import (
    GRAVON_CLASSIC,
    games_with_setup,
    initial_state,
    main,
    repetition_study,
    replay,
    ruleset_for,
    verify,
)
from strategolab.board import square_name
from strategolab.gravon import read_gravon
from strategolab.rules import BLUE, CAPTAIN, GRAVON_ULTIMATE_LIGHTNING, MINER, RED, SCOUT, Ruleset
from strategolab.state import Termination

needs_archive = pytest.mark.skipif(not ARCHIVE.is_dir(), reason=f"Gravon archive not found at {ARCHIVE}")

# Games recorded as "opponent cannot move" where the loser still has a legal move under the Gravon rule set
# (two-square limit 5).  The first four fit the two-square limit of 3, which Gravon also offered; in the
# last one Red could still attack.  See docs/rules.md.
KNOWN_MISFITS = {
    "strados2014-5.zip:classic-2014.5-408.xml": "Blue unable to move, but Blue has 1 legal moves",
    "strados2014-5.zip:classic-2014.5-2245.xml": "Red unable to move, but Red has 1 legal moves",
    "strados2014-6.zip:classic-2014.6-1225.xml": "Blue unable to move, but Blue has 1 legal moves",
    "strados2014-9.zip:classic-2014.9-1352.xml": "Blue unable to move, but Blue has 1 legal moves",
    "strados2014-10.zip:classic-2014.10-2587.xml": "Red unable to move, but Red has 2 legal moves",
}


@needs_archive
def test_whole_archive_replays_without_an_illegal_move() -> None:
    report = verify([ARCHIVE])
    assert report.games == 11_779 + 51  # classic and barrage, and Ultimate Lightning
    assert report.moves == 3_625_733 + 6_958
    assert report.skipped == {"game type classicfree": 40, "game type duell": 31, "no setup in the file": 1}
    assert not report.illegal, str(report)
    found = {p.split("gravon/", 1)[1].split(": ")[0]: p.split("recorded as ", 1)[1] for p in report.problems}
    assert found == KNOWN_MISFITS
    assert report.results[1] == 3_451 + 31  # every flag capture is the last move, by the recorded winner
    assert report.results[0] == 814 - len(KNOWN_MISFITS) + 1


@needs_archive
def test_known_misfits_fit_the_two_square_limit_of_3() -> None:
    rs3 = GRAVON_CLASSIC.replace(name="gravon-3", two_square_limit=3)
    games = [g for g in read_gravon(ARCHIVE / "strados2014-5.zip") if g.source.endswith(("-408.xml", "-2245.xml"))]
    assert len(games) == 2
    for game in games:
        assert not replay(game).ok
        assert replay(game, rs3).ok


@needs_archive
def test_repetition_study_on_one_month() -> None:
    study = repetition_study([ARCHIVE / "strados2014-8.zip"], processes=1)
    assert study.games == sum(1 for g in read_gravon(ARCHIVE / "strados2014-8.zip")
                              if g.game_type in ("classic", "barrage") and g.has_setup)
    assert study.games_breaking_two_square(5) == 0
    assert study.games_breaking_two_square(3) == 4  # classic-2014.8-665, -1534, -2047, -2433
    assert study.chase_games["position"] == 0
    assert study.chase_games["square"] > study.games // 3
    assert "ISF more-squares rule: 0 games" in str(study)


@needs_archive
def test_flag_capture_game_ends_with_the_flag_taken() -> None:
    game = next(g for g in read_gravon(ARCHIVE / "strados2014-0.zip")
                if g.game_type == "classic" and g.result_type == 1)
    r = replay(game)
    assert r.ok
    outcome = r.state.outcome()
    assert outcome is not None and outcome.termination is Termination.FLAG_CAPTURED
    assert outcome.winner == game.winner
    # Claiming the other side won is caught.
    wrong = dataclasses.replace(game, winner=BLUE if game.winner == RED else RED)
    assert "captured the Flag" in replay(wrong).describe()


@needs_archive
def test_a_doctored_move_is_reported_with_the_engines_reason() -> None:
    game = next(g for g in read_gravon(ARCHIVE / "strados2014-0.zip") if g.game_type == "classic")
    state = initial_state(game)
    bomb = next(sq for sq in state.squares(RED) if state.piece_at(sq).type.name == "Bomb")
    r = replay(dataclasses.replace(game, moves=((bomb, bomb + 16),)))
    assert r.illegal is not None
    n, move, reason = r.illegal
    assert n == 1 and move.from_square == bomb and reason == f"the Bomb on {square_name(bomb)} cannot move"
    assert "move 1" in r.describe() and "cannot move" in r.describe()


@needs_archive
def test_unchecked_replay_reaches_the_same_position() -> None:
    games = [g for g in read_gravon(ARCHIVE / "strados2014-3.zip", types={"barrage"})][:50]
    for g in games:
        assert replay(g, check=False).state == replay(g).state


@needs_archive
def test_command_line_verify_one_month(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(ARCHIVE / "strados2014-1.zip")]) == 0
    out = capsys.readouterr().out
    assert "do not fit" in out and "0 do not fit" in out


def test_ruleset_for_names_the_choices() -> None:
    assert ruleset_for("classic").two_square_limit == 5
    assert ruleset_for("barrage").army_size == 8
    assert ruleset_for("ultimate lightning").rescues == 2
    with pytest.raises(ValueError, match=r"duell.*replayable: barrage, classic, ultimate lightning"):
        ruleset_for("duell")


# -- Ultimate Lightning: its rules as the archive shows them -------------------------------------------------


@functools.cache
def ul_games() -> tuple:
    return tuple(read_gravon(ARCHIVE, types={"ultimate lightning"}))


def ul_breaks(rs: Ruleset) -> list[str]:
    """The Ultimate Lightning games of the archive that do not replay under ``rs``."""
    return [g.source for g in ul_games() if not replay(g, rs).ok]


@needs_archive
def test_every_ultimate_lightning_game_replays_and_its_result_fits() -> None:
    games = ul_games()
    assert len(games) == 51 and sum(len(g.rescues) for g in games) == 76
    results: collections.Counter = collections.Counter()
    for g in games:
        r = replay(g)
        assert r.ok, r.describe()
        assert sum(1 for i in range(len(r.state.move_stack)) if r.state.rescue_at(i)) == len(g.rescues)
        outcome = r.state.outcome()
        if g.result_type in (0, 1):  # confirmed by the engine: the Flag taken, or the loser unable to move
            assert outcome is not None and outcome.winner == g.winner
        results[g.result_type, outcome.termination.value if outcome else None] += 1
    assert results == {(1, "flag captured"): 31, (0, "no legal move"): 1, (3, None): 19}


@needs_archive
@pytest.mark.parametrize("change", [
    dict(attacker_wins_ties=False),  # equal ranks both removed, as in classic
    dict(one_time_bombs=False),  # a Bomb stays and kills its attacker
    dict(rescues=1),  # one rescue a game
    dict(chase_rule="square"),  # the classic chasing rule
], ids=str)
def test_each_ultimate_lightning_rule_is_needed(change: dict) -> None:
    rs = GRAVON_ULTIMATE_LIGHTNING.replace(name="ul-test", **change)
    assert ul_breaks(rs)


@needs_archive
@pytest.mark.parametrize("piece", ["Captain", "Scout", "Miner"])
def test_the_ultimate_lightning_pieces_are_needed(piece: str) -> None:
    """Captains that only step, a Scout that does not clear a Bomb, a Miner that survives one: each breaks games."""
    classic = {"Captain": CAPTAIN, "Scout": SCOUT, "Miner": MINER}[piece]
    army = tuple((classic if p.name == piece else p, n) for p, n in GRAVON_ULTIMATE_LIGHTNING.army)
    assert ul_breaks(GRAVON_ULTIMATE_LIGHTNING.replace(name=f"ul-classic-{piece}", army=army))


@needs_archive
def test_games_with_setup_give_starts_and_moves_in_the_archives_order() -> None:
    month = ARCHIVE / "strados2014-2.zip"
    four = list(games_with_setup([month], "classic", games=4))
    later = list(games_with_setup([month], "classic", games=3, skip=1))
    assert len(four) == 4 and len(later) == 3
    expected = [g for g in read_gravon(month, types={"classic"}) if g.has_setup][:4]
    for (state, moves), game in zip(four, expected, strict=True):
        assert not state.move_stack and len(state.squares()) == 80
        assert [(m.from_square, m.to_square) for m in moves] == list(game.moves)
    assert [m for _, m in later] == [m for _, m in four[1:]]
    barrage = next(games_with_setup([month], "barrage", games=1))[0]
    assert len(barrage.squares()) == 16
