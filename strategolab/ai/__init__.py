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
and a lot of noise; ``medium`` weighs every reply (two plies) in four worlds with real priors, models what the
enemy can know about *our* pieces, stands in the way of pieces that come for its Flag, and errs a little;
``hard`` does the same in sixteen worlds, also reads the enemy's behaviour as evidence, searches its best
four moves again a ply deeper, and hardly errs.
:class:`RememberingPlayer` is a computer player that also remembers, across games, what each opponent's
setups showed (:class:`SetupMemory`) and takes it as its prior.
Pure Python; the only imports are the engine's.
"""

from .beliefs import (
    History,
    balance,
    belief_table,
    read_history,
    remaining_hidden,
    sample_identities,
    their_belief_table,
)
from .evaluation import WIN, piece_values, top_bonus, win_value
from .explanation import Candidate, Reasoning
from .levels import LEVELS, Level
from .memory import SetupMemory, shown_setup
from .player import ComputerPlayer, RememberingPlayer

__all__ = [
    "LEVELS",
    "WIN",
    "Candidate",
    "ComputerPlayer",
    "History",
    "Level",
    "Reasoning",
    "RememberingPlayer",
    "SetupMemory",
    "balance",
    "belief_table",
    "piece_values",
    "read_history",
    "remaining_hidden",
    "sample_identities",
    "shown_setup",
    "their_belief_table",
    "top_bonus",
    "win_value",
]
