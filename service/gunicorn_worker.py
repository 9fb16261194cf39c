"""gunicorn's gevent worker, draining the clients that wait for a game when the process is told to stop.

On SIGTERM (or SIGINT, SIGQUIT) gunicorn stops accepting connections and lets requests in flight finish within
`graceful_timeout`; a long-poll holds a request up to 30 s and a stream for ever, so without this they would be cut
off with an empty reply. Draining answers every held long-poll at once (the current view, or 304) and ends every
stream (its client reconnects with `Last-Event-ID`, to another process), so no client sees an empty reply.
"""

from __future__ import annotations

import gevent
from gunicorn.workers import ggevent


def _drain() -> None:
    # imported here, in the worker once gevent has patched it: gunicorn's master loads this module too, and must
    # not import redis (gevent would then leave modules unpatched)
    from service.dispatcher import drain_all

    drain_all()


class GeventWorker(ggevent.GeventWorker):
    """`gunicorn.workers.ggevent.GeventWorker` that drains this process's waiting clients on shutdown."""

    def handle_exit(self, sig: int, frame: object) -> None:
        """SIGTERM: stop gracefully, answering the waiting clients first."""
        super().handle_exit(sig, frame)
        gevent.spawn(_drain)  # out of the signal handler: draining takes locks

    def handle_quit(self, sig: int, frame: object) -> None:
        """SIGINT, SIGQUIT: stop quickly, answering the waiting clients first."""
        super().handle_quit(sig, frame)
        gevent.spawn(_drain)
