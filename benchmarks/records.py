"""Throughput of the kit's notation: reading (every move checked by the engine), scanning (headers, start
position and moves, no replay: the like-for-like match for the Gravon XML reader) and writing.

    python benchmarks/records.py [--games 300] [--seed 1] [--repeat 5] [--archive ../shared/data/gravon]

Corpus: random self-play games with a fixed seed, all five rule sets in turn, written plain (numbered moves
and battles, the reader's fast path) and annotated (comments, marks and variations, the full tokeniser).
If the Gravon reader and the shared archive are present, one monthly zip of real games is also converted
to the notation and the reader is compared, per move and on the same games, with the Gravon XML reader
alone and with the Gravon reader plus the engine's checked replay.  Figures are medians of interleaved runs.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path

import strategolab as sl
from strategolab.notation import read_games, scan_games, write_game, write_games
from strategolab.records import MARK_SYMBOLS, Game, GameNode

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_ARCHIVE = ROOT.parent / "shared" / "data" / "gravon"
RULESETS = ("classic", "isf", "original-1961", "barrage", "pocket")


def selfplay(n: int, seed: int, max_plies: int = 2000) -> list[Game]:
    """``n`` random games, rule sets in turn, each with its outcome as result and termination."""
    rng = random.Random(seed)
    games = []
    for i in range(n):
        state = sl.State.random(RULESETS[i % len(RULESETS)], rng)
        while len(state.move_stack) < max_plies:
            moves = state.generate_legal_moves()
            if not moves or state.is_game_over():
                break
            state.push(moves[int(rng.random() * len(moves))])
        game = Game.from_state(state, {"Event": "self-play", "Round": str(i + 1), "Red": "random",
                                       "Blue": "random"})
        outcome = state.outcome()
        if outcome is not None:
            game.headers.update(Result=outcome.result(), Termination=outcome.termination.value)
        games.append(game)
    return games


def annotate(games: list[Game], seed: int) -> list[Game]:
    """Copies with a comment every 8 moves, a mark every 5 and a 3-move variation every 25."""
    rng = random.Random(seed)
    out = []
    for game in games:
        copy = Game.from_state(game.end().state(), game.headers)
        for i, node in enumerate(copy.mainline()):
            if i % 8 == 0:
                node.comment = f"move {i}: {{braces}} and \"quotes\""
            if i % 5 == 0:
                node.add_mark(rng.choice(list(MARK_SYMBOLS.values())))
            if i % 25 == 0 and node.parent is not None:
                _add_variation(node.parent, rng)
        out.append(copy)
    return out


def _add_variation(parent: GameNode, rng: random.Random) -> None:
    state = parent.state()
    line = []
    for _ in range(3):
        moves = state.generate_legal_moves()
        if not moves:
            break
        move = rng.choice(moves)
        state.push(move)
        line.append(move)
    if line:
        parent.add_line(line).comment = "what if"


def count_moves(games: Iterable[Game]) -> int:
    """Every move in the trees, variations included."""
    total = 0
    for game in games:
        stack: list[GameNode] = [game]
        while stack:
            node = stack.pop()
            total += len(node.variations)
            stack.extend(node.variations)
    return total


def timed(runs: dict[str, list[float]], name: str, fn: Callable[[], object]) -> None:
    start = time.perf_counter()
    fn()
    runs.setdefault(name, []).append(time.perf_counter() - start)


def rate(count: int, seconds: float) -> str:
    return f"{count / seconds:>10,.0f}"


def corpus_figures(label: str, games: list[Game], repeat: int) -> None:
    text = "".join(write_game(g) + "\n" for g in games)
    moves = count_moves(games)
    assert list(read_games(text)) == games, "the corpus must read back as written"
    runs: dict[str, list[float]] = {}
    for _ in range(repeat):
        timed(runs, "read", lambda: sum(1 for _ in read_games(text)))
        timed(runs, "scan", lambda: sum(1 for _ in scan_games(text)))
        timed(runs, "write", lambda: [write_game(g) for g in games])
    print(f"{label}: {len(games)} games, {moves:,} moves, {len(text) / 1e6:.1f} MB of text")
    for what in ("read", "scan", "write"):
        secs = statistics.median(runs[what])
        print(f"  {what:<5} median {secs:6.3f} s = {rate(len(games), secs)} games/s, {rate(moves, secs)} moves/s"
              f"   (runs: {', '.join(f'{s:.3f}' for s in runs[what])})")


def gravon_figures(archive: Path, repeat: int, limit: int) -> None:
    """Convert one monthly zip and compare per-move speed with the Gravon reader on the same games."""
    try:
        from strategolab.archive import GRAVON_RULESETS, ConversionError, replay, to_game
        from strategolab.gravon import read_gravon
    except ImportError as e:
        print(f"Gravon comparison skipped: {e}")
        return
    zips = sorted(archive.glob("*.zip"))
    if not zips:
        print(f"Gravon comparison skipped: no zips in {archive}")
        return
    source = zips[0]
    types = ("classic", "barrage")
    games: list[Game] = []
    skipped = raw_moves = 0
    for gg in read_gravon(source, types=types):
        raw_moves += len(gg.moves)
        if len(games) >= limit:
            continue
        try:
            games.append(to_game(gg))
        except ConversionError:
            skipped += 1
    rulesets = list(GRAVON_RULESETS.values())
    parsed = list(read_gravon(source, types=types))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "gravon.sgn"
        write_games(games, path)
        readable = _readable(path, rulesets)
        moves = count_moves(games)

        def parse_only() -> None:
            for _ in read_gravon(source, types=types):
                pass

        def parse_and_replay() -> None:
            for gg in read_gravon(source, types=types):
                replay(gg)

        def replay_only() -> None:
            for gg in parsed:
                replay(gg)

        runs: dict[str, list[float]] = {}
        for _ in range(repeat):
            timed(runs, "Gravon XML parse", parse_only)
            timed(runs, "Gravon parse + checked replay", parse_and_replay)
            timed(runs, "checked replay alone", replay_only)
            timed(runs, "notation read (checked)", lambda: sum(1 for _ in read_games(path, rulesets=rulesets)))
            timed(runs, "notation scan (no replay)", lambda: sum(1 for _ in scan_games(path, rulesets=rulesets)))
            timed(runs, "notation write", lambda: write_games(games, Path(tmp) / "out.sgn"))
    print(f"Gravon sample {source.name}: {len(parsed)} classic/barrage games ({raw_moves:,} moves); "
          f"{len(games)} were converted ({moves:,} moves, {skipped} skipped, "
          f"{readable} read back without error); all from files on disk")
    per_move = {}
    for name, secs_list in runs.items():
        count = moves if name.startswith("notation") else raw_moves
        secs = statistics.median(secs_list)
        per_move[name] = secs / count
        print(f"  {name:<31} median {secs:6.3f} s = {rate(count, secs)} moves/s = {secs / count * 1e6:5.2f} us/move")
    ours = per_move["notation read (checked)"]
    own = ours - per_move["checked replay alone"]
    print(f"  per move the notation reader (parse + engine check) takes {ours / per_move['Gravon XML parse']:.2f}x "
          f"the Gravon XML parse alone and {ours / per_move['Gravon parse + checked replay']:.2f}x the Gravon "
          f"parse + checked replay;")
    print(f"  its own parsing (read minus the engine's replay) costs {own * 1e6:.2f} us/move against "
          f"{per_move['Gravon XML parse'] * 1e6:.2f} us/move for the XML parse")
    scan = per_move["notation scan (no replay)"]
    print(f"  like for like without the engine (headers, start position, moves): the notation scan takes "
          f"{scan / per_move['Gravon XML parse']:.2f}x the Gravon XML parse per move")


def _readable(path: Path, rulesets: list[sl.Ruleset]) -> int:
    reader = read_games(path, strict=False, rulesets=rulesets)
    return sum(1 for g in reader if not g.errors)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=300, help="self-play games in the corpus")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5, help="interleaved runs of each measurement")
    parser.add_argument("--archive", default=str(DEFAULT_ARCHIVE), help="folder of Gravon zips")
    parser.add_argument("--gravon-games", type=int, default=2000, help="most Gravon games to convert")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    games = selfplay(args.games, args.seed)
    print(f"self-play corpus: seed {args.seed}, rule sets {', '.join(RULESETS)} in turn "
          f"(built in {time.perf_counter() - start:.0f} s); Python {sys.version.split()[0]}")
    corpus_figures("plain (numbered moves and battles)", games, args.repeat)
    corpus_figures("annotated (comments, marks, variations)", annotate(games, args.seed), args.repeat)
    archive = Path(args.archive)
    if archive.is_dir():
        gravon_figures(archive, args.repeat, args.gravon_games)
    else:
        print(f"archive folder {archive} not found: Gravon comparison skipped")


if __name__ == "__main__":
    main()
