"""The rules lesson as a class sees it: code folded away in JupyterLab, checks kept (nbval runs them), and
words that match the drawings."""

from __future__ import annotations

import json
from pathlib import Path

LESSON = Path(__file__).resolve().parents[1] / "notebooks" / "rules_lesson.ipynb"


def cells() -> list[dict]:
    return json.loads(LESSON.read_text(encoding="utf-8"))["cells"]


def text(cell: dict) -> str:
    return "".join(cell["source"])


def test_the_lesson_folds_its_code_but_keeps_its_checks() -> None:
    code = [c for c in cells() if c["cell_type"] == "code"]
    assert code and all(c["metadata"].get("jupyter", {}).get("source_hidden") for c in code)
    assert sum("assert " in text(c) for c in code) >= 20  # the promises are still there, and nbval runs them
    checks = [c for c in code if "check" in c["metadata"].get("tags", [])]
    assert checks and all("print(" not in text(c) and "display(" not in text(c) for c in checks)  # silent


def test_the_lesson_says_what_it_draws_and_where_the_kit_reads_the_rulebook() -> None:
    words = "\n".join(text(c) for c in cells() if c["cell_type"] == "markdown")
    assert "striped" not in words and "waves" in words  # the lakes are drawn with waves
    assert "Where the kit reads the rulebook" in words
    for rule in ("chasing rule", "two-square rule", "200-move draw"):
        assert rule in words.split("Where the kit reads the rulebook")[1]


def test_the_quiz_shown_is_not_the_one_the_checks_answer() -> None:
    code = [text(c) for c in cells() if c["cell_type"] == "code"]
    shown = next(c for c in code if "class Quiz" in c)
    assert shown.rstrip().endswith("quiz_widget")
    check = next(c for c in code if "practice = Quiz()" in c)
    assert "quiz_widget.guess.value is None" in check and "quiz_widget.attacker" not in check
