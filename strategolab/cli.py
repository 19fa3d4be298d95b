"""The ``strategolab`` command: check, convert and summarize game records in bulk.

    strategolab validate PATH...           every error with file:line:column; exit 1 if any
    strategolab convert PATH... -o OUT     the kit's notation (.sgn) <-> Gravon XML (.xml, .zip)
    strategolab info PATH...               a table of games, variants, results, terminations, lengths
    strategolab selfplay -o OUT            computer games written as records
    strategolab ucc-bot --level L          a computer level as a UCC 2012 competition bot (stdin/stdout)

Inputs are files in the kit's notation (``.sgn``), Gravon XML files (``.xml``), Gravon monthly zips (``.zip``)
and folders of them.  Gravon archives are cut into parts of a few hundred games that worker processes
read, replay and convert (``--jobs``), so a whole archive uses every core; games come back in input order.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import statistics
import sys
import threading
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, NamedTuple, NoReturn

from strategolab.archive import (
    CONVERTIBLE,
    UNREPRESENTABLE,
    ConversionError,
    UnrepresentableError,
    recorded_result,
    replay,
    termination_for,
    to_game,
    to_gravon,
)
from strategolab.errors import RecordError, printable
from strategolab.files import atomic_output
from strategolab.gravon import (
    GravonError,
    GravonGame,
    Part,
    close_parts,
    dump_gravon,
    dump_gravon_zip,
    read_part,
    split_parts,
)
from strategolab.notation import ScannedGame, read_games, scan_games, write_game
from strategolab.processes import stop_now, worker_pool
from strategolab.records import Game
from strategolab.rules import get_ruleset

OK, PROBLEMS, USAGE, INTERNAL = 0, 1, 2, 3  # exit codes; interrupted: 128 + the signal's number
MESSAGE_CHARS = 2000  # a message line is cut to this many characters
NOTATION_SUFFIXES = (".sgn",)
GRAVON_SUFFIXES = (".xml", ".zip")

EXIT_CODES = """exit codes:
  0  everything was read (and written) without a problem
  1  problems were found: errors in the input, or games that could not be converted
  2  the command line was wrong, or an input or output path cannot be used
  3  an internal error: a bug in strategolab, not a problem with the input (please report it)
  130, 143  interrupted (Ctrl-C, SIGTERM): the output file is left as it was"""
FORMATS = """formats (chosen by the file name's ending):
  .sgn   the kit's own notation (docs/notation.md), any number of games per file
  .xml   one Gravon game (strados2 XML, as in the Gravon archive)
  .zip   a Gravon monthly zip: one XML file per game
  a folder stands for the .sgn, .xml and .zip files directly in it"""


class UsageError(Exception):
    """A command line the command cannot carry out: a missing input, an output that would overwrite one."""


class Item(NamedTuple):
    """What one game (or one unreadable file) came to, as a worker process hands it back."""

    source: str
    variant: str = ""  # the rule set (or Gravon game type) name; empty: not a game, only errors
    result: str = "*"
    termination: str = ""
    plies: int = 0
    errors: tuple[str, ...] = ()  # what is wrong: unreadable input, illegal moves, contradicting results
    warnings: tuple[str, ...] = ()  # tolerated defects, and games that could not be checked
    text: str | None = None  # the game in the kit's notation (convert)
    skipped: str | None = None  # why the output format cannot hold the game (convert)


# -- one Gravon game: what each command wants to know about it (run in worker processes) ----------------------


def _variant(game: GravonGame) -> str:
    """The kit's rule set a Gravon game converts under, or ``gravon-<type>`` for a type it has none for."""
    rs = CONVERTIBLE.get(game.game_type)
    return rs.name if rs is not None else "gravon-" + game.game_type.replace(" ", "-")


def _summary(game: GravonGame) -> Item:
    """What the file says about a game: variant, result, termination, length, and the reader's warnings."""
    termination = termination_for(game.result_type, game.winner)
    return Item(game.source, _variant(game), recorded_result(game),
                termination.value if termination else game.result_text,
                len(game.moves), warnings=tuple(f"{game.source}: warning: {w}" for w in game.warnings))


def _checked(game: GravonGame) -> Item:
    """Replay the game under its rule set: illegal moves and results the final position contradicts."""
    item = _summary(game)
    rs = CONVERTIBLE.get(game.game_type)
    if rs is None or not game.has_setup:
        why = UNREPRESENTABLE.get(game.game_type, "the file has no <field>, so there is nothing to replay")
        return item._replace(warnings=(*item.warnings, f"{game.source}: not checked: {why}"))
    try:
        played = replay(game, rs)
    except GravonError as e:  # a piece the rule set's army lacks
        return item._replace(errors=(str(e),))
    return item if played.ok else item._replace(errors=(played.describe(),))


def _converted(game: GravonGame) -> Item:
    """The game in the kit's notation, or why it is not."""
    item = _summary(game)
    try:
        return item._replace(text=write_game(to_game(game)))
    except UnrepresentableError as e:
        return item._replace(skipped=e.message)
    except RecordError as e:  # ConversionError, or a GravonError: a field the game's army cannot hold
        return item._replace(errors=(str(e),))


def _part_items(part: Part, each: Callable[[GravonGame], Item]) -> list[Item]:
    return [Item(item.source or part[0], errors=(str(item),)) if isinstance(item, GravonError) else each(item)
            for item in read_part(part)]


def validate_part(part: Part) -> list[Item]:
    """Every game of a part of a Gravon archive, replayed and checked."""
    return _part_items(part, _checked)


def convert_part(part: Part) -> list[Item]:
    """Every game of a part of a Gravon archive, converted to the kit's notation (in ``Item.text``)."""
    return _part_items(part, _converted)


def info_part(part: Part) -> list[Item]:
    """Every game of a part of a Gravon archive, summarized (parsed only, not replayed)."""
    return _part_items(part, _summary)


# -- inputs ----------------------------------------------------------------------------------------------------


def expand(paths: Iterable[str | os.PathLike[str]], suffixes: tuple[str, ...]) -> list[Path]:
    """The files named, folders replaced by the files with these endings directly in them (sorted)."""
    paths = list(paths)
    out: list[Path] = []
    for path in map(Path, paths):
        if path.is_dir():
            out += sorted(p for p in path.iterdir() if p.suffix.lower() in suffixes and p.is_file())
        elif not path.exists():
            raise UsageError(f"{path}: no such file or folder")
        elif path.suffix.lower() not in suffixes:
            raise UsageError(f"{path}: expected a file ending in {', '.join(suffixes)}, or a folder")
        else:
            out.append(path)
    if not out:
        raise UsageError(f"no files ending in {', '.join(suffixes)} in {', '.join(map(str, paths))}")
    return out


def _notation_items(path: Path, with_text: bool, scan: bool = False) -> Iterator[Item]:
    """The games of a file in the kit's notation, read leniently: every problem is reported, none stops it.
    ``scan``: only parsed, not replayed (:func:`~strategolab.notation.scan_games`), as Gravon games for ``info``."""
    reader = scan_games(path, strict=False) if scan else read_games(path, strict=False)
    seen = 0
    with reader:
        for game in reader:
            errors = tuple(str(e) for e in reader.errors[seen:])
            seen = len(reader.errors)
            plies = len(game.moves) if isinstance(game, ScannedGame) else len(game.mainline())
            text = write_game(game) if with_text and not errors and isinstance(game, Game) else None
            yield Item(str(path), game.ruleset.name, game.result, game.headers.get("Termination", ""),
                       plies, errors, text=text)
    if len(reader.errors) > seen:
        yield Item(str(path), errors=tuple(str(e) for e in reader.errors[seen:]))


def items(files: list[Path], work: Callable[[Part], list[Item]], jobs: int, *,
          with_text: bool = False, scan: bool = False) -> Iterator[Item]:
    """What ``work`` makes of every game in ``files``, in order; Gravon parts run in ``jobs`` processes."""
    parts: dict[Path, list[Part | GravonError]] = {
        f: list(split_parts([f])) for f in files if f.suffix.lower() in GRAVON_SUFFIXES}
    todo = [p for ps in parts.values() for p in ps if not isinstance(p, GravonError)]
    workers = min(jobs, len(todo))
    pool = worker_pool(workers) if workers > 1 else None
    try:
        done = pool.map(work, todo) if pool is not None else map(work, todo)
        for f in files:
            if f not in parts:
                yield from _notation_items(f, with_text, scan)
                continue
            for p in parts[f]:
                yield from [Item(str(f), errors=(str(p),))] if isinstance(p, GravonError) else next(done)
    except BaseException:  # interrupted, or the caller stopped reading: the work still running is not wanted
        if pool is not None:
            stop_now(pool)
            pool = None
        raise
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
        close_parts()


def count_games(files: list[Path]) -> int | None:
    """How many games the files hold, if that is known without reading them (Gravon files only)."""
    if any(f.suffix.lower() not in GRAVON_SUFFIXES for f in files):
        return None
    return sum(len(p[1]) if p[1] is not None else 1
               for p in split_parts(files) if not isinstance(p, GravonError))


class Progress:
    """A progress bar on stderr, only on a terminal and only once a run has taken a moment; messages
    printed through it do not tear the bar."""

    def __init__(self, total: int | None, enabled: bool) -> None:
        self.bar = None
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=" games", file=sys.stderr, disable=None, delay=0.5,
                            dynamic_ncols=True, leave=False)

    def update(self, item: Item) -> None:
        if self.bar is not None and item.variant:
            self.bar.update()

    def print(self, message: str, file: IO[str] | None = None) -> None:
        """Print one message line, control characters escaped (file and member names come from the input)."""
        message = printable(message, MESSAGE_CHARS)
        out = file or sys.stdout
        if self.bar is not None:
            self.bar.write(message, file=out)
        else:
            print(message, file=out)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


# -- the commands -------------------------------------------------------------------------------------------------


def _progress(args: argparse.Namespace, files: list[Path]) -> Progress:
    return Progress(count_games(files) if not args.no_progress else None, not args.no_progress)


def cmd_validate(args: argparse.Namespace) -> int:
    files = expand(args.paths, NOTATION_SUFFIXES + GRAVON_SUFFIXES)
    progress = _progress(args, files)
    games = plies = errors = warnings = 0
    try:
        for item in items(files, validate_part, args.jobs):
            progress.update(item)
            games += bool(item.variant)
            plies += item.plies
            errors += len(item.errors)
            warnings += len(item.warnings)
            for message in item.errors:
                progress.print(message)
            if not args.quiet:
                for message in item.warnings:
                    progress.print(message)
    finally:
        progress.close()
    verdict = "no errors" if not errors else f"{errors} error{'s' if errors != 1 else ''}"
    print(f"{_count(len(files), 'file')}, {_count(games, 'game')}, {_count(plies, 'move')}: {verdict}, "
          f"{_count(warnings, 'warning')}")
    return PROBLEMS if errors else OK


def _check_output(out: Path, inputs: list[Path], force: bool) -> None:
    """Refuse to overwrite an input, ever, and any other existing file without ``--force``."""
    if out.is_dir():
        raise UsageError(f"{out}: is a folder; expected a file name ending in .sgn, .xml or .zip")
    if not out.parent.is_dir():
        raise UsageError(f"{out}: the folder {out.parent} does not exist")
    if out.exists():
        if any(out.samefile(f) for f in inputs):
            raise UsageError(f"{out}: is one of the inputs; the command never overwrites an input")
        if not force:
            raise UsageError(f"{out}: already exists (use --force to replace it)")


def cmd_convert(args: argparse.Namespace) -> int:
    out = Path(args.output)
    suffix = out.suffix.lower()
    if suffix not in NOTATION_SUFFIXES + GRAVON_SUFFIXES:
        raise UsageError(f"{out}: expected an output file ending in .sgn (the kit's notation), .zip (a Gravon "
                         "zip) or .xml (one Gravon game)")
    to_gravon_files = suffix in GRAVON_SUFFIXES
    files = expand(args.paths, NOTATION_SUFFIXES if to_gravon_files else NOTATION_SUFFIXES + GRAVON_SUFFIXES)
    _check_output(out, files, args.force)
    progress = _progress(args, files)
    tally: Counter[str] = Counter()

    def report(item: Item) -> None:
        progress.update(item)
        for message in item.errors:
            progress.print(message)
        tally["errors"] += len(item.errors)
        if item.skipped is not None:
            tally["skipped"] += 1
            progress.print(f"{item.source}: skipped: {item.skipped}")

    try:
        if to_gravon_files:
            written = _write_gravon(out, files, report)
        else:
            written = _write_notation(out, files, args.jobs, report)
    finally:
        progress.close()
    kind = "Gravon XML" if to_gravon_files else "the kit's notation"
    print(f"wrote {written:,} game{'s' if written != 1 else ''} to {out} ({kind}); skipped {tally['skipped']} "
          f"that it cannot hold; {tally['errors']} error{'s' if tally['errors'] != 1 else ''}")
    return PROBLEMS if tally["errors"] or tally["skipped"] else OK


def _write_notation(out: Path, files: list[Path], jobs: int, report: Callable[[Item], None]) -> int:
    written = 0
    with atomic_output(out) as f:
        for item in items(files, convert_part, jobs, with_text=True):
            report(item)
            if item.text is not None:
                f.write("\n" + item.text if written else item.text)
                written += 1
    return written


def _write_gravon(out: Path, files: list[Path], report: Callable[[Item], None]) -> int:
    def exported() -> Iterator[GravonGame]:
        for path in files:
            reader = read_games(path, strict=False)
            seen = 0
            with reader:
                for n, game in enumerate(reader, 1):
                    item = Item(str(path), game.ruleset.name, game.result, plies=len(game.mainline()),
                                errors=tuple(str(e) for e in reader.errors[seen:]))
                    seen = len(reader.errors)
                    if item.errors:
                        report(item)
                        continue
                    try:
                        gravon = to_gravon(game)
                    except UnrepresentableError as e:
                        report(item._replace(skipped=f"game {n}: {e.message}"))
                        continue
                    except ConversionError as e:
                        report(item._replace(errors=(f"{path}: game {n}: {e.message}",)))
                        continue
                    report(item)
                    yield gravon
            if len(reader.errors) > seen:
                report(Item(str(path), errors=tuple(str(e) for e in reader.errors[seen:])))

    if out.suffix.lower() == ".zip":
        return dump_gravon_zip(exported(), out)
    games = list(exported())
    if len(games) != 1:
        raise UsageError(f"{out}: a Gravon .xml file holds exactly one game, the inputs have {len(games)} that "
                         "Gravon can hold; write a .zip instead")
    with atomic_output(out, binary=True) as f:
        f.write(dump_gravon(games[0]))
    return 1


def cmd_info(args: argparse.Namespace) -> int:
    files = expand(args.paths, NOTATION_SUFFIXES + GRAVON_SUFFIXES)
    progress = _progress(args, files)
    rows: list[Item] = []
    errors = 0
    try:
        for item in items(files, info_part, args.jobs, scan=True):
            progress.update(item)
            for message in item.errors:
                progress.print(message)
            errors += len(item.errors)
            if item.variant:
                rows.append(item._replace(warnings=(), text=None))
    finally:
        progress.close()
    print(summary_table(rows, len(files)))
    return PROBLEMS if errors else OK


def _count(n: int, noun: str) -> str:
    """``1 game``, ``2 games``, ``1,200 moves``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def summary_table(rows: list[Item], files: int) -> str:
    """Games per variant with results and lengths, then the terminations, as aligned text."""
    by_variant: dict[str, list[Item]] = defaultdict(list)
    for row in rows:
        by_variant[row.variant].append(row)
    head = ("variant", "games", "Red wins", "Blue wins", "draws", "unfinished", "plies: mean", "median", "max")
    table = [head]
    for name, group in [*sorted(by_variant.items()), ("all", rows)]:
        results = Counter(r.result for r in group)
        lengths = [r.plies for r in group]
        table.append((name, f"{len(group):,}", f"{results['1-0']:,}", f"{results['0-1']:,}",
                      f"{results['1/2-1/2']:,}", f"{results['*']:,}",
                      f"{statistics.fmean(lengths):,.1f}" if lengths else "-",
                      f"{statistics.median(lengths):,.0f}" if lengths else "-", f"{max(lengths, default=0):,}"))
    terminations = Counter(r.termination or "(not recorded)" for r in rows)
    lines = [f"{_count(files, 'file')}, {_count(len(rows), 'game')}, {_count(sum(r.plies for r in rows), 'move')}",
             "", *_aligned(table), "",
             *_aligned([("termination", "games"),
                        *((t, f"{n:,}") for t, n in sorted(terminations.items(), key=lambda tn: (-tn[1], tn[0])))])]
    return "\n".join(lines)


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows as text columns: the first left-aligned, the others right-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True)))
            .rstrip() for r in rows]


# -- selfplay: computer games as records (the players are strategolab.players) -----------------------------------


def cmd_selfplay(args: argparse.Namespace) -> int:
    from strategolab.players import make_player, play_series

    out = Path(args.output)
    if out.suffix.lower() != ".sgn":
        raise UsageError(f"{out}: expected an output file ending in .sgn")
    _check_output(out, [], args.force)
    try:
        rs = get_ruleset(args.ruleset)
        red, blue = make_player(args.red, args.seed), make_player(args.blue, args.seed + 1)
    except ValueError as e:
        raise UsageError(str(e)) from None
    progress = Progress(args.games, not args.no_progress)
    unfinished = written = 0
    try:
        with atomic_output(out) as f:
            for i, (a, b, result) in enumerate(play_series(red, blue, rs, args.games, args.seed,
                                                           alternate=args.alternate, max_plies=args.max_plies)):
                game = result.record({"Event": "self-play", "Round": str(i + 1), "Red": a.name, "Blue": b.name})
                unfinished += result.outcome is None
                if result.reason:  # an external program failed: say so, the series goes on
                    print(f"game {i + 1}: {result.reason}", file=sys.stderr)
                if game is not None:
                    f.write(("\n" if written else "") + write_game(game))
                    written += 1
                progress.update(Item(str(out), rs.name))
    finally:
        progress.close()
        for player in (red, blue):
            getattr(player, "close", lambda: None)()
    print(f"wrote {written} game{'s' if written != 1 else ''} to {out}"
          + (f"; {unfinished} stopped unfinished at --max-plies {args.max_plies}" if unfinished else "")
          + (f"; {args.games - written} forfeited at the setup (not written)" if written < args.games else ""))
    return OK


def cmd_ucc_bot(args: argparse.Namespace) -> int:
    from strategolab.ai import ComputerPlayer, RememberingPlayer
    from strategolab.players import make_player
    from strategolab.ucc import UccError, serve

    try:
        player = make_player(args.level, args.seed)
    except ValueError as e:
        raise UsageError(str(e)) from None
    limit = args.time_limit or None  # 0: no limit
    if args.memory is not None:
        if not isinstance(player, ComputerPlayer):
            raise UsageError(f"--memory needs a computer level ({', '.join(_levels())}), not {args.level!r}")
        if os.path.exists(args.memory) and not os.path.isdir(args.memory):
            raise UsageError(f"--memory {args.memory}: not a folder")
        player = RememberingPlayer(args.memory, args.level, args.seed, time_limit=limit)
    elif isinstance(player, ComputerPlayer):
        player.time_limit = limit
    try:
        return serve(player, sys.stdin, sys.stdout, args.seed)
    except UccError as e:
        print(f"strategolab ucc-bot: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the manager went away mid-game
        return 1


# -- the parser ------------------------------------------------------------------------------------------------


def _common(parser: argparse.ArgumentParser, *, jobs: bool = True) -> None:
    if jobs:
        parser.add_argument("-j", "--jobs", type=_positive, default=os.cpu_count() or 1, metavar="N",
                            help="worker processes for Gravon archives (default: one per core, here "
                                 f"{os.cpu_count() or 1})")
    parser.add_argument("--no-progress", action="store_true",
                        help="never show the progress bar (it is shown on a terminal, on stderr, for long runs)")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 <= value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds, 0 or more, not {text}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, not {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The ``strategolab`` argument parser with its subcommands and their complete help."""
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(
        prog="strategolab", formatter_class=raw,
        description="Check, convert and summarize Stratego game records: the kit's own notation (.sgn) and "
                    "the Gravon archive (strados2 XML files and monthly zips).",
        epilog=f"{FORMATS}\n\n{EXIT_CODES}\n\nRun 'strategolab COMMAND --help' for each command's options.")
    parser.add_argument("--version", action="version", version="%(prog)s 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    p = sub.add_parser(
        "validate", formatter_class=raw, help="check records: every move, battle and result",
        description="Read every game and check it with the rules engine. Records in the kit's notation are read "
                    "as the notation says (every move legal, every stated battle and result matching the "
                    "engine); Gravon games are replayed under the Gravon rule set of their type (gravon-classic, "
                    "gravon-barrage, gravon-duell, gravon-classicfree), and every illegal move and every result "
                    "the final position contradicts is an error. Ultimate Lightning games cannot be replayed "
                    "(the engine does not play its rules): they are listed as warnings, as are the archive "
                    "defects the Gravon reader repairs (a column J written for K, an agreed draw naming a "
                    "winner, a game without a setup).",
        epilog=f"Errors are printed one per line as FILE:LINE:COLUMN: MESSAGE (Gravon games: ZIP:MEMBER: "
               f"MESSAGE), then a summary line.\n\n{FORMATS}\n\n{EXIT_CODES}")
    p.add_argument("paths", nargs="+", metavar="PATH", help=".sgn, .xml or .zip files, or folders of them")
    p.add_argument("-q", "--quiet", action="store_true", help="print only errors and the summary, no warnings")
    _common(p)
    p.set_defaults(run=cmd_validate)

    p = sub.add_parser(
        "convert", formatter_class=raw, help="convert between the kit's notation and Gravon XML",
        description="Convert games between the kit's notation and Gravon XML; the output's ending says which "
                    "way. To .sgn: Gravon games are replayed (every move checked) and written with their Gravon "
                    "data in headers ([GravonResult], [Source]); .sgn inputs are rewritten in canonical form. "
                    "To .zip or .xml: games in the kit's notation are written as strados2 XML (main line only; "
                    "comments and variations have no place there). Games the output format cannot hold are "
                    "skipped and listed with the reason: Ultimate Lightning games and a game without a setup "
                    "for the notation; pocket games, lessons from a mid-game position, and results Gravon has "
                    "no code for for Gravon. The output is written to a temporary file and renamed when "
                    "complete; an input is never overwritten.",
        epilog=f"examples:\n  strategolab convert strados2014-0.zip -o 2014-0.sgn\n"
               f"  strategolab convert ../shared/data/gravon -o gravon.sgn\n"
               f"  strategolab convert club.sgn -o club.zip\n\n{FORMATS}\n\n{EXIT_CODES}")
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="inputs: .sgn, .xml or .zip files or folders (only .sgn when writing Gravon files)")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="the file to write: .sgn (kit's notation), .zip (Gravon zip) or .xml (one Gravon game)")
    p.add_argument("-f", "--force", action="store_true", help="replace OUT if it exists (never an input)")
    _common(p)
    p.set_defaults(run=cmd_convert)

    p = sub.add_parser(
        "info", formatter_class=raw, help="summarize: games per variant, results, terminations, lengths",
        description="Print a table of the games: per variant (the rule set; for Gravon games the rule set they "
                    "convert under, or gravon-<type>) the number of games, Red wins, Blue wins, draws, "
                    "unfinished games and the length in plies (mean, median, longest), then how the games "
                    "ended. Files are only parsed, not replayed (use validate to check every move): errors "
                    "in headers, setups and move text are printed, illegal moves are not.",
        epilog=f"{FORMATS}\n\n{EXIT_CODES}")
    p.add_argument("paths", nargs="+", metavar="PATH", help=".sgn, .xml or .zip files, or folders of them")
    _common(p)
    p.set_defaults(run=cmd_info)

    p = sub.add_parser(
        "selfplay", formatter_class=raw, help="let computer players play and write the games as records",
        description="Play games between two computer players (strategolab.players) and write them to a .sgn "
                    "file, each with its result and termination. Games are reproducible from --seed.",
        epilog=f"players: random, {', '.join(_levels())}, or ucc:COMMAND, an external program that speaks the\n"
               "  UCC 2012 competition protocol (docs/engines.md); it loses a game it cannot finish (a crash, no\n"
               "  answer within 2 s, an illegal move) and the reason is the comment after the last move\n\n"
               "examples:\n  strategolab selfplay -o hard.sgn --red hard --blue medium -n 10 --alternate\n"
               "  strategolab selfplay -o bot.sgn --ruleset ucc --red ucc:\"/tmp/bots/peternlewis\" --blue hard\n\n"
               "exit codes:\n  0  the games were written\n"
               "  2  the command line was wrong, or the output path cannot be used\n"
               "  3  an internal error: a bug in strategolab (please report it)\n"
               "  130, 143  interrupted (Ctrl-C, SIGTERM): the output file is left as it was")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="the .sgn file to write")
    p.add_argument("-n", "--games", type=_positive, default=1, metavar="N", help="how many games (default 1)")
    p.add_argument("--ruleset", default="classic", help="rule set name (default classic)")
    p.add_argument("--red", default="random", help="the Red player: a player name or ucc:COMMAND (default random)")
    p.add_argument("--blue", default="random", help="the Blue player: a player name or ucc:COMMAND (default random)")
    p.add_argument("--seed", type=int, default=0, help="seed of the series (default 0)")
    p.add_argument("--alternate", action="store_true", help="swap colours every other game")
    p.add_argument("--max-plies", type=_positive, default=5000, metavar="N",
                   help="stop a game unfinished after N plies (default 5000)")
    p.add_argument("-f", "--force", action="store_true", help="replace OUT if it exists")
    _common(p, jobs=False)
    p.set_defaults(run=cmd_selfplay)

    p = sub.add_parser(
        "ucc-bot", formatter_class=raw, help="serve a computer player as a UCC 2012 competition bot",
        description="Play one game as a bot of the UCC 2012 Stratego competition (the protocol of its manager, "
                    "braathwaate/strategoevaluator): read the manager's lines on stdin, answer on stdout. The "
                    "player sees the manager's rules (rule set ucc: no two-square, chasing or quiet-move rule) "
                    "and its moves also keep classic's two-square and chasing rules. The manager runs a program "
                    "without arguments: wrap the command in a script (see docs/engines.md).",
        epilog=f"levels: random, {', '.join(_levels())}\n\nexample script for the manager:\n"
               "  #!/bin/sh\n  exec strategolab ucc-bot --level hard --memory ~/.strategolab-memory\n\n"
               "exit codes:\n  0  the game ended (QUIT) or the manager closed the pipe\n"
               "  1  the manager's lines contradict the game so far (the reason is on stderr)\n"
               "  2  the command line was wrong")
    p.add_argument("--level", default="hard", help="the player: random or a computer level (default hard)")
    p.add_argument("--seed", type=int, default=0, help="seed of its setup and moves (default 0)")
    p.add_argument("--memory", metavar="DIR", help="remember what each opponent's setups showed, game after "
                   "game, in folder DIR (made if absent), and expect the next setup to resemble them")
    p.add_argument("--time-limit", type=_seconds, default=2.0, metavar="SECONDS",
                   help="the manager's time for a move (its -T, default 2): a level's second look at its best "
                   "moves takes only what fits in three quarters of it; 0: no limit")
    p.set_defaults(run=cmd_ucc_bot)
    return parser


def _levels() -> list[str]:
    """The computer levels, as the ai module names them."""
    from strategolab.ai import LEVELS

    return list(LEVELS)
class Interrupted(KeyboardInterrupt):
    """SIGTERM, raised where the command is, so that the output's temporary file is removed as on Ctrl-C."""

    signum = signal.SIGTERM


def _terminate(signum: int, frame: object) -> None:
    raise Interrupted


@contextmanager
def _sigterm_interrupts() -> Iterator[None]:
    """While the command runs, SIGTERM unwinds it like Ctrl-C (only the main thread can set handlers)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code (see ``strategolab --help``)."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with _sigterm_interrupts():
            return args.run(args)
    except (UsageError, RecordError) as e:  # RecordError: a Gravon zip that cannot be opened at all
        _usage(parser, str(e))
    except OSError as e:  # an output that cannot be written: a full disk, no permission
        where = f"{printable(os.fspath(e.filename))}: " if e.filename else ""
        _usage(parser, f"{where}{e.strerror or e}")
    except KeyboardInterrupt as e:
        signum = getattr(e, "signum", signal.SIGINT)
        print(f"strategolab: interrupted ({signal.Signals(signum).name}); no output was written",
              file=sys.stderr)
        return 128 + signum
    except Exception as e:  # anything else is a bug in the kit, never the input's fault
        traceback.print_exc()
        print(f"strategolab: internal error (a bug in strategolab, not a problem with the input; please "
              f"report it with the traceback above): {type(e).__name__}: {printable(str(e))}", file=sys.stderr)
        return INTERNAL


def _usage(parser: argparse.ArgumentParser, message: str) -> NoReturn:
    parser.exit(USAGE, f"strategolab: error: {message}\n")


if __name__ == "__main__":
    raise SystemExit(main())
