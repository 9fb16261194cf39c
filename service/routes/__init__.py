"""HTTP routes: rules, games (games, seats, view, actions, events), health and metrics."""
