"""A minimal Cardroom bot: play Durak against the AI with random legal moves.

Usage: python examples/bot.py [SERVER_URL]   (default http://127.0.0.1:8000; needs only `requests`)
"""

import random
import sys
import time

import requests


def main(server: str) -> None:
    """Create a game against the easy AI, play it to the end and print the result."""
    seats = [{"kind": "human", "name": "bot"}, {"kind": "ai", "level": "easy"}]
    response = requests.post(f"{server}/v1/games", json={"game": "durak", "seats": seats}, timeout=10)
    response.raise_for_status()
    view = response.json()
    game_url = f"{server}/v1/games/{view['game_id']}"
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {view['player_token']}"
    while view["status"] != "finished":
        moves = [action for action in view["legal_actions"] if action["type"] != "resign"]
        if moves:
            # If-Match: the move is refused (412) rather than applied to a game that changed meanwhile.
            headers = {"If-Match": f'"{view["version"]}"'}
            response = session.post(f"{game_url}/actions", json=random.choice(moves), headers=headers, timeout=10)
        else:
            # Long-poll: the server answers as soon as the AI has moved (304 if it has not within 20 s). A busy
            # server may answer at once with Retry-After: wait that long before asking again.
            response = session.get(game_url, params={"after_version": view["version"], "wait": 20}, timeout=30)
            if response.status_code == 304:
                time.sleep(float(response.headers.get("Retry-After", 0)))
                continue
        response.raise_for_status()
        view = response.json()
    print(f"game {view['game_id']} finished after {view['version']} versions; result: {view['result']}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000")
