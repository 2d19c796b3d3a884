"""What answering in another language costs: a quick contest in English, in German asked by
`Accept-Language`, and by `?lang=`, against the bare app, in one process and one run.

    .venv/bin/python -m bench.languages [--requests 3000] [--rounds 5]

Each request goes through the whole ASGI stack in process (httpx's ASGI transport, no
sockets), so the figures are the app's own time per request; the kinds alternate in rounds,
and each is reported as the median of its rounds' p50 and p99 (microseconds) and as a ratio
of p50 to the bare app's in the same run.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Mapping
from typing import Any

import httpx

from bench.bare import app as bare_app
from bench.run import QUICK_CONTEST, microsecond_percentiles, print_against_bare

#: (label, path, headers): what is measured besides the bare app.
KINDS: tuple[tuple[str, str, Mapping[str, str]], ...] = (
    ("quick contest, English", "/v1/gurps/quick-contest", {}),
    ("quick contest, Accept-Language: de", "/v1/gurps/quick-contest", {"accept-language": "de"}),
    ("quick contest, ?lang=pt-BR", "/v1/gurps/quick-contest?lang=pt-BR", {}),
    (
        "quick contest, de, text/plain",
        "/v1/gurps/quick-contest",
        {"accept-language": "de", "accept": "text/plain"},
    ),
)


async def timed(client: httpx.AsyncClient, requests: int, send: Any) -> list[float]:
    spent = []
    for _ in range(requests):
        started = time.perf_counter()
        answer = await send(client)
        spent.append(time.perf_counter() - started)
        answer.raise_for_status()
    return spent


async def main(requests: int, rounds: int) -> None:
    from app.main import create_app
    from app.settings import Settings

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(Settings(database_url=f"sqlite:///{folder}/bench.db", log_requests=False))
        async with app.router.lifespan_context(app):
            bare = httpx.AsyncClient(
                transport=httpx.ASGITransport(app=bare_app), base_url="http://b"
            )
            arbiter = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://a")
            figures: dict[str, list[tuple[float, float]]] = {"bare FastAPI GET /": []}
            for label, _, _ in KINDS:
                figures[label] = []
            for _ in range(rounds):
                spent = await timed(bare, requests, lambda client: client.get("/"))
                figures["bare FastAPI GET /"].append(microsecond_percentiles(spent))
                for label, path, headers in KINDS:
                    spent = await timed(
                        arbiter,
                        requests,
                        lambda client, p=path, h=headers: client.post(
                            p, json=QUICK_CONTEST, headers=h
                        ),
                    )
                    figures[label].append(microsecond_percentiles(spent))
            await bare.aclose()
            await arbiter.aclose()
    print_against_bare(figures, requests, rounds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=3000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    asyncio.run(main(options.requests, options.rounds))
