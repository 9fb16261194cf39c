"""A seat's access is the token that holds it now (issue 43), over HTTP, for every game.

Random games in which players leave and others take their seats: a waiting game's seat is freed and taken by a new
player, an active game's seat is resigned (Talmut: the `easy` AI plays it on, talmut.md §3.17; the two-seat games
end). After every step every token ever issued reads the game: its view, the step's events, a long-poll held
across the step, and a stream it holds from the moment it got the token (opened again as a spectator's when it
was revoked from a seat the AI plays now). By the contract (docs/api-additions.md) a token holds its seat until its
player leaves it; it then holds nothing, except in the two-seat games, where leaving ends the game and nobody
else takes the seat. Checked: no payload a token gets at version v holds a card hidden (the engine's
`hidden_from`) from the seat it holds at v, `you` is that seat, a freed seat's token gets 401, a stream ends with
`revoked` exactly when its token stops holding what it read, and a held long-poll answers 401 then.
"""

from __future__ import annotations

import json
import queue
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from engine.redaction import codes_in
from tests.service.conftest import Api
from tests.service.test_redaction_http import hidden, run_one_ai_job

STEPS = 40
"""Steps per random game: the deal, seats changing hands and a few leaves; whole games run in tests/e2e."""
SEATS = {"durak": [2], "svoi_koziri": [2], "tadmur": [2], "talmut": [3, 4]}
HANG_GUARD_SECONDS = 60
LEAVE_CHANCE = 0.1
"""How often a step of an active game is a seated player leaving it."""


@dataclass
class Holder:
    """A token and, by the contract, what it holds now: `seat` (None: nothing), `left` how it lost it."""

    token: str
    seat: int | None
    left: str | None = None  # None: seated; "freed": left a waiting game; "handed": its seat is the AI's now
    stream: StreamReader | None = None
    stream_seat: int | None = None  # the seat whose view the open stream reads
    streamed: int = 0  # the version of the stream's latest view
    history: dict[int, int | None] = field(default_factory=dict)  # version -> the seat held at that version


@dataclass
class Table:
    """One random game: its holders, and what was hidden from each viewer at each version."""

    api: Api
    game_id: str
    seats: int
    holders: list[Holder] = field(default_factory=list)
    hidden_at: dict[int, dict[int | None, set[str]]] = field(default_factory=dict)
    version: int = 0

    def snapshot(self) -> None:
        """Note the version now, what each viewer may not see at it, and the seat each holder holds."""
        self.version = self.api.services.store.load(self.game_id).version
        self.hidden_at[self.version] = {viewer: hidden(self.game_id, self.api, viewer)
                                        for viewer in [*range(self.seats), None]}
        for holder in self.holders:
            holder.history[self.version] = holder.seat

    def forbidden(self, holder: Holder, version: int) -> set[str]:
        return self.hidden_at[version][holder.history[version]]

    def seat_token(self, token: str) -> Holder:
        holder = Holder(token, None)
        self.holders.append(holder)
        return holder

    def open_stream(self, holder: Holder) -> None:
        """Open `holder`'s stream from the current version on."""
        url = f"/v1/games/{self.game_id}/stream?after_version={self.version - 1}"
        holder.stream, holder.stream_seat = StreamReader(self.api, url, holder.token), holder.seat
        holder.streamed = self.version - 1
        assert holder.stream.next() == "retry: 1000\n\n"


class StreamReader:
    """A stream read on demand by a thread of its own.

    Each generator is resumed by one thread only: Flask's `stream_with_context` pushes its request context on
    every resume, so two streams resumed by one thread would pop each other's. Between reads the generator waits
    at its `yield`, not in the dispatcher, so the only waiter between steps is the step's long-poll.
    """

    def __init__(self, api: Api, url: str, token: str) -> None:
        self.commands: queue.Queue[bool] = queue.Queue()
        self.chunks: queue.Queue[Any] = queue.Queue()
        self.thread = threading.Thread(target=self._run, args=(api.app.test_client(), url, token), daemon=True)
        self.thread.start()

    def _run(self, client: Any, url: str, token: str) -> None:
        response = client.get(url, headers=bearer(token), buffered=False)
        chunks = iter(response.response)
        try:
            while self.commands.get():
                chunk = next(chunks, None)
                self.chunks.put(chunk.decode() if isinstance(chunk, bytes) else chunk)
        except BaseException as error:  # handed to the test's thread
            self.chunks.put(error)
        finally:
            response.close()

    def next(self) -> str | None:
        """The stream's next chunk (one event), None once it ended."""
        self.commands.put(True)
        chunk = self.chunks.get(timeout=HANG_GUARD_SECONDS)
        if isinstance(chunk, BaseException):
            raise chunk
        return chunk

    def close(self) -> None:
        self.commands.put(False)
        self.thread.join(HANG_GUARD_SECONDS)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def sse_event(chunk: str) -> tuple[str, dict[str, Any]]:
    """(`event`, the JSON of `data`) of one event as `view_events` yields it."""
    fields = dict(line.split(": ", 1) for line in chunk.strip().split("\n") if not line.startswith(":"))
    return fields["event"], json.loads(fields["data"])


def check_payload(table: Table, holder: Holder, payload: Any, version: int, what: str) -> None:
    leaked = table.forbidden(holder, version) & set(codes_in(payload))
    assert not leaked, f"{what} at version {version} to a token holding {holder.history[version]} shows {leaked}"


def check_reads(table: Table, holder: Holder, previous: int) -> None:
    """Every read of `holder` after a step from version `previous`: its view, the step's events, its stream."""
    api, game_id = table.api, table.game_id
    view = api.view(game_id, holder.token)
    events = api.request("GET", f"/v1/games/{game_id}/events?after={previous}", holder.token)
    if holder.left == "freed":
        assert (view.status_code, events.status_code) == (401, 401), (view.json, events.json)
    else:
        assert (view.status_code, view.json["you"], view.json["version"]) == (200, holder.seat, table.version)
        check_payload(table, holder, view.json, table.version, "the view")
        if previous in holder.history:  # the token's own step events: cards hidden from it before and after
            leaked = (table.forbidden(holder, previous) & table.forbidden(holder, table.version)
                      & set(codes_in(events.json["events"])))
            assert not leaked, f"the events of version {table.version} show {leaked}"
    while holder.stream is not None and holder.streamed < table.version:
        chunk = holder.stream.next()
        if chunk is None:  # after the finished view
            holder.stream.close()
            holder.stream = None
            break
        kind, data = sse_event(chunk)
        if kind == "revoked":  # exactly when the token stopped holding the seat its stream read
            event(f"a stream revoked ({holder.left})")  # --hypothesis-show-statistics: what the games covered
            assert data["version"] == table.version and holder.history[table.version] != holder.stream_seat, data
            assert holder.stream.next() is None  # and the stream ends
            holder.stream.close()
            holder.stream = None
            if holder.left == "handed":  # a spectator's stream now
                table.open_stream(holder)
            break
        assert kind == "view" and data["you"] == holder.history[data["version"]] == holder.stream_seat, data
        check_payload(table, holder, data, data["version"], "the stream")
        holder.streamed = data["version"]


def hold_long_poll(table: Table, holder: Holder) -> tuple[threading.Thread, list[Any]]:
    """A long-poll by `holder` after the current version, held in a thread of its own until the next step."""
    answers: list[Any] = []
    client = table.api.app.test_client()  # one client per thread
    url = f"/v1/games/{table.game_id}?after_version={table.version}&wait=2"
    thread = threading.Thread(target=lambda: answers.append(client.get(url, headers=bearer(holder.token))))
    dispatcher = table.api.services.dispatcher
    waiting = dispatcher.waiters
    thread.start()
    started = time.monotonic()
    while thread.is_alive() and dispatcher.waiters == waiting:  # until it waits (or was answered at once)
        assert time.monotonic() - started < HANG_GUARD_SECONDS
        time.sleep(0.001)
    return thread, answers


def check_long_poll(table: Table, holder: Holder, previous: int, thread: threading.Thread,
                    answers: list[Any]) -> None:
    """The answer of `hold_long_poll` after a step from version `previous`."""
    thread.join(HANG_GUARD_SECONDS)
    assert not thread.is_alive(), "a long-poll outlived its wait"
    response = answers[0]
    # 401: a freed seat's token, or one whose seat changed hands while it was held (a seat the AI plays included)
    revoked = holder.left == "freed" or holder.history[previous] != holder.history[table.version]
    if response.status_code == 401:
        assert revoked, (response.json, holder)
        event(f"a long-poll answered 401 ({holder.left})")
    elif response.status_code == 200:
        assert not revoked, (response.json, holder)
        version = response.json["version"]
        assert response.json["you"] == holder.history[version], (response.json["you"], holder)
        check_payload(table, holder, response.json, version, "the long-poll")
    else:  # nothing new within its wait: a step that moved no version (a stale AI job), or a slow one
        assert response.status_code == 304, response.json


def step(table: Table, rng: random.Random) -> bool:
    """One random step: a player takes a seat or leaves, a human moves, or one AI job runs. False: nothing left."""
    api, game_id = table.api, table.game_id
    view = api.view(game_id).json
    seated = [holder for holder in table.holders if holder.left is None and holder.seat is not None]
    humans_seated = [holder for holder in seated if view["seats"][holder.seat]["kind"] == "human"]
    if view["status"] == "finished":
        return False
    if view["status"] == "waiting":
        if len(humans_seated) > 1 and rng.random() < 0.4:  # the last one leaving would delete the game
            leaver = rng.choice(humans_seated)
            assert api.request("POST", f"/v1/games/{game_id}/leave", leaver.token).json["outcome"] == "seat_freed"
            leaver.seat, leaver.left = None, "freed"
            return True
        joined = api.request("POST", f"/v1/games/{game_id}/seats", json={"name": "Joe"}).json
        holder = table.seat_token(joined["player_token"])
        holder.seat = joined["you"]
        return True
    if humans_seated and rng.random() < LEAVE_CHANCE:
        leaver = rng.choice(humans_seated)
        assert api.request("POST", f"/v1/games/{game_id}/leave", leaver.token).json["outcome"] == "resigned"
        if api.view(game_id).json["seats"][leaver.seat]["kind"] == "ai":  # talmut.md §3.17
            leaver.seat, leaver.left = None, "handed"
        return True
    movers = [holder for holder in humans_seated if holder.seat in view["to_act"] and any(
        action["type"] != "resign" for action in api.legal(game_id, holder.token))]
    if movers and (rng.random() < 0.7 or not run_one_ai_job(api)):
        mover = rng.choice(movers)
        move = rng.choice([action for action in api.legal(game_id, mover.token) if action["type"] != "resign"])
        assert api.act(game_id, mover.token, move).status_code == 200
        return True
    if not movers and not run_one_ai_job(api):
        pytest.fail(f"nobody can move in {view}")
    return True


@pytest.mark.parametrize("game_id", ["durak", "svoi_koziri", "tadmur", "talmut"])
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None, derandomize=True,
          phases=[Phase.generate])  # no shrinking: a failing game's steps are in its message already
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_no_token_reads_a_card_its_seat_now_may_not_see(shared_api: Api, game_id: str, seed: int, data: Any) -> None:
    api = shared_api
    seats = data.draw(st.sampled_from(SEATS[game_id]))
    humans = min(seats, 3)  # three, for seats to change hands while the game waits (the last to leave deletes it)
    kinds = [{"kind": "human", "name": f"P{n}"} for n in range(humans)] + [{"kind": "ai", "level": "easy"}] * (
        seats - humans)
    created = api.create(kinds, game=game_id, seed=seed)
    assert created.status_code == 201, created.json
    table = Table(api, created.json["game_id"], seats)
    creator = table.seat_token(created.json["player_token"])
    creator.seat = created.json["you"]
    rng = random.Random(seed)
    table.snapshot()
    table.open_stream(creator)
    try:
        for _ in range(STEPS):
            previous = table.version
            poller = rng.choice(table.holders)
            thread, answers = hold_long_poll(table, poller)
            known = set(map(id, table.holders))
            if not step(table, rng):
                thread.join(HANG_GUARD_SECONDS)
                break
            table.snapshot()
            check_long_poll(table, poller, previous, thread, answers)
            for holder in table.holders:
                if id(holder) not in known:  # a new player: its stream from the version it was seated at
                    table.open_stream(holder)
                check_reads(table, holder, previous)
    finally:
        for holder in table.holders:
            if holder.stream is not None:
                holder.stream.close()
