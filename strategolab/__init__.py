"""strategolab: Stratego and its variants in Python and Jupyter.

The rules engine (``State``, ``Move``, rule sets), setups, views, game records in the kit's notation
(``Game``, ``read_games``, ``write_game``), and the Gravon archive reader.  Importing
the package is cheap and never imports matplotlib or ipywidgets.
"""

from strategolab.board import COLUMNS, STRIDE, Square, parse_square, square, square_name
from strategolab.errors import IllegalMoveError, RecordError, SetupError, StrategolabError
from strategolab.notation import read_game, read_games, write_game, write_games
from strategolab.records import Game, GameNode
from strategolab.rules import (
    BARRAGE,
    BLUE,
    CLASSIC,
    IMMOBILE,
    ISF,
    ORIGINAL_1961,
    PLAYER_NAMES,
    POCKET,
    RED,
    RULESETS,
    RUN,
    STEP,
    AttackTable,
    BattleResult,
    PieceType,
    Ruleset,
    attack_table,
    explain_battle,
    get_ruleset,
    resolve_battle,
)
from strategolab.setups import Setup
from strategolab.state import Battle, LegalMoves, Move, Outcome, Piece, Rescue, State, Termination
from strategolab.views import View

__version__ = "0.1.0"

__all__ = [
    "BARRAGE",
    "BLUE",
    "CLASSIC",
    "COLUMNS",
    "IMMOBILE",
    "ISF",
    "ORIGINAL_1961",
    "PLAYER_NAMES",
    "POCKET",
    "RED",
    "RULESETS",
    "RUN",
    "STEP",
    "STRIDE",
    "AttackTable",
    "Battle",
    "BattleResult",
    "Game",
    "GameNode",
    "IllegalMoveError",
    "LegalMoves",
    "Move",
    "Outcome",
    "Piece",
    "PieceType",
    "RecordError",
    "Rescue",
    "Ruleset",
    "Setup",
    "SetupError",
    "Square",
    "State",
    "StrategolabError",
    "Termination",
    "View",
    "attack_table",
    "explain_battle",
    "get_ruleset",
    "parse_square",
    "read_game",
    "read_games",
    "resolve_battle",
    "square",
    "square_name",
    "write_game",
    "write_games",
]
