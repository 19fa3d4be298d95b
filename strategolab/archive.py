"""Replaying Gravon games under the engine: every move checked, every result compared with the final state.

This is the proof that the engine plays real Stratego: :func:`verify` replays whole archives and reports
each game that does not fit (an illegal move with the engine's reason, or a recorded result the final
position contradicts).  :func:`repetition_study` measures which repetition limits the archive obeys.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from strategolab.gravon import GravonGame, read_gravon
from strategolab.rules import BARRAGE, CLASSIC, PLAYER_NAMES, Ruleset
from strategolab.state import Move, Piece, State, Termination, _line_between

# The rules the archive was played under, as established from the archive itself (docs/rules.md):
# no game moves a piece back and forth more than 5 times in a row (the classic limit of 3 is broken
# in 11 games), no game repeats a position during a chase (the ISF more-squares rule), while the
# classic square chasing rule would refuse a move in over half of the games; and there is no quiet-move
# draw (45 games go on after 200 moves without an attack, one for 722).
GRAVON_CLASSIC = CLASSIC.replace(
    name="gravon-classic", two_square_limit=5, chase_rule="position", draw_limit=None,
    description="Classic Stratego as played on Gravon: two-square rule 5, ISF more-squares rule, "
                "no quiet-move draw.")
GRAVON_BARRAGE = BARRAGE.replace(
    name="gravon-barrage", two_square_limit=5, chase_rule="position", draw_limit=None,
    description="Barrage as played on Gravon: two-square rule 5, ISF more-squares rule, no quiet-move draw.")
GRAVON_RULESETS: dict[str, Ruleset] = {"classic": GRAVON_CLASSIC, "barrage": GRAVON_BARRAGE}

REPLAYABLE = frozenset(GRAVON_RULESETS)


def ruleset_for(game_type: str) -> Ruleset:
    """The rule set that fits Gravon games of this type (``classic`` or ``barrage``)."""
    try:
        return GRAVON_RULESETS[game_type]
    except KeyError:
        raise ValueError(f"no rule set for Gravon game type {game_type!r}; replayable: "
                         f"{', '.join(sorted(GRAVON_RULESETS))}") from None


def initial_state(game: GravonGame, ruleset: Ruleset | None = None) -> State:
    """The position before the first move: both setups from the game's field."""
    rs = ruleset or ruleset_for(game.game_type)
    state = State(rs)
    by_name = {p.name: p for p in rs.piece_types}
    for sq, (owner, name) in game.placements.items():
        state.set_piece(sq, Piece(owner, by_name[name]))
    return state


@dataclass
class Replay:
    """One game replayed: the final state and, if it did not fit the rules, where and why."""

    game: GravonGame
    state: State
    illegal: tuple[int, Move, str] | None = None  # (move number from 1, move, the engine's reason)
    result_problem: str | None = None

    @property
    def ok(self) -> bool:
        return self.illegal is None and self.result_problem is None

    def describe(self) -> str:
        if self.illegal is not None:
            n, move, reason = self.illegal
            return f"{self.game.source}: move {n} {move} is illegal: {reason}"
        if self.result_problem is not None:
            return f"{self.game.source}: {self.result_problem}"
        return f"{self.game.source}: fits"


def replay(game: GravonGame, ruleset: Ruleset | None = None, *, check: bool = True) -> Replay:
    """Replay every move of ``game``; with ``check`` each move is validated and the result compared.

    Without ``check`` moves are pushed blindly (battles still happen): the baseline that shows what
    validation costs.
    """
    state = initial_state(game, ruleset)
    table = state._t.moves
    push = state.push
    if not check:
        for f, t in game.moves:
            push(table[f][t] or Move(f, t))
        return Replay(game, state)
    reason_of = state.illegal_reason
    for n, (f, t) in enumerate(game.moves, 1):
        move = table[f][t] if 0 <= f < len(table) and 0 <= t < len(table) else None
        move = move or Move(f, t)
        reason = reason_of(move)
        if reason is not None:
            return Replay(game, state, illegal=(n, move, reason))
        push(move)
    return Replay(game, state, result_problem=result_problem(game, state))


def result_problem(game: GravonGame, state: State) -> str | None:
    """What, if anything, the final position contradicts in the recorded result.

    Type 1 (flag captured): the last move captured the loser's Flag.  Type 0 (opponent cannot move):
    the loser has no legal move.  Type 2 (both cannot move): neither side has one.
    """
    kind = game.result_type
    if kind == 1:
        outcome = state.outcome()
        if outcome is None or outcome.termination is not Termination.FLAG_CAPTURED:
            return "recorded as a flag capture, but the last move captured no Flag"
        if outcome.winner != game.winner:
            return f"recorded as won by {_who(game.winner)}, but {_who(outcome.winner)} captured the Flag"
    elif kind == 0:
        if game.winner is None:
            return "recorded as 'opponent cannot move' without a winner"
        loser = 1 - game.winner
        if state.has_legal_move(loser):
            n = len(state.generate_legal_moves(loser))
            return f"recorded as {_who(loser)} unable to move, but {_who(loser)} has {n} legal moves"
    elif kind == 2 and (state.has_legal_move(0) or state.has_legal_move(1)):
        return "recorded as 'both cannot move', but a side still has a legal move"
    return None


def _who(player: int | None) -> str:
    return "nobody" if player is None else PLAYER_NAMES[player]


@dataclass
class Report:
    """What :func:`verify` found: counts of games and moves, and every game that did not fit."""

    games: int = 0
    moves: int = 0
    skipped: Counter = field(default_factory=Counter)  # reason -> count (no setup, other game types)
    results: Counter = field(default_factory=Counter)  # result type -> games that fit
    problems: list[str] = field(default_factory=list)
    illegal: Counter = field(default_factory=Counter)  # first words of the reason -> games

    def add(self, other: Report) -> None:
        self.games += other.games
        self.moves += other.moves
        self.skipped.update(other.skipped)
        self.results.update(other.results)
        self.problems.extend(other.problems)
        self.illegal.update(other.illegal)

    def __str__(self) -> str:
        lines = [f"{self.games} games, {self.moves} moves replayed; {len(self.problems)} do not fit"]
        lines += [f"  skipped {n}: {why}" for why, n in sorted(self.skipped.items())]
        lines += [f"  illegal moves ({why}): {n} games" for why, n in sorted(self.illegal.items())]
        lines += [f"  - {p}" for p in self.problems]
        return "\n".join(lines)


def _verify_one(path: str, ruleset_name: str | None, check: bool) -> Report:
    report = Report()
    for game in read_gravon(path):
        if game.game_type not in REPLAYABLE:
            report.skipped[f"game type {game.game_type}"] += 1
            continue
        if not game.has_setup:
            report.skipped["no setup in the file"] += 1
            continue
        rs = None
        if ruleset_name is not None:
            base = _named_ruleset(ruleset_name)
            rs = base if game.game_type == "classic" else base.replace(name=f"{base.name}-barrage",
                                                                      army=BARRAGE.army)
        r = replay(game, rs, check=check)
        report.games += 1
        report.moves += len(r.state.move_stack)
        if r.ok:
            report.results[game.result_type] += 1
        else:
            report.problems.append(r.describe())
            if r.illegal is not None:
                report.illegal[r.illegal[2].split(":")[0]] += 1
    return report


def _named_ruleset(name: str) -> Ruleset:
    from strategolab.rules import get_ruleset

    return GRAVON_RULESETS["classic"] if name == "gravon" else get_ruleset(name)


def archive_files(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """The zips and XML files named, folders expanded (sorted), so work can be split per file."""
    out: list[str] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += [str(q) for q in sorted(p.iterdir()) if q.suffix.lower() in (".zip", ".xml")]
        else:
            out.append(str(p))
    return out


def verify(paths: Iterable[str | os.PathLike[str]], *, ruleset: str | None = None, check: bool = True,
           processes: int | None = None) -> Report:
    """Replay every classic and barrage game under the Gravon rules (or ``ruleset`` for classic games,
    with the barrage army for barrage games) and report each game that does not fit.

    Work is split per file over ``processes`` worker processes (default: one per core).
    """
    files = archive_files(paths)
    report = Report()
    workers = processes if processes is not None else min(len(files), os.cpu_count() or 1)
    if workers <= 1 or len(files) <= 1:
        for f in files:
            report.add(_verify_one(f, ruleset, check))
        return report
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_verify_one, files, [ruleset] * len(files), [check] * len(files)):
            report.add(part)
    return report


def iter_replays(paths: Iterable[str | os.PathLike[str]], ruleset: Ruleset | None = None) -> Iterator[Replay]:
    """Replays of every replayable game with a setup, one by one (single process)."""
    for f in archive_files(paths):
        for game in read_gravon(f):
            if game.game_type in REPLAYABLE and game.has_setup:
                yield replay(game, ruleset)


@dataclass
class RepetitionStudy:
    """How many games would break each candidate repetition rule (measured, not assumed)."""

    games: int = 0
    moves: int = 0
    # longest run of one player's back-and-forth moves between the same two squares -> games
    longest_run: Counter = field(default_factory=Counter)
    # the same, counting a Scout's whole range as the ISF Scout clause does -> games
    longest_range_run: Counter = field(default_factory=Counter)
    # rule name -> games with at least one move that rule refuses, and the moves themselves
    chase_games: Counter = field(default_factory=Counter)
    chase_moves: Counter = field(default_factory=Counter)
    # longest run of moves without an attack -> games
    longest_quiet: Counter = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)

    def add(self, other: RepetitionStudy) -> None:
        self.games += other.games
        self.moves += other.moves
        self.longest_run.update(other.longest_run)
        self.longest_range_run.update(other.longest_range_run)
        self.chase_games.update(other.chase_games)
        self.chase_moves.update(other.chase_moves)
        self.longest_quiet.update(other.longest_quiet)
        for k, v in other.examples.items():
            self.examples.setdefault(k, []).extend(v)

    def games_breaking_two_square(self, limit: int, scout_clause: bool = False) -> int:
        runs = self.longest_range_run if scout_clause else self.longest_run
        return sum(n for length, n in runs.items() if length > limit)

    def __str__(self) -> str:
        lines = [f"{self.games} games, {self.moves} moves"]
        for limit in range(2, 7):
            lines.append(
                f"  two-square limit {limit}: {self.games_breaking_two_square(limit)} games break it "
                f"(with the ISF Scout clause: {self.games_breaking_two_square(limit, True)})")
        for rule, label in (("square", "classic chasing rule"), ("position", "ISF more-squares rule")):
            lines.append(f"  {label}: {self.chase_games[rule]} games break it "
                         f"({self.chase_moves[rule]} moves)")
        for limit in (80, 200):
            over = sum(n for q, n in self.longest_quiet.items() if q > limit)
            lines.append(f"  quiet-move draw after {limit}: {over} games go on past it "
                         f"(longest run without an attack: {max(self.longest_quiet, default=0)} moves)")
        for key, ex in sorted(self.examples.items()):
            lines += [f"  e.g. {key}: {e}" for e in ex[:3]]
        return "\n".join(lines)


def _runs(moves: tuple[tuple[int, int], ...], scout_clause: bool) -> int:
    """The longest run of one player's consecutive moves of one piece that all stay within the squares
    of the run's first move (its two end squares, or with the Scout clause its whole range)."""
    best = 0
    chains: list[list[tuple[int, int]]] = [[], []]
    for i, (f, t) in enumerate(moves):
        chain = chains[i % 2]
        if chain and chain[-1][1] == f:
            chain.append((f, t))
            del chain[:-12]  # runs longer than 12 would only confirm what is already measured
        else:
            chain[:] = [(f, t)]
        for k in range(len(chain), best, -1):
            a, b = chain[-k]
            span = set(_line_between(a, b)) if scout_clause else {a, b}
            if all(x in span and y in span for x, y in chain[-k:]):
                best = k
                break
    return best


def _study_one(path: str) -> RepetitionStudy:
    study = RepetitionStudy()
    rulesets = {rule: GRAVON_CLASSIC.replace(name=f"study-{rule}", two_square_limit=None, chase_rule=rule)
                for rule in ("square", "position")}
    for game in read_gravon(path):
        if game.game_type not in REPLAYABLE or not game.has_setup:
            continue
        study.games += 1
        study.moves += len(game.moves)
        study.longest_run[_runs(game.moves, False)] += 1
        study.longest_range_run[_runs(game.moves, True)] += 1
        for rule, rs in rulesets.items():
            if game.game_type == "barrage":
                rs = rs.replace(name=rs.name + "-barrage", army=BARRAGE.army)
            state = initial_state(game, rs)
            broken = quiet = 0
            for n, (f, t) in enumerate(game.moves, 1):
                move = Move(f, t)
                ch = state._chase
                if ch is not None and ch[1] == state.turn:
                    reason = state._forbidden(state.turn).get(move)
                    if reason:
                        broken += 1
                        if len(study.examples.setdefault(rule, [])) < 3:
                            study.examples[rule].append(f"{game.source} move {n} {move}: {reason}")
                state.push(move)
                quiet = max(quiet, state.quiet)
            if rule == "position":
                study.longest_quiet[quiet] += 1
            if broken:
                study.chase_games[rule] += 1
                study.chase_moves[rule] += broken
    return study


def repetition_study(paths: Iterable[str | os.PathLike[str]], processes: int | None = None) -> RepetitionStudy:
    """Measure, over whole archives, how many games each candidate repetition rule would break."""
    files = archive_files(paths)
    study = RepetitionStudy()
    workers = processes if processes is not None else min(len(files), os.cpu_count() or 1)
    if workers <= 1:
        for f in files:
            study.add(_study_one(f))
        return study
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for part in pool.map(_study_one, files):
            study.add(part)
    return study


def main(argv: list[str] | None = None) -> int:
    """``python -m strategolab.archive verify|study PATH...``: check an archive against the engine."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m strategolab.archive", description=main.__doc__)
    parser.add_argument("command", choices=("verify", "study"),
                        help="verify: replay every classic/barrage game and report those that do not fit; "
                             "study: count the games each candidate repetition rule would break")
    parser.add_argument("paths", nargs="+", help="Gravon XML files, monthly zips or folders of them")
    parser.add_argument("--ruleset", help="verify under this rule set instead of the Gravon one "
                                          "(classic, isf, original-1961, or gravon)")
    args = parser.parse_args(argv)
    if args.command == "verify":
        report = verify(args.paths, ruleset=args.ruleset)
        print(report)
        return 1 if report.problems else 0
    print(repetition_study(args.paths))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
