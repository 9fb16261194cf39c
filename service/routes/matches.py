"""Quick match: `POST /v1/matches` makes a ticket; `GET`, its long-poll and stream follow it; `DELETE` cancels it.

HTTP only: tickets, queues and pairing live in service/matchmaking.py, the long-poll's wait and the stream in
service/streams.py (`wait_for_ticket`, `ticket_events`, on the ticket's channel of service/dispatcher.py): a client
waiting on a ticket holds a greenlet, never a thread. docs/api-additions.md "Quick match".
"""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, stream_with_context
from flask.views import MethodView

from service.auth import bearer_token, unauthorized
from service.extensions import Blueprint, services
from service.matchmaking import Ticket
from service.schemas.matches import (
    QUICK_MATCH_EXAMPLE,
    TICKET_STREAM_EVENT,
    MatchRequestSchema,
    NewTicketSchema,
    TicketQuerySchema,
    TicketSchema,
)
from service.streams import ticket_events, wait_for_ticket

blp = Blueprint("matches", __name__, url_prefix="/v1/matches", description="Quick match: a seat at the next table")

_TOKEN: list[dict[str, list[str]]] = [{"bearer": []}]


def authorized_ticket(ticket_id: str, settled: bool = True) -> tuple[Ticket, str]:
    """The ticket `ticket_id` and the request's token, which must be its token.

    `settled`: the ticket after `Matchmaker.settle` (a due fallback seated now); a cancel takes it as it is, so a
    fallback the sweep has not seated yet does not win over the player's cancel.

    Raises:
        TicketNotFound: no such ticket (404 `ticket_not_found`).
        werkzeug HTTPException: 401 `unauthorized` without the ticket's token.
    """
    matchmaker = services().matchmaker
    ticket = matchmaker.load(ticket_id)
    token = bearer_token()
    if token is None:
        unauthorized("a bearer token is required: send Authorization: Bearer <ticket_token>")
    if not matchmaker.check_token(ticket, token):
        unauthorized("this token is not this ticket's")
    return (matchmaker.settle(services().queues, ticket) if settled else ticket), token


@blp.route("")
class Matches(MethodView):
    """Ask for a seat."""

    @blp.doc(operationId="createMatchTicket")
    @blp.arguments(MatchRequestSchema, example=QUICK_MATCH_EXAMPLE)
    @blp.response(202, NewTicketSchema, headers={"Location": {
        "description": "the ticket's URL", "schema": {"type": "string",
                                                      "example": "/v1/matches/3f1c0a9e5d7b2c4a8e6f0b1d2c3a4b5c"},
    }})
    @blp.alt_response(404, schema="Error", description="unknown_game")
    @blp.alt_response(422, schema="Error", description="invalid_request")
    def post(self, body: dict[str, Any]):  # type: ignore[no-untyped-def]
        """Quick match: a seat at the next table of this game, options and seat count.

        Answers at once with a ticket and its `ticket_token`: `waiting`, or `matched` when this ticket completed
        a table. Tickets are seated first come first served, a table at a time; with `fallback`, a ticket still
        waiting after `after_seconds` gets a table whose free seats are AI seats at `level`. A ticket waits 10
        minutes at most (`expires_at`), then is `expired`. Follow it with `GET` (`?wait=S`) or its stream.
        """
        ticket, token = services().matchmaker.open(
            services().queues, body["game"], body["options"], body.get("players"), body.get("name"),
            body.get("fallback"))
        return {**ticket.body(token), "ticket_token": token}, 202, {"Location": f"/v1/matches/{ticket.ticket_id}"}


@blp.route("/<ticket_id>")
class MatchTicket(MethodView):
    """One ticket."""

    @blp.doc(operationId="getMatchTicket", security=_TOKEN)
    @blp.arguments(TicketQuerySchema, location="query")
    @blp.response(200, TicketSchema)
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="ticket_not_found")
    def get(self, query: dict[str, Any], ticket_id: str):  # type: ignore[no-untyped-def]
        """Read a ticket (its `ticket_token`): `waiting`, `matched` (your game, seat and token), `expired`, `cancelled`.

        With `wait=S` (max 30) a waiting ticket's request is held until it stops waiting or S seconds pass, then
        answers with the ticket as it is (still `waiting`: ask again).
        """
        ticket, token = authorized_ticket(ticket_id)
        if query["wait"] > 0:
            ticket = wait_for_ticket(ticket, min(query["wait"], current_app.config["LONG_POLL_MAX_SECONDS"]))
        return ticket.body(token)

    @blp.doc(operationId="cancelMatchTicket", security=_TOKEN)
    @blp.response(200, TicketSchema)
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="ticket_not_found")
    @blp.alt_response(409, schema="Error", description="ticket_matched")
    def delete(self, ticket_id: str):  # type: ignore[no-untyped-def]
        """Cancel a waiting ticket: it is `cancelled` and takes no seat.

        A cancelled or expired ticket is answered as it is; a matched one is 409 `ticket_matched` (leave the game
        instead: `POST /v1/games/{game_id}/leave`).
        """
        _, token = authorized_ticket(ticket_id, settled=False)
        return services().matchmaker.cancel(ticket_id).body(token)


@blp.route("/<ticket_id>/stream")
class MatchStream(MethodView):
    """Push."""

    @blp.doc(
        operationId="streamMatchTicket",
        security=_TOKEN,
        responses={200: {
            "description": "Server-Sent Events: one `ticket` event now and one each time it changes; ends after the "
            "event that shows it `matched`, `expired` or `cancelled`",
            "content": {"text/event-stream": {"schema": TICKET_STREAM_EVENT}},
        }},
    )
    @blp.alt_response(401, schema="Error", description="unauthorized")
    @blp.alt_response(404, schema="Error", description="ticket_not_found")
    def get(self, ticket_id: str):  # type: ignore[no-untyped-def]
        """Follow a ticket as Server-Sent Events (`text/event-stream`): `event: ticket` with the ticket as JSON.

        The first event is the ticket now, the next one when it stops waiting (`matched` with your game, seat and
        token, `expired` or `cancelled`), then the stream ends. A comment line every 15 s keeps proxies from
        closing the connection.
        """
        ticket, token = authorized_ticket(ticket_id)
        services().dispatcher.check_room()  # a full process answers 503 now, not an empty stream
        return Response(stream_with_context(ticket_events(ticket, token)), mimetype="text/event-stream",
                        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
