"""Odds timings, over HTTP on one uvicorn worker, each question asked once, cold.

    .venv/bin/python bench/odds.py          (also the last part of `make bench`)
    .venv/bin/python bench/odds.py --walks  (only the exact arm-wrestle walks, in process)
    .venv/bin/python bench/odds.py --scan   (only the bounded walk over the 316-round matches)

Prints: icepool computing the two-dice average of sorted 7d100 in a fresh process, against
`POST /v1/odds/cairn` (target: 5x faster); quick-contest odds worked out in this process
against icepool answering the same question (who wins, the margin of victory), both warm,
each pair of skills asked once (target: no slower); a quick-contest resolution's round trip
(median of 50) against quick-contest odds (target <= 1.5x; the median of fifteen different
pairs of skills) and arm-wrestle odds from creation (target <= 3x, set when they were a Monte
Carlo estimate; exact, in the worker, they take tens of milliseconds); every odds question's
time, one of each kind and a chase's odds at a choice of three options (target < 250 ms); and
a quick contest's round trip while the most expensive allowed odds question runs (target < 3x
idle). Then the exact arm-wrestle walk in this process (the worker's work, no round trip):
Lydia against the Ogre from creation (target <= 50 ms), matches that can last longer, and the
longest match the creation limits allow (316 rounds): answered when one side never loses a
round (modifiers 19 apart), refused past the walk's budget of work when even (the time until
it is refused; docs/api.md#odds gives what is answered), and after each refusal the bounded
walk that answers it (target <= 1 s). `--scan`: the bounded walk of every 316-round match of
check modifiers 0 to 18 apart at targets 10, 50 and 100, the slowest first (target <= 1 s).

"Cold": no question is asked twice, so none is answered from a cache; the server has
answered other questions first (a different pair of skills, a different rating), as a
running service has, so that its first-request costs are not counted as the odds'; one of
them is a bounded walk, which waits for the worker to have loaded its compiled kernel (it does
so in a thread for about a second after it starts, slowing whatever it answers meanwhile).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.api.odds.skill_games import TOKENS_EXAMPLE  # noqa: E402
from bench.run import server  # noqa: E402

QUICK = {"a": {"name": "Ann", "skill": 12}, "b": {"name": "Bob", "skill": 10}}
LYDIA = {
    "a": {"name": "Lydia", "strength_mod": 2, "con_score": 12, "con_mod": 1},
    "b": {"name": "Ogre", "strength_mod": 6, "con_score": 15, "con_mod": 2},
}
GAME: dict[str, Any] = TOKENS_EXAMPLE["game"]
#: A skill game as large as the service takes: 64 members in 2 parties, choosing 64 skills
#: (each member rated in two of them, to keep the body under the size limit).
SKILLS = [f"Skill {n}" for n in range(64)]
BIG_GAME: dict[str, Any] = {
    **GAME,
    "skill_list": SKILLS,
    "skills_per_round": 64,
    "parties": [
        {
            "name": party,
            "controller": "players",
            "members": [
                {"name": f"{party} {n}", "skills": {SKILLS[n]: n % 10, SKILLS[-1 - n]: 3}}
                for n in range(32)
            ],
        }
        for party in ("Heroes", "Rivals")
    ],
}
CHASE = {
    "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 2}},
    "chaser": {"name": "Guard", "speed": 30, "mods": {"strength": 1}},
    "start": {"mode": "lead", "lead": 12},
    "terrain": {"check": "strength"},
    "tactic_policy": "hide-when-possible",
}
RACE = {
    "course": "dash",
    "competitors": [
        {"name": "Ann", "speed": 30, "mods": {"strength": 2}},
        {"name": "Bob", "speed": 40, "mods": {"strength": 0}},
    ],
    "seed": 7,
}
#: Arm wrestles by the most rounds they can last: (name, create body).
ARM_LADDER: list[tuple[str, dict[str, Any]]] = [
    ("Lydia v Ogre, 25 rounds", LYDIA),
    (
        "even, target 10, 30 rounds",
        {
            "a": {"name": "A", "strength_mod": 0, "con_score": 200, "con_mod": 100},
            "b": {"name": "B", "strength_mod": 0, "con_score": 200, "con_mod": 100},
            "target": 10,
            "max_rounds": 30,
        },
    ),
    (
        "even, Con 18 +4 Endurance, 38 rounds",
        {
            "a": {"name": "A", "strength_mod": 0, "con_score": 18, "con_mod": 4, "endurance": True},
            "b": {"name": "B", "strength_mod": 0, "con_score": 18, "con_mod": 4, "endurance": True},
        },
    ),
    (
        "even, Con 30 +10, target 100, 52 rounds",
        {
            "a": {"name": "A", "strength_mod": 0, "con_score": 30, "con_mod": 10},
            "b": {"name": "B", "strength_mod": 0, "con_score": 30, "con_mod": 10},
            "target": 100,
        },
    ),
    (
        "even, Con 40 +10, 62 rounds",
        {
            "a": {"name": "A", "strength_mod": 0, "con_score": 40, "con_mod": 10},
            "b": {"name": "B", "strength_mod": 0, "con_score": 40, "con_mod": 10},
        },
    ),
    (
        "modifiers 18 apart, Con 200 +104, target 100, 123 rounds",
        {
            "a": {"name": "A", "strength_mod": 18, "con_score": 200, "con_mod": 100},
            "b": {"name": "B", "strength_mod": 0, "con_score": 200, "con_mod": 100},
            "target": 100,
            "max_rounds": 123,
        },
    ),
    (
        "longest allowed, modifiers 19 apart: 316 rounds",
        {
            "a": {
                "name": "A",
                "strength_mod": 19,
                "con_score": 200,
                "con_mod": 100,
                "endurance": True,
            },
            "b": {
                "name": "B",
                "strength_mod": 0,
                "con_score": 200,
                "con_mod": 100,
                "endurance": True,
            },
            "target": 100,
            "max_rounds": 10_000,
        },
    ),
    (
        "longest allowed: Con 200 +104, target 100, 316 rounds",
        {
            "a": {
                "name": "A",
                "strength_mod": 0,
                "con_score": 200,
                "con_mod": 100,
                "endurance": True,
            },
            "b": {
                "name": "B",
                "strength_mod": 0,
                "con_score": 200,
                "con_mod": 100,
                "endurance": True,
            },
            "target": 100,
            "max_rounds": 10_000,
        },
    ),
]
#: One side of the longest matches the creation limits allow (316 rounds): Con 200 +104 with
#: Endurance, its check modifier set per match.
LONG_SIDE = {"strength_mod": 0, "con_score": 200, "con_mod": 100, "endurance": True}
ARM_LADDER += [
    (
        f"modifiers {apart} apart, Con 200 +104, target {target}, 316 rounds",
        {
            "a": {**LONG_SIDE, "name": "A", "strength_mod": apart},
            "b": {**LONG_SIDE, "name": "B"},
            "target": target,
            "max_rounds": 10_000,
        },
    )
    for apart, target in ((0, 10), (1, 100), (5, 100), (10, 100))
]
#: A chase at a lead of 22 (hiding, a hazard and no tactic all allowed), and the three options
#: its `…/odds/choices` question weighs.
CHASE_SESSION = {
    "escapee": {"name": "Ralf", "speed": 30, "mods": {"strength": 2, "hide": 5, "dexterity": 3}},
    "chaser": {"name": "Guard", "speed": 30, "mods": {"strength": 1, "balance": 1}},
    "start": {"mode": "lead", "lead": 22},
}
CHOICES = {
    "options": [
        {"move": {"terrain": {"check": "strength"}, "tactic": {"kind": "hide"}}},
        {"move": {"terrain": {"check": "strength"}, "tactic": {"kind": "hazard", "penalty": 4}}},
        {"move": {"terrain": {"check": "strength"}}},
    ],
    "tactic_policy": "hide-when-possible",
}
ICEPOOL = "import icepool; (icepool.d100.pool(7).keep((0, 0, 0, 1, 1, 0, 0)).sum() // 2).mean()"
#: The pairs of skills the quick-contest odds are timed with, each asked once (the first is
#: `QUICK`'s).
QUICK_PAIRS = [
    (12, 10),
    (13, 11),
    (11, 9),
    (14, 12),
    (10, 8),
    (15, 13),
    (9, 7),
    (16, 14),
    (12, 11),
    (13, 10),
    (11, 10),
    (14, 11),
    (10, 9),
    (15, 12),
    (9, 8),
]


def app_with_odds() -> Any:
    """The service as `create_app` builds it (the odds routes are among its routes)."""
    from app.main import create_app

    return create_app()


def migrated(folder: str) -> str:
    """A migrated SQLite database in `folder`, for the session a choice is asked of."""
    from app.store.database import upgrade_to_head

    url = f"sqlite:///{folder}/odds.db"
    upgrade_to_head(url)
    return url


def timed(
    client: httpx.Client, path: str, body: object, headers: dict[str, str] | None = None
) -> float:
    start = time.perf_counter()
    answer = client.post(path, json=body, headers=headers)
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


def icepool_quick_contest(skill_a: int, skill_b: int) -> tuple[Any, Any]:
    """The quick contest's question answered by icepool: each side's 3d6 judged by the rules
    (`judge_success`: success and margin), the pair compared as `judge_quick_contest` does;
    who wins, and the distribution of (winner, margin of victory)."""
    import icepool

    from app.rules import gurps

    three = 3 @ icepool.d6

    def judged(skill: int) -> Any:
        return three.map(lambda total: _result(gurps.judge_success(skill, (total, 0, 0))))

    def verdict(a: tuple[bool, int], b: tuple[bool, int]) -> tuple[int, int]:
        if a[0] != b[0]:
            winner = 1 if a[0] else -1
        elif a[1] != b[1]:
            winner = 1 if a[1] > b[1] else -1
        else:
            return (0, 0)  # a tie
        won, lost = (a, b) if winner == 1 else (b, a)
        return (winner, won[1] - lost[1])

    contest = icepool.map(verdict, judged(skill_a), judged(skill_b))
    a_wins = sum(contest.probability(o) for o in contest.outcomes() if o[0] == 1)
    return a_wins, contest


def _result(roll: Any) -> tuple[bool, int]:
    return (roll.success, roll.margin)


def warm_quick_contests() -> tuple[float, float]:
    """Medians (ms) of quick-contest odds worked out here (the answer as the service writes
    it) and by icepool, in this process once both have answered another question first, each
    pair of `QUICK_PAIRS` asked once."""
    from app.api.odds import gurps as answers
    from app.rules.odds import gurps as gurps_odds

    gurps_odds.warm_verdicts()  # as the service does when it builds its odds routes
    answers.quick_contest_answer("Cy", 8, "Di", 7)
    icepool_quick_contest(8, 7)
    ours, theirs = [], []
    for skill_a, skill_b in QUICK_PAIRS:
        start = time.perf_counter()
        answers.quick_contest_answer("Ann", skill_a, "Bob", skill_b)
        ours.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        icepool_quick_contest(skill_a, skill_b)
        theirs.append((time.perf_counter() - start) * 1000)
    return statistics.median(ours), statistics.median(theirs)


def main() -> None:
    icepool_ms = icepool_fresh_process()
    ours_warm, icepool_warm = warm_quick_contests()
    with (
        tempfile.TemporaryDirectory() as folder,
        server(
            "bench.odds:app_with_odds", {"DATABASE_URL": migrated(folder)}, factory=True
        ) as base,
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        # The odds worker process starts with the app; a first heavy question waits for it.
        client.post("/v1/odds/cairn", json={"rating": 5}).raise_for_status()
        warm_up(client)
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
            ("skill-game token odds", "/v1/odds/skill-games/tokens", token_question(GAME)),
            ("token odds, 64 members, 64 skills", "/v1/odds/skill-games/tokens", BIG),
            ("chase odds (Ralf and the guard)", "/v1/odds/chases", CHASE),
            ("race odds (a dash)", "/v1/odds/races", RACE),
        ]
        figures = {name: timed(client, path, body) for name, path, body in questions}
        created = client.post("/v1/chases", json=CHASE_SESSION)
        created.raise_for_status()
        chase = created.json()
        figures["chase odds at a choice (3 options)"] = timed(
            client,
            f"/v1/chases/{chase['id']}/odds/choices",
            CHOICES,
            {"authorization": f"Bearer {chase['tokens']['gm']}"},
        )
        # The two questions with a target against the idle round trip (itself a median) are
        # timed as the median of five different questions of the same work, each asked once.
        spread: dict[str, list[float]] = {
            "quick-contest odds": [figures["quick-contest odds"]]
            + [
                timed(client, "/v1/odds/gurps/quick-contest", skills(a, b))
                for a, b in QUICK_PAIRS[1:]
            ],
            "arm-wrestle odds (Lydia v Ogre)": [figures["arm-wrestle odds (Lydia v Ogre)"]]
            + [timed(client, "/v1/odds/arm-wrestles", renamed(LYDIA, n)) for n in (1, 2, 3, 4)],
        }
        for name, times in spread.items():
            figures[name] = statistics.median(times)
        # The most expensive allowed question, in a thread, while quick contests are timed;
        # a new one each time (a different seed or members), so none comes from the cache.
        during: list[float] = []
        heavy_questions = [
            ("/v1/odds/skill-games/tokens", big_tokens(offset)) for offset in range(1, 4)
        ] + [("/v1/odds/races", {**RACE, "seed": seed}) for seed in range(100, 103)]
        for path, body in heavy_questions:
            with httpx.Client(base_url=base, timeout=30) as own:
                heavy = threading.Thread(target=timed, args=(own, path, body))
                heavy.start()
                while heavy.is_alive():
                    during.append(timed(client, "/v1/gurps/quick-contest", QUICK))
                heavy.join()
    print(f"quick-contest resolution, idle round trip (median of 50): {idle:.2f} ms")
    for name, ms in figures.items():
        mark = "  (over 250 ms)" if ms > 250 else ""
        print(f"{name:40s} {ms:7.2f} ms  ({ms / idle:5.1f}x quick contest){mark}")
    cairn_ms = figures["cairn odds, rating 12"]
    print(f"icepool, fresh process (best of 3):      {icepool_ms:7.2f} ms")
    print(f"cairn odds vs icepool: {icepool_ms / cairn_ms:.1f}x faster (target >= 5x)")
    print(
        f"quick-contest odds in a warm process (median of {len(QUICK_PAIRS)} pairs, each once): "
        f"{ours_warm:.3f} ms; icepool the same question: {icepool_warm:.3f} ms "
        f"({icepool_warm / ours_warm:.1f}x; target: no slower than icepool)"
    )
    quick_ratio = figures["quick-contest odds"] / idle
    arm_ratio = figures["arm-wrestle odds (Lydia v Ogre)"] / idle
    for name, times in spread.items():
        each = ", ".join(f"{ms / idle:.2f}" for ms in sorted(times))
        print(f"{name}: median of {len(times)} different questions, each x the idle round trip:")
        print(f"  {each}")
    print(f"quick-contest odds: {quick_ratio:.2f}x a resolution (target <= 1.5x)")
    print(
        f"arm-wrestle odds: {arm_ratio:.2f}x a quick-contest resolution (target <= 3x, set "
        "for a Monte Carlo estimate; exact, the target is the walk's 50 ms below)"
    )
    slowest = max(figures, key=figures.__getitem__)
    print(f"slowest odds question: {slowest}, {figures[slowest]:.1f} ms (target < 250 ms)")
    print(
        f"quick contest while the heaviest odds questions run: median "
        f"{statistics.median(during):.2f} ms, max {max(during):.2f} ms over {len(during)} "
        f"requests ({statistics.median(during) / idle:.1f}x idle; target < 3x)"
    )


def renamed(match: dict[str, Any], number: int) -> dict[str, Any]:
    """The same arm wrestle with other names: the same work, a new question (exact odds take
    no seed, so a seed would not make one)."""
    return {side: {**match[side], "name": f"{match[side]['name']} {number}"} for side in "ab"}


def skills(a: int, b: int) -> dict[str, Any]:
    """A quick contest between skills `a` and `b`."""
    return {"a": {"name": "Ann", "skill": a}, "b": {"name": "Bob", "skill": b}}


def token_question(game: dict[str, Any]) -> dict[str, Any]:
    """A token-odds body: every party chooses its game's first `skills_per_round` skills."""
    chosen = game["skill_list"][: game["skills_per_round"]]
    return {"game": game, "skills": {party["name"]: chosen for party in game["parties"]}}


def big_tokens(offset: int) -> dict[str, Any]:
    """The largest token question, its ratings shifted by `offset` (a new question)."""
    game = {
        **BIG_GAME,
        "parties": [
            {
                **party,
                "members": [
                    {
                        **member,
                        "skills": {k: (v + offset) % 10 for k, v in member["skills"].items()},
                    }
                    for member in party["members"]
                ],
            }
            for party in BIG_GAME["parties"]
        ],
    }
    return token_question(game)


def shifted(ratings: dict[str, int], offset: int) -> dict[str, int]:
    return {skill: (rating + offset) % 10 for skill, rating in ratings.items()}


BIG = token_question(BIG_GAME)


def warm_up(client: httpx.Client) -> None:
    """Other questions of each kind first (other skills, ratings, members, seeds)."""
    other_quick = {"a": {"name": "Cy", "skill": 8}, "b": {"name": "Di", "skill": 7}}
    for path, body in [
        ("/v1/odds/gurps/quick-contest", other_quick),
        ("/v1/odds/gurps/success-roll", {"skill": 7}),
        (
            "/v1/odds/gurps/resistance-roll",
            {"attacker": {"name": "W", "skill": 8}, "defender": {"name": "O", "skill": 7}},
        ),
        (
            "/v1/odds/gurps/regular-contest",
            {"a": {"name": "A", "skill": 8}, "b": {"name": "B", "skill": 7}, "max_rounds": 10},
        ),
        ("/v1/odds/cairn", {"rating": 7}),
        ("/v1/odds/arm-wrestles", renamed(LYDIA, 999)),
        # A bounded walk: it waits for the worker's compiled kernel, which the worker loads
        # in a thread when it starts (about 1 s), so that no timed question competes with it.
        ("/v1/odds/arm-wrestles", renamed(dict(ARM_LADDER)["even, Con 40 +10, 62 rounds"], 999)),
        ("/v1/odds/skill-games/tokens", big_tokens(5)),
        ("/v1/odds/chases", {**CHASE, "seed": 999}),
        ("/v1/odds/races", {**RACE, "seed": 999}),
    ]:
        client.post(path, json=body).raise_for_status()


def arm_wrestle_walks() -> None:
    """The exact walk of each match of `ARM_LADDER`, from creation, in this process (best of
    three for the quick ones; no cache: `exact_odds` itself, over GMP's integers as the
    service walks it), in CPU time: the work the worker does, steady on a shared machine."""
    from app.api.schemas.arm_wrestles import ArmWrestleCreate
    from app.numeric import arm_wrestling as numeric
    from app.numeric.exact import gmp
    from app.rules import arm_wrestling
    from app.rules.dice import Dice, WorkLimitExceeded
    from app.rules.odds import arm_wrestling as arm_odds

    numeric.warm()  # the worker loads the compiled kernel when it starts
    print("exact arm-wrestle walks, from creation, in-process (CPU time):")
    for name, body in ARM_LADDER:
        config = ArmWrestleCreate.model_validate(body).to_rules()
        start = arm_wrestling.start(config, Dice())
        runs: list[float] = []
        answer = "refused (past the walk's budget of work)"
        for _ in range(3):
            began = time.process_time()
            try:
                odds = arm_odds.exact_odds(config, start, integer=gmp)
            except WorkLimitExceeded:
                runs.append((time.process_time() - began) * 1000)
                break
            runs.append((time.process_time() - began) * 1000)
            answer = (
                f"a {float(odds.a_wins):.6f}, b {float(odds.b_wins):.6f}, "
                f"draw {float(odds.draw):.3g}, undecided {float(odds.undecided):.3g}"
            )
            if runs[-1] > 1000:
                break
        target = "  (target <= 50 ms)" if body is LYDIA else ""
        print(f"  {name:55s} {min(runs):9.1f} ms  {answer}{target}")
        if answer.startswith("refused"):
            spent, bounded = bounded_walk(config, start)
            odds = bounded.odds
            print(
                f"  {'  then the bounded walk':55s} {spent:9.1f} ms  a {float(odds.a_wins):.6f}, "
                f"b {float(odds.b_wins):.6f}, draw {float(odds.draw):.3g}, undecided "
                f"{float(odds.undecided):.3g}, bound {max(bounded.bound.values()):.1e}"
                "  (target <= 1000 ms)"
            )


def bounded_walk(config: Any, start: Any) -> tuple[float, Any]:
    """The bounded walk's CPU time (ms, the best of two: the machine's spread is large) and
    its answer."""
    from app.numeric import arm_wrestling as numeric

    runs: list[float] = []
    for _ in range(2):
        began = time.process_time()
        bounded = numeric.bounded_odds(config, start)
        runs.append((time.process_time() - began) * 1000)
    return min(runs), bounded


def bounded_scan() -> None:
    """The bounded walk of each 316-round match (Con 200 +104 with Endurance, as the longest
    of `ARM_LADDER`) by the difference of the check modifiers and the target, the slowest
    first: the exact walk answers every match 19 or more apart, and refuses these."""
    from app.api.schemas.arm_wrestles import ArmWrestleCreate
    from app.numeric import arm_wrestling as numeric
    from app.rules import arm_wrestling
    from app.rules.dice import Dice
    from app.rules.odds import arm_wrestling as arm_odds

    numeric.warm()
    found: list[tuple[float, int, int, float]] = []
    for apart in range(19):
        for target in (10, 50, 100):
            body = {
                "a": {**LONG_SIDE, "name": "A", "strength_mod": apart},
                "b": {**LONG_SIDE, "name": "B"},
                "target": target,
                "max_rounds": 10_000,
            }
            config = ArmWrestleCreate.model_validate(body).to_rules()
            start = arm_wrestling.start(config, Dice())
            if not arm_odds.surely_too_long(config, start):
                continue  # the exact walk's (the table of docs/api.md#odds)
            spent, bounded = bounded_walk(config, start)
            found.append((spent, apart, target, max(bounded.bound.values())))
    print("bounded walk, 316-round matches (CPU time, best of two), the slowest first:")
    for spent, apart, target, bound in sorted(found, reverse=True):
        print(
            f"  modifiers {apart:2d} apart, target {target:3d} {spent:9.1f} ms  bound {bound:.1e}"
        )
    slowest = max(found)[0] if found else 0.0
    print(f"  {len(found)} matches, the slowest {slowest:.1f} ms (target <= 1000 ms)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        epilog="Without options: everything, the HTTP timings first, then the walks.",
    )
    parser.add_argument(
        "--walks",
        action="store_true",
        help="only the exact arm-wrestle walks in this process (no server, CPU time)",
    )
    parser.add_argument(
        "--scan",
        action="store_true",
        help="only the bounded walk of every 316-round match the exact walk refuses",
    )
    arguments = parser.parse_args()
    if arguments.scan:
        bounded_scan()
    else:
        if not arguments.walks:
            main()
        arm_wrestle_walks()
