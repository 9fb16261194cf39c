"""The AI toolkit that every game's players build on; it imports no game.

The search (`search.py`), the exact solver (`solver.py`), what a seat may know (`view.py`), the card values of the
36-card French games (`costs.py`) and the levels' measured ratings (`ratings.py`). Each game's players
(engine/games/<game>/players.py) build on it, and engine/players.py gathers them into the levels the worker plays.
"""
