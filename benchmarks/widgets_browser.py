"""The play widget's latency as a player sees it: JupyterLab and Debian's Chromium, timed inside the page.

    python benchmarks/widgets_browser.py [--moves 15] [--level hard]

Serves the play notebook with the browser tests' harness (``tests/browser_harness.py``), runs it, chooses the
level, begins a match and plays ``--moves`` moves by clicking.  Each figure is measured in the page from the
click to the first moment the board shows its effect (a MutationObserver): "select" until the piece is
selected, "own move shown" until the moved piece stands on its target, "reply" until the computer's answer is
in the log.  Targets: click to board at most 150 ms, the reply under 400 ms at hard.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import browser_harness as harness

TIMED_CLICK = """async ([selector, logged]) => {
    const app = document.querySelector('.sl-play');
    const entries = () => app.querySelectorAll('.sl-log .sl-log-entry:not(.sl-log-result)').length;
    const target = app.querySelector(selector);
    const name = [...target.classList].find(c => c.startsWith('sl-square-'));
    const before = entries();
    const marks = {};
    const t0 = performance.now();
    await new Promise(done => {
        const check = () => {
            const now = performance.now() - t0;
            const square = app.querySelector('.' + name);
            if (!('select' in marks) && square.classList.contains('sl-selected')) marks.select = now;
            if (!('shown' in marks) && square.classList.contains('sl-last')) marks.shown = now;
            if (entries() >= before + 2 || app.querySelector('.sl-log-result')) marks.reply = now;
            if (logged ? 'reply' in marks : 'select' in marks) { observer.disconnect(); done(); }
        };
        const observer = new MutationObserver(check);
        observer.observe(app, {subtree: true, attributes: true, childList: true, characterData: true});
        target.click();
    });
    return marks;
}"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=15)
    parser.add_argument("--level", default="hard", choices=["easy", "medium", "hard"])
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    samples: dict[str, list[float]] = {"select": [], "own move shown": [], "reply": []}
    rng = random.Random(1)
    with harness.serving(harness.Lab, notebooks=["play.ipynb"]) as lab, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(harness.CHROMIUM), args=harness.CHROMIUM_FLAGS)
        pg = harness.new_page(browser)
        harness.open_and_run(pg, lab, "play.ipynb")
        pg.select_option(".sl-play .sl-level select", args.level)
        pg.click(".sl-play .sl-begin")
        pg.wait_for_selector(".sl-play .sl-square.sl-movable")
        for _ in range(args.moves):
            if "game over" in pg.inner_text(".sl-play .sl-status").lower():
                break
            movable = pg.eval_on_selector_all(".sl-play .sl-square.sl-movable", "els => els.map(e => e.className)")
            piece = next(c for c in rng.choice(movable).split() if c.startswith("sl-square-"))
            samples["select"].append(pg.evaluate(TIMED_CLICK, [f".{piece}", False])["select"])
            pg.wait_for_selector(".sl-play .sl-square.sl-target")
            targets = pg.eval_on_selector_all(".sl-play .sl-square.sl-target", "els => els.map(e => e.className)")
            square = next(c for c in rng.choice(targets).split() if c.startswith("sl-square-"))
            marks = pg.evaluate(TIMED_CLICK, [f".{square}", True])
            samples["own move shown"].append(marks.get("shown", marks["reply"]))
            samples["reply"].append(marks["reply"])
        browser.close()
    print(f"{'in the browser, ' + args.level:<28}{'n':>4}{'median ms':>11}{'max ms':>9}")
    for kind, values in samples.items():
        print(f"{kind:<28}{len(values):>4}{statistics.median(values):>11.1f}{max(values):>9.1f}")


if __name__ == "__main__":
    main()
