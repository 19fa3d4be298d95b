"""Piece types, rule sets and battle resolution: the facts every other module reads.

A rule set is a frozen value; the engine never branches on a rule set's name, only on its fields, so a
custom rule set (``dataclasses.replace(CLASSIC, draw_limit=100)``) needs no engine change.  Battles are
decided by :func:`resolve_battle`, which :func:`attack_table` also uses, so the table a lesson shows is
computed by the code that plays.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from strategolab.errors import shown

RED = 0
BLUE = 1
PLAYER_NAMES = ("Red", "Blue")


def check_player(player: object, what: str = "player") -> int:
    """``RED`` or ``BLUE`` (any integer type), checked: a bool or float is refused by name."""
    if player not in (RED, BLUE) or isinstance(player, bool | float):
        raise ValueError(f"{what} must be 0 (Red) or 1 (Blue), not {player!r}")
    return int(player)  # type: ignore[call-overload]

IMMOBILE = 0
STEP = 1
RUN = 2
TWO_SQUARES = 3  # up to two squares a turn, straight or turning once (Ultimate Lightning's Captains)


class BattleResult(enum.IntEnum):
    """Outcome of one attacker striking one defender."""

    ATTACKER_WINS = 1
    DEFENDER_WINS = 2
    BOTH_DIE = 3

    def __str__(self) -> str:
        return {1: "attacker wins", 2: "defender wins", 3: "both die"}[self.value]


@dataclass(frozen=True)
class PieceType:
    """One kind of piece: its name, strength, how it moves and its special battle powers.

    ``strength`` decides ordinary battles (higher wins, equal both die).  ``beats_when_attacking``
    names the types this piece defeats when it is the attacker whatever their strength (the Spy and
    the Marshal, the Miner and the Bomb).  A Flag is captured by any attacker.
    """

    name: str
    symbol: str  # one character, used in setup strings and records
    strength: int
    mobility: int = STEP  # IMMOBILE, STEP, RUN or TWO_SQUARES
    modern: str = ""  # rank label in modern notation (10 = Marshal ... 2 = Scout)
    old: str = ""  # rank label in old notation (1 = Marshal ... 9 = Scout)
    beats_when_attacking: frozenset[str] = frozenset()
    is_flag: bool = False

    @property
    def movable(self) -> bool:
        return self.mobility != IMMOBILE

    def label(self, notation: str = "modern") -> str:
        """The rank label shown on the piece in the given notation (``"modern"`` or ``"old"``)."""
        if notation not in ("modern", "old"):
            raise ValueError(f"unknown notation {notation!r}: expected 'modern' or 'old'")
        return (self.modern if notation == "modern" else self.old) or self.symbol

    def __repr__(self) -> str:
        return f"<PieceType {self.name}>"


def resolve_battle(attacker: PieceType, defender: PieceType, ruleset: Ruleset | None = None) -> BattleResult:
    """Decide a battle: the one rule every battle in the kit goes through (``ruleset`` for its battle
    options: the attacker winning equal ranks, one-time Bombs)."""
    if defender.is_flag or defender.name in attacker.beats_when_attacking:
        return BattleResult.ATTACKER_WINS
    if ruleset is not None and ruleset.one_time_bombs and not defender.movable:
        return BattleResult.BOTH_DIE  # the Bomb blows up: it is removed, and so is the piece that hit it
    if attacker.strength > defender.strength:
        return BattleResult.ATTACKER_WINS
    if attacker.strength < defender.strength:
        return BattleResult.DEFENDER_WINS
    if ruleset is not None and ruleset.attacker_wins_ties:
        return BattleResult.ATTACKER_WINS
    return BattleResult.BOTH_DIE


def explain_battle(attacker: PieceType, defender: PieceType, ruleset: Ruleset | None = None) -> str:
    """Why a battle ends as the engine decides it, in one sentence (read from the piece types' fields)."""
    result = resolve_battle(attacker, defender, ruleset)
    if defender.is_flag:
        return f"any attacker captures the {defender.name}: the game is won"
    if defender.name in attacker.beats_when_attacking:
        return f"a {attacker.name} defeats a {defender.name} when the {attacker.name} attacks"
    if not defender.movable and result == BattleResult.BOTH_DIE:
        return f"a one-time {defender.name} blows up: it is removed with the piece that hit it"
    if not defender.movable and result == BattleResult.DEFENDER_WINS:
        return f"a {defender.name} defeats every attacker that cannot defuse it"
    if result == BattleResult.BOTH_DIE:
        return "equal ranks: both pieces are removed"
    if attacker.strength == defender.strength:
        return "equal ranks: the attacker wins"
    return "the higher rank wins"


def _pt(name: str, symbol: str, strength: int, mobility: int, modern: str, old: str,
        beats: Iterable[str] = (), is_flag: bool = False) -> PieceType:
    return PieceType(name, symbol, strength, mobility, modern, old, frozenset(beats), is_flag)


FLAG = _pt("Flag", "F", 0, IMMOBILE, "F", "F", is_flag=True)
BOMB = _pt("Bomb", "B", 11, IMMOBILE, "B", "B")
SPY = _pt("Spy", "S", 1, STEP, "S", "S", beats=("Marshal",))
SCOUT = _pt("Scout", "2", 2, RUN, "2", "9")
MINER = _pt("Miner", "3", 3, STEP, "3", "8", beats=("Bomb",))
SERGEANT = _pt("Sergeant", "4", 4, STEP, "4", "7")
LIEUTENANT = _pt("Lieutenant", "5", 5, STEP, "5", "6")
CAPTAIN = _pt("Captain", "6", 6, STEP, "6", "5")
MAJOR = _pt("Major", "7", 7, STEP, "7", "4")
COLONEL = _pt("Colonel", "8", 8, STEP, "8", "3")
GENERAL = _pt("General", "9", 9, STEP, "9", "2")
MARSHAL = _pt("Marshal", "X", 10, STEP, "10", "1")

# The pocket edition ("Hidden Flag Play"): numbered pieces 1-5, Mines, and a Flag; everything steps.
P_FLAG = FLAG
MINE = _pt("Mine", "M", 6, IMMOBILE, "M", "M")
RUNNER = _pt("Runner", "1", 1, STEP, "1", "1")
SAPPER = _pt("Sapper", "2", 2, STEP, "2", "2", beats=("Mine",))
GUARD = _pt("Guard", "3", 3, STEP, "3", "3")
P_CAPTAIN = _pt("Captain", "4", 4, STEP, "4", "4")
COMMANDER = _pt("Commander", "5", 5, STEP, "5", "5")

CLASSIC_ARMY: tuple[tuple[PieceType, int], ...] = (
    (MARSHAL, 1), (GENERAL, 1), (COLONEL, 2), (MAJOR, 3), (CAPTAIN, 4), (LIEUTENANT, 4),
    (SERGEANT, 4), (MINER, 5), (SCOUT, 8), (SPY, 1), (BOMB, 6), (FLAG, 1),
)
BARRAGE_ARMY: tuple[tuple[PieceType, int], ...] = (
    (MARSHAL, 1), (GENERAL, 1), (MINER, 1), (SCOUT, 2), (SPY, 1), (BOMB, 1), (FLAG, 1),
)
POCKET_ARMY: tuple[tuple[PieceType, int], ...] = (
    (COMMANDER, 1), (P_CAPTAIN, 1), (GUARD, 2), (SAPPER, 2), (RUNNER, 3), (MINE, 2), (P_FLAG, 1),
)


def _columns(width: int) -> str:
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:width]


# Characters that mean something in setup strings ("." "/"), position strings ("~" "'" "!") and records.
_RESERVED = "./~'!(){}[]$<>=\"\\"
MAX_NAME = 100  # characters in a rule set's name
_MAX_KINDS = 31  # a piece code keeps the kind in 5 bits, 0 meaning "unknown" (strategolab.state.KIND)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _freeze(r: Ruleset) -> None:
    """Accept a set or list where the rule set keeps a frozenset or tuple (rule sets are hashed values)."""
    if isinstance(r.lakes, set | list | tuple):
        object.__setattr__(r, "lakes", frozenset(r.lakes))
    if isinstance(r.army, list | tuple) and all(isinstance(e, list | tuple) for e in r.army):
        object.__setattr__(r, "army", tuple(tuple(e) for e in r.army))
    if isinstance(r.setup_rows, list | tuple) and all(isinstance(rows, list | tuple | set | range)
                                                        for rows in r.setup_rows):
        object.__setattr__(r, "setup_rows", tuple(tuple(sorted(rows)) if isinstance(rows, set) else tuple(rows)
                                                  for rows in r.setup_rows))


def _check_types(r: Ruleset) -> None:
    """Refuse fields of the wrong type by name, before the checks that compare and count them."""
    problems = []
    if not isinstance(r.name, str) or not r.name:
        problems.append(f"name must be a non-empty str, not {r.name!r}")
    for key in ("no_movable_piece_loses", "attacker_wins_ties", "one_time_bombs"):
        if not isinstance(getattr(r, key), bool):
            problems.append(f"{key} must be True or False, not {getattr(r, key)!r}")
    if not _is_int(r.rescues) or r.rescues < 0:
        problems.append(f"rescues must be a whole number, 0 or more, not {r.rescues!r}")
    for key in ("width", "height", "draw_warning"):
        if not _is_int(getattr(r, key)):
            problems.append(f"{key} must be a whole number, not {getattr(r, key)!r}")
    for key in ("two_square_limit", "draw_limit"):
        value = getattr(r, key)
        if value is not None and not _is_int(value):
            problems.append(f"{key} must be a whole number or None, not {value!r}")
    # Rule sets are hashed (the engine caches per rule set), so the collections must be frozen ones.
    if not isinstance(r.lakes, frozenset) or not all(isinstance(x, str) for x in r.lakes):
        problems.append(f"lakes must be a frozenset of square names like frozenset({{'C5', 'D5'}}), not {r.lakes!r}")
    if (not isinstance(r.army, tuple)
            or not all(isinstance(e, tuple) and len(e) == 2 and isinstance(e[0], PieceType) and _is_int(e[1])
                       for e in r.army)):
        problems.append(f"army must be a tuple of (PieceType, count) pairs, like ((FLAG, 1), (BOMB, 6)), "
                        f"not {r.army!r}")
    if (not isinstance(r.setup_rows, tuple)
            or not all(isinstance(rows, tuple) and all(_is_int(x) for x in rows) for rows in r.setup_rows)):
        problems.append(f"setup_rows must be one tuple of row numbers per player, like ((1, 2, 3, 4), (7, 8, 9, 10)), "
                        f"not {r.setup_rows!r}")
    if problems:
        raise TypeError(f"invalid ruleset {shown(r.name)}: " + "; ".join(problems))


@dataclass(frozen=True)
class Ruleset:
    """Everything the engine needs to know about one variant, as a value.

    Squares are named as on the rules pages: columns ``A``... left to right, rows ``1``... from Red's side.
    ``setup_rows`` gives, per player (Red, Blue), the rows (1-based) that player deploys on.
    """

    name: str
    width: int = 10
    height: int = 10
    lakes: frozenset[str] = frozenset({"C5", "D5", "C6", "D6", "G5", "H5", "G6", "H6"})
    army: tuple[tuple[PieceType, int], ...] = CLASSIC_ARMY
    setup_rows: tuple[tuple[int, ...], tuple[int, ...]] = ((1, 2, 3, 4), (7, 8, 9, 10))
    scout_attacks_after_run: bool = True  # False: a piece that moves several squares may not attack
    two_square_limit: int | None = 3  # moves in a row between the same squares; None: no rule
    two_square_scout_clause: bool = False  # ISF: a Scout's range counts, not just its two end squares
    chase_rule: str | None = "square"  # "square" (classic), "position" (ISF more-squares), or None
    draw_limit: int | None = 200  # moves in a row without an attack that draw the game
    draw_warning: int = 20  # warn when this many quiet moves remain
    no_movable_piece_loses: bool = True  # a side left with no movable piece loses at once (else: when it must move)
    attacker_wins_ties: bool = False  # equal ranks: the attacker wins (Ultimate Lightning), not both removed
    one_time_bombs: bool = False  # a Bomb hit by any piece but a Miner is removed together with that piece
    rescues: int = 0  # per game: moves onto the enemy's back row that may bring a captured piece back
    first_player: int = RED
    notation: str = "modern"
    description: str = ""
    piece_types: tuple[PieceType, ...] = field(init=False, repr=False, compare=False)
    symbols: dict[str, str] = field(init=False, repr=False, compare=False)  # piece name -> symbol here

    def __post_init__(self) -> None:
        _freeze(self)
        _check_types(self)
        problems = []
        if not self.name.isprintable() or len(self.name) > MAX_NAME:  # records name it in a one-line header
            problems.append(f"name must be one line of at most {MAX_NAME} printable characters (a record's "
                            f"[Ruleset] header holds it), not {shown(self.name)}")
        if not (2 <= self.width <= 16 and 2 <= self.height <= 99):
            problems.append(f"board {self.width}x{self.height} is outside 2x2..16x99")
        cols = _columns(self.width)
        for lake in sorted(self.lakes):
            col, row = lake[:1], lake[1:]
            if not col or col not in cols or not (row.isascii() and row.isdigit()) or not 1 <= int(row) <= self.height:
                problems.append(f"lake {lake!r} is not a square of a {self.width}x{self.height} board")
        names = [p.name for p, _ in self.army]
        # In setup and position strings a piece is written with its one-character rank label in the rule
        # set's notation (old: 1 = Marshal ... 9 = Scout), or its own symbol where the label is longer ("10").
        symbols = {p.name: (lbl if len(lbl := p.label(self.notation)) == 1 else p.symbol)
                   for p, _ in self.army} if self.notation in ("modern", "old") else {}
        if len(set(names)) != len(names) or len(set(symbols.values())) != len(symbols):
            problems.append("army piece types must have distinct names and symbols")
        for name, sym in symbols.items():
            if len(sym) != 1 or sym.isspace() or sym in _RESERVED:
                problems.append(f"the {name}'s symbol {sym!r} must be one character, not a space or one of "
                                f"{_RESERVED} (they mean something in setup, position and record text)")
        if len(names) > _MAX_KINDS:
            problems.append(f"army has {len(names)} piece types, at most {_MAX_KINDS} are possible")
        if any(n < 0 for _, n in self.army):
            problems.append("army counts must not be negative")
        if sum(1 for p, n in self.army if p.is_flag and n > 0) != 1:
            problems.append("army must contain exactly one Flag type")
        for player, rows in enumerate(self.setup_rows):
            for r in rows:
                if not 1 <= r <= self.height:
                    problems.append(f"{PLAYER_NAMES[player]} setup row {r} is off the board")
        if len(self.setup_rows) != 2:
            problems.append("setup_rows needs one tuple of rows per player")
        elif set(self.setup_rows[0]) & set(self.setup_rows[1]):
            problems.append("the two setup zones overlap")
        else:
            shapes = []
            for player, rows in enumerate(self.setup_rows):
                free = sum(1 for r in rows for c in cols if f"{c}{r}" not in self.lakes)
                if free < self.army_size:
                    problems.append(
                        f"{PLAYER_NAMES[player]}'s setup rows hold {free} squares, the army has {self.army_size}")
                # Land squares per row, front row first: one setup string must fit both zones.
                front_first = sorted(set(rows), reverse=self.sits_at_bottom(player))
                shapes.append([sum(1 for c in cols if f"{c}{r}" not in self.lakes) for r in front_first])
            if shapes[0] != shapes[1]:
                problems.append(f"the setup zones differ in shape (land squares per row, front row first: Red "
                                f"{shapes[0]}, Blue {shapes[1]}); a setup must fit either side")
        if self.two_square_limit is not None and self.two_square_limit < 1:
            problems.append("two_square_limit must be at least 1 (or None)")
        if self.chase_rule not in (None, "square", "position"):
            problems.append(f"chase_rule {self.chase_rule!r}: expected 'square', 'position' or None")
        if self.draw_limit is not None and self.draw_limit < 1:
            problems.append("draw_limit must be at least 1 (or None)")
        if self.first_player not in (RED, BLUE):
            problems.append("first_player must be RED (0) or BLUE (1)")
        if self.notation not in ("modern", "old"):
            problems.append(f"notation {self.notation!r}: expected 'modern' or 'old'")
        if self.draw_warning < 0:
            problems.append(f"draw_warning must not be negative, not {self.draw_warning}")
        if problems:
            raise ValueError(f"invalid ruleset {shown(self.name)}: " + "; ".join(problems))
        object.__setattr__(self, "piece_types", tuple(p for p, _ in self.army))
        object.__setattr__(self, "symbols", symbols)

    def sits_at_bottom(self, player: int) -> bool:
        """Does ``player`` deploy nearer row 1 than the opponent (and so read setups from the bottom side)?"""
        return min(self.setup_rows[player], default=0) < min(self.setup_rows[1 - player], default=0)

    @property
    def army_size(self) -> int:
        return sum(n for _, n in self.army)

    @property
    def columns(self) -> str:
        return _columns(self.width)

    def piece_type(self, key: str) -> PieceType:
        """Look a piece type up by name (``"Marshal"``), symbol in this rule set (``"X"``; ``"1"`` in the
        old notation) or rank label (``"10"``)."""
        if not isinstance(key, str):
            raise KeyError(f"ruleset {self.name!r} has no piece {key!r}: a piece is named by a str, like 'Marshal' "
                           f"or {self.symbols[self.piece_types[0].name]!r}")
        for p in self.piece_types:
            if key == self.symbols[p.name] or key.lower() == p.name.lower():
                return p
        for p in self.piece_types:
            if key == p.label(self.notation):
                return p
        known = ", ".join(f"{self.symbols[p.name]}={p.name}" for p in self.piece_types)
        raise KeyError(f"ruleset {self.name!r} has no piece {key!r} (pieces: {known})")

    def symbol(self, piece_type: PieceType) -> str:
        """The one character that stands for ``piece_type`` in this rule set's setup and position strings."""
        return self.symbols[piece_type.name]

    def count(self, piece_type: PieceType) -> int:
        for p, n in self.army:
            if p == piece_type:
                return n
        return 0

    def replace(self, **changes: object) -> Ruleset:
        """A copy with some fields changed (a custom rule set), validated like any other."""
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"<Ruleset {self.name} {self.width}x{self.height}, {self.army_size} pieces>"


CLASSIC = Ruleset(
    "classic",
    description="Classic Stratego (Rank & Flag rules page): two-square rule 3, chasing rule, 200-move draw.",
)
ISF = Ruleset(
    "isf",
    two_square_scout_clause=True,
    chase_rule="position",
    description="ISF tournament rules: two-square rule 3 with the Scout clause, more-squares rule.",
)
ORIGINAL_1961 = Ruleset(
    "original-1961",
    scout_attacks_after_run=False,
    two_square_limit=None,
    chase_rule=None,
    draw_limit=None,
    no_movable_piece_loses=False,
    notation="old",
    description="The 1961 Milton Bradley edition: old numbering, a Scout may not run and strike, "
                "no repetition rules, no draw rule; a side without a movable piece loses only when it must move.",
)
BARRAGE = Ruleset(
    "barrage",
    army=BARRAGE_ARMY,
    description="Barrage (ISF small variant): 8 pieces each, otherwise as classic.",
)
POCKET = Ruleset(
    "pocket",
    width=6,
    height=6,
    lakes=frozenset(),
    army=POCKET_ARMY,
    setup_rows=((1, 2), (5, 6)),
    two_square_limit=None,
    chase_rule=None,
    draw_limit=80,
    notation="modern",
    description="Pocket edition (Hidden Flag Play): 6x6, 12 pieces, every piece steps one square, "
                "draw after 80 moves without combat.",
)

RULESETS: dict[str, Ruleset] = {r.name: r for r in (CLASSIC, ISF, ORIGINAL_1961, BARRAGE, POCKET)}

# The rules the Gravon archive was played under, established from the archive itself (docs/rules.md): no
# game moves a piece back and forth more than 5 times in a row (the classic limit of 3 is broken in 11
# games), no game repeats a position during a chase (the ISF more-squares rule), while the classic square
# chasing rule would refuse a move in over half of the games; and there is no quiet-move draw (45 games go
# on after 200 moves without an attack, one for 722).  Gravon's small variants follow the same rules.
GRAVON_CLASSIC = CLASSIC.replace(
    name="gravon-classic", two_square_limit=5, chase_rule="position", draw_limit=None,
    description="Classic Stratego as played on Gravon: two-square rule 5, ISF more-squares rule, "
                "no quiet-move draw.")
GRAVON_BARRAGE = GRAVON_CLASSIC.replace(
    name="gravon-barrage", army=BARRAGE_ARMY,
    description="Barrage as played on Gravon: two-square rule 5, ISF more-squares rule, no quiet-move draw.")
DUELL_ARMY: tuple[tuple[PieceType, int], ...] = (
    (MARSHAL, 1), (GENERAL, 1), (MINER, 2), (SCOUT, 2), (SPY, 1), (BOMB, 2), (FLAG, 1),
)
GRAVON_DUELL = GRAVON_CLASSIC.replace(
    name="gravon-duell", army=DUELL_ARMY,
    description="Gravon's Duell: 10 pieces each on the classic board, rules as gravon-classic.")
GRAVON_CLASSICFREE = GRAVON_CLASSIC.replace(
    name="gravon-classicfree",
    description="Gravon's Classic Free: any pieces of the classic army placed anywhere, rules as gravon-classic; "
                "games start from a position, not from two setups.")

# The rules of the UCC 2012 Stratego competition's manager (braathwaate/strategoevaluator, manager_manual.txt):
# the classic board, army and battles, Red moves first, and nothing else: no two-square rule, no chasing rule,
# no quiet-move draw (the manager only stops a game as a draw after 5000 turns of both sides).  The kit plays
# external bots by it (strategolab.engines) and its own ``ucc-bot`` keeps the game it is told by it.
UCC = CLASSIC.replace(
    name="ucc", two_square_limit=None, chase_rule=None, draw_limit=None,
    description="The UCC 2012 competition manager's rules: classic pieces and battles, Red first, no two-square, "
                "chasing or quiet-move rule.")

# Rule sets that records may name beside RULESETS (get_ruleset and the notation's [Ruleset] header find
# them) but that are not offered as variants to play: the Gravon ones, and any a program registers.
EXTRA_RULESETS: dict[str, Ruleset] = {
    r.name: r for r in (GRAVON_CLASSIC, GRAVON_BARRAGE, GRAVON_DUELL, GRAVON_CLASSICFREE, UCC)}


def register_ruleset(ruleset: Ruleset) -> Ruleset:
    """Make a rule set known by its name, so records that name it can be read; returns it.

    Registering the same value again is harmless; a different rule set under a known name is refused,
    because records naming it would silently change meaning.
    """
    known = RULESETS.get(ruleset.name) or EXTRA_RULESETS.get(ruleset.name)
    if known is not None and known != ruleset:
        raise ValueError(f"a different rule set is already known as {ruleset.name!r}")
    EXTRA_RULESETS[ruleset.name] = ruleset
    return ruleset


def get_ruleset(ruleset: str | Ruleset | None = None) -> Ruleset:
    """Return a named rule set (or pass a :class:`Ruleset` through); ``None`` means ``classic``."""
    if ruleset is None:
        return CLASSIC
    if isinstance(ruleset, Ruleset):
        return ruleset
    if not isinstance(ruleset, str):
        raise TypeError(f"a rule set is a Ruleset or its name (one of {', '.join([*RULESETS, *EXTRA_RULESETS])}), "
                        f"not {type(ruleset).__name__} {ruleset!r}")
    found = RULESETS.get(ruleset) or EXTRA_RULESETS.get(ruleset)
    if found is None:
        raise ValueError(f"unknown ruleset {ruleset!r}; known: {', '.join([*RULESETS, *EXTRA_RULESETS])}")
    return found


# Ultimate Lightning as played on Gravon: 20 pieces, placed anywhere on the four home rows (docs/gravon.md
# says how each rule was established from the archive).
UL_CAPTAIN = _pt("Captain", "6", 6, TWO_SQUARES, "6", "5")
UL_SCOUT = _pt("Scout", "2", 2, RUN, "2", "9", beats=("Bomb",))
UL_MINER = _pt("Miner", "3", 3, STEP, "3", "8")
ULTIMATE_LIGHTNING_ARMY: tuple[tuple[PieceType, int], ...] = (
    (MARSHAL, 1), (GENERAL, 1), (COLONEL, 1), (MAJOR, 1), (UL_CAPTAIN, 2), (LIEUTENANT, 2), (SERGEANT, 2),
    (UL_MINER, 2), (UL_SCOUT, 4), (SPY, 1), (BOMB, 2), (FLAG, 1),
)
GRAVON_ULTIMATE_LIGHTNING = GRAVON_CLASSIC.replace(
    name="gravon-ultimate-lightning", army=ULTIMATE_LIGHTNING_ARMY, attacker_wins_ties=True, one_time_bombs=True,
    rescues=2,
    description="Gravon's Ultimate Lightning: 20 pieces; equal ranks won by the attacker; a Bomb hit by "
                "anything but a Miner is removed with the piece that hit it; Captains move up to two squares, "
                "also round a corner; a piece (not a Scout) that reaches the enemy's back row may rescue a "
                "captured piece, twice a game; repetition rules as gravon-classic.")
EXTRA_RULESETS[GRAVON_ULTIMATE_LIGHTNING.name] = GRAVON_ULTIMATE_LIGHTNING


class AttackTable:
    """Every attacker/defender pair of a rule set and its result, computed by :func:`resolve_battle`."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.attackers = tuple(p for p in ruleset.piece_types if p.movable)
        self.defenders = ruleset.piece_types
        self._results = {(a.name, d.name): resolve_battle(a, d, ruleset) for a in self.attackers
                         for d in self.defenders}

    def __getitem__(self, pair: tuple[PieceType | str, PieceType | str]) -> BattleResult:
        a, d = (p.name if isinstance(p, PieceType) else self.ruleset.piece_type(p).name for p in pair)
        try:
            return self._results[a, d]
        except KeyError:
            raise KeyError(f"{a} cannot attack in {self.ruleset.name}") from None

    def __iter__(self) -> Iterator[tuple[PieceType, PieceType, BattleResult]]:
        for a in self.attackers:
            for d in self.defenders:
                yield a, d, self._results[a.name, d.name]

    def __len__(self) -> int:
        return len(self._results)

    def rows(self, notation: str | None = None) -> list[list[str]]:
        """The table as text cells: a header row of defenders, then one row per attacker.

        Cells read ``W`` (attacker wins), ``L`` (attacker loses) or ``=`` (both die).
        """
        notation = notation or self.ruleset.notation
        mark = {BattleResult.ATTACKER_WINS: "W", BattleResult.DEFENDER_WINS: "L", BattleResult.BOTH_DIE: "="}
        out = [["att \\ def", *(d.label(notation) for d in self.defenders)]]
        for a in self.attackers:
            out.append([a.label(notation), *(mark[self._results[a.name, d.name]] for d in self.defenders)])
        return out

    def __str__(self) -> str:
        rows = self.rows()
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        return "\n".join(" ".join(c.rjust(w) for c, w in zip(r, widths, strict=True)) for r in rows)

    def _repr_html_(self) -> str:
        rows = self.rows()
        colour = {"W": "#cde8c8", "L": "#f3c9c4", "=": "#e4e4e4"}
        head = "".join(f"<th>{c}</th>" for c in rows[0])
        body = "".join(
            "<tr><th>" + r[0] + "</th>"
            + "".join(f'<td style="background:{colour[c]};text-align:center">{c}</td>' for c in r[1:])
            + "</tr>"
            for r in rows[1:]
        )
        return (f"<table><caption>{self.ruleset.name}: attacker (rows) against defender (columns); "
                f"W attacker wins, L attacker loses, = both die</caption><tr>{head}</tr>{body}</table>")

    def __repr__(self) -> str:
        return f"<AttackTable {self.ruleset.name}: {len(self.attackers)}x{len(self.defenders)}>"


def attack_table(ruleset: str | Ruleset | None = None) -> AttackTable:
    """The full attack-results table of a rule set, computed by the engine's battle code."""
    return AttackTable(get_ruleset(ruleset))
