"""Supplied dice count as thrown: nothing is filtered (docs/rules.md#supplied-and-server-dice).

A table that rolls some of its own dice and leaves the rest to the server must play the same
game as one that leaves every die to the server. For each kind whose dice can go unused (arm
wrestles, races, chases — plain and collected rounds — opposed checks, precision long throws),
over HTTP (the sessions on both databases):
random subsets of (who, purpose) are supplied — their values from a generator independent of
the server's, uniform like a real die — and the rest are the server's, seeded and unseeded,
in rounds where the checks that decide whether a die is needed are really due. Then:

* no request is ever refused (a 422 from a die made unneeded by another die would filter
  those outcomes out);
* every supplied die is played or reported in `unused`, never both, never dropped;
* the outcomes are distributed as with every die the server's: each category's count is held
  to the exact distribution of one round, worked out by walking every die of the rules
  (`exact_outcomes`), with a Chernoff bound whose false alarm over all categories is at most
  1e-9 (`assert_distributed_as`).

Power: the same check is run on a sample made the way the refusals made it (a round whose
supplied dice were not all used is tried again with new server dice) and must reject it, so
the check would have caught the filtering these tests guard against.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from functools import partial
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.api.kinds import RoundKind
from app.api.kinds.registry import KINDS
from app.notation import NOTATION_ROLLER, notation_dice
from app.rules import groups, long_throw, serial
from app.rules.dice import Dice, Key, Need, SeededRng
from tests.helpers import Session

#: The false-alarm rate of one distribution check, over all its categories.
ALPHA = 1e-9
#: Rounds sampled over HTTP per check.
SAMPLES = 240

Category = Hashable


class _Branch(Exception):
    def __init__(self, sides: int) -> None:
        self.sides = sides


class _Prefix:
    """An `Rng` handing out the dice of a path, then asking for the next one."""

    def __init__(self, prefix: tuple[int, ...]) -> None:
        self.prefix = prefix
        self.taken = 0

    def die(self, sides: int) -> int:
        if self.taken < len(self.prefix):
            value = self.prefix[self.taken]
            self.taken += 1
            return value
        raise _Branch(sides)


def exact_outcomes(play: Callable[[Dice], Category]) -> dict[Category, Fraction]:
    """The exact distribution of `play`'s outcome with every die the server's: every path of
    dice walked, each die uniform."""
    found: Counter[Category] = Counter()
    weights: dict[Category, Fraction] = {}
    stack: list[tuple[tuple[int, ...], Fraction]] = [((), Fraction(1))]
    while stack:
        prefix, weight = stack.pop()
        try:
            outcome = play(Dice(_Prefix(prefix), notation=NOTATION_ROLLER))
        except _Branch as branch:
            share = weight / branch.sides
            stack.extend(((*prefix, value), share) for value in range(1, branch.sides + 1))
            continue
        found[outcome] += 1
        weights[outcome] = weights.get(outcome, Fraction(0)) + weight
    assert sum(weights.values()) == 1
    return weights


def _kl(q: float, p: float) -> float:
    """KL(q || p) of two Bernoulli laws."""

    def term(a: float, b: float) -> float:
        return 0.0 if a == 0 else a * math.log(a / b)

    if p in (0.0, 1.0):
        return 0.0 if q == p else math.inf
    return term(q, p) + term(1 - q, 1 - p)


def distribution_statistic(
    counts: Mapping[Category, int], exact: Mapping[Category, Fraction]
) -> tuple[float, float]:
    """(the largest n·KL(observed ‖ exact) over the categories, the threshold it must stay
    under). By Chernoff, P(n·KL(p̂‖p) ≥ t) ≤ 2e^-t for one category; over k categories (and
    an outcome outside them, whose chance is 0) the threshold ln(2(k+1)/ALPHA) keeps the false
    alarm at most ALPHA."""
    total = sum(counts.values())
    categories = set(exact) | set(counts)
    threshold = math.log(2 * (len(exact) + 1) / ALPHA)
    worst = max(
        total * _kl(counts.get(category, 0) / total, float(exact.get(category, Fraction(0))))
        for category in categories
    )
    return worst, threshold


def assert_distributed_as(
    counts: Mapping[Category, int], exact: Mapping[Category, Fraction]
) -> None:
    worst, threshold = distribution_statistic(counts, exact)
    assert worst < threshold, (worst, threshold, dict(counts), exact)


def choose_supplied(needs: Mapping[Key, Need], rng: random.Random) -> dict[str, dict[str, Any]]:
    """A random subset of the round's (who, purpose), each with 1 to 3 rolls of uniform values
    from `rng` (independent of the server's dice): a round body's `rolls`."""
    rolls: dict[str, dict[str, Any]] = {}
    for (who, purpose), need in sorted(needs.items(), key=lambda item: str(item[0])):
        if rng.random() < 0.5:
            continue
        sides: tuple[int, ...]
        if need.notation is not None:
            counted = notation_dice(need.notation)
            assert counted is not None
            sides = counted
        else:
            sides = (need.sides,) * need.per_roll
        most = 3 if need.most is None else need.most
        count = rng.randint(1, min(most, 3))
        values = [rng.randint(1, die) for _ in range(count) for die in sides]
        assert who is not None
        # A single value as a scalar (some purposes take only one), a notation's as a list.
        single = len(values) == 1 and need.notation is None
        rolls.setdefault(who, {})[purpose] = values[0] if single else values
    return rolls


def _as_supply(rolls: Mapping[str, Mapping[str, Any]]) -> dict[Key, list[int]]:
    return {
        (who, purpose): [values] if isinstance(values, int) else list(values)
        for who, dice in rolls.items()
        for purpose, values in dice.items()
    }


def check_accounted(record: Mapping[str, Any], rolls: Mapping[str, Mapping[str, Any]]) -> None:
    """Every supplied value is played (a supplied roll) or reported unused, never both."""
    supplied: dict[Key, list[int]] = {}
    for entry in record["rolls"]:
        if entry["source"] == "supplied":
            supplied.setdefault((entry["who"], entry["purpose"]), []).extend(entry["values"])
    for entry in record.get("unused", []):
        key = (entry["who"], entry["purpose"])
        assert entry["why"] in ("ended", "not-needed", "surplus")
        assert entry["why"] != "surplus" or key in supplied
        supplied.setdefault(key, []).extend(entry["values"])
    assert supplied == _as_supply(rolls)


class Fixture:
    """A kind, a session's creation, the rounds played before the one sampled (all dice
    supplied) and the sampled round's body (without dice), and how an outcome is read."""

    def __init__(
        self,
        path: str,
        create: Mapping[str, Any],
        before: Sequence[Mapping[str, Any]],
        body: Mapping[str, Any],
        category: Callable[[Mapping[str, Any]], Category],
    ) -> None:
        self.kind: RoundKind[Any, Any, Any] = KINDS[path]  # type: ignore[assignment]
        self.path = path
        self.create = create
        self.before = before
        self.body = body
        self.category = category

    def state(self) -> tuple[Any, Any]:
        """The config and state before the sampled round, played by the rules alone."""
        config, state = self.kind.start(
            self.kind.create_model.model_validate(self.create), Dice(SeededRng(0))
        )
        for number, played in enumerate(self.before, start=1):
            body = self.kind.round_model.model_validate(played)
            supplied = {
                (who, purpose): [values] if isinstance(values, int) else list(values)
                for who, dice in played.get("rolls", {}).items()
                for purpose, values in dice.items()
            }
            dice = Dice(SeededRng(0, str(number)), supplied, notation=NOTATION_ROLLER)
            state, _ = self.kind.play(config, state, body, dice)
        return config, serial.load(self.kind.state_type, serial.dump(state))

    def exact(self) -> dict[Category, Fraction]:
        config, state = self.state()
        body = self.kind.round_model.model_validate(self.body)

        def play(dice: Dice) -> Category:
            after, played = self.kind.play(config, state, body, dice)
            return self.category(self.kind.round_record(config, after, played))

        return exact_outcomes(play)

    def needs(self) -> Mapping[Key, Need]:
        config, state = self.state()
        needs = self.kind.needs(config, state, self.kind.round_model.model_validate(self.body))
        assert needs is not None
        return needs

    def session(self, client: TestClient, **extra: Any) -> Session:
        made = Session(client, self.path, {**self.create, **extra})
        for played in self.before:
            answer = made.post("rounds", played)
            assert answer.status_code == 200, answer.text
        return made


def _arm_wrestle_category(record: Mapping[str, Any]) -> Category:
    return (record["reason"], record["winner"], record["round_winner"])


def _race_category(record: Mapping[str, Any]) -> Category:
    ann = record["competitors"]["Ann"]
    return (tuple(ann["events"]), ann["gained"] >= 10)


def _chase_category(record: Mapping[str, Any]) -> Category:
    return (record["outcome"], record["lead"] - record["lead_before"] >= 0)


FIXTURES: dict[str, Fixture] = {
    # Lydia's fatigue check is due from the first round (Con score 0) and fails 40% of the
    # time, ending the match before the Strength checks; target 5 lets the round end on the
    # Strength checks too, so the loser's spikes die is needed in some rounds, not in others.
    "arm wrestle": Fixture(
        "arm-wrestles",
        {
            "a": {"name": "Lydia", "strength_mod": 2, "con_score": 0, "con_mod": 2},
            "b": {"name": "Ogre", "strength_mod": 4, "con_score": 6, "con_mod": 0},
            "variant": "spikes",
            "target": 5,
        },
        [],
        {},
        _arm_wrestle_category,
    ),
    # The second increment: Ann's Constitution check is due (DC 2, modifier -5: she rests on
    # 1-6), then a hazard (jump DC 12) whose 1d4 damage falls only on a failure, then her
    # check, made only when the hazard is passed.
    "race": Fixture(
        "races",
        {
            "course": {
                "increments": [
                    {"check": "strength"},
                    {
                        "check": "strength",
                        "obstacle": {"kind": "hazard", "check": "jump", "dc": 12, "damage": "1d4"},
                    },
                ]
            },
            "competitors": [{"name": "Ann", "speed": 0, "con_score": 0}],
        },
        [{"rolls": {"Ann": {"check": 10}}}],
        {},
        _race_category,
    ),
    # A hide with a lead of 25: Hide (+2) against Spot (+0), no tie rerolled (the modifiers
    # differ); the chaser's increment check is made only when the hide fails.
    "chase": Fixture(
        "chases",
        {
            "escapee": {"name": "Ralf", "speed": 30, "mods": {"hide": 2}},
            "chaser": {"name": "Guard", "speed": 30},
            "start": {"mode": "lead", "lead": 25},
        },
        [],
        {"terrain": {"check": "strength"}, "tactic": {"kind": "hide"}},
        _chase_category,
    ),
}


@pytest.fixture(scope="module", params=sorted(FIXTURES))
def fixture(request: pytest.FixtureRequest) -> tuple[Fixture, dict[Category, Fraction]]:
    made = FIXTURES[request.param]
    return made, made.exact()


def test_the_fixtures_make_the_deciding_checks_due(
    fixture: tuple[Fixture, dict[Category, Fraction]],
) -> None:
    """The sampled rounds are ones where whether a die is needed depends on the dice: some
    supplied die can go unused and some outcomes are far from certain."""
    made, exact = fixture
    needs = made.needs()
    assert any(need.certain == 0 for need in needs.values())
    assert len(exact) >= 3
    assert max(exact.values()) < Fraction(9, 10)


def test_supplied_dice_are_never_refused_and_play_the_same_game(
    store_client: TestClient, fixture: tuple[Fixture, dict[Category, Fraction]]
) -> None:
    made, exact = fixture
    needs = made.needs()
    table = random.Random(f"table:{made.path}")
    counts: Counter[Category] = Counter()
    unused_seen = 0
    for trial in range(SAMPLES):
        # Seeded, verifiable and CSPRNG server dice in turn.
        modes: list[dict[str, Any]] = [{"seed": 10_000 + trial}, {"dice": "verifiable"}, {}]
        seeded = modes[trial % 3]
        session = made.session(store_client, **seeded)
        rolls = choose_supplied(needs, table)
        answer = session.post("rounds", {**made.body, "rolls": rolls} if rolls else made.body)
        assert answer.status_code == 200, answer.text  # never refused
        record = answer.json()["round"]
        check_accounted(record, rolls)
        if "dice" in seeded:  # a verifiable session names who supplied each unused die
            assert all(entry["by"] == "gm" for entry in record.get("unused", []))
        (stored,) = session.get(f"rounds?after={len(made.before)}").json()["rounds"]
        assert stored.get("unused") == record.get("unused")
        unused_seen += bool(record.get("unused"))
        counts[made.category(record)] += 1
    assert unused_seen > SAMPLES // 10  # the rounds really left supplied dice unused
    assert_distributed_as(counts, exact)


def _filtered_sample(made: Fixture, count: int, seed: int) -> Counter[Category]:
    """Outcomes as a service refusing unneeded supplied dice gave them: a round that left a
    supplied die unused was refused, and the caller's retry rolled the server's dice again."""
    config, state = made.state()
    body = made.kind.round_model.model_validate(made.body)
    needs = made.needs()
    table, server = random.Random(seed), random.Random(seed + 1)
    counts: Counter[Category] = Counter()
    while sum(counts.values()) < count:
        rolls = choose_supplied(needs, table)
        supplied = _as_supply(rolls)
        for _retry in range(50):
            dice = Dice(SeededRng(server.randrange(2**62)), supplied, notation=NOTATION_ROLLER)
            after, played = made.kind.play(config, state, body, dice)
            if not dice.leftovers(ended=False):
                counts[made.category(made.kind.round_record(config, after, played))] += 1
                break
        # else: refused every time (a die no round of it could use): no outcome at all
    return counts


def test_the_check_catches_the_filtering_of_refused_rounds(
    fixture: tuple[Fixture, dict[Category, Fraction]],
) -> None:
    """Power: the distribution check rejects, at the same sample size, what a service that
    refused unneeded supplied dice produced; and passes the honest sampling in process."""
    made, exact = fixture
    worst, threshold = distribution_statistic(_filtered_sample(made, SAMPLES, 1), exact)
    assert worst > threshold, (worst, threshold)
    config, state = made.state()
    body = made.kind.round_model.model_validate(made.body)
    table, server = random.Random(2), random.Random(3)
    honest: Counter[Category] = Counter()
    for _ in range(SAMPLES):
        rolls = choose_supplied(made.needs(), table)
        supplied = _as_supply(rolls)
        dice = Dice(SeededRng(server.randrange(2**62)), supplied, notation=NOTATION_ROLLER)
        after, played = made.kind.play(config, state, body, dice)
        honest[made.category(made.kind.round_record(config, after, played))] += 1
    assert_distributed_as(honest, exact)


# --- collected rounds: seats send some dice, ask the server, or let the deadline pass ------

START = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)


class Clock:
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def __call__(self) -> datetime:
        return self.moment


def test_collected_rounds_play_the_same_game(store_client: TestClient) -> None:
    """Seats send random parts of their dice (their sure ones first, or only conditional
    ones), ask the server to roll for them, or let the deadline pass: never a refusal, every
    die that arrived played or reported, and the arm wrestle's outcomes as with server dice."""
    made = FIXTURES["arm wrestle"]
    exact = made.exact()
    needs = made.needs()
    clock = Clock(START)
    app: Any = store_client.app
    app.state.clock = clock
    table = random.Random("collected")
    counts: Counter[Category] = Counter()
    deadlines = 0
    try:
        for _trial in range(SAMPLES):
            clock.moment += timedelta(hours=1)
            session = made.session(store_client, seats=True)
            opened = session.post("rounds", {"collect": True, "deadline_seconds": 60})
            assert opened.status_code == 202, opened.text
            sent: dict[str, dict[str, Any]] = {}
            record: dict[str, Any] | None = None
            for name in ("Lydia", "Ogre"):
                seat = session.tokens["seats"][name]
                mine = {key: need for key, need in needs.items() if key[0] == name}
                rolls = choose_supplied(mine, table).get(name, {})
                choice = table.random()
                answer = None
                if rolls:
                    answer = session.post(
                        "rounds/pending/dice", {"rolls": {name: rolls}}, token=seat
                    )
                    assert answer.status_code in (200, 202), answer.text
                    sent[name] = rolls
                    waiting = answer.json().get("pending", {}).get("waiting_for", [])
                    if answer.status_code == 202 and name in waiting and choice < 0.5:
                        answer = session.post(
                            "rounds/pending/roll-for", {"names": [name]}, token=seat
                        )
                        assert answer.status_code in (200, 202), answer.text
                elif choice < 0.5:
                    answer = session.post("rounds/pending/roll-for", {"names": [name]}, token=seat)
                    assert answer.status_code in (200, 202), answer.text
                if answer is not None and answer.status_code == 200:
                    record = answer.json()["round"]
            if record is None:
                clock.moment += timedelta(seconds=60)
                deadlines += 1
                listed = session.get("rounds").json()["rounds"]
                (record,) = listed
            check_accounted(record, sent)
            counts[made.category(record)] += 1
    finally:
        del app.state.clock
    assert deadlines > SAMPLES // 10
    assert_distributed_as(counts, exact)


# --- one-shots: opposed checks with rerolls ---------------------------------------------------


def _opposed_exact() -> dict[Category, Fraction]:
    """(winner, whether a tie was rerolled) with equal modifiers: each attempt A wins 190 of
    400, B 190, 20 tie and roll again; after the 21st tied attempt B (defending) wins."""
    tie = Fraction(1, 20)
    first = Fraction(190, 400)
    a_later = first * sum(tie**attempt for attempt in range(1, 21))
    b_later = tie - a_later
    return {("A", False): first, ("B", False): first, ("A", True): a_later, ("B", True): b_later}


def _opposed_body(table: random.Random) -> dict[str, Any]:
    competitor: dict[str, Any] = {"name": "A", "modifier": 0}
    opponent: dict[str, Any] = {"name": "B", "modifier": 0}
    if table.random() < 0.5:
        competitor["roll"] = table.randint(1, 20)
    if table.random() < 0.5:
        opponent["roll"] = table.randint(1, 20)
    if table.random() < 0.5:
        competitor["rerolls"] = {"B": [table.randint(1, 20) for _ in range(table.randint(1, 3))]}
    if table.random() < 0.5:
        opponent["rerolls"] = [table.randint(1, 20) for _ in range(table.randint(1, 3))]
    return {"competitor": competitor, "opponents": [opponent]}


def _opposed_supply(body: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """The body's dice as (who, purpose) a verifier reads them in `rolls` and `unused`."""
    competitor, (opponent,) = body["competitor"], body["opponents"]
    sent: dict[str, dict[str, Any]] = {}
    for who, given in (("A", competitor), ("B", opponent)):
        if "roll" in given:
            sent.setdefault(who, {})["check"] = given["roll"]
    if "rerolls" in competitor:
        sent.setdefault("A", {})[groups.reroll_purpose("B")] = competitor["rerolls"]["B"]
    if "rerolls" in opponent:
        sent.setdefault("B", {})[groups.reroll_purpose("A")] = opponent["rerolls"]
    return sent


def _opposed_category(pair: groups.OpposedPair) -> Category:
    return ("A" if pair.competitor_wins else "B", len(pair.attempts) > 1)


def test_opposed_checks_with_supplied_rerolls_play_the_same_game(client: TestClient) -> None:
    """A table's rerolls are used when there is a tie and reported when there is none: never
    refused, and who wins after how many attempts is distributed as with the server's dice.
    Power: the same check rejects the outcomes of refuse-and-retry (a supplied reroll without
    a tie refused, the first dice rolled again), which made a tie far likelier than 1 in 20."""
    exact = _opposed_exact()
    table = random.Random("opposed")
    counts: Counter[Category] = Counter()
    for trial in range(SAMPLES):
        body = _opposed_body(table)
        if trial % 2:
            body["seed"] = trial
        answer = client.post("/v1/d20/opposed-checks", json=body)
        assert answer.status_code == 200, answer.text
        result = answer.json()
        check_accounted(result, _opposed_supply(body))
        pair = result["results"][0]
        counts[(pair["winner"], len(pair["attempts"]) > 1)] += 1
    assert_distributed_as(counts, exact)

    filtered: Counter[Category] = Counter()
    table, server = random.Random("filtered"), random.Random("server")
    while sum(filtered.values()) < SAMPLES:
        supplied = _as_supply(_opposed_supply(_opposed_body(table)))
        for _retry in range(200):
            dice = Dice(SeededRng(server.randrange(2**62)), supplied)
            checks = groups.opposed_checks(("A", 0), [("B", 0)], dice)
            if not dice.leftovers(ended=False):
                filtered[_opposed_category(checks.results[0])] += 1
                break
    worst, threshold = distribution_statistic(filtered, exact)
    assert worst > threshold, (worst, threshold, filtered)


# --- one-shots: a precision long throw ------------------------------------------------------

PRECISION: dict[str, Any] = {
    "object": "javelin",
    "mode": "precision",
    "max_series": 3,
    "competitors": [
        {"name": "Ann", "strength_score": 12, "ranged_attack_bonus": 20},
        {"name": "Bob", "strength_score": 10, "ranged_attack_bonus": 0},
    ],
}


def _precision_config() -> Any:
    from app.api.oneshots.long_throws import config_of
    from app.api.schemas.long_throws import LongThrowRequest

    return config_of(LongThrowRequest.model_validate(PRECISION))


def _next_series(config: Any, state: Any, dice: Dice) -> Category:
    after: Category = long_throw.precision_series(config, state, dice)[0]
    return after


def _precision_exact() -> dict[Category, Fraction]:
    """Who is still in at the end, after how many series: series by series, each series'
    dice walked exactly."""
    config = _precision_config()
    frontier: dict[Any, Fraction] = {long_throw.precision_start(config): Fraction(1)}
    ended: dict[Category, Fraction] = {}
    while frontier:
        following: dict[Any, Fraction] = {}
        for state, weight in frontier.items():
            if state.finished:
                key = (state.still_in, state.series_played)
                ended[key] = ended.get(key, Fraction(0)) + weight
                continue
            after = exact_outcomes(partial(_next_series, config, state))
            for next_state, chance in after.items():
                following[next_state] = following.get(next_state, Fraction(0)) + weight * chance
        frontier = following
    return ended


def _precision_rolls(table: random.Random) -> dict[str, list[int]]:
    return {
        competitor["name"]: [table.randint(1, 20) for _ in range(table.randint(1, 3))]
        for competitor in PRECISION["competitors"]
        if table.random() < 0.6
    }


def test_a_precision_throw_with_supplied_throws_plays_the_same_game(client: TestClient) -> None:
    """Throws a table supplies for series the competition never reaches are reported, never
    refused, and who is left at the end is distributed as with the server's dice; the check
    rejects refuse-and-retry, which only let rounds through that used every supplied throw."""
    exact = _precision_exact()
    assert len(exact) == 7  # every way it can end is possible here
    table = random.Random("precision")
    counts: Counter[Category] = Counter()
    for trial in range(SAMPLES):
        rolls = _precision_rolls(table)
        competitors = [
            {
                **competitor,
                **({"roll": rolls[competitor["name"]]} if competitor["name"] in rolls else {}),
            }
            for competitor in PRECISION["competitors"]
        ]
        body = {**PRECISION, "competitors": competitors, **({"seed": trial} if trial % 2 else {})}
        answer = client.post("/v1/long-throws", json=body)
        assert answer.status_code == 200, answer.text
        result = answer.json()
        check_accounted(result, {name: {"throw": values} for name, values in rolls.items()})
        counts[(tuple(result["winners"]), len(result["series"]))] += 1
    assert_distributed_as(counts, exact)

    config = _precision_config()
    table, server = random.Random("filtered"), random.Random("server")
    filtered: Counter[Category] = Counter()
    while sum(filtered.values()) < SAMPLES:
        supplied: dict[Key, list[int]] = {
            (name, long_throw.THROW): values for name, values in _precision_rolls(table).items()
        }
        for _retry in range(200):
            dice = Dice(SeededRng(server.randrange(2**62)), supplied)
            outcome = long_throw.resolve_long_throw(config, dice)
            if not dice.leftovers(ended=False):
                filtered[(outcome.winners, len(outcome.series))] += 1
                break
    worst, threshold = distribution_statistic(filtered, exact)
    assert worst > threshold, (worst, threshold, filtered)
