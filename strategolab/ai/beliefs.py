"""What the computer believes about hidden pieces: the public history, the evidence, balancing, sampling."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from strategolab.board import STRIDE, TWO_STEPS, Square, geometry
from strategolab.rules import RUN, BattleResult, PieceType, resolve_battle
from strategolab.setup_library import placement_weights
from strategolab.state import Battle, Piece
from strategolab.stillness import for_ruleset as stillness_table
from strategolab.stillness import row_from_back
from strategolab.views import View

# -- what the public history tells about each piece ------------------------------------------------------


@dataclass
class History:
    """What the public move list says about the pieces now on the board (keyed by their current square)."""

    origin: dict[Square, Square]  # where each piece started the game
    # enemy piece -> ("approach" | "stalk" | "flee" | "stay" | "walk", our type)
    events: dict[Square, list[tuple[str, PieceType]]]
    # enemy pieces whose type the game has shown (on the board or in the battle that took them): start -> type
    shown: dict[Square, PieceType] = field(default_factory=dict)
    # approaches (as in ``events``) by hidden enemy pieces whose type the game has shown since: (its type, ours)
    honest: list[tuple[PieceType, PieceType]] = field(default_factory=list)


def read_history(view: View) -> History:
    """Trace every piece on the board back to its starting square and note how enemy pieces behaved.

    Works backwards through the moves and battles (all public) to find where each piece started, then
    forwards to see enemy pieces step next to our pieces that they knew (revealed ones), close in on our known
    Marshal (the Spy's prey), run from them, or stay when one of them came next to them.
    """
    me = view.player
    geo = view.geometry
    nbrs = geo.neighbours
    prey = _prey(view.ruleset.piece_types)
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
    starts = {sq: k for sq, pid in cur.items() if owner[pid] != me and (k := kind[pid]) is not None}
    events: dict[Square, list[tuple[str, PieceType]]] = {}
    if not moves:
        return History(origin, events, starts)
    board = dict(cur)
    # Revealed from the start (a lesson position): revealed now, and no battle or run explains it.
    revealed = {pid for pid in cur.values() if pid < 1 << 16 and pid not in shown and view.is_revealed(pid)}
    pending: tuple[PieceType, Square, list[tuple[Square, int]]] | None = None
    approaches: list[tuple[int, PieceType]] = []  # (mover, our type) for every approach by a hidden piece
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
                # A hidden piece that steps where it could have run on (the square beyond is empty land) is
                # less likely a Scout: a Scout in a hurry runs, and running is what shows it.
                if mover not in revealed and abs(t - f) in (1, STRIDE) and (ahead := 2 * t - f) in nbrs[t] \
                        and ahead not in board:
                    events.setdefault(mover, []).append(("walk", None))  # type: ignore[arg-type]
                approached = False
                for n in nbrs[t]:
                    o = board.get(n)
                    if o is not None and owner[o] == me and o in revealed and n not in nbrs[f] and n != f:
                        events.setdefault(mover, []).append(("approach", kind[o]))  # type: ignore[arg-type]
                        approached = True
                        if mover not in revealed:
                            approaches.append((mover, kind[o]))  # type: ignore[arg-type]
                if prey and not approached and abs(t - f) in (1, STRIDE):
                    # A step to two squares from our known Marshal, from three: how the Spy stalks it.
                    for d in TWO_STEPS:
                        o = board.get(t + d)
                        if o is not None and owner[o] == me and o in revealed and kind[o] in prey \
                                and abs((t + d) % STRIDE - t % STRIDE) <= 2 and abs(t + d - f) not in (1, STRIDE):
                            events.setdefault(mover, []).append(("stalk", kind[o]))  # type: ignore[arg-type]
                            break
            pending = None
        _replay(board, revealed, f, t, b)
        if owner[mover] == me:
            pending = None
            k = kind[mover]
            if b is None and mover in revealed and k is not None and k.movable:
                threatened = [(n, board[n]) for n in nbrs[t] if n in board and owner[board[n]] != me]
                if threatened:
                    pending = (k, t, threatened)
    honest = [(k, ours) for pid, ours in approaches if (k := kind[pid]) is not None]
    return History(origin, {pid: ev for pid, ev in events.items() if pid < 1 << 16}, starts, honest)


def _prey(kinds: Sequence[PieceType]) -> frozenset[PieceType]:
    """Movable types that a weaker movable type beats when it attacks (the Marshal, which the Spy takes)."""
    return frozenset(k for a in kinds if a.movable for k in kinds
                     if k.movable and k.name in a.beats_when_attacking and k.strength > a.strength)


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
                 history: History | None = None, weights: Sequence[Sequence[float]] | None = None,
                 honesty: bool = False, stillness: bool = False) -> tuple[list[Square], list[list[float]]]:
    """The unknown enemy squares and, per square, a probability per piece type (``ruleset.piece_types`` order).

    Rows sum to 1; columns sum to :func:`remaining_hidden` (scaled, in a lesson position that does not hold
    a full army).  See the module docstring for the evidence used.  ``weights`` replaces the priors from real
    setups (:func:`~strategolab.setup_library.placement_weights`, same shape), e.g. by an opponent's memory.
    ``honesty``: weigh a step next to our known piece by how this game's shown approaches went
    (:func:`approach_weights`), not by real players' habits alone.  ``stillness``: an unmoved piece's types
    that move weigh as often as real players had not yet moved them (:mod:`strategolab.stillness`).
    """
    squares = view.unknown_squares()
    if not squares:
        return squares, []
    hist = history if history is not None else read_history(view)
    return squares, _infer(view, 1 - view.player, squares, remaining_hidden(view), hist, priors,
                           hist.events if soft_evidence else {}, weights, honesty, stillness)


def their_belief_table(view: View, history: History | None = None,
                       stillness: bool = False) -> tuple[list[Square], list[list[float]]]:
    """What the *enemy* can believe about our pieces it has not seen, from the same public information.

    The same inference as :func:`belief_table` from the other side (priors from real setups, moved pieces
    are no Bombs, the counts of our hidden army, with ``stillness`` how long our pieces have stood), without
    behavioural evidence: it is what the enemy could know, which the ``hard`` level uses to foresee which of
    our pieces the enemy dares to attack.
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
    return squares, _infer(view, me, squares, left, hist, True, {}, stillness=stillness)


def _infer(view: View, side: int, squares: list[Square], left: list[int], hist: History, priors: bool,
           events: dict[Square, list[tuple[str, PieceType]]],
           weights: Sequence[Sequence[float]] | None = None, honesty: bool = False,
           stillness: bool = False) -> list[list[float]]:
    """Beliefs about ``side``'s pieces on ``squares``, balanced against ``left`` pieces of each type."""
    rs = view.ruleset
    kinds = rs.piece_types
    n = len(kinds)
    weights = (weights if weights is not None else placement_weights(rs)) if priors else None
    setup_index = {sq: i for i, sq in enumerate(geometry(rs).setup_squares[side])}
    movable = [k.movable for k in kinds]
    moved = [view.has_moved(s) for s in squares]
    # If the moved pieces use up every movable piece left, the unmoved ones are all immobile.
    forced = sum(moved) >= sum(c for c, m in zip(left, movable, strict=True) if m)
    flag = next((k for k in range(n) if kinds[k].is_flag), None)
    approach = approach_weights(hist.honest, rs.army) if honesty and events else (APPROACH_TIE, APPROACH_LOSE)
    still = stillness_table(rs) if stillness and priors else None
    side_moves = len(view.move_stack) // 2  # (about) the moves ``side`` has made
    rows = []
    for s, has_moved in zip(squares, moved, strict=True):
        i = setup_index.get(hist.origin.get(s, s))
        row = [weights[k][i] for k in range(n)] if weights is not None and i is not None else [1.0] * n
        if has_moved:
            row = [x if movable[k] else 0.0 for k, x in enumerate(row)]
        elif forced:
            row = [0.0 if movable[k] else x for k, x in enumerate(row)]
        if still is not None and not has_moved:
            depth = row_from_back(rs, s, side)
            row = [x * still.share(kinds[k].name, depth, side_moves) if movable[k] else x for k, x in enumerate(row)]
        if priors and flag is not None and not has_moved and _open_side(view, side, s):
            row[flag] *= OPEN_FLAG
        if s in events:
            row = [x * _likelihood(kinds[k], events[s], approach) for k, x in enumerate(row)]
        if not any(x > 0 and left[k] for k, x in enumerate(row)):
            row = [1.0 if left[k] and (movable[k] or not has_moved) else 0.0 for k in range(n)]
        rows.append(row)
    return balance(rows, left)


# Players wall their Flag in with Bombs: late in real games (the Gravon archive, 300 classic games of 300 moves
# or more, from move 150 on) an unmoved hidden piece with an open side is the Flag 4 % of the time, one walled
# in on every side 15 %, which the setup priors alone do not tell apart (the Flag's share of open pieces is
# about half its average, of walled ones about twice).
OPEN_FLAG = 0.25


def _open_side(view: View, side: int, s: Square) -> bool:
    """Is a square next to ``side``'s piece on ``s`` open: empty, the other side's, or a piece of ``side``'s
    that is known not to be a Bomb (it moved, or a battle showed a movable type)?  A Flag has none as a rule."""
    for t in view.geometry.neighbours[s]:
        if view.owner_at(t) != side or view.has_moved(t):
            return True
        if view.is_revealed(t):
            piece = view.piece_at(t)
            if piece is not None and piece.type.movable:
                return True
    return False


# How much weight a type keeps when its piece steps next to our known piece and would tie, or lose, that battle
# (a type that wins keeps 1).  Counted in 1,500 classic Gravon games (22,374 such steps by hidden pieces;
# ``benchmarks/behaviour.py``), per type of the piece stepped to, against a type drawn from the stepper's side's
# hidden movable pieces: a tie is 0.67 and a loss 0.14 times as likely as a win on average (a loss 0.08 next to
# a General, 0.12 to a Colonel, 0.35 to a Scout): players seldom step next to a known piece that beats theirs.
APPROACH_TIE = 0.65
APPROACH_LOSE = 0.15
# When our known piece moves next to a hidden one, which then runs or stays (though it could step away): in the
# same games (13,122 runs, 11,008 stays) a type our piece beats ran 1.26 times per stay and any other 0.86 times
# (0.68 of it; 0.78 when only single steps of the known piece count), so running is weak evidence, and staying as
# weak the other way: a type safe from our piece keeps this weight when its piece runs, and a type it beats when
# its piece stays.
FLEE_SAFE = 0.75
STAY_BEATEN = 0.75
# When a hidden piece steps to two squares from our known Marshal, from three (closing in, not yet beside it):
# in the same games (4,277 such steps) the Spy, its only attacker that wins, was 2.95 times as likely as a type
# drawn from the stepper's hidden movers, a Marshal 3.35 and any other type 0.76 (``benchmarks/behaviour.py``,
# the Marshal's row under "close"): a loss 0.26 times as likely as a win.  The Spy stalks the Marshal it
# knows; medium's did it 7 times as often as chance, and took hard's Marshal in 32 of 100 isf games.
STALK_LOSE = 0.26


# How many approaches the weights above count as, against what this game's own approaches show (approach_weights).
HONESTY_PRIOR = 1.0


def approach_weights(honest: Sequence[tuple[PieceType, PieceType]], army: Sequence[tuple[PieceType, int]],
                     ) -> tuple[float, float]:
    """The weights of a tie and of a loss for a piece that steps next to our known piece (``APPROACH_TIE``,
    ``APPROACH_LOSE``), learnt from this game: ``honest``, the approaches whose stepper the game has shown since
    (its type, ours).

    Real players seldom step a piece next to one that beats it, and some programs never do (the 2012 champion
    stepped up with a losing piece 26 times in 1,923 approaches over 100 games, 0.00 of a win's weight where
    real players have 0.14).  Each shown approach adds what it was (a loss, a tie) and takes what the weights
    predicted for it, a stepper drawn from ``army``'s movable types: the weights scale by (seen + prior) /
    (predicted + prior), so a game of honest approaches makes the next one likelier to beat our piece."""
    lose_seen = tie_seen = lose_expected = tie_expected = 0.0
    movers = [(k, n) for k, n in army if k.movable]
    for theirs, ours in honest:
        r = resolve_battle(theirs, ours)
        lose_seen += r == BattleResult.DEFENDER_WINS
        tie_seen += r == BattleResult.BOTH_DIE
        counts = {result: 0 for result in BattleResult}
        for k, n in movers:
            counts[resolve_battle(k, ours)] += n
        win, tie, lose = (counts[BattleResult.ATTACKER_WINS], counts[BattleResult.BOTH_DIE],
                          counts[BattleResult.DEFENDER_WINS])
        total = win + APPROACH_TIE * tie + APPROACH_LOSE * lose
        if total > 0:
            lose_expected += APPROACH_LOSE * lose / total
            tie_expected += APPROACH_TIE * tie / total
    return (min(1.0, APPROACH_TIE * (tie_seen + HONESTY_PRIOR) / (tie_expected + HONESTY_PRIOR)),
            min(1.0, APPROACH_LOSE * (lose_seen + HONESTY_PRIOR) / (lose_expected + HONESTY_PRIOR)))


def _likelihood(kind: PieceType, events: list[tuple[str, PieceType]],
                approach: tuple[float, float] = (APPROACH_TIE, APPROACH_LOSE)) -> float:
    """How well a piece type explains the behaviour seen (relative; at most three events of each sort);
    ``approach``: the weights of a tie and a loss for a step next to our known piece (:func:`approach_weights`)."""
    out = 1.0
    seen: dict[str, int] = {}
    for what, ours in events:
        seen[what] = seen.get(what, 0) + 1
        if seen[what] > 3:
            continue
        if what == "approach":  # it stepped next to our known piece: it expects to win (or bluffs)
            r = resolve_battle(kind, ours) if kind.movable else BattleResult.DEFENDER_WINS
            out *= 1.0 if r == BattleResult.ATTACKER_WINS else approach[0] if r == BattleResult.BOTH_DIE \
                else approach[1]
        elif what == "stalk":  # it closed in on our known Marshal: the Spy (or a Marshal) more likely
            r = resolve_battle(kind, ours) if kind.movable else BattleResult.DEFENDER_WINS
            out *= STALK_LOSE if r == BattleResult.DEFENDER_WINS else 1.0
        elif what == "flee":  # it ran from our known piece: our piece would have won
            out *= 1.0 if resolve_battle(ours, kind) == BattleResult.ATTACKER_WINS else FLEE_SAFE
        elif what == "walk":  # it stepped where it could have run on
            out *= 0.7 if kind.mobility == RUN else 1.0
        elif what == "stay":  # it could have run but did not: it is safe from our piece (or bluffs)
            out *= 1.0 if resolve_battle(ours, kind) != BattleResult.ATTACKER_WINS else STAY_BEATEN
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
