"""The notebook widgets without a browser: pressing their buttons calls the controllers and redraws.

A button press in a test is ``button.click()``, exactly what ipywidgets runs when the browser reports a click
(or an Enter or Space on a focused button).  What a square shows is read back from its text and CSS classes,
the stable names the browser test clicks.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib")

import ipywidgets as w
from conftest import make

import strategolab as sl
from strategolab import BLUE, RED, parse_square, square_name
from strategolab.controllers import OVER, PLAY, SETUP, PlayController, ReplayController
from strategolab.players import make_player, play_game
from strategolab.widgets import GUARD_CLASS, KEYS_JS, BoardView, PlayWidget, ReplayWidget, guard_keys

sq = parse_square


def classes(widget: w.DOMWidget) -> set[str]:
    return set(widget._dom_classes)


def press(board: BoardView, name: str) -> None:
    board.buttons[sq(name)].click()


def visible(widget: w.DOMWidget) -> bool:
    return widget.layout.display != "none"


# -- play ---------------------------------------------------------------------------------------------------


def test_the_board_is_a_grid_of_native_buttons_with_stable_classes() -> None:
    pw = PlayWidget(PlayController("classic", seed=1))
    buttons = pw.board.buttons
    assert len(buttons) == 100 and all(isinstance(b, w.Button) for b in buttons.values())
    for name, button in ((n, buttons[sq(n)]) for n in ("A1", "C5", "J10")):
        assert {"sl-square", f"sl-square-{name}"} <= classes(button)
    assert "sl-lake" in classes(buttons[sq("C5")])
    # One stop in the Tab order (the bottom-left square); the cursor reaches every square, lakes too.
    assert [n for n, b in ((square_name(s), b) for s, b in buttons.items()) if b.tabbable is not False] == ["A1"]
    assert not any(b.disabled for b in buttons.values())
    assert not buttons[sq("E6")].disabled and "sl-empty" in classes(buttons[sq("E6")])
    assert "sl-zone-blue" in classes(buttons[sq("E8")])  # the computer's rows are empty while deploying
    # Red (the human) at the bottom: the grid lists row 10 first, and the first square after its label is A10
    assert pw.board.children[1] is buttons[sq("A10")]
    for css in ("sl-begin", "sl-shuffle", "sl-setup-choice", "sl-ruleset", "sl-level", "sl-side", "sl-first",
                "sl-new-game", "sl-save", "sl-restore", "sl-export", "sl-path", "sl-beliefs", "sl-log", "sl-status",
                "sl-message", "sl-confirm-yes", "sl-confirm-no"):
        assert any(css in classes(x) for x in walk(pw)), css


def test_every_control_is_kept_from_jupyterlab_shortcuts() -> None:
    """The app and its board carry the guard class, and the page gets the script that applies it."""
    pw = PlayWidget(PlayController("classic", seed=1))
    assert GUARD_CLASS in classes(pw) and GUARD_CLASS in classes(pw.board)
    scripts = [x for x in walk(pw) if isinstance(x, w.Output) and "sl-keys-script" in classes(x)]
    assert scripts and all(x.outputs[0]["data"]["text/html"] == f"<script>{KEYS_JS}</script>" for x in scripts)
    assert "data-lm-suppress-shortcuts" in KEYS_JS
    box = w.HBox()
    guard_keys(box)
    assert GUARD_CLASS in classes(box)


def walk(widget: w.Widget):  # -> Iterator[w.Widget]
    yield widget
    for child in getattr(widget, "children", ()):
        yield from walk(child)


def test_deployment_by_clicks_and_ready_made_setups() -> None:
    c = PlayController("classic", seed=2)
    pw = PlayWidget(c)
    a1, b2 = pw.board.buttons[sq("A1")], pw.board.buttons[sq("B2")]
    before = (a1.description, b2.description)
    press(pw.board, "A1")
    assert "sl-selected" in classes(a1)
    press(pw.board, "B2")
    assert (b2.description, a1.description) == before and "sl-selected" not in classes(a1)
    assert "Swapped A1 and B2" in pw.message.value
    pw.shuffle.click()
    assert "Shuffled" in pw.message.value
    name = pw.setup_choice.options[1][1]
    pw.setup_choice.value = name
    assert name in pw.message.value and pw.setup_choice.value == name  # the dropdown shows the setup in use
    press(pw.board, "A1")
    press(pw.board, "B2")
    assert pw.setup_choice.value == ""  # changed by hand: no longer the ready-made one
    pw.ruleset.value = "pocket"
    assert c.ruleset == sl.POCKET and len(pw.board.buttons) == 36 and "sl-square-F6" in classes(
        pw.board.buttons[sq("F6")])
    pw.side.value = BLUE
    assert c.human == BLUE and pw.board.children[1] is pw.board.buttons[sq("F1")]  # Blue's seat: row 1 on top
    assert {"sl-blue"} <= classes(pw.board.buttons[sq("A6")]) and pw.board.buttons[sq("A6")].description != "?"


def test_a_move_by_clicks_and_the_computers_answer_in_the_log() -> None:
    c = PlayController("classic", "easy", seed=3)
    pw = PlayWidget(c)
    assert visible(pw.setup_row) and not pw.ruleset.disabled
    pw.begin.click()
    assert c.phase == PLAY and not visible(pw.setup_row) and pw.ruleset.disabled
    assert "your move" in pw.status.value
    movable = [s for s, b in pw.board.buttons.items() if "sl-movable" in classes(b)]
    assert movable == c.movable()
    unknown = [b for b in pw.board.buttons.values() if "sl-unknown" in classes(b)]
    assert len(unknown) == 40 and {b.description for b in unknown} == {"?"}
    piece = pw.board.buttons[movable[0]]
    piece.click()
    assert "sl-selected" in classes(piece)
    targets = [s for s, b in pw.board.buttons.items() if "sl-target" in classes(b)]
    assert targets == sorted(c.targets)
    piece.click()  # again: cancelled
    assert "sl-selected" not in classes(piece) and not any("sl-target" in classes(b) for b in pw.board.buttons.values())
    piece.click()
    pw.board.buttons[targets[0]].click()
    assert len(c.log) == 2 and c.human_to_move  # the computer answered at once
    log = pw.log_view.value
    assert log.count("sl-log-entry") == 2 and "Computer (Blue)" in log and "You (Red)" in log
    assert log.index("Computer (Blue)") < log.index("You (Red)")  # newest first
    last = c.log[-1].move
    assert "sl-last" in classes(pw.board.buttons[last.to_square])


def test_a_refused_move_shows_the_engines_reason() -> None:
    c = PlayController("classic", "random", seed=4)
    pw = PlayWidget(c)
    pw.begin.click()
    c.state = make("A1:rF E4:rX J10:bF E7:b5", turn=RED)
    pw.refresh()
    press(pw.board, "E4")
    press(pw.board, "E6")
    assert "sl-msg-refused" in pw.message.value and "one square at a time" in pw.message.value
    assert "sl-selected" in classes(pw.board.buttons[sq("E4")])
    press(pw.board, "A1")
    assert "Flag on A1 cannot move" in pw.message.value


def test_new_game_and_restore_ask_in_the_widget(tmp_path: Path) -> None:
    c = PlayController("pocket", "easy", seed=5)
    pw = PlayWidget(c, save_path=tmp_path / "m.sgn")
    assert not visible(pw.confirm_row)
    pw.begin.click()
    pw.save.click()
    assert "Saved" in pw.message.value and (tmp_path / "m.sgn").exists()
    pw.new_game.click()
    assert visible(pw.confirm_row) and "Abandon" in pw.confirm_row.question.value and c.phase == PLAY
    pw.confirm_row.no.click()
    assert not visible(pw.confirm_row) and c.phase == PLAY
    pw.new_game.click()
    pw.confirm_row.yes.click()
    assert c.phase == SETUP and not visible(pw.confirm_row) and not pw.ruleset.disabled
    pw.begin.click()
    pw.restore.click()
    assert visible(pw.confirm_row) and "Replace it" in pw.confirm_row.question.value
    pw.confirm_row.yes.click()
    assert "Restored" in pw.message.value and c.phase == PLAY and not visible(pw.confirm_row)


def test_a_failed_save_shows_an_error_and_the_game_goes_on(tmp_path: Path) -> None:
    c = PlayController("pocket", "easy", seed=6)
    pw = PlayWidget(c, save_path=tmp_path / "missing" / "m.sgn")
    assert pw.save.disabled and pw.export.disabled  # nothing to save before the match
    pw.begin.click()
    pw.save.click()
    assert "sl-msg-error" in pw.message.value and "Could not save" in pw.message.value
    piece = pw.board.buttons[c.movable()[0]]
    piece.click()
    pw.board.buttons[c.targets[0]].click()
    assert len(c.log) == 2


def test_export_beliefs_and_the_end() -> None:
    c = PlayController("barrage", "medium", seed=7)
    pw = PlayWidget(c)
    assert pw.beliefs.disabled
    pw.begin.click()
    assert not pw.beliefs.disabled
    pw.beliefs.value = True
    own = [pw.board.buttons[s] for s in c.state.squares(RED)]
    shown = [b for b in own if "sl-belief" in classes(b)]
    assert shown and all("%" in b.description for b in shown)  # only where the computer has a real idea
    assert "the computer has (almost) found it" in pw.legend.value
    assert "sl-reasoning" not in pw.legend.value  # the computer has not moved yet: nothing to explain
    pw.board.buttons[c.movable()[0]].click()
    pw.board.buttons[c.targets[0]].click()
    assert len(c.log) == 2 and "sl-reasoning" in pw.legend.value
    last = c.log[-1].move
    assert f"The computer played {last}" in pw.legend.value and "At medium level" in c.reasoning()
    assert "searched" not in c.reasoning() and "positions" not in c.reasoning()  # a learner's words
    pw.export.click()  # during the match the computer's setup stays sealed
    assert visible(pw.record) and "BlueSetup" not in pw.record.value and "[Sealed" in pw.record.value
    assert "sealed" in pw.message.value
    pw.beliefs.value = False
    assert not any("sl-belief" in classes(b) for b in own) and "sl-reasoning" not in pw.legend.value
    rng = random.Random(1)
    while c.phase == PLAY:
        pw.board.buttons[rng.choice(c.movable())].click()
        pw.board.buttons[rng.choice(c.targets)].click()
    assert c.phase == OVER and "Result:" in pw.log_view.value and "Game over" in pw.status.value
    assert not any("sl-unknown" in classes(b) for b in pw.board.buttons.values())  # all revealed
    assert not visible(pw.record)  # the export of the running match went away with the next move
    pw.export.click()  # after the end: the complete record, both setups in plain text
    assert visible(pw.record) and sl.read_game(pw.record.value).end().state() == c.state
    assert "[BlueSetup" in pw.record.value and "Sealed" not in pw.record.value
    assert visible(pw.replay_button) and not pw.replay_box.children
    pw.replay_button.click()  # one click: the finished game in the replay widget
    (replay,) = pw.replay_box.children
    assert isinstance(replay, ReplayWidget) and replay.controller.game.end().state() == c.state


def test_a_refresh_sends_only_what_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    pw = PlayWidget(PlayController("classic", seed=8))
    sent: list[object] = []
    monkeypatch.setattr(w.Widget, "send_state", lambda self, key=None: sent.append((self, key)))
    pw.refresh()
    assert sent == []
    press(pw.board, "A1")
    touched = {id(x) for x, _ in sent}
    assert id(pw.board.buttons[sq("A1")]) in touched
    assert not touched & {id(b) for s, b in pw.board.buttons.items() if s != sq("A1")}


# -- replay -----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def game() -> sl.Game:
    state = play_game(make_player("easy", 1), make_player("easy", 2), "barrage", seed=3)
    g = sl.Game.from_state(state, {"Red": "A", "Blue": "B"})
    first = g.next()
    first.comment = "First move."
    other = next(m for m in first.state().generate_legal_moves() if m != first.next().move)
    first.add_variation(other)
    return g


def test_replay_steps_and_the_move_list_follows(game: sl.Game) -> None:
    c = ReplayController(game)
    rw = ReplayWidget(c)
    assert rw.moves.value == 0 and rw.slider.max == c.length == rw.autoplay.max
    before = {s: (b.description, classes(b)) for s, b in rw.board.buttons.items()}
    rw.next.click()
    assert c.index == 1 and rw.moves.value == 1 and rw.slider.value == 1
    after = {s: (b.description, classes(b)) for s, b in rw.board.buttons.items()}
    assert before != after and sum("sl-last" in cls for _, cls in after.values()) == 2
    assert "Move 1 of" in rw.info.value and rw.comment_view.value == ""  # the comment is shown once:
    assert rw.comment.value == "First move."
    rw.last.click()
    assert c.index == c.length and rw.moves.value == c.length
    rw.prev.click()
    assert c.index == c.length - 1
    rw.first.click()
    assert c.index == 0
    rw.slider.value = 5
    assert c.index == 5 and rw.moves.value == 5
    rw.moves.value = 2
    assert c.index == 2 and rw.slider.value == 2


def test_replay_perspectives_hide_what_a_side_did_not_know(game: sl.Game) -> None:
    c = ReplayController(game)
    rw = ReplayWidget(c)
    rw.slider.value = 4
    state = c.node.state()
    rw.perspective.value = "red"
    for s, b in rw.board.buttons.items():
        if state.owner_at(s) == BLUE and not state.is_revealed(s):
            assert b.description == "?" and "sl-unknown" in classes(b)
    assert rw.board.children[1] is rw.board.buttons[sq("A10")]
    rw.perspective.value = "blue"
    assert rw.board.children[1] is rw.board.buttons[sq("J1")]  # Blue's seat
    assert all(b.description == "?" for s, b in rw.board.buttons.items()
               if state.owner_at(s) == RED and not state.is_revealed(s))
    rw.perspective.value = "all"
    assert not any("sl-unknown" in classes(b) for b in rw.board.buttons.values())


def test_replay_variations_and_annotations(game: sl.Game, tmp_path: Path) -> None:
    c = ReplayController(sl.read_game(sl.write_game(game)))
    rw = ReplayWidget(c)
    rw.next.click()
    buttons = [b for b in walk(rw.variations) if "sl-variation" in classes(b)]
    assert len(buttons) == 2 and buttons[0].description.endswith("(main)")
    buttons[1].click()
    assert c.index == 2 and not c.node.is_mainline()
    back = [b for b in walk(rw.variations) if "sl-main-line" in classes(b)]
    back[0].click()
    assert c.node.is_mainline()
    rw.slider.value = 3
    rw.comment.value = "Look at this."
    rw.mark.value = "?!"
    rw.keep.click()
    assert c.node.comment == "Look at this." and c.mark() == "?!"
    assert "{…}" in rw.moves.options[3][0] and "?!" in rw.moves.options[3][0]
    rw.save_path.value = str(tmp_path / "out.sgn")
    rw.save.click()
    assert "Saved 1 game" in rw.message.value
    assert sl.read_game(tmp_path / "out.sgn").mainline()[2].comment == "Look at this."


def test_replay_opens_files_and_reports_failures(game: sl.Game, tmp_path: Path) -> None:
    sl.write_games([game, game], tmp_path / "pair.sgn")
    (tmp_path / "notes.txt").write_text("not a record")
    rw = ReplayWidget(folder=tmp_path)
    assert rw.next.disabled and "Open a record" in rw.info.value
    assert [label for label, _ in rw.records.options] == ["Choose a record…", "records: pair.sgn"]
    rw.records.value = str(tmp_path / "pair.sgn")
    c = rw.controller
    assert c.length == len(game.mainline()) and visible(rw.browser) and len(rw.game_choice.options) == 2
    rw.game_choice.value = 1
    assert c.game_index == 1
    rw.next.click()
    rw.path.value = str(tmp_path / "notes.txt")
    rw.open_button.click()
    assert "Could not open" in rw.message.value and c.index == 1  # the open record stays


SHIPPED = Path(__file__).resolve().parents[1] / "data" / "games"


def test_replay_records_list_offers_every_folder(tmp_path: Path, user_games_folder: Path) -> None:
    (tmp_path / "archive").mkdir()
    (tmp_path / "archive" / "strados2-2005-1.zip").write_bytes(b"")
    rw = ReplayWidget(folders={"shipped": SHIPPED, "yours": user_games_folder, "archive": tmp_path / "archive",
                               "absent": tmp_path / "nowhere"})
    labels = [label for label, _ in rw.records.options]
    assert "shipped: spy-takes-marshal.sgn" in labels and "archive: strados2-2005-1.zip" in labels
    assert not any(label.startswith(("yours", "absent")) for label in labels)
    rw.records.value = str(SHIPPED / "spy-takes-marshal.sgn")
    rw.next.click()
    rw.comment.value = "Mine."
    rw.save.click()  # the default: a new file in the user's folder, which the list now offers
    assert "Saved 1 game" in rw.message.value and "yours: spy-takes-marshal.sgn" in [
        label for label, _ in rw.records.options]


def test_replay_a_save_that_would_overwrite_asks(tmp_path: Path, game: sl.Game) -> None:
    target = tmp_path / "mine.sgn"
    target.write_text("precious")
    rw = ReplayWidget(ReplayController(sl.read_game(sl.write_game(game))))
    rw.comment.value = "About the start."
    rw.save_path.value = str(target)
    rw.save.click()
    assert visible(rw.confirm_row) and "already exists" in rw.confirm_row.question.value
    assert target.read_text() == "precious"
    rw.confirm_row.no.click()
    assert not visible(rw.confirm_row) and target.read_text() == "precious"
    rw.save.click()
    rw.confirm_row.yes.click()
    assert not visible(rw.confirm_row) and sl.read_game(target).comment == "About the start."


def test_replay_an_unkept_comment_survives_stepping_and_the_title_reads_well(game: sl.Game) -> None:
    c = ReplayController.from_file(SHIPPED / "spy-takes-marshal.sgn")
    rw = ReplayWidget(c)
    assert "?" not in rw.info.value.split("<br>")[0] and "Lesson: the Spy and the Marshal" in rw.info.value
    assert "\n" not in rw.comment.value  # the record's hard line breaks are reflowed
    rw.next.click()
    rw.comment.value = "Typed, then stepped away."
    rw.mark.value = "?!"
    rw.next.click()
    assert "Kept your annotation of move 1" in rw.message.value
    rw.prev.click()
    assert rw.comment.value == "Typed, then stepped away." and rw.mark.value == "?!"
    rw.last.click()
    assert "Game over: Red wins (no legal move)." in rw.info.value


def test_replay_switching_to_blues_view_redraws_in_place(game: sl.Game) -> None:
    rw = ReplayWidget(ReplayController(game))
    assert "sl-keys" in classes(rw)  # the keyboard guard: JupyterLab's shortcuts stay out of every control
    assert any("sl-replay-keys-script" in classes(x) for x in rw.children)  # the arrow keys step
    red_seat, blue_seat = rw.boards[False], rw.boards[True]
    rw.perspective.value = "blue"
    assert rw.board is blue_seat and visible(blue_seat) and not visible(red_seat)
    built = {id(b) for board in (red_seat, blue_seat) for b in board.buttons.values()}
    for view in ("red", "blue", "all", "blue"):
        rw.next.click()
        rw.perspective.value = view
        assert visible(rw.board) and not visible(rw.boards[view != "blue"])
        assert all(rw.board.buttons[cell.square].description == (cell.text or "\u00a0")
                   for cell in rw.controller.cells())  # the board on show is up to date
    assert {id(b) for board in (red_seat, blue_seat) for b in board.buttons.values()} == built  # never rebuilt
    assert rw.board.children[1] is rw.board.buttons[sq("J1")]


def test_replay_game_browser_filters(tmp_path: Path) -> None:
    path = tmp_path / "four.sgn"
    names = ("spy-takes-marshal.sgn", "scout-run.sgn", "chase.sgn", "pocket-game.sgn")
    path.write_text("\n".join((SHIPPED / n).read_text() for n in names))
    rw = ReplayWidget(ReplayController.from_file(path))
    assert visible(rw.browser) and len(rw.game_choice.options) == 4 and "4 of 4" in rw.game_count.value
    assert [v for _, v in rw.filters["variant"].options] == ["", "classic", "pocket"]
    rw.filters["variant"].value = "pocket"
    assert [v for _, v in rw.game_choice.options] == [3] and "1 of 4" in rw.game_count.value
    rw.filters["variant"].value = ""
    rw.filters["ending"].value = "flag captured"
    assert all("(flag captured)" in label for label, _ in rw.game_choice.options)
    rw.filters["ending"].value = ""
    rw.filters["sort"].value = "longest"
    lengths = [rw.controller.catalog()[i].moves for _, i in rw.game_choice.options]
    assert lengths == sorted(lengths, reverse=True)
    rw.game_choice.value = 3
    assert rw.controller.game_index == 3 and rw.controller.game.ruleset.name == "pocket"

def test_take_back_hint_resign_and_trays_in_the_widget() -> None:
    c = PlayController("classic", "easy", seed=21)
    pw = PlayWidget(c)
    assert not visible(pw.actions) and visible(pw.settings)
    pw.begin.click()
    assert visible(pw.actions) and not visible(pw.settings) and pw.take_back.disabled and not pw.hint.disabled
    assert "You lost:</b> nothing yet" in pw.trays.value and "Marshal" in pw.ranks.value
    assert pw.ranks.value.count("<svg") == 2  # Bomb and Flag drawn as symbols, not letters
    flag = next(b for b in pw.board.buttons.values() if "sl-icon-flag" in classes(b))
    assert flag.description == "F"  # the letter sits small in a corner, as the drawer puts it
    pw.hint.click()
    assert c.hinted is not None and "would play" in pw.message.value and "In your place" in pw.legend.value
    assert {s for s, b in pw.board.buttons.items() if "sl-hint" in classes(b)} == set(c.hinted.move)
    before, move = c.state.copy(), c.hinted.move
    pw.board.buttons[move.from_square].click()  # the hint goes away with the next click
    assert c.hinted is None and not any("sl-hint" in classes(b) for b in pw.board.buttons.values())
    pw.board.buttons[move.to_square].click()
    assert len(c.log) == 2 and not pw.take_back.disabled
    pw.take_back.click()
    assert c.state == before and "Took back" in pw.message.value and pw.take_back.disabled
    pw.resign.click()
    assert visible(pw.confirm_row) and "Resign" in pw.confirm_row.question.value and c.phase == PLAY
    pw.confirm_row.yes.click()
    assert c.phase == OVER and "you resigned" in pw.status.value and visible(pw.replay_button)
    assert not visible(pw.beliefs) and not visible(pw.hint) and not visible(pw.resign)
