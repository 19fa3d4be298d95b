"""Setup statistics with pandas: games, setups, pieces and moves as tidy tables, and the figures analysts ask
for (where players put the Flag, the Bombs and the Marshal; which setups win).

:func:`load_games` reads any mix of Gravon files (XML files, monthly zips, folders) and the kit's own records
(``.sgn``) into a :class:`GameTables`: one row per game, per setup, per placed piece and (on request) per
move.  Squares are seen from the owner's side, so Red's and Blue's setups are comparable: ``square`` is the
reading-order index of :func:`strategolab.board.geometry`'s ``setup_squares[owner]`` (front row first, the
owner's left to right), ``row`` counts from the owner's back row (1) and ``column`` from the owner's left
(``A``) -- exactly Red's board coordinates, which is how the heatmaps draw them.

Loading parses each source file once, in worker processes when there are several, and caches what it read
per source file (an ``.npz`` file: numpy arrays only, so a cache file can never run code) keyed by the
file's absolute path, size and a hash of its content (a file edited in place with its modification time
restored is read again); a damaged cache file is read again from the source, with a warning.  The cache
lives next to the data in a self-ignoring ``.strategolab-cache`` folder, or in the user's cache folder when
the data folder is read-only.

The statistics work on a :class:`~strategolab.setupstats.SetupStats` (per-square counts: the shipped table,
or one computed from games) where counts suffice, and on the setups table where they need whole setups
(Flag protection, most common setups, similarity).  pandas is imported by this module only, never by
``import strategolab``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pandas as pd

from strategolab import setupstats
from strategolab.board import COLUMNS, Square, geometry, square_name
from strategolab.errors import RecordError, shown
from strategolab.processes import worker_pool
from strategolab.rules import (
    CLASSIC,
    EXTRA_RULESETS,
    PLAYER_NAMES,
    RULESETS,
    BattleResult,
    PieceType,
    Ruleset,
    get_ruleset,
    resolve_battle,
)
from strategolab.setups import Setup
from strategolab.setupstats import GROUPS, SetupStats

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from strategolab.draw import BoardArtists
    from strategolab.state import State

__all__ = [
    "CACHE_ENV",
    "DIFFERENCE",
    "EXPLORER_GROUPS",
    "GameTables",
    "HeatmapExplorer",
    "clear_cache",
    "flag_protection",
    "frequencies",
    "heatmap_matrix",
    "heatmap_squares",
    "load_games",
    "most_common_setups",
    "nearest_setups",
    "piece_columns",
    "piece_rows",
    "setup_matrix",
    "similarity",
    "similarity_profile",
    "user_cache_dir",
    "wilson_interval",
    "win_rate_by_position",
    "win_rates",
]

# Bump when what a cache file holds changes: old files are then simply not used.
# 2: .sgn records are scanned (not replayed) and errors name whole paths.  3: keyed on a content hash.
CACHE_VERSION = 3
CACHE_ENV = "STRATEGOLAB_CACHE_DIR"  # a folder for every cache file, overriding "next to the data"
CACHE_FOLDER = ".strategolab-cache"
RECORD_SUFFIXES = (".sgn",)
GRAVON_SUFFIXES = (".zip", ".xml")

DIFFERENCE = "winners - losers"
EXPLORER_GROUPS = (*GROUPS, DIFFERENCE)
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
OUTCOMES = ("won", "lost", "draw", "unknown")
BATTLES = tuple(str(r) for r in BattleResult)  # "attacker wins", "defender wins", "both die"

# Every piece name of the kit's rule sets, strongest classic piece first: the categories of ``piece``.
PIECE_NAMES: tuple[str, ...] = tuple(dict.fromkeys(p.name for rs in RULESETS.values() for p in rs.piece_types))
_PIECE_CODE = {name: i for i, name in enumerate(PIECE_NAMES)}
_QUIET, _UNKNOWN = -1, -2  # defender codes of a move without a battle / a move the tracker could not follow

# Gravon's field: character i is square (column i % 10, row i // 10); B-M Red's pieces, N-Y Blue's.
_GRAVON_ORDER = ("Bomb", "Spy", "Scout", "Miner", "Sergeant", "Lieutenant", "Captain", "Major", "Colonel",
                 "General", "Marshal", "Flag")


def _gravon_tables() -> tuple[tuple[dict[int, int], ...], tuple[Callable[[str], tuple[str, ...]], ...]]:
    """Per side: a ``str.translate`` table from field characters to classic setup symbols ('.' for anything
    else), and a getter that picks that side's setup squares out of a translated field in reading order."""
    tables = []
    for first in "BN":
        table = {c: ord(".") for c in range(128)}
        for i, name in enumerate(_GRAVON_ORDER):
            table[ord(first) + i] = ord(CLASSIC.symbol(CLASSIC.piece_type(name)))
        tables.append(table)
    getters = tuple(itemgetter(*((sq // 16) * 10 + sq % 16 for sq in squares))
                    for squares in geometry(CLASSIC).setup_squares)
    return tuple(tables), getters


_GRAVON_TRANSLATE, _GRAVON_PICK = _gravon_tables()


# -- where the data is --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Unit:
    """What is parsed and cached as one: a zip, a records file, or the loose XML files of one folder."""

    kind: Literal["gravon", "records"]
    files: tuple[Path, ...]

    @property
    def size(self) -> int:
        return sum(f.stat().st_size for f in self.files)

    @cached_property
    def stamps(self) -> list[list[str | int]]:
        """Every file's absolute path, size and content hash (hashing reads a file at hundreds of MB/s, far
        faster than parsing it; size and modification time alone miss a file edited with its time kept)."""
        stamps: list[list[str | int]] = []
        for f in self.files:
            with f.open("rb") as data:
                digest = hashlib.file_digest(data, lambda: hashlib.blake2b(digest_size=16)).hexdigest()
            stamps.append([str(f.resolve()), f.stat().st_size, digest])
        return stamps

    def key(self, what: str) -> str:
        """What a cache file must have been made from: these very files (:attr:`stamps`)."""
        return json.dumps({"version": CACHE_VERSION, "what": what, "kind": self.kind, "files": self.stamps})


def _units(sources: Iterable[str | os.PathLike[str]]) -> list[_Unit]:
    """The units to read, in a stable order: folders are walked (hidden folders skipped), names sorted."""
    units: list[_Unit] = []
    for source in sources:
        path = Path(source)
        if path.is_dir():
            units += _folder_units(path)
        elif path.is_file():
            kind: Literal["gravon", "records"] = "gravon" if path.suffix.lower() in GRAVON_SUFFIXES else "records"
            units.append(_Unit(kind, (path,)))
        else:
            raise FileNotFoundError(f"{path}: no such file or folder (expected Gravon .zip/.xml files, "
                                    f"records ({', '.join(RECORD_SUFFIXES)}) or a folder of them)")
    return units


def _folder_units(folder: Path) -> list[_Unit]:
    entries = sorted(folder.iterdir())
    xml = tuple(p for p in entries if p.is_file() and p.suffix.lower() == ".xml")
    units = [_Unit("gravon", (p,)) for p in entries if p.is_file() and p.suffix.lower() == ".zip"]
    if xml:
        units.append(_Unit("gravon", xml))
    units += [_Unit("records", (p,)) for p in entries if p.is_file() and p.suffix.lower() in RECORD_SUFFIXES]
    for sub in entries:
        if sub.is_dir() and not sub.name.startswith("."):
            units += _folder_units(sub)
    return units


# -- reading one unit (runs in worker processes) --------------------------------------------------------------

Columns = dict[str, np.ndarray]


class _Collector:
    """The rows of one unit as plain lists, turned into numpy columns at the end (cheap to pickle and cache)."""

    GAME_TEXT = ("source", "variant", "result", "termination", "red", "blue", "red_setup", "blue_setup")

    def __init__(self, moves: bool) -> None:
        self.text: dict[str, list[str]] = {k: [] for k in self.GAME_TEXT}
        self.result_type: list[int] = []
        self.length: list[int] = []
        self.errors: list[str] = []
        self.moves = moves
        self.move_cols: dict[str, list[int]] = {k: [] for k in ("game", "side", "from", "to", "piece", "defender",
                                                                "battle")}

    def add(self, *, source: str, variant: str, result: str, termination: str, result_type: int | None,
            players: Sequence[str], setups: Sequence[str | None], moves: Sequence[tuple[int, int]],
            first: int, board: dict[Square, tuple[int, str]] | None, kinds: Mapping[str, PieceType]) -> None:
        """One game; ``board`` (square -> owner, piece name) lets the moves name their pieces."""
        game = len(self.length)
        for key, value in (("source", source), ("variant", variant), ("result", result),
                           ("termination", termination), ("red", players[0]), ("blue", players[1]),
                           ("red_setup", setups[0] or ""), ("blue_setup", setups[1] or "")):
            self.text[key].append(value)
        self.result_type.append(-1 if result_type is None else result_type)
        self.length.append(len(moves))
        if not self.moves or not moves:
            return
        cols = self.move_cols
        cols["game"] += [game] * len(moves)
        cols["side"] += [(first + k) % 2 for k in range(len(moves))]
        cols["from"] += [f for f, _ in moves]
        cols["to"] += [t for _, t in moves]
        pieces, defenders, battles = _track(dict(board) if board is not None else None, moves, kinds)
        cols["piece"] += pieces
        cols["defender"] += defenders
        cols["battle"] += battles

    def columns(self) -> tuple[Columns, Columns | None]:
        games: Columns = {k: np.asarray(v, dtype=str) for k, v in self.text.items()}
        games["result_type"] = np.asarray(self.result_type, dtype=np.int16)
        games["length"] = np.asarray(self.length, dtype=np.int32)
        games["errors"] = np.asarray(self.errors, dtype=str)
        if not self.moves:
            return games, None
        dtypes = {"game": np.int32, "side": np.int8, "from": np.int16, "to": np.int16, "piece": np.int8,
                  "defender": np.int8, "battle": np.int8}
        return games, {k: np.asarray(v, dtype=dtypes[k]) for k, v in self.move_cols.items()}


def _track(board: dict[Square, tuple[int, str]] | None, moves: Sequence[tuple[int, int]],
           kinds: Mapping[str, PieceType]) -> tuple[list[int], list[int], list[int]]:
    """Follow the pieces through the moves (battles decided by the engine's rule) to name each move's piece,
    its victim and the battle's result.  From the first move the record and the board disagree on (a Gravon
    ``<rescue>``, a move from an empty square) every later move is marked unknown."""
    pieces: list[int] = []
    defenders: list[int] = []
    battles: list[int] = []
    code = _PIECE_CODE
    for k, (f, t) in enumerate(moves):
        mover = board.pop(f, None) if board is not None else None
        target = board.get(t) if board is not None else None
        if board is None or mover is None or (target is not None and target[0] == mover[0]):
            rest = len(moves) - k
            pieces += [-1] * rest
            defenders += [_UNKNOWN] * rest
            battles += [-1] * rest
            break
        pieces.append(code[mover[1]])
        if target is None:
            board[t] = mover
            defenders.append(_QUIET)
            battles.append(0)
            continue
        result = resolve_battle(kinds[mover[1]], kinds[target[1]])
        defenders.append(code[target[1]])
        battles.append(int(result))
        if result == BattleResult.ATTACKER_WINS:
            board[t] = mover
        elif result == BattleResult.BOTH_DIE:
            del board[t]
    return pieces, defenders, battles


def _gravon_setups(field_text: str) -> tuple[str | None, str | None]:
    """Both setups of a Gravon field as classic setup strings, ``None`` for a side with pieces outside its
    setup rows (``classicfree`` games deploy on the whole board)."""
    out: list[str | None] = []
    for table, pick in zip(_GRAVON_TRANSLATE, _GRAVON_PICK, strict=True):
        mine = field_text.translate(table)
        flat = "".join(pick(mine))
        if len(flat) - flat.count(".") != len(mine) - mine.count("."):  # a piece outside the setup rows
            out.append(None)
        else:
            out.append("/".join(flat[i:i + 10] for i in range(0, 40, 10)))
    return out[0], out[1]


def _read_gravon_unit(files: Sequence[str], moves: bool) -> tuple[Columns, Columns | None]:
    """Parse a zip (or loose XML files) into columns; bad games become error messages."""
    from strategolab.gravon import RESULT_TYPES, read_gravon

    out = _Collector(moves)
    kinds = {p.name: p for p in CLASSIC.piece_types}  # every Gravon game type uses the classic pieces
    result_of = {0: "1-0", 1: "0-1", None: "1/2-1/2"}
    for file in files:
        reader = read_gravon(file, errors="skip")
        prefix = str(file)
        for game in reader:
            source = Path(file).name + game.source[len(prefix):] if game.source.startswith(prefix) else game.source
            result = "*" if game.result_type is None else result_of[game.winner]
            setups = _gravon_setups(game.field) if game.field is not None else (None, None)
            board = game.placements if moves and game.field is not None and not game.rescues else None
            out.add(source=source, variant=game.game_type, result=result, result_type=game.result_type,
                    termination=RESULT_TYPES.get(game.result_type, "") if game.result_type is not None else "",
                    players=game.players, setups=setups, moves=game.moves, first=0, board=board, kinds=kinds)
        out.errors += [str(e) for e in reader.errors]
    return out.columns()


def _read_records_unit(files: Sequence[str], moves: bool) -> tuple[Columns, Columns | None]:
    """Scan records in the kit's notation (leniently: problems become error messages).  Like the Gravon
    path, the moves are not replayed here: ``strategolab validate`` checks a corpus move by move."""
    from strategolab.notation import scan_games

    out = _Collector(moves)
    for file in files:
        name = Path(file).name
        with scan_games(Path(file), strict=False, name=str(file)) as reader:  # errors name the whole path
            for number, game in enumerate(reader, 1):
                start = game.start
                rs = game.ruleset
                board = {sq: (p.owner, p.type.name) for sq in start.squares() if (p := start.piece_at(sq))}
                played = [(m.from_square, m.to_square) for m in game.moves]
                out.add(source=f"{name}#{number}", variant=rs.name, result=game.result, result_type=None,
                        termination=game.headers.get("Termination", ""),
                        players=(game.headers.get("Red", ""), game.headers.get("Blue", "")),
                        setups=_record_setups(start, board), moves=played, first=start.turn, board=board,
                        kinds={p.name: p for p in rs.piece_types})
            out.errors += [str(e) for e in reader.errors]
    return out.columns()


def _record_setups(start: State, board: Mapping[Square, tuple[int, str]]) -> tuple[str | None, str | None]:
    """Both setups of a record's start position, or ``None`` for a side not freshly deployed in its rows
    (a lesson position), or when the rule set is not one the tables can place (a custom one)."""
    rs: Ruleset = start.ruleset
    if RULESETS.get(rs.name) != rs or start.ply:
        return None, None
    out: list[str | None] = []
    for player, squares in enumerate(geometry(rs).setup_squares):
        mine: dict[Square | str, PieceType | str] = {sq: name for sq, (owner, name) in board.items() if owner == player}
        zone = set(squares)
        if not mine or any(sq not in zone or start.has_moved(sq) for sq in mine):
            out.append(None)
        else:
            out.append(str(Setup.from_placements(mine, player, rs)))
    return out[0], out[1]


def _read_unit(kind: str, files: Sequence[str], moves: bool) -> tuple[Columns, Columns | None]:
    """The worker's entry point: one unit's columns."""
    reader = _read_gravon_unit if kind == "gravon" else _read_records_unit
    return reader(files, moves)


# -- the cache -------------------------------------------------------------------------------------------------


def user_cache_dir() -> Path:
    """The per-user cache folder (``$XDG_CACHE_HOME/strategolab`` or ``~/.cache/strategolab``)."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "strategolab"


def _writable(folder: Path) -> bool:
    """True when the folder may be written.  Root passes ``os.access`` everywhere, so a folder without any
    write bit (shared data laid out read-only) counts as read-only too."""
    try:
        return os.access(folder, os.W_OK) and bool(folder.stat().st_mode & 0o222)
    except OSError:
        return False


def _cache_folder(unit: _Unit, cache: bool | str | os.PathLike[str]) -> Path | None:
    """Where the unit's cache files go: the folder given, $STRATEGOLAB_CACHE_DIR, next to the data if that
    folder is writable, else the user's cache folder.  ``None``: no cache."""
    if cache is False:
        return None
    if cache is not True:
        return Path(cache)
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV])
    home = unit.files[0].parent
    return home / CACHE_FOLDER if _writable(home) else user_cache_dir()


def _cache_file(folder: Path, unit: _Unit, what: str) -> Path:
    """One file per unit and table kind; the hash of the absolute path keeps equal names in different
    folders apart (the user cache folder holds every read-only source)."""
    single = len(unit.files) == 1
    where = unit.files[0] if single else unit.files[0].parent  # a folder's loose XML files: the folder
    digest = hashlib.sha1(str(where.resolve()).encode()).hexdigest()[:12]
    stem = where.name if single else where.name + "-xml"
    return folder / f"{stem}-{digest}.{what}.npz"


def _cache_read(path: Path, key: str) -> Columns | None:
    """The cached columns if the file exists and was made from exactly this source; anything else is a miss.
    A file that cannot be read back (truncated, bit-flipped, not an .npz at all) is a miss with a warning:
    the source is parsed again and the file rewritten."""
    try:
        data = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        return None
    except Exception as e:  # numpy and zipfile raise many types for a damaged file
        return _damaged(path, e)
    if not isinstance(data, np.lib.npyio.NpzFile):  # a plain .npy array where an .npz belongs
        return _damaged(path, TypeError(f"a {type(data).__name__}, not an .npz archive"))
    try:
        with data:
            if "__key__" not in data.files or str(data["__key__"]) != key:
                return None
            return {k: data[k] for k in data.files if k != "__key__"}  # reading checks each member's CRC
    except Exception as e:
        return _damaged(path, e)


def _damaged(path: Path, error: Exception) -> None:
    warnings.warn(f"{path}: damaged cache file ({type(error).__name__}: {shown(str(error))}); reading the "
                  f"source again and rewriting it", stacklevel=4)


def _cache_write(path: Path, key: str, columns: Columns) -> bool:
    """Write atomically (a temporary file renamed over the target); False if the folder cannot be written."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.parent.name == CACHE_FOLDER and not (path.parent / ".gitignore").exists():
            (path.parent / ".gitignore").write_text("# created by strategolab: a cache, never commit it\n*\n")
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
        try:
            arrays: dict[str, Any] = {"__key__": np.asarray(key), **columns}
            with os.fdopen(fd, "wb") as f:
                np.savez(f, **arrays)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


def clear_cache(sources: Iterable[str | os.PathLike[str]] | str | os.PathLike[str],
                cache: bool | str | os.PathLike[str] = True) -> int:
    """Delete the cache files of these sources (as :func:`load_games` would find them); returns how many."""
    removed = 0
    for unit in _units([sources] if isinstance(sources, str | os.PathLike) else sources):
        folder = _cache_folder(unit, cache)
        if folder is None:
            continue
        for what in ("games", "moves"):
            path = _cache_file(folder, unit, what)
            if path.exists():
                path.unlink()
                removed += 1
    return removed


# -- loading -----------------------------------------------------------------------------------------------


def _progress_bar(total: int, enabled: bool) -> Any:
    """A tqdm bar over bytes parsed, if tqdm is installed and wanted; otherwise None."""
    if not enabled or total <= 0:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, unit="B", unit_scale=True, desc="reading games", leave=False)


def _available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _parse(units: list[_Unit], moves: bool, workers: int | None, progress: bool
           ) -> Iterator[tuple[int, tuple[Columns, Columns | None]]]:
    """Parse units (largest first, in worker processes when that pays); yields (index, columns)."""
    if not units:
        return
    sizes = [u.size for u in units]
    order = sorted(range(len(units)), key=lambda i: -sizes[i])
    n = min(workers if workers is not None else _available_cores(), len(units))
    bar = _progress_bar(sum(sizes), progress)
    try:
        if n <= 1:
            for i in order:
                yield i, _read_unit(units[i].kind, [str(f) for f in units[i].files], moves)
                if bar is not None:
                    bar.update(sizes[i])
            return
        with worker_pool(n) as pool:
            futures = {pool.submit(_read_unit, units[i].kind, [str(f) for f in units[i].files], moves): i
                       for i in order}
            for future in as_completed(futures):
                i = futures[future]
                yield i, future.result()
                if bar is not None:
                    bar.update(sizes[i])
    finally:
        if bar is not None:
            bar.close()


def load_games(sources: str | os.PathLike[str] | Iterable[str | os.PathLike[str]], *,
               variants: Iterable[str] | None = None, moves: bool = False,
               cache: bool | str | os.PathLike[str] = True, workers: int | None = None, progress: bool = True,
               errors: Literal["skip", "raise"] = "skip") -> GameTables:
    """Read games from Gravon files (``.xml``, monthly ``.zip``), records (``.sgn``) and folders of them.

    ``variants`` keeps only those game types (``{"classic"}``); ``moves`` adds the per-move table (battles
    are worked out by following the pieces, so each move names its piece).  ``cache``: ``True`` caches per
    source file next to the data (or in :func:`user_cache_dir` when that folder is read-only, or in
    ``$STRATEGOLAB_CACHE_DIR``), a folder caches there, ``False`` never caches.  ``workers`` processes parse
    the uncached files (default: one per core).  ``errors="skip"`` keeps going past bad games and lists them
    in :attr:`GameTables.errors`; ``"raise"`` raises the first as a :class:`RecordError`.  Like Gravon games,
    records are read without replaying them (:func:`~strategolab.notation.scan_games`): a file that does not
    parse is an error here, an illegal move is not (``strategolab validate`` checks every move).
    """
    if errors not in ("skip", "raise"):
        raise ValueError(f"errors={errors!r}: expected 'skip' or 'raise'")
    if isinstance(variants, str):
        raise TypeError(f"variants={variants!r}: expected a set of variants, like {{'classic'}}")
    if variants is not None:
        from strategolab.gravon import GAME_TYPES

        variants = frozenset(variants)
        known = {*RULESETS, *EXTRA_RULESETS, *GAME_TYPES}
        unknown = sorted(str(v) for v in variants if v not in known)
        if unknown:
            raise ValueError(f"variants: unknown {', '.join(map(repr, unknown))}; known: {', '.join(sorted(known))}")
    if not isinstance(sources, str | os.PathLike | Iterable):
        raise TypeError(f"load_games reads a path (str or pathlib.Path) or a list of them, not {sources!r}")
    paths = [sources] if isinstance(sources, str | os.PathLike) else list(sources)
    for path in paths:
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"load_games reads paths (str or pathlib.Path), not {type(path).__name__} {path!r}")
    units = _units(paths)
    wanted = ("games", "moves") if moves else ("games",)
    found: list[dict[str, Columns]] = [{} for _ in units]
    folders = [_cache_folder(unit, cache) for unit in units]
    keys = [{what: unit.key(what) for what in wanted} if folder is not None else {}  # before parsing begins
            for unit, folder in zip(units, folders, strict=True)]
    for i, (unit, folder) in enumerate(zip(units, folders, strict=True)):
        if folder is None:
            continue
        for what in wanted:
            columns = _cache_read(_cache_file(folder, unit, what), keys[i][what])
            if columns is not None:
                found[i][what] = columns
    missing = [i for i in range(len(units)) if len(found[i]) < len(wanted)]
    unwritable = set()
    for k, (games, move_cols) in _parse([units[i] for i in missing], moves, workers, progress):
        i = missing[k]
        found[i] = {"games": games} if move_cols is None else {"games": games, "moves": move_cols}
        folder = folders[i]
        if folder is None:
            continue
        for what in wanted:
            if not _cache_write(_cache_file(folder, units[i], what), keys[i][what], found[i][what]):
                unwritable.add(str(folder))
    if unwritable:
        warnings.warn(f"cannot write the cache in {', '.join(sorted(unwritable))}: the next load parses again "
                      f"(pass cache=FOLDER or set ${CACHE_ENV})", stacklevel=2)
    problems = [str(e) for parts in found for e in parts["games"]["errors"]]
    if problems and errors == "raise":
        raise RecordError(problems[0])
    return _assemble(found, variants, moves, problems,
                     tuple(str(p) for p in paths))


# -- building the tables ----------------------------------------------------------------------------------------


def _layout(variant: str) -> Ruleset | None:
    """The rule set whose board and symbols a variant's setup strings use: the kit's own, classic for the
    Gravon types the kit does not play (same board, classic pieces), ``None`` for anything else."""
    from strategolab.gravon import GAME_TYPES

    if variant in RULESETS:
        return RULESETS[variant]
    return CLASSIC if variant in GAME_TYPES else None


def _setup_bytes(strings: Sequence[str] | np.ndarray, width: int) -> np.ndarray:
    """Setup strings of one variant as an ``(n, squares)`` uint8 array of their symbols (``/`` removed)."""
    flat = "".join(strings).replace("/", "").encode("ascii")
    return np.frombuffer(flat, dtype=np.uint8).reshape(len(strings), width)


def _symbol_codes(rs: Ruleset) -> np.ndarray:
    """A lookup from symbol byte to piece code (-1 for '.' and anything unknown)."""
    lut = np.full(256, -1, dtype=np.int16)
    for p in rs.piece_types:
        lut[ord(rs.symbol(p))] = _PIECE_CODE[p.name]
    return lut


def _categorical(codes: np.ndarray, categories: Sequence[str]) -> pd.Categorical:
    return pd.Categorical.from_codes(codes.astype(np.int64), categories=list(categories))


def _assemble(found: list[dict[str, Columns]], variants: frozenset[str] | None, with_moves: bool,
              problems: list[str], sources: tuple[str, ...]) -> GameTables:
    """Join the units' columns into the four tables, numbering games 0.. in reading order."""
    games_cols = [parts["games"] for parts in found]
    keep = [np.ones(len(c["length"]), bool) if variants is None else np.isin(c["variant"], list(variants))
            for c in games_cols]
    offsets = np.cumsum([0] + [int(k.sum()) for k in keep])
    g = {key: np.concatenate([c[key][k] for c, k in zip(games_cols, keep, strict=True)]) if games_cols else
         np.asarray([], dtype=np.int32 if key == "length" else np.int16 if key == "result_type" else str)
         for key in (*_Collector.GAME_TEXT, "result_type", "length")}
    n = len(g["length"])
    result = pd.Categorical(g["result"].astype(object), categories=RESULTS)
    winner = np.select([g["result"] == "1-0", g["result"] == "0-1"], [0, 1], -1)
    has_setup = (g["red_setup"] != "") & (g["blue_setup"] != "")
    games = pd.DataFrame({
        "source": g["source"].astype(object),
        "variant": pd.Categorical(g["variant"].astype(object)),
        "result": result,
        "winner": _categorical(winner, PLAYER_NAMES),
        "termination": pd.Categorical(g["termination"].astype(object)),
        "result_type": pd.arrays.IntegerArray(g["result_type"], g["result_type"] < 0),  # -1: no result
        "length": g["length"],
        "red": g["red"].astype(object),
        "blue": g["blue"].astype(object),
        "has_setup": has_setup,
    }, index=pd.RangeIndex(n, name="game"))
    setups = _setups_table(g, winner)
    pieces = _pieces_table(setups)
    moves = _moves_table(found, keep, offsets) if with_moves else None
    return GameTables(games, setups, pieces, moves, problems, sources)


def _setups_table(g: Columns, winner: np.ndarray) -> pd.DataFrame:
    """One row per deployed setup (game, side), with its outcome for that side and whether it is legal."""
    n = len(g["length"])
    both = np.stack([g["red_setup"], g["blue_setup"]], axis=1).ravel() if n else np.asarray([], dtype=str)
    game = np.repeat(np.arange(n), 2)
    side = np.tile(np.array([0, 1]), n)
    present = both != ""
    game, side, strings = game[present], side[present], both[present]
    variant = g["variant"][game] if n else np.asarray([], dtype=str)
    result = g["result"][game] if n else np.asarray([], dtype=str)
    w = winner[game]
    outcome = np.select([w == side, (w >= 0) & (w != side), result == "1/2-1/2"], [0, 1, 2], 3)
    valid = np.zeros(len(strings), dtype=bool)
    for name in np.unique(variant):
        rs = RULESETS.get(str(name))
        if rs is None:
            continue
        rows = np.flatnonzero(variant == name)
        matrix = _setup_bytes(strings[rows], len(geometry(rs).setup_squares[0]))
        ok = np.ones(len(rows), dtype=bool)
        for p, count in rs.army:
            ok &= (matrix == ord(rs.symbol(p))).sum(axis=1) == count
        valid[rows] = ok
    return pd.DataFrame({
        "game": game.astype(np.int32),
        "side": _categorical(side, PLAYER_NAMES),
        "variant": pd.Categorical(variant.astype(object)),
        "outcome": _categorical(outcome, OUTCOMES),
        "setup": strings.astype(object),
        "valid": valid,
    })


def _pieces_table(setups: pd.DataFrame) -> pd.DataFrame:
    """One row per placed piece, on its owner's reading-order square and owner-relative row and column."""
    parts = []
    variant = setups["variant"].to_numpy().astype(str)
    width = 10
    for name in np.unique(variant):
        rs = _layout(str(name))
        if rs is None:
            continue
        width = max(width, rs.width)
        rows = np.flatnonzero(variant == name)
        squares = geometry(rs).setup_squares[0]  # Red's squares are the owner-relative coordinates
        matrix = _setup_bytes(setups["setup"].to_numpy()[rows], len(squares))
        codes = _symbol_codes(rs)[matrix]
        setup_row, index = np.nonzero(codes >= 0)
        parts.append((rows[setup_row], index, codes[setup_row, index],
                      np.array([sq // 16 + 1 for sq in squares], dtype=np.int8)[index],
                      np.array([sq % 16 for sq in squares], dtype=np.int8)[index]))
    if parts:
        setup_rows, index, piece, row, col = (np.concatenate(a) for a in zip(*parts, strict=True))
        order = np.argsort(setup_rows, kind="stable")
        setup_rows, index, piece, row, col = (a[order] for a in (setup_rows, index, piece, row, col))
    else:
        setup_rows = index = piece = row = col = np.zeros(0, dtype=np.int64)
    return pd.DataFrame({
        "game": setups["game"].to_numpy()[setup_rows],
        "side": setups["side"].array.take(setup_rows),
        "variant": setups["variant"].array.take(setup_rows),
        "outcome": setups["outcome"].array.take(setup_rows),
        "square": index.astype(np.int8),
        "row": row.astype(np.int8),
        "column": _categorical(col, COLUMNS[:width]),
        "piece": _categorical(piece, PIECE_NAMES),
    })


def _moves_table(found: list[dict[str, Columns]], keep: list[np.ndarray], offsets: np.ndarray) -> pd.DataFrame:
    """One row per move: game, ply (from 1), side, squares as on the board, piece, victim and battle."""
    parts: dict[str, list[np.ndarray]] = {k: [] for k in ("game", "side", "from", "to", "piece", "defender",
                                                          "battle")}
    for parts_of_unit, k, offset in zip(found, keep, offsets, strict=False):
        m = parts_of_unit["moves"]
        new_number = np.cumsum(k) - 1 + offset  # the unit's game i becomes game new_number[i] if kept
        rows = k[m["game"]] if len(m["game"]) else np.zeros(0, dtype=bool)
        for key in parts:
            parts[key].append(new_number[m["game"][rows]] if key == "game" else m[key][rows])
    col = {key: np.concatenate(v) if v else np.zeros(0, dtype=np.int32) for key, v in parts.items()}
    game = col["game"].astype(np.int32)
    starts = np.r_[0, np.flatnonzero(np.diff(game)) + 1] if len(game) else np.zeros(0, dtype=np.int64)
    ply = np.arange(len(game)) - np.repeat(starts, np.diff(np.r_[starts, len(game)])) + 1
    top = int(max(col["from"].max(initial=0), col["to"].max(initial=0))) + 1
    names = [square_name(s) for s in range(top)]
    defender = col["defender"].astype(np.int64)
    return pd.DataFrame({
        "game": game,
        "ply": ply.astype(np.int32),
        "side": _categorical(col["side"], PLAYER_NAMES),
        "from": _categorical(col["from"], names),
        "to": _categorical(col["to"], names),
        "piece": _categorical(col["piece"], PIECE_NAMES),
        "defender": _categorical(np.where(defender < 0, -1, defender), PIECE_NAMES),
        "battle": _categorical(np.where(col["battle"] > 0, col["battle"].astype(np.int64) - 1, -1), BATTLES),
    })


@dataclass
class GameTables:
    """Games as pandas tables; ``game`` (0, 1, ...) joins them.

    - ``games``: one row per game, indexed by ``game``: ``source`` (``zip:member`` or ``file#n``),
      ``variant``, ``result`` (``1-0`` Red won, ``0-1``, ``1/2-1/2``, ``*`` none), ``winner`` (Red/Blue),
      ``termination``, ``result_type`` (Gravon's code), ``length`` (moves), ``red``/``blue`` players,
      ``has_setup`` (both sides deployed in their setup rows).
    - ``setups``: one row per setup: ``game``, ``side``, ``variant``, ``outcome`` for that side (won, lost,
      draw, unknown), ``setup`` (a setup string, as :class:`~strategolab.setups.Setup` writes it) and
      ``valid`` (a complete legal setup of a kit rule set).
    - ``pieces``: one row per placed piece: ``game``, ``side``, ``variant``, ``outcome``, ``square``
      (reading-order index from the owner's side), ``row`` (1 = the owner's back row), ``column`` (``A`` =
      the owner's left), ``piece``.
    - ``moves`` (if asked for): ``game``, ``ply``, ``side``, ``from``, ``to`` (board squares), ``piece``
      (the mover), ``defender`` and ``battle`` (empty for a quiet move; ``piece`` empty where the pieces
      could not be followed, e.g. Gravon rescues).
    - ``errors``: the problems met (bad files and games were left out or read as far as they went).
    """

    games: pd.DataFrame
    setups: pd.DataFrame
    pieces: pd.DataFrame
    moves: pd.DataFrame | None = None
    errors: list[str] = field(default_factory=list)
    sources: tuple[str, ...] = ()
    _stats: dict[str, SetupStats] = field(default_factory=dict, init=False, repr=False)  # tallies, per variant

    def __repr__(self) -> str:
        moves = "" if self.moves is None else f", {len(self.moves)} moves"
        return (f"<GameTables {len(self.games)} games, {len(self.setups)} setups, {len(self.pieces)} pieces"
                f"{moves}, {len(self.errors)} errors>")

    @property
    def variants(self) -> tuple[str, ...]:
        """The kit rule sets with legal setups in these tables, most setups first."""
        counts = self.setups.loc[self.setups["valid"], "variant"].value_counts()
        return tuple(str(v) for v, c in counts.items() if c > 0 and str(v) in RULESETS)

    def summary(self) -> pd.DataFrame:
        """Per variant: games, games with both setups, decided games, draws, median length."""
        g = self.games
        out = g.groupby("variant", observed=True).agg(
            games=("length", "size"), with_setups=("has_setup", "sum"),
            decided=("winner", lambda w: int(w.notna().sum())),
            draws=("result", lambda r: int((r == "1/2-1/2").sum())), median_length=("length", "median"))
        return out.sort_values("games", ascending=False)

    def setup_stats(self, variant: str = "classic") -> SetupStats:
        """Per-square counts of the legal setups of ``variant``, for all / winners / losers: the same kind of
        table as the shipped one (:func:`strategolab.setupstats.load`), so every statistic takes either."""
        if variant not in self._stats:
            rs = get_ruleset(variant)
            frame, matrix = setup_matrix(self, rs.name)
            outcome = frame["outcome"].to_numpy()
            masks = {"all": np.ones(len(frame), dtype=bool), "winners": outcome == "won", "losers": outcome == "lost"}
            counts = {group: {p.name: tuple(int(x) for x in (matrix[mask] == ord(rs.symbol(p))).sum(axis=0))
                              for p in rs.piece_types} for group, mask in masks.items()}
            self._stats[variant] = SetupStats(rs, {group: int(m.sum()) for group, m in masks.items()}, counts,
                                              source=", ".join(Path(s).name for s in self.sources))
        return self._stats[variant]


# -- statistics on per-square counts -------------------------------------------------------------------------


StatsSource = SetupStats | GameTables


def _as_stats(source: StatsSource, variant: str | None) -> SetupStats:
    if isinstance(source, GameTables):
        return source.setup_stats(variant or "classic")
    if variant is not None and get_ruleset(variant).name != source.ruleset.name:
        raise ValueError(f"this table is for {source.ruleset.name}, not {variant}")
    return source


def frequencies(source: StatsSource, piece: str, group: str = "all", variant: str | None = None) -> pd.Series:
    """For each setup square (reading order from the owner's side), the share of setups of ``group`` with
    ``piece`` there; ``group`` ``"winners - losers"`` gives the difference of the two shares."""
    stats = _as_stats(source, variant)
    if group == DIFFERENCE:
        values = np.subtract(stats.frequency(piece, "winners"), stats.frequency(piece, "losers"))
    elif group in GROUPS:
        values = np.asarray(stats.frequency(piece, group))
    else:
        raise ValueError(f"group {group!r}: expected one of {', '.join(EXPLORER_GROUPS)}")
    return pd.Series(values, index=pd.RangeIndex(len(values), name="square"), name=stats.ruleset.piece_type(piece).name)


def _owner_coordinates(rs: Ruleset) -> tuple[list[int], list[str]]:
    """Owner-relative row (1 = back) and column letter of each reading-order setup square."""
    squares = geometry(rs).setup_squares[0]
    return [sq // 16 + 1 for sq in squares], [COLUMNS[sq % 16] for sq in squares]


def heatmap_matrix(source: StatsSource, piece: str, group: str = "all", variant: str | None = None) -> pd.DataFrame:
    """The shares of :func:`frequencies` as the owner sees the setup area: rows front row first (as drawn,
    with the owner at the bottom), columns from the owner's left."""
    stats = _as_stats(source, variant)
    values = frequencies(stats, piece, group)
    rows, cols = _owner_coordinates(stats.ruleset)
    frame = pd.DataFrame({"row": rows, "column": cols, "share": values.to_numpy()})
    matrix = frame.pivot(index="row", columns="column", values="share").sort_index(ascending=False)
    matrix.columns.name = None
    return matrix


def heatmap_squares(source: StatsSource, piece: str, group: str = "all", variant: str | None = None
                    ) -> dict[Square, float]:
    """The shares of :func:`frequencies` on the board squares of Red's setup area, for
    :func:`strategolab.draw.heatmap`."""
    stats = _as_stats(source, variant)
    values = frequencies(stats, piece, group)
    return dict(zip(geometry(stats.ruleset).setup_squares[0], values.tolist(), strict=True))


def _along(source: StatsSource, piece: str, group: str, variant: str | None, axis: int) -> pd.Series:
    stats = _as_stats(source, variant)
    values = frequencies(stats, piece, group).to_numpy()
    keys = _owner_coordinates(stats.ruleset)[axis]
    series = pd.Series(values, index=keys).groupby(level=0).sum().sort_index()
    total = series.sum()
    series = series / total if total else series
    series.index.name = ("row", "column")[axis]
    series.name = stats.ruleset.piece_type(piece).name
    return series


def piece_rows(source: StatsSource, piece: str = "Flag", group: str = "all", variant: str | None = None) -> pd.Series:
    """How a piece type's placements spread over the rows, seen from the owner's side (row 1 = the back
    row): shares summing to 1.  For the Flag, the share of setups with the Flag on each row."""
    return _along(source, piece, group, variant, 0)


def piece_columns(source: StatsSource, piece: str = "Flag", group: str = "all", variant: str | None = None
                  ) -> pd.Series:
    """How a piece type's placements spread over the columns, ``A`` being the owner's left."""
    return _along(source, piece, group, variant, 1)


def wilson_interval(successes: Any, trials: Any, z: float = 1.96) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of a proportion (default 95%), element-wise; NaN where there are no trials.

    Wilson's interval stays inside [0, 1] and behaves for small counts and rates near 0 or 1, where the
    textbook normal interval does not -- and rare Flag squares have small counts.
    """
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denominator = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denominator
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = np.where(n > 0, np.clip(centre - half, 0, 1), np.nan)
    high = np.where(n > 0, np.clip(centre + half, 0, 1), np.nan)
    return low, high


def _rate_table(index: pd.Index, wins: np.ndarray, losses: np.ndarray, z: float) -> pd.DataFrame:
    decided = wins + losses
    low, high = wilson_interval(wins, decided, z)
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(decided > 0, wins / np.maximum(decided, 1), np.nan)
    return pd.DataFrame({"setups": decided, "wins": wins, "win_rate": rate, "low": low, "high": high}, index=index)


def win_rate_by_position(source: StatsSource, piece: str = "Flag", by: str = "square", variant: str | None = None,
                         z: float = 1.96) -> pd.DataFrame:
    """How often a setup won, by where ``piece`` stood, with Wilson intervals (decided games only).

    ``by`` is ``"square"`` (index: the square name in Red's coordinates, i.e. seen from the owner),
    ``"row"`` or ``"column"``; rows and columns need a piece the army has once (the Flag, the Marshal), so
    each setup counts once.
    """
    stats = _as_stats(source, variant)
    rs = stats.ruleset
    kind = rs.piece_type(piece)
    wins = np.asarray(stats.counts["winners"][kind.name])
    losses = np.asarray(stats.counts["losers"][kind.name])
    rows, cols = _owner_coordinates(rs)
    if by == "square":
        index = pd.Index([f"{c}{r}" for r, c in zip(rows, cols, strict=True)], name="square")
        return _rate_table(index, wins, losses, z)
    if by not in ("row", "column"):
        raise ValueError(f"by={by!r}: expected 'square', 'row' or 'column'")
    if rs.count(kind) != 1:
        raise ValueError(f"{rs.name} has {rs.count(kind)} × {kind.name}: a setup would count once per piece; "
                         "use by='square'")
    keys = pd.Index(rows if by == "row" else cols, name=by)
    frame = pd.DataFrame({"wins": wins, "losses": losses}, index=keys).groupby(level=0).sum().sort_index()
    return _rate_table(frame.index, frame["wins"].to_numpy(), frame["losses"].to_numpy(), z)


def win_rates(frame: pd.DataFrame, by: str | Sequence[str], z: float = 1.96) -> pd.DataFrame:
    """Win rates with Wilson intervals of the setups in ``frame`` (a table with an ``outcome`` column, like
    :attr:`GameTables.setups` or :func:`flag_protection`), grouped by one or more columns."""
    won = frame["outcome"] == "won"
    lost = frame["outcome"] == "lost"
    keys = [by] if isinstance(by, str) else list(by)
    counts = pd.DataFrame({"won": won, "lost": lost}).join(frame[keys]).groupby(keys, observed=True).sum()
    return _rate_table(counts.index, counts["won"].to_numpy(), counts["lost"].to_numpy(), z)


# -- statistics on whole setups --------------------------------------------------------------------------------


def setup_matrix(source: GameTables | pd.DataFrame, variant: str = "classic") -> tuple[pd.DataFrame, np.ndarray]:
    """The legal setups of ``variant`` and their symbols as an ``(n, squares)`` uint8 array (reading order),
    the form in which whole setups are compared quickly."""
    setups = source.setups if isinstance(source, GameTables) else source
    rs = get_ruleset(variant)
    frame = setups[(setups["variant"] == rs.name) & setups["valid"]]
    return frame, _setup_bytes(frame["setup"].to_numpy(), len(geometry(rs).setup_squares[0]))


def flag_protection(source: GameTables | pd.DataFrame, variant: str = "classic") -> pd.DataFrame:
    """For each legal setup: where the Flag stands, how many squares a piece could attack it from
    (``neighbours``: land squares next to it, including those in front of the setup area), how many of them
    hold the owner's Bombs (or Mines), and ``surrounded`` -- every one of them does.

    Defined this way a Flag on the front row is never surrounded (the square in front of it is open), while a
    Flag beside a lake needs no Bomb on the lake side.
    """
    rs = get_ruleset(variant)
    frame, matrix = setup_matrix(source, rs.name)
    geo = geometry(rs)
    squares = geo.setup_squares[0]
    index = {sq: i for i, sq in enumerate(squares)}
    outside = len(squares)  # a sentinel column: a square outside the setup area never holds a Bomb
    neighbours = np.full((len(squares), 4), -1, dtype=np.int64)
    for i, sq in enumerate(squares):
        for k, n in enumerate(geo.neighbours[sq]):
            neighbours[i, k] = index.get(n, outside)
    flag = ord(rs.symbol(next(p for p in rs.piece_types if p.is_flag)))
    walls = [ord(rs.symbol(p)) for p in rs.piece_types if not p.movable and not p.is_flag]
    where = (matrix == flag).argmax(axis=1)
    bomb = np.zeros((len(frame), len(squares) + 1), dtype=bool)
    bomb[:, :-1] = np.isin(matrix, walls)
    around = neighbours[where]
    real = around >= 0
    bombs = (bomb[np.arange(len(frame))[:, None], np.where(real, around, outside)] & real).sum(axis=1)
    rows, cols = _owner_coordinates(rs)
    return pd.DataFrame({
        "game": frame["game"].to_numpy(),
        "side": frame["side"].to_numpy(),
        "outcome": frame["outcome"].to_numpy(),
        "flag_row": np.asarray(rows, dtype=np.int8)[where],
        "flag_column": pd.Categorical(np.asarray(cols)[where], categories=sorted(set(cols))),
        "neighbours": real.sum(axis=1),
        "bomb_neighbours": bombs,
        "surrounded": bombs == real.sum(axis=1),
    }, index=frame.index)


def _pattern(setups: pd.Series, rs: Ruleset, rows: Iterable[int] | None) -> pd.Series:
    """Setup strings cut down to some owner rows (1 = back row), front row first like the full string."""
    if rows is None:
        return setups
    ordered = sorted(set(_owner_coordinates(rs)[0]), reverse=True)  # the string's rows, front first
    wanted = set(rows)
    unknown = wanted - set(ordered)
    if unknown:
        raise ValueError(f"rows {sorted(unknown)} are not setup rows of {rs.name} (rows 1..{len(ordered)})")
    keep = [k for k, r in enumerate(ordered) if r in wanted]
    return setups.map(lambda s: "/".join(s.split("/")[k] for k in keep))


def most_common_setups(source: GameTables | pd.DataFrame, variant: str = "classic", n: int = 10,
                       rows: Iterable[int] | None = None) -> pd.DataFrame:
    """The ``n`` most frequent setups (or, with ``rows``, arrangements of those owner rows: ``rows=[1]`` is
    the back row), with how often they were used, won and lost."""
    rs = get_ruleset(variant)
    frame, _ = setup_matrix(source, rs.name)
    pattern = _pattern(frame["setup"], rs, rows)
    table = pd.DataFrame({"pattern": pattern.to_numpy(), "won": (frame["outcome"] == "won").to_numpy(),
                          "lost": (frame["outcome"] == "lost").to_numpy()})
    grouped = table.groupby("pattern").agg(count=("won", "size"), won=("won", "sum"), lost=("lost", "sum"))
    top = grouped.sort_values(["count", "won"], ascending=False).head(n)
    top.insert(1, "share", top["count"] / max(len(frame), 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        top["win_rate"] = top["won"] / (top["won"] + top["lost"])
    return top.reset_index()


def _symbols(setup: Setup | str, rs: Ruleset) -> np.ndarray:
    text = str(setup.validate() if isinstance(setup, Setup) else Setup.parse(setup, rs))
    return _setup_bytes([text], len(geometry(rs).setup_squares[0]))[0]


def _similarities(matrix: np.ndarray, one: np.ndarray) -> np.ndarray:
    """Share of squares holding the same piece, among the squares occupied in either setup (row-wise)."""
    empty = ord(".")
    same = ((matrix == one) & (one != empty)).sum(axis=1)
    either = ((matrix != empty) | (one != empty)).sum(axis=1)
    return same / np.maximum(either, 1)


def similarity(a: Setup | str, b: Setup | str, ruleset: str | Ruleset | None = None) -> float:
    """How alike two setups are: the share of squares that hold the same piece type in both, among the
    squares occupied in either (so the many empty squares of a Barrage setup do not count as alike).  1.0 is
    the same setup; two random classic setups share about 12% of their squares."""
    rs = a.ruleset if isinstance(a, Setup) else get_ruleset(ruleset)
    return float(_similarities(_symbols(a, rs)[None, :], _symbols(b, rs))[0])


def nearest_setups(setup: Setup | str, source: GameTables | pd.DataFrame, variant: str = "classic", k: int = 5
                   ) -> pd.DataFrame:
    """The ``k`` setups in the tables most similar to ``setup`` (see :func:`similarity`), most similar first."""
    rs = get_ruleset(variant)
    frame, matrix = setup_matrix(source, rs.name)
    scores = _similarities(matrix, _symbols(setup, rs))
    best = np.argsort(-scores, kind="stable")[:k]
    out = frame.iloc[best][["game", "side", "outcome", "setup"]].copy()
    out["similarity"] = scores[best]
    return out


def similarity_profile(source: GameTables | pd.DataFrame, variant: str = "classic", sample: int = 500,
                       seed: int = 0) -> pd.DataFrame:
    """How similar real setups are, for a random sample of them: the similarity to the nearest *other*
    setup in the tables, the mean similarity to all others, and whether an identical setup was used again."""
    rs = get_ruleset(variant)
    frame, matrix = setup_matrix(source, rs.name)
    rng = np.random.default_rng(seed)
    size = min(sample, len(frame)) if len(frame) > 1 else 0  # a lone setup has no other to compare with
    picks = np.sort(rng.choice(len(frame), size=size, replace=False))
    nearest, mean = [], []
    for i in picks:
        scores = _similarities(matrix, matrix[i])
        scores[i] = np.nan
        nearest.append(np.nanmax(scores))
        mean.append(np.nanmean(scores))
    out = frame.iloc[list(picks)][["game", "side", "outcome"]].copy()
    out["nearest"] = nearest
    out["mean"] = mean
    out["reused"] = out["nearest"] == 1.0
    return out


# -- the heatmap explorer (the logic behind the notebook's dropdowns) -------------------------------------------


def _share(value: float) -> str:
    """A share as a square label: whole percents, with a decimal below 10% so rare squares do not read 0%."""
    return f"{value:.0%}" if value >= 0.095 else f"{value:.1%}"


class HeatmapExplorer:
    """Choose a variant, a piece type and a group (all, winners, losers, winners - losers) and get the heatmap.

    It reads the shipped tables (:func:`strategolab.setupstats.load`) or computes them from
    :class:`GameTables`; the notebook's dropdowns call :meth:`select` and show :meth:`draw`, and tests drive
    the same methods without widgets.
    """

    def __init__(self, source: GameTables | Mapping[str, SetupStats] | None = None, *, label: str = "") -> None:
        if source is None:
            self._tables: dict[str, SetupStats] = {v: setupstats.load(v) for v in ("classic", "barrage")}
            self.label = label or "shipped table"
        elif isinstance(source, GameTables):
            self._tables = {v: source.setup_stats(v) for v in source.variants}
            self.label = label or "games loaded"
        else:
            self._tables = dict(source)
            self.label = label
        if not self._tables:
            raise ValueError("no setups to explore: the tables hold no legal setup of a kit rule set")
        self.variant = "classic" if "classic" in self._tables else next(iter(self._tables))
        self.piece = "Flag"
        self.group = "all"

    @property
    def variants(self) -> tuple[str, ...]:
        return tuple(self._tables)

    @property
    def groups(self) -> tuple[str, ...]:
        return EXPLORER_GROUPS

    def pieces(self, variant: str | None = None) -> tuple[str, ...]:
        """The piece types of a variant (default: the one selected), strongest first."""
        return tuple(p.name for p in self._tables[variant or self.variant].ruleset.piece_types)

    @property
    def stats(self) -> SetupStats:
        return self._tables[self.variant]

    def select(self, *, variant: str | None = None, piece: str | None = None, group: str | None = None
               ) -> HeatmapExplorer:
        """Change any of the three choices; a piece the new variant lacks falls back to its Flag."""
        if variant is not None:
            if variant not in self._tables:
                raise ValueError(f"variant {variant!r}: expected one of {', '.join(self._tables)}")
            self.variant = variant
        if group is not None:
            if group not in EXPLORER_GROUPS:
                raise ValueError(f"group {group!r}: expected one of {', '.join(EXPLORER_GROUPS)}")
            self.group = group
        if piece is not None:
            if piece not in self.pieces():
                raise ValueError(f"{self.variant} has no {piece!r} (pieces: {', '.join(self.pieces())})")
            self.piece = piece
        elif self.piece not in self.pieces():
            self.piece = "Flag"
        return self

    def values(self) -> dict[Square, float]:
        return heatmap_squares(self.stats, self.piece, self.group)

    def matrix(self) -> pd.DataFrame:
        return heatmap_matrix(self.stats, self.piece, self.group)

    def caption(self) -> str:
        stats = self.stats
        if self.group == DIFFERENCE:
            who = f"winners ({stats.setups['winners']:,}) minus losers ({stats.setups['losers']:,})"
        elif self.group == "all":
            who = f"all {stats.setups['all']:,} setups"
        else:
            who = f"the {self.group}' {stats.setups[self.group]:,} setups"
        suffix = f" ({self.label})" if self.label else ""
        return f"{self.piece} in {self.variant}: {who}{suffix}"

    def draw(self, ax: Axes | None = None, **kwargs: Any) -> BoardArtists:
        """The heatmap on the owner's setup zone (drawn as Red's rows, row 1 the back row), drawn by
        :func:`strategolab.draw.heatmap`."""
        from strategolab import draw

        values: dict[Square | str, float] = {sq: v for sq, v in self.values().items()}  # the drawer's key type
        options: dict[str, Any] = {"title": self.caption(), "colorbar_label": "share of setups", "fmt": _share,
                                   "rows": len(self.stats.ruleset.setup_rows[0])}  # the setup zone, framed
        if self.group == DIFFERENCE:
            top = max((abs(v) for v in values.values()), default=0.0) or 0.01
            options.update(cmap="PuOr", vmin=-top, vmax=top, fmt=lambda v: f"{100 * v:+.1f}",
                           colorbar_label="winners − losers (percentage points)")
        options.update(kwargs)
        return draw.heatmap(values, self.stats.ruleset, ax, **options)
