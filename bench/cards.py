"""What a round's cards cost (app/api/answers/cards.py): for each session kind, the microseconds
its cards add to an answer showing one round, in English and in German; then a round answer
with its cards against the same answer without them and against the bare app, in one process
and one run.

    .venv/bin/python -m bench.cards [--calls 1000] [--requests 1000] [--rounds 5]

First, one round of each kind is played in process (the whole app over httpx's ASGI
transport), and its record read back without its cards; then the answer of that round is
serialised as the service does it (`orjson.dumps(postable(...))`), with its cards made
(`with_cards`, the kind's `round_card`, its words rendered in the language) and without, in
alternating runs of `--calls` each: the difference of the two medians is what the cards add.
Last, arm-wrestle rounds with the server's dice (`POST …/rounds`, spread over many sessions)
are timed through the whole ASGI stack with the cards made and with `with_cards` left out, and
the bare app's `GET /`, alternating in `--rounds` rounds of `--requests` each; each is
reported as the median of its rounds' p50 and p99 (microseconds) and its p50 as a ratio to
the bare app's.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import tempfile
import time
from collections.abc import Callable, Mapping
from typing import Any

import httpx
import orjson

from bench.bare import app as bare_app
from bench.run import microsecond_percentiles, print_against_bare

ARM_WRESTLE = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 2, "con_score": 200, "con_mod": 1},
    "target": 100,
    "max_rounds": 10_000,
}
SKILL_GAME: dict[str, Any] = {
    "dc": 15,
    "skill_list": ["Athletics", "Stealth", "Lore"],
    "skills_per_round": 2,
    "kind": "bidding",
    "actions": [
        {"name": "Charge", "effects": [{"text": "A scramble forward.", "progress": 2}]},
        {"name": "Rally", "effects": [{"text": "Second wind.", "tokens": 2}]},
    ],
    "goal": 60,
    "parties": [
        {
            "name": "Heroes",
            "controller": "gm",
            "members": [
                {"name": "Ann", "skills": {"Athletics": 5, "Lore": 2}},
                {"name": "Bo", "skills": {"Stealth": 4}},
            ],
        },
        {
            "name": "Bandits",
            "controller": "gm",
            "members": [{"name": "Rook", "skills": {"Stealth": 6, "Athletics": 1}}],
        },
    ],
}
#: The rounds played in one arm wrestle of the round answers' timing.
ROUNDS_EACH = 5
#: (kind, its creation body, its round body): one round of each kind, the server's dice.
KINDS: tuple[tuple[str, dict[str, Any], dict[str, Any] | None], ...] = (
    ("arm-wrestles", ARM_WRESTLE, {}),
    (
        "regular-contests",
        {"a": {"name": "Ines", "skill": 13}, "b": {"name": "Bram", "skill": 12}},
        {},
    ),
    (
        "races",
        {
            "course": "dash",
            "competitors": [
                {"name": "Ann", "speed": 30, "mods": {"strength": 2}},
                {"name": "Bob", "speed": 30, "mods": {"strength": 1}},
                {"name": "Cy", "speed": 40, "mods": {"strength": 0}},
            ],
        },
        {},
    ),
    (
        "chases",
        {
            "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 3, "dexterity": 2}},
            "chaser": {"name": "the guard", "speed": 30, "mods": {"strength": 1}},
            "start": {"mode": "lead", "lead": 12},
        },
        {"terrain": {"check": "strength"}, "tactic": {"kind": "hazard", "penalty": 2}},
    ),
    ("skill-games", SKILL_GAME, None),
)


async def play_one(
    client: httpx.AsyncClient, kind: str, body: Any, round_body: Any
) -> tuple[str, str]:
    """A session of `kind` with one round played (a skill game: one revealed round); its id
    and the GM's token."""
    created = (await client.post(f"/v1/{kind}", json=body)).raise_for_status().json()
    session, gm = created["id"], {"authorization": f"Bearer {created['tokens']['gm']}"}
    base = f"/v1/{kind}/{session}"
    if round_body is not None:
        (await client.post(f"{base}/rounds", json=round_body, headers=gm)).raise_for_status()
        return session, created["tokens"]["gm"]
    for party, skills in (("Heroes", ["Athletics", "Lore"]), ("Bandits", ["Stealth", "Athletics"])):
        chosen = {"party": party, "skills": skills}
        (await client.post(f"{base}/skills", json=chosen, headers=gm)).raise_for_status()
    for party, action, bid in (("Heroes", "Charge", 0), ("Bandits", "Rally", 0)):
        sealed = {"party": party, "action": action, "bid": bid}
        (await client.post(f"{base}/choices", json=sealed, headers=gm)).raise_for_status()
    return session, created["tokens"]["gm"]


def per_call(calls: int, make: Callable[[], bytes]) -> float:
    """Microseconds a call of `make` takes, over `calls` calls."""
    started = time.perf_counter()
    for _ in range(calls):
        make()
    return (time.perf_counter() - started) / calls * 1e6


def card_costs(
    records: Mapping[str, tuple[Any, Mapping[str, Any]]], calls: int, rounds: int
) -> dict[str, dict[str, tuple[float, float]]]:
    """For each kind and language: (µs without cards, µs with) for one round's answer."""
    from app.api import i18n
    from app.api.answers.cards import with_cards
    from app.api.answers.formats import postable
    from app.api.kinds.registry import KINDS as REGISTRY

    found: dict[str, dict[str, tuple[float, float]]] = {}
    for path, (config, record) in records.items():
        kind = REGISTRY[path]
        answer = {"round": record, "summary": record.get("summary", "")}

        def maker(played: Mapping[str, Any], k: Any = kind, c: Any = config) -> Any:
            return k.round_card(c, played)

        def without(a: Mapping[str, Any] = answer) -> bytes:
            return orjson.dumps(postable(dict(a)))

        def carded(a: Mapping[str, Any] = answer, m: Any = maker) -> bytes:
            return orjson.dumps(postable(with_cards(a, m)))

        found[path] = {}
        for language in ("en", "de"):
            bare_runs, carded_runs = [], []
            with i18n.speaking(language):
                for _ in range(rounds):
                    bare_runs.append(per_call(calls, without))
                    carded_runs.append(per_call(calls, carded))
            found[path][language] = (statistics.median(bare_runs), statistics.median(carded_runs))
    return found


async def timed(client: httpx.AsyncClient, requests: int, send: Any) -> list[float]:
    spent = []
    for index in range(requests):
        started = time.perf_counter()
        answer = await send(client, index)
        spent.append(time.perf_counter() - started)
        if answer.is_error:
            raise SystemExit(f"{answer.request.url}: {answer.status_code} {answer.text}")
    return spent


async def main(calls: int, requests: int, rounds: int) -> None:
    from app.api.kinds import load_config
    from app.api.sessions import lifecycle
    from app.main import create_app
    from app.settings import Settings
    from app.store.database import upgrade_to_head

    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{folder}/bench.db"
        upgrade_to_head(url)
        app = create_app(Settings(database_url=url, log_requests=False))
        async with app.router.lifespan_context(app):
            arbiter = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://a")
            bare = httpx.AsyncClient(
                transport=httpx.ASGITransport(app=bare_app), base_url="http://b"
            )
            # One round of each kind, read back as stored (its cards left out), and the
            # session's config as the service loads it to make the cards.
            configs: dict[str, Any] = {}
            # The lifecycle's own names, swapped for the bench's and back (a module's dict).
            names = vars(lifecycle)
            making = names["_card_maker"]

            def keeping(kind: Any, record: Any) -> Any:
                configs[kind.path] = load_config(kind, record.config, record.id)
                return making(kind, record)

            names["_card_maker"] = keeping
            records: dict[str, tuple[Any, Mapping[str, Any]]] = {}
            try:
                for path, body, round_body in KINDS:
                    session, token = await play_one(arbiter, path, body, round_body)
                    page = await arbiter.get(
                        f"/v1/{path}/{session}/rounds", headers={"authorization": f"Bearer {token}"}
                    )
                    record = page.raise_for_status().json()["rounds"][0]
                    record.pop("cards")
                    records[path] = (configs[path], record)
            finally:
                names["_card_maker"] = making
            costs = card_costs(records, calls, rounds)

            # Arm-wrestle rounds through the whole app, with their cards and without.
            # A session takes at most ROUNDS_EACH rounds: far from its end (a DS of 100).
            sessions = []
            for _ in range(2 * requests * rounds // ROUNDS_EACH + 1):
                created = await arbiter.post("/v1/arm-wrestles", json=ARM_WRESTLE)
                made = created.raise_for_status().json()
                sessions.append((f"/v1/arm-wrestles/{made['id']}/rounds", made["tokens"]["gm"]))

            played = itertools.count()

            async def play(client: httpx.AsyncClient, _index: int) -> httpx.Response:
                url, token = sessions[next(played) // ROUNDS_EACH]
                return await client.post(url, json={}, headers={"authorization": f"Bearer {token}"})

            carding = names["with_cards"]
            figures: dict[str, list[tuple[float, float]]] = {
                "bare FastAPI GET /": [],
                "arm-wrestle round, with its cards": [],
                "arm-wrestle round, no cards": [],
            }
            for _ in range(rounds):
                spent = await timed(bare, requests, lambda client, _index: client.get("/"))
                figures["bare FastAPI GET /"].append(microsecond_percentiles(spent))
                spent = await timed(arbiter, requests, play)
                figures["arm-wrestle round, with its cards"].append(microsecond_percentiles(spent))
                names["with_cards"] = lambda answer, _maker: dict(answer)
                try:
                    spent = await timed(arbiter, requests, play)
                finally:
                    names["with_cards"] = carding
                figures["arm-wrestle round, no cards"].append(microsecond_percentiles(spent))
            await bare.aclose()
            await arbiter.aclose()

    print(f"A round's cards, per answer of one round: {calls} calls x {rounds} runs, median")
    print(f"{'':20} {'lang':>4} {'no cards µs':>12} {'with µs':>9} {'cards add µs':>13}")
    for path, by_language in costs.items():
        for language, (without, with_them) in by_language.items():
            print(
                f"{path:20} {language:>4} {without:12.1f} {with_them:9.1f}"
                f" {with_them - without:13.1f}"
            )
    print()
    print_against_bare(figures, requests, rounds)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    options = parser.parse_args()
    asyncio.run(main(options.calls, options.requests, options.rounds))
