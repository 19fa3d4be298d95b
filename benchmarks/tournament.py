"""Tournament of the computer levels, and of the levels against external UCC 2012 competition bots.

    python benchmarks/tournament.py [--games 60] [--ruleset classic] [--processes 2] [--seed 2026]
    python benchmarks/tournament.py --games 100 --level hard --level medium \\
        --bot peternlewis=/tmp/spar/bin/peternlewis --bot celsius=/tmp/spar/bin/celsius [--memory DIR]

Without ``--bot``: each level against the random player and against each other level, then the targets of
issue 5 are checked (medium and hard win at least 99% against random; each level beats the one below in at
least 70% of decided games; medium's median move under 0.5 s; hard's 95th percentile under 2 s).

With ``--bot NAME=COMMAND`` (repeatable): each ``--level`` (default hard) against each bot, refereed by the kit
through :class:`strategolab.engines.UccEngine` under the ``ucc`` rule set (the competition manager's rules)
unless ``--ruleset`` says otherwise.  A bot whose program is absent is skipped with a note, so the command
works on any machine.  A bot that crashes, hangs past ``--timeout`` or moves illegally loses that game.  Then
issue 13's targets are checked for the pairings played (hard wins 80% of decided games against peternlewis and
95% against the other bots, in all and in each colour; medium wins half its games against peternlewis).

``--records FILE.sgn`` keeps every game in the kit's notation, to study how games were lost (read it with
``strategolab.read_games(pathlib.Path(FILE))`` or open it in the replay notebook).  Each game is also
appended to ``FILE.sgn.partial`` as it finishes, so a run stopped early keeps what it played; the progress
lines give the W-D-L so far.  ``--first-game K`` skips the first K games of each pairing and plays rounds
K + 1 to K + GAMES, with the seeds and colours they have in a whole run, so a pairing too long for one sitting
(hunter's games take minutes) can be played in parts whose W-D-L tables add up to the whole run's (each part's
checks and move-time percentiles cover that part only).  ``--tally FILE.sgn [FILE.sgn ...]`` plays nothing: it
reads the records such runs kept (``.sgn.partial`` and gzipped ``.sgn.gz`` files too) and prints the tables and
checks for all their games together, with the rounds each pairing holds; a round found twice (in two parts, or
played by two versions of the code) is an error naming both places.  With ``--replacing FILE.sgn [...]`` the
games in those records take the place of the same rounds' games in the ``--tally`` records: a change that acts
in few rounds is played only in those (``--rounds``), and in the others the new version makes the older one's
choices, so against the same moves of the opponent it plays the very games the older one did.  Records keep no
move times, so a tally has none; but the whole run's median and 95th percentile move time are at most the
largest of its parts' (at most half, or 5 %, of each part's moves are slower than that part's figure).
``--colour red`` (or ``blue``) plays only the rounds among those in which the first-named player has that
colour: against a bot that plays the same way whenever it gets the same moves (ramen has no randomness and one
setup per colour), two versions of a level given the same rounds play the same games until their moves
differ, so ``benchmarks/paired.py`` compares them round by round, and a colour that fails a target is measured
without the other's games.
``--rounds 2,7,9-12`` plays just those rounds (their seeds and colours as in a whole run) instead of
``--first-game``/``--games``: the rounds where a change acts, when in the others the new version plays the very
game the old one did (hard's own setups changed in session 38 only in the rounds where it had set up a named
plan).

Colours alternate from game to game and every game's seed is fixed (derived from ``--seed``), so a run is
reproducible (as far as the bots are).  Prints, per pairing, wins/draws/losses of the first-named player in
all and per colour, the decided-game win rate, the average game length, how the games ended, and per player
the move time (median and 95th percentile over every move it made).
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import multiprocessing
import os
import re
import shlex
import shutil
import statistics
import sys
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass, field

from strategolab import ai
from strategolab.engines import UccEngine
from strategolab.errors import StrategolabError
from strategolab.files import atomic_output
from strategolab.notation import read_games, write_game
from strategolab.players import Player, game_seed, make_player, play_match
from strategolab.records import Game
from strategolab.rules import BLUE, RED

LEVELS = tuple(ai.LEVELS)  # imported before the workers start, so every worker plays the same code


@dataclass
class Result:
    """One game from the first-named player's side."""

    pairing: tuple[str, str]
    index: int
    colour: int  # the first-named player's colour
    score: str  # "win", "draw", "loss" for the first-named player
    termination: str
    plies: int
    times: dict[str, list[float]] = field(default_factory=dict)  # player name -> seconds per move
    seconds: float = 0.0
    reason: str = ""  # why a player forfeited, if one did
    record: str = ""  # the game in the kit's notation, when --records asked for it


def pairings() -> list[tuple[str, str]]:
    """Stronger player first: each level against random, then each level against each lower level."""
    out = [(level, "random") for level in LEVELS]
    out += [(LEVELS[j], LEVELS[i]) for i in range(len(LEVELS)) for j in range(i + 1, len(LEVELS))]
    return out


def player(name: str, seed: int, bots: dict[str, str], timeout: float, memory: str | None = None) -> Player:
    """A kit player by name (remembering its opponents' setups in ``memory``/LEVEL if given), or the bot of
    that name running its command."""
    if name in bots:
        return UccEngine(bots[name], timeout=timeout, name=name)
    if memory is not None and name in LEVELS:
        return ai.RememberingPlayer(os.path.join(memory, name), name, seed)
    return make_player(name, seed)


def first_side(index: int) -> int:
    """The colour of a pairing's first-named player in game ``index`` (0-based): Red in even games, Blue in odd
    ones, so colours alternate."""
    return RED if index % 2 == 0 else BLUE


def play(task: tuple[tuple[str, str], int, str, int, int, dict[str, str], float, str | None, bool]) -> Result:
    """Play game ``index`` of a pairing; the first-named player is Red in even games, Blue in odd ones."""
    (a, b), index, ruleset, seed, max_plies, bots, timeout, memory, keep = task
    s = game_seed(seed, hash_pairing((a, b)) * 100_000 + index)
    first, second = player(a, s, bots, timeout, memory), player(b, s + 1, bots, timeout, memory)
    a_side = first_side(index)
    red, blue = (first, second) if a_side == RED else (second, first)
    name = {RED: a if a_side == RED else b, BLUE: b if a_side == RED else a}
    times: dict[str, list[float]] = defaultdict(list)

    def observe(_state: object, side: int, _move: object, seconds: float) -> None:
        times[name[side]].append(seconds)

    start = time.perf_counter()
    result = play_match(red, blue, ruleset, s, max_plies=max_plies, observer=observe)
    outcome = result.outcome
    decided = outcome is not None and outcome.winner is not None
    score = "draw" if not decided else "win" if outcome.winner == a_side else "loss"  # type: ignore[union-attr]
    termination = "move limit" if outcome is None else outcome.termination.value
    plies = len(result.state.move_stack) if result.state is not None else 0
    text = ""
    if keep:
        game = result.record({"Event": event((a, b), seed), "Round": str(index + 1),
                              "Red": name[RED], "Blue": name[BLUE]})
        text = write_game(game) if game is not None else ""
    return Result((a, b), index, a_side, score, termination, plies, dict(times), time.perf_counter() - start,
                  result.reason, text)


def hash_pairing(pair: tuple[str, str]) -> int:
    """A stable small number per pairing (Python's ``hash`` of strings changes between runs)."""
    return zlib.crc32(f"{pair[0]} v {pair[1]}".encode()) % 1000


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def wdl(results: list[Result]) -> tuple[int, int, int]:
    return (sum(r.score == "win" for r in results), sum(r.score == "draw" for r in results),
            sum(r.score == "loss" for r in results))


# Issue 13's targets against the 2012 competition bots: (level, bot) -> least share of decided games won, in all
# and in each colour (peternlewis, the champion, at 80 %; the rest at 95 %); medium wins half of all its games.
BOT_TARGETS = {("hard", "peternlewis"): 0.80, **{("hard", bot): 0.95 for bot in (
    "celsius", "celsius1.1", "vixen", "asmodeus", "ramen", "hunter", "basic_cpp")}}


def bot_checks(results: list[Result], summary: dict[tuple[str, str], tuple[int, int, int]]
               ) -> list[tuple[str, bool, str]]:
    """PASS/FAIL lines for the target pairings that were played."""
    checks = []
    for pair, target in BOT_TARGETS.items():
        if pair not in summary:
            continue
        parts, ok = [], True
        for label, colour in (("all", None), ("as Red", RED), ("as Blue", BLUE)):
            w, _, lo = wdl([r for r in results if r.pairing == pair and colour in (None, r.colour)])
            rate = w / (w + lo) if w + lo else 1.0
            ok = ok and rate >= target
            parts.append(f"{label} {w}/{w + lo} = {rate:.1%}")
        checks.append((f"{pair[0]} wins >= {target:.0%} of decided games against {pair[1]}, in all and in each "
                       f"colour", ok, ", ".join(parts)))
    if ("medium", "peternlewis") in summary:
        w, d, lo = summary["medium", "peternlewis"]
        checks.append(("medium wins at least half its games against peternlewis", w >= (w + d + lo) / 2,
                       f"{w}/{w + d + lo}"))
    return checks


def event(pair: tuple[str, str], seed: int) -> str:
    """The Event header of a game of ``pair`` in a run with ``seed``, which ``--tally`` reads back (:data:`EVENT`)."""
    return f"tournament {pair[0]} v {pair[1]}, seed {seed}"


EVENT = re.compile(r"tournament (?P<a>\S+) v (?P<b>\S+), seed (?P<seed>-?\d+)")  # what event() writes


READ_ERRORS = (OSError, EOFError, zlib.error, StrategolabError)  # what a missing, broken or foreign file raises


def read_records(path: str | os.PathLike[str]) -> list[Game]:
    """Every game in a file ``--records`` kept, plain or gzipped (``.sgn.gz``, as ``benchmarks/results`` keeps
    them), with ``path`` named in errors; raises one of :data:`READ_ERRORS`."""
    with gzip.open(path, "rb") if os.fspath(path).endswith(".gz") else open(path, "rb") as file:
        return list(read_games(file, name=os.fspath(path)))


Key = tuple[tuple[str, str], int, int]  # a game of this benchmark: (pairing, seed, round - 1)


def keyed_games(paths: list[str], option: str = "--tally") -> dict[Key, tuple[Game, str]]:
    """The games in records this benchmark kept (``--records``, plain or gzipped), by pairing, seed and round,
    each with where it was found (file and game number), in the order read.  Raises ``SystemExit`` (its
    message starting with ``option``) naming the file and game for a record the benchmark did not write, a
    game whose colours do not fit its round, or a round of a pairing found twice."""
    out: dict[Key, tuple[Game, str]] = {}
    for path in paths:
        try:
            games = read_records(path)
        except READ_ERRORS as exc:
            raise SystemExit(f"{option}: {path}: {exc}") from None
        for number, game in enumerate(games, 1):
            place = f"{path}, game {number}"
            h = game.headers
            m = EVENT.fullmatch(h.get("Event", ""))
            if m is None or not h.get("Round", "").isdigit() or int(h["Round"]) < 1:
                raise SystemExit(f"{option}: {place}: not a game of this benchmark (Event {h.get('Event')!r}, "
                                 f"Round {h.get('Round')!r})")
            pair, seed, index = (m["a"], m["b"]), int(m["seed"]), int(h["Round"]) - 1
            a_side = first_side(index)
            if (h.get("Red"), h.get("Blue")) != ((pair[0], pair[1]) if a_side == RED else (pair[1], pair[0])):
                raise SystemExit(f"{option}: {place}: round {index + 1} of {pair[0]} v {pair[1]} has {pair[0]} as "
                                 f"{'Red' if a_side == RED else 'Blue'}, but Red is {h.get('Red')!r} and Blue "
                                 f"{h.get('Blue')!r}")
            key = (pair, seed, index)
            if key in out:
                raise SystemExit(f"{option}: round {index + 1} of {pair[0]} v {pair[1]}, seed {seed}, is both in "
                                 f"{out[key][1]} and in {place}")
            out[key] = (game, place)
    return out


def score_of(game: Game, a_side: int) -> str:
    """``"win"``, ``"draw"`` or ``"loss"``: the result of a record for the player on ``a_side``."""
    winner = {"1-0": RED, "0-1": BLUE}.get(game.result)
    return "draw" if winner is None else "win" if winner == a_side else "loss"


def tally(paths: list[str], replacing: list[str] | None = None
          ) -> tuple[list[Result], list[tuple[str, str]], str, list[int], int]:
    """The results of the games in records this benchmark kept (``--records``, plain or gzipped), for
    ``--tally``: the results, the pairings in the order first met, the rule set, the seeds and how many games
    ``replacing`` put in place of others.  The games in
    ``replacing`` (``--replacing``) take the place of the same rounds' games in ``paths``: a change replayed
    only in the rounds where it acts, where in the others it makes the older version's choices.  Raises
    ``SystemExit`` naming the file and game for a record the benchmark did not write, a game whose colours do
    not fit its round, a round of a pairing found twice (among ``paths``, or among ``replacing``), a
    replacement for a round ``paths`` do not hold, or pairings played under different rule sets."""
    results: list[Result] = []
    pairs: list[tuple[str, str]] = []
    seeds: list[int] = []
    rulesets: set[str] = set()
    games = keyed_games(paths)
    replacements = keyed_games(replacing or [], "--replacing")
    for key, (game, place) in replacements.items():
        if key not in games:
            (a, b), seed, index = key
            raise SystemExit(f"--replacing: {place}: round {index + 1} of {a} v {b}, seed {seed}, is in none of "
                             f"the --tally records, so it replaces nothing")
        games[key] = (game, place)
    for (pair, seed, index), (game, _) in games.items():
        a_side = first_side(index)
        rulesets.add(game.ruleset.name)
        termination = game.headers.get("Termination") or "move limit"
        results.append(Result(pair, index, a_side, score_of(game, a_side), termination,
                              len(game.mainline_moves())))
        if pair not in pairs:
            pairs.append(pair)
        if seed not in seeds:
            seeds.append(seed)
    if not results:
        raise SystemExit("--tally: no games in " + ", ".join(paths))
    if len(rulesets) > 1:
        raise SystemExit(f"--tally: the games were played under different rule sets: {', '.join(sorted(rulesets))}")
    return results, pairs, rulesets.pop(), seeds, len(replacements)


def spans(indices: list[int]) -> str:
    """Round numbers (0-based ``indices``) as runs: ``1-73, 78-91``."""
    out: list[list[int]] = []
    for i in sorted(set(indices)):
        if out and out[-1][1] == i:
            out[-1][1] = i + 1
        else:
            out.append([i + 1, i + 1])
    return ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in out)


def rounds_list(text: str) -> list[int]:
    """``--rounds``: ``2,7,9-12`` as the 0-based game indices of those rounds, in order and without repeats."""
    out: list[int] = []
    for part in text.split(","):
        first, dash, last = part.strip().partition("-")
        if not first.isdigit() or (dash and not last.isdigit()):
            raise argparse.ArgumentTypeError(f"{part.strip()!r} in {text!r} is not a round (like 7) or a range "
                                             f"of rounds (like 9-12)")
        a, b = int(first), int(last) if dash else int(first)
        if a < 1 or b < a:
            raise argparse.ArgumentTypeError(f"{part.strip()!r} in {text!r}: rounds count from 1, a range "
                                             f"upwards")
        out.extend(i - 1 for i in range(a, b + 1))
    return sorted(set(out))


def present_bots(specs: list[str]) -> dict[str, str]:
    """``NAME=COMMAND`` arguments as a mapping, leaving out (with a note) bots whose program is absent."""
    bots: dict[str, str] = {}
    for spec in specs:
        name, sep, command = spec.partition("=")
        if not sep or not name or not command.strip():
            raise SystemExit(f"--bot {spec!r}: expected NAME=COMMAND, like peternlewis=/tmp/spar/bin/peternlewis")
        program = shlex.split(command)[0]
        found = shutil.which(program) if os.sep not in program else (program if os.access(program, os.X_OK)
                                                                     else None)
        if found is None:
            print(f"skipping bot {name}: {program} is not there (or not executable)", file=sys.stderr)
            continue
        bots[name] = command
    return bots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=60, help="games per pairing (default 60)")
    parser.add_argument("--ruleset", default=None,
                        help="rule set (default classic; ucc, the manager's rules, when bots play)")
    parser.add_argument("--processes", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--first-game", type=int, default=0, metavar="K",
                        help="skip the first K games of each pairing, playing rounds K+1 to K+GAMES (default 0): "
                             "a long pairing split over several runs plays exactly the games (seeds, colours) of "
                             "one run")
    parser.add_argument("--rounds", type=rounds_list, default=None, metavar="LIST",
                        help="play only these rounds of each pairing, e.g. 2,7,9-12 (1-based, with the seeds and "
                             "colours they have in a whole run), instead of --first-game and --games")
    parser.add_argument("--colour", choices=("red", "blue"), default=None,
                        help="play only the rounds (of those above) in which the first-named player has this colour")
    parser.add_argument("--max-plies", type=int, default=4000, help="unfinished games count as draws")
    parser.add_argument("--pairing", action="append", default=None,
                        help="only this pairing, e.g. hard:medium or hard:peternlewis (repeatable)")
    parser.add_argument("--bot", action="append", default=[], metavar="NAME=COMMAND",
                        help="an external UCC bot and the command that runs it (repeatable)")
    parser.add_argument("--level", action="append", default=None,
                        help=f"kit player(s) to pit against the bots (repeatable; default hard; one of random, "
                             f"{', '.join(LEVELS)})")
    parser.add_argument("--timeout", type=float, default=2.0, help="seconds a bot may take per move (default 2)")
    parser.add_argument("--memory", metavar="DIR", default=None,
                        help="kit levels remember what each opponent's setups showed, game after game, in DIR/LEVEL "
                             "(RememberingPlayer; games finish in any order, so a run is no longer reproducible)")
    parser.add_argument("--records", metavar="FILE.sgn", default=None,
                        help="write every game (pairing by pairing, in order) to this file in the kit's notation, "
                             "to replay and study them")
    parser.add_argument("--tally", nargs="+", metavar="FILE.sgn", default=None,
                        help="play nothing: print the tables and checks for the games in these records (kept by "
                             "--records, .partial files too), e.g. the parts of a pairing played in several runs")
    parser.add_argument("--replacing", nargs="+", metavar="FILE.sgn", default=None,
                        help="with --tally: the games in these records replace the same rounds' games in the "
                             "--tally records (a change replayed only in the rounds where it acts)")
    args = parser.parse_args()
    if args.first_game < 0:
        parser.error(f"--first-game must be 0 or more, not {args.first_game}")
    if args.rounds is not None and args.first_game:
        parser.error("--rounds names the rounds to play: give it without --first-game")
    if args.replacing and not args.tally:
        parser.error("--replacing replaces games of the --tally records: give it with --tally")
    if args.tally:
        results, pairs, ruleset, seeds, replaced_games = tally(args.tally, args.replacing)
        rounds = "; ".join(f"{a} v {b} rounds {spans([r.index for r in results if r.pairing == (a, b)])}"
                           for a, b in pairs)
        replaced = (f" ({replaced_games} of them from {len(args.replacing)} --replacing file(s))"
                    if args.replacing else "")
        title = (f"Tally of {len(results)} games in {len(args.tally)} record file(s){replaced}: {ruleset}, seed "
                 f"{', '.join(map(str, seeds))}; {rounds}")
        report(results, pairs, title, [name for pair in pairs for name in pair if name not in LEVELS
                                       and name != "random"])
        return

    bots = present_bots(args.bot)
    if args.bot and not bots:
        print("no bot is present: nothing to play", file=sys.stderr)
        return
    ruleset = args.ruleset or ("ucc" if args.bot else "classic")
    if args.pairing:
        pairs = [tuple(p.split(":")) for p in args.pairing]
        pairs = [p for p in pairs if all(n in bots or n == "random" or n in LEVELS for n in p)]
    elif bots:
        pairs = [(level, bot) for level in (args.level or ["hard"]) for bot in bots]
    else:
        pairs = pairings()
    # Costliest pairings first so the workers finish together.
    cost = {"random": 0, **{level: 2 ** i for i, level in enumerate(LEVELS)}}
    keep = args.records is not None
    colour = {"red": RED, "blue": BLUE}.get(args.colour)  # None: both
    tasks = [(pair, i, ruleset, args.seed, args.max_plies, bots, args.timeout, args.memory, keep)
             for pair in pairs for i in (args.rounds if args.rounds is not None
                                         else range(args.first_game, args.first_game + args.games))
             if colour is None or first_side(i) == colour]
    tasks.sort(key=lambda t: -(cost.get(t[0][0], 4) + cost.get(t[0][1], 4)))
    results: list[Result] = []
    start = time.perf_counter()
    # Each game is kept as it finishes (FILE.sgn.partial, in the order they finish), so a run stopped early
    # keeps the games it played; the whole file is written in order at the end.
    partial = f"{args.records}.partial" if keep else None
    with multiprocessing.Pool(args.processes) as pool, \
            (open(partial, "w", encoding="utf-8") if partial else contextlib.nullcontext()) as sink:
        for n, r in enumerate(pool.imap_unordered(play, tasks), 1):
            results.append(r)
            if sink is not None and r.record:
                sink.write(r.record + "\n")
                sink.flush()
            if n % max(1, len(tasks) // 20) == 0 or n == len(tasks):
                so_far = "; ".join(f"{a} v {b} {'-'.join(map(str, wdl(rs)))}" for a, b in pairs
                                   if (rs := [x for x in results if x.pairing == (a, b)]))
                print(f"{n}/{len(tasks)} games, {time.perf_counter() - start:.0f} s; {so_far}", file=sys.stderr,
                      flush=True)
    wall = time.perf_counter() - start
    if keep:
        texts = [r.record for r in sorted(results, key=lambda r: (pairs.index(r.pairing), r.index)) if r.record]
        with atomic_output(args.records) as f:
            f.write("\n".join(texts))
        os.remove(partial)
        print(f"{len(texts)} games written to {args.records}", file=sys.stderr)
    played = (spans(args.rounds) if args.rounds is not None
              else f"{args.first_game + 1} to {args.first_game + args.games}")
    span = f" (rounds {played})" if args.rounds is not None or args.first_game else ""
    colours = "colours alternating"
    if args.colour:
        span = f" (of rounds {played})"
        colours = f"the first-named as {args.colour.title()}"
    report(results, pairs, f"Tournament: {ruleset}, {len(tasks) // max(1, len(pairs))} games per pairing{span}, "
                           f"{colours}, seed {args.seed}, {args.processes} processes, {wall:.0f} s wall clock"
                           + (f"; kit levels remember setups in {args.memory}" if args.memory else ""), list(bots))


def report(results: list[Result], pairs: list[tuple[str, str]], title: str, bots: list[str]) -> None:
    """Print ``title``, then the tables: W-D-L per pairing and colour, endings, move times; then the checks
    (issue 13's if ``bots`` played, else the ladder's)."""
    print(title)
    print(f"{'pairing':<24} {'W-D-L':>11} {'as Red':>10} {'as Blue':>10} {'decided win%':>13} {'avg plies':>10}"
          f"  endings")
    summary: dict[tuple[str, str], tuple[int, int, int]] = {}
    for pair in pairs:
        rs = [r for r in results if r.pairing == pair]
        if not rs:
            continue
        w, d, lo = summary[pair] = wdl(rs)
        colours = ["-".join(map(str, wdl([r for r in rs if r.colour == c]))) for c in (RED, BLUE)]
        endings: dict[str, int] = defaultdict(int)
        for r in rs:
            endings[r.termination] += 1
        decided = w / (w + lo) if w + lo else float("nan")
        avg = statistics.mean(r.plies for r in rs)
        print(f"{pair[0] + ' v ' + pair[1]:<24} {f'{w}-{d}-{lo}':>11} {colours[0]:>10} {colours[1]:>10} "
              f"{decided:>13.1%} {avg:>10.1f}  " + ", ".join(f"{k} {v}" for k, v in sorted(endings.items())))
    forfeits = [r for r in results if r.reason]
    if forfeits:
        print(f"\nforfeits ({len(forfeits)}):")
        for r in sorted(forfeits, key=lambda r: (r.pairing, r.index))[:20]:
            print(f"  {r.pairing[0]} v {r.pairing[1]} game {r.index}: {r.reason}")
    print()
    times: dict[str, list[float]] = defaultdict(list)
    for r in results:
        for who, ts in r.times.items():
            times[who].extend(ts)
    if not times:
        print("move times: not in the records")
    else:
        print(f"{'player':<16} {'moves':>8} {'median s':>9} {'p95 s':>8} {'max s':>8}")
    for who in ("random", *LEVELS, *bots):
        ts = times.get(who)
        if ts:
            print(f"{who:<16} {len(ts):>8} {statistics.median(ts):>9.4f} {percentile(ts, 0.95):>8.4f} "
                  f"{max(ts):>8.3f}")
    print()
    checks = bot_checks(results, summary) if bots else []
    if bots:
        for text, ok, figure in checks:
            print(f"{'PASS' if ok else 'FAIL'}  {text}: {figure}")
        return
    for level in ("medium", "hard"):
        if (level, "random") in summary:
            w, d, lo = summary[level, "random"]
            checks.append((f"{level} wins >= 99% against random", w / (w + d + lo) >= 0.99, f"{w}/{w + d + lo}"))
    ladder = ("random", *LEVELS)
    for i in range(len(ladder) - 1):
        pair = (ladder[i + 1], ladder[i])
        if pair in summary:
            w, d, lo = summary[pair]
            rate = w / (w + lo) if w + lo else 0.0
            checks.append((f"{pair[0]} beats {pair[1]} in >= 70% of decided games", rate >= 0.7,
                           f"{w}/{w + lo} = {rate:.1%}"))
    if times.get("medium"):
        med = statistics.median(times["medium"])
        checks.append(("medium median move time < 0.5 s", med < 0.5, f"{med:.3f} s"))
    if times.get("hard"):
        p95 = percentile(times["hard"], 0.95)
        checks.append(("hard 95th percentile move time < 2 s", p95 < 2.0, f"{p95:.3f} s"))
    for text, ok, figure in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {text}: {figure}")


if __name__ == "__main__":
    main()
