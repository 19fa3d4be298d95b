"""The computer opponent: beliefs about hidden pieces, and moves chosen from those beliefs.

The opponent receives one player's :class:`~strategolab.views.View` and nothing else.  From it, it works out
what each unknown enemy piece may be (:meth:`ComputerPlayer.beliefs`):

* **priors** from real setups: where a piece *started* (traced back through the public move list) and how
  often real players put each piece type on that square (:func:`strategolab.setup_library.placement_weights`);
* **hard evidence**: a piece that has moved is no Bomb and no Flag; battles and Scout runs reveal pieces,
  which the remaining-army counts then take out of the unknown pool;
* **softer evidence** (``hard`` level): a piece that steps next to one of our revealed pieces is probably
  stronger than it, one that runs away from it probably weaker, one that stays put probably safe from it;
* the whole table is then balanced (iterative proportional fitting) so that every row sums to 1 and every
  column to the number of pieces of that type the enemy still has hidden: the counts constrain the army as
  a whole, not each piece on its own.

To choose a move it draws complete hidden identities from those beliefs ("worlds"), searches each world a
few plies with an evaluation of material, information (revealed pieces are worth less) and Flag safety, and
averages each move's score over the worlds.  An attack on an unknown piece is scored piece type by piece
type, weighted by the belief, so the immediate risk is exact; deeper in the search, too, our attacks on
unseen pieces count by their expectation, never by what the world happens to hold.  Root moves come from
the view's own legal-move list, so the opponent never proposes a move the rules refuse; the search is
depth-limited, and a small penalty for stepping back and forth keeps it from shuffling.  Each choice is
reproducible: the random draws come from the player's seed and the move number only.

Levels (:data:`LEVELS`): ``easy`` judges a move only by its own battle, with uniform priors, one world
and a lot of noise; ``medium`` also checks whether the moved piece can be taken back (and whether its Flag
is left open), with real priors, four worlds and little noise; ``hard`` weighs every reply (two plies) in
eight worlds, reads behaviour as evidence, models what the enemy can know about *our* pieces, and stands in
the way of pieces that come for its Flag.  Pure Python; the only imports are the engine's.
"""

from __future__ import annotations

import functools
import heapq
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from strategolab.board import STRIDE, Square, geometry, square_name
from strategolab.rules import CLASSIC as _CLASSIC
from strategolab.rules import PLAYER_NAMES, RUN, BattleResult, PieceType, Ruleset, get_ruleset, resolve_battle
from strategolab.setup_library import choose_setup as _library_setup
from strategolab.setup_library import placement_weights
from strategolab.setups import Setup
from strategolab.state import KIND, OWNER, REVEALED, Battle, Move, Piece, State
from strategolab.views import View

WIN = 2000.0  # a captured Flag, in the same units as the material values (about a whole army)
_INF = float("inf")
_ATTACKER_WINS = int(BattleResult.ATTACKER_WINS)
_DEFENDER_WINS = int(BattleResult.DEFENDER_WINS)


@dataclass(frozen=True)
class Level:
    """How hard the computer thinks: search effort, what evidence and knowledge it uses, and how much it errs."""

    name: str
    worlds: int  # hidden-identity samples searched per move (at least one is always drawn)
    # plies searched in each world, after which the side to move may still take a piece (0: only the move's
    # own battle counts, not the reply)
    depth: int
    priors: bool  # priors from where pieces stand in setups (real statistics where the archive has them, else
    # a hand-made depth prior from placement_weights); False: every type equally likely on every square
    soft_evidence: bool  # read the enemy's behaviour (approach, flight) as evidence
    opponent_model: bool  # the enemy, too, chooses by what it can know (else: it sees through our pieces)
    guard: float  # how strongly to stand in the way of enemy pieces that come for our Flag (0: not at all)
    noise: float  # random spread added to each move's score: weaker levels misjudge more


LEVELS: dict[str, Level] = {
    # Judges each move only by what it takes (or risks in its own battle), guesses where pieces stand.
    "easy": Level("easy", worlds=1, depth=0, priors=False, soft_evidence=False, opponent_model=False,
                  guard=0.0, noise=14.0),
    # Also looks at whether the moved piece can be taken back; real priors, several worlds, little noise.
    "medium": Level("medium", worlds=4, depth=1, priors=True, soft_evidence=False, opponent_model=False,
                    guard=0.0, noise=2.0),
    # Two plies (every reply is weighed), behavioural evidence, a model of what the enemy knows, and
    # defenders placed in the way of pieces that come for its Flag.
    "hard": Level("hard", worlds=8, depth=2, priors=True, soft_evidence=True, opponent_model=True,
                  guard=80.0, noise=0.5),
}


@dataclass(frozen=True)
class Candidate:
    """One move the computer considered, with its score and the parts it is made of."""

    move: Move
    score: float  # what the choice compared: search value + adjustments + noise
    search: float  # searched value (material, information, Flag safety) averaged over the worlds, minus now
    adjust: float  # root adjustments: repetition, the quiet-move draw, showing an unmoved piece
    note: str = ""

    def __str__(self) -> str:
        return f"{self.move} {self.score:+.1f}" + (f" ({self.note})" if self.note else "")


@dataclass
class Reasoning:
    """Why the computer played its last move: the best candidates and what it believes (for the drawer)."""

    player: int
    level: str
    move: Move
    candidates: list[Candidate]  # best first
    worlds: int
    nodes: int
    flag_guesses: list[tuple[Square, float]] = field(default_factory=list)  # likeliest enemy Flag squares

    def __str__(self) -> str:
        guesses = "guess" if self.worlds == 1 else "guesses"
        lines = [f"{PLAYER_NAMES[self.player]} ({self.level}) plays {self.move}: searched {self.worlds} "
                 f"{guesses} at the hidden enemy pieces, {self.nodes} positions; its best moves by score (what it "
                 f"expects to gain in material, safety and information, with small adjustments and its level's "
                 f"noise):"]
        lines += [f"  {c}" for c in self.candidates]
        if self.flag_guesses:
            lines.append("  enemy Flag likeliest on " + ", ".join(
                f"{square_name(s)} {p:.0%}" for s, p in self.flag_guesses))
        return "\n".join(lines)


def _note(view: View, move: Move, beliefs: dict[Square, list[float]]) -> str:
    """What a candidate move does, in words a learner can follow: whom it attacks, and what the computer
    believes a hidden target is (its three likeliest types)."""
    t = move.to_square
    if not view.board[t]:
        return ""
    rs = view.ruleset
    target = view.piece_at(t)
    if target is not None:
        return f"attacks the {target.type.name}"
    probs = beliefs.get(t)
    if not probs:
        return "attacks a hidden piece"
    top = sorted(((p, k) for k, p in enumerate(probs) if p >= 0.005), reverse=True)[:3]
    return "attacks a hidden piece: " + ", ".join(f"{rs.piece_types[k].name} {p:.0%}" for p, k in top)


# -- what the public history tells about each piece ------------------------------------------------------


@dataclass
class History:
    """What the public move list says about the pieces now on the board (keyed by their current square)."""

    origin: dict[Square, Square]  # where each piece started the game
    events: dict[Square, list[tuple[str, PieceType]]]  # enemy piece -> ("approach" | "flee" | "stay", our type)


def read_history(view: View) -> History:
    """Trace every piece on the board back to its starting square and note how enemy pieces behaved.

    Works backwards through the moves and battles (all public) to find where each piece started, then
    forwards to see enemy pieces step next to our pieces that they knew (revealed ones), run from them, or
    stay when one of them came next to them.
    """
    me = view.player
    geo = view.geometry
    nbrs = geo.neighbours
    moves = view.move_stack
    battles = dict(view.battles)
    owner: dict[int, int] = {}
    kind: dict[int, PieceType | None] = {}
    cur: dict[Square, int] = {}
    for s in geo.land:
        if view.board[s]:
            cur[s] = s
            owner[s] = view.owner_at(s)  # type: ignore[assignment]
            piece = view.piece_at(s)
            kind[s] = piece.type if piece else None
    dead = 1 << 16

    def bury(piece: Piece) -> int:
        nonlocal dead
        dead += 1
        owner[dead], kind[dead] = piece.owner, piece.type
        return dead

    shown: set[int] = set()  # pieces that a battle or a run revealed during the game
    for i in range(len(moves) - 1, -1, -1):
        f, t = moves[i]
        b = battles.get(i)
        if b is None:
            cur[f] = cur.pop(t)
            if abs(t - f) not in (1, STRIDE):
                shown.add(cur[f])
        elif b.result == BattleResult.ATTACKER_WINS:
            cur[f] = cur.pop(t)
            shown.add(cur[f])
            cur[t] = bury(b.defender)
        elif b.result == BattleResult.DEFENDER_WINS:
            shown.add(cur[t])
            cur[f] = bury(b.attacker)
        else:
            cur[f] = bury(b.attacker)
            cur[t] = bury(b.defender)
    origin = {pid: sq for sq, pid in cur.items() if pid < 1 << 16}
    events: dict[Square, list[tuple[str, PieceType]]] = {}
    if not moves:
        return History(origin, events)
    board = dict(cur)
    # Revealed from the start (a lesson position): revealed now, and no battle or run explains it.
    revealed = {pid for pid in cur.values() if pid < 1 << 16 and pid not in shown and view.is_revealed(pid)}
    pending: tuple[PieceType, Square, list[tuple[Square, int]]] | None = None
    for i, (f, t) in enumerate(moves):
        mover = board[f]
        b = battles.get(i)
        if owner[mover] != me:
            if b is None:
                if pending is not None:
                    threat, xs, threatened = pending
                    for usq, uid in threatened:
                        if uid == mover:
                            if t not in nbrs[xs]:
                                events.setdefault(uid, []).append(("flee", threat))
                        elif board.get(usq) == uid and any(n not in board for n in nbrs[usq]):
                            events.setdefault(uid, []).append(("stay", threat))
                for n in nbrs[t]:
                    o = board.get(n)
                    if o is not None and owner[o] == me and o in revealed and n not in nbrs[f] and n != f:
                        events.setdefault(mover, []).append(("approach", kind[o]))  # type: ignore[arg-type]
            pending = None
        _replay(board, revealed, f, t, b)
        if owner[mover] == me:
            pending = None
            k = kind[mover]
            if b is None and mover in revealed and k is not None and k.movable:
                threatened = [(n, board[n]) for n in nbrs[t] if n in board and owner[board[n]] != me]
                if threatened:
                    pending = (k, t, threatened)
    return History(origin, {pid: ev for pid, ev in events.items() if pid < 1 << 16})


def _replay(board: dict[Square, int], revealed: set[int], f: Square, t: Square, battle: Battle | None) -> None:
    """Apply one public move to a board of piece ids (battle outcome from the public battle record)."""
    mover = board.pop(f)
    if battle is None:
        board[t] = mover
        if abs(t - f) not in (1, STRIDE):
            revealed.add(mover)  # a run of several squares shows a Scout
        return
    result = battle.result
    if result == BattleResult.ATTACKER_WINS:
        board[t] = mover
        revealed.add(mover)
    elif result == BattleResult.DEFENDER_WINS:
        revealed.add(board[t])
    else:
        del board[t]


# -- beliefs -----------------------------------------------------------------------------------------------


def remaining_hidden(view: View) -> list[int]:
    """How many pieces of each type (``ruleset.piece_types`` order) the enemy still has unrevealed on the board."""
    rs = view.ruleset
    index = {k.name: i for i, k in enumerate(rs.piece_types)}
    left = [n for _, n in rs.army]
    enemy = 1 - view.player
    for k in view.captured(enemy):
        left[index[k.name]] -= 1
    for s in view.squares(enemy):
        piece = view.piece_at(s)
        if piece is not None:
            left[index[piece.type.name]] -= 1
    return [max(0, n) for n in left]


def belief_table(view: View, priors: bool = True, soft_evidence: bool = True,
                 history: History | None = None) -> tuple[list[Square], list[list[float]]]:
    """The unknown enemy squares and, per square, a probability per piece type (``ruleset.piece_types`` order).

    Rows sum to 1; columns sum to :func:`remaining_hidden` (scaled, in a lesson position that does not hold
    a full army).  See the module docstring for the evidence used.
    """
    squares = view.unknown_squares()
    if not squares:
        return squares, []
    hist = history if history is not None else read_history(view)
    return squares, _infer(view, 1 - view.player, squares, remaining_hidden(view), hist, priors,
                           hist.events if soft_evidence else {})


def their_belief_table(view: View, history: History | None = None) -> tuple[list[Square], list[list[float]]]:
    """What the *enemy* can believe about our pieces it has not seen, from the same public information.

    The same inference as :func:`belief_table` from the other side (priors from real setups, moved pieces
    are no Bombs, the counts of our hidden army), without behavioural evidence: it is what the enemy could
    know, which the ``hard`` level uses to foresee which of our pieces the enemy dares to attack.
    """
    me = view.player
    squares = [s for s in view.squares(me) if not view.is_revealed(s)]
    if not squares:
        return squares, []
    index = {k.name: i for i, k in enumerate(view.ruleset.piece_types)}
    left = [0] * len(index)
    for s in squares:
        left[index[view.piece_at(s).type.name]] += 1  # type: ignore[union-attr]
    hist = history if history is not None else read_history(view)
    return squares, _infer(view, me, squares, left, hist, True, {})


def _infer(view: View, side: int, squares: list[Square], left: list[int], hist: History, priors: bool,
           events: dict[Square, list[tuple[str, PieceType]]]) -> list[list[float]]:
    """Beliefs about ``side``'s pieces on ``squares``, balanced against ``left`` pieces of each type."""
    rs = view.ruleset
    kinds = rs.piece_types
    n = len(kinds)
    weights = placement_weights(rs) if priors else None
    setup_index = {sq: i for i, sq in enumerate(geometry(rs).setup_squares[side])}
    movable = [k.movable for k in kinds]
    moved = [view.has_moved(s) for s in squares]
    # If the moved pieces use up every movable piece left, the unmoved ones are all immobile.
    forced = sum(moved) >= sum(c for c, m in zip(left, movable, strict=True) if m)
    rows = []
    for s, has_moved in zip(squares, moved, strict=True):
        i = setup_index.get(hist.origin.get(s, s))
        row = [weights[k][i] for k in range(n)] if weights is not None and i is not None else [1.0] * n
        if has_moved:
            row = [x if movable[k] else 0.0 for k, x in enumerate(row)]
        elif forced:
            row = [0.0 if movable[k] else x for k, x in enumerate(row)]
        if s in events:
            row = [x * _likelihood(kinds[k], events[s]) for k, x in enumerate(row)]
        if not any(x > 0 and left[k] for k, x in enumerate(row)):
            row = [1.0 if left[k] and (movable[k] or not has_moved) else 0.0 for k in range(n)]
        rows.append(row)
    return balance(rows, left)


def _likelihood(kind: PieceType, events: list[tuple[str, PieceType]]) -> float:
    """How well a piece type explains the behaviour seen (relative; at most three events of each sort)."""
    out = 1.0
    seen: dict[str, int] = {}
    for what, ours in events:
        seen[what] = seen.get(what, 0) + 1
        if seen[what] > 3:
            continue
        if what == "approach":  # it stepped next to our known piece: it expects to win (or bluffs)
            r = resolve_battle(kind, ours) if kind.movable else BattleResult.DEFENDER_WINS
            out *= 1.0 if r == BattleResult.ATTACKER_WINS else 0.6 if r == BattleResult.BOTH_DIE else 0.35
        elif what == "flee":  # it ran from our known piece: our piece would have won
            out *= 1.0 if resolve_battle(ours, kind) == BattleResult.ATTACKER_WINS else 0.4
        elif what == "stay":  # it could have run but did not: it is safe from our piece (or bluffs)
            out *= 1.0 if resolve_battle(ours, kind) != BattleResult.ATTACKER_WINS else 0.6
    return out


def balance(rows: list[list[float]], targets: Sequence[float], tolerance: float = 1e-7,
            max_rounds: int = 500) -> list[list[float]]:
    """Scale a non-negative table so each row sums to 1 and each column to its target (Sinkhorn balancing).

    Zeros stay zeros (hard evidence).  The targets are rescaled to the number of rows if they do not add up
    to it.  Returns the rows (modified in place).
    """
    m = len(rows)
    if not m:
        return rows
    total = sum(targets)
    goal = [t * m / total for t in targets] if total > 0 else [m / len(targets)] * len(targets)
    for _ in range(max_rounds):
        for r in rows:
            s = sum(r)
            if s > 0:
                inv = 1.0 / s
                r[:] = [x * inv for x in r]
        cols = [sum(c) for c in zip(*rows, strict=True)]
        if max(abs(c - g) for c, g in zip(cols, goal, strict=True) if c > 0) < tolerance:
            break
        scale = [g / c if c > 0 else 0.0 for c, g in zip(cols, goal, strict=True)]
        for r in rows:
            r[:] = [x * f for x, f in zip(r, scale, strict=True)]
    for r in rows:
        s = sum(r)
        if s > 0:
            r[:] = [x / s for x in r]
    return rows


def sample_identities(squares: Sequence[Square], table: Sequence[Sequence[float]], left: Sequence[int],
                      moved: Sequence[bool], movable: Sequence[bool], rng: random.Random) -> list[int]:
    """One full assignment of piece types (indices) to the unknown squares, drawn from the beliefs.

    Exactly ``left[k]`` pieces of type ``k`` are handed out when the counts match the squares (moved pieces
    first, from the movable types, so the draw never runs out of options); otherwise each square is drawn on
    its own.
    """
    n = len(squares)
    exact = sum(left) == n
    pool = list(left)
    out = [0] * n
    order = list(range(n))
    rng.shuffle(order)
    order.sort(key=lambda i: not moved[i])
    for i in order:
        row = table[i]
        w = [x if (not exact or pool[k] > 0) else 0.0 for k, x in enumerate(row)]
        if sum(w) <= 0:
            w = [1.0 if pool[k] > 0 and (movable[k] or not moved[i]) else 0.0 for k in range(len(row))]
            if sum(w) <= 0:
                w = [1.0 if pool[k] > 0 else 0.0 for k in range(len(row))] if exact else [1.0] * len(row)
        x = rng.random() * sum(w)
        k = 0
        for k, wk in enumerate(w):  # noqa: B007 - the last index is the fallback
            x -= wk
            if x < 0 and wk > 0:
                break
        while w[k] <= 0:
            k -= 1
        out[i] = k
        if exact:
            pool[k] -= 1
    return out


# -- evaluation --------------------------------------------------------------------------------------------


def piece_values(rs: Ruleset, own_left: Sequence[int], enemy_left: Sequence[int]) -> list[float]:
    """Material value of each of one side's piece types (``ruleset.piece_types`` order), for this moment.

    Movable pieces grow by a factor 1.45 per distinct strength rank; a special power adds part of the value
    of what it beats (the Spy half a Marshal while the enemy Marshal lives; a Miner more while enemy Bombs
    remain and few Miners are left to defuse them); the last four movable pieces are worth more (a side that
    cannot move loses).  Immobile pieces are worth a little; the Flag nothing (capturing it ends the game:
    :data:`WIN`).
    """
    kinds = rs.piece_types
    ranks = sorted({k.strength for k in kinds if k.movable})
    base = [10.0 * 1.45 ** ranks.index(k.strength) if k.movable else 0.0 for k in kinds]
    # The last few movable pieces are worth more: a side that cannot move loses.
    movers = sum(n for k, n in zip(kinds, own_left, strict=True) if k.movable)
    scarce = 150.0 / movers if 0 < movers <= 4 else 0.0
    out = []
    for i, k in enumerate(kinds):
        if k.is_flag:
            out.append(0.0)
            continue
        if not k.movable:
            out.append(12.0)
            continue
        v = base[i]
        for j, target in enumerate(kinds):
            if target.name not in k.beats_when_attacking or not enemy_left[j]:
                continue
            if target.movable:
                v += 0.5 * base[j]
            else:
                v += 25.0 * min(1.0, enemy_left[j] / max(1, own_left[i]))
        out.append(v + scarce)
    return out


@functools.cache
def win_value(rs: Ruleset) -> float:
    """What capturing the Flag is worth in ``rs``: :data:`WIN` (about a classic army) scaled to this army's
    material, so that in a small army (pocket, barrage) the hope of finding the Flag does not outweigh every
    piece: otherwise the best pieces are thrown at any unmoved piece that might be the Flag (and is a Bomb)."""
    def material(r: Ruleset) -> float:
        counts = [n for _, n in r.army]
        return sum(v * n for v, n in zip(piece_values(r, counts, counts), counts, strict=True))

    return WIN * material(rs) / material(_CLASSIC)


@functools.cache
def _distances(rs: Ruleset) -> dict[Square, dict[Square, int]]:
    """Steps between land squares around the lakes (pieces ignored), for the long-range plans."""
    geo = geometry(rs)
    out: dict[Square, dict[Square, int]] = {}
    for start in geo.land:
        dist = {start: 0}
        frontier = [start]
        while frontier:
            nxt = []
            for s in frontier:
                for t in geo.neighbours[s]:
                    if t not in dist:
                        dist[t] = dist[s] + 1
                        nxt.append(t)
            frontier = nxt
        out[start] = dist
    return out


def _paths_to(view: View, flag: Square) -> tuple[dict[Square, int], dict[Square, int]]:
    """Moves an enemy piece needs to reach our Flag: around our Bombs (``plain``), or through them for a
    piece that defuses them (``defuser``: taking a Bomb is a move like any other)."""
    me = view.player
    geo = view.geometry
    blocked = {s for s in view.squares(me) if s != flag and not view.piece_at(s).type.movable}  # type: ignore[union-attr]
    out = []
    for bomb_cost in (None, 1):
        dist = {flag: 0}
        frontier = [(0, flag)]
        while frontier:
            d, s = heapq.heappop(frontier)
            if d > dist[s]:
                continue
            for t in geo.neighbours[s]:
                # Walking outwards from the Flag: the cost of the step is paid on the square stepped from.
                step = 1 if s not in blocked else bomb_cost
                if step is None:
                    continue
                if d + step < dist.get(t, 1 << 30):
                    dist[t] = d + step
                    heapq.heappush(frontier, (d + step, t))
        out.append(dist)
    return out[0], out[1]


@functools.cache
def _battle_table(rs: Ruleset) -> tuple[tuple[int, ...], ...]:
    kinds = (None, *rs.piece_types)
    return tuple(tuple(0 if a is None or d is None else int(resolve_battle(a, d)) for d in kinds) for a in kinds)


class _Model:
    """Everything one decision's search reads: values, square tables, geometry, per kind code (1-based)."""

    PULL = 0.12  # weight of the pull towards targets a piece should attack
    PULL_DECAY = 0.8  # per step of distance
    FLAG_PULL = 400.0  # how much an enemy Flag is worth as a target
    COVER = 40.0  # our movable piece next to our Flag
    GUARD_FROM, GUARD_SPAN = 10, 15  # guarding grows from armies of 10 movable pieces to full at 25 and more
    DANGER = 120.0  # enemy piece next to our Flag
    DANGER_DECAY = 0.55

    def __init__(self, view: View, squares: list[Square], table: list[list[float]], guard: float = 0.0) -> None:
        rs = view.ruleset
        self.rs = rs
        self.me = me = view.player
        geo = view.geometry
        kinds = rs.piece_types
        n = len(kinds)
        self.neighbours = geo.neighbours
        self.battle = _battle_table(rs)
        self.flag = (False, *(k.is_flag for k in kinds))
        self.mobile = (False, *(k.movable for k in kinds))
        self.draw_limit = rs.draw_limit
        self.rays = geo.rays
        self.runs = (False, *(k.mobility == RUN and rs.scout_attacks_after_run for k in kinds))
        own_left = [0] * n
        index = {k.name: i for i, k in enumerate(kinds)}
        for s in view.squares(me):
            own_left[index[view.piece_at(s).type.name]] += 1  # type: ignore[union-attr]
        enemy_left = remaining_hidden(view)
        for s in view.squares(1 - me):
            piece = view.piece_at(s)
            if piece is not None:
                enemy_left[index[piece.type.name]] += 1
        own_v = piece_values(rs, own_left, enemy_left)
        enemy_v = piece_values(rs, enemy_left, own_left)
        self.material = (sum(v * c for v, c in zip(own_v, own_left, strict=True))
                         - sum(v * c for v, c in zip(enemy_v, enemy_left, strict=True)))
        self.values = {me: own_v, 1 - me: enemy_v}
        self.win = win_value(rs)
        val = [[0.0] * (n + 1), [0.0] * (n + 1)]
        info = [[0.0] * (n + 1), [0.0] * (n + 1)]
        for side, v in self.values.items():
            for i in range(n):
                val[side][i + 1] = v[i]
                # A known piece is easier to meet with the right piece: top pieces lose most by being seen.
                info[side][i + 1] = (0.15 if v[i] >= 0.6 * max(v) else 0.1) * v[i] if kinds[i].movable else 3.0
        self.val = val
        self.info = info
        size = geo.size
        zero = [0.0] * size
        pst: list[list[list[float]]] = [[zero] * (n + 1), [zero] * (n + 1)]
        dist = _distances(rs)
        # Enemy pieces: the fewer steps they need to reach our Flag (around our Bombs, unless they can
        # defuse them), the worse for us.
        flags = [s for s in view.squares(me) if view.piece_at(s).type.is_flag]  # type: ignore[union-attr]
        self.flag_square = flags[0] if flags else -1
        if flags:
            plain, defuser = _paths_to(view, flags[0])
            own_blockers = {k.name for k in kinds if not k.movable and not k.is_flag}
            for a in range(n):
                if not kinds[a].movable:
                    continue
                dist_map = defuser if kinds[a].beats_when_attacking & own_blockers else plain
                row = [0.0] * size
                for sq, d in dist_map.items():
                    row[sq] = self.DANGER * self.DANGER_DECAY ** d
                pst[1 - me][a + 1] = row
        # Our pieces: pulled towards the enemy pieces they expect to beat (or the likely Flag), the more so
        # the closer those come to our Flag.
        beliefs = dict(zip(squares, table, strict=True))
        targets: list[tuple[Square, list[float]]] = []
        for s in view.squares(1 - me):
            piece = view.piece_at(s)
            if piece is None:
                targets.append((s, beliefs[s]))
            else:
                targets.append((s, [1.0 if k.name == piece.type.name else 0.0 for k in kinds]))
        decay = [self.PULL_DECAY ** d for d in range(64)]
        for a in range(n):
            if not own_left[a] or not kinds[a].movable:
                continue
            gains = []
            for s, probs in targets:
                g = 0.0
                for k, p in enumerate(probs):
                    if p <= 0:
                        continue
                    r = self.battle[a + 1][k + 1]
                    if r == _ATTACKER_WINS:
                        g += p * (enemy_v[k] + pst[1 - me][k + 1][s] + (self.FLAG_PULL if kinds[k].is_flag else 0.0))
                    elif r == _DEFENDER_WINS:
                        g -= p * own_v[a]
                    else:
                        g += p * (enemy_v[k] - own_v[a])
                if g > 0:
                    gains.append((g, s))
            gains.sort(reverse=True)
            row = [0.0] * size
            for g, s in gains[:6]:
                w = self.PULL * g
                for sq, d in dist[s].items():
                    pull = w * decay[min(d, 63)]
                    if pull > row[sq]:
                        row[sq] = pull
            pst[me][a + 1] = row
        if flags:
            # A piece next to our Flag keeps the way to it shut (Scouts' lanes included): do not leave lightly.
            for a in range(n):
                if kinds[a].movable and own_left[a]:
                    row = pst[me][a + 1][:]
                    for sq in geo.neighbours[flags[0]]:
                        row[sq] += self.COVER
                    pst[me][a + 1] = row
            # Guarding pays in a big army with pieces to spare; a small one (barrage, pocket) needs every piece
            # up front, and the tournament shows hard losing to medium there when it guards.
            movers = sum(count for kind, count in self.rs.army if kind.movable)
            guard *= min(1.0, max(0.0, (movers - self.GUARD_FROM) / self.GUARD_SPAN))
            if guard:
                self._guard(plain, defuser, targets, own_left, guard, pst)
        self.pst = pst

    def _guard(self, plain: dict[Square, int], defuser: dict[Square, int], targets: list[tuple[Square, list[float]]],
               own_left: list[int], weight: float, pst: list[list[list[float]]]) -> None:
        """Pull the pieces that can stop an intruder towards our Flag, the more the closer an enemy piece
        that could take it has come: following an intruder is too late, standing in its way is not.
        ``plain``/``defuser``: steps to our Flag around our Bombs and through them (:func:`_paths_to`)."""
        kinds = self.rs.piece_types
        me = self.me
        blockers = {k.name for k in kinds if not k.movable and not k.is_flag}
        defusers = [k for k in kinds if k.movable and k.beats_when_attacking & blockers]
        threat = 0.0
        for s, probs in targets:
            t = 0.0
            for k, p in enumerate(probs):
                if p > 0 and kinds[k].movable:
                    d = (defuser if kinds[k] in defusers else plain).get(s)
                    if d is not None:
                        t += p * 0.7 ** d
            threat = max(threat, t)
        if threat < 0.01:
            return
        movers = sorted(k.strength for k in kinds if k.movable)
        for a, kind in enumerate(kinds):
            if not own_left[a] or not kind.movable:
                continue
            if defusers:
                guards = all(resolve_battle(kind, d) == BattleResult.ATTACKER_WINS for d in defusers)
            else:
                guards = kind.strength >= movers[len(movers) // 2]
            if not guards:
                continue
            row = pst[me][a + 1][:]
            for sq, d in defuser.items():
                if d:
                    row[sq] += weight * threat * 0.6 ** d
            pst[me][a + 1] = row

    def flag_exposed(self, board: list[int]) -> bool:
        """Could an enemy piece strike our Flag right now (a neighbour, or a Scout down an open line)?"""
        fs = self.flag_square
        if fs < 0:
            return False
        enemy = (1 - self.me) << 5
        mobile, runs = self.mobile, self.runs
        for ray in self.rays[fs]:
            for i, s in enumerate(ray):
                c = board[s]
                if c:
                    if c & OWNER == enemy and mobile[c & KIND] and (i == 0 or runs[c & KIND]):
                        return True
                    break
        return False

    def static(self, board: list[int], land: Sequence[Square]) -> float:
        """The evaluation of a whole board from our side: material + square tables - information given away."""
        me = self.me
        val, pst, info = self.val, self.pst, self.info
        total = 0.0
        for s in land:
            c = board[s]
            if not c:
                continue
            o = (c & OWNER) >> 5
            k = c & KIND
            v = val[o][k] + pst[o][k][s] - (info[o][k] if c & REVEALED else 0.0)
            total += v if o == me else -v
        return total

    def delta(self, board: list[int], f: Square, t: Square) -> tuple[float, float | None]:
        """How a move changes the evaluation (our side's view), and the final score if it takes a Flag."""
        return self.delta_codes(board[f], board[t], f, t)

    def delta_codes(self, mc: int, tc: int, f: Square, t: Square) -> tuple[float, float | None]:
        """:meth:`delta` for a mover coded ``mc`` and whatever is coded ``tc`` on the target square."""
        o = (mc & OWNER) >> 5
        a = mc & KIND
        ps = self.pst[o][a]
        info = self.info
        if not tc:
            d = ps[t] - ps[f]
            if not mc & REVEALED and (t - f) not in (1, -1, STRIDE, -STRIDE):
                d -= info[o][a]
            return (d if o == self.me else -d), None
        q = 1 - o
        e = tc & KIND
        r = self.battle[a][e]
        val = self.val
        if r == _ATTACKER_WINS:
            if self.flag[e]:
                return 0.0, (self.win if o == self.me else -self.win)
            d = ps[t] - ps[f] + val[q][e] + self.pst[q][e][t] - (info[q][e] if tc & REVEALED else 0.0)
            if not mc & REVEALED:
                d -= info[o][a]
        elif r == _DEFENDER_WINS:
            d = -(val[o][a] + ps[f] - (info[o][a] if mc & REVEALED else 0.0))
            if not tc & REVEALED:
                d += info[q][e]
        else:
            d = (val[q][e] + self.pst[q][e][t] - (info[q][e] if tc & REVEALED else 0.0)
                 - (val[o][a] + ps[f] - (info[o][a] if mc & REVEALED else 0.0)))
        return (d if o == self.me else -d), None


Pairs = list[tuple[int, float]]  # (kind code, probability) for one hidden piece


class _Search:
    """Shallow minimax in one world (a full hypothetical state), scores from our side.

    The world knows every identity, but the players do not.  Wherever *we* choose to attack an enemy piece
    we have not seen, the search scores the attack by its expectation over our beliefs (``unknown``), not by
    the world's answer; otherwise each world would "know" which pieces are safe to hit and every attack would
    look better than it is.  With ``mine`` (the ``hard`` level) the enemy is modelled the same way: it
    chooses whether to attack one of our hidden pieces by what it can believe about it, and then meets the
    piece that is really there.  Both maps follow the hidden pieces along the line being searched.
    """

    def __init__(self, model: _Model, world: State, beliefs: dict[Square, list[float]],
                 theirs: dict[Square, list[float]] | None = None) -> None:
        self.m = model
        self.world = world
        self.board = world.board
        self.nodes = 0
        self.unknown = _pairs(beliefs)
        self.mine = _pairs(theirs or {})

    def relevant(self, f: Square, t: Square, player: int) -> bool:
        """Does a move touch the enemy (attack, or start/end next to an enemy piece)?  Others are judged
        together: away from the enemy, one quiet move leaves the same replies as another."""
        board = self.board
        if board[t]:
            return True
        bit = player << 5
        nb = self.m.neighbours
        for s in nb[t]:
            c = board[s]
            if c and c & OWNER != bit:
                return True
        for s in nb[f]:
            c = board[s]
            if c and c & OWNER != bit:
                return True
        return False

    def expect(self, f: Square, t: Square, beliefs: dict[Square, Pairs]) -> float:
        """The change of our score expected from the piece on ``f`` attacking the hidden piece on ``t``, as
        the attacker believes (``beliefs``; a captured Flag counts as its final score)."""
        board = self.board
        mc = board[f]
        hidden = board[t] & ~KIND
        delta = self.m.delta_codes
        total = 0.0
        for k, p in beliefs[t]:
            d, final = delta(mc, hidden | k, f, t)
            total += p * (d if final is None else final)
        return total

    def track(self, f: Square, t: Square) -> list | None:
        """Before a move is pushed: keep the hidden-piece maps up to date (a battle shows both pieces, a run
        shows a Scout) and return what :meth:`untrack` needs to undo it."""
        undo = None
        attack = self.board[t]
        step = (t - f) in (1, -1, STRIDE, -STRIDE)
        for u in (self.unknown, self.mine):
            if attack:
                if f in u or t in u:
                    undo = (undo or []) + [(u, f, u.pop(f, None)), (u, t, u.pop(t, None))]
            elif f in u:
                row = u.pop(f)
                if step:
                    u[t] = row
                undo = (undo or []) + [(u, f, row), (u, t, None)]
        return undo

    @staticmethod
    def untrack(undo: list | None) -> None:
        if undo is None:
            return
        for u, sq, row in reversed(undo):
            if row is None:
                u.pop(sq, None)
            else:
                u[sq] = row

    def value(self, move: Move, depth: int, score: float, last_to: Square) -> float:
        """The value of playing ``move`` now and searching ``depth - 1`` plies after it."""
        d, final = self.m.delta(self.board, *move)
        if final is not None:
            return final
        if depth <= 0:
            return score + d  # no look at the reply at all
        return self.play(move, depth - 1, -_INF, _INF, score + d, last_to)

    def play(self, move: Move, depth: int, alpha: float, beta: float, score: float, last_to: Square) -> float:
        """Push ``move``, search ``depth`` plies after it, take it back."""
        w = self.world
        attack = self.board[move[1]]
        undo = self.track(*move)
        w.push(move)
        end = self.ended() if attack else None
        v = self.search(depth, alpha, beta, score, move[1], last_to) if end is None else end
        w.pop()
        self.untrack(undo)
        return v

    def ended(self) -> float | None:
        """After a battle: the final score if it left a side without a movable piece."""
        o = self.world.outcome()
        if o is None:
            return None
        return 0.0 if o.winner is None else self.m.win if o.winner == self.m.me else -self.m.win

    def search(self, depth: int, alpha: float, beta: float, score: float, last_to: Square,
               prev_to: Square) -> float:
        self.nodes += 1
        w = self.world
        limit = self.m.draw_limit
        if limit is not None and w.quiet >= limit:
            return 0.0
        if depth <= 0:
            return self.leaf(score, last_to, prev_to)
        moves = w.generate_legal_moves()
        if not moves:
            o = w.outcome()
            if o is None or o.winner is None:
                return 0.0
            return self.m.win if o.winner == self.m.me else -self.m.win
        p = w.turn
        maximize = p == self.m.me
        if not maximize and self.mine:
            return self.modelled_reply(moves, depth, score, last_to)
        board = self.board
        delta = self.m.delta
        unknown = self.unknown
        scored = []
        quiet_best = None
        best = -_INF if maximize else _INF
        for mv in moves:
            f, t = mv
            if maximize and depth == 1 and t in unknown:
                # Our attack on a piece we have not seen, as the last move searched: its expectation.
                v = score + self.expect(f, t, unknown)
                if v > best:
                    best = v
                continue
            d, final = delta(board, f, t)
            if final is not None:
                return final  # the side to move takes the Flag: nothing is better for it
            if depth == 1 and not self.relevant(f, t, p):
                if quiet_best is None or (d > quiet_best if maximize else d < quiet_best):
                    quiet_best = d
                continue
            scored.append((d, mv))
        scored.sort(key=lambda x: x[0], reverse=maximize)
        if quiet_best is not None:
            # Quiet moves away from the enemy: the reply options stay as they are now.
            v = self.leaf_after_quiet(score + quiet_best, last_to)
            best = max(best, v) if maximize else min(best, v)
        if maximize:
            alpha = max(alpha, best)
        else:
            beta = min(beta, best)
        if alpha >= beta:
            return best
        for d, mv in scored:
            v = self.play(mv, depth - 1, alpha, beta, score + d, last_to)
            if maximize:
                if v > best:
                    best = v
                    if v > alpha:
                        alpha = v
            elif v < best:
                best = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        return best

    def modelled_reply(self, moves: list[Move], depth: int, score: float, last_to: Square) -> float:
        """The enemy to move, choosing by what it can know: an attack on one of our hidden pieces is judged
        by its expectation under the enemy's beliefs, but what it meets is the piece that is there."""
        board = self.board
        delta = self.m.delta
        mine = self.mine
        best_est = _INF
        best = _INF
        quiet_best = None
        for mv in moves:
            f, t = mv
            d, final = delta(board, f, t)
            hidden = t in mine
            if final is not None and not hidden:
                return final
            if depth == 1 and not self.relevant(f, t, self.world.turn):
                if quiet_best is None or d < quiet_best:
                    quiet_best = d
                continue
            v = final if final is not None else self.play(mv, depth - 1, -_INF, _INF, score + d, last_to)
            est = v
            if hidden:
                guess = self.expect(f, t, mine)
                est = score + guess if final is not None else v - d + guess
            if est < best_est:
                best_est, best = est, v
        if quiet_best is not None:
            v = self.leaf_after_quiet(score + quiet_best, last_to)
            if v < best_est:
                best = v
        return best

    def leaf(self, score: float, last_to: Square, prev_to: Square) -> float:
        """Stand pat, or the side to move's best capture of the piece that just moved or by its own last piece."""
        self.nodes += 1
        board = self.board
        p = self.world.turn
        bit = p << 5
        m = self.m
        mobile = m.mobile
        options = []
        c = board[last_to] if last_to >= 0 else 0
        if c and c & OWNER != bit:
            options += [(s, last_to) for s in m.neighbours[last_to] if (a := board[s]) and a & OWNER == bit
                        and mobile[a & KIND]]
        a = board[prev_to] if prev_to >= 0 else 0
        if a and a & OWNER == bit and mobile[a & KIND]:
            options += [(prev_to, s) for s in m.neighbours[prev_to] if (c := board[s]) and c & OWNER != bit]
        value = self.best_capture(score, options, p == m.me)
        return value if p == m.me else self.exposed(value, score)

    def exposed(self, value: float, score: float) -> float:
        """With the enemy to move: our Flag within its reach counts as half lost (it may not know it is the
        Flag), unless what it can do otherwise is worse for us."""
        return min(value, score - self.m.win / 2) if self.m.flag_exposed(self.board) else value

    def leaf_after_quiet(self, score: float, last_to: Square) -> float:
        """After a quiet move away from the enemy: the opponent's best capture by its last-moved piece."""
        self.nodes += 1
        board = self.board
        p = 1 - self.world.turn  # the opponent of the side choosing the quiet move moves next
        bit = p << 5
        m = self.m
        a = board[last_to] if last_to >= 0 else 0
        options = []
        if a and a & OWNER == bit and m.mobile[a & KIND]:
            options = [(last_to, s) for s in m.neighbours[last_to] if (c := board[s]) and c & OWNER != bit]
        value = self.best_capture(score, options, p == m.me)
        return value if p == m.me else self.exposed(value, score)

    def best_capture(self, score: float, options: list[tuple[Square, Square]], ours: bool) -> float:
        """The score after the best of these attacks for the side to move, or standing pat if none pays.

        The side chooses by what it believes (expectations over hidden pieces) and gets what is there: for
        us that is the same expectation; for the modelled enemy the world's answer."""
        delta = self.m.delta
        beliefs = self.unknown if ours else self.mine
        best_gain = 0.0
        result = score
        for f, t in options:
            d, final = delta(self.board, f, t)
            if t in beliefs:
                guess = self.expect(f, t, beliefs)
                gain = guess if ours else -guess
                outcome = score + guess if ours else (final if final is not None else score + d)
            else:
                if final is not None:
                    return final
                gain = d if ours else -d
                outcome = score + d
            if gain > best_gain:
                best_gain, result = gain, outcome
        return result


def _pairs(beliefs: dict[Square, list[float]]) -> dict[Square, Pairs]:
    return {s: [(k + 1, p) for k, p in enumerate(row) if p > 0.002] for s, row in beliefs.items()}


# -- the player --------------------------------------------------------------------------------------------


class ComputerPlayer:
    """A computer opponent that sees only a player's view; ``level`` is ``"easy"``, ``"medium"`` or ``"hard"``.

    ``choose_move(view)`` returns a legal move; ``beliefs(view)`` what it thinks each unknown enemy piece
    is; ``last_reasoning`` explains its latest choice.  The same seed and view give the same move.
    """

    def __init__(self, level: str | Level = "medium", seed: int = 0, name: str | None = None) -> None:
        if isinstance(level, str):
            if level not in LEVELS:
                raise ValueError(f"unknown level {level!r}; levels: {', '.join(LEVELS)}")
            level = LEVELS[level]
        if not isinstance(level, Level):
            raise TypeError(f"level is one of {', '.join(LEVELS)} or a Level, not {level!r}")
        self.level = level
        self.seed = seed
        self.name = name or f"computer ({level.name})"
        self.last_reasoning: Reasoning | None = None
        self.last_setup_plan: str | None = None

    def __repr__(self) -> str:
        return f"ComputerPlayer({self.level.name!r}, seed={self.seed})"

    # -- setup ---------------------------------------------------------------------------------------

    def choose_setup(self, ruleset: str | Ruleset | None, rng: random.Random) -> Setup:
        """A named plan from the library (maybe mirrored) or a setup drawn from real setup statistics."""
        self.last_setup_plan, setup = _library_setup(get_ruleset(ruleset), rng)
        return setup

    # -- beliefs ---------------------------------------------------------------------------------------

    def beliefs(self, view: View) -> dict[Square, dict[str, float]]:
        """For every unknown enemy piece (by square), the probability of each piece type of the rule set.

        Per square the probabilities sum to 1; per type they add up to how many of that type the enemy still
        has hidden.  The evidence used depends on the level (see :class:`Level`).
        """
        _check_view(view)
        squares, table = belief_table(view, self.level.priors, self.level.soft_evidence)
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
        legal = view.generate_legal_moves()
        if not legal:
            raise ValueError("no legal move: the game is over")
        rng = self._rng(view)
        level = self.level
        hist = read_history(view)
        squares, table = belief_table(view, level.priors, level.soft_evidence, hist)
        theirs = dict(zip(*their_belief_table(view, hist), strict=True)) if level.opponent_model else None
        model = _Model(view, squares, table, level.guard)
        kinds = view.ruleset.piece_types
        left = remaining_hidden(view)
        moved = [view.has_moved(s) for s in squares]
        movable = [k.movable for k in kinds]
        n_worlds = max(1, level.worlds)
        worlds = []
        base = _base_world(view)
        for _ in range(n_worlds):
            ids = sample_identities(squares, table, left, moved, movable, rng)
            worlds.append(_world(base, view, squares, ids))
        beliefs = dict(zip(squares, table, strict=True))
        land = view.geometry.land
        roots = [model.static(w.board, land) for w in worlds]
        searches = [_Search(model, w, beliefs, theirs) for w in worlds]
        values = {mv: self._evaluate(mv, searches, roots, beliefs, view, level.depth) for mv in legal}
        adjust = _adjustments(view, model)
        mean_root = sum(roots) / len(roots)
        cands = []
        for mv in legal:
            a = adjust(mv)
            noise = rng.gauss(0.0, level.noise) if level.noise else 0.0
            v = values[mv] - mean_root
            cands.append(Candidate(mv, v + a + noise, v, a, _note(view, mv, beliefs)))
        cands.sort(key=lambda c: c.score, reverse=True)
        choice = cands[0].move
        flag_index = next((i for i, k in enumerate(kinds) if k.is_flag), None)
        guesses = sorted(((s, row[flag_index]) for s, row in zip(squares, table, strict=True)),
                         key=lambda x: -x[1])[:3] if flag_index is not None else []
        self.last_reasoning = Reasoning(view.player, level.name, choice, cands[:5], len(worlds),
                                        sum(s.nodes for s in searches), guesses)
        return choice

    def _evaluate(self, move: Move, searches: list[_Search], roots: list[float],
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
                v = s.value(move, depth, roots[i], -1)
                w.set_piece(t, before, moved=view.has_moved(t))
                total += p * v
                mass += p
            return total / mass
        return sum(s.value(move, depth, r, -1) for s, r in zip(searches, roots, strict=True)) / len(searches)


def _check_view(view: object) -> None:
    if not isinstance(view, View):
        raise TypeError(f"the computer reasons from a player's View only (state.view(player)), not "
                        f"{type(view).__name__}")


def _base_world(view: View) -> State:
    """A state holding everything the view shows (unknown squares still empty) and its move counters."""
    w = State.empty(view.ruleset)
    for s in view.geometry.land:
        piece = view.piece_at(s)
        if piece is not None:
            w.set_piece(s, piece, moved=view.has_moved(s), revealed=view.is_revealed(s))
    w.turn = view.turn
    w.ply = view.ply
    w.quiet = view.quiet
    # The repetition memory is public (it depends on squares only); the engine has no public setter yet.
    w._rep = list(view._rep)
    w._chase = view._chase
    return w


def _world(base: State, view: View, squares: Sequence[Square], ids: Sequence[int]) -> State:
    """The base state with one drawn identity on every unknown square."""
    w = base.copy()
    kinds = view.ruleset.piece_types
    enemy = 1 - view.player
    for s, k in zip(squares, ids, strict=True):
        w.set_piece(s, Piece(enemy, kinds[k]), moved=view.has_moved(s))
    return w


def _adjustments(view: View, model: _Model) -> Callable[[Move], float]:
    """Root-only corrections the shallow search cannot see: do not shuffle back and forth, press for a
    battle as the quiet-move draw nears while ahead, and do not show an unmoved piece is no Bomb for nothing."""
    mine = [m for i, m in enumerate(view.move_stack) if (len(view.move_stack) - i) % 2 == 0][-6:]
    last = mine[-1] if mine else None
    recent = {m.from_square for m in mine}
    limit = view.ruleset.draw_limit
    urgency = 0.0
    if limit is not None and view.quiet > limit // 3:
        x = (view.quiet - limit // 3) / (limit - limit // 3)
        urgency = 80.0 * x * x * (1.0 if model.material > 30 else 0.3)
    board = view.board

    def adjust(mv: Move) -> float:
        f, t = mv
        a = 0.0
        if board[t]:
            a += urgency
        else:
            if last is not None and f == last.to_square and t == last.from_square:
                a -= 4.0
            elif t in recent:
                a -= 1.5
        if not view.has_moved(f):
            a -= 1.0
        return a

    return adjust


__all__ = [
    "LEVELS",
    "WIN",
    "Candidate",
    "ComputerPlayer",
    "History",
    "Level",
    "Reasoning",
    "balance",
    "belief_table",
    "piece_values",
    "read_history",
    "remaining_hidden",
    "sample_identities",
    "their_belief_table",
]
