"""The search in one sampled world: shallow minimax in which attacks on unseen pieces count by belief."""

from __future__ import annotations

import math
from collections.abc import Sequence

from strategolab.board import STRIDE, Square
from strategolab.rules import TWO_SQUARES
from strategolab.state import KIND, OWNER, REVEALED, Move, Piece, State
from strategolab.views import View

from .evaluation import _ATTACKER_WINS, _BOTH_DIE, _DEFENDER_WINS, Model

_INF = float("inf")
_LARGE = 6  # movable pieces a side must have for no search line to take them all (Search.ended)


Pairs = list[tuple[int, float]]  # (kind code, probability) for one hidden piece


class Search:
    """Shallow minimax in one world (a full hypothetical state), scores from our side.

    The world knows every identity, but the players do not.  Wherever *we* choose to attack an enemy piece
    we have not seen, the search scores the attack by its expectation over our beliefs (``unknown``), not by
    the world's answer; otherwise each world would "know" which pieces are safe to hit and every attack would
    look better than it is.  With ``mine`` (the ``hard`` level) the enemy is modelled the same way: it
    chooses whether to attack one of our hidden pieces by what it can believe about it, and then meets the
    piece that is really there.  Both maps follow the hidden pieces along the line being searched.
    """

    def __init__(self, model: Model, world: State, beliefs: dict[Square, list[float]],
                 theirs: dict[Square, list[float]] | None = None) -> None:
        self.m = model
        self.world = world
        self.board = world.board
        self.nodes = 0
        self.unknown = pairs(beliefs)
        self.mine = pairs(theirs or {})
        # Each belief row given that its piece moves (see :meth:`moving`), by the row's id (the row kept beside).
        self._moving: dict[int, tuple[Pairs, Pairs | None]] = {}
        # Enemy pieces we know and that can move: the ones whose threats the leaves can count exactly.
        enemy = (1 - model.me) << 5
        mobile = model.mobile
        self.known = {s for s in world.geometry.land if (c := self.board[s]) and c & OWNER == enemy
                      and c & REVEALED and mobile[c & KIND]}
        # With this many movable pieces on each side no line searched (a battle takes at most one piece of
        # each) can leave a side without one: after a battle only a side boxed in can have lost (:meth:`ended`).
        self.land = world.geometry.land
        armies = [0, 0]
        for s in self.land:
            if (c := self.board[s]) and mobile[c & KIND]:
                armies[(c & OWNER) >> 5] += 1
        self.large = min(armies) > _LARGE
        self.steps = tuple(m and m != TWO_SQUARES for m in world._t.mobility)

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
        the attacker believes (``beliefs``; the hope of a Flag counts as the attacker's prize, see
        :attr:`Model.prize`)."""
        board = self.board
        mc = board[f]
        hidden = board[t] & ~KIND
        delta = self.m.delta_codes
        total = 0.0
        m = self.m
        side, a = (mc & OWNER) >> 5, mc & KIND
        prize = m.prize[side][a]
        sign = 1.0 if side == m.me else -1.0
        extra = m.bomb_extra[side][a]
        for k, p in beliefs[t]:
            d, final = delta(mc, hidden | k, f, t)
            if final is not None:
                d = sign * prize
            elif extra and not m.mobile[k] and m.battle[a][k] == _DEFENDER_WINS:
                d -= sign * extra
            total += p * d
        return total

    def moving(self, row: Pairs) -> Pairs | None:
        """A hidden piece's belief ``row`` given that it moves: immobile types dropped, the rest scaled to 1
        (None if none may move).  Kept per row, as the same rows are asked about all through the search."""
        hit = self._moving.get(id(row))
        if hit is not None and hit[0] is row:
            return hit[1]
        mobile = self.m.mobile
        kept = [(k, p) for k, p in row if mobile[k]]
        total = sum(p for _, p in kept)
        out = [(k, p / total) for k, p in kept] if total > 0 else None
        self._moving[id(row)] = (row, out)
        if out is not None:
            self._moving[id(out)] = (out, out)
        return out

    def movers(self, f: Square) -> Pairs:
        """The types the hidden enemy piece on ``f`` may be, given that it moves (immobile types dropped)."""
        return self.moving(self.unknown[f]) or [(self.board[f] & KIND, 1.0)]

    def typed_attack(self, move: Move, score: float, last_to: Square) -> list[tuple[float, float]]:
        """An attack by an enemy piece we have not seen, as the last move searched: the value after it for
        each type the piece may be, with its probability (the world's own guess does not decide it)."""
        f, t = move
        board = self.board
        code = board[f]
        out = []
        for k, p in self.movers(f):
            board[f] = (code & ~KIND) | k
            d, final = self.m.delta(board, f, t)
            out.append((p, final if final is not None else self.play(move, 0, -_INF, _INF, score + d, last_to)))
        board[f] = code
        return out

    def track(self, f: Square, t: Square) -> list | None:
        """Before a move is pushed: keep the hidden-piece maps up to date (a battle shows both pieces, a run
        shows a Scout, a step shows the piece can move) and return what :meth:`untrack` needs to undo it."""
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
                    u[t] = self.moving(row) or row  # a piece that steps is no Bomb and no Flag
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
        f, t = move
        board = self.board
        attack = board[t]
        undo = self.track(f, t)
        known = self.known
        from_known, to_known = f in known, t in known
        if from_known or to_known:
            known.discard(f)
            known.discard(t)
        w.push(move)
        if (from_known or to_known or attack) and (c := board[t]) and c & OWNER != self.m.me << 5 \
                and self.m.mobile[c & KIND]:
            known.add(t)  # the known enemy piece survived the move, or an enemy piece a battle showed
        end = self.ended() if attack else None
        v = self.search(depth, alpha, beta, score, t, last_to) if end is None else end
        w.pop()
        known.discard(t)  # whatever stood on t after the move; t was known before only if to_known
        if from_known:
            known.add(f)
        if to_known:
            known.add(t)
        self.untrack(undo)
        return v

    def threats(self) -> list[tuple[float, Square, Square]]:
        """Attacks by known enemy pieces on our pieces next to them that would win material: (change of our
        score, from, to), worst first."""
        board = self.board
        m = self.m
        mine = m.me << 5
        out = []
        for s in self.known:
            a = board[s]
            for n in m.neighbours[s]:
                c = board[n]
                if c and c & OWNER == mine:
                    d, final = m.delta_codes(a, c, s, n)
                    if final is not None:
                        d = final
                    if d < 0:
                        out.append((d, s, n))
        out.sort()
        return out

    def ended(self) -> float | None:
        """After a battle: the final score if it left a side without a movable piece."""
        if self.large and self.world._result is None and self.can_step(self.world.turn):
            return None  # the same answer as the rules' outcome() below, without generating every move
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
        pending = None
        best = -_INF if maximize else _INF
        for mv in moves:
            f, t = mv
            if maximize and depth == 1 and t in unknown:
                # Our attack on a piece we have not seen, as the last move searched: its expectation, then
                # the enemy's reply as at a leaf (its known pieces' captures of our other pieces, our Flag in
                # its reach).  Without that reply an attack anywhere dodged every threat the line had made.
                if pending is None:
                    pending = self.threats()
                v = self.after_attack(score + self.expect(f, t, unknown), f, t, pending)
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
        by its expectation under the enemy's beliefs, but what it meets is the piece that is there.

        The enemy is not certain to play the move that looks best to it: every move counts with a weight
        that falls off with how much worse it looks to the enemy (:attr:`Model.DOUBT`), so a reply that
        would be a blunder is hoped for only as much as the enemy is likely to choose it.  A cheap piece's
        attack on one of our hidden pieces (a probe, :attr:`Model.PROBE`) keeps a floor of weight when it would
        cost us: enemies probe unknown pieces to find out what they are, whatever the material expected."""
        board = self.board
        delta = self.m.delta
        mine = self.mine
        # (what the enemy expects, what it gets, from our side; the least weight it keeps: a cheap piece's probe)
        options: list[tuple[float, float, float]] = []
        typed = []  # attacks on our pieces it knows by pieces we have not seen, as the last move searched
        quiet_best = None
        unknown = self.unknown
        probe = self.m.probe
        for mv in moves:
            f, t = mv
            if depth == 1 and f in unknown and board[t] and t not in mine and abs(t - f) in (1, STRIDE):
                typed.append(self.typed_attack(mv, score, last_to))
                continue
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
            floor = 0.0
            if hidden:
                guess = self.expect(f, t, mine)
                est = score + guess if final is not None else v - d + guess
                floor = probe[board[f] & KIND]
            options.append((est, v, floor))
        if quiet_best is not None:
            v = self.leaf_after_quiet(score + quiet_best, last_to)
            options.append((v, v, 0.0))
        if options:
            low = min(est for est, _, _ in options)
            doubt = self.m.doubt
            weights = [math.exp(-x) if (x := (est - low) / doubt) < 12.0 else 0.0 for est, _, _ in options]
            value = sum(w * v for w, (_, v, _) in zip(weights, options, strict=True)) / sum(weights)
            # A cheap piece's probe that would cost us more than the enemy's likely reply keeps at least its
            # floor: a danger to weigh, never a blunder to hope for.
            if any(floor and v < value for _, v, floor in options):
                weights = [max(w, floor) if floor and v < value else w
                           for w, (_, v, floor) in zip(weights, options, strict=True)]
                value = sum(w * v for w, (_, v, _) in zip(weights, options, strict=True)) / sum(weights)
        else:
            value = _INF
        # Each type of an unseen attacker takes our piece if that is better for it than its other moves.
        for outcomes in typed:
            value = min(value, sum(p * min(v, value) for p, v in outcomes))
        return value if value < _INF else score

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
        if p != m.me:
            options += [(f, t) for _, f, t in self.threats()]
            return self.exposed(self.best_capture(score, options, False), score)
        value = self.best_capture(score, options, True)
        threats = self.threats()
        if threats and self.flag_threatened(threats):
            value = min(value, score - m.win / 2)
        race = m.race(board, True, self.unknown)
        if race:
            value = min(value, score - race)
        if len(threats) > 1:
            # We can save one piece that a known enemy piece attacks, not two: the second is likely lost.
            value += m.THREAT * threats[1][0]
        return value

    def after_attack(self, score: float, f: Square, t: Square, threats: list[tuple[float, Square, Square]]) -> float:
        """With the enemy to move after our attack from ``f`` on a piece we have not seen on ``t`` (scored
        ``score`` by its expectation, not played): its best capture of our pieces its known pieces attack (not
        the attacker, which has left ``f``), our Flag in its reach, and a race to it we cannot win, as
        :meth:`leaf` counts them; the race over what the battle may leave (:meth:`race_after_attack`)."""
        options = [(s, n) for _, s, n in threats if n != f]
        return self.exposed(self.best_capture(score, options, False), score, (f, t))

    def race_after_attack(self, f: Square, t: Square) -> float:
        """The race to our Flag (:meth:`Model.race`, the enemy to move) after our piece on ``f`` attacks the
        piece we have not seen on ``t``, over the battle's outcomes as we believe them: our piece on ``t`` (the
        types ours beats), both gone (the types it trades with), or only ours, the intruder then one of the
        types that beat ours.  Read on the board before the battle, an intruder we attack still stood in its
        race: the last move of hard's second look, the Major taking the Miner beside it, was scored as losing
        the Flag to that Miner, and the Major stepped to and fro beside its Flag for 3,600 plies, 5 movable
        pieces to the enemy's 1 (asmodeus, session 41).  A Flag taken ends the game, so its share counts no
        race.  The caller reads it only where a race is on before the battle: read wherever an enemy piece is
        near (our attacker leaving ``f`` may open a race), hard thought 13 % longer (session 43)."""
        board = self.board
        m = self.m
        mc, tc = board[f], board[t]
        row = m.battle[mc & KIND]
        flag, mobile = m.flag, m.mobile
        pairs = self.unknown[t]
        rest = {s: x for s, x in self.unknown.items() if s != t}
        outcomes = (  # the types the piece may be, per outcome, and what stands on t after the battle
            ([(k, p) for k, p in pairs if row[k] == _ATTACKER_WINS and not flag[k]], mc),
            ([(k, p) for k, p in pairs if row[k] == _BOTH_DIE], 0),
            ([(k, p) for k, p in pairs if row[k] == _DEFENDER_WINS and mobile[k]], tc),
            # A Bomb stays too, but races no one: its share apart, as Model.race counts an intruder's types given
            # that it moves, and would give the Bomb's share the movers' race.
            ([(k, p) for k, p in pairs if row[k] == _DEFENDER_WINS and not mobile[k]], tc),
        )
        total = 0.0
        board[f] = 0
        try:
            for types, after in outcomes:
                if types:
                    board[t] = after
                    unknown = {**rest, t: types} if after == tc else rest  # the intruder stays
                    total += sum(p for _, p in types) * m.race(board, False, unknown)
        finally:
            board[f], board[t] = mc, tc
        return total

    def can_step(self, player: int) -> bool:
        """Has ``player`` a piece that may step to a neighbouring square (empty, or an enemy's) that no
        repetition rule could forbid?  Then it has a legal move."""
        board = self.board
        bit = player << 5
        steps = self.steps
        neighbours = self.m.neighbours
        w = self.world
        for s in self.land:
            c = board[s]
            if c and c & OWNER == bit and steps[c & KIND]:
                for n in neighbours[s]:
                    d = board[n]
                    if (not d or d & OWNER != bit) and not w._restricted(player, s, n):
                        return True
        return False

    def flag_threatened(self, threats: list[tuple[float, Square, Square]]) -> bool:
        """With us to move: does a known enemy piece attack our Flag that none of our neighbouring pieces can
        take or trade with?  The Flag cannot step away like another threatened piece, so that threat is not
        one we save."""
        m = self.m
        board = self.board
        mine = m.me << 5
        for _, s, n in threats:
            if n != m.flag_square:
                continue
            e = board[s] & KIND
            if not any((c := board[x]) and c & OWNER == mine and m.mobile[c & KIND]
                       and m.battle[c & KIND][e] != _DEFENDER_WINS for x in m.neighbours[s]):
                return True
        return False

    def exposed(self, value: float, score: float, attack: Move | None = None) -> float:
        """With the enemy to move: our Flag within its reach counts as half lost (it may not know it is the
        Flag), unless what it can do otherwise is worse for us; a race to it we cannot win, in part
        (:meth:`Model.race`), after ``attack`` (ours on a piece we have not seen, scored but not played:
        :meth:`race_after_attack`) if given."""
        m = self.m
        if m.flag_exposed(self.board):
            return min(value, score - m.win / 2)
        race = m.race(self.board, False, self.unknown)
        if race and attack is not None:
            race = self.race_after_attack(*attack)
        return min(value, score - race) if race else value

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
        if p != m.me:
            options += [(f, t) for _, f, t in self.threats()]
        value = self.best_capture(score, options, p == m.me)
        if p != m.me:
            return self.exposed(value, score)
        # The enemy's quiet moves were judged together, without playing them: one of them may be a step towards
        # our Flag, so its race counts as if the enemy were still to move (one move nearer, as after that step).
        race = m.race(board, False, self.unknown)
        return min(value, score - race) if race else value

    def best_capture(self, score: float, options: list[tuple[Square, Square]], ours: bool) -> float:
        """The score after the best of these attacks for the side to move, or standing pat if none pays.

        The side chooses by what it believes (expectations over hidden pieces) and gets what is there: for
        us that is the same expectation; for the modelled enemy the world's answer."""
        delta = self.m.delta
        beliefs = self.unknown if ours else self.mine
        best_gain = 0.0
        result = score
        board = self.board
        for f, t in options:
            if not ours and f in self.unknown and t not in beliefs:
                # An enemy piece we have not seen takes our piece if it can: over the types it may be.
                code = board[f]
                outcome = 0.0
                for k, p in self.movers(f):
                    board[f] = (code & ~KIND) | k
                    d, final = delta(board, f, t)
                    outcome += p * min(score + d if final is None else final, score)
                board[f] = code
                gain = score - outcome
                if gain > best_gain:
                    best_gain, result = gain, outcome
                continue
            d, final = delta(board, f, t)
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


def pairs(beliefs: dict[Square, list[float]]) -> dict[Square, Pairs]:
    return {s: [(k + 1, p) for k, p in enumerate(row) if p > 0.002] for s, row in beliefs.items()}


def base_world(view: View) -> State:
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


def world(base: State, view: View, squares: Sequence[Square], ids: Sequence[int]) -> State:
    """The base state with one drawn identity on every unknown square."""
    w = base.copy()
    kinds = view.ruleset.piece_types
    enemy = 1 - view.player
    for s, k in zip(squares, ids, strict=True):
        w.set_piece(s, Piece(enemy, kinds[k]), moved=view.has_moved(s))
    return w
