"""The computer opponent: :class:`ComputerPlayer` ties beliefs, search, evaluation and explanation together."""

from __future__ import annotations

import functools
import math
import numbers
import os
import random
import warnings
from collections.abc import Callable
from time import perf_counter as _clock

from strategolab.board import Square, geometry, square_name
from strategolab.rules import PLAYER_NAMES, PieceType, Ruleset, get_ruleset
from strategolab.setup_library import book, placement_weights
from strategolab.setup_library import choose_setup as _library_setup
from strategolab.setups import Setup
from strategolab.state import KIND, Move, Piece, State
from strategolab.views import View

from .beliefs import (
    APPROACH_LOSE,
    History,
    approach_weights,
    belief_table,
    read_history,
    remaining_hidden,
    sample_identities,
    their_belief_table,
)
from .evaluation import _DEFENDER_WINS, LostRace, Model, small_army
from .explanation import Candidate, Reasoning, approach_record, describe_move
from .levels import LEVELS, Level
from .memory import Mixture, SetupMemory, shown_setup
from .search import Pairs, Search, base_world, world


class ComputerPlayer:
    """A computer opponent that sees only a player's view; ``level`` is ``"easy"``, ``"medium"`` or ``"hard"``.

    ``choose_move(view)`` returns a legal move; ``beliefs(view)`` what it thinks each unknown enemy piece
    is; ``last_reasoning`` explains its latest choice.  Without a time limit the same seed and view give the
    same move.

    ``time_limit`` (seconds, for a manager that forfeits a slow program): the second look (``Level.verify``)
    takes only as many moves as fit in three quarters of it, so a loaded machine plays a shallower move rather
    than none.  The main search itself is not cut.  None (the default): no clock, the full search always.
    """

    def __init__(self, level: str | Level = "medium", seed: int = 0, name: str | None = None,
                 time_limit: float | None = None) -> None:
        if isinstance(level, str):
            if level not in LEVELS:
                raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
            level = LEVELS[level]
        if not isinstance(level, Level):
            raise TypeError(f"level is one of {', '.join(LEVELS)} or a Level, not {level!r}")
        if time_limit is not None:
            if isinstance(time_limit, bool) or not isinstance(time_limit, numbers.Real):
                raise TypeError(f"time_limit is a number of seconds or None, not {time_limit!r}")
            try:
                time_limit = float(time_limit)
            except OverflowError:
                time_limit = math.inf
            if not 0 < time_limit < math.inf:
                raise ValueError(f"time_limit is a positive, finite number of seconds, not {time_limit!r}")
        self.level = level
        self.seed = seed
        self.time_limit = time_limit
        self.name = name or f"computer ({level.name})"
        self.last_reasoning: Reasoning | None = None
        self.last_setup_plan: str | None = None
        self._book_plan: tuple[str, float] | None = None  # the library's plan the enemy's setup looks like, odds

    def __repr__(self) -> str:
        return f"ComputerPlayer({self.level.name!r}, seed={self.seed}{self._limit_repr()})"

    def _limit_repr(self) -> str:
        """The time limit as the tail of a repr; empty without one."""
        return "" if self.time_limit is None else f", time_limit={self.time_limit!r}"

    # -- setup ---------------------------------------------------------------------------------------

    def choose_setup(self, ruleset: str | Ruleset | None, rng: random.Random) -> Setup:
        """A named plan from the library (maybe mirrored) or a setup drawn from real setup statistics, as
        often as the level says (:attr:`Level.plans`)."""
        rs = get_ruleset(ruleset)
        level = self.level
        small = small_army(rs)
        share = level.small_army_plans if small and level.small_army_plans is not None else level.plans
        self.last_setup_plan, setup = _library_setup(rs, rng, library_share=share)
        return setup

    # -- beliefs ---------------------------------------------------------------------------------------

    def beliefs(self, view: View) -> dict[Square, dict[str, float]]:
        """For every unknown enemy piece (by square), the probability of each piece type of the rule set.

        Per square the probabilities sum to 1; per type they add up to how many of that type the enemy still
        has hidden.  The evidence used depends on the level (see :class:`Level`).
        """
        _check_view(view)
        hist = read_history(view)
        squares, table = belief_table(view, self.level.priors, self.level.soft_evidence, hist,
                                      self._prior(view, hist), self.level.honesty, self.level.stillness)
        names = [k.name for k in view.ruleset.piece_types]
        return {s: dict(zip(names, row, strict=True)) for s, row in zip(squares, table, strict=True)}

    # -- moves -------------------------------------------------------------------------------------------

    def _rng(self, view: View) -> random.Random:
        """The random source for one decision: a function of the seed and the move number only."""
        return random.Random(f"strategolab-ai/{self.seed}/{view.player}/{view.ply}/{len(view.move_stack)}")

    def choose_move(self, view: View) -> Move:
        """The move the computer plays in this view (one of ``view.generate_legal_moves()``)."""
        _check_view(view)
        if view.turn != view.player:
            raise ValueError(f"it is {PLAYER_NAMES[view.turn]}'s turn, this is {PLAYER_NAMES[view.player]}'s view")
        start = _clock()
        legal = view.generate_legal_moves()
        if not legal:
            raise ValueError("no legal move: the game is over")
        rng = self._rng(view)
        level = self.level
        hist = read_history(view)
        squares, table = belief_table(view, level.priors, level.soft_evidence, hist, self._prior(view, hist),
                                      level.honesty, level.stillness)
        theirs = (dict(zip(*their_belief_table(view, hist, level.stillness), strict=True))
                  if level.opponent_model else None)
        model = Model(view, squares, table, level.guard, theirs, hunt=level.hunt, lurk=level.lurk,
                      forks=level.race_forks, seen_at_rank=level.seen_at_rank, through=level.race_through)
        kinds = view.ruleset.piece_types
        left = remaining_hidden(view)
        moved = [view.has_moved(s) for s in squares]
        movable = [k.movable for k in kinds]
        n_worlds = max(1, level.worlds)
        worlds = []
        base = base_world(view)
        for _ in range(n_worlds):
            ids = sample_identities(squares, table, left, moved, movable, rng)
            worlds.append(world(base, view, squares, ids))
        beliefs = dict(zip(squares, table, strict=True))
        land = view.geometry.land
        roots = [model.static(w.board, land) for w in worlds]
        searches = [Search(model, w, beliefs, theirs) for w in worlds]
        depth = level.depth
        small = small_army(view.ruleset)  # a rule set with at most 10 movable pieces a side (barrage, pocket)
        if level.small_army_depth is not None and small and (
                level.small_army_depth <= depth or len(legal) <= _DEEPEN_MOVES):
            depth = level.small_army_depth
        if level.alarm_depth is not None and small and model.flag_distance <= ALARM_MOVES:
            depth = max(depth, level.alarm_depth)
        spread = level.small_army_noise if small and level.small_army_noise is not None else level.noise
        values = {mv: self._evaluate(mv, searches, roots, beliefs, view, depth) for mv in legal}
        adjust = _adjustments(view, model)
        # The races to our Flag we lose if we let them be, read once for the root's term and the reasoning.
        unknown = searches[0].unknown
        races = model.lost_races(worlds[0].board, False, unknown)
        left_race = _race_left(model, worlds[:_RACE_WORLDS], unknown, races, legal) if level.race_root else {}
        mean_root = sum(roots) / len(roots)
        cands = []
        for mv in legal:
            a = adjust(mv) - left_race.get(mv, 0.0)
            noise = rng.gauss(0.0, spread) if spread else 0.0
            v = values[mv] - mean_root
            note = describe_move(view, mv, beliefs)
            if model.trade_gain(view.board[mv.from_square], view.board[mv.to_square], mv.to_square):
                note += ": a trade that stops a raider among its pieces"
            cands.append(Candidate(mv, v + a + noise, v, a, note))
        cands.sort(key=lambda c: c.score, reverse=True)
        verified = looked = planned = 0
        if level.verify > 1 and not small and len(cands) > 1:
            planned, looked = min(level.verify, len(cands)), min(len(searches), max(1, level.verify_worlds))
            deadline = None if self.time_limit is None else start + 0.75 * self.time_limit
            cands, verified = self._verify(cands, planned, searches[:looked], roots[:looked], beliefs, view,
                                           depth + 1, deadline, _clock() - start)
        choice = cands[0].move
        approaches = approach_record(hist.honest, approach_weights(hist.honest, view.ruleset.army)[1],
                                     APPROACH_LOSE) if level.honesty and level.soft_evidence else None
        flag_index = next((i for i, k in enumerate(kinds) if k.is_flag), None)
        guesses = sorted(((s, row[flag_index]) for s, row in zip(squares, table, strict=True)),
                         key=lambda x: -x[1])[:3] if flag_index is not None else []
        self.last_reasoning = Reasoning(view.player, level.name, choice, cands[:5], len(worlds),
                                        sum(s.nodes for s in searches), guesses, self._recall(),
                                        _race_words(view, model, worlds[0], unknown, races, choice),
                                        verified, depth + 1 if verified else depth, looked if verified else 0,
                                        planned if verified < planned else 0, self.time_limit, self._book_plan,
                                        approaches)
        return choice

    def _verify(self, cands: list[Candidate], n: int, searches: list[Search], roots: list[float],
                beliefs: dict[Square, list[float]], view: View, depth: int, deadline: float | None = None,
                spent: float = 0.0) -> tuple[list[Candidate], int]:
        """The best ``n`` candidates searched again ``depth`` plies deep in these worlds, best first by that
        search, ahead of the rest: a ply more sees our answer to the enemy's reply (an escape, a recapture, a
        piece that was only bait), which the shallower search cannot.  With a ``deadline`` (a
        ``time.perf_counter()`` reading) a candidate is searched only if it looks to fit before it (its cost
        guessed as the dearest one so far, the first as half the main search's ``spent`` time); fewer than two
        searched leave the order as it was, so none is searched without room for two.  Returns the candidates
        and how many were searched again."""
        now = sum(roots) / len(roots)
        out: list[Candidate] = []
        dearest = spent / 2
        if deadline is not None and _clock() + 2 * dearest > deadline:
            return cands, 0
        for c in cands[:n]:
            t0 = _clock()
            if deadline is not None and t0 + dearest > deadline:
                break
            v = self._evaluate(c.move, searches, roots, beliefs, view, depth) - now
            out.append(Candidate(c.move, v + c.score - c.search, v, c.adjust, c.note))  # same adjustment, noise
            cost = _clock() - t0
            dearest = cost if len(out) == 1 else max(dearest, cost)
        if len(out) < 2:
            return cands, 0
        out.sort(key=lambda c: c.score, reverse=True)
        return out + cands[len(out):], len(out)

    def _prior(self, view: View, history: History) -> list[list[float]] | None:
        """Priors that replace real players' statistics (None: those): with :attr:`Level.book`, the plans of
        the setup library weighed by what the game has shown; :class:`RememberingPlayer` has its own."""
        self._book_plan = None
        if not (self.level.book and self.level.priors and _fresh_army(view, history)):
            return None
        names, mixture = _book(view.ruleset)
        if not names:
            return None
        now, odds = book_odds(view, history)
        best = max(range(1, len(odds)), key=odds.__getitem__)
        if odds[best] >= 0.5:
            self._book_plan = (names[best - 1], odds[best])
        return mixture.prior(now, odds)

    def _recall(self) -> str:
        if self._book_plan is None:
            return ""
        name, odds = self._book_plan
        return f"its setup looks like the setup library's {name} plan ({odds:.0%})"

    def _evaluate(self, move: Move, searches: list[Search], roots: list[float],
                  beliefs: dict[Square, list[float]], view: View, depth: int) -> float:
        """Average value of ``move`` over the worlds; an attack on an unknown piece is split by piece type."""
        t = move.to_square
        if t in beliefs:
            probs = beliefs[t]
            order = sorted((p, k) for k, p in enumerate(probs) if p > 0.005)[::-1]
            kinds = view.ruleset.piece_types
            enemy = 1 - view.player
            total = 0.0
            mass = 0.0
            for j, (p, k) in enumerate(order):
                i = j % len(searches)
                s = searches[i]
                w = s.world
                before = w.piece_at(t)
                w.set_piece(t, Piece(enemy, kinds[k]), moved=view.has_moved(t))
                a = s.board[move.from_square] & KIND
                if kinds[k].is_flag:  # a dear piece counts the hope of the Flag only in part (Model.prize)
                    v = roots[i] + s.m.prize[view.player][a]
                else:
                    v = s.value(move, depth, roots[i], -1)
                    if not kinds[k].movable and s.m.battle[a][k + 1] == _DEFENDER_WINS:
                        v -= s.m.bomb_extra[view.player][a]  # a cheap piece could have found this Bomb
                w.set_piece(t, before, moved=view.has_moved(t))
                # Each type is met in a different world: count its gain over that world's own position, not
                # the world's value, which differs from the others' by what that world guessed elsewhere.
                total += p * (v - roots[i])
                mass += p
            return sum(roots) / len(roots) + total / mass
        return sum(s.value(move, depth, r, -1) for s, r in zip(searches, roots, strict=True)) / len(searches)


def _race_left(model: Model, worlds: list[State], unknown: dict[Square, Pairs], races: list[LostRace],
               legal: list[Move]) -> dict[Move, float]:
    """Root-only: while a race to our Flag is on (``races``, those we lose if we let them be), what each move
    leaves of it (:meth:`Model.race` after the move, the enemy to move), over the least any move leaves; empty
    otherwise.  ``unknown``: our beliefs about the enemy's unseen pieces as the search reads them.

    The search meets the race only at its leaves, through the enemy replies it models, and there it weighed
    moves that stop an intruder and moves that do not alike (asmodeus's Miner took a Flag so, session 17).
    What stands where decides a quiet move's race, so one world tells it; a battle's is averaged over
    ``worlds``, as its outcome depends on what the enemy piece is."""
    if not races:
        return {}
    left = {}
    for mv in legal:
        battle = worlds[0].board[mv.to_square] != 0
        total = 0.0
        for w in worlds if battle else worlds[:1]:
            after = w.copy()
            after.push(mv)
            total += model.race(after.board, False, unknown)
        left[mv] = total / (len(worlds) if battle else 1)
    least = min(left.values())
    return {mv: v - least for mv, v in left.items()}


def _race_words(view: View, model: Model, world: State, unknown: dict[Square, Pairs], races: list[LostRace],
                choice: Move) -> str:
    """The race to our Flag the computer would lose if it let it be (the costliest of ``races``,
    :meth:`Model.lost_races` with the enemy to move), in words, and whether the chosen move is in time to stop
    it; empty when there is none."""
    if not races:
        return ""
    sq, mass, lost = max(races, key=model.race_cost)
    kind, p, moves, _, ways = max(lost, key=lambda x: x[1] * model.RACE_DECAY ** x[2])
    name = view.ruleset.piece_types[kind - 1].name
    who = f"the {name} on {square_name(sq)}" if sq not in unknown else \
        f"the piece on {square_name(sq)} ({name} {p / mass:.0%})"
    how = ("by either of two ways: each needs a defender near before it shows which it takes" if ways == 2 else
           "sooner than any of its pieces could stop it")
    text = (f"its Flag on {square_name(model.flag_square)} is in a race: {who} can stand next to it in {moves} "
            f"move{'s' if moves != 1 else ''}, {how}")
    if world.board[choice.to_square]:
        return text  # a battle: what the world holds there decides it, not what the computer knows
    after = world.copy()
    after.push(choice)
    stopped = sq not in {r[0] for r in model.lost_races(after.board, False, unknown)}
    return text + (f"; {choice} is in time to stop it" if stopped else f"; {choice} does not stop it")


class RememberingPlayer(ComputerPlayer):
    """A computer player that remembers what each opponent's setups showed, game after game
    (:class:`SetupMemory`), and expects the next setup to resemble them.

    It learns only what its views showed (the types battles and Scout runs revealed, and where those pieces
    started), so two games that differ in unseen identities still lead to the same choice.  Like a program
    it keeps one game at a time: the drivers tell it its opponent's name with ``start_game``; without one
    (or at a level without priors) it plays as :class:`ComputerPlayer` does.
    """

    def __init__(self, memory: SetupMemory | str | os.PathLike[str], level: str | Level = "hard", seed: int = 0,
                 name: str | None = None, time_limit: float | None = None) -> None:
        super().__init__(level, seed, name, time_limit)
        self.memory = memory if isinstance(memory, SetupMemory) else SetupMemory(memory)
        self.opponent: str | None = None
        self.game: str | None = None
        self._past: Mixture | None = None  # this opponent's remembered setups, read at the first move
        self._kept: dict[int, PieceType] = {}  # what this game's file holds
        self._unsaved = False  # saving failed once this game: do not try again

    def __repr__(self) -> str:
        return f"RememberingPlayer({self.memory!r}, {self.level.name!r}, seed={self.seed}{self._limit_repr()})"

    def start_game(self, side: int, opponent: str = "opponent") -> None:
        """A new game against ``opponent``: its setups so far are read when the first move is due."""
        self.opponent, self.game, self._past, self._kept = opponent, self.memory.new_game(), None, {}
        self._unsaved = False

    def end_game(self, outcome: object = None) -> None:
        """Nothing is left to save: each move's view was kept as it came."""
        self.game = None

    def _prior(self, view: View, history: History) -> list[list[float]] | None:
        if self.opponent is None or self.game is None or not self.level.priors:
            return super()._prior(view, history)
        rs = view.ruleset
        if self._past is None:
            self._past = Mixture(placement_weights(rs), self.memory.games(self.opponent, rs, exclude=self.game))
        shown = shown_setup(view, history)
        if shown != self._kept and not self._unsaved:
            try:
                self.memory.record(self.opponent, rs, self.game, shown)
            except OSError as e:  # a full disk or a folder it may not write: play on, remembering less
                self._unsaved = True
                warnings.warn(f"cannot keep this game in the memory {self.memory.folder} ({e}); playing on "
                              "without saving it", stacklevel=2)
            self._kept = shown
        if not self._past.remembered:
            return super()._prior(view, history)
        self._book_plan = None
        index = {k.name: j for j, k in enumerate(rs.piece_types)}
        return self._past.prior({i: index[k.name] for i, k in shown.items()})

    def _recall(self) -> str:
        if self._past is None or not self._past.remembered:
            return super()._recall()
        n = len(self._past.remembered)
        return f"expects a setup like the {n} {'setup' if n == 1 else 'setups'} of {self.opponent} it remembers"


# The weight of "a setup of its own" against each plan of the setup library and its mirror image, for a level
# that knows the library (Level.book): with the six classic plans and their mirrors, a tenth of the prior is the
# plans'.  A battle or two that show what a plan has where it has it make the plan likelier than the rest;
# against a player who does not use the library, what it shows soon leaves the plans nothing.
BOOK_FRESH = 108.0


@functools.cache
def _book(rs: Ruleset) -> tuple[tuple[str, ...], Mixture]:
    """The names of the library's plans and their mirror images, and the prior they make with real players'
    statistics (:class:`Mixture`, each plan one hypothesis)."""
    plans = book(rs)
    index = {k.name: j for j, k in enumerate(rs.piece_types)}
    setups = [{i: index[k.name] for i, k in enumerate(setup.pieces) if k is not None} for _, setup in plans]
    return tuple(name for name, _ in plans), Mixture(placement_weights(rs), setups, fresh=BOOK_FRESH)


def book_odds(view: View, history: History) -> tuple[dict[int, int], list[float]]:
    """How likely the enemy's setup is "a setup of its own" (first) and each plan of :func:`_book` (in its
    order), given what the game has shown (``view``, ``history``), with the types it showed by setup index."""
    rs = view.ruleset
    _, mixture = _book(rs)
    index = {k.name: j for j, k in enumerate(rs.piece_types)}
    now = {i: index[k.name] for i, k in shown_setup(view, history).items()}
    # Where the enemy set its pieces is public (a setup smaller than its zone, as in barrage, leaves squares
    # empty): a plan that leaves empty a square it used is not its setup.
    zone = {sq: i for i, sq in enumerate(geometry(rs).setup_squares[1 - view.player])}
    used = {zone[o] for s in view.squares(1 - view.player) if (o := history.origin.get(s, s)) in zone} | now.keys()
    odds = mixture.posterior(now)
    possible = [used <= plan.keys() for plan in mixture.remembered]
    if not all(possible):
        odds = [odds[0]] + [w if ok else 0.0 for w, ok in zip(odds[1:], possible, strict=True)]
        total = sum(odds)
        odds = [w / total for w in odds]
    return now, odds


def _fresh_army(view: View, history: History) -> bool:
    """Did the enemy set up a whole army at the start (every piece it has or lost counted, each on the board
    from a square of its setup zone), as the plans of the setup library do?  A lesson position may not."""
    enemy = 1 - view.player
    rs = view.ruleset
    zone = set(geometry(rs).setup_squares[enemy])
    here = view.squares(enemy)
    if any(history.origin.get(s, s) not in zone for s in here):
        return False
    return len(here) + len(view.captured(enemy)) == sum(n for _, n in rs.army)


def _check_view(view: object) -> None:
    if not isinstance(view, View):
        raise TypeError(f"the computer reasons from a player's View only (state.view(player)), not "
                        f"{type(view).__name__}")


# A small army searches deeper (Level.small_army_depth) only with at most this many legal moves: the time of
# a third ply grows with them (barrage, 6 games on the loaded machine: at most 2.4 s a move with 30 or fewer,
# up to 6 s with more; at 20 hard beat medium only 12-0-8 in 20 games, at 30 15-0-5).
_DEEPEN_MOVES = 30
ALARM_MOVES = 2  # an enemy piece this many steps from taking our Flag raises the alarm (Level.alarm_depth)
_RACE_WORLDS = 4  # worlds a battle's share of a race to our Flag is averaged over at the root

_PACE = 200  # quiet moves after which the computer presses for a battle in a rule set without a draw limit


def _adjustments(view: View, model: Model) -> Callable[[Move], float]:
    """Root-only corrections the shallow search cannot see: do not shuffle back and forth, press for a
    battle as the quiet-move draw nears (or nothing has happened for long where no rule draws) while ahead,
    do not show an unmoved piece is no Bomb for nothing, and trade with a known raider (Model.trades)."""
    mine = [m for i, m in enumerate(view.move_stack) if (len(view.move_stack) - i) % 2 == 0][-6:]
    last = mine[-1] if mine else None
    recent = {m.from_square for m in mine}
    # Without a quiet-move draw (ucc, gravon-classic, original-1961) a game nobody presses never ends, which is
    # a draw too (a manager's turn limit): press as if classic's 200 moves applied, harder and harder after.
    limit = view.ruleset.draw_limit
    pace = limit if limit is not None else _PACE
    urgency = 0.0
    if view.quiet > pace // 3:
        x = min(3.0, (view.quiet - pace // 3) / (pace - pace // 3))
        urgency = 80.0 * x * x * (1.0 if model.material > 30 else 0.3)
    board = view.board

    trades = model.trades

    def adjust(mv: Move) -> float:
        f, t = mv
        a = 0.0
        if board[t]:
            a += urgency
            if t in trades:
                a += model.trade_gain(board[f], board[t], t)  # a trade with a known raider (Model.trades)
        else:
            if last is not None and f == last.to_square and t == last.from_square:
                a -= 4.0
            elif t in recent:
                a -= 1.5
        if not view.has_moved(f):
            a -= 1.0
        return a

    return adjust
