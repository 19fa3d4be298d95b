"""The play and replay controllers, driven click by click without a browser.

A whole match is played through :class:`PlayController` in every rule set the play notebook offers, a whole
record is stepped through :class:`ReplayController`, and at every step the board the controllers describe is
checked against what its viewer may know.  Saves and restores are checked to be atomic and to leave the
running game alone when they fail.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from conftest import ARCHIVE, make

import strategolab as sl
from strategolab import BLUE, RED, Move, State, View, parse_square, square_name
from strategolab.board import geometry
from strategolab.controllers import (
    BELIEF_SHOWN,
    CANCELLED,
    IGNORED,
    MOVED,
    OVER,
    PLAY,
    PLAY_RULESETS,
    REFUSED,
    SELECTED,
    SETUP,
    SWAPPED,
    SWITCHED,
    Cell,
    PlayController,
    ReplayController,
    board_cells,
    gravon_game,
    record_files,
    reflow,
)
from strategolab.gravon import read_gravon
from strategolab.players import RandomPlayer, make_player, play_game

sq = parse_square


def hidden_leaks(cells: list[Cell], state: State, viewer: int) -> list[str]:
    """Squares where the cells name an enemy piece the viewer cannot know (not revealed in the full state)."""
    return [c.name for c in cells if c.owner == 1 - viewer and c.piece is not None and not state.is_revealed(c.square)]


def play_out(c: PlayController, rng: random.Random, max_plies: int = 3000) -> None:
    """Finish the match by clicks: the human picks a random movable piece and a random target."""
    while c.phase == PLAY and len(c.log) < max_plies:
        if c.computer_to_move:
            c.computer_reply()
        else:
            assert c.click(rng.choice(c.movable())) in (SELECTED, SWITCHED)
            assert c.click(rng.choice(c.targets)) == MOVED
        assert c.state is not None
        if c.phase == PLAY:
            assert not hidden_leaks(c.cells(), c.state, c.human)


class Spy:
    """A player that records what it is given and plays at random (to see what the computer receives)."""

    name = "spy"

    def __init__(self) -> None:
        self.seen: list[object] = []
        self.inner = RandomPlayer(3)

    def choose_setup(self, ruleset: sl.Ruleset, rng: random.Random) -> sl.Setup:
        return self.inner.choose_setup(ruleset, rng)

    def choose_move(self, view: View) -> Move:
        self.seen.append(view)
        return self.inner.choose_move(view)


# -- a whole match ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", PLAY_RULESETS)
@pytest.mark.parametrize("level", ["random", "easy"])
def test_a_whole_match_by_clicks(ruleset: str, level: str) -> None:
    c = PlayController(ruleset, level, seed=7)
    assert c.phase == SETUP and c.state is None
    c.begin()
    assert c.phase == PLAY and c.human_to_move
    play_out(c, random.Random(ruleset))
    assert c.phase == OVER, f"no result after {len(c.log)} plies"
    outcome = c.outcome
    assert outcome is not None and c.result_text() in c.status()
    assert len(c.log) == len(c.state.move_stack)
    # at the end every identity is revealed
    cells = c.cells()
    assert all(cell.piece is not None for cell in cells if cell.owner is not None)
    assert {cell.owner for cell in cells if cell.owner is not None} <= {RED, BLUE}
    # the log: alternating sides, every battle in words with board coordinates
    assert [e.player for e in c.log] == [(RED + i) % 2 for i in range(len(c.log))]
    for entry in c.log:
        assert str(entry.move).replace("-", "x" if entry.battle else "-") in entry.text
        if entry.battle is not None:
            assert f"on {square_name(entry.battle.square)}" in entry.text and " attacks " in entry.text
    # export: the game in the kit's notation, read back to the same game
    record = sl.read_game(c.export())
    assert record.headers["Level"] == level and record.headers["Human"] == "Red"
    assert record.end().state() == c.state and record.result == outcome.result()
    # and nothing more happens after the end
    assert c.click(c.state.squares(RED)[0]) == IGNORED
    assert c.computer_reply() is None


def test_the_computer_is_given_its_own_view_only() -> None:
    c = PlayController("barrage", "random", first="computer", seed=2)
    spy = c.opponent = Spy()
    c.begin()
    assert c.computer_to_move and c.computer_reply() is not None
    play_out(c, random.Random(1), max_plies=60)
    assert spy.seen
    for view in spy.seen:
        assert isinstance(view, View) and view.player == BLUE
        assert all(view.piece_at(s) is None for s in view.unknown_squares())


def test_human_as_blue_with_the_computer_first() -> None:
    c = PlayController("pocket", "easy", human=BLUE, first="computer", seed=4)
    squares = geometry(sl.POCKET).setup_squares[BLUE]
    assert {cell.square for cell in c.cells() if cell.owner == BLUE} == set(squares)
    c.begin()
    assert c.state is not None and c.state.turn == RED and c.computer_to_move
    assert c.click(squares[0]) == IGNORED and "computer's turn" in c.message
    entry = c.computer_reply()
    assert entry is not None and entry.player == RED and entry.text.startswith("1. Computer (Red)")
    assert c.human_to_move
    play_out(c, random.Random(2))
    assert c.phase == OVER


# -- deployment ---------------------------------------------------------------------------------------------


def test_deployment_swaps_two_squares_and_offers_ready_made_setups() -> None:
    c = PlayController("barrage", seed=1)
    zone = geometry(sl.BARRAGE).setup_squares[RED]
    occupied = next(s for s in zone if c.view().piece_at(s) is not None)
    empty = next(s for s in zone if c.view().piece_at(s) is None)
    piece = c.view().piece_at(occupied)
    assert c.click(occupied) == SELECTED and c.selected == occupied
    assert next(cell for cell in c.cells() if cell.square == occupied).selected
    assert c.click(occupied) == CANCELLED and c.selected is None
    c.click(occupied)
    assert c.click(empty) == SWAPPED
    assert c.view().piece_at(empty) == piece and c.view().piece_at(occupied) is None
    assert c.click(sq("E8")) == REFUSED and "setup rows (1–4)" in c.message
    before = c.setup
    c.shuffle()
    assert c.setup != before and c.setup.is_valid()
    names = c.setup_names()
    assert names
    c.use_setup(names[0])
    from strategolab.setup_library import library

    assert c.setup == library(sl.BARRAGE)[names[0]]
    with pytest.raises(ValueError, match="no ready-made"):
        c.use_setup("no such plan")


def test_a_ready_made_setup_says_whether_the_computer_knows_the_setup_library() -> None:
    """Hard knows the library's plans (``Level.book``) and may spot one: a player who deploys one is told so;
    at a level that does not know them, nothing is said."""
    for level, told in (("hard", True), ("medium", False), ("easy", False)):
        c = PlayController("classic", level, seed=1)
        c.use_setup(c.setup_names()[0])
        assert c.message.startswith("Ready-made setup")
        assert ("knows the ready-made setups too" in c.message) is told, (level, c.message)
    # What counts is the player it meets, not the level's name: a plugged-in player without the book says nothing.
    from strategolab.ai import ComputerPlayer

    c = PlayController("classic", "hard", seed=1, opponent=lambda _level, seed: ComputerPlayer("medium", seed))
    c.use_setup(c.setup_names()[0])
    assert "knows the ready-made setups" not in c.message


def test_settings_change_while_deploying_only() -> None:
    c = PlayController(seed=3)
    c.configure(ruleset="pocket", level="medium", first="computer")
    assert (c.ruleset, c.level, c.first) == (sl.POCKET, "medium", "computer")
    assert c.setup.ruleset == sl.POCKET and len(c.cells()) == 36
    with pytest.raises(ValueError, match="grandmaster"):
        PlayController(level="grandmaster")
    c.begin()
    with pytest.raises(ValueError, match="between matches"):
        c.configure(level="hard")


# -- clicks during the match ----------------------------------------------------------------------------------


def scripted(spec: str, ruleset: str = "classic", quiet: int = 0) -> PlayController:
    """A controller whose match is at a given position (Red, the human, to move)."""
    c = PlayController(ruleset, "random", seed=5)
    c.begin()
    state = make(spec, ruleset, turn=RED)
    state.quiet = quiet
    c.state = state
    return c


def test_select_cancel_switch_move_and_refuse() -> None:
    c = scripted("A1:rF B1:rB E4:rX E2:r2 J10:bF E6:b5 H8:b3")
    assert c.click(sq("E6")) == IGNORED and "select one of your pieces" in c.message.lower()
    assert c.click(sq("B1")) == REFUSED and "Bomb on B1 cannot move" in c.message
    assert c.click(sq("E4")) == SELECTED and set(c.targets) == {sq("E3"), sq("E5"), sq("D4"), sq("F4")}
    cells = {cell.name: cell for cell in c.cells()}
    assert cells["E4"].selected and cells["E5"].target and not cells["E6"].target
    assert c.click(sq("E2")) == SWITCHED and c.selected == sq("E2")
    assert c.click(sq("E5")) == REFUSED and "blocked on E4" in c.message and c.selected == sq("E2")
    assert c.click(sq("E2")) == CANCELLED and not c.targets
    assert c.click(sq("E4")) == SELECTED
    assert c.click(sq("E6")) == REFUSED and "one square at a time" in c.message  # the engine's reason
    assert c.click(sq("E5")) == MOVED and c.computer_to_move and c.selected is None
    assert c.log[-1].text == "1. You (Red): E4-E5"
    assert c.click(sq("E5")) == IGNORED  # the computer's turn


def test_repetition_refusals_carry_the_engines_reason() -> None:
    c = scripted("A1:rF E4:r5 J10:bF J9:b4")
    for mine, theirs in [("E4-E5", "J9-J8"), ("E5-E4", "J8-J9"), ("E4-E5", "J9-J8")]:
        a, b = mine.split("-")
        c.click(sq(a))
        assert c.click(sq(b)) == MOVED
        c.state.push_checked(theirs)  # the computer's side, played by the test
    assert c.click(sq("E5")) == SELECTED and sq("E4") not in c.targets
    assert c.click(sq("E4")) == REFUSED and "two-square rule" in c.message


def test_battles_in_the_log_and_revealed_pieces() -> None:
    c = scripted("A1:rF E4:r8 J10:bF E5:b7 H8:b2")
    c.click(sq("E4"))
    c.click(sq("E5"))
    entry = c.log[-1]
    assert entry.battle is not None
    assert entry.text == "1. You (Red): E4xE5 — Red Colonel (8) attacks Blue Major (7) on E5: the Colonel wins"
    cells = {cell.name: cell for cell in c.cells()}
    assert cells["E5"].battle and cells["E5"].last and cells["E4"].last
    assert cells["H8"].label == "?" and cells["H8"].piece is None


def test_moved_enemy_pieces_are_marked_and_scout_runs_revealed() -> None:
    c = scripted("A1:rF B2:r3 J10:bF F9:b2 J5:b4")
    c.click(sq("B2"))
    c.click(sq("B3"))
    c.state.push_checked("F9-F6")  # the computer's Scout runs three squares
    cells = {cell.name: cell for cell in c.cells()}
    assert cells["F6"].moved and cells["F6"].revealed and cells["F6"].piece == "Scout"
    assert not cells["J5"].moved and cells["J5"].label == "?"


def test_quiet_move_warning() -> None:
    c = scripted("A1:rF E4:r5 J10:bF J9:b4", quiet=179)
    assert c.warning == ""
    c.click(sq("E4"))
    c.click(sq("E5"))
    assert "Draw warning: 20 more moves" in c.warning
    c.state.push_checked("J9-J8")
    assert "19 more moves" in c.warning


def test_the_end_reveals_everything_and_names_the_result() -> None:
    c = scripted("A1:rF E4:r8 E5:bF H8:b2")
    c.click(sq("E4"))
    c.click(sq("E5"))
    assert c.phase == OVER and c.result_text() == "you win (flag captured)"
    assert "Game over" in c.message and "Game over: you win" in c.status()
    assert {cell.name: cell.piece for cell in c.cells() if cell.owner == BLUE} == {"H8": "Scout"}
    assert not c.in_progress and c.new_game()  # no question after the end


def test_beliefs_come_from_the_computers_view() -> None:
    c = PlayController("barrage", "medium", seed=8)
    assert c.beliefs() == {}
    c.begin()
    beliefs = c.beliefs()
    assert set(beliefs) == set(c.state.squares(RED))
    for probs in beliefs.values():
        assert sum(probs.values()) == pytest.approx(1.0)
    assert all(cell.belief == "" for cell in c.cells())
    c.show_beliefs = True
    own = [cell for cell in c.cells() if cell.owner == RED]
    # A guess is drawn only where the computer has a real idea (it is at least BELIEF_SHOWN sure) ...
    for cell in own:
        top = max(beliefs[cell.square].values())
        if top >= BELIEF_SHOWN:
            assert cell.belief_level in (1, 2, 3) and cell.belief.endswith(f"{top:.0%}"), cell
        else:
            assert not cell.belief and not cell.belief_level and "no real idea" in cell.hint, cell
    assert any(cell.belief for cell in own) and any(not cell.belief for cell in own)
    assert all(cell.belief == "" for cell in c.cells() if cell.owner == BLUE)
    # ... and at easy level, where nearly every piece reads "Bomb 21%", nothing is drawn before it learns more
    easy = PlayController("classic", "easy", seed=3)
    easy.begin()
    easy.show_beliefs = True
    assert not any(cell.belief for cell in easy.cells())
    assert PlayController("pocket", "random").beliefs() == {}


# -- new game, save, restore ---------------------------------------------------------------------------------


def test_new_game_asks_while_a_match_runs() -> None:
    c = PlayController(seed=10)
    assert c.new_game(level="medium") and c.phase == SETUP and c.seed == 11  # nothing to lose: no question
    c.begin()
    c.click(c.movable()[0])
    c.click(c.targets[0])
    state = c.state.copy()
    assert not c.new_game(ruleset="pocket")
    assert c.pending is not None and c.pending.action == "new game" and c.phase == PLAY
    assert not c.confirm(False)
    assert c.pending is None and c.phase == PLAY and c.state == state and "Kept" in c.message
    assert not c.new_game(ruleset="pocket")
    assert c.confirm(True)
    assert c.phase == SETUP and c.ruleset == sl.POCKET and c.log == [] and c.pending is None
    assert not c.confirm(True)  # nothing pending


def started(seed: int = 12, plies: int = 6) -> PlayController:
    c = PlayController("classic", "easy", seed=seed)
    c.begin()
    rng = random.Random(seed)
    while len(c.log) < plies:
        if c.computer_to_move:
            c.computer_reply()
        else:
            c.click(rng.choice(c.movable()))
            c.click(rng.choice(c.targets))
    return c


def test_save_and_restore_a_running_match(tmp_path: Path) -> None:
    c = started()
    path = tmp_path / "match.sgn"
    assert c.save(path) and "Saved" in c.message
    again = PlayController("pocket", "random")
    assert again.restore(path), again.message
    assert again.state == c.state and again.phase == PLAY and again.level == "easy" and again.seed == 12
    assert [e.text for e in again.log] == [e.text for e in c.log]
    # the restored match goes on exactly as the original would
    for ctl in (c, again):
        if ctl.computer_to_move:
            ctl.computer_reply()
        rng = random.Random(0)
        ctl.click(rng.choice(ctl.movable()))
        ctl.click(rng.choice(ctl.targets))
        ctl.computer_reply()
    assert again.state == c.state


def test_a_running_match_keeps_the_computers_setup_out_of_plain_view(tmp_path: Path) -> None:
    """Export and the saved file hide the computer's setup and the seed while the match is on, restore is still
    exact, and after the end both give the complete record."""
    c = started()
    path = tmp_path / "match.sgn"
    assert c.save(path)
    blue = next(line for line in sl.write_game(c.game()).splitlines() if line.startswith("[BlueSetup"))
    for text in (path.read_text(), c.export()):
        assert "[BlueSetup" not in text and "[Seed" not in text and '[Sealed "' in text
        assert "[RedSetup" in text  # the player's own setup is theirs to see
        assert blue.split('"')[1] not in text
    again = PlayController("pocket", "random")
    assert again.restore(path), again.message
    assert again.state == c.state and again.seed == c.seed and again.phase == PLAY
    path.write_text(path.read_text().replace('[Sealed "', '[Sealed "~~'))
    assert not again.restore(path, confirm=True) and "[Sealed] header is damaged" in again.message
    play_out(c, random.Random(3))
    assert c.phase == OVER
    assert blue in c.export() and "Sealed" not in c.export()
    assert c.save(path) and blue in path.read_text()


def test_take_back_your_move_and_the_reply(tmp_path: Path) -> None:
    c = PlayController("classic", "easy", seed=4)
    c.begin()
    assert not c.can_take_back
    with pytest.raises(ValueError, match="you have not moved yet"):
        c.take_back()
    before = c.state.copy()
    first = c.movable()[0]
    c.click(first)
    c.click(c.targets[0])
    reply = c.computer_reply()
    assert reply is not None and c.can_take_back
    c.take_back()
    assert c.state == before and c.log == [] and c.human_to_move
    assert "Took back your move" in c.message and str(reply.move) in c.message
    # the record says so: the taken-back moves are a variation marked "taken back"
    game = c.game()
    (taken,) = game.variations
    assert taken.starting_comment == "taken back" and [taken.move, *taken.mainline_moves()] == \
        [Move(first, c.taken_back[0][1][0].to_square), reply.move]
    # play on, differently; the beliefs follow the new moves, not the old ones of the same number
    c.show_beliefs = True
    c.click(c.movable()[-1])
    c.click(c.targets[-1])
    c.computer_reply()
    assert c.beliefs() == c.opponent.beliefs(c.state.view(c.computer))
    path = tmp_path / "m.sgn"
    assert c.save(path)
    again = PlayController()
    assert again.restore(path) and again.taken_back == c.taken_back and again.state == c.state


def test_resign_asks_then_ends_the_match(tmp_path: Path) -> None:
    c = started()
    assert not c.resign() and c.pending is not None and c.phase == PLAY
    assert c.confirm(False) is False and c.phase == PLAY
    c.resign()
    assert c.confirm(True) and c.phase == OVER
    assert c.outcome == sl.Outcome(sl.Termination.RESIGNATION, BLUE)
    assert c.result_text() == "the computer wins: you resigned" and "resigned" in c.status()
    assert all(cell.piece is not None for cell in c.cells() if cell.owner is not None)  # everything revealed
    game = sl.read_game(c.export())
    assert game.result == "0-1" and game.headers["Termination"] == "resignation"
    path = tmp_path / "m.sgn"
    assert c.save(path)
    again = PlayController()
    assert again.restore(path) and again.phase == OVER and again.outcome == c.outcome


def test_a_hint_thinks_from_the_players_view_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import strategolab.players as players

    c = started()
    seen: list[View] = []
    real = players.make_player

    def adviser(spec: str, seed: int = 0):  # -> Player
        player = real(spec, seed)
        choose = player.choose_move

        def spy(view: View) -> Move:
            seen.append(view)
            return choose(view)

        player.choose_move = spy  # type: ignore[method-assign]
        return player

    monkeypatch.setattr(players, "make_player", adviser)
    hint = c.hint()
    assert len(seen) == 1 and isinstance(seen[0], View) and seen[0].player == RED
    assert hint.move in c.state.legal_moves and c.state.turn == RED  # nothing was played
    assert hint.reason.startswith(f"In your place the computer would play {hint.move}")
    assert "At easy level" in hint.reason and f"would play {hint.move}" in c.message
    assert {cell.square for cell in c.cells() if cell.hinted} == set(hint.move)
    c.click(c.movable()[0])
    assert c.hinted is None and not any(cell.hinted for cell in c.cells())
    c.click(c.targets[0])
    with pytest.raises(ValueError, match="wait for the computer"):
        c.hint()


def test_captured_pieces_of_both_sides() -> None:
    c = scripted("A1:rF E4:r5 E6:rB J10:bF E5:b4 H8:b3 A9:bB")
    assert c.captured() == {RED: [], BLUE: []}
    c.click(sq("E4"))
    assert c.click(sq("E5")) == MOVED  # Lieutenant takes the Sergeant
    assert c.captured() == {RED: [], BLUE: ["Sergeant"]}


def test_messages_say_things_once_and_never_name_a_temporary_file(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    c = scripted("A1:rF B1:rB E4:rX J10:bF E6:b5")
    assert c.click(sq("B1")) == REFUSED
    assert c.message.lower().count("bomb on b1") == 1 and c.message.endswith(".")
    assert c.click(sq("C5")) == REFUSED and "C5 is a lake" in c.message
    c.click(sq("E4"))
    assert c.click(sq("E5")) == MOVED and c.message == "The computer is thinking…"  # not the log line again
    c.computer_reply()
    assert c.message == "Your move."
    assert not c.save(tmp_path / "missing" / "m.sgn")
    assert f"there is no folder {tmp_path / 'missing'}" in c.message and ".tmp" not in c.message
    tmp = str(tmp_path / ".m.sgn.x1y2.tmp")

    def full(*args: object) -> None:
        raise OSError(28, "No space left on device", tmp)

    monkeypatch.setattr(os, "replace", full)
    assert not c.save(tmp_path / "m.sgn")
    assert "No space left on device" in c.message and tmp not in c.message and ".tmp" not in c.message


def test_the_opponent_is_any_player_factory() -> None:
    made: list[tuple[str, int]] = []

    def factory(level: str, seed: int) -> RandomPlayer:
        made.append((level, seed))
        return RandomPlayer(seed)

    c = PlayController("pocket", "bot", seed=9, opponent=factory)
    assert isinstance(c.opponent, RandomPlayer) and made == [("bot", 9)]
    c.begin()
    play_out(c, random.Random(2), max_plies=20)
    assert c.new_game() is False and c.confirm(True) and made[-1] == ("bot", 10)
    with pytest.raises(TypeError, match="not callable"):
        PlayController(opponent="hard")  # type: ignore[arg-type]


def test_restore_asks_before_replacing_a_running_match(tmp_path: Path) -> None:
    saved = started(seed=20)
    path = tmp_path / "saved.sgn"
    saved.save(path)
    c = started(seed=21)
    state = c.state.copy()
    assert not c.restore(path) and c.pending is not None and c.pending.action == "restore"
    assert c.state == state
    assert c.confirm(True) and c.state == saved.state and c.pending is None


@pytest.mark.parametrize("content", [None, "not a record at all", '[Ruleset "classic"]\n\n1. E4-E5 *\n',
                                     '[Human "Green"]\n[Ruleset "pocket"]\n[RedSetup "153241/M3F2M1"]\n'
                                     '[BlueSetup "12M3F1/5432M1"]\n\n*\n'])
def test_a_failed_restore_changes_nothing(tmp_path: Path, content: str | None) -> None:
    path = tmp_path / "bad.sgn"
    if content is not None:
        path.write_text(content)
    c = started()
    state, log = c.state.copy(), list(c.log)
    assert not c.restore(path, confirm=True)
    assert c.message.startswith("Could not restore") and c.message_kind == "error"
    assert c.state == state and c.log == log and c.phase == PLAY
    c.click(c.movable()[0])
    assert c.click(c.targets[0]) == MOVED  # still playable


def test_a_failed_save_keeps_the_old_file_and_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    c = started()
    path = tmp_path / "match.sgn"
    assert c.save(path)
    old = path.read_text()
    c.click(c.movable()[0])
    c.click(c.targets[0])
    c.computer_reply()
    state = c.state.copy()
    monkeypatch.setattr(os, "replace", failing("disk full"))  # the last step of the atomic write fails
    assert not c.save(path)
    assert "Could not save" in c.message and "disk full" in c.message and c.message_kind == "error"
    monkeypatch.undo()
    assert path.read_text() == old  # the old file is whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["match.sgn"]  # no temporary file left behind
    assert not c.save(tmp_path / "no" / "such" / "folder.sgn")  # an unwritable place
    assert not c.save(tmp_path)  # a folder, not a file
    assert c.state == state and c.phase == PLAY
    if c.computer_to_move:
        c.computer_reply()
    c.click(c.movable()[0])
    assert c.click(c.targets[0]) == MOVED  # the game goes on


def failing(message: str):  # -> Callable[..., NoReturn]
    """A stand-in for ``os.replace`` that fails: the last step of an atomic write."""

    def replace(*args: object) -> None:
        raise OSError(message)

    return replace


def test_nothing_to_save_or_export_before_the_match(tmp_path: Path) -> None:
    c = PlayController()
    assert not c.save(tmp_path / "x.sgn") and "begin the match" in c.message
    with pytest.raises(ValueError, match="has not begun"):
        c.export()


# -- replay -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def record() -> sl.Game:
    """A finished classic game with a comment, marks and a nested variation."""
    state = play_game(make_player("easy", 1), make_player("easy", 2), "classic", seed=4)
    game = sl.Game.from_state(state, {"Red": "easy", "Blue": "easy", "Result": state.outcome().result()})
    game.comment = "A game for the tests."
    first = game.next()
    first.comment = "Red opens."
    first.add_mark("!?")
    reply = first.next()
    alternative = next(m for m in first.state().generate_legal_moves() if m != reply.move)
    branch = first.add_variation(alternative, comment="Or this.")
    branch.add_line(branch.state().generate_legal_moves()[:1])
    return game


def test_stepping_through_a_whole_record(record: sl.Game) -> None:
    c = ReplayController(sl.read_game(sl.write_game(record)))
    assert c.index == 0 and c.length == len(record.mainline())
    states = [record.start]
    for move in record.mainline_moves():
        states.append(states[-1].copy())
        states[-1].push(move)
    for perspective in (RED, BLUE, None):
        c.set_perspective(perspective)
        c.first()
        while True:
            state = states[c.index]
            pos = c.position()
            if perspective is None:
                assert pos == state
            else:
                assert pos.board == state.view(perspective).board
                assert not hidden_leaks(c.cells(), state, perspective)
            if c.index % 50 == 0:
                assert [e.current for e in c.moves()].count(True) == (c.index > 0)
            if c.index == c.length:
                break
            c.next()
    assert c.describe().endswith(f"Game over: {states[-1].outcome()}.")
    c.prev()
    assert c.index == c.length - 1 and c.position() == states[-2]
    c.goto(10_000)
    assert c.index == c.length
    c.goto(-5)
    assert c.index == 0 and c.describe().startswith("Start position")


def test_views_match_the_records_own_views(record: sl.Game) -> None:
    c = ReplayController(record)
    for i in (0, 1, 2, 17, c.length):
        c.goto(i)
        for side in (RED, BLUE):
            c.set_perspective(side)
            assert c.position().board == c.node.view(side).board
    c.set_perspective("all")
    assert c.perspective is None
    with pytest.raises(ValueError, match="perspective"):
        c.set_perspective("green")


def test_move_list_comments_marks_and_variations(record: sl.Game) -> None:
    c = ReplayController(record)
    entries = c.moves()
    assert entries[0].text.startswith("1. ") and entries[0].text.endswith(" !?")
    assert entries[0].comment == "Red opens."
    assert entries[1].alternatives == 1
    c.goto(1)
    assert c.mark() == "!?" and len(c.choices()) == 2 and "(main)" not in c.choices()[0]
    c.follow(1)
    assert c.index == 2 and not c.node.is_mainline() and c.node.comment == "Or this."
    assert c.length == 3 and c.moves()[1].current
    c.main_line()
    assert c.index == 1 and c.length == len(record.mainline())


def test_annotate_and_save_atomically(record: sl.Game, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "two.sgn"
    other = sl.Game.from_state(State.random("pocket", seed=1), {"Event": "the other game"})
    sl.write_games([other, sl.read_game(sl.write_game(record))], path)
    c = ReplayController.from_file(path, index=1)
    assert len(c.game_labels()) == 2 and c.game_index == 1 and c.kind == "notation"
    c.goto(3)
    c.annotate("The key moment.", "??")
    with pytest.raises(ValueError, match="judges a move"):
        c.first()
        c.annotate(mark="!")
    c.annotate("Before the first move.")
    assert c.dirty
    original = path.read_text()
    assert not c.save(path) and c.pending is not None and "already exists" in c.message  # asks first
    monkeypatch.setattr(os, "replace", failing("no space"))
    assert not c.confirm() and "no space" in c.message and c.dirty
    monkeypatch.undo()
    assert path.read_text() == original and sorted(p.name for p in tmp_path.iterdir()) == ["two.sgn"]
    assert not c.save(path) and c.confirm(True) and not c.dirty and "Saved 2 games" in c.message
    games = list(sl.read_games(path))
    assert games[0] == other  # the other game of the file is kept
    assert games[1].comment == "Before the first move."
    node = games[1].mainline()[2]
    assert node.comment == "The key moment." and node.marks == {4}
    again = ReplayController.from_file(path, index=1)
    again.goto(3)
    assert again.mark() == "??"
    again.annotate(mark="")
    assert again.mark() == ""


def test_open_failures_keep_the_current_record(record: sl.Game, tmp_path: Path) -> None:
    c = ReplayController(record)
    c.goto(5)
    bad = tmp_path / "bad.sgn"
    bad.write_text('[Ruleset "classic"]\n\n1. E4-E5 *\n')
    for path in (tmp_path / "missing.sgn", bad, tmp_path / "empty.sgn"):
        if path.name == "empty.sgn":
            path.write_text("")
        assert not c.open(path) and c.message.startswith("Could not open") and c.message_kind == "error"
        assert c.game is record and c.index == 5
    sl.write_games([record], tmp_path / "one.sgn")
    assert not c.open(tmp_path / "one.sgn", index=3) and "has 1 games" in c.message
    with pytest.raises(sl.StrategolabError):
        ReplayController.from_file(bad)
    assert record_files(tmp_path) == sorted(tmp_path / n for n in ("bad.sgn", "empty.sgn", "one.sgn"))
    assert record_files(tmp_path / "nowhere") == []


def test_board_cells_never_show_hidden_pieces() -> None:
    state = make("A1:rF E4:rX J10:bF E7:b9 H8:b2'!")
    for viewer in (RED, BLUE):
        cells = board_cells(state.view(viewer), viewer)
        assert len(cells) == 100 and sum(cell.lake for cell in cells) == 8
        assert not hidden_leaks(cells, state, viewer)
    red = {cell.name: cell for cell in board_cells(state.view(RED), RED)}
    assert red["E7"].label == "?" and red["H8"].label == "2" and red["H8"].moved and red["H8"].revealed
    assert red["E4"].hint == "E4: your Marshal (10)" and red["E7"].hint == "E7: Blue's unknown piece"


# -- nothing the user made is lost --------------------------------------------------------------------------------

SHIPPED = Path(__file__).resolve().parents[1] / "data" / "games"


def three_games(folder: Path) -> Path:
    """Three shipped records concatenated into one file, as a user would collect them."""
    path = folder / "three.sgn"
    names = ("spy-takes-marshal.sgn", "scout-run.sgn", "chase.sgn")
    path.write_text("\n".join((SHIPPED / n).read_text() for n in names))
    return path


def test_a_default_save_goes_to_the_users_folder_never_over_the_shipped_record(user_games_folder: Path) -> None:
    shipped = SHIPPED / "spy-takes-marshal.sgn"
    original = shipped.read_bytes()
    c = ReplayController.from_file(shipped)
    c.goto(2)
    c.annotate("My note.")
    assert c.default_save_path() == user_games_folder / "spy-takes-marshal.sgn"
    assert c.save() and shipped.read_bytes() == original
    assert sl.read_game(user_games_folder / "spy-takes-marshal.sgn").mainline()[1].comment == "My note."
    c.annotate("A second thought.")
    assert c.save() and c.pending is None  # its own file again: no question
    other = ReplayController.from_file(shipped)
    other.annotate("Another user's note.")
    assert other.default_save_path() == user_games_folder / "spy-takes-marshal-2.sgn"  # never over a file
    assert other.save() and shipped.read_bytes() == original


def test_the_open_file_is_recognised_however_it_is_spelled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "dir").mkdir()
    monkeypatch.chdir(tmp_path / "dir")
    three_games(tmp_path / "dir")
    c = ReplayController.from_file("three.sgn", index=1)
    c.goto(1)
    c.annotate("Kept with its two neighbours.")
    assert not c.save(Path("three.sgn").resolve()) and c.pending is not None and "3 games" in c.pending.question
    assert c.confirm() and "Saved 3 games" in c.message
    for spelling in ("../dir/three.sgn", "./three.sgn", tmp_path / "dir" / ".." / "dir" / "three.sgn"):
        c.annotate(f"Saved as {spelling}.")
        assert c.save(spelling) and c.pending is None and "Saved 3 games" in c.message  # asked once for it
        games = list(sl.read_games(tmp_path / "dir" / "three.sgn"))
        assert len(games) == 3 and games[1].mainline()[0].comment == f"Saved as {spelling}."


def test_saving_over_any_existing_file_asks_and_no_keeps_it(tmp_path: Path, record: sl.Game) -> None:
    precious = tmp_path / "precious.sgn"
    precious.write_text("not a record, but the user's\n")
    c = ReplayController(sl.read_game(sl.write_game(record)))
    c.annotate("Hello.")
    assert not c.save(precious) and c.pending is not None and c.pending.action == "save"
    assert not c.confirm(False) and c.dirty
    assert precious.read_text() == "not a record, but the user's\n"
    assert not c.save(precious) and c.confirm(True) and sl.read_game(precious).comment == "Hello."


def test_in_memory_and_gravon_games_get_names_of_their_own(user_games_folder: Path, record: sl.Game) -> None:
    names = []
    for _ in range(2):
        c = ReplayController(sl.read_game(sl.write_game(record)))
        c.annotate("Saved by default.")
        assert c.save(), c.message
        names.append(Path(c.message.rpartition(" to ")[2].rstrip(".")).name)
    assert names == ["annotated.sgn", "annotated-2.sgn"]
    event = sl.read_game(sl.write_game(record))
    event.headers["Event"] = "Club final: round 2"
    assert ReplayController(event).default_save_path().name == "club-final-round-2.sgn"


def test_saves_write_through_symbolic_and_hard_links(tmp_path: Path, record: sl.Game) -> None:
    real = tmp_path / "real.sgn"
    sl.write_games([record], real)
    (tmp_path / "link.sgn").symlink_to(real)
    os.link(real, tmp_path / "hard.sgn")
    for name, comment in (("link.sgn", "Through the symbolic link."), ("hard.sgn", "Through the hard link.")):
        c = ReplayController.from_file(tmp_path / name)
        c.annotate(comment)
        assert not c.save(tmp_path / name) and c.confirm(), c.message
        assert sl.read_game(real).comment == comment
    assert (tmp_path / "link.sgn").is_symlink() and real.stat().st_nlink == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hard.sgn", "link.sgn", "real.sgn"]  # no temp left


def test_a_comment_typed_but_not_kept_survives_stepping(record: sl.Game) -> None:
    c = ReplayController(sl.read_game(sl.write_game(record)))
    c.goto(4)
    c.edit("Typed, never kept.")
    c.edit(mark="?")
    assert c.dirty and c.has_draft
    c.next()
    assert "Kept your annotation of move 4" in c.message
    c.prev()
    assert c.node.comment == "Typed, never kept." and c.mark() == "?" and not c.has_draft
    c.goto(6)
    c.edit(c.node.comment.replace(" ", "\n"))  # what was there, only wrapped: nothing to keep
    revision = c.revision
    c.next()
    assert c.revision == revision and not c.has_draft


def test_opening_another_record_asks_while_annotations_are_unsaved(tmp_path: Path, record: sl.Game) -> None:
    c = ReplayController(sl.read_game(sl.write_game(record)))
    c.goto(2)
    c.edit("Not saved anywhere yet.")
    other = SHIPPED / "scout-run.sgn"
    assert not c.open(other) and c.pending is not None and "not saved" in c.message
    assert not c.confirm(False) and c.game.mainline()[1].comment == "Not saved anywhere yet."
    assert not c.open(other) and c.confirm(True) and c.source == other and not c.dirty
    c.annotate("Saved next.")
    assert c.save(tmp_path / "scout.sgn") and c.open(SHIPPED / "chase.sgn")  # saved: no question


def test_the_game_browser_filters_and_sorts(tmp_path: Path) -> None:
    c = ReplayController.from_file(three_games(tmp_path))
    rows = c.catalog()
    assert [r.name for r in rows] == ["Lesson: the Spy and the Marshal", "Lesson: the Scout's run",
                                      "Lesson: the chasing rule"]
    assert [(r.result, r.ending) for r in rows] == [("1-0", "no legal move"), ("1-0", "flag captured"),
                                                    ("1/2-1/2", "agreed draw")]
    assert all(r.variant == "classic" for r in rows)
    assert [r.index for r in c.find_games(sort="longest")] == sorted(range(3), key=lambda i: -rows[i].moves)
    assert c.find_games(ending="no legal move") == [r for r in rows if r.ending == "no legal move"]
    assert c.find_games(min_moves=rows[0].moves + 1, max_moves=10_000) == [r for r in rows if r.moves > rows[0].moves]
    assert c.find_games(variant="barrage") == [] and c.find_games(result="1-0")[0].result == "1-0"
    with pytest.raises(ValueError, match="sort="):
        c.find_games(sort="colour")
    with pytest.raises(ValueError, match="min_moves"):
        c.find_games(min_moves=-1)


def test_titles_endings_and_comments_read_well(tmp_path: Path) -> None:
    c = ReplayController.from_file(SHIPPED / "spy-takes-marshal.sgn")
    assert c.title() == "Lesson: the Spy and the Marshal"  # no "? (Red) vs ? (Blue)"
    assert "\n" in c.game.comment and "\n" not in reflow(c.game.comment)  # the file's line breaks go
    c.last()
    assert c.describe().endswith("Game over: Red wins (no legal move).")
    assert c.ending() == "Game over: Red wins (no legal move)."
    c.goto(c.length - 1)
    c.follow(1)  # the variation: its opening words are shown with the move they lead to
    assert c.notes() == "Waiting one move more is a blunder: 43. A4-A5 ?"
    assert c.moves()[c.index - 1].text == "43. A4-A5 ?"
    assert reflow("one\ntwo  three\n\n\nnext\n") == "one two three\n\nnext"
    nameless = sl.read_game(sl.write_game(c.game))
    del nameless.headers["Event"]
    path = tmp_path / "nameless.sgn"
    sl.write_games([nameless], path)
    assert ReplayController.from_file(path).title() == "nameless.sgn"


# -- Gravon -----------------------------------------------------------------------------------------------------

needs_archive = pytest.mark.skipif(not any(ARCHIVE.glob("*.zip")) if ARCHIVE.is_dir() else True,
                                   reason=f"the shared Gravon archive is not at {ARCHIVE}")


@needs_archive
def test_a_gravon_zip_pick_a_game_and_replay_it(tmp_path: Path) -> None:
    zipfile = sorted(ARCHIVE.glob("*.zip"))[0]
    c = ReplayController.from_file(zipfile, index=3)
    labels = c.game_labels()
    assert len(labels) > 100 and c.kind == "gravon" and c.game_index == 3
    assert labels[3].split(" — ")[0].endswith(".xml")
    c.last()
    assert c.index == c.length > 0
    c.set_perspective("blue")
    assert not hidden_leaks(c.cells(), c.node.state(), BLUE)
    c.choose_game(5)
    assert c.index == 0 and c.game_index == 5
    c.annotate("Annotated from the archive.")
    target = tmp_path / "gravon.sgn"
    assert c.save(target), c.message
    back = ReplayController.from_file(target)
    assert back.game.comment == "Annotated from the archive." and back.game.ruleset.name.startswith("gravon-")
    assert back.length == c.length


@needs_archive
def test_gravon_records_keep_the_moves_the_engine_accepts() -> None:
    g = next(iter(read_gravon(sorted(ARCHIVE.glob("*.zip"))[0], types={"classic"})))
    game = gravon_game(g)
    assert len(game.mainline()) == len(g.moves)
    broken = type(g)(g.source, g.game_type, g.field, (*g.moves[:4], (g.moves[0][0], g.moves[0][0] + 99)))
    cut = gravon_game(broken)
    assert len(cut.mainline()) == 4 and "move 5" in cut.comment and cut.result == "*"
    assert sl.read_game(sl.write_game(cut), rulesets=[cut.ruleset]) == cut


@needs_archive
def test_a_gravon_game_says_why_it_ended_and_the_browser_finds_players() -> None:
    c = ReplayController.from_file(sorted(ARCHIVE.glob("*.zip"))[0])
    rows = c.catalog()
    resigned = c.find_games(ending="resigned")
    assert resigned and all(r.ending == "resigned" for r in resigned)
    c.choose_game(resigned[0].index)
    c.last()
    assert c.describe().endswith(".") and "Game over" in c.describe() and "resigned" in c.describe()
    name = next(r.red for r in rows if r.red)
    found = c.find_games(player=name.upper()[:4])
    assert found and all(name.upper()[:4].casefold() in (r.red + r.blue).casefold() for r in found)
    assert "?" not in c.title()
