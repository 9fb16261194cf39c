"""A Python SDK generated from the committed spec plays a whole game of every game against the AI.

As a user would (the guide's "Generate an SDK", docs/sdks.md): openapi-python-client turns openapi/openapi.json into
the package `cardroom_client`, and the games below use only that package (its models and its httpx client) against
the e2e stack. The generator runs with `--fail-on-warning`, so a spec it only half understands fails here too.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import io
import random
import re
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from engine import GAMES
from tests.e2e.stack import REPO, Stack, StallGuard

pytestmark = pytest.mark.e2e

# The guide's command (docs/sdks.md), run from the repository root.
GENERATE = ["generate", "--path", "openapi/openapi.json", "--meta", "setup", "--output-path", "cardroom-client"]
WAIT_SECONDS = 5
# Shorter games where the rules allow it: Talmut to 10 points, with a short matching pause (talmut.md §3.18).
FAST_OPTIONS: dict[str, dict[str, Any]] = {"talmut": {"target": 10, "match_pause_ms": 50}}
# Actions the bot never takes: it plays each game out. Talmut's match and withdraw are optional (talmut.md §4.1):
# the bot waits for its turn instead.
NEVER = {"resign", "match", "withdraw"}


@pytest.fixture(scope="module")
def sdk(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """`cardroom_client`, generated with the guide's command and imported from where it was generated."""
    out = tmp_path_factory.mktemp("sdk") / "cardroom-client"
    command = [sys.executable, "-m", "openapi_python_client", *GENERATE[:-1], str(out), "--fail-on-warning"]
    generated = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert generated.returncode == 0, generated.stdout + generated.stderr
    assert "Warning" not in generated.stdout + generated.stderr, generated.stdout + generated.stderr
    sys.path.insert(0, str(out))
    try:
        yield importlib.import_module("cardroom_client")
    finally:
        sys.path.remove(str(out))
        for name in [name for name in sys.modules if name.split(".")[0] == "cardroom_client"]:
            del sys.modules[name]


def sdk_module(sdk: ModuleType, name: str) -> ModuleType:
    return importlib.import_module(f"{sdk.__name__}.{name}")


def play_one(sdk: ModuleType, base_url: str, game: str, seed: int) -> Any:
    """Create `game` with one human seat (us) and AI seats, play random legal moves to the end; the final view."""
    import httpx

    timeout = httpx.Timeout(WAIT_SECONDS + 10)
    with sdk.Client(base_url=base_url, timeout=timeout) as anonymous:
        view = create(sdk, anonymous, game, seed)
    with sdk.AuthenticatedClient(base_url=base_url, token=view.player_token, timeout=timeout) as player:
        return play_to_the_end(sdk, player, view, random.Random(seed))


def create(sdk: ModuleType, anonymous: Any, game: str, seed: int) -> Any:
    """Create `game`: us in seat 0, AI seats (`easy` where offered) in the others, as few seats as it allows."""
    models = sdk_module(sdk, "models")
    create_game = sdk_module(sdk, "api.games.create_game")
    get_rules = sdk_module(sdk, "api.rules.get_rules")
    rules = get_rules.sync(game, client=anonymous)
    assert isinstance(rules, models.Rules), rules
    level = "easy" if "easy" in rules.ai_levels else rules.ai_levels[0]
    seats = [models.SeatSpec(kind=models.SeatSpecKind.HUMAN, name="Ann")]
    seats += [models.SeatSpec(kind=models.SeatSpecKind.AI, level=level)] * (rules.seats["min"] - 1)
    body = models.CreateGame(game=game, seats=seats, seed=seed,
                             options=models.CreateGameOptions.from_dict(FAST_OPTIONS.get(game, {})))
    created = create_game.sync_detailed(client=anonymous, body=body)
    assert created.status_code == 201, created.content
    view = created.parsed
    assert isinstance(view, getattr(models, f"{camel(game)}SeatedView")), type(view)
    assert view.you == 0 and created.headers["Location"]
    return view


def camel(game: str) -> str:
    return "".join(part.capitalize() for part in game.split("_"))


def assert_parsed_as(sdk: ModuleType, game: str, view: Any) -> None:
    """Issue 20 §4: the view, its state and each legal action are parsed into `game`'s own models."""
    models = sdk_module(sdk, "models")
    assert type(view).__name__ in (f"{camel(game)}View", f"{camel(game)}SeatedView"), type(view)
    assert isinstance(view.state, getattr(models, f"{camel(game)}State")), type(view.state)
    for action in view.legal_actions:
        name = type(action).__name__
        assert name.startswith(camel(game)) and name.endswith("Action") and action.type_ == action.to_dict()["type"]
        assert name == f"{camel(game)}{camel(action.to_dict()['type'])}Action", name


def play_to_the_end(sdk: ModuleType, player: Any, view: Any, rng: random.Random) -> Any:
    """Play random legal moves (never resigning) until the game is finished; wait for the AI by long-polling."""
    models = sdk_module(sdk, "models")
    get_game = sdk_module(sdk, "api.games.get_game")
    post_action = sdk_module(sdk, "api.games.play_action")
    game, game_id, moves = view.game.value, view.game_id, 0
    guard = StallGuard(f"{game} game {game_id}")
    while view.status != "finished":  # the status models are str enums
        guard.check(view.version)
        assert_parsed_as(sdk, game, view)
        mine = [action for action in view.legal_actions if action.to_dict()["type"] not in NEVER]
        if not mine:  # the AI's turn: long-poll for the next version
            polled = get_game.sync_detailed(game_id, client=player, after_version=view.version, wait=WAIT_SECONDS)
            assert polled.status_code in (200, 304), polled.content
            if polled.status_code == 200:
                view = polled.parsed
                assert polled.headers["ETag"] == f'"{view.version}"'
            continue
        played = post_action.sync_detailed(
            game_id, client=player, body=rng.choice(mine), if_match=f'"{view.version}"',
            idempotency_key=f"{game_id}-{view.version}",
        )
        if played.status_code in (403, 409, 412):  # an AI seat's move landed first: look again
            assert isinstance(played.parsed, models.Error), played.content
            assert played.parsed.error in ("version_conflict", "precondition_failed", "not_your_turn"), played.content
            view = get_game.sync(game_id, client=player)
            continue
        assert played.status_code == 200, played.content
        view, moves = played.parsed, moves + 1
    assert moves > 0
    return view


@pytest.mark.parametrize("game", sorted(GAMES))
def test_generated_sdk_plays_a_whole_game_against_the_ai(sdk: ModuleType, stack: Stack, game: str) -> None:
    """shared/API.md: a generated SDK is a client like any other; the game ends with a result."""
    models = sdk_module(sdk, "models")
    view = play_one(sdk, stack.base_url, game, seed=9)
    assert isinstance(view, getattr(models, f"{camel(game)}View")), type(view)
    assert_parsed_as(sdk, game, view)
    assert view.to_act == [] and view.legal_actions == []
    result = view.result
    assert result is not None and not isinstance(result, sdk_module(sdk, "types").Unset)
    assert result.winners or result.draw, result


@pytest.mark.parametrize("game", ["durak", "talmut"])
def test_generated_sdk_exports_a_finished_game_and_replays_it(sdk: ModuleType, stack: Stack, game: str) -> None:
    """docs/api-additions.md "Finished-game export and replay": the export is a model of its own, and a replay
    made of it through the generated `CreateGame(replay=...)` is the same finished game under a new id."""
    models = sdk_module(sdk, "models")
    export_game = sdk_module(sdk, "api.games.export_game")
    create_game = sdk_module(sdk, "api.games.create_game")
    view = play_one(sdk, stack.base_url, game, seed=12)
    with sdk.Client(base_url=stack.base_url) as anonymous:
        exported = export_game.sync_detailed(view.game_id, client=anonymous)
        assert exported.status_code == 200, exported.content
        export = exported.parsed
        assert isinstance(export, models.Export), type(export)
        assert (export.game, export.game_id, export.format_) == (game, view.game_id, "cardroom-export/1")
        assert export.result.to_dict() == view.result.to_dict()
        assert [entry.to_dict() for entry in export.seats][0] == {"seat": 0, "kind": "human", "name": "Ann"}
        assert export.actions and all(isinstance(entry, models.ExportedAction) for entry in export.actions)
        created = create_game.sync_detailed(client=anonymous, body=models.CreateGame(replay=export))
        assert created.status_code == 201, created.content
        replay = created.parsed
        assert (replay.status, replay.you, replay.player_token) == ("finished", None, None)
        again = export_game.sync(replay.game_id, client=anonymous)
        assert isinstance(again, models.Export)
        assert {**again.to_dict(), "game_id": view.game_id} == export.to_dict()


def test_generated_models_round_trip_a_legal_action(sdk: ModuleType) -> None:
    """The per-game `oneOf` with its `type` discriminator becomes one model per action."""
    models = sdk_module(sdk, "models")
    defend = models.DurakDefendAction.from_dict({"type": "defend", "card": "9H", "against": "6H"})
    assert defend.to_dict() == {"type": "defend", "card": "9H", "against": "6H"}
    assert Path(sdk.__file__).parent.name == "cardroom_client"


def test_the_readme_commands_and_example_play_durak(sdk: ModuleType, stack: Stack) -> None:
    """docs/sdks.md: the generate command is the one the fixture ran; the example plays to the end."""
    section = (REPO / "docs" / "sdks.md").read_text()
    commands = re.search(r"```sh\n(.*?)```", section, re.DOTALL).group(1).splitlines()
    assert commands == [
        "pip install openapi-python-client && openapi-python-client " + " ".join(GENERATE),
        "pip install ./cardroom-client",
    ]
    example = re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)
    assert len(example.splitlines()) <= 11
    printed, namespace = io.StringIO(), {}
    # A script leaves closing its HTTP connections to the interpreter's exit; here that is the garbage collector.
    with contextlib.redirect_stdout(printed), warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        exec(compile(example.replace("http://127.0.0.1:8000", stack.base_url), "docs/sdks.md", "exec"), namespace)
        namespace.clear()
        gc.collect()
    assert "'winners'" in printed.getvalue()


def test_a_long_poll_with_nothing_new_looks_as_the_readme_says(sdk: ModuleType, stack: Stack) -> None:
    """docs/playing.md "Nothing new yet: 304": the lines for requests, httpx and openapi-python-client hold."""
    import httpx
    import requests

    with sdk.Client(base_url=stack.base_url, timeout=httpx.Timeout(20)) as anonymous:
        view = create(sdk, anonymous, "tadmur", seed=4)  # seat 0 (us) acts first: no version comes by itself
        get_game = sdk_module(sdk, "api.games.get_game")
        with sdk.AuthenticatedClient(base_url=stack.base_url, token=view.player_token) as player:
            assert get_game.sync(view.game_id, client=player, after_version=view.version, wait=0.2) is None
            detailed = get_game.sync_detailed(view.game_id, client=player, after_version=view.version, wait=0.2)
            assert detailed.status_code == 304
    url = f"{stack.base_url}/v1/games/{view.game_id}?after_version={view.version}&wait=0.2"
    answer = requests.get(url, timeout=20)
    assert (answer.status_code, answer.ok, answer.content) == (304, True, b"")
    polled = httpx.get(url, timeout=20)
    assert (polled.status_code, polled.is_success, polled.is_redirect, polled.content) == (304, False, True, b"")


def test_generated_sdk_finds_a_table_by_quick_match_and_plays_it(sdk: ModuleType, stack: Stack) -> None:
    """docs/api-additions.md "Quick match" through the generated client: a ticket cancelled, then one whose
    fallback seats an AI, long-polled until matched; its `player_token` plays the game to the end."""
    import httpx

    models = sdk_module(sdk, "models")
    create_ticket = sdk_module(sdk, "api.matches.create_match_ticket")
    get_ticket = sdk_module(sdk, "api.matches.get_match_ticket")
    cancel_ticket = sdk_module(sdk, "api.matches.cancel_match_ticket")
    timeout = httpx.Timeout(WAIT_SECONDS + 10)
    with sdk.Client(base_url=stack.base_url, timeout=timeout) as anonymous:
        made = create_ticket.sync_detailed(client=anonymous, body=models.MatchRequest.from_dict({"game": "tadmur"}))
        assert made.status_code == 202 and made.headers["Location"] == f"/v1/matches/{made.parsed.ticket_id}"
        assert isinstance(made.parsed, models.NewTicket) and made.parsed.status == "waiting"
        with sdk.AuthenticatedClient(base_url=stack.base_url, token=made.parsed.ticket_token, timeout=timeout) as me:
            cancelled = cancel_ticket.sync(made.parsed.ticket_id, client=me)
            assert isinstance(cancelled, models.Ticket) and cancelled.status == "cancelled"
        body = models.MatchRequest.from_dict({"game": "tadmur", "name": "Ann",
                                              "fallback": {"after_seconds": 0, "level": "easy"}})
        ticket = create_ticket.sync(client=anonymous, body=body)
    with sdk.AuthenticatedClient(base_url=stack.base_url, token=ticket.ticket_token, timeout=timeout) as me:
        guard = StallGuard(f"ticket {ticket.ticket_id}")
        while ticket.status == "waiting":
            guard.check(None)
            ticket = get_ticket.sync(ticket.ticket_id, client=me, wait=WAIT_SECONDS)
        assert ticket.status == "matched" and ticket.seat == 0 and ticket.player_token == me.token
    with sdk.AuthenticatedClient(base_url=stack.base_url, token=ticket.player_token, timeout=timeout) as player:
        view = sdk_module(sdk, "api.games.get_game").sync(ticket.game_id, client=player)
        assert view.you == 0 and [seat.kind for seat in view.seats] == ["human", "ai"]
        final = play_to_the_end(sdk, player, view, random.Random(41))
    assert final.result is not None
