"""Schemas of a seat's webhook: its registration in `POST /v1/games` and `POST /seats`, and its status.

docs/api-additions.md "Your-turn webhooks"; the allow-list is checked by service/webhooks.py `registration`.
"""

from __future__ import annotations

import urllib.parse

import marshmallow as ma
from marshmallow import fields, validate

from service.webhooks import EVENTS, SCHEMES, SECRET_LENGTHS, URL_MAX_LENGTH

WEBHOOK_EXAMPLE = {"url": "https://bots.example.com/cardroom", "secret": "4f9c2b7e1a6d3f8e0b5c"}


def webhook_url(value: str) -> None:
    """An absolute http or https URL with a host and no user name, password or fragment (422 otherwise)."""
    parsed = urllib.parse.urlsplit(value)
    try:
        parsed.port  # noqa: B018 - raises for a port that is not a number of 0-65535
    except ValueError as wrong:
        raise ma.ValidationError("the port must be a number of 1-65535") from wrong
    if parsed.scheme not in SCHEMES or not parsed.hostname:
        raise ma.ValidationError("must be an absolute http:// or https:// URL with a host")
    if parsed.username is not None or parsed.password is not None or parsed.fragment:
        raise ma.ValidationError("must hold no user name, password or #fragment")
    if any(character.isspace() or ord(character) < 0x20 for character in value):
        raise ma.ValidationError("must hold no spaces or control characters")


class WebhookSchema(ma.Schema):
    """A seat's your-turn webhook: where to POST its events, and the secret that signs them."""

    url = fields.String(
        required=True,
        validate=[validate.Length(min=1, max=URL_MAX_LENGTH), webhook_url],
        metadata={
            "description": "http or https; its host and port must be in the server's WEBHOOK_ALLOWED_HOSTS "
            "(else 422 webhook_not_allowed)",
            "example": WEBHOOK_EXAMPLE["url"],
        },
    )
    secret = fields.String(
        required=True,
        validate=validate.Length(min=SECRET_LENGTHS[0], max=SECRET_LENGTHS[1]),
        metadata={
            "description": "signs each delivery (Cardroom-Signature); kept by the server, never shown again",
            "example": WEBHOOK_EXAMPLE["secret"],
        },
    )


def webhook_field() -> fields.Nested:
    """The optional `webhook` of a create or join request: the caller's seat's."""
    return fields.Nested(
        WebhookSchema,
        metadata={
            "description": "your seat's webhook: the server POSTs a signed event when your seat must act and when the "
            "game ends (docs/api-additions.md)"
        },
    )


class DeliverySchema(ma.Schema):
    """The latest delivery attempt to a seat's webhook."""

    event = fields.String(required=True, validate=validate.OneOf(EVENTS))
    version = fields.Integer(required=True, metadata={"description": "the game's version the event is about"})
    status = fields.String(
        required=True,
        validate=validate.OneOf(["delivered", "retrying", "failed"]),
        metadata={"description": "delivered: a 2xx; retrying: failed, tried again later; failed: given up"},
    )
    http_status = fields.Integer(metadata={"description": "the receiver's answer; absent when none came"})
    attempts = fields.Integer(required=True, metadata={"description": "attempts so far, this one included"})
    at = fields.String(required=True, metadata={"format": "date-time", "example": "2026-12-07T10:00:00.000Z"})


class WebhookStatusSchema(ma.Schema):
    """A seat's webhook as its holder sees it: never its secret."""

    url = fields.String(required=True, metadata={"example": WEBHOOK_EXAMPLE["url"]})
    last_delivery = fields.Nested(
        DeliverySchema, required=True, allow_none=True, metadata={"description": "null before the first attempt"}
    )
