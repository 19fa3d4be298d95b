"""The replay notebook in a real browser (JupyterLab, Chromium): what keeps a person's work safe and what
finds and steps through real games.

One run of the notebook, then in order: the game browser filters a file of three games; the arrow keys step
(and JupyterLab's own use of them stays out); a comment typed and not kept survives stepping away; a save over
the open file asks first, and after the yes the file still holds all three games.  The server's "your folder"
(``$STRATEGOLAB_GAMES_DIR``) is a scratch folder of the test.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import browser_harness as harness
import pytest
from browser_harness import Lab, kept_on_failure, open_and_run, serving

import strategolab as sl

if TYPE_CHECKING:
    from playwright.sync_api import Page

harness.require_browser()
browser, page = harness.browser, harness.page  # the fixtures

SHIPPED = harness.ROOT / "data" / "games"
APP = ".sl-replay"


@pytest.fixture(scope="module")
def games_folder() -> Iterator[Path]:
    """The user's folder the server's kernels see, holding a file of three shipped games."""
    with tempfile.TemporaryDirectory(prefix="strategolab-user-games-") as folder:
        three = Path(folder) / "three.sgn"
        three.write_text("\n".join((SHIPPED / n).read_text() for n in
                                   ("spy-takes-marshal.sgn", "scout-run.sgn", "chase.sgn")))
        yield Path(folder)


@pytest.fixture(scope="module")
def lab(games_folder: Path) -> Iterator[Lab]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("STRATEGOLAB_GAMES_DIR", str(games_folder))  # the server copies the environment it starts in
        with serving(Lab, notebooks=["replay.ipynb"]) as server:
            yield server


def info(pg: Page) -> str:
    return pg.inner_text(f"{APP} .sl-info")


def wait_info(pg: Page, text: str) -> None:
    pg.wait_for_function("t => document.querySelector('.sl-replay .sl-info').innerText.includes(t)", arg=text)


def active_cell(pg: Page) -> int:
    return pg.evaluate("() => [...document.querySelectorAll('.jp-Notebook .jp-Cell')]"
                       ".findIndex(c => c.classList.contains('jp-mod-active'))")


def test_replay_keeps_work_and_finds_games_in_the_browser(page: Page, lab: Lab, games_folder: Path) -> None:
    with kept_on_failure(page, lab, "replay-work"):
        pg = page
        open_and_run(pg, lab, "replay.ipynb")
        three = games_folder / "three.sgn"

        # The records list offers the user's folder; a file of three games opens the game browser.
        pg.select_option(f"{APP} .sl-records select", label="yours: three.sgn")
        pg.wait_for_function("() => document.querySelector('.sl-replay .sl-game-count').innerText === '3 of 3 games'")
        assert pg.locator(f"{APP} .sl-game select option").count() == 3
        pg.select_option(f"{APP} .sl-filter-ending select", label="flag captured")
        pg.wait_for_function("() => document.querySelector('.sl-replay .sl-game-count').innerText === '1 of 3 games'")
        only = pg.locator(f"{APP} .sl-game select option")
        pg.wait_for_function("() => document.querySelectorAll('.sl-replay .sl-game select option').length === 1")
        assert only.count() == 1 and "(flag captured)" in only.inner_text().replace("\xa0", " ")
        pg.select_option(f"{APP} .sl-game select", index=0)
        wait_info(pg, "Lesson: the Scout's run")
        pg.select_option(f"{APP} .sl-filter-ending select", label="any")
        pg.wait_for_function("() => document.querySelector('.sl-replay .sl-game-count').innerText === '3 of 3 games'")

        # The arrow keys step, Home and End jump; the notebook's own keys stay out (same active cell).
        pg.click(f"{APP} button.sl-next")
        wait_info(pg, "Move 1 of")
        cell = active_cell(pg)  # the widget's cell (a click in an output makes its cell the active one)
        pg.keyboard.press("ArrowRight")
        wait_info(pg, "Move 2 of")
        pg.keyboard.press("End")
        pg.wait_for_function(
            "() => /Move (\\d+) of \\1\\b/.test(document.querySelector('.sl-replay .sl-info').innerText)")
        assert "Game over: Red wins (flag captured)." in info(pg)
        pg.keyboard.press("ArrowLeft")
        pg.wait_for_function("() => !document.querySelector('.sl-replay .sl-info').innerText.includes('Game over')")
        pg.keyboard.press("Home")
        wait_info(pg, "Start position")
        assert active_cell(pg) == cell

        # A comment typed but not kept survives stepping away and back.
        pg.click(f"{APP} button.sl-next")
        wait_info(pg, "Move 1 of")
        # Its own comment has arrived (on a loaded machine it can follow the info line): typing replaces it.
        own = sl.notation.read_game(SHIPPED / "scout-run.sgn").next().comment.split()[:4]  # type: ignore[union-attr]
        pg.wait_for_function("t => document.querySelector('.sl-replay .sl-comment textarea').value.split(/\\s+/)"
                             ".slice(0, 4).join(' ') === t", arg=" ".join(own))
        pg.fill(f"{APP} .sl-comment textarea", "Typed in the browser, never kept.")
        pg.click(f"{APP} button.sl-next")
        wait_info(pg, "Move 2 of")
        assert "Kept your annotation of move 1" in pg.inner_text(f"{APP} .sl-message")
        pg.click(f"{APP} button.sl-prev")
        wait_info(pg, "Move 1 of")
        pg.wait_for_function("t => document.querySelector('.sl-replay .sl-comment textarea').value === t",
                             arg="Typed in the browser, never kept.")  # the box follows the info line

        # Saving over the open file asks; after the yes it still holds every game.
        before = three.read_text()
        pg.fill(f"{APP} .sl-save-path input", str(three))
        pg.click(f"{APP} button.sl-save")
        pg.wait_for_selector(f"{APP} .sl-confirm-text:has-text('already exists')")
        assert three.read_text() == before  # nothing written before the yes
        pg.click(f"{APP} button.sl-confirm-yes")
        pg.wait_for_selector(f"{APP} .sl-message:has-text('Saved 3 games')")
        games = list(sl.read_games(three))
        assert len(games) == 3 and [g.headers["Event"] for g in games] == [
            "Lesson: the Spy and the Marshal", "Lesson: the Scout's run", "Lesson: the chasing rule"]
        assert games[1].mainline()[0].comment == "Typed in the browser, never kept."
        assert not os.path.exists(SHIPPED / "three.sgn")
