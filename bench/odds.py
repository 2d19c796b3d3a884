"""Odds timings, over HTTP on one uvicorn worker, each question asked once, cold.

    .venv/bin/python bench/odds.py

Prints: icepool computing the two-dice average of sorted 7d100 in a fresh process, against
`POST /v1/odds/cairn` (target: 5x faster); a quick-contest resolution's round trip (median
of 50) against quick-contest odds (target <= 1.5x) and arm-wrestle odds from creation
(target <= 3x); every odds question's time (target < 250 ms); and a quick contest's round
trip while the most expensive odds question runs (target < 3x idle).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.run import server  # noqa: E402

QUICK = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}
LYDIA = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
}
ICEPOOL = "import icepool; (icepool.d100.pool(7).keep((0, 0, 0, 1, 1, 0, 0)).sum() // 2).mean()"


def app_with_odds() -> Any:
    """The service as `create_app` builds it (the odds routes are among its routes)."""
    from app.main import create_app

    return create_app()


def timed(client: httpx.Client, path: str, body: object) -> float:
    start = time.perf_counter()
    answer = client.post(path, json=body)
    elapsed = time.perf_counter() - start
    answer.raise_for_status()
    return elapsed * 1000


def icepool_fresh_process() -> float:
    runs = []
    for _ in range(3):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", ICEPOOL], check=True)
        runs.append((time.perf_counter() - start) * 1000)
    return min(runs)


def main() -> None:
    icepool_ms = icepool_fresh_process()
    with (
        server("bench.odds:app_with_odds", factory=True) as base,
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        time.sleep(3)  # the odds worker process starts with the routes
        for _ in range(20):
            timed(client, "/v1/gurps/quick-contest", QUICK)
        idle = statistics.median(timed(client, "/v1/gurps/quick-contest", QUICK) for _ in range(50))
        questions: list[tuple[str, str, object]] = [
            ("quick-contest odds", "/v1/odds/gurps/quick-contest", QUICK),
            ("success-roll odds", "/v1/odds/gurps/success-roll", {"skill": 13}),
            (
                "resistance odds",
                "/v1/odds/gurps/resistance-roll",
                {"attacker": {"name": "W", "skill": 14}, "defender": {"name": "O", "skill": 11}},
            ),
            (
                "regular-contest odds (10 000 rounds)",
                "/v1/odds/gurps/regular-contest",
                {
                    "a": {"name": "A", "skill": 11},
                    "b": {"name": "B", "skill": 10},
                    "max_rounds": 10_000,
                },
            ),
            ("cairn odds, rating 12", "/v1/odds/cairn", {"rating": 12, "target": 45}),
            ("cairn odds, rating 3", "/v1/odds/cairn", {"rating": 3}),
            ("arm-wrestle odds (Lydia v Ogre)", "/v1/odds/arm-wrestles", LYDIA),
        ]
        figures = {name: timed(client, path, body) for name, path, body in questions}
        # The most expensive allowed question: an arm wrestle (cold: a new seed each time).
        during: list[float] = []
        for seed in range(1, 6):
            heavy = threading.Thread(
                target=timed,
                args=(
                    httpx.Client(base_url=base, timeout=30),
                    "/v1/odds/arm-wrestles",
                    {**LYDIA, "seed": seed},
                ),
            )
            heavy.start()
            time.sleep(0.01)
            while heavy.is_alive():
                during.append(timed(client, "/v1/gurps/quick-contest", QUICK))
            heavy.join()
    print(f"quick-contest resolution, idle round trip (median of 50): {idle:.2f} ms")
    for name, ms in figures.items():
        print(f"{name:40s} {ms:7.2f} ms  ({ms / idle:5.1f}x quick contest)")
    cairn_ms = figures["cairn odds, rating 12"]
    print(f"icepool, fresh process (best of 3):      {icepool_ms:7.2f} ms")
    print(f"cairn odds vs icepool: {icepool_ms / cairn_ms:.1f}x faster (target >= 5x)")
    print(
        f"quick contest while arm-wrestle odds run: median {statistics.median(during):.2f} ms, "
        f"max {max(during):.2f} ms over {len(during)} requests "
        f"({statistics.median(during) / idle:.1f}x idle; target < 3x)"
    )


if __name__ == "__main__":
    main()
