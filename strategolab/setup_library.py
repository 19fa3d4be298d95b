"""Ready-made named setups and a generator whose placements follow real setup statistics.

The computer opponent picks its setup here: a named plan from the library (Flag in a corner behind Bombs,
Flag in the middle, a bluff, an aggressive front ...), possibly mirrored, or a fresh setup drawn square by
square from the per-square frequencies of real Gravon setups (:mod:`strategolab.setupstats`).

Setups are written once per *army* (the classic 40, the barrage 8, the pocket 12) in a small authoring code
of this module and turned into :class:`~strategolab.setups.Setup` values through the piece *names*, so the
same plan works in every rule set with that army and board, whatever its notation (``original-1961`` numbers
its ranks the old way, ``isf`` and custom rule sets reuse classic's army).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from strategolab.board import STRIDE, geometry
from strategolab.errors import StrategolabError
from strategolab.rules import RED, STEP, Ruleset, get_ruleset
from strategolab.setups import Setup

if TYPE_CHECKING:
    from strategolab.setupstats import SetupStats

# Authoring codes, one character per square (notation-independent: turned into piece names at once).
_CLASSIC_CODE = {"X": "Marshal", "9": "General", "8": "Colonel", "7": "Major", "6": "Captain", "5": "Lieutenant",
                 "4": "Sergeant", "3": "Miner", "2": "Scout", "S": "Spy", "B": "Bomb", "F": "Flag", ".": ""}
_POCKET_CODE = {"5": "Commander", "4": "Captain", "3": "Guard", "2": "Sapper", "1": "Runner", "M": "Mine",
                "F": "Flag", ".": ""}

# Rows front to back, each left to right as the owner sees the board from their seat (reading order).
_CLASSIC_PLANS: dict[str, tuple[str, str]] = {
    "corner-fortress": ("Flag in the back-left corner behind two Bombs; Marshal and General central",
                        "6252982526/2376SX7432/B45B876453/FB3B4B3B22"),
    "central-flag": ("Flag in the middle of the back row, Bombs on three sides",
                     "2625895262/5427XS7234/6473BBB864/B53BFB3232"),
    "twin-fortress": ("A bluff: two identical corner fortresses of Bombs, the left one holding the Flag and "
                      "the right one a Sergeant; two more Bombs in front of the lakes",
                      "26B2522B42/2376SX9832/B54678752B/FB353436B4"),
    "aggressive-front": ("Marshal, General and Colonels in the front row to strike early; Flag in the "
                         "back-right corner behind Bombs",
                         "X298228726/25763S7652/4345356BB3/4B324B2BFB"),
    "lake-bombs": ("Bombs in front of the lakes block the centre lanes; Flag in the back-right corner",
                   "52BB25B826/327X6S9372/64854764B3/2354322BFB"),
    "scout-lanes": ("Scouts on the three open lanes to probe at once; Flag on the left of the back row",
                    "2652292562/5X7S36773B/4B3B8458B4/BFB3246322"),
}
_BARRAGE_PLANS: dict[str, tuple[str, str]] = {
    "hidden-corner": ("Flag in the back-left corner, the Bomb beside it and the Miner in front of it",
                      "..2....2../...9.X..../3...S...../FB........"),
    "bluff-bomb": ("A lone Bomb in the far corner as a decoy; the Flag in the middle of the back row between "
                   "the Miner and the Spy, the General in front of it",
                   "..2....2../....X...../....9...../...3FS...B"),
    "forward": ("Marshal and General in the front row; the Flag in the back-right corner behind the Bomb and "
                "the Miner", "..X....9../.2......2./.........3/....S...BF"),
}
_POCKET_PLANS: dict[str, tuple[str, str]] = {
    "corner-mines": ("Flag in a back corner covered by both Mines", "M25321/FM3141"),
    "central-flag": ("Flag in the middle of the back row between the Mines", "215431/13MFM2"),
    "strike-left": ("Commander and Captain on the left to strike early; the Flag in the back-right corner "
                    "walled in by both Mines", "54132M/1321MF"),
}
_FAMILIES = ((_CLASSIC_CODE, _CLASSIC_PLANS), (_CLASSIC_CODE, _BARRAGE_PLANS), (_POCKET_CODE, _POCKET_PLANS))


def _build(ruleset: Ruleset, code: dict[str, str], text: str) -> Setup | None:
    """A plan as a setup of ``ruleset``, or ``None`` if the plan does not fit its board and army."""
    rows = text.split("/")
    squares = geometry(ruleset).setup_squares[RED]
    if sum(len(r) for r in rows) != len(squares):
        return None
    sizes: dict[int, int] = {}
    for sq in squares:
        sizes[sq // STRIDE] = sizes.get(sq // STRIDE, 0) + 1
    if [len(r) for r in rows] != list(sizes.values()):
        return None
    try:
        pieces = tuple(ruleset.piece_type(code[ch]) if code[ch] else None for row in rows for ch in row)
    except KeyError:
        return None
    setup = Setup(ruleset, pieces)
    return setup if setup.is_valid() else None


def library(ruleset: str | Ruleset | None = None) -> dict[str, Setup]:
    """The named ready-made setups that fit ``ruleset`` (its board and army), by plan name.

    Classic, ``isf``, ``original-1961`` and any custom rule set with the classic army and board share the
    classic plans; barrage and pocket have their own.  A rule set nothing fits gets an empty library.
    """
    return dict(_library(get_ruleset(ruleset)))


@functools.cache
def _library(rs: Ruleset) -> tuple[tuple[str, Setup], ...]:
    out = []
    for code, plans in _FAMILIES:
        for name, (_, text) in plans.items():
            setup = _build(rs, code, text)
            if setup is not None:
                out.append((name, setup))
    return tuple(out)


def describe(plan: str, ruleset: str | Ruleset | None = None) -> str:
    """The idea behind a named plan, in a sentence (for a setup chooser or the drawer's caption).

    Plans of different armies may share a name (``central-flag``): give ``ruleset`` to get the sentence of
    the plan that rule set's library holds (without it, the first family that has the name answers)."""
    rs = get_ruleset(ruleset) if ruleset is not None else None
    for code, plans in _FAMILIES:
        if plan in plans and (rs is None or _build(rs, code, plans[plan][1]) is not None):
            return plans[plan][0]
    where = f" for {rs.name}" if rs is not None else ""
    raise KeyError(f"no setup plan named {plan!r}{where}")


def mirrored(setup: Setup) -> Setup | None:
    """The setup reflected left-right, or ``None`` when the board is not symmetric (lakes) in the setup zone."""
    rs = setup.ruleset
    geo = geometry(rs)
    squares = geo.setup_squares[RED]
    index = {sq: i for i, sq in enumerate(squares)}
    pieces: list = [None] * len(squares)
    for i, sq in enumerate(squares):
        twin = (sq // STRIDE) * STRIDE + (geo.width - 1 - sq % STRIDE)
        if twin not in index:
            return None
        pieces[index[twin]] = setup.pieces[i]
    return Setup(rs, tuple(pieces))


def book(ruleset: str | Ruleset | None = None) -> tuple[tuple[str, Setup], ...]:
    """Every plan of the :func:`library` and its mirror image (named "NAME (mirrored)", where the board allows
    one and it differs), in name order: the setups a player who knows the library can recognise."""
    out = []
    for name, setup in sorted(library(ruleset).items()):
        out.append((name, setup))
        twin = mirrored(setup)
        if twin is not None and twin != setup:
            out.append((f"{name} (mirrored)", twin))
    return tuple(out)


# -- the statistics-following generator ----------------------------------------------------------------


@functools.cache
def placement_weights(ruleset: str | Ruleset | None = None) -> tuple[tuple[float, ...], ...]:
    """Expected number of each piece type (``ruleset.piece_types`` order) on each reading-order setup square.

    From the shipped Gravon statistics where the rule set's army and board match a table (classic, isf,
    original-1961, barrage and custom variants of them), with a little smoothing so that no square is
    impossible; otherwise from a hand-made heuristic: the Flag and other immobile pieces towards the back,
    the weakest movable pieces towards the front, the rest evenly.  The computer's setup generator draws
    from it and its beliefs use it as the prior for a piece that has not yet shown what it is.
    """
    rs = get_ruleset(ruleset)
    n = len(geometry(rs).setup_squares[RED])
    stats = _stats_for(rs)
    rows: list[tuple[float, ...]] = []
    if stats is not None:
        for kind, count in rs.army:
            freq = stats.frequency(kind.name)
            total = sum(freq) or 1.0
            smooth = 0.03 * count / n
            rows.append(tuple(count * (0.97 * f / total) + smooth for f in freq))
        return tuple(rows)
    depth = _depths(rs)
    strengths = sorted({k.strength for k in rs.piece_types if k.movable})
    for kind, count in rs.army:
        if kind.is_flag:
            w = [0.05 + d * d for d in depth]
        elif not kind.movable:
            w = [0.3 + d for d in depth]
        elif kind.strength <= strengths[min(1, len(strengths) - 1)]:
            w = [1.5 - d for d in depth]
        else:
            w = [1.0] * n
        total = sum(w)
        rows.append(tuple(count * x / total for x in w))
    return tuple(rows)


def _depths(rs: Ruleset) -> list[float]:
    """For each reading-order setup square: 0.0 on the front row ... 1.0 on the back row."""
    squares = geometry(rs).setup_squares[RED]
    order = sorted({sq // STRIDE for sq in squares}, reverse=True)  # Red's front row first
    span = max(1, len(order) - 1)
    return [order.index(sq // STRIDE) / span for sq in squares]


def _stats_for(rs: Ruleset) -> SetupStats | None:
    """The shipped statistics table whose army and setup zone match ``rs``, if any (read on first use)."""
    from strategolab import setupstats
    from strategolab.datafiles import serving_ruleset

    table = serving_ruleset(rs)
    if table is None:
        return None
    try:
        return setupstats.load(table.name)
    except StrategolabError:
        return None


# How much likelier a generated setup puts its Flag on a square its Bombs can wall in on every side: against
# 1,000 games of the random player in pocket, medium lost or drew 2.0 % of those with a walled Flag and 3.7 % of
# those with one open side (a stray piece finds an open Flag on a 6x6 board).
WALLED = 4.0


def statistical_setup(ruleset: str | Ruleset | None = None, rng: random.Random | int | None = None,
                      shield: float = 0.95) -> Setup:
    """A setup drawn square by square from real setup statistics (reproducible from ``rng``).

    The Flag goes first, on a square drawn with the square of its real frequency (real players agree on
    a few Flag squares far more than one-in-a-table suggests), and :data:`WALLED` times likelier where the
    army's Bombs can wall it in on every side (a back corner in pocket, whose two Mines would otherwise leave
    the Flag open on one side more often than not); then each neighbour of the Flag gets a Bomb
    with chance ``shield`` while Bombs last, because frequencies per square alone would scatter the Bombs
    and leave the Flag open, unlike real setups.  Every other piece, rarest first and from the strongest
    down, goes to a free square drawn with the frequency real players put that piece there; where the army
    does not fill the zone (barrage), a free square next to the Flag is much likelier for pieces that step,
    so no Scout finds an open lane to it.
    """
    rs = get_ruleset(ruleset)
    rnd = rng if isinstance(rng, random.Random) else random.Random(rng)
    weights = placement_weights(rs)
    n = len(geometry(rs).setup_squares[RED])
    near = _setup_neighbours(rs)
    order = sorted(range(len(rs.army)), key=lambda i: (not rs.army[i][0].is_flag, rs.army[i][0].movable,
                                                       rs.army[i][1], -rs.army[i][0].strength))
    pieces: list = [None] * n
    left = {i: rs.army[i][1] for i in order}
    flag_at: int | None = None
    for i in order:
        kind = rs.army[i][0]
        if kind.is_flag and left[i]:
            blockers = [b for b in order if not rs.army[b][0].movable and not rs.army[b][0].is_flag]
            walls = sum(rs.army[b][1] for b in blockers)
            flag_at = _draw([w * w * (WALLED if len(near[j]) <= walls and _inside(rs, j) else 1.0)
                             for j, w in enumerate(weights[i])], rnd)
            pieces[flag_at] = kind
            left[i] -= 1
            for j in near[flag_at]:
                blocker = next((b for b in blockers if left[b]), None)
                if blocker is not None and rnd.random() < shield:
                    pieces[j] = rs.army[blocker][0]
                    left[blocker] -= 1
        while left[i]:
            w = [0.0 if pieces[j] is not None else weights[i][j] for j in range(n)]
            if flag_at is not None and kind.mobility == STEP:
                for j in near[flag_at]:  # where the army leaves room: a piece stands in front of the Flag
                    w[j] *= 20.0
            j = _draw(w, rnd)
            pieces[j] = kind
            left[i] -= 1
    return Setup(rs, tuple(pieces))


def _draw(weights: Sequence[float], rng: random.Random) -> int:
    """An index drawn with probability proportional to ``weights`` (uniform over free ones if all are 0)."""
    total = sum(weights)
    if total <= 0:
        raise StrategolabError("no free setup square left")  # cannot happen for a valid rule set
    x = rng.random() * total
    for j, w in enumerate(weights):
        x -= w
        if x < 0 and w > 0:
            return j
    return max(j for j, w in enumerate(weights) if w > 0)


@functools.cache
def _inside(rs: Ruleset, j: int) -> bool:
    """Are all the board neighbours of reading-order setup square ``j`` inside the setup zone (so that pieces
    of the setup can wall a Flag there in completely)?"""
    geo = geometry(rs)
    return len(geo.neighbours[geo.setup_squares[RED][j]]) == len(_setup_neighbours(rs)[j])


@functools.cache
def _setup_neighbours(rs: Ruleset) -> tuple[tuple[int, ...], ...]:
    """Per reading-order setup square: the reading-order indices of its neighbours inside the setup zone."""
    geo = geometry(rs)
    squares = geo.setup_squares[RED]
    index = {sq: i for i, sq in enumerate(squares)}
    return tuple(tuple(index[t] for t in geo.neighbours[sq] if t in index) for sq in squares)


def choose_setup(ruleset: str | Ruleset | None = None, rng: random.Random | int | None = None,
                 library_share: float = 0.5) -> tuple[str, Setup]:
    """A setup for the computer: a named plan (maybe mirrored) with chance ``library_share``, otherwise a
    statistics-following one.  Returns ``(plan name, setup)``; generated setups are named ``"generated"``."""
    rs = get_ruleset(ruleset)
    rnd = rng if isinstance(rng, random.Random) else random.Random(rng)
    plans = library(rs)
    if plans and rnd.random() < library_share:
        name = rnd.choice(sorted(plans))
        setup = plans[name]
        if rnd.random() < 0.5 and (twin := mirrored(setup)) is not None:
            return f"{name} (mirrored)", twin
        return name, setup
    return "generated", statistical_setup(rs, rnd)


__all__ = ["book", "choose_setup", "describe", "library", "mirrored", "placement_weights", "statistical_setup"]
