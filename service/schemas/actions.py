"""Action request bodies, built from each game's `ACTIONS` declaration (engine/actions.py).

Per game, one marshmallow schema per action type (`DurakDefendAction`: `type` plus its fields) and a
`OneOfSchema` that picks the variant by `type`. `action_spec_components` documents the same schemas in OpenAPI as
one `oneOf` with a `type` discriminator per game.
"""

from __future__ import annotations

from typing import Any

import marshmallow as ma
from marshmallow import fields, validate
from marshmallow_oneofschema.one_of_schema import OneOfSchema

from engine import GAMES
from engine.actions import CardField, ChoiceField, Field, IntegerField


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def _field(kind: Field, card_codes: list[str], name: str) -> fields.Field:
    if isinstance(kind, CardField):
        return fields.String(required=True, validate=validate.OneOf(card_codes), metadata={"example": card_codes[0]})
    if isinstance(kind, ChoiceField):
        return fields.String(required=True, validate=validate.OneOf(kind.values))
    if isinstance(kind, IntegerField):
        return fields.Integer(required=True, strict=True, validate=validate.Range(kind.minimum, kind.maximum))
    nested = {key: _field(value, card_codes, f"{name}{_camel(key)}") for key, value in kind.fields.items()}
    return fields.Nested(ma.Schema.from_dict(nested, name=name), required=True)


def _variant(game_id: str, action_type: str, shape: dict[str, Field], card_codes: list[str]) -> type[ma.Schema]:
    name = f"{_camel(game_id)}{_camel(action_type)}Action"
    declared: dict[str, fields.Field] = {
        "type": fields.String(required=True, validate=validate.OneOf([action_type]), metadata={"example": action_type})
    }
    declared.update({key: _field(kind, card_codes, f"{name}{_camel(key)}") for key, kind in shape.items()})
    return ma.Schema.from_dict(declared, name=name)


class ActionSchema(OneOfSchema):
    """One game's action: the variant named by `type` (a view's `legal_actions` are sent through it too)."""

    type_field_remove = False

    def get_obj_type(self, obj: dict[str, Any]) -> str:
        """The type of the action being sent."""
        return obj["type"]


def _game_schema(game_id: str) -> type[OneOfSchema]:
    game = GAMES[game_id]
    card_codes = [card.code for card in game.full_deck(game.parse_options({}))]
    # instances: marshmallow-oneofschema would build a class's instance anew for every action it sends
    variants = {kind: _variant(game_id, kind, dict(shape), card_codes)() for kind, shape in game.ACTIONS.items()}
    description = f"An action of {game_id}: one of the view's legal_actions (docs/rules/{game_id}.md §4)."
    meta = type("Meta", (), {"description": description})
    return type(f"{_camel(game_id)}Action", (ActionSchema,), {"type_schemas": variants, "Meta": meta})


ACTION_SCHEMAS: dict[str, type[OneOfSchema]] = {game_id: _game_schema(game_id) for game_id in GAMES}
"""Game id -> the schema that loads (and rejects with per-field messages) that game's action bodies."""
ACTION_LOADERS: dict[str, OneOfSchema] = {game_id: schema() for game_id, schema in ACTION_SCHEMAS.items()}
"""Game id -> an instance of its `ACTION_SCHEMAS` schema, made once: loading keeps no state on it."""


def register_action_components(spec: Any) -> None:
    """Register per game a `oneOf` of its action variants with a `type` discriminator (and the variants) in `spec`.

    The conversion is `service.extensions.OneOfConverter`'s; registered up front so the request body's `anyOf`
    (`any_action`) can name them before any view schema does.
    """
    for schema in ACTION_SCHEMAS.values():
        spec.components.schema(schema.__name__, schema=schema)


def any_action() -> dict[str, Any]:
    """The OpenAPI schema of any game's action: `anyOf` the per-game `oneOf`s.

    `anyOf`, not `oneOf`: `{"type": "resign"}` is an action of every game, so it matches several branches;
    which game applies is decided by the game the action is posted to.
    """
    refs = [{"$ref": f"#/components/schemas/{schema.__name__}"} for schema in ACTION_SCHEMAS.values()]
    return refs[0] if len(refs) == 1 else {"anyOf": refs}


def action_request_body() -> dict[str, Any]:
    """The OpenAPI request body of `POST /v1/games/{game_id}/actions`: any game's action."""
    example = {"type": "defend", "card": "9H", "against": "6H"}
    return {"required": True, "content": {"application/json": {"schema": any_action(), "example": example}}}
