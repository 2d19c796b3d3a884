"""What the process does when it is told to stop (SIGTERM, SIGINT), beside the server's own
handling of it: ending the live streams, noting the stop for the odds worker."""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any

#: The signals a server is told to stop with: a deploy's or `docker stop`'s, and Ctrl+C.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def on_stop(action: Callable[[], None]) -> Callable[[], None]:
    """Run `action` when the process is told to stop, then the handler installed before this
    one (the server's own: it still shuts down). What it returns puts each handler back as it
    was, for the lifespan's end; a handler installed over this one meanwhile is left alone.

    Only the main thread gets signals: an app run in another thread (as tests run them) is
    left alone, and so is a signal that has no Python handler to hand on to."""
    if threading.current_thread() is not threading.main_thread():
        return _nothing
    installed: list[tuple[int, Callable[[int, FrameType | None], Any], Any]] = []
    for number in STOP_SIGNALS:
        previous = signal.getsignal(number)
        if not callable(previous):
            continue

        def handler(received: int, frame: FrameType | None, previous: Any = previous) -> None:
            action()
            previous(received, frame)

        signal.signal(number, handler)
        installed.append((number, handler, previous))

    def restore() -> None:
        for number, handler, previous in reversed(installed):
            if signal.getsignal(number) is handler:
                signal.signal(number, previous)

    return restore


def _nothing() -> None:
    return None
