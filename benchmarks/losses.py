"""How the games of a tournament were won and lost, battle by battle: read the records that
``benchmarks/tournament.py --records FILE.sgn`` kept.

    python benchmarks/losses.py games.sgn [more.sgn ...] [--player hard]

For the kit player named ``--player`` (the name in the records' Red/Blue headers; default: the level that
played most games), prints:

- the results and how the games ended, as the tournament does;
- per piece type, how many the player lost a game, in its wins and in its losses, and how: attacking or
  attacked, and whether the piece was known to the enemy (revealed) or hidden, unmoved or moved at the time;
- per enemy piece type, how many of the player's pieces it took a game (a Bomb that stays counts, a trade does
  not), in wins and in losses, and how often the player knew what it was when it struck;
- its attacks on enemy pieces it had not seen, per attacking type and whether the target had moved: how many
  a game, the share that lost the attacker, the share that hit a Bomb, and what they gained on average in
  material (each type at its value at the start of a game, ``strategolab.ai.piece_values``; the Flag counts
  nothing, a hit on it shows in the endings): the gambles a player's beliefs choose, and what they brought
  against this opponent (hard's Colonels and Generals lose material on medium's unmoved pieces, which hide
  Bombs in front, and win it on the 2012 champion's, which do not);
- W-D-L by where each side's setup came from: a named plan of the kit's setup library (mirrored or not) or
  one drawn from real players' statistics ("generated"), for the player's own setups and the enemy's (hard
  wins 38 % of its decided isf games against medium's twin-fortress, with Bombs in front of both lakes, which
  real players' setups, and so hard's priors, seldom have; 82 % against medium's generated setups);
- W-D-L by the square the player's Flag stood on at the start, seen from its own side (Blue's setup turned
  round, so that Red's G1 and Blue's D10 are both "G1"), with how many of those Flags were taken and by what:
  the enemy piece, and what of the player's stood at the start on the square it struck from (hard's drawn
  setups put the Flag on D1 or G1 in four games of ten; most Flags hard lost to the 2012 bots went to a Miner
  through a Bomb beside them, there on the side towards the middle);
- the moments that decide most games (the player's Spy took the enemy Marshal, the enemy Spy took the
  player's Marshal, the player's General or Colonel lost to a piece it had not seen, the player's Spy lost, and
  lost in the enemy's half),
  each with how many games it happened in and the share of those the player won, and its median ply.

The throwaway scripts that earlier sessions wrote for this found the patterns the computer opponent was then
changed for (the hunted Marshal, the race to the Flag); this one keeps that reading of the games in one place.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tournament import READ_ERRORS, read_records  # this folder's sibling script

from strategolab.ai import LEVELS, piece_values
from strategolab.board import square as board_square
from strategolab.board import square_column, square_name, square_row
from strategolab.notation import _setups_of  # the two setups a fresh start position was made from
from strategolab.records import Game
from strategolab.rules import BattleResult
from strategolab.setup_library import library, mirrored
from strategolab.state import Battle, State


@dataclass
class Loss:
    """One of the player's pieces removed in a battle."""

    ply: int
    kind: str
    role: str  # "attacking" or "attacked"
    state: str  # "known" (revealed before the battle), "moved" or "unmoved" (hidden)
    by: str  # the enemy piece's type
    by_known: bool  # the enemy piece was revealed before the battle
    traded: bool = False  # the enemy piece was removed too (equal ranks)
    far: bool = False  # lost in the enemy's half of the board


@dataclass
class Gamble:
    """One of the player's attacks on an enemy piece it had not seen."""

    kind: str  # the attacker's type
    strength: int  # ... and its strength, to list the strongest first
    unmoved: bool  # the target had not moved
    lost: bool  # the attacker was removed
    bomb: bool  # the target was a Bomb (or another immobile piece but the Flag)
    gain: float  # material won minus material lost, at the start of a game's values


@dataclass
class GameReport:
    """One game from the player's side."""

    outcome: str  # "win", "draw", "loss"
    termination: str
    plies: int
    losses: list[Loss] = field(default_factory=list)
    taken: list[tuple[int, str, str]] = field(default_factory=list)  # (ply, enemy type lost, our type that won)
    gambles: list[Gamble] = field(default_factory=list)
    setups: tuple[str, str] = ("-", "-")  # where the player's and the enemy's setups came from (plan_of)
    flag: str = "-"  # the player's Flag's square at the start, from its own side (flag_square); "-" if none
    flag_taken: tuple[str, str] | None = None  # (the enemy type that took the Flag, what stood at the start on
    # the square it struck from: one of the player's types, or "nothing")


def side_of(game: Game, player: str) -> int | None:
    """The player's colour in ``game`` (0 Red, 1 Blue), or None if it did not play."""
    names = (game.headers.get("Red"), game.headers.get("Blue"))
    return names.index(player) if player in names else None


def plan_of(state: State, side: int) -> str:
    """Where ``side``'s setup in the start position ``state`` came from: the name of a plan of the kit's setup
    library (``strategolab.setup_library.library``, " (mirrored)" for its mirror image), "generated" for any
    other setup (the kit's players draw those from real players' statistics), "-" if it is no fresh setup."""
    setups = _setups_of(state)
    if setups is None:
        return "-"
    setup = str(setups[side])
    for name, plan in library(state.ruleset).items():
        if str(plan) == setup:
            return name
        twin = mirrored(plan)
        if twin is not None and str(twin) == setup:
            return f"{name} (mirrored)"
    return "generated"


def flag_square(state: State, side: int) -> str:
    """The square of ``side``'s Flag in ``state``, named as if ``side`` were Red (Blue's board turned round: its
    D10 is Red's G1), so both colours' setups count alike; "-" if it has no Flag."""
    flags = [sq for sq in state.squares(side) if state.piece_at(sq).type.is_flag]  # type: ignore[union-attr]
    if not flags:
        return "-"
    sq, rs = flags[0], state.ruleset
    if side:
        sq = board_square(rs.width - 1 - square_column(sq), rs.height - 1 - square_row(sq))
    return square_name(sq)


def report(game: Game, side: int) -> GameReport:
    """Replay ``game`` and collect what ``side`` lost and took."""
    result = game.headers.get("Result", "*")
    winner = {"1-0": 0, "0-1": 1}.get(result)
    outcome = "draw" if winner is None else "win" if winner == side else "loss"
    state: State = game.state()
    out = GameReport(outcome, game.headers.get("Termination", "unfinished"), 0,
                     setups=(plan_of(state, side), plan_of(state, 1 - side)), flag=flag_square(state, side))
    start = {sq: state.piece_at(sq).type.name for sq in state.squares(side)}  # type: ignore[union-attr]
    rs = game.ruleset
    bottom, half = rs.sits_at_bottom(side), rs.height / 2
    far = {sq for sq in state.geometry.land if (square_row(sq) < half) != bottom}  # the enemy's half
    army = [n for _, n in rs.army]
    values = dict(zip((k.name for k in rs.piece_types), piece_values(rs, army, army), strict=True))
    for ply, move in enumerate(game.mainline_moves()):
        f, t = move
        seen = {f: state.is_revealed(f), t: state.is_revealed(t)}
        moved = {f: state.has_moved(f), t: state.has_moved(t)}
        battle = state.push(move)
        out.plies = ply + 1
        if battle is not None:
            _battle(out, ply, battle, side, f, t, seen, moved, far, values)
            if battle.defender.owner == side and battle.defender.type.is_flag:
                out.flag_taken = (battle.attacker.type.name, start.get(f, "nothing"))
    return out


def _battle(out: GameReport, ply: int, battle: Battle, side: int, f: int, t: int, seen: dict[int, bool],
            moved: dict[int, bool], far: set[int], values: dict[str, float]) -> None:
    """Note what one battle removed (the player's pieces lost, the enemy's pieces its own took) and, for the
    player's attack on a piece it had not seen, what that gamble brought at the start's ``values``."""
    attacker_removed = battle.result != BattleResult.ATTACKER_WINS
    defender_removed = battle.result != BattleResult.DEFENDER_WINS
    if battle.attacker.owner == side and not seen[t]:
        attacker, defender = battle.attacker.type, battle.defender.type
        gain = (values[defender.name] if defender_removed else 0.0) - (values[attacker.name] if attacker_removed
                                                                       else 0.0)
        out.gambles.append(Gamble(attacker.name, attacker.strength, not moved[t], attacker_removed,
                                  not defender.movable and not defender.is_flag, gain))
    pieces = ((battle.attacker, f, attacker_removed, battle.defender, t, defender_removed),
              (battle.defender, t, defender_removed, battle.attacker, f, attacker_removed))
    for piece, square, removed, other, other_square, other_removed in pieces:
        if not removed:
            continue
        if piece.owner == side:
            state = "known" if seen[square] else "moved" if moved[square] else "unmoved"
            role = "attacking" if square == f else "attacked"
            out.losses.append(Loss(ply, piece.type.name, role, state, other.type.name, seen[other_square],
                                   other_removed, t in far))
        elif not other_removed:  # an enemy piece our piece took
            out.taken.append((ply, piece.type.name, other.type.name))

Finder = Callable[[GameReport], int | None]  # the first ply of a moment in a game, or None


def _moments() -> list[tuple[str, Finder]]:
    """The moments that decide most games, each with how to find it in a game."""
    def ours(kind: str, by: str | None = None, hidden_by: bool = False) -> Finder:
        def find(g: GameReport) -> int | None:
            return next((x.ply for x in g.losses if x.kind == kind and (by is None or x.by == by)
                         and (not hidden_by or (not x.by_known and x.role == "attacked"))), None)
        return find

    def far(kind: str) -> Finder:
        def find(g: GameReport) -> int | None:
            return next((x.ply for x in g.losses if x.kind == kind and x.far), None)
        return find

    def theirs(kind: str, by: str) -> Finder:
        def find(g: GameReport) -> int | None:
            return next((p for p, k, b in g.taken if k == kind and b == by), None)
        return find

    return [
        ("its Spy takes the enemy Marshal", theirs("Marshal", "Spy")),
        ("the enemy Spy takes its Marshal", ours("Marshal", "Spy")),
        ("its Marshal lost", ours("Marshal")),
        ("its General taken by a piece it had not seen", ours("General", hidden_by=True)),
        ("its Colonel taken by a piece it had not seen", ours("Colonel", hidden_by=True)),
        ("its Spy lost", ours("Spy")),
        ("its Spy lost in the enemy's half", far("Spy")),
        ("its Flag taken", ours("Flag")),
    ]


def _per_game(c: Counter, n: int, w: int, lo: int) -> list[float]:
    """Counts by the game's outcome as a rate per game: over all ``n`` games, the ``w`` won and the ``lo`` lost."""
    return [sum(c.values()) / n, c["win"] / w if w else 0.0, c["loss"] / lo if lo else 0.0]


def print_report(games: list[GameReport], player: str) -> None:
    """Print the tables described in the module's docstring."""
    n = len(games)
    by_outcome = Counter(g.outcome for g in games)
    w, d, lo = by_outcome["win"], by_outcome["draw"], by_outcome["loss"]
    rate = f"{w / (w + lo):.1%}" if w + lo else "-"
    print(f"{player}: {n} games, {w}-{d}-{lo} (W-D-L), {rate} of decided games won")
    endings = Counter((g.outcome, g.termination) for g in games)
    print("endings: " + ", ".join(f"{o} {t} {c}" for (o, t), c in sorted(endings.items())))
    print()
    print(f"pieces lost per game       {'all':>6} {'wins':>6} {'losses':>7}   how (per game, all games)")
    kinds: dict[str, Counter] = defaultdict(Counter)  # type -> losses by the game's outcome
    how: dict[str, Counter] = defaultdict(Counter)  # type -> losses by role and state
    for g in games:
        for x in g.losses:
            kinds[x.kind][g.outcome] += 1
            how[x.kind][f"{x.role} {x.state}"] += 1
    for kind in sorted(kinds, key=lambda k: -sum(kinds[k].values())):
        c = kinds[kind]
        per = _per_game(c, n, w, lo)
        ways = ", ".join(f"{k} {v / n:.2f}" for k, v in how[kind].most_common(3))
        print(f"{kind:<26} {per[0]:>6.2f} {per[1]:>6.2f} {per[2]:>7.2f}   {ways}")
    print()
    # Which enemy pieces do the taking (survivors of the battle: a Bomb that stays counts, a trade does not):
    # the raids that lose games show here (the 2012 champion's known Marshal took 7 pieces a lost game).
    print(f"taken by, per game         {'all':>6} {'wins':>6} {'losses':>7}   known to it when it struck (all games)")
    takers: dict[str, Counter] = defaultdict(Counter)  # enemy type -> our pieces it took, by the game's outcome
    known: Counter = Counter()
    for g in games:
        for x in g.losses:
            if not x.traded:
                takers[x.by][g.outcome] += 1
                known[x.by] += x.by_known
    for by in sorted(takers, key=lambda k: -sum(takers[k].values())):
        c = takers[by]
        per = _per_game(c, n, w, lo)
        print(f"{by:<26} {per[0]:>6.2f} {per[1]:>6.2f} {per[2]:>7.2f}   {known[by] / sum(c.values()):.0%}")
    print()
    _print_gambles(games, n)
    print()
    _print_setups(games)
    print()
    _print_flags(games)
    print()
    print(f"{'moment':<46} {'games':>6} {'won':>6} {'median ply':>11}")
    for label, find in _moments():
        plies = [(g, p) for g in games if (p := find(g)) is not None]
        if not plies:
            print(f"{label:<46} {0:>6}")
            continue
        won = sum(g.outcome == "win" for g, _ in plies)
        print(f"{label:<46} {len(plies):>6} {won / len(plies):>6.0%} {statistics.median(p for _, p in plies):>11.0f}")


def _print_gambles(games: list[GameReport], n: int) -> None:
    """The player's attacks on unseen pieces, per attacking type (strongest first) and target state."""
    print(f"attacks on unseen pieces   {'a game':>6} {'lost':>6} {'Bomb':>6} {'gain':>7}   (gain: material won - lost, "
          f"each, at the start's values)")
    rows: dict[tuple[int, str, bool], list[Gamble]] = defaultdict(list)
    for g in games:
        for x in g.gambles:
            rows[(x.strength, x.kind, x.unmoved)].append(x)
    for (_, kind, unmoved), xs in sorted(rows.items(), key=lambda r: (-r[0][0], r[0][1], not r[0][2])):
        lost = sum(x.lost for x in xs) / len(xs)
        bomb = sum(x.bomb for x in xs) / len(xs)
        gain = sum(x.gain for x in xs) / len(xs)
        label = f"{kind}, on {'unmoved' if unmoved else 'moved'}"
        print(f"{label:<26} {len(xs) / n:>6.2f} {lost:>6.0%} {bomb:>6.0%} {gain:>+7.1f}")


def _print_setups(games: list[GameReport]) -> None:
    """W-D-L by where each side's setup came from (a plan, mirrored or not, counts under its name)."""
    print(f"{'results by setup':<40} {'W-D-L':>11} {'won':>6}   (won: share of decided games)")
    for i, whose in ((0, "its own"), (1, "the enemy's")):
        rows: dict[str, Counter] = defaultdict(Counter)
        for g in games:
            rows[g.setups[i].removesuffix(" (mirrored)")][g.outcome] += 1
        for name in sorted(rows, key=lambda k: (k == "generated", k)):
            print(f"{whose + ': ' + name:<40} {_record(rows[name])}")


def _record(outcomes: Counter) -> str:
    """W-D-L and the share of decided games won, in the columns of the per-setup and per-square tables."""
    w, d, lo = outcomes["win"], outcomes["draw"], outcomes["loss"]
    won = f"{w / (w + lo):.0%}" if w + lo else "-"
    return f"{f'{w}-{d}-{lo}':>11} {won:>6}"


def _print_flags(games: list[GameReport]) -> None:
    """W-D-L by the square the player's Flag stood on (the commonest first), and how the Flags there were taken."""
    print(f"{'results by its Flag square':<40} {'W-D-L':>11} {'won':>6}   Flag taken by (from what stood there)")
    rows: dict[str, list[GameReport]] = defaultdict(list)
    for g in games:
        rows[g.flag].append(g)
    for name, gs in sorted(rows.items(), key=lambda r: (-len(r[1]), r[0])):
        taken = Counter(g.flag_taken for g in gs if g.flag_taken is not None)
        how = ", ".join(f"{by} {n} ({where})" for (by, where), n in sorted(taken.items(), key=lambda r: (-r[1], r[0])))
        print(f"{'its Flag on ' + name:<40} {_record(Counter(g.outcome for g in gs))}   {how or '-'}")


def read(paths: Iterable[Path]) -> list[Game]:
    """Every game of every file (plain or gzipped, ``.sgn.gz``), in order; a bad file exits naming it."""
    games: list[Game] = []
    for path in paths:
        try:
            games += read_records(path)
        except READ_ERRORS as exc:
            raise SystemExit(f"{path}: {exc}") from None
    return games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("records", nargs="+", type=Path,
                        help="records written by tournament.py --records (plain or gzipped)")
    parser.add_argument("--player", default=None, help="whose games to read (default: the kit level that played most)")
    args = parser.parse_args(argv)
    games = read(args.records)
    names = Counter(n for g in games for n in (g.headers.get("Red"), g.headers.get("Blue")) if n)
    if not names:
        raise SystemExit("no game names its players (Red/Blue headers): nothing to read")
    # The kit level that played most games (its opponents, bots, play as many when all games are one pairing).
    levels = Counter({n: k for n, k in names.items() if n in LEVELS}) or names
    player = args.player or levels.most_common(1)[0][0]
    mine = [(g, s) for g in games if (s := side_of(g, player)) is not None]
    if not mine:
        raise SystemExit(f"{player!r} played none of these games; players: {', '.join(sorted(names))}")
    print_report([report(g, s) for g, s in mine], player)


if __name__ == "__main__":
    main()
