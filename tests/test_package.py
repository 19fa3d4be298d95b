"""Package-level promises: a light import, no GUI libraries in the core, lint-clean sources."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_import_does_not_load_plotting_or_widgets() -> None:
    code = ("import sys, strategolab, strategolab.archive, strategolab.gravon; "
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('matplotlib', 'ipywidgets', 'pandas', 'numpy', 'IPython')); print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def test_public_names_exist() -> None:
    import strategolab

    for name in strategolab.__all__:
        assert hasattr(strategolab, name), name


@pytest.mark.skipif(shutil.which("ruff") is None and not (Path(sys.executable).parent / "ruff").exists(),
                    reason="ruff is not installed")
def test_sources_are_ruff_clean() -> None:
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    out = subprocess.run([ruff, "check", "strategolab", "tests", "benchmarks", "notebooks"], capture_output=True,
                         text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
