"""Gravon games under the engine: replayed with every move checked, and converted to and from the kit's records.

This is the proof that the engine plays real Stratego: :func:`verify` replays whole archives and reports
each game that does not fit (an illegal move with the engine's reason, or a recorded result the final
position contradicts).  :func:`repetition_study` measures which repetition limits the archive obeys.
:func:`to_game` and :func:`to_gravon` convert between Gravon games and the kit's records (docs/gravon.md).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from strategolab.board import square_name
from strategolab.errors import IllegalMoveError, RecordError, SetupError, StrategolabError, printable
from strategolab.gravon import (
    RESULT_TYPES,
    GravonError,
    GravonGame,
    dump_gravon,
    dump_gravon_zip,
    encode_field,
    read_gravon,
)
from strategolab.records import Game, GameNode
from strategolab.rules import (
    BARRAGE,
    BLUE,
    GRAVON_BARRAGE,
    GRAVON_CLASSIC,
    GRAVON_CLASSICFREE,
    GRAVON_DUELL,
    GRAVON_ULTIMATE_LIGHTNING,
    PLAYER_NAMES,
    RED,
    Ruleset,
    get_ruleset,
)
from strategolab.setups import Setup
from strategolab.state import Battle, Move, Outcome, Piece, Rescue, State, Termination, _crossed

GRAVON_RULESETS: dict[str, Ruleset] = {"classic": GRAVON_CLASSIC, "barrage": GRAVON_BARRAGE}

REPLAYABLE = frozenset(GRAVON_RULESETS)
# What verify replays: the classic and barrage games the repetition study covers, and Ultimate Lightning
# (its own rules, also established from the archive: docs/gravon.md).
VERIFIED: dict[str, Ruleset] = {**GRAVON_RULESETS, "ultimate lightning": GRAVON_ULTIMATE_LIGHTNING}


def ruleset_for(game_type: str) -> Ruleset:
    """The rule set that fits Gravon games of this type (``classic``, ``barrage``, ``ultimate lightning``)."""
    try:
        return VERIFIED[game_type]
    except KeyError:
        raise ValueError(f"no rule set for Gravon game type {game_type!r}; replayable: "
                         f"{', '.join(sorted(VERIFIED))}") from None


def initial_state(game: GravonGame, ruleset: Ruleset | None = None) -> State:
    """The position before the first move: both setups from the game's field.  Raises GravonError for a
    piece the rule set's army does not have (the reader refuses those for Gravon's own small armies)."""
    rs = ruleset or ruleset_for(game.game_type)
    state = State(rs)
    by_name = {p.name: p for p in rs.piece_types}
    for sq, (owner, name) in game.placements.items():
        kind = by_name.get(name)
        if kind is None:
            raise GravonError(f"the field has a {name} on {square_name(sq)}, which the {rs.name} army does not "
                              f"have (it has {', '.join(by_name)})", game.source)
        state.set_piece(sq, Piece(owner, kind))
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
        rescues = rescues_of(game, state.ruleset)
        for i, (f, t) in enumerate(game.moves):
            push(table[f][t] or Move(f, t))
            if i in rescues:
                state.add_rescue(rescues[i])
        return Replay(game, state)
    try:
        for _ in play_checked(state, game.moves, rescues_of(game, state.ruleset)):
            pass
    except IllegalMoveError as e:
        return Replay(game, state, illegal=(len(state.move_stack) + 1, e.move, e.reason))
    return Replay(game, state, result_problem=result_problem(game, state))


def play_checked(state: State, moves: Iterable[tuple[int, int]],
                 rescues: dict[int, Rescue] | None = None) -> Iterator[tuple[Move, Battle | None]]:
    """Play moves given as square pairs on ``state``, each checked first (with the rescue it makes, by
    move index); yield each with its battle (``state.rescue_at`` has its rescue).

    Raises :class:`IllegalMoveError` (with the engine's reason) at the first move or rescue the rules
    refuse, with ``state`` left before that move.
    """
    table = state._t.moves
    reason_of = state.illegal_reason
    push = state.push
    for i, (f, t) in enumerate(moves):
        move = table[f][t] if 0 <= f < len(table) and 0 <= t < len(table) else None
        move = move or Move(f, t)
        reason = reason_of(move)
        if reason is not None:
            raise IllegalMoveError(move, reason)
        battle = push(move)
        if rescues and i in rescues:
            why = state.rescue_reason(rescues[i])
            if why is not None:
                state.pop()
                raise IllegalMoveError(move, f"the rescue of a {rescues[i].type.name} on "
                                             f"{square_name(rescues[i].square)}: {why}")
            state.add_rescue(rescues[i])
        yield move, battle


def rescues_of(game: GravonGame, ruleset: Ruleset) -> dict[int, Rescue]:
    """The game's Ultimate Lightning rescues as the engine's values, by the index of the move that made them."""
    by_name = {p.name: p for p in ruleset.piece_types}
    return {i: Rescue(sq, by_name[name]) for i, sq, name in game.rescues if name in by_name}


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
    return contradiction(game, state.outcome())


def recorded_result(game: GravonGame) -> str:
    """The recorded result as the notation writes it: ``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` (no result)."""
    return "*" if game.result_type is None else _RESULTS[game.winner]


def contradiction(game: GravonGame, outcome: Outcome | None) -> str | None:
    """Why the recorded winner cannot stand, if the game ended on the board with another one."""
    if game.result_type is None or outcome is None or outcome.winner == game.winner:
        return None
    return (f"recorded as {recorded_result(game)} ({game.result_text}), but after the last move the engine "
            f"ends the game {outcome.result()}: {outcome}")


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
        if game.game_type not in VERIFIED:
            report.skipped[f"game type {game.game_type}"] += 1
            continue
        if not game.has_setup:
            report.skipped["no setup in the file"] += 1
            continue
        rs = VERIFIED[game.game_type]
        if ruleset_name is not None and game.game_type in REPLAYABLE:
            base = _named_ruleset(ruleset_name)
            rs = base if game.game_type == "classic" else base.replace(name=f"{base.name}-barrage",
                                                                      army=BARRAGE.army)
        try:
            r = replay(game, rs, check=check)
        except GravonError as e:  # a piece the rule set's army lacks
            report.problems.append(str(e))
            continue
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


def games_with_setup(paths: Iterable[str | os.PathLike[str]], game_type: str = "classic", games: int | None = None,
                     skip: int = 0) -> Iterator[tuple[State, list[Move]]]:
    """The Gravon games of ``game_type`` in ``paths`` that have a setup the engine can start from: each one's
    start and moves, ``games`` of them (all if None) after the first ``skip``, in the archive's order."""
    seen = 0
    for name in archive_files(paths):
        for game in read_gravon(name, types=[game_type], errors="skip"):
            if games is not None and seen >= skip + games:
                return
            if not game.has_setup:
                continue
            try:
                state = initial_state(game)
            except StrategolabError:
                continue
            seen += 1
            if seen > skip:
                yield state, [Move(f, t) for f, t in game.moves]


def verify(paths: Iterable[str | os.PathLike[str]], *, ruleset: str | None = None, check: bool = True,
           processes: int | None = None) -> Report:
    """Replay every classic, barrage and Ultimate Lightning game under the Gravon rules (or ``ruleset`` for
    classic games, with the barrage army for barrage games) and report each game that does not fit.

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
    # the same, with the ISF Scout clause (moves across one common square boundary) -> games
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
    """The longest run of one player's consecutive moves of one piece between the same two squares (with
    the Scout clause: across one common square boundary)."""
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
            if scout_clause:  # every move crosses one common square boundary (see docs/rules.md)
                if set.intersection(*(_crossed(x, y) for x, y in chain[-k:])):
                    best = k
                    break
                continue
            a, b = chain[-k]
            if all(x in (a, b) and y in (a, b) for x, y in chain[-k:]):
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
                if state._chase is not None:
                    reason = state._chase_reason(state.turn, f, t)
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


# -- converting between Gravon games and the kit's records ---------------------------------------------------

# The Gravon game types the kit's notation holds, and the rule set each converts under.  Duell and Classic
# Free replay under the Gravon classic rules with their own armies (every move of the 71 archived games is
# legal); Ultimate Lightning under its own (docs/gravon.md), its rescues written as +X@E4.
CONVERTIBLE: dict[str, Ruleset] = {**VERIFIED, "duell": GRAVON_DUELL, "classicfree": GRAVON_CLASSICFREE}
# Gravon game types the kit knows but cannot hold, with the reason (none at present: every archived type plays).
UNREPRESENTABLE: dict[str, str] = {}
# The Gravon game type a kit game is exported as, by its rule set; the kit's classic, ISF and barrage games
# are legal Gravon games too (their repetition rules are stricter than Gravon's).
EXPORT_TYPES: dict[str, str] = {
    "gravon-classic": "classic", "classic": "classic", "isf": "classic", "gravon-barrage": "barrage",
    "barrage": "barrage", "gravon-duell": "duell", "gravon-classicfree": "classicfree",
    "gravon-ultimate-lightning": "ultimate lightning",
}
# Gravon result types as the notation's terminations.  Codes 10-14 ("timeout or player missing") are a
# time forfeit when they name a winner and an abandoned game when they do not; [GravonResult] keeps the code.
TERMINATIONS: dict[int, Termination] = {
    0: Termination.NO_LEGAL_MOVE, 1: Termination.FLAG_CAPTURED, 2: Termination.NEITHER_CAN_MOVE,
    3: Termination.RESIGNATION, 4: Termination.AGREED_DRAW,
}
_TIMEOUTS = range(10, 15)
_RESULT_CODES: dict[str, int] = {  # and the words to_game writes where the engine does not confirm Gravon
    **{t.value: code for code, t in TERMINATIONS.items()},
    Termination.TIME_FORFEIT.value: 11, Termination.ABANDONED.value: 10,
    **{f"{RESULT_TYPES[code]} (scored by Gravon)": code for code in (0, 1, 2)},
}
_ENGINE_DECIDES = frozenset({Termination.NO_LEGAL_MOVE, Termination.FLAG_CAPTURED, Termination.NEITHER_CAN_MOVE})
_RESULTS = {RED: "1-0", BLUE: "0-1", None: "1/2-1/2"}
_WINNERS = {text: player for player, text in _RESULTS.items()}


class ConversionError(RecordError):
    """A game that cannot be converted: its moves or result contradict the engine, or (the subclass
    :class:`UnrepresentableError`) the other format has no way to hold it."""


class UnrepresentableError(ConversionError):
    """A sound game the target format cannot hold (an Ultimate Lightning game, a pocket game for Gravon)."""


def termination_for(result_type: int | None, winner: int | None) -> Termination | None:
    """The notation's termination for a Gravon result type (``None`` for an unknown code or no result)."""
    if result_type in _TIMEOUTS:
        return Termination.ABANDONED if winner is None else Termination.TIME_FORFEIT
    return TERMINATIONS.get(result_type) if result_type is not None else None


def source_name(source: str) -> str:
    """A game's source without the folders: ``strados2014-0.zip:classic-2014.0-5.xml``."""
    head, sep, member = source.rpartition(":")
    if sep and head.lower().endswith(".zip"):
        return f"{Path(head).name}:{member}"
    return Path(source).name


def conversion_ruleset(game: GravonGame) -> Ruleset:
    """The rule set a Gravon game converts under; UnrepresentableError when the notation cannot hold it."""
    rs = CONVERTIBLE.get(game.game_type)
    if rs is None:
        why = UNREPRESENTABLE.get(game.game_type, f"the kit knows no rules for game type {game.game_type!r}")
        raise UnrepresentableError(why, game.source)
    if not game.has_setup:
        raise UnrepresentableError("the file has no <field>, so the game has no start position, which every "
                                   "record in the kit's notation needs", game.source)
    return rs


def to_game(game: GravonGame) -> Game:
    """The Gravon game as a record in the kit's notation: every move checked by the engine, the recorded
    result kept as Gravon scored it, and Gravon's metadata in headers (``[GravonResult]``, ``[Source]``).

    Where the engine does not confirm how Gravon says the game ended (a player scored as unable to move who
    still has a move), the termination is Gravon's own words and the game comment says what the engine
    finds.  Raises :class:`ConversionError` for an illegal move or a result the final position
    contradicts, :class:`UnrepresentableError` for games the notation cannot hold.
    """
    rs = conversion_ruleset(game)
    start = initial_state(game, rs)
    record = Game(start)
    state = start.copy()
    node: GameNode = record
    try:
        for move, battle in play_checked(state, game.moves, rescues_of(game, rs)):
            child = GameNode(node, move, battle, state.rescue_at(len(state.move_stack) - 1))
            node.variations.append(child)
            node = child
    except IllegalMoveError as e:
        raise ConversionError(f"move {len(state.move_stack) + 1} {e.move} is illegal under {rs.name}: {e.reason}",
                              game.source) from None
    result = recorded_result(game)
    outcome = state.outcome()
    problem = contradiction(game, outcome)
    if problem is not None:
        raise ConversionError(problem, game.source)
    notes = [f"Gravon archive: {w}." for w in game.warnings]
    termination = termination_for(game.result_type, game.winner)
    words = termination.value if termination is not None else game.result_text
    if termination in _ENGINE_DECIDES and (outcome is None or outcome.termination is not termination):
        # Words the notation does not check against the engine, and a comment that says what it finds.
        words = f"{RESULT_TYPES[game.result_type]} (scored by Gravon)"  # type: ignore[index]
        notes.append(f"Gravon scored this game '{game.result_text}' (result type {game.result_type}), but "
                     f"after the last move {_engine_finds(game, state, outcome)}.")
    headers = {"Site": "Gravon", "Red": game.players[0], "Blue": game.players[1], "Result": result,
               "Termination": words, "GravonResult": "" if game.result_type is None else str(game.result_type),
               "Source": source_name(game.source)}
    # Names come from the file: control characters (a line break in a zip member name) are written as escapes.
    record.headers.update((k, printable(v)) for k, v in headers.items() if v)
    record.comment = " ".join(notes)
    return record


def _engine_finds(game: GravonGame, state: State, outcome: Outcome | None) -> str:
    """Why the engine does not confirm how Gravon says a game ended, as the end of a sentence."""
    rs = state.ruleset.name
    if game.result_type == 0 and game.winner is not None:
        loser = 1 - game.winner
        moves = state.generate_legal_moves(loser)
        if moves:
            some = ", ".join(str(m) for m in moves[:3]) + (", ..." if len(moves) > 3 else "")
            return (f"under {rs} {PLAYER_NAMES[loser]} still has {len(moves)} legal "
                    f"move{'s' if len(moves) > 1 else ''} ({some})")
        if state.turn == game.winner:
            return (f"{PLAYER_NAMES[loser]} has no legal move, but it is {PLAYER_NAMES[game.winner]}'s turn: "
                    f"Gravon ended the game at once, the engine ends it only when the side to move cannot move")
    return f"under {rs} the engine finds {outcome or 'that the game goes on'}"


def to_gravon(game: Game) -> GravonGame:
    """A kit game as a Gravon game (its main line; comments and variations have no place there).

    Gravon holds 10x10 games that start from a fresh placement with Red to move, under the rules of its
    game types (:data:`EXPORT_TYPES`), so a pocket game, a lesson from a mid-game position or a game Blue
    starts is refused with an :class:`UnrepresentableError` that says why; so is a result Gravon has no
    code for.
    """
    rs = game.ruleset
    source = game.headers.get("Source", "<game>")
    game_type = EXPORT_TYPES.get(rs.name)
    if game_type is None or get_ruleset(rs.name) != rs:
        raise UnrepresentableError(f"Gravon has no game type for the rule set {rs.name!r}: it holds games "
                                   f"under {', '.join(EXPORT_TYPES)}", source)
    start = game.start
    if start.ply or start.quiet or start.turn != RED:
        quiet = f" after {start.quiet} moves without an attack" if start.quiet else ""
        raise UnrepresentableError(f"Gravon games start before the first move with Red to move; this one starts "
                                   f"at ply {start.ply} with {PLAYER_NAMES[start.turn]} to move{quiet}", source)
    placements: dict[int, tuple[int, str]] = {}
    for sq in start.squares():
        piece = start.piece_at(sq)
        if piece is None or start.has_moved(sq) or start.is_revealed(sq):
            raise UnrepresentableError(f"the piece on {square_name(sq)} has moved or is revealed: a Gravon field "
                                       f"holds a fresh placement", source)
        placements[sq] = (piece.owner, piece.type.name)
    if game_type != "classicfree":
        for player in (RED, BLUE):
            own = {sq: rs.piece_type(name) for sq, (owner, name) in placements.items() if owner == player}
            try:
                Setup.from_placements(own, player, rs).validate()
            except SetupError as e:
                raise UnrepresentableError(f"Gravon's {game_type} games start from two full setups; "
                                           f"{PLAYER_NAMES[player]}'s is not one: {e}", source) from None
    result_type, winner = _gravon_result(game, source)
    line = game.mainline()
    rescues = tuple((i, n.rescue.square, n.rescue.type.name) for i, n in enumerate(line) if n.rescue is not None)
    return GravonGame(source, game_type, encode_field(placements, source),
                      tuple((n.move.from_square, n.move.to_square) for n in line if n.move is not None),
                      (game.headers.get("Red", ""), game.headers.get("Blue", "")), result_type, winner, rescues)


def _gravon_result(game: Game, source: str) -> tuple[int | None, int | None]:
    """Gravon's result type and winner for a kit game: ``[GravonResult]`` if given, else from the
    termination (or the engine's outcome), the winner from the result."""
    result = game.result
    code_text = game.headers.get("GravonResult")
    if result == "*":
        if code_text is not None:
            raise ConversionError(f"[GravonResult \"{code_text}\"] without a result: expected 1-0, 0-1 or "
                                  "1/2-1/2 in [Result]", source)
        return None, None
    if code_text is not None:
        if not (code_text.isascii() and code_text.isdigit() and len(code_text) <= 4):
            raise ConversionError(f"[GravonResult \"{code_text}\"]: expected Gravon's result type, a number "
                                  f"such as 1 (flag captured)", source)
        return int(code_text), _WINNERS[result]
    termination = game.headers.get("Termination")
    if termination is None:
        outcome = game.end().state().outcome()
        termination = outcome.termination.value if outcome is not None else None
    code = _RESULT_CODES.get(termination or "")
    if code is None:
        known = ", ".join(_RESULT_CODES)
        found = "no [Termination]" if termination is None else f"[Termination \"{termination}\"]"
        raise UnrepresentableError(f"Gravon has no result type for {found}: expected one of {known}, or a "
                                   f"[GravonResult] header with Gravon's code", source)
    return code, _WINNERS[result]


def write_gravon(game: Game | GravonGame) -> bytes:
    """A kit game (or a Gravon game) as a strados2 XML file."""
    return dump_gravon(game if isinstance(game, GravonGame) else to_gravon(game))


def write_gravon_zip(games: Iterable[Game | GravonGame], path: str | os.PathLike[str]) -> int:
    """Write games as a zip of strados2 XML files, like a Gravon monthly zip (atomically); returns how many."""
    return dump_gravon_zip((g if isinstance(g, GravonGame) else to_gravon(g) for g in games), path)


def main(argv: list[str] | None = None) -> int:
    """``python -m strategolab.archive verify|study PATH...``: check an archive against the engine."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m strategolab.archive", description=main.__doc__)
    parser.add_argument("command", choices=("verify", "study"),
                        help="verify: replay every classic, barrage and Ultimate Lightning game and report those "
                             "that do not fit; study: count the classic and barrage games each candidate repetition "
                             "rule would break")
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
