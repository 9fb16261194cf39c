"""HTTP routes: rules, games (games, seats, view, actions, events) and health."""
