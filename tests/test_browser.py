"""The play and replay notebooks in a real browser: JupyterLab served locally, Chromium driven by Playwright.

The server, the browser and the helpers are in ``browser_harness`` (DESIGN.md's recipe); on failure a
screenshot of the page and the server log are kept in the artifacts folder.  The tests skip, saying why,
when Chromium or Playwright is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import browser_harness as harness
import pytest
from browser_harness import Lab, kept_on_failure, open_and_run, serving, square_of

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

harness.require_browser()
browser, page = harness.browser, harness.page  # the fixtures


@pytest.fixture(scope="module")
def lab() -> Iterator[Lab]:
    with serving(Lab) as server:
        yield server


def test_play_notebook_in_the_browser(page: Page, lab: Lab) -> None:
    """Begin a match, select a piece by keyboard, move by clicking, and see the computer's answer in the log."""
    with kept_on_failure(page, lab, "play"):
        play_a_move(page, lab)


def play_a_move(pg: Page, lab: Lab) -> None:
    open_and_run(pg, lab, "play.ipynb")
    pg.click(".sl-play .sl-begin")
    movable = pg.locator(".sl-play .sl-square.sl-movable").first
    movable.wait_for()
    # Begin hands the keyboard focus to the board's cursor (bottom left); wait for it before moving it.
    pg.wait_for_function("() => document.activeElement.classList.contains('sl-square-A1')")
    # Keyboard: the squares are native buttons, so Enter and Space press them.
    movable.focus()
    pg.keyboard.press("Enter")
    pg.wait_for_selector(".sl-play .sl-square.sl-selected")
    pg.keyboard.press("Space")
    pg.wait_for_selector(".sl-play .sl-square.sl-selected", state="detached")
    pg.keyboard.press("Enter")
    pg.wait_for_selector(".sl-play .sl-square.sl-selected")
    target = pg.locator(".sl-play .sl-square.sl-target").first
    target.wait_for()
    moved_to = next(c for c in target.get_attribute("class").split() if c.startswith("sl-square-"))
    # Each square's classes arrive in a message of their own, so the set of targets can still be growing:
    # click the very square read above, not whichever target comes first by the time of the click.
    pg.click(f".sl-play .{moved_to}")
    pg.wait_for_function(
        "() => document.querySelectorAll('.sl-play .sl-log .sl-log-entry.sl-log-blue').length >= 1")
    log = pg.inner_text(".sl-play .sl-log")
    assert "Computer (Blue)" in log and "You (Red)" in log, log
    assert moved_to.removeprefix("sl-square-") in log, (moved_to, log)
    status = pg.inner_text(".sl-play .sl-status").lower()
    if "game over" in status:
        # The notebook deploys a random setup from a random seed; once in a while its Flag stands where the
        # computer's first reply takes it.  Then every piece is revealed and the result is in the log.
        assert "result" in log.lower() and not pg.locator(".sl-play .sl-square.sl-unknown").count(), log
        return
    # The computer's pieces stay hidden: "?" on every Blue piece not yet revealed.
    hidden = pg.locator(".sl-play .sl-square.sl-blue.sl-unknown")
    assert hidden.count() > 0 and set(hidden.all_inner_texts()) == {"?"}
    assert "your move" in status


def test_replay_notebook_in_the_browser(page: Page, lab: Lab) -> None:
    """Step forward in the replay notebook and see the board and the move list follow; switch to Red's view."""
    with kept_on_failure(page, lab, "replay"):
        step_forward(page, lab)


def step_forward(pg: Page, lab: Lab) -> None:
    open_and_run(pg, lab, "replay.ipynb")
    board = ".sl-replay .sl-board .sl-square"

    def squares() -> list[str]:
        return pg.eval_on_selector_all(board, "els => els.map(e => e.className + '|' + e.textContent)")

    before = squares()
    current = ".sl-replay .sl-moves select option:checked"
    assert pg.locator(current).inner_text() == "Start"
    pg.click(".sl-replay .sl-next")
    pg.wait_for_function(
        "() => document.querySelectorAll('.sl-replay .sl-board .sl-square.sl-last').length === 2")
    after = squares()
    assert after != before
    assert pg.eval_on_selector(".sl-replay .sl-moves select", "s => s.selectedIndex") == 1  # the first move
    # Board, move list and position text are separate widgets, each synced by its own message: the text may
    # arrive a moment after the board.
    pg.wait_for_function(
        "() => document.querySelector('.sl-replay .sl-info').textContent.includes('Move 1 of')")
    pg.click(".sl-replay .sl-perspective button:text-is(\"Red's view\")")
    pg.wait_for_selector(".sl-replay .sl-square.sl-blue.sl-unknown")


def notebook_cells(pg: Page) -> list[str]:
    """Each cell of the open notebook: its kind and its source."""
    return pg.eval_on_selector_all(
        ".jp-NotebookPanel .jp-Notebook .jp-Cell",
        "cells => cells.map(c => (c.classList.contains('jp-CodeCell') ? 'code: ' : 'markdown: ') + "
        "(c.querySelector('.jp-InputArea-editor') || c).textContent.slice(0, 80))")


def test_keys_inside_the_play_widget_never_reach_the_notebook(page: Page, lab: Lab) -> None:
    """JupyterLab's command-mode keys pressed on a board square and on a dropdown leave the notebook as it was;
    the arrows move the board's cursor instead of leaving the cell."""
    with kept_on_failure(page, lab, "keyboard-guard"):
        open_and_run(page, lab, "play.ipynb")
        before = notebook_cells(page)
        page.locator(".sl-play .sl-square-A1").focus()
        for key in ("d", "d", "b", "a", "m", "y", "z", "Shift+M", "c", "v", "x"):
            page.keyboard.press(key)
        for key in ("ArrowUp", "ArrowRight", "ArrowRight", "ArrowDown", "ArrowLeft"):
            page.keyboard.press(key)
        assert page.evaluate("document.activeElement.classList.contains('sl-square-B1')")
        page.locator(".sl-play .sl-level select").focus()
        for key in ("d", "d", "b", "a"):
            page.keyboard.press(key)
        assert notebook_cells(page) == before


def walk_cursor(pg: Page, to: str) -> None:
    """Move the board's cursor with the arrow keys to square ``to`` (Red at the bottom: up is row + 1)."""
    at = pg.evaluate("document.activeElement.className").split()
    here = next(c for c in at if c.startswith("sl-square-")).removeprefix("sl-square-")
    dc, dr = ord(to[0]) - ord(here[0]), int(to[1:]) - int(here[1:])
    for key, n in (("ArrowRight" if dc > 0 else "ArrowLeft", abs(dc)), ("ArrowUp" if dr > 0 else "ArrowDown", abs(dr))):
        for _ in range(n):
            pg.keyboard.press(key)
    assert pg.evaluate(f"document.activeElement.classList.contains('sl-square-{to}')"), (here, to)


def test_a_whole_move_by_keyboard_alone_at_1366_by_768(browser: Browser, lab: Lab) -> None:
    """At 1366×768 the widget fits with its files row and a log of more than seven entries; then a whole move
    is played with the keyboard alone: Tab to Begin, the arrows, Enter, Escape, Space."""
    pg = harness.new_page(browser, {"width": 1366, "height": 768})
    with kept_on_failure(pg, lab, "keyboard-move"):
        open_and_run(pg, lab, "play.ipynb")
        pg.eval_on_selector(".sl-play", "e => e.scrollIntoView({block: 'start'})")
        notebook = pg.locator(".jp-NotebookPanel .jp-WindowedPanel-outer, .jp-NotebookPanel .jp-Notebook").first
        bottom = notebook.bounding_box()["y"] + notebook.bounding_box()["height"]
        for control in (".sl-save", ".sl-restore", ".sl-export", ".sl-begin", ".sl-square-A1"):
            box = pg.locator(f".sl-play {control}").bounding_box()
            assert box and box["y"] >= 0 and box["y"] + box["height"] <= bottom, (control, box, bottom)
        log = pg.locator(".sl-play .sl-log").bounding_box()
        assert log and log["height"] >= 8 * 17, log  # room for more than seven entries
        pg.locator(".sl-play .sl-ruleset select").focus()
        for _ in range(6):  # the computer's level, your side, who moves first, Shuffle, Ready-made, Begin
            pg.keyboard.press("Tab")
        assert pg.evaluate("document.activeElement.classList.contains('sl-begin')")
        pg.keyboard.press("Enter")
        pg.wait_for_selector(".sl-play .sl-square.sl-movable")
        pg.wait_for_function("() => document.activeElement.classList.contains('sl-square-A1')")
        assert "A1: your" in (pg.evaluate("document.activeElement.getAttribute('aria-label')") or "")
        piece = square_of(pg, ".sl-play .sl-square.sl-movable")
        walk_cursor(pg, piece)
        pg.keyboard.press("Enter")
        pg.wait_for_selector(f".sl-play .sl-square-{piece}.sl-selected")
        pg.keyboard.press("Escape")
        pg.wait_for_selector(".sl-play .sl-square.sl-selected", state="detached")
        pg.keyboard.press("Space")
        pg.wait_for_selector(f".sl-play .sl-square-{piece}.sl-selected")
        target = square_of(pg, ".sl-play .sl-square.sl-target")
        walk_cursor(pg, target)
        pg.keyboard.press("Enter")
        pg.wait_for_function("() => document.querySelectorAll('.sl-play .sl-log .sl-log-entry').length >= 2")
        assert f"{piece}-{target}" in pg.inner_text(".sl-play .sl-log") or \
            f"{piece}x{target}" in pg.inner_text(".sl-play .sl-log")
        # One stop in the Tab order: from the first control after the board, Shift+Tab lands on the cursor
        pg.locator(".sl-play .sl-take-back").focus()  # enabled now: there is a move to take back
        pg.keyboard.press("Shift+Tab")
        assert pg.evaluate("document.activeElement.classList.contains('sl-square')"), \
            pg.evaluate("document.activeElement.outerHTML.slice(0, 300)")
        pg.keyboard.press("Shift+Tab")
        assert not pg.evaluate("document.activeElement.classList.contains('sl-square')")
    pg.context.close()
