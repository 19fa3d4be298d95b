"""The play notebook served as a classroom app by Voilà (the README's app command), in a real browser.

The app page shows the app only (no instructions, no self-checks); a visitor deploys, plays three moves by
clicking and saves; the file is the visitor's own, and a second visitor's page saves somewhere else.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import browser_harness as harness
import pytest
from browser_harness import Voila, kept_on_failure, new_page, serving, square_of

from strategolab.controllers import OVER, PlayController
from strategolab.widgets import VISITORS

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

harness.require_browser("voila")
browser = harness.browser  # the fixture


@pytest.fixture(scope="module")
def voila() -> Iterator[Voila]:
    with serving(Voila, notebooks=["play.ipynb", "rules_lesson.ipynb"]) as server:
        yield server  # type: ignore[misc]


def visit(pg: Page, voila: Voila, notebook: str) -> None:
    """Open an app page. Voilà runs the cells while it sends the page, so the wait is for the page's end, with the
    tests' long timeout, not for the browser's "load" (which also waits for every stylesheet and image)."""
    pg.goto(voila.app_url(notebook), wait_until="commit")
    pg.wait_for_load_state("domcontentloaded")


def open_app(pg: Page, voila: Voila) -> str:
    """Open the play app and return the file its visitor saves to."""
    visit(pg, voila, "play.ipynb")
    pg.wait_for_selector(".sl-play .sl-begin")
    return pg.input_value(".sl-play .sl-path input")


def test_the_app_deploys_plays_and_saves_the_visitors_own_file(browser: Browser, voila: Voila) -> None:
    pg = new_page(browser, {"width": 1366, "height": 768})
    with kept_on_failure(pg, voila, "voila-play"):
        path = open_app(pg, voila)
        text = pg.inner_text("body")
        assert "Run the cells" not in text and "What the notebook checks" not in text  # the app only
        assert "Traceback" not in text and "Error" not in text
        assert path.startswith(f"{VISITORS}/match-") and path.endswith(".sgn")
        pg.click(".sl-play .sl-begin")
        for n in range(3):
            # Click squares read by name, once the computer has answered: a square that was movable while
            # the computer thought may be taken or blocked by its reply, and that click would select nothing.
            piece = square_of(pg, ".sl-play .sl-square.sl-movable")
            pg.click(f".sl-play .sl-square-{piece}")
            pg.wait_for_selector(f".sl-play .sl-square-{piece}.sl-selected")
            pg.click(f".sl-play .sl-square-{square_of(pg, '.sl-play .sl-square.sl-target')}")
            pg.wait_for_function(
                f"""() => document.querySelectorAll('.sl-play .sl-log .sl-log-red').length > {n}
                    && /your move|game over/i.test(document.querySelector('.sl-play .sl-status').innerText)""")
            if "game over" in pg.inner_text(".sl-play .sl-status").lower():
                break
        pg.click(".sl-play .sl-save")
        pg.wait_for_selector(".sl-play .sl-message:has-text('Saved the match')")
        saved = voila.site / "notebooks" / path  # the visitor's file, beside the notebook on the server
        again = PlayController()
        assert again.restore(saved), again.message
        shown = pg.locator(".sl-play .sl-log-entry:not(.sl-log-result)").all_inner_texts()
        assert [entry.text for entry in reversed(again.log)] == shown
        assert sum(entry.player == again.human for entry in again.log) == 3 or again.phase == OVER
        other = new_page(browser)  # a second visitor, with a kernel and a file of their own
        try:
            assert open_app(other, voila) != path
        finally:
            other.context.close()
    pg.context.close()


def test_the_rules_lesson_is_served_too(browser: Browser, voila: Voila) -> None:
    pg = new_page(browser)
    with kept_on_failure(pg, voila, "voila-lesson"):
        visit(pg, voila, "rules_lesson.ipynb")
        pg.wait_for_selector("body :text('Stratego')")
        assert "Traceback" not in pg.inner_text("body")
        # The quiz answers in the app too: the Spy attacking the Marshal wins, and the battle is drawn.
        pg.click(".widget-toggle-button:text-is('attacker wins')")
        pg.click(".widget-button:text-is('Check')")
        pg.wait_for_selector(":text('Right! Spy against Marshal: attacker wins.')")
        pg.wait_for_selector("img.widget-image", state="visible")
    pg.context.close()
