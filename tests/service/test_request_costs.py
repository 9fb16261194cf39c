"""What a request no longer redoes (issue 39): query and header arguments remembered, Flask's coroutine check kept.

The answers are the same as without the shortcuts; these tests hold that, and that a refusal is still judged anew.
"""

from __future__ import annotations

from service.extensions import BodyParser, CardroomFlask, environ_key
from service.schemas.games import ViewHeadersSchema, ViewQuerySchema
from tests.service.conftest import Api

APP = CardroomFlask("test-request-costs")


def test_query_arguments_are_remembered_per_query_string_and_handed_out_as_copies() -> None:
    parser = BodyParser()
    with APP.test_request_context("/v1/games/x?after_version=3&wait=1.5"):
        first = parser.parse(ViewQuerySchema, location="query")
        first["wait"] = 99.0  # a route that changes its arguments changes only its own copy
        again = parser.parse(ViewQuerySchema, location="query")
    with APP.test_request_context("/v1/games/x"):
        bare = parser.parse(ViewQuerySchema, location="query")
    assert again == {"after_version": 3, "wait": 1.5}
    assert bare == {"wait": 0}
    assert len(parser._parsed) == 2


def test_header_arguments_are_remembered_per_value_of_the_declared_headers() -> None:
    parser = BodyParser()
    with APP.test_request_context("/", headers={"If-None-Match": '"7"', "X-Other": "a"}):
        first = parser.parse(ViewHeadersSchema, location="headers")
    with APP.test_request_context("/", headers={"If-None-Match": '"7"', "X-Other": "b"}):
        same = parser.parse(ViewHeadersSchema, location="headers")
    with APP.test_request_context("/", headers={"If-None-Match": '"8"'}):
        other = parser.parse(ViewHeadersSchema, location="headers")
    with APP.test_request_context("/"):
        none = parser.parse(ViewHeadersSchema, location="headers")
    assert (first, same, other, none) == (
        {"if_none_match": '"7"'},
        {"if_none_match": '"7"'},
        {"if_none_match": '"8"'},
        {},
    )
    assert len(parser._parsed) == 3  # undeclared headers are not part of what is remembered


def test_a_refused_query_is_refused_every_time(api: Api) -> None:
    game_id, tokens = api.create_humans()
    answers = [api.request("GET", f"/v1/games/{game_id}?wait=31&after_version=1", tokens[0]) for _ in range(2)]
    assert [answer.status_code for answer in answers] == [422, 422]
    assert answers[0].json == answers[1].json
    assert answers[0].json["errors"] == {
        "query": {"wait": ["Must be greater than or equal to 0 and less than or equal to 30."]}
    }


def test_environ_keys_are_pep_3333_s() -> None:
    assert [environ_key(name) for name in ("If-None-Match", "Last-Event-ID", "Content-Type")] == [
        "HTTP_IF_NONE_MATCH",
        "HTTP_LAST_EVENT_ID",
        "CONTENT_TYPE",
    ]


def test_the_coroutine_check_is_kept_per_plain_function_only() -> None:
    app = APP

    def hook() -> None:
        return None

    class View:
        def get(self) -> None:
            return None

    assert app.ensure_sync(hook) is hook
    assert hook in app._synced
    bound = View().get
    assert app.ensure_sync(bound) == bound
    assert bound not in app._synced.values()  # a bound method, new per request, is never kept


def test_the_parser_forgets_everything_once_full_and_parses_on(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr("service.extensions.PARSED_KEPT", 2)
    parser = BodyParser()
    answers = []
    for version in range(3):
        with APP.test_request_context(f"/v1/games/x?after_version={version}"):
            answers.append(parser.parse(ViewQuerySchema, location="query"))
    assert answers == [{"after_version": version, "wait": 0} for version in range(3)]
    assert len(parser._parsed) == 1  # the third found two kept, dropped them and kept itself
