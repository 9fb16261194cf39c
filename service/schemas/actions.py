"""Action bodies: one `oneOf` per game, told apart by `type` (the rules files' §4 tables)."""

from __future__ import annotations

from collections.abc import Iterable

import marshmallow as ma
from marshmallow import fields, validate
from marshmallow_oneofschema.one_of_schema import OneOfSchema

from engine.cards import french_deck


class ActionSchema(ma.Schema):
    """Any game's action: a `type` plus that action's fields (checked against the game once it is known)."""

    class Meta:
        unknown = ma.INCLUDE

    type = fields.String(required=True, metadata={"example": "attack"})


def _card(deck_codes: Iterable[str]) -> fields.String:
    return fields.String(required=True, validate=validate.OneOf(sorted(deck_codes)))


DURAK_CODES = [card.code for card in french_deck(6)]


class DurakAttackSchema(ma.Schema):
    """Durak: lead or add a card (durak.md §4)."""

    type = fields.Constant("attack", required=True)
    card = _card(DURAK_CODES)


class DurakDefendSchema(ma.Schema):
    """Durak: beat the undefended card `against` with `card` (durak.md §4)."""

    type = fields.Constant("defend", required=True)
    card = _card(DURAK_CODES)
    against = _card(DURAK_CODES)


class DurakTakeSchema(ma.Schema):
    """Durak: the defender picks up the table (durak.md §3.6)."""

    type = fields.Constant("take", required=True)


class DurakDoneSchema(ma.Schema):
    """Durak: the attacker ends the bout (durak.md §3.7)."""

    type = fields.Constant("done", required=True)


class ResignSchema(ma.Schema):
    """Give up: legal for any seated player of an active game."""

    type = fields.Constant("resign", required=True)


class DurakActionSchema(OneOfSchema):
    """A Durak action, by `type`."""

    type_field_remove = False
    type_schemas = {
        "attack": DurakAttackSchema,
        "defend": DurakDefendSchema,
        "take": DurakTakeSchema,
        "done": DurakDoneSchema,
        "resign": ResignSchema,
    }


ACTION_SCHEMAS: dict[str, type[OneOfSchema]] = {"durak": DurakActionSchema}
