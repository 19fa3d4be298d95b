"""The example games the kit ships in data/games: every record reads strictly, explains itself in comments,
and ends with the result the engine gives (or one the position cannot show, like a resignation)."""

from __future__ import annotations

from pathlib import Path

import pytest

from strategolab.notation import read_games, write_game
from strategolab.records import Game

GAMES = Path(__file__).resolve().parents[1] / "data" / "games"
FILES = sorted(GAMES.glob("*.sgn"))
# One game per headline rule, and at least one full classic game and one pocket game.
LESSONS = {"spy-takes-marshal", "scout-run", "miner-defuses-bomb", "two-square-rule", "chase", "cannot-move",
           "quiet-move-draw", "pocket-game", "classic-game"}


def test_every_lesson_is_shipped() -> None:
    assert {f.stem for f in FILES} >= LESSONS


def _games(path: Path) -> list[Game]:
    return list(read_games(path))  # strict: the first problem raises, naming file, line and column


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_shipped_record_is_valid_commented_and_canonical(path: Path) -> None:
    games = _games(path)
    assert games, f"{path.name} holds no game"
    for game in games:
        nodes = [game, *game.mainline()]
        assert game.comment, f"{path.name}: the game needs an introduction"
        assert sum(bool(n.comment) for n in nodes) >= 3, f"{path.name}: too few comments to learn from"
        assert game.result != "*" and game.headers.get("Termination")
        outcome = game.end().state().outcome()
        if outcome is None:  # a result the position cannot show: it must say why the game ended
            assert game.headers["Termination"] in ("resignation", "agreed draw", "time forfeit", "abandoned")
        else:
            assert (outcome.result(), outcome.termination.value) == (game.result, game.headers["Termination"])
    assert "\n".join(write_game(g) for g in games) == path.read_text(encoding="utf-8"), \
        f"{path.name} is not in the canonical form write_game gives"


def test_the_games_cover_the_rule_sets_and_endings() -> None:
    games = [g for f in FILES for g in _games(f)]
    assert {g.ruleset.name for g in games} >= {"classic", "pocket"}
    assert any(g.mainline() and g.start.ply == 0 and g.ruleset.name == "classic" for g in games)
    endings = {g.headers["Termination"] for g in games}
    assert {"flag captured", "no legal move", "quiet-move draw"} <= endings
