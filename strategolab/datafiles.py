"""The small JSON tables that ship in ``strategolab/data``: which shipped rule set's tables serve a rule set,
reading one (shipped, or saved elsewhere) with errors that name the file, line and column, and writing one
atomically."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

from strategolab.board import geometry
from strategolab.errors import StrategolabError
from strategolab.rules import BARRAGE, CLASSIC, Ruleset


def serving_ruleset(rs: Ruleset) -> Ruleset | None:
    """The rule set whose shipped tables serve ``rs``: classic or barrage, whichever has the same army and
    setup zone (classic serves isf and original-1961), or None."""
    mine = sorted((k.name, n) for k, n in rs.army)
    for table in (CLASSIC, BARRAGE):
        if mine == sorted((k.name, n) for k, n in table.army) and (
                geometry(rs).setup_squares == geometry(table).setup_squares):
            return table
    return None


def read_table(file_name: str, path: str | os.PathLike[str] | None, missing: str) -> tuple[object, str]:
    """The JSON in the package's ``data/file_name``, or at ``path`` if given, and where it was read (for error
    messages).  Raises :class:`StrategolabError` saying ``missing`` (and the path) when there is no such file,
    or where the text is not JSON."""
    try:
        if path is None:
            text = resources.files("strategolab").joinpath("data", file_name).read_text(encoding="utf-8")
            where = f"strategolab/data/{file_name}"
        else:
            text = Path(path).read_text(encoding="utf-8")
            where = str(path)
    except FileNotFoundError:
        raise StrategolabError(missing + ("" if path is None else f" at {path}")) from None
    except (OSError, UnicodeDecodeError) as e:
        raise StrategolabError(f"cannot read {path}: {getattr(e, 'strerror', None) or e}") from None
    try:
        return json.loads(text), where
    except json.JSONDecodeError as e:
        raise StrategolabError(f"{where}:{e.lineno}:{e.colno}: not JSON: {e.msg}") from None


def write_table(data: object, path: str | os.PathLike[str]) -> None:
    """Write ``data`` as compact JSON, atomically (a temporary file renamed over the target), making its folder
    if need be.  Raises :class:`StrategolabError` naming the path when it cannot be written."""
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        os.replace(tmp, target)
    except OSError as e:
        raise StrategolabError(f"cannot write {target}: {e.strerror or e}") from None
