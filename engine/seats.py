"""Seat order: seats are numbered 0..N-1 in turn order."""

from __future__ import annotations

from engine.protocol import Seat


def next_seat(seat: Seat, seats: int) -> Seat:
    """The seat after `seat` in turn order, wrapping around.

    >>> next_seat(0, 2), next_seat(1, 2), next_seat(4, 5)
    (1, 0, 0)
    """
    return (seat + 1) % seats


def seats_from(first: Seat, seats: int) -> list[Seat]:
    """Every seat once, in turn order starting at `first`.

    >>> seats_from(2, 4), seats_from(0, 3)
    ([2, 3, 0, 1], [0, 1, 2])
    """
    return [(first + offset) % seats for offset in range(seats)]


def other_seat(seat: Seat) -> Seat:
    """The opponent in a two-seat game.

    >>> other_seat(0), other_seat(1)
    (1, 0)
    """
    return 1 - seat
