"""How the computer values a position: material, information given away, Flag safety and plans."""

from __future__ import annotations

import functools
import heapq
import operator
from collections.abc import Callable, Sequence, Set

from strategolab.board import STRIDE, Square, geometry, square_row
from strategolab.rules import CLASSIC as _CLASSIC
from strategolab.rules import RUN, BattleResult, PieceType, Ruleset, resolve_battle
from strategolab.state import KIND, OWNER, PIECE, REVEALED
from strategolab.views import View

from .beliefs import remaining_hidden

WIN = 2000.0  # a captured Flag, in the same units as the material values (about a whole army)
_ATTACKER_WINS = int(BattleResult.ATTACKER_WINS)
_DEFENDER_WINS = int(BattleResult.DEFENDER_WINS)
_BOTH_DIE = int(BattleResult.BOTH_DIE)
# A race to our Flag we cannot win (or win with no move to spare): the enemy piece's square, the probability
# that it moves at all, and each type it may be that wins the race, as (kind code, probability, moves it needs
# to stand next to our Flag, moves our nearest defender that can stop it comes too late: 0 just in time, and the
# ways in that race counts: 1, or 2 for a fork that our defenders cannot both cover, Model._forks).
LostRace = tuple[Square, float, list[tuple[int, float, int, int, int]]]


@functools.cache
def _rank_values(rs: Ruleset) -> tuple[float, ...]:
    """Each piece type's value by strength alone: 10 for the weakest movable rank, × 1.45 a rank; 0 immobile."""
    ranks = sorted({k.strength for k in rs.piece_types if k.movable})
    return tuple(10.0 * 1.45 ** ranks.index(k.strength) if k.movable else 0.0 for k in rs.piece_types)


def piece_values(rs: Ruleset, own_left: Sequence[int], enemy_left: Sequence[int]) -> list[float]:
    """Material value of each of one side's piece types (``ruleset.piece_types`` order), for this moment.

    Movable pieces grow by a factor 1.45 per distinct strength rank; a special power adds part of the value
    of what it beats (the Spy half a Marshal while the enemy Marshal lives; a Miner more while enemy Bombs
    remain and few Miners are left to defuse them); the last four movable pieces are worth more (a side that
    cannot move loses).  Immobile pieces are worth a little; the Flag nothing (capturing it ends the game:
    :data:`WIN`).
    """
    kinds = rs.piece_types
    base = _rank_values(rs)
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


def _keeps_top(kinds: Sequence[PieceType], own_left: Sequence[int], enemy_left: Sequence[int], i: int) -> bool:
    """After one piece of type ``i`` of each side is traded, is our strongest movable piece at least as strong
    as the enemy's (so the trade does not hand the enemy the board's top)?"""
    def top(left: Sequence[int]) -> int:
        return max((k.strength for j, (k, n) in enumerate(zip(kinds, left, strict=True))
                    if k.movable and n - (j == i) > 0), default=-1)

    return top(own_left) >= top(enemy_left)


def _top_held_anyway(kinds: Sequence[PieceType], enemy_left: Sequence[int], i: int) -> bool:
    """Is type ``i`` the enemy's strongest movable type, with two or more of it left (counted from the army
    less what was taken)?  Then after one of them trades with our piece of that type, another holds the
    board's top; before the trade it already outranks all our pieces but that one, which the raider's next
    captures do not spare.  Keeping our piece back only lets the raider go on (one of ramen's two Colonels
    took 13 of hard's pieces while hard kept its one Colonel away from it)."""
    strongest = max((k.strength for k, n in zip(kinds, enemy_left, strict=True) if k.movable and n), default=-1)
    return enemy_left[i] >= 2 and kinds[i].movable and kinds[i].strength == strongest


def top_bonus(rs: Ruleset, own_left: Sequence[int], enemy_left: Sequence[int], share: float) -> list[float]:
    """What one side's strongest pieces are worth beyond :func:`piece_values`: a piece that no enemy piece
    outranks holds the board's top, and losing the last such piece hands that top to the enemy's strongest,
    which then beats everything it meets (a lost Marshal while the enemy's lives decides most games).  The
    ``share`` of each such piece's rank value, split among our pieces that hold the top together."""
    kinds = rs.piece_types
    base = _rank_values(rs)
    enemy_top = max((k.strength for k, n in zip(kinds, enemy_left, strict=True) if k.movable and n), default=None)
    out = [0.0] * len(kinds)
    if enemy_top is None:
        return out
    holders = [i for i, (k, n) in enumerate(zip(kinds, own_left, strict=True))
               if n and k.movable and k.strength >= enemy_top]
    count = sum(own_left[i] for i in holders)
    for i in holders:
        out[i] = share * base[i] / count
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


def _picker(squares: Sequence[Square]) -> Callable[[list[int]], tuple[int, ...]]:
    """A function giving the codes on ``squares`` of a board, as a tuple (at C speed: the race's cache key)."""
    if len(squares) == 1:
        only = squares[0]
        return lambda board: (board[only],)
    if not squares:
        return lambda board: ()
    return operator.itemgetter(*squares)


@functools.cache
def _distances(rs: Ruleset) -> dict[Square, dict[Square, int]]:
    """Steps between land squares around the lakes (pieces ignored), for the long-range plans."""
    geo = geometry(rs)
    return {start: _ways_to(geo.neighbours, start, frozenset()) for start in geo.land}


def _ways_to(neighbours: Sequence[Sequence[Square]], start: Square, blocked: Set[Square]) -> dict[Square, int]:
    """Steps from ``start`` to each square reachable without crossing a ``blocked`` one (the squares that
    block are reached, not crossed)."""
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for s in frontier:
            for t in neighbours[s]:
                if t not in dist:
                    dist[t] = dist[s] + 1
                    if t not in blocked:
                        nxt.append(t)
        frontier = nxt
    return dist


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


def movers(rs: Ruleset) -> int:
    """How many movable pieces a side's army has (a small army, barrage's or pocket's, has at most 10)."""
    return sum(count for kind, count in rs.army if kind.movable)


def small_army(rs: Ruleset) -> bool:
    """Whether ``rs``'s army is small (at most ``Model.GUARD_FROM`` movable pieces a side), where the big-army
    habits do not count (:meth:`Model.army_weight` is 0)."""
    return movers(rs) <= Model.GUARD_FROM


class Model:
    """Everything one decision's search reads: values, square tables, geometry, per kind code (1-based)."""

    PULL = 0.12  # weight of the pull towards targets a piece should attack
    PULL_DECAY = 0.8  # per step of distance
    FRAGILE_DECAY = 0.5  # ... for a piece every attacker beats (the Spy), in a full army
    FLAG_PULL = 400.0  # how much an enemy Flag is worth as a target
    HUNT = 0.5  # per step nearer, a piece that safely beats a known enemy piece among our pieces gains this
    HUNT_REACH = 8  # ... share of the mean of those pieces, from this many steps away (the prey: 2 steps)
    TRADE_HUNT = 0.5  # ... and a piece of its own kind this share of that, where a trade keeps us the board's top
    THREAT = 0.6  # how much of the second of our pieces a known enemy piece attacks at once counts as lost
    DOUBT = 0.06  # how sure a modelled enemy reply is: moves this share of a top piece worse still count 1/e
    CHEAP = 0.2  # a piece worth at most this share of its side's best piece is sent to find the Flag freely
    BOMB_EXTRA = 0.5  # a dear piece lost on a Bomb counts this much more of its value
    TOP_INFO = 0.3  # the share of its value the strongest piece loses by being revealed where a Spy hunts it
    FLAG_SHARE = 0.15  # what a dearer piece counts the hope of finding the Flag at, as a share of a win
    COVER = 40.0  # our movable piece next to our Flag ...
    COVER_REACH = 5  # ... in a small army only while an enemy piece stands within this many steps of the Flag
    GUARD_FROM, GUARD_SPAN = 10, 15  # guarding grows from armies of 10 movable pieces to full at 25 and more
    DANGER = 120.0  # enemy piece next to our Flag
    DANGER_DECAY = 0.55
    RACE_HORIZON = 7  # moves an intruder may need to stand next to our Flag for the race to be looked at
    RACE_DECAY = 0.7  # a lost race counts half a win when the intruder stands next to the Flag, less per move
    RACE_FLOOR = 0.1  # ... times twice what the enemy can believe our Flag is there (at least this, at most 1)
    TIGHT = 0.4  # a race our defender wins with no move to spare counts this share of a lost one ...
    BEHIND = 0.3  # ... and one it loses by many moves up to this share more than one lost by a move
    PROBE = 0.5  # the least weight a modelled enemy reply keeps when a cheap piece attacks one of our hidden pieces
    PROBE_CHEAP = 0.25  # ... cheap: worth at most this share of the enemy's best piece
    TOP = 1.0  # what holding the board's top adds to the pieces that hold it, as a share of their rank value

    def __init__(self, view: View, squares: list[Square], table: list[list[float]], guard: float = 0.0,
                 theirs: dict[Square, list[float]] | None = None, hunt: bool = False, lurk: bool = False,
                 forks: bool = False, seen_at_rank: bool = False, through: bool = False) -> None:
        rs = view.ruleset
        self.forks = forks
        self.rs = rs
        self.me = me = view.player
        geo = view.geometry
        kinds = rs.piece_types
        n = len(kinds)
        self.neighbours = geo.neighbours
        bottom = rs.sits_at_bottom(me)
        ours_half = frozenset(x for x in geo.land if (square_row(x) < geo.height / 2) == bottom)
        # Where a known raider goes through our pieces it beats (Level.race_through): in our half, where it is
        # among them; further off the race counted a roaming known Marshal seven moves out, through four of
        # our pieces, in most games against the 2012 champion, which only stirred near-equal moves.
        self.through: frozenset[Square] = ours_half if through else frozenset()
        self.battle = _battle_table(rs)
        self.flag = (False, *(k.is_flag for k in kinds))
        self.mobile = (False, *(k.movable for k in kinds))
        self.draw_limit = rs.draw_limit
        self.rays = geo.rays
        self.runs = (False, *(k.mobility == RUN and rs.scout_attacks_after_run for k in kinds))
        # The immobile piece a defuser takes (the Bomb), as a kind code; 0 if the army has none.
        self.blocker = next((i + 1 for i, k in enumerate(kinds) if not k.movable and not k.is_flag), 0)
        own_left = [0] * n
        index = {k.name: i for i, k in enumerate(kinds)}
        for s in view.squares(me):
            own_left[index[view.piece_at(s).type.name]] += 1  # type: ignore[union-attr]
        enemy_left = remaining_hidden(view)
        for s in view.squares(1 - me):
            piece = view.piece_at(s)
            if piece is not None:
                enemy_left[index[piece.type.name]] += 1
        own_base = piece_values(rs, own_left, enemy_left)
        enemy_base = piece_values(rs, enemy_left, own_left)
        own_top = top_bonus(rs, own_left, enemy_left, self.TOP)
        enemy_top = top_bonus(rs, enemy_left, own_left, self.TOP)
        own_v = [v + b for v, b in zip(own_base, own_top, strict=True)]
        enemy_v = [v + b for v, b in zip(enemy_base, enemy_top, strict=True)]
        bases = {me: own_base, 1 - me: enemy_base}
        self.material = (sum(v * c for v, c in zip(own_v, own_left, strict=True))
                         - sum(v * c for v, c in zip(enemy_v, enemy_left, strict=True)))
        self.values = {me: own_v, 1 - me: enemy_v}
        self.win = win_value(rs)
        val = [[0.0] * (n + 1), [0.0] * (n + 1)]
        info = [[0.0] * (n + 1), [0.0] * (n + 1)]
        strongest = max((k for k in kinds if k.movable), key=lambda k: k.strength)
        hunted = strongest if any(strongest.name in k.beats_when_attacking for k in kinds if k.movable
                                  and k is not strongest) else None
        # Only in a big army, where the strongest piece can wait for its moment (in barrage it must act).
        top_info = 0.15 + (self.TOP_INFO - 0.15) * self.army_weight()
        for side, v in self.values.items():
            b = bases[side]
            # With ``seen_at_rank`` an enemy piece gives away by being seen a share of its rank value, not of
            # the board's top it holds (being seen does not lose the top): at 30 % of the Marshal's 567, the
            # unseen Marshal that took our known General was "paid" by showing itself (+2 for us).
            seen = b if seen_at_rank and side != me else v
            for i in range(n):
                val[side][i + 1] = v[i]
                # A known piece is easier to meet with the right piece: top pieces lose most by being seen.
                # The strongest piece loses most where a special piece (the Spy) beats it: once it is
                # known, that piece knows whom to wait for.
                share = (top_info if kinds[i] is hunted else 0.15 if b[i] >= 0.6 * max(b) else 0.1)
                info[side][i + 1] = share * seen[i] if kinds[i].movable else 3.0
        self.val = val
        self.info = info
        # What the hope of finding the Flag in a hidden piece is worth to each attacker: a cheap piece (a
        # Scout, a Miner) may count it in full, a dear one only in part, since a cheap piece could find the
        # same Flag without risking the dear one on a Bomb.
        prize = [[0.0] * (n + 1), [0.0] * (n + 1)]
        for side, v in self.values.items():
            movers = [x for x, k in zip(bases[side], kinds, strict=True) if k.movable] or [0.0]
            # Cheap: at most a fifth of the best piece, or little more than the cheapest (in a small army).
            cheap = max(self.CHEAP * max(movers), 1.5 * min(movers))
            for i in range(n):
                prize[side][i + 1] = self.win if v[i] <= cheap else self.FLAG_SHARE * self.win
        # What a dear piece loses on a Bomb beyond its value: a cheap piece could have found that Bomb.
        self.bomb_extra = [[0.0 if p >= self.win else self.BOMB_EXTRA * x for p, x in zip(pr, vl, strict=True)]
                           for pr, vl in zip(prize, val, strict=True)]
        self.prize = prize
        self.doubt = self.DOUBT * max(max(v) for v in bases.values())
        # The enemy's cheap pieces attack our hidden pieces to find out what they are (a probe), even where the
        # material expected does not pay: such a reply, when it costs us, keeps at least :attr:`PROBE` of the
        # weight of the enemy's likeliest one (Search.modelled_reply).
        eb = bases[1 - me]
        cheap_probe = self.PROBE_CHEAP * max(eb)
        self.probe = (0.0, *(self.PROBE if k.movable and x <= cheap_probe else 0.0
                             for k, x in zip(kinds, eb, strict=True)))
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
        # A known enemy piece among our pieces it beats takes one after another, while a search two plies deep
        # sees only the next: each step a piece that beats it safely comes nearer saves about a share of one
        # of them (games against celsius1.1 were lost to a known General or Colonel that took six or seven
        # pieces in a row while our Marshal stood five steps away).
        hunts: list[tuple[Square, int, float]] = []  # (square, kind code, pull per step nearer)
        if hunt:
            # (Our movable pieces only: the race and the Flag's safety weigh a piece near our Flag and Bombs.)
            ours = [(x, index[q.type.name] + 1) for x in view.squares(me)
                    if (q := view.piece_at(x)) is not None and q.type.movable]
            # Only in our half: among our attacking pieces in the enemy's it is the battle front.
            for s in view.squares(1 - me):
                piece = view.piece_at(s)
                if piece is None or not piece.type.movable or s not in ours_half:
                    continue
                k = index[piece.type.name] + 1
                near = dist[s]
                prey = [own_v[q - 1] for x, q in ours
                        if near.get(x, 99) <= 2 and self.battle[k][q] == _ATTACKER_WINS]
                if prey:
                    hunts.append((s, k, self.HUNT * sum(prey) / len(prey)))
        # The hunter comes at the raider through our half: other enemy pieces, and our own that never move, are
        # in the way (straight through the enemy's front row, its distance drew our General past an unseen Marshal).
        ways: dict[Square, dict[Square, int]] = {}
        if hunts:
            blocked = {x for x in geo.land if view.board[x] and (view.owner_at(x) != me or not (
                (q := view.piece_at(x)) is not None and q.type.movable))}
            ways = {s: _ways_to(geo.neighbours, s, blocked) for s, _, _ in hunts}
        # Nothing of ours safely beats the enemy's strongest piece: a known Marshal among our pieces takes one
        # after another (7.3 a lost game against the 2012 champion, our own Marshal often a few steps away).
        # Our piece of its kind may trade with it where we keep the board's top after the trade, or where the
        # enemy keeps it whether we trade or not (:func:`_top_held_anyway`): the hunt draws
        # it nearer (a share of the pull) and, as that pull dies with our piece, the trade itself scores what
        # the pull would have reached on the raider's square (:attr:`trades`, a root adjustment).
        self.trades: dict[Square, float] = {}
        for s, k, step in hunts:
            safe = any(own_left[a] and kinds[a].movable and self.battle[a + 1][k] == _ATTACKER_WINS
                       and self.battle[k][a + 1] == _DEFENDER_WINS for a in range(n))
            if safe or self.battle[k][k] != _BOTH_DIE or not own_left[k - 1]:
                continue
            trade_pull = self.TRADE_HUNT * step * self.HUNT_REACH
            if _keeps_top(kinds, own_left, enemy_left, k - 1):
                self.trades[s] = trade_pull
            elif _top_held_anyway(kinds, enemy_left, k - 1):
                # The search counts the trade as losing our piece's top bonus (less the raider's share of the
                # enemy's): the enemy's other piece of the type holds the top after it anyway.
                self.trades[s] = trade_pull + own_top[k - 1] - enemy_top[k - 1]
        # A piece that every enemy piece beats when it attacks (the Spy) and that stalks its prey from afar
        # crosses the open board, where any probe takes it (the 2012 champion's Scouts and Lieutenants took
        # hard's Spy in 96 games of 100 as it trailed the known Marshal): with ``lurk``, in a full army, it is
        # drawn only to what is near (in a small army it meets few pieces on its way and must act).
        spies = {a for a in range(n) if kinds[a].movable and all(
            self.battle[k + 1][a + 1] != _DEFENDER_WINS for k in range(n) if kinds[k].movable)}
        steep = self.PULL_DECAY - (self.PULL_DECAY - self.FRAGILE_DECAY) * self.army_weight()
        fragile = [steep ** d for d in range(64)]
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
                        flag = self.FLAG_PULL * prize[me][a + 1] / self.win if kinds[k].is_flag else 0.0
                        g += p * (enemy_v[k] + pst[1 - me][k + 1][s] + flag)
                    elif r == _DEFENDER_WINS:
                        g -= p * own_v[a]
                    else:  # a trade: worth more against a piece that comes for our Flag
                        g += p * (enemy_v[k] + pst[1 - me][k + 1][s] - own_v[a])
                if g > 0:
                    gains.append((g, s))
            gains.sort(reverse=True)
            row = [0.0] * size
            near = fragile if lurk and a in spies else decay
            for g, s in gains[:6]:
                w = self.PULL * g
                for sq, d in dist[s].items():
                    pull = w * near[min(d, 63)]
                    if pull > row[sq]:
                        row[sq] = pull
            for s, k, step in hunts:
                if self.battle[a + 1][k] == _ATTACKER_WINS and self.battle[k][a + 1] == _DEFENDER_WINS:
                    share = 1.0
                elif a + 1 == k and s in self.trades:
                    share = self.TRADE_HUNT
                else:
                    continue
                for sq, d in ways[s].items():
                    if d < self.HUNT_REACH and (pull := share * step * (self.HUNT_REACH - d)) > row[sq]:
                        row[sq] = pull
            pst[me][a + 1] = row
        # In a small army (barrage, pocket) a piece beside our Flag is worth that only while an enemy piece could
        # come for it: with every enemy piece far off, a search three plies deep kept hard's last Miner within
        # two steps of the square beside its Flag (a step there "could still be taken" at the third ply), and it
        # never left to take a Flag it knew for certain (barrage, three quiet-move draws in 100 against random).
        # The fewest steps an enemy piece that may move needs to take our Flag, each counted as if it could take
        # our Bombs on the way (most are unseen); 99: none can, or we have no Flag.
        self.flag_distance = 99
        if flags:
            self.flag_distance = min((defuser.get(s, 99) for s in view.squares(1 - me)
                                      if (q := view.piece_at(s)) is None or q.type.movable), default=99)
            enemy_near = self.army_weight() > 0.0 or self.flag_distance <= self.COVER_REACH
            # A piece next to our Flag keeps the way to it shut (Scouts' lanes included): do not leave lightly.
            for a in range(n):
                if enemy_near and kinds[a].movable and own_left[a]:
                    row = pst[me][a + 1][:]
                    for sq in geo.neighbours[flags[0]]:
                        row[sq] += self.COVER
                    pst[me][a + 1] = row
            # Guarding pays in a big army with pieces to spare; a small one (barrage, pocket) needs every piece
            # up front, and the tournament shows hard losing to medium there when it guards.
            guard *= self.army_weight()
            if guard:
                self._guard(plain, defuser, targets, own_left, guard, pst)
        # Where an enemy piece stands close enough to our Flag for the race to it to be looked at (medium and hard,
        # in a big army: the same habit as guarding).
        self.race_zone: tuple[Square, ...] = ()
        self.flag_neighbours: tuple[Square, ...] = ()
        self.race_squares: tuple[Square, ...] = ()
        self._intruder_code: list[bool] = []
        self._race_near = _picker(())
        self._race_at: dict[Square, int] = {}
        self._races: dict[tuple, float] = {}
        self._ways: dict[tuple[int, ...], dict[Square, dict[frozenset[int], dict[Square, int]]]] = {}
        self._pass_sets: dict[tuple[int, bool], frozenset[int]] = {}
        self.race_share = 1.0
        if flags and guard:
            self.race_zone = tuple(s for s, d in defuser.items() if 0 < d <= self.RACE_HORIZON + 1)
            self.flag_neighbours = tuple(geo.neighbours[flags[0]])
            self.race_squares = tuple(s for s, d in dist[flags[0]].items() if d <= self.RACE_HORIZON + 2)
            self._race_near = _picker(self.race_squares)
            self._race_at = {x: i for i, x in enumerate(self.race_squares)}
            # Per piece code: is it an enemy piece that may move (an intruder, when in the race zone)?
            enemy = (1 - me) << 5
            mobile = self.mobile
            self._intruder_code = [c & OWNER == enemy and (k := c & KIND) < len(mobile) and mobile[k]
                                   for c in range(PIECE << 1)]
            # How likely the enemy is to go for that square: what it can believe our Flag is there (``theirs``,
            # the enemy's beliefs about our unseen pieces; certain once our Flag is seen or without them).
            flag_kind = next(i for i, k in enumerate(kinds) if k.is_flag)
            row = (theirs or {}).get(flags[0])
            self.race_share = max(self.RACE_FLOOR, min(1.0, 2 * row[flag_kind])) if row else 1.0
        self.pst = pst

    def army_weight(self) -> float:
        """0 for armies of 10 movable pieces or fewer, 1 for 25 and more: how much the big-army habits count."""
        return min(1.0, max(0.0, (movers(self.rs) - self.GUARD_FROM) / self.GUARD_SPAN))

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

    def race(self, board: list[int], ours_to_move: bool, unknown: dict[Square, list[tuple[int, float]]]) -> float:
        """What we stand to lose to an enemy piece that can reach our Flag before any of ours can stop it.

        For each enemy piece near our Flag: the moves it needs to stand next to the Flag (through empty squares,
        through our Bombs if it defuses them, taking what stands on that last square if it beats it), against
        the moves our nearest piece that beats or trades with it needs to take it there.  A race we cannot win
        counts as part of a lost game: half of one when the intruder stands next to the Flag already, less the
        further it has to go, and less the less the enemy can believe our Flag is there (:attr:`race_share`).
        A piece we have not seen counts by what we believe it is (``unknown``: square -> (kind code,
        probability) pairs), not by the world's guess.  ``ours_to_move``: whose turn it is on ``board``.

        A race won with no move to spare counts in part (:attr:`TIGHT`) as lost: one move spent elsewhere, or
        a way round we did not weigh, loses it, and a search two plies deep sees the loss only when it is too
        late; one lost by more moves counts more (:attr:`BEHIND`), so a defender still comes closer.  (The games
        showed it: defenders counted "in time" went hunting, or stood still once too late, and the Flag fell.)"""
        intruders = self._intruders(board)
        if not intruders:
            return 0.0
        # The answer depends only on the squares near our Flag (our pieces there, where enemy pieces stand, what
        # we know or believe of those): many positions of a search share it.
        near = self._race_near(board)
        hidden = self._race_at.keys() & unknown.keys()
        if hidden:
            masked = list(near)
            at = self._race_at
            for x in hidden:
                masked[at[x]] = -1  # an enemy piece we have not seen: what the world guesses it is does not count
            near = tuple(masked)
        key = (ours_to_move, near, tuple([tuple(unknown[s]) if s in unknown else board[s] for s in intruders]))
        cached = self._races.get(key)
        if cached is None:
            races = self._races_at(board, ours_to_move, unknown, intruders)
            cached = self._races[key] = max((self.race_cost(race) for race in races), default=0.0)
        return cached

    def race_cost(self, race: LostRace) -> float:
        """What one race costs: half a win × 0.7 per move the intruder still needs × :attr:`race_share` × how
        late our defender is (:meth:`late`), over the types the intruder may be (given that it moves)."""
        _, mass, lost = race
        return sum(p * 0.5 * self.race_share * self.win * self.RACE_DECAY ** t * self.late(behind)
                   for _, p, t, behind, _ in lost) / mass

    def late(self, behind: int) -> float:
        """How much of a lost race one counts whose defender comes ``behind`` moves too late: :attr:`TIGHT`
        when just in time (0), 1 when a move late, up to 1 + :attr:`BEHIND` when far too late."""
        if behind <= 0:
            return self.TIGHT
        return 1.0 + self.BEHIND * (1.0 - 0.5 ** (behind - 1))

    def _intruders(self, board: list[int]) -> list[Square]:
        """The enemy's movable pieces in the race zone on ``board``."""
        intruder = self._intruder_code
        return [s for s in self.race_zone if intruder[board[s]]]

    def lost_races(self, board: list[int], ours_to_move: bool, unknown: dict[Square, list[tuple[int, float]]],
                   intruders: Sequence[Square] | None = None) -> list[LostRace]:
        """The races to our Flag we cannot win on ``board`` (:data:`LostRace`, one per enemy piece near it that
        may win one); ``intruders``: the enemy movable pieces to look at (default: all in the race zone)."""
        out = []
        for s, mass, lost in self._races_at(board, ours_to_move, unknown, intruders):
            lost = [x for x in lost if x[3] > 0]
            if lost:
                out.append((s, mass, lost))
        return out

    def _races_at(self, board: list[int], ours_to_move: bool, unknown: dict[Square, list[tuple[int, float]]],
                  intruders: Sequence[Square] | None = None) -> list[LostRace]:
        """:meth:`lost_races` with the races won with no move to spare too (``behind`` 0): per intruder type
        the way to our Flag that costs most (:meth:`race_cost`)."""
        mobile = self.mobile
        if intruders is None:
            intruders = self._intruders(board)
        if not intruders:
            return []
        approach = self._approach(board)
        battle = self.battle
        forks = self.forks
        mine = self.me << 5
        decay = self.RACE_DECAY
        out = []
        for s in intruders:
            c = board[s]
            kinds = [(k, p) for k, p in unknown[s] if mobile[k]] if s in unknown else [(c & KIND, 1.0)]
            known = s not in unknown and s in self.through
            mass = sum(p for _, p in kinds)
            reach: dict[frozenset[int], dict[Square, int]] = {}  # its moves to every square, per passes (forks)
            # Our pieces beside it, which take it at once if we are to move and they beat or trade with it.
            beside = [x & KIND for y in self.neighbours[s] if (x := board[y]) and x & OWNER == mine
                      and mobile[x & KIND]] if ours_to_move else []
            lost = []
            for a, p in kinds:
                if p < 0.005 or any(battle[k][a] != _DEFENDER_WINS for k in beside):
                    continue
                row = battle[a]
                passes = self._passes(a, known)
                worst = None
                ways: list[tuple[int, dict[Square, int], list[tuple[int, Square]]]] = []
                for n, occupant, maps, defenders in approach:
                    way = maps.get(passes)
                    if way is None:
                        way = maps[passes] = self._steps(board, n, passes)
                    t = way.get(s)
                    if t is None:
                        continue
                    if occupant and row[occupant] != _ATTACKER_WINS:
                        continue  # it cannot take what stands there
                    allowed = t + 1 if ours_to_move else t
                    stops = [(m, y) for m, k, y in defenders if battle[k][a] != _DEFENDER_WINS]
                    if forks:
                        ways.append((t, way, stops))
                    soonest = min((m for m, _ in stops), default=None)
                    behind = allowed + self.RACE_HORIZON if soonest is None else soonest - allowed
                    if behind < 0:
                        continue  # in time with a move to spare
                    cost = decay ** t * self.late(behind)
                    if worst is None or cost > worst[0]:
                        worst = (cost, t, behind, 1)
                if forks and len(ways) > 1:
                    if passes not in reach:
                        reach[passes] = self._steps(board, s, passes)
                    for t, behind in self._forks(reach[passes], ways, ours_to_move):
                        cost = decay ** t * self.late(behind)
                        if worst is None or cost > worst[0]:
                            worst = (cost, t, behind, 2)
                if worst is not None:
                    lost.append((a, p, *worst[1:]))
            if lost and mass > 0:
                out.append((s, mass, lost))
        return out

    def _forks(self, reach: dict[Square, int], ways: list[tuple[int, dict[Square, int], list[tuple[int, Square]]]],
               ours_to_move: bool) -> list[tuple[int, int]]:
        """Races an intruder wins by a fork: two ways to squares next to our Flag (``ways``: the moves it needs to
        stand on each, the moves from every square to it, and our pieces that can stop it there with the moves
        each needs to move onto it) that share their first steps (``reach``: its moves to every square it can
        pass, :meth:`_steps`).  It walks the shared part to the last square from which both are still shortest
        (``f`` moves), and only then shows which way it takes; our defenders must be near enough by then, and
        one move a turn serves one of them.  Each way's defender may wait at most ``k - 1`` moves after the
        fork (``k``: the intruder's moves from there), so two different defenders need ``max(0, m1 - k1) +
        max(0, m2 - k2)`` moves before it (one defender for both the larger of the two), and we have ``f`` (one
        more if we are to move).  Returns, per pair of ways whose fork comes too soon, (the fewer moves of the
        two, moves too late; 0 just in time).  One way at a time, each looked in time when it was not: ramen's
        Miner on F3, a step from F2 beside the Bombs F1 and G2 round hard's Flag on G1, with one defender for
        each way; hard moved neither (session 33)."""
        spare = 1 if ours_to_move else 0
        out = []
        for i, (t1, to1, stop1) in enumerate(ways):
            for t2, to2, stop2 in ways[i + 1:]:
                if not stop1 or not stop2 or not t1 or not t2:
                    continue  # a way nobody guards is lost alone; one already reached, too
                # The fork: the furthest square on a shortest way to both (the intruder's own square at least).
                f = max(d for x, d in reach.items()
                        if (r1 := to1.get(x)) and (r2 := to2.get(x)) and d + r1 == t1 and d + r2 == t2)
                k1, k2 = t1 - f, t2 - f
                # Two different defenders, each its own moves; or one for both, whose moves towards the one way
                # serve the other (the squares next to a Flag lie close together).
                need = min(max(0, m1 - k1) + max(0, m2 - k2) if y1 != y2 else max(0, m1 - k1, m2 - k2)
                           for m1, y1 in stop1 for m2, y2 in stop2)
                behind = need - f - spare
                if need and behind >= 0:  # (no move needed before the fork: each way is its own race)
                    out.append((min(t1, t2), behind))
        return out

    def _steps(self, board: list[int], start: Square, passes: frozenset[int]) -> dict[Square, int]:
        """The moves an enemy piece needs between ``start`` and every square within the race's horizon: an
        enemy piece in the way moves on, our pieces block it but those of a kind in ``passes``, which it takes
        on its way (our Bombs, for a piece that defuses them; what a known raider beats, :meth:`_passes`)."""
        mine = self.me << 5
        neighbours = self.neighbours
        dist = {start: 0}
        frontier = [start]
        for d in range(1, self.RACE_HORIZON + 1):
            nxt = []
            for x in frontier:
                for y in neighbours[x]:
                    if y in dist:
                        continue
                    e = board[y]
                    if e and e & OWNER == mine and (e & KIND) not in passes:
                        continue
                    dist[y] = d
                    nxt.append(y)
            frontier = nxt
        return dist

    def _passes(self, a: int, known: bool) -> frozenset[int]:
        """Our kinds an intruder of kind ``a`` goes through on its way to our Flag: our Bombs if it defuses
        them; if ``known`` (we know what it is, and it stands in :attr:`through`: hard's
        :attr:`Level.race_through`, in our half), every piece of ours it beats (a known Colonel took a
        Lieutenant, a Major, another Lieutenant and a Major on its way to hard's Flag, which the race, counting
        our pieces as walls, never saw coming: vixen, session 36).  An unseen piece's way stays around our
        movable pieces, whatever type it may be, or every hidden piece would count as a possible Marshal that
        walks through them."""
        key = (a, known)
        got = self._pass_sets.get(key)
        if got is None:
            row = self.battle[a]
            got = frozenset(k for k in range(1, len(row)) if row[k] == _ATTACKER_WINS and not self.flag[k]
                            and (known or k == self.blocker))
            self._pass_sets[key] = got
        return got

    def _approach(self, board: list[int]) -> list[tuple[Square, int, dict[frozenset[int], dict[Square, int]],
                                                        list[tuple[int, int, Square]]]]:
        """Per square next to our Flag: the square, what of ours stands there (kind code, 0 if nothing of
        ours), a cache for the moves an enemy piece needs from each square to stand there (per the kinds of
        ours it passes through, filled by :meth:`_races_at` with :meth:`_steps`; shared by the positions whose
        pieces of ours near the Flag stand alike, as only those change it), and our movable pieces
        that can move onto it (the moves each needs, its kind code and its square), all within the horizon."""
        mine = self.me << 5
        mobile = self.mobile
        horizon = self.RACE_HORIZON
        neighbours = self.neighbours
        # Those moves depend only on where our pieces stand near the Flag (enemy pieces move on), so positions
        # of the search that differ in the enemy's share them.
        own = tuple([c if c and c & OWNER == mine else 0 for c in self._race_near(board)])
        shared = self._ways.get(own)
        if shared is None:
            shared = self._ways[own] = {n: {} for n in self.flag_neighbours}
        out = []
        for n in self.flag_neighbours:
            c = board[n]
            occupant = c & KIND if c and c & OWNER == mine else 0
            maps = shared[n]
            defenders = []
            seen = {n}
            frontier = [n]
            for k in range(horizon + 1):
                nxt = []
                for x in frontier:
                    for y in neighbours[x]:
                        if y in seen:
                            continue
                        seen.add(y)
                        e = board[y]
                        if not e:
                            nxt.append(y)
                        elif e & OWNER == mine and mobile[e & KIND]:
                            defenders.append((k + 1, e & KIND, y))
                frontier = nxt
            out.append((n, occupant, maps, defenders))
        return out

    def trade_gain(self, mc: int, tc: int, t: Square) -> float:
        """What trading our piece coded ``mc`` with the known raider coded ``tc`` on ``t`` is worth beyond the
        search's count (:attr:`trades`): the raider's pull, and, for a hidden piece of ours, what the search
        counts it as losing by being hidden (a known raider is worth less by :attr:`info`), since the trade
        stops what the raider would take next.  0 for anything else."""
        a, e = mc & KIND, tc & KIND
        if t not in self.trades or a != e or (mc & OWNER) >> 5 != self.me or not tc & REVEALED:
            return 0.0
        return self.trades[t] + (0.0 if mc & REVEALED else self.info[self.me][a])

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
