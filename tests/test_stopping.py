"""The process's handlers for being told to stop (app/api/stopping.py): each runs its action
and hands the signal on, and each app's lifespan leaves the handlers as it found them."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest

from app.api.stopping import STOP_SIGNALS, on_stop
from app.main import create_app
from app.settings import Settings
from app.store.database import upgrade_to_head


@pytest.fixture
def handlers() -> Any:
    """The stop signals' handlers as they were, put back after the test whatever it did."""
    before = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    yield before
    for number, handler in before.items():
        signal.signal(number, handler)


def fire(number: int) -> None:
    """What the process does when `number` arrives: its Python handler, called."""
    handler = signal.getsignal(number)
    assert callable(handler)
    handler(number, None)


def as_a_server_would(heard: list[tuple[str, int]]) -> None:
    """Handlers of the server's own for both signals (uvicorn's, in a served process)."""
    for number in STOP_SIGNALS:
        signal.signal(number, lambda got, _frame: heard.append(("before", got)))


@pytest.mark.usefixtures("handlers")
def test_an_action_runs_then_the_handler_before_it_and_is_taken_away_again() -> None:
    heard: list[tuple[str, int]] = []
    as_a_server_would(heard)
    restore = on_stop(lambda: heard.append(("action", 0)))
    fire(signal.SIGTERM)
    fire(signal.SIGINT)
    assert heard == [
        ("action", 0),
        ("before", signal.SIGTERM),
        ("action", 0),
        ("before", signal.SIGINT),
    ]
    restore()
    heard.clear()
    fire(signal.SIGTERM)
    assert heard == [("before", signal.SIGTERM)]


@pytest.mark.usefixtures("handlers")
def test_a_handler_installed_over_it_meanwhile_is_left_alone() -> None:
    as_a_server_would([])
    server = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    restore = on_stop(lambda: None)
    later = signal.getsignal(signal.SIGINT)

    def over(_got: int, _frame: object) -> None:
        return None

    signal.signal(signal.SIGTERM, over)
    restore()
    assert signal.getsignal(signal.SIGTERM) is over
    assert signal.getsignal(signal.SIGINT) is not later  # this one was still its own: put back
    assert signal.getsignal(signal.SIGINT) is server[signal.SIGINT]


@pytest.mark.usefixtures("handlers")
def test_an_apps_lifespan_leaves_the_handlers_as_it_found_them(tmp_path: Path) -> None:
    """Run in the main thread, so that its handlers are installed (the odds worker's note of
    the stop, the streams' end); three apps one after the other do not make a chain."""
    url = f"sqlite:///{tmp_path / 'arbiter.db'}"
    upgrade_to_head(url)
    heard: list[tuple[str, int]] = []
    as_a_server_would(heard)
    server = {number: signal.getsignal(number) for number in STOP_SIGNALS}
    during: list[dict[int, Any]] = []

    async def serve_once() -> None:
        app = create_app(Settings(database_url=url, odds_prestart=False))
        async with app.router.lifespan_context(app):
            during.append({number: signal.getsignal(number) for number in STOP_SIGNALS})

    for _ in range(3):
        asyncio.run(serve_once())
        assert {number: signal.getsignal(number) for number in STOP_SIGNALS} == server
    # While each served, its own handlers were installed over the server's.
    assert len(during) == 3
    assert all(seen[number] is not server[number] for seen in during for number in STOP_SIGNALS)
