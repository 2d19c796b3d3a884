"""The odds worker: one process for the heavy questions, and the cache of their answers."""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from typing import Any, Final, TypeVar

from app.rules import serial

T = TypeVar("T")

#: Answers kept per process (identical questions); the rules' functions keep their own too.
CACHE_SIZE: Final = 512


_workers: list[ProcessPoolExecutor] = []


def _pool() -> ProcessPoolExecutor:
    """One worker process for the heavy questions, shared by every app of this process
    ("spawn": no fork of a running event loop). It ends with the process: joined at exit,
    and on its own when the process is killed (`_follow_parent`)."""
    if not _workers:
        _workers.append(
            ProcessPoolExecutor(
                max_workers=1,
                mp_context=get_context("spawn"),
                initializer=_follow_parent,
                initargs=(os.getpid(),),
            )
        )
    return _workers[0]


def start_pool() -> None:
    """Start the worker process now and have it import the odds modules (about 0.7 s), so a
    first heavy question does not wait for that; for the app's lifespan, at startup."""
    _pool().submit(_ready)


def _ready() -> None:
    """Nothing: running it in the worker imports the odds modules (the rules' odds)."""
    import app.api.odds.routes  # noqa: F401 - the import is the point


def _follow_parent(parent: int) -> None:
    """In the worker: end when the server process is gone (killed, it cannot stop us)."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


_answers: OrderedDict[tuple[Any, ...], Any] = OrderedDict()


async def off_loop(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` in the worker process, from the cache when asked before."""
    key = (function.__module__, function.__qualname__, *args)
    if key in _answers:
        _answers.move_to_end(key)
        return _answers[key]  # type: ignore[no-any-return]
    result = await asyncio.get_running_loop().run_in_executor(_pool(), function, *args)
    _remember(key, result)
    return result


def inline_cached(function: Callable[..., T], *args: Any) -> T:
    """`function(*args)` here, from the same cache as `off_loop` when asked before."""
    key = (function.__module__, function.__qualname__, *args)
    if key in _answers:
        _answers.move_to_end(key)
        return _answers[key]  # type: ignore[no-any-return]
    result = function(*args)
    _remember(key, result)
    return result


def _remember(key: tuple[Any, ...], answer: Any) -> None:
    _answers[key] = answer
    if len(_answers) > CACHE_SIZE:
        _answers.popitem(last=False)


def as_json(value: object) -> str:
    """A rules dataclass as the worker is sent it: JSON, which is also its key in the cache
    (the dataclasses hold dicts, which are unhashable)."""
    return json.dumps(serial.dump(value), sort_keys=True)
