"""Each game's view `state` (the table as one viewer may see it), as the engine's `view` builds it.

Card codes are rank then suit (`10H`, `QS`; docs/API.md "Cards"); a card the viewer may not see is null. The
shapes are those of each rules file's §6 (`state`); tests/service/test_view_schemas.py checks that every key a
real view has is declared here, since views are sent through these schemas.
"""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields

from engine.games import DECLARED


def card(description: str | None = None, **kwargs: object) -> fields.String:
    """A card code, e.g. `10H`."""
    metadata = {"example": "10H", **({"description": description} if description else {})}
    return fields.String(metadata=metadata, **kwargs)  # type: ignore[arg-type]


def cards(description: str, **kwargs: object) -> fields.List:
    """A list of card codes."""
    return fields.List(fields.String(), metadata={"description": description}, **kwargs)  # type: ignore[arg-type]


class DurakTableRowSchema(ma.Schema):
    """One attack on the table and its defence (null until beaten)."""

    attack = card(required=True)
    defense = card(required=True, allow_none=True)


class DurakFirstAttackSchema(ma.Schema):
    """Who attacked the first bout, and the trump that decided it (null when no hand held a trump; §2.6)."""

    seat = fields.Integer(required=True)
    card = card(required=True, allow_none=True)


class TwoHandsSchema(ma.Schema):
    """The hands of a game of two hands (Durak, Svoi Koziri): your own, both sizes, and both once it is over."""

    hand = cards("your hand; null for a spectator", required=True, allow_none=True)
    hand_sizes = fields.List(fields.Integer(), required=True)
    revealed_hands = fields.List(
        fields.List(fields.String()), required=True, allow_none=True,
        metadata={"description": "both hands, once the game is over"},
    )


class DurakStateSchema(TwoHandsSchema):
    """Durak's table (docs/rules/durak.md §6.4): public to all but `hand`, the viewer's own."""

    trump_suit = fields.String(required=True, metadata={"example": "H"})
    trump_card = card("the indicator, while in the stock", required=True, allow_none=True)
    trump_card_drawn_by = fields.Integer(required=True, allow_none=True)
    first_attack = fields.Nested(DurakFirstAttackSchema, required=True)
    stock_size = fields.Integer(required=True)
    discard_size = fields.Integer(required=True)
    bout = fields.Integer(required=True)
    attacker = fields.Integer(required=True)
    defender = fields.Integer(required=True)
    bout_limit = fields.Integer(required=True)
    table = fields.List(fields.Nested(DurakTableRowSchema), required=True)
    defender_took = fields.Boolean(required=True)


class SvoiKoziriStateSchema(TwoHandsSchema):
    """Svoi Koziri's table (docs/rules/svoi_koziri.md §6.4): public to all but `hand`, the viewer's own."""

    step = fields.String(
        required=True, allow_none=True, metadata={"description": "choose_trump, lead, respond or play; null at the end"}
    )
    trumps = fields.List(fields.String(allow_none=True), required=True, metadata={"description": "per seat"})
    sixes_passed = fields.List(card(allow_none=True), required=True, metadata={"description": "per seat"})
    pile = cards("the face-up pile, bottom first", required=True)


class TadmurRowSchema(ma.Schema):
    """One player's row: its starter, the chain placed so far, and its target (the owner's own, or at the end)."""

    seat = fields.Integer(required=True)
    starter = card(required=True)
    chain = cards("placed cards, in order", required=True)
    spaces = fields.Integer(required=True)
    empty = fields.Integer(required=True)
    target = card(required=True, allow_none=True)
    wrong_guesses = fields.List(fields.String(), required=True, metadata={"description": "ranks, in guess order"})


class TadmurStateSchema(ma.Schema):
    """Tadmur's table (docs/rules/tadmur.md §6.4): public to all but `hand` and the viewer's own target."""

    dealer = fields.Integer(required=True)
    turn = fields.Integer(required=True, allow_none=True)
    guessed_this_turn = fields.Boolean(required=True)
    guessing_locked = fields.Boolean(required=True)
    idle_turns = fields.Integer(required=True)
    rows = fields.List(fields.Nested(TadmurRowSchema), required=True)
    hand = cards("your hand; null for a spectator", required=True, allow_none=True)


class TalmutPlaceSchema(ma.Schema):
    """A layout position of a seat."""

    seat = fields.Integer(required=True)
    position = fields.Integer(required=True)


class TalmutDrawnSchema(ma.Schema):
    """The card the turn seat drew (its code shown to the drawer, or to all when it came from the pile)."""

    source = fields.String(required=True, metadata={"example": "stock"})
    card = card(required=True, allow_none=True)


class TalmutPowerSchema(ma.Schema):
    """A power being used (docs/rules/talmut.md §3.7)."""

    kind = fields.String(required=True)
    card = card(required=True)
    peeked = fields.Nested(TalmutPlaceSchema, required=True, allow_none=True)


class TalmutSlotSchema(ma.Schema):
    """One position of a layout: its card if the viewer knows it, and which seats do."""

    position = fields.Integer(required=True)
    empty = fields.Boolean(required=True)
    card = card(required=True, allow_none=True)
    seen_by = fields.List(fields.Integer(), required=True)


class TalmutLayoutSchema(ma.Schema):
    """A seat's face-down cards."""

    seat = fields.Integer(required=True)
    slots = fields.List(fields.Nested(TalmutSlotSchema), required=True)


class TalmutWindowSchema(ma.Schema):
    """An open matching window: the rank to match, who threw last, who matched wrong in it (talmut.md §3.9)."""

    rank = fields.String(required=True, metadata={"example": "7"})
    last_thrower = fields.Integer(required=True)
    wrong_matchers = fields.List(
        fields.Integer(),
        required=True,
        metadata={
            "description": "seats that made their one wrong match of this window and may not match again until "
            "it closes (docs/rules/talmut.md §3.11), ascending."
        },
    )


class TalmutCallSchema(ma.Schema):
    """A standing Talmut call and the seats still to play their last turn."""

    caller = fields.Integer(required=True)
    last_turns = fields.List(fields.Integer(), required=True)


class TalmutRoundSchema(ma.Schema):
    """A scored round (docs/rules/talmut.md §5.7)."""

    round = fields.Integer(required=True)
    caller = fields.Integer(required=True)
    call_total = fields.Integer(required=True)
    false_call = fields.Boolean(required=True)
    cards = fields.Dict(
        keys=fields.String(), values=fields.List(fields.String(allow_none=True)), required=True,
        metadata={"description": "seat -> its cards by position (null: an empty position)"},
    )
    points = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)


class TalmutOptionsSchema(ma.Schema):
    """The game's options (docs/rules/talmut.md §2.3), which every player knows."""

    deck_size = fields.Integer(required=True, metadata={"description": "40 or 48"})
    target = fields.Integer(required=True)
    call_penalty = fields.Integer(required=True)
    match_pause_ms = fields.Integer(required=True)


class TalmutStateSchema(ma.Schema):
    """Talmut's table (docs/rules/talmut.md §6.7): a layout card shows only to the seats that know it."""

    round = fields.Integer(required=True)
    dealer = fields.Integer(required=True)
    turn = fields.Integer(required=True, allow_none=True)
    phase = fields.String(
        required=True, allow_none=True, metadata={"description": "draw, decide, power or exchange; null at the end"}
    )
    drawn = fields.Nested(TalmutDrawnSchema, required=True, allow_none=True)
    power = fields.Nested(TalmutPowerSchema, required=True, allow_none=True)
    layouts = fields.List(fields.Nested(TalmutLayoutSchema), required=True)
    stock_size = fields.Integer(required=True)
    discard = cards("the discard pile, bottom to top", required=True)
    window = fields.Nested(TalmutWindowSchema, required=True, allow_none=True)
    talmut = fields.Nested(TalmutCallSchema, required=True, allow_none=True)
    call_barred = fields.Integer(required=True, allow_none=True)
    totals = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    history = fields.List(fields.Nested(TalmutRoundSchema), required=True)
    options = fields.Nested(TalmutOptionsSchema, required=True)


NAMED: dict[str, type[ma.Schema]] = {
    schema.__name__: schema
    for schema in (DurakStateSchema, SvoiKoziriStateSchema, TadmurStateSchema, TalmutStateSchema)
}
"""The typed view states, by the name a game's declaration gives (`GameDeclaration.state_schema`)."""


def state_field(game_id: str) -> fields.Field:
    """The view's `state` field of `game_id`: its declared schema, or any JSON object where it declares none.

    Raises:
        KeyError: the game declares a schema name that is not in `NAMED`.
    """
    name = DECLARED[game_id].state_schema
    metadata = {"description": "the table; null while the game is waiting for players"}
    if name is None:
        return fields.Dict(allow_none=True, required=True, metadata=metadata)
    return fields.Nested(NAMED[name], allow_none=True, required=True, metadata=metadata)
