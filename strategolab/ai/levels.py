"""How hard the computer thinks: the :class:`Level` value and the named :data:`LEVELS`."""

from __future__ import annotations

from dataclasses import dataclass


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
    # plies searched instead of ``depth`` in a rule set whose army has at most 10 movable pieces (barrage,
    # pocket), where a ply more costs little (deeper only with at most 30 legal moves); None: ``depth``
    small_army_depth: int | None = None
    small_army_noise: float | None = None  # ``noise`` in such a rule set; None: ``noise``
    # plies searched at least in such a rule set while an enemy piece that may move is within ALARM_MOVES steps
    # of taking our Flag (each counted as if it could take our Bombs on the way); None: no change
    alarm_depth: int | None = None
    hunt: bool = False  # draw a piece that safely beats a known enemy piece raiding our half towards it (Model.HUNT)
    # in a full army the Spy is drawn only to a Marshal near it, not across the open board (Model.FRAGILE_DECAY)
    lurk: bool = False
    # in a full army (not barrage or pocket) the best this many moves are searched again one ply deeper, in the
    # first ``verify_worlds`` worlds, and chosen among by that: the third ply sees our answer to the enemy's
    # reply; 0: not at all
    verify: int = 0
    verify_worlds: int = 8
    # while a race to our Flag is on, a move counts what it leaves of the race at the root too, not only at
    # the search's leaves (the race term of Model, so only where the level guards)
    race_root: bool = False
    # the race to our Flag also counts an intruder with two ways in that share their first steps: two defenders
    # must be near before it shows which way it takes, and one move a turn brings only one (Model._forks)
    race_forks: bool = False
    # a known enemy piece's way to our Flag goes through our pieces it beats, taking them on its way, not round
    # them as if they were walls (an unseen piece's still goes round: Model._passes)
    race_through: bool = False
    # knows the plans of the setup library (and their mirror images) as setups an enemy may use: a battle that
    # shows what a plan has where it has it makes that plan likelier (ComputerPlayer._prior, BOOK_FRESH)
    book: bool = False
    # an enemy piece gives away by being seen a share of its rank value, not of the board's top it holds: at a
    # share of its top too, an unseen Marshal taking our known General looked paid for by showing itself
    seen_at_rank: bool = False
    # a step next to our known piece weighs as this game's shown approaches went (beliefs.approach_weights):
    # an enemy that never steps up with a losing piece is believed sooner
    honesty: bool = False
    # an unmoved piece is judged by how long it has stood: its types that move weigh as often as real players
    # had not yet moved such a piece from that row by then (strategolab.stillness; classic armies only).  Off in
    # every level: it makes the beliefs truer against real players, but the 2012 bots leave pieces standing
    # where players put no Bombs, and hard with it won 76 % of 51 games against peternlewis, 86 % without
    stillness: bool = False
    # the share of setups taken from the setup library's named plans (the rest drawn from real players'
    # statistics, ``setup_library.statistical_setup``), and that share in a small army; None: ``plans``
    plans: float = 0.5
    small_army_plans: float | None = None


LEVELS: dict[str, Level] = {
    # Judges each move only by what it takes (or risks in its own battle), guesses where pieces stand.
    "easy": Level("easy", worlds=1, depth=0, priors=False, soft_evidence=False, opponent_model=False,
                  guard=0.0, noise=14.0),
    # Two plies (every reply is weighed) in a few worlds, a model of what the enemy knows, and defenders in
    # the way of pieces that come for its Flag; real priors, but the enemy's behaviour is not read, and a
    # little noise (more in a small army, where at 0.5 it held hard, whose lead there is its third ply, to 65 %;
    # at 2 everywhere its quiet moves were close to random: 22 wins in 60 against the 2012 champion, 33 at 1).
    # In a small army one ply: there the model of a reasoning enemy lost 2 of 40 pocket games to the random
    # player, which attacks what a reasoning enemy would fear to; but two while an enemy piece is two moves
    # from its Flag (one ply did not see a Sapper take the Mine beside it, then the Flag: pocket v random lost 43
    # of 3,000 games, 30 with the alarm).
    "medium": Level("medium", worlds=4, depth=2, priors=True, soft_evidence=False, opponent_model=True,
                    guard=80.0, noise=1.0, small_army_depth=1, small_army_noise=2.0, alarm_depth=2),
    # The same search in four times as many worlds (three plies in a small army, else a second look at its
    # best four moves three plies deep), behavioural evidence (weighed by how the game's shown approaches
    # went), the hunt, a Spy that lurks, the setup library's plans among the setups it expects, forks and a
    # known raider's way through our pieces counted in the race to its Flag, the enemy's pieces' showing
    # counted at their rank value, and almost no noise. In a full army its own setups follow real players'
    # statistics, never a named plan: over every recorded version against the 2012 champion the plans won
    # 74.7 % of decided games, the drawn setups 86.7 % (docs/ai.md, Session 38).
    "hard": Level("hard", worlds=16, depth=2, priors=True, soft_evidence=True, opponent_model=True,
                  guard=80.0, noise=0.5, small_army_depth=3, hunt=True, lurk=True, verify=4, verify_worlds=8,
                  race_root=True, book=True, race_forks=True, seen_at_rank=True, honesty=True,
                  race_through=True, plans=0.0, small_army_plans=0.5),
}
