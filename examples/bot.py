"""A minimal Cardroom bot: play Durak against the AI with random legal moves, following the game's event stream.

Usage: python examples/bot.py [SERVER_URL]   (default http://127.0.0.1:8000; needs only `requests`)
"""

import argparse
import json
import random
import time

import requests


def views(session: requests.Session, game_url: str, last_version: int | None):
    """Yield each view of `GET {game_url}/stream` (Server-Sent Events), reconnecting after `last_version`."""
    while True:
        headers = {} if last_version is None else {"Last-Event-ID": str(last_version)}
        with session.get(f"{game_url}/stream", headers=headers, stream=True, timeout=60) as response:
            if response.status_code == 503:  # too busy, or restarting: come back after Retry-After
                time.sleep(float(response.headers.get("Retry-After", 1)))
                continue
            response.raise_for_status()
            for line in response.iter_lines(decode_unicode=True):
                if line == "event: revoked":  # the token no longer holds its seat (it left): nothing more to play
                    return
                if line.startswith("data: "):  # one event per new version; ":" lines only keep it open
                    view = json.loads(line[len("data: "):])
                    last_version = view["version"]
                    yield view
                    if view["status"] == "finished":
                        return
        # the server ended the stream early (e.g. a restart): reconnect where we were


def main(server: str) -> None:
    """Create a game against the easy AI, play it to the end and print the result."""
    seats = [{"kind": "human", "name": "bot"}, {"kind": "ai", "level": "easy"}]
    response = requests.post(f"{server}/v1/games", json={"game": "durak", "seats": seats}, timeout=10)
    response.raise_for_status()
    game_url = f"{server}/v1/games/{response.json()['game_id']}"
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {response.json()['player_token']}"
    for view in views(session, game_url, None):
        moves = [action for action in view["legal_actions"] if action["type"] != "resign"]
        if moves:
            # If-Match: the move is refused (412) rather than applied to a game that changed meanwhile.
            headers = {"If-Match": f'"{view["version"]}"'}
            response = session.post(f"{game_url}/actions", json=random.choice(moves), headers=headers, timeout=10)
            response.raise_for_status()
    print(f"game {view['game_id']} finished after {view['version']} versions; result: {view['result']}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("server", nargs="?", default="http://127.0.0.1:8000", help="the server's URL")
    main(parser.parse_args().server)
