"""The odds core (docs/rules.md#odds) against brute force, independent counts and icepool."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction
from itertools import product
from math import comb, factorial, sqrt

import pytest

from app.rules import arm_wrestling, cairn, chases, gurps, races, skill_games
from app.rules.dice import Dice
from app.rules.errors import PhaseError, RulesError
from app.rules.odds import arm_wrestling as arm_odds
from app.rules.odds import cairn as cairn_odds
from app.rules.odds import chases as chase_odds
from app.rules.odds import enumeration, fraction_text, ratio_text
from app.rules.odds import gurps as gurps_odds
from app.rules.odds import skill_games as skill_odds

ROLLS: list[tuple[int, int, int]] = [
    (a, b, c) for a in range(1, 7) for b in range(1, 7) for c in range(1, 7)
]


def test_quick_contest_known_values() -> None:
    odds = gurps_odds.quick_contest_odds(12, 10)
    assert odds.a_wins == Fraction(29715, 46656)
    assert odds.tie == Fraction(3906, 46656)
    assert odds.b_wins == Fraction(13035, 46656)


@pytest.mark.parametrize(("skill_a", "skill_b"), [(12, 10), (3, 18), (16, 15), (-5, 25)])
def test_quick_contest_against_all_6_to_the_6_rolls(skill_a: int, skill_b: int) -> None:
    wins: Counter[str | None] = Counter()
    margins: Counter[int] = Counter()
    affected = 0
    for roll_a in ROLLS:
        a = gurps.judge_success(skill_a, roll_a)
        for roll_b in ROLLS:
            contest = gurps.judge_quick_contest(a, gurps.judge_success(skill_b, roll_b))
            wins[contest.winner] += 1
            if contest.margin_of_victory is not None:
                margins[contest.margin_of_victory] += 1
            affected += a.success and contest.winner == "a"
    odds = gurps_odds.quick_contest_odds(skill_a, skill_b)
    assert (odds.a_wins, odds.b_wins, odds.tie) == (
        Fraction(wins["a"], 6**6),
        Fraction(wins["b"], 6**6),
        Fraction(wins[None], 6**6),
    )
    decided = 6**6 - wins[None]
    assert odds.margin_of_victory == {m: Fraction(c, decided) for m, c in sorted(margins.items())}
    assert sum(odds.margin_of_victory.values()) == 1
    assert gurps_odds.resistance_odds(skill_a, skill_b) == Fraction(affected, 6**6)


@pytest.mark.parametrize("skill", [-100, 3, 9, 10, 15, 16, 25, 1000])
def test_success_roll_against_all_216_rolls(skill: int) -> None:
    judged = [gurps.judge_success(skill, roll) for roll in ROLLS]
    odds = gurps_odds.success_roll_odds(skill)
    assert odds.success == Fraction(sum(j.success for j in judged), 216)
    assert odds.critical_success == Fraction(sum(j.critical == "success" for j in judged), 216)
    assert odds.critical_failure == Fraction(sum(j.critical == "failure" for j in judged), 216)
    margins = Counter(j.margin for j in judged)
    assert odds.margin == {m: Fraction(c, 216) for m, c in sorted(margins.items())}
    assert sum(odds.margin.values()) == 1


@pytest.mark.parametrize(
    ("a", "b", "max_rounds"), [(5, 3, 1), (5, 3, 4), (12, 12, 3), (600, 500, 2)]
)
def test_regular_contest_against_enumerated_rounds(a: int, b: int, max_rounds: int) -> None:
    config = gurps.RegularConfig(gurps.Contestant("A", a), gurps.Contestant("B", b))
    ea, eb = config.effective
    pa = Fraction(sum(gurps.judge_success(ea, r).success for r in ROLLS), 216)
    pb = Fraction(sum(gurps.judge_success(eb, r).success for r in ROLLS), 216)
    only_a, only_b = pa * (1 - pb), pb * (1 - pa)
    again = 1 - only_a - only_b
    alive, a_wins, b_wins, rounds = Fraction(1), Fraction(0), Fraction(0), Fraction(0)
    for _ in range(max_rounds):  # round by round, the plain way
        rounds += alive
        a_wins += alive * only_a
        b_wins += alive * only_b
        alive *= again
    odds = gurps_odds.regular_contest_odds(a, b, True, max_rounds)
    assert (odds.a_wins, odds.b_wins, odds.undecided, odds.expected_rounds) == (
        a_wins,
        b_wins,
        alive,
        rounds + 0,
    )
    assert odds.a_wins + odds.b_wins + odds.undecided == 1


def test_long_regular_contest_fractions_are_left_unwritten() -> None:
    odds = gurps_odds.regular_contest_odds(11, 10, True, 10_000)
    assert odds.a_wins + odds.b_wins + odds.undecided == 1
    assert fraction_text(Fraction(1, 10**5000)) is None
    assert 0.5 < float(odds.a_wins) < 1


def _joint_by_parts(lower: int, higher: int, a: int, b: int) -> int:
    """Independently: the 100**7 rolls with sorted[lower] == a and sorted[higher] == b,
    counted by how many dice fall below a, on a, between, on b and above b."""
    total = 0
    for below, on_a, between, on_b in product(range(8), repeat=4):
        above = 7 - below - on_a - between - on_b
        if above < 0:
            continue
        if a == b:
            if between or on_b:
                continue
            ok = below <= lower and below + on_a > higher
        else:
            ok = below <= lower < below + on_a and below + on_a + between <= higher < (
                below + on_a + between + on_b
            )
        if not ok:
            continue
        ways = factorial(7) // (
            factorial(below)
            * factorial(on_a)
            * factorial(between)
            * factorial(on_b)
            * factorial(above)
        )
        total += ways * (a - 1) ** below * max(b - a - 1, 0) ** between * (100 - b) ** above
    return total


@pytest.mark.parametrize(("lower", "higher"), [(0, 1), (3, 4), (0, 6), (5, 6)])
def test_order_statistics_against_an_independent_count(lower: int, higher: int) -> None:
    joint = cairn_odds.order_statistics_joint(lower, higher)
    assert sum(joint.values()) == 100**7
    for a, b in [(1, 1), (1, 100), (37, 62), (50, 50), (99, 100), (100, 100), (20, 80)]:
        assert joint.get((a, b), 0) == _joint_by_parts(lower, higher, a, b), (a, b)


@pytest.mark.parametrize("rating", [-100, -5, 0, 2, 5, 8, 10, 12, 15, 19, 22, 25, 100])
def test_cairn_distribution_sums_to_one_and_matches_its_parts(rating: int) -> None:
    odds = cairn_odds.cairn_odds(rating, 45)
    assert sum(odds.distribution.values()) == 1
    assert odds.mean == sum(score * p for score, p in odds.distribution.items())
    assert odds.success == sum(p for score, p in odds.distribution.items() if score >= 45)
    criticals = Counter(cairn.critical_of(rating, die) for die in range(1, 101))
    assert odds.critical_success == Fraction(criticals["success"], 100)
    assert odds.critical_failure == Fraction(criticals["failure"], 100)


@pytest.mark.parametrize("rating", [12, 0, 10])
def test_cairn_averages_against_icepool(rating: int) -> None:
    icepool = pytest.importorskip("icepool")
    lower, higher = cairn.chosen_positions(rating)
    mask = tuple(int(position in (lower, higher)) for position in range(7))
    average = icepool.d100.pool(7).keep(mask).sum() // 2
    counts = cairn_odds.average_counts(lower, higher)
    assert average.denominator() == 100**7
    assert {v: average.quantity(v) for v in average.outcomes()} == counts
    # and the no-critical part of the score is the average plus the rating
    odds = cairn_odds.cairn_odds(rating)
    none = Fraction(sum(1 for d in range(1, 101) if cairn.critical_of(rating, d) is None), 100)
    if rating >= 21 or rating < 0:
        return
    for value in list(counts)[:5]:
        assert odds.distribution.get(value + rating, Fraction(0)) >= none * Fraction(
            counts[value], 100**7
        )


def test_cairn_worked_example_fits_the_distribution() -> None:
    odds = cairn_odds.cairn_odds(12, 45)
    assert odds.distribution[56] > 0  # the score of docs/rules.md#cairn-hill-roll's example


def _match(target: int, max_rounds: int, con: int = 3, **b: int) -> arm_wrestling.Config:
    return arm_wrestling.Config(
        arm_wrestling.Competitor("A", 0, con, 0),
        arm_wrestling.Competitor("B", b.get("strength_mod", 1), b.get("con_score", 2), 3),
        target=target,
        max_rounds=max_rounds,
    )


def _enumerate_match(config: arm_wrestling.Config) -> dict[str, Fraction]:
    """Every die of every round, through the rules' own `play_round` (small matches only)."""
    from app.rules.dice import Dice

    class Script:
        def __init__(self, values: list[int]) -> None:
            self.values = iter(values)

        def die(self, sides: int) -> int:  # noqa: ARG002 - the script knows its dice
            return next(self.values)

    results: dict[str, Fraction] = {}

    def walk(state: arm_wrestling.State, weight: Fraction) -> None:
        if state.finished:
            key = state.winner or state.reason or ""
            results[key] = results.get(key, Fraction(0)) + weight
            return
        # how many d20s this round draws: fatigue checks due, then two strength checks
        number = state.rounds_played + 1
        due = sum(number > side.con_score for side in config.competitors)
        for values in product(range(1, 21), repeat=due):
            fatigue_only = Dice(Script([*values, 1, 1]))
            probe, _ = arm_wrestling.play_round(config, state, fatigue_only)
            if probe.finished and probe.reason in ("fatigue", "draw"):
                walk(probe, weight / 20**due)
                continue
            for strength in product(range(1, 21), repeat=2):
                after, _ = arm_wrestling.play_round(
                    config, state, Dice(Script([*values, *strength]))
                )
                walk(after, weight / 20**due / 400)

    walk(arm_wrestling.start(config, Dice()), Fraction(1))
    return dict(results)


def test_arm_wrestle_fatigue_against_the_rules_played_out() -> None:
    config = _match(target=100, max_rounds=1, con=0, con_score=0)
    odds = arm_odds.exact_odds(config, arm_wrestling.State(names=("A", "B")))
    # Both check DC 10 (A: d20 + 0, B: d20 + 3) before the first round.
    pass_a, pass_b = Fraction(11, 20), Fraction(14, 20)
    assert odds.b_wins == (1 - pass_a) * pass_b
    assert odds.a_wins == pass_a * (1 - pass_b)
    assert odds.draw == (1 - pass_a) * (1 - pass_b)
    assert odds.undecided == pass_a * pass_b


def test_arm_wrestle_exact_against_the_rules_played_out() -> None:
    config = _match(target=3, max_rounds=2, con=5, con_score=5)
    odds = arm_odds.exact_odds(config, arm_wrestling.start(config, None))  # type: ignore[arg-type]
    played = _enumerate_match(config)
    assert odds.a_wins == played.get("A", 0)
    assert odds.b_wins == played.get("B", 0)
    assert odds.draw == played.get("draw", 0)
    assert odds.undecided == played.get("max_rounds", 0)
    assert odds.a_wins + odds.b_wins + odds.draw + odds.undecided == 1


@pytest.mark.parametrize("variant", ["standard", "spikes", "psychic", "mental"])
def test_monte_carlo_within_four_standard_errors_of_exact(variant: str) -> None:
    side = {"caster_level": 2, "int_mod": 1, "wis_score": 3, "wis_mod": 0}
    config = arm_wrestling.Config(
        arm_wrestling.Competitor("A", 0, 3, 0, **side),  # type: ignore[arg-type]
        arm_wrestling.Competitor("B", 1, 2, 3, endurance=True, **side),  # type: ignore[arg-type]
        target=8,
        max_rounds=5,
        variant=variant,  # type: ignore[arg-type]
    )
    state = arm_wrestling.State(names=("A", "B"))
    exact = arm_odds.exact_odds(config, state, budget=10**7)
    assert exact.a_wins + exact.b_wins + exact.draw + exact.undecided == 1
    estimate = arm_odds.simulated_odds(config, state, seed=7, budget=20_000)
    assert estimate.trials > 1000
    for name in ("a_wins", "b_wins", "draw", "undecided"):
        p = float(getattr(exact, name))
        got = getattr(estimate, name)
        error = max(got.standard_error, sqrt(p * (1 - p) / estimate.trials), 1e-9)
        assert abs(got.probability - p) <= 4 * error, name


def test_arm_wrestle_odds_from_a_state_equal_a_fresh_start_there() -> None:
    config = _match(target=6, max_rounds=4)
    state = arm_wrestling.State(names=("A", "B"), ds=(3, 0), rounds_played=1)
    here = arm_odds.exact_odds(config, state, budget=10**7)
    assert here.a_wins + here.b_wins + here.draw + here.undecided == 1
    finished = arm_wrestling.State(
        names=("A", "B"), finished=True, winner="B", reason="target", rounds_played=3
    )
    done = arm_odds.exact_odds(config, finished)
    assert (done.b_wins, done.expected_rounds) == (Fraction(1), Fraction(3))


def test_a_large_match_falls_back_to_monte_carlo() -> None:
    config = _match(target=20, max_rounds=200, con=12, con_score=15)
    odds = arm_odds.arm_wrestle_odds(config, arm_wrestling.State(names=("A", "B")), 3)
    assert isinstance(odds, arm_odds.ArmWrestleEstimate)
    assert odds.seed == 3
    # Trials until the round budget is spent: each plays at most `longest_trial` rounds.
    longest = arm_odds.longest_trial(config, arm_wrestling.State(names=("A", "B")))
    assert odds.trials >= arm_odds.SIMULATION_BUDGET // longest
    assert odds.a_wins.standard_error < 0.06


def test_comb_sanity() -> None:
    assert comb(7, 2) == 21


# --- skill-game tokens -----------------------------------------------------------------------


def _skill_game(dc: int, token_rule: str, *members: skill_games.Member) -> skill_games.Config:
    return skill_games.Config(
        dc=dc,
        skill_list=("climb", "lore", "sneak"),
        skills_per_round=2,
        kind="option",
        actions=(skill_games.Action("rest", (skill_games.Effect("rest"),), cost=0),),
        parties=(
            skill_games.Party("Heroes", "players", members),
            skill_games.Party("Rivals", "gm", (skill_games.Member("Rival", {"lore": 2}),)),
        ),
        goal=5,
        token_rule=token_rule,  # type: ignore[arg-type]
    )


def _tokens_played_out(
    config: skill_games.Config, party: str, skills: list[str]
) -> dict[int, Fraction]:
    """Every d20 of every member for every skill, played by `choose_skills` itself."""
    side = config.party(party)
    assert side is not None
    keys: list[tuple[str | None, str]] = [
        (member.name, skill) for skill in skills for member in side.members
    ]
    state = skill_games.start(config, Dice())
    counts: Counter[int] = Counter()
    for faces in product(range(1, 21), repeat=len(keys)):
        supplied = {key: [face] for key, face in zip(keys, faces, strict=True)}
        _, outcome = skill_games.choose_skills(
            config, state, party, skills, Dice(supplied=supplied)
        )
        counts[outcome.tokens_earned] += 1
    return {earned: Fraction(count, 20 ** len(keys)) for earned, count in sorted(counts.items())}


@pytest.mark.parametrize(
    ("dc", "token_rule", "members"),
    [
        (
            14,
            "exceed",
            (skill_games.Member("Ann", {"climb": 3}), skill_games.Member("Bo", {"lore": -2})),
        ),
        (
            14,
            "meet",
            (skill_games.Member("Ann", {"climb": 3}), skill_games.Member("Bo", {"lore": 5})),
        ),
        (21, "exceed", (skill_games.Member("Ann", {"climb": 1, "lore": 2}),)),
        (0, "meet", (skill_games.Member("Ann"),)),
    ],
)
def test_skill_game_tokens_against_every_d20(
    dc: int, token_rule: str, members: tuple[skill_games.Member, ...]
) -> None:
    config = _skill_game(dc, token_rule, *members)
    (odds,) = skill_odds.token_odds(config, {"Heroes": ["climb", "lore"]})
    assert odds.tokens == _tokens_played_out(config, "Heroes", ["climb", "lore"])
    assert sum(odds.tokens.values()) == 1
    assert odds.expected == sum(earned * p for earned, p in odds.tokens.items())


def test_skill_game_token_choices_are_checked_as_choose_skills_does() -> None:
    config = _skill_game(10, "exceed", skill_games.Member("Ann"))
    with pytest.raises(RulesError) as twice:
        skill_odds.token_odds(config, {"Heroes": ["lore", "lore"]})
    assert twice.value.violations[0].loc == ("skills", "Heroes", 1)
    with pytest.raises(RulesError) as nobody:
        skill_odds.token_odds(config, {"Villains": ["lore", "climb"]})
    assert nobody.value.violations[0].loc == ("skills", "Villains")
    with pytest.raises(RulesError):
        skill_odds.token_odds(config, {"Heroes": ["lore"]})


# --- chases ----------------------------------------------------------------------------------


def _racer(name: str, **fields: object) -> races.Competitor:
    mods = fields.pop("mods", {})
    return races.Competitor(name, 30, mods=mods, **fields)  # type: ignore[arg-type]


def _chase_played_out(
    config: chases.Config, state: chases.State, terrain: chases.Terrain, policy: str
) -> dict[str, Fraction]:
    """Every die of every increment, played by `play_round` itself (states merged by what
    decides the rest: lead, increments, status)."""
    results: dict[str, Fraction] = {"increments": Fraction(0)}
    layer: dict[tuple[int, int, int, str | None], Fraction] = {
        (state.lead, state.increments, state.mounted_increments, None): Fraction(1)
    }
    while layer:
        following: dict[tuple[int, int, int, str | None], Fraction] = {}
        for (lead, increments, mounted, _), weight in layer.items():
            here = chases.State(lead, {"E": lead, "C": 0}, None, increments, mounted)
            tactic = chases.choose_tactic(config, here, terrain, policy)

            def play(
                dice: Dice, here: chases.State = here, tactic: chases.Tactic | None = tactic
            ) -> chases.State:
                return chases.play_round(
                    config,
                    here,
                    chases.RoundInput(terrain, tactic),
                    dice,
                )[0]

            for after, p in enumeration.outcomes(play, budget=10**6):
                if after.status_detail is not None:
                    results[after.status_detail] = results.get(after.status_detail, 0) + weight * p
                    results["increments"] += weight * p * after.increments
                else:
                    key = (after.lead, after.increments, after.mounted_increments, None)
                    following[key] = following.get(key, Fraction(0)) + weight * p
        layer = following
    return results


CHASES = {
    "plain, two increments": (
        chases.Config(
            _racer("E", mods={"strength": 2}),
            _racer("C", mods={"strength": 1}),
            chases.LeadStart(lead=5),
            max_rounds=2,
        ),
        chases.Terrain(races.Increment(check="strength")),
        "none",
    ),
    "hide, the chaser tiring": (
        chases.Config(
            _racer("E", mods={"strength": 0, "hide": 10}),
            _racer("C", mods={"strength": 3, "spot": 0}, con_score=2, con_mod=0),
            chases.LeadStart(lead=22),
            max_rounds=4,
        ),
        chases.Terrain(races.Increment(check="strength")),
        "hide-when-possible",
    ),
    "an obstacle with one retry": (
        chases.Config(
            _racer("E", mods={"jump": 1}),
            _racer("C", mods={"jump": 4}),
            chases.LeadStart(lead=15),
            max_rounds=1,
            max_retries=1,
        ),
        chases.Terrain(
            races.Increment(
                check="strength",
                obstacle=races.Obstacle(
                    kind="obstacle", check="jump", dc=14, retry=True, damage="1d6"
                ),
            )
        ),
        "none",
    ),
}


@pytest.mark.parametrize("case", list(CHASES))
def test_chase_exact_against_play_round_die_by_die(case: str) -> None:
    config, terrain, policy = CHASES[case]
    state = chases.start(config, Dice())
    if case.startswith("hide"):
        state = replace(state, increments=3)  # the chaser checks Constitution (DC 6)
    odds = chase_odds.exact_odds(config, state, terrain, policy)  # type: ignore[arg-type]
    played = _chase_played_out(config, state, terrain, policy)
    assert odds.caught == played.get("caught", 0)
    assert odds.escaped == played.get("escaped", 0) + played.get("hid", 0)
    assert odds.hid == played.get("hid", 0)
    assert odds.gave_up == played.get("gave-up", 0)
    assert odds.expected_increments == played["increments"]
    assert odds.caught + odds.escaped + odds.gave_up == 1


def test_chase_monte_carlo_within_four_standard_errors_of_exact() -> None:
    config = replace(CHASES["plain, two increments"][0], max_rounds=30)
    terrain = CHASES["plain, two increments"][1]
    state = chases.start(config, Dice())
    exact = chase_odds.exact_odds(config, state, terrain, "hide-when-possible")
    estimate = chase_odds.simulated_odds(config, state, terrain, "hide-when-possible", seed=5)
    assert estimate.trials > 300
    for name in ("caught", "escaped", "hid", "gave_up"):
        p = float(getattr(exact, name))
        got = getattr(estimate, name)
        error = max(got.standard_error, sqrt(p * (1 - p) / estimate.trials), 1e-9)
        assert abs(got.probability - p) <= 4 * error, name


def test_chase_from_initiative_is_the_mixture_of_its_starts() -> None:
    config = replace(
        CHASES["plain, two increments"][0], start=chases.InitiativeStart(), max_rounds=3
    )
    config = replace(config, escapee=_racer("E", mods={"strength": 2, "initiative": -5}))
    terrain = CHASES["plain, two increments"][1]
    odds = chase_odds.chase_odds(config, None, terrain, "none")
    assert isinstance(odds, chase_odds.ChaseOdds)
    assert odds.caught + odds.escaped + odds.gave_up == 1
    starts = chase_odds.starting_states(config)
    assert sorted(state.lead for state, _ in starts) == list(range(1, 16))
    assert all(p == Fraction(1, 15) for _, p in starts)
    mixture = sum(
        (chase_odds.exact_odds(config, s, terrain, "none").caught * p for s, p in starts),
        Fraction(0),
    )
    assert odds.caught == mixture


def test_unbounded_retries_fall_back_to_monte_carlo() -> None:
    config, terrain, _ = CHASES["an obstacle with one retry"]
    config = replace(config, max_retries=None, max_rounds=5)
    odds = chase_odds.chase_odds(config, None, terrain, "none", seed=4)
    assert isinstance(odds, chase_odds.ChaseEstimate)
    assert odds.seed == 4
    assert odds.trials > 100


@pytest.mark.parametrize("total", [1, 7, 216, 46656, 6**6 - 3906])
def test_ratio_text_writes_what_fraction_text_writes(total: int) -> None:
    for count in [*range(0, 60), total - 1, total]:
        assert ratio_text(count, total) == fraction_text(Fraction(count, total))


@pytest.mark.parametrize(("skill_a", "skill_b"), [(12, 10), (3, 18), (20, 20), (-5, 25)])
def test_quick_contest_counts_are_its_odds(skill_a: int, skill_b: int) -> None:
    counts = gurps_odds.quick_contest_counts(skill_a, skill_b)
    odds = gurps_odds.quick_contest_odds(skill_a, skill_b)
    assert counts.a_wins + counts.b_wins + counts.tie == counts.outcomes == 6**6
    assert Fraction(counts.a_wins, 6**6) == odds.a_wins
    assert Fraction(counts.tie, 6**6) == odds.tie
    assert sum(counts.margin_of_victory.values()) == counts.decided
    assert list(counts.margin_of_victory) == sorted(counts.margin_of_victory)
    assert {m: Fraction(c, counts.decided) for m, c in counts.margin_of_victory.items()} == (
        odds.margin_of_victory
    )


# --- chases: the odds at a choice of the next increment ---------------------------------------

#: A chase where hiding, a hazard and no tactic all can be chosen (a lead of 22, not flat).
CHOOSING = chases.Config(
    _racer("E", mods={"strength": 0, "hide": 10, "dexterity": 3}),
    _racer("C", mods={"strength": 3, "spot": 0, "balance": 1}, con_score=2, con_mod=0),
    chases.LeadStart(lead=22),
    max_rounds=4,
)
PLAIN = chases.Terrain(races.Increment(check="strength"))


def _after_each_outcome(
    config: chases.Config,
    state: chases.State,
    first: chases.RoundInput,
    terrain: chases.Terrain,
    policy: chase_odds.Policy,
) -> dict[str, Fraction]:
    """`play_round` with `first`, die by die, and the chase's odds from each state it leaves
    (as a session's `…/odds` answers them after that round), weighed by the dice."""
    names = ("caught", "escaped", "hid", "gave_up", "expected_increments")
    mixed = dict.fromkeys(names, Fraction(0))
    seen: dict[tuple[int, str | None], chase_odds.ChaseOdds] = {}
    for after, p in enumeration.outcomes(
        lambda dice: chases.play_round(config, state, first, dice)[0], budget=10**6
    ):
        key = (after.lead, after.status_detail)
        if key not in seen:
            odds = chase_odds.chase_odds(config, after, terrain, policy)
            assert isinstance(odds, chase_odds.ChaseOdds)
            seen[key] = odds
        for name in names:
            mixed[name] += p * getattr(seen[key], name)
    return mixed


@pytest.mark.parametrize(
    ("tactic", "increments"),
    [
        (chases.CreateHazard(penalty=4), 0),
        (chases.Hide(), 0),
        (
            chases.Hide(),
            3,
        ),  # the chaser checks Constitution first (DC 6): resting, he spots nothing
        (None, 3),
    ],
)
def test_chase_choice_odds_are_the_odds_after_each_outcome_of_the_choice(
    tactic: chases.Tactic | None, increments: int
) -> None:
    state = replace(chases.start(CHOOSING, Dice()), increments=increments)
    first = chases.RoundInput(PLAIN, tactic)
    odds = chase_odds.choice_odds(CHOOSING, state, first, PLAIN, "hide-when-possible")
    assert isinstance(odds, chase_odds.ChaseOdds)
    expected = _after_each_outcome(CHOOSING, state, first, PLAIN, "hide-when-possible")
    assert odds.caught == expected["caught"]
    assert odds.escaped == expected["escaped"]
    assert odds.hid == expected["hid"]
    assert odds.gave_up == expected["gave_up"]
    assert odds.expected_increments == expected["expected_increments"]
    assert odds.caught + odds.escaped + odds.gave_up == 1


def test_chase_choice_of_the_policys_own_move_is_the_odds_from_here() -> None:
    state = chases.start(CHOOSING, Dice())
    hiding = chases.RoundInput(PLAIN, chases.Hide())
    assert chase_odds.choice_odds(
        CHOOSING, state, hiding, PLAIN, "hide-when-possible"
    ) == chase_odds.chase_odds(CHOOSING, state, PLAIN, "hide-when-possible")
    assert chase_odds.choice_odds(
        CHOOSING, state, chases.RoundInput(PLAIN), PLAIN, "none"
    ) == chase_odds.chase_odds(CHOOSING, state, PLAIN, "none")


def test_chase_choice_on_other_terrain_then_the_terrain_to_come() -> None:
    state = chases.start(CHOOSING, Dice())
    uphill = chases.Terrain(races.Increment(check="strength", modifier=-6))
    first = chases.RoundInput(uphill)
    odds = chase_odds.choice_odds(CHOOSING, state, first, PLAIN, "hide-when-possible")
    expected = _after_each_outcome(CHOOSING, state, first, PLAIN, "hide-when-possible")
    assert isinstance(odds, chase_odds.ChaseOdds)
    assert (odds.caught, odds.escaped, odds.hid, odds.expected_increments) == (
        expected["caught"],
        expected["escaped"],
        expected["hid"],
        expected["expected_increments"],
    )
    # Not the odds on the terrain to come throughout: the uphill increment tells.
    assert odds != chase_odds.chase_odds(CHOOSING, state, PLAIN, "none")


def test_chase_choice_refused_as_the_round_would_be() -> None:
    state = replace(chases.start(CHOOSING, Dice()), lead=12)
    with pytest.raises(RulesError) as refused:
        chase_odds.choice_odds(
            CHOOSING, state, chases.RoundInput(PLAIN, chases.Hide()), PLAIN, "none"
        )
    assert refused.value.violations[0].loc == ("tactic", "kind")
    over = replace(state, status_detail="caught")
    with pytest.raises(PhaseError):
        chase_odds.choice_odds(CHOOSING, over, chases.RoundInput(PLAIN), PLAIN, "none")


def test_chase_choice_estimated_past_the_budget_plays_the_choice_first() -> None:
    state = chases.start(CHOOSING, Dice())
    first = chases.RoundInput(PLAIN, chases.CreateHazard(penalty=4))
    estimate = chase_odds.simulated_odds(CHOOSING, state, PLAIN, "none", seed=3, first=first)
    exact = chase_odds.choice_odds(CHOOSING, state, first, PLAIN, "none")
    assert isinstance(exact, chase_odds.ChaseOdds)
    for name in ("caught", "escaped"):
        guess = getattr(estimate, name)
        assert abs(guess.probability - float(getattr(exact, name))) <= 4 * guess.standard_error
