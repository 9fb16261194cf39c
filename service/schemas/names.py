"""A player's name, as every way of naming a seat checks it (a new game, a seat taken, a quick match, a replay).

Its own module so that the schemas of games (service/schemas/games.py) and of an export
(service/schemas/export.py), which games.py nests, both take it from here.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import marshmallow as ma
from marshmallow import fields, validate

NAME_MAX_LENGTH = 40


REFUSED_IN_NAMES = {
    "Cc": "control characters",
    "Cf": "format characters",
    "Cs": "unpaired surrogates",
}
"""The Unicode categories a name may not contain. Format characters (Cf) are invisible or change how the text
around them is shown: bidi overrides and isolates (a name shown reversed, and the page after it), zero-width
spaces (a blank name that `str.strip` keeps; "Ann" and "Ann\u200b" look alike), the BOM, soft hyphens, tag
characters. The zero-width joiner and non-joiner are Cf too, so emoji sequences joined by U+200D and Persian
names written with U+200C are refused as well: a name is shown to every player, and plainness comes first."""


def printable_name(value: str, **kwargs: object) -> None:
    """A player's name: 1-40 characters, not only spaces, none of `REFUSED_IN_NAMES`' categories.

    Any other Unicode is kept as sent (emoji, any script). Raises `ValidationError` (422) otherwise.
    """
    if not value.strip():
        raise ma.ValidationError("must not be blank")
    for character in value:
        refused = REFUSED_IN_NAMES.get(unicodedata.category(character))
        if refused is not None:
            raise ma.ValidationError(f"must not contain {refused} (U+{ord(character):04X})")


def name_field(**kwargs: Any) -> fields.String:
    """The `name` of a seat: any printable Unicode, 1-40 characters (`printable_name`)."""
    return fields.String(
        validate=[validate.Length(min=1, max=NAME_MAX_LENGTH), printable_name],
        metadata={
            "example": "Ann",
            "description": "1-40 characters; no control or format characters (Unicode Cc, Cf) or unpaired surrogates",
        },
        **kwargs,
    )
