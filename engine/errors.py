"""Errors the engine raises for a rejected action or deal.

The engine knows no HTTP: `service/errors.py` holds the only map from these classes to status codes.
Each message is written for the actor and names only what the actor may see.
"""


class GameError(Exception):
    """Base class of every rules error; never raised itself."""

    error_code = "game_error"


class IllegalAction(GameError):
    """A well-formed action the rules forbid now (e.g. "6H does not beat 9H")."""

    error_code = "illegal_action"


class NotYourTurn(GameError):
    """A seated player acted while not in `to_act`, with an action other than `resign`."""

    error_code = "not_your_turn"


class GameFinished(GameError):
    """An action was sent to a game that already has a result."""

    error_code = "game_finished"


class InvalidDeck(GameError):
    """A `deck` that is not a permutation of the game's full deck."""

    error_code = "invalid_deck"


class InvalidOptions(GameError):
    """Options the game does not offer, or values out of range."""

    error_code = "invalid_request"
