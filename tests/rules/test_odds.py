"""The odds core (docs/rules.md#odds) against brute force, independent counts and icepool."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction
from itertools import product
from math import comb, factorial, sqrt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import arm_wrestling, cairn, chases, gurps, races, skill_games
from app.rules.dice import Dice, WorkLimitExceeded
from app.rules.errors import PhaseError, RulesError
from app.rules.odds import arm_wrestling as arm_odds
from app.rules.odds import cairn as cairn_odds
from app.rules.odds import chases as chase_odds
from app.rules.odds import enumeration, fraction_text, ratio_text, simulation
from app.rules.odds import gurps as gurps_odds
from app.rules.odds import races as race_odds
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


def test_long_regular_contest_fractions_are_written() -> None:
    odds = gurps_odds.regular_contest_odds(11, 10, True, 10_000)
    assert odds.a_wins + odds.b_wins + odds.undecided == 1
    assert 0.5 < float(odds.a_wins) < 1
    written = fraction_text(odds.a_wins)
    assert Fraction(written) == odds.a_wins


def test_fraction_text_past_its_length_is_the_nearest_double() -> None:
    assert fraction_text(Fraction(29715, 46656)) == "9905/15552"
    assert fraction_text(Fraction(1, 10**5000)) == "1E-5000"
    # Past the length: 17 significant digits, rounded from the exact fraction.
    assert fraction_text(Fraction(10**4001, 3 * 10**4001 + 1)) == "0.33333333333333333"
    assert fraction_text(Fraction(2 * 10**4001, 3 * 10**4001)) == "2/3"
    assert fraction_text(Fraction(2 * 10**4001 + 1, 3 * 10**4001)) == "0.66666666666666667"
    assert fraction_text(Fraction(123456789, 10**4500)) == "1.23456789E-4492"
    # Fractions at the length are still written out.
    assert fraction_text(Fraction(1, 10**3999 + 1)) == f"1/{10**3999 + 1}"


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


def test_cairn_odds_with_the_x2_and_x3_rows_lowered_on_a_success() -> None:
    # Rating 12: a critical success 12 times in 100; then x2 (33 in 100) and x3 (33 in 100)
    # lower the score by 24 and 36 instead of raising it: the mean falls by twice that.
    raised = cairn_odds.cairn_odds(12, 45)
    lowered = cairn_odds.cairn_odds(12, 45, "lowered")
    shift = Fraction(12, 100) * (Fraction(33, 100) * 2 * 24 + Fraction(33, 100) * 2 * 36)
    assert raised.mean - lowered.mean == shift
    assert sum(lowered.distribution.values()) == 1
    assert (lowered.critical_success, lowered.critical_failure) == (
        raised.critical_success,
        raised.critical_failure,
    )
    assert lowered.success is not None
    assert raised.success is not None
    assert lowered.success < raised.success
    # Each score's chance, counted by judging every (critical, magnitude) pair for one set of
    # dice: the adjustments are the roll's own.
    counts = cairn_odds.critical_counts(12, "lowered")
    judged: Counter[tuple[cairn.Critical, int]] = Counter()
    for critical_die in range(1, 101):
        for magnitude_die in range(1, 101):
            roll = cairn.judge_cairn(
                12, [50] * 7, critical_die, magnitude_die, success_rows="lowered"
            )
            judged[(roll.critical, roll.adjustment)] += 1
    assert counts == dict(judged)


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


def _enumerate_match(
    config: arm_wrestling.Config, start: arm_wrestling.State | None = None
) -> dict[str, Fraction]:
    """Every die of every round, through the rules' own `play_round` (small matches only)."""

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
        due = sum(number > arm_wrestling.free_rounds(config, side) for side in config.competitors)
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

    walk(start or arm_wrestling.start(config, Dice()), Fraction(1))
    return dict(results)


def _walk_ds_pairs(
    config: arm_wrestling.Config, state: arm_wrestling.State
) -> arm_odds.ArmWrestleOdds:
    """The plain walk over every (DS of a, DS of b) pair, round by round, with the rules'
    `push`, `leader_index`, `check_modifier` and fatigue formulas: an independent check of the
    walk over the difference (slow past a few dozen rounds)."""
    mods = [arm_wrestling.check_modifier(config, side) for side in config.competitors]
    free = [arm_wrestling.free_rounds(config, side) for side in config.competitors]
    fatigue = [arm_wrestling.fatigue_modifier(config, side) for side in config.competitors]
    differences = Counter(
        (roll_a + mods[0]) - (roll_b + mods[1])
        for roll_a in range(1, 21)
        for roll_b in range(1, 21)
    )
    checks = list(state.con_checks_made)
    # Integer weights over `scale`, which grows by 400 and by 20 per fatigue check each round.
    layer: dict[tuple[int, int], int] = {state.ds: 1}
    scale = 1
    won = {"a": Fraction(0), "b": Fraction(0), "draw": Fraction(0)}
    expected = Fraction(state.rounds_played)
    for number in range(state.rounds_played + 1, config.max_rounds + 1):
        if not layer:
            break
        expected += Fraction(sum(layer.values()), scale)
        faces = [20, 20]
        for index in (0, 1):
            if number > free[index]:
                dc = arm_wrestling.fatigue_dc(checks[index])
                faces[index] = sum(1 for roll in range(1, 21) if roll + fatigue[index] >= dc)
                checks[index] += 1
        scale *= 400 * 400
        ended = {"a": 0, "b": 0, "draw": 0}
        following: dict[tuple[int, int], int] = {}
        for ds, weight in layer.items():
            ended["b"] += weight * (20 - faces[0]) * faces[1] * 400
            ended["a"] += weight * faces[0] * (20 - faces[1]) * 400
            leader = arm_wrestling.leader_index(ds)
            ended["draw" if leader is None else "ab"[leader]] += (
                weight * (20 - faces[0]) * (20 - faces[1]) * 400
            )
            carried = weight * faces[0] * faces[1]
            for difference, count in differences.items():
                moved = ds
                if difference:
                    winner = 0 if difference > 0 else 1
                    moved = arm_wrestling.push(ds, winner, abs(difference))
                    if moved[winner] >= config.target:
                        ended["ab"[winner]] += carried * count
                        continue
                following[moved] = following.get(moved, 0) + carried * count
        for key, value in ended.items():
            won[key] += Fraction(value, scale)
        layer = following
    undecided = Fraction(sum(layer.values()), scale)
    return arm_odds.ArmWrestleOdds(won["a"], won["b"], won["draw"], undecided, expected)


#: Two wrestlers who pass their first fatigue check (before round 2) on 6 faces of 20.
TIRING = arm_wrestling.Config(
    arm_wrestling.Competitor("A", 0, 1, -5),
    arm_wrestling.Competitor("B", 1, 1, -5),
    target=9,
    max_rounds=2,
)


def _as_played(odds: arm_odds.ArmWrestleOdds) -> dict[str, Fraction]:
    shown = {"A": odds.a_wins, "B": odds.b_wins, "draw": odds.draw, "max_rounds": odds.undecided}
    return {key: value for key, value in shown.items() if value}


def test_arm_wrestle_fatigue_against_the_rules_played_out() -> None:
    config = _match(target=100, max_rounds=1, con=0, con_score=0)
    odds = arm_odds.exact_odds(config, arm_wrestling.State(names=("A", "B")))
    # Both check DC 10 (A: d20 + 0, B: d20 + 3) before the first round.
    pass_a, pass_b = Fraction(11, 20), Fraction(14, 20)
    assert odds.b_wins == (1 - pass_a) * pass_b
    assert odds.a_wins == pass_a * (1 - pass_b)
    assert odds.draw == (1 - pass_a) * (1 - pass_b)
    assert odds.undecided == pass_a * pass_b


@pytest.mark.parametrize(
    ("config", "state"),
    [
        (_match(target=3, max_rounds=2, con=5, con_score=5), None),
        # Fatigue before the second round for both: the leader wins if both fail...
        (TIRING, arm_wrestling.State(names=("A", "B"), ds=(3, 1), rounds_played=1)),
        # ... and at equal DS it is a draw.
        (TIRING, arm_wrestling.State(names=("A", "B"), ds=(-2, -2), rounds_played=1)),
        # A crossing: the leader's DS falls below the other's, the lead changes hands.
        (
            _match(target=6, max_rounds=3, con=9, con_score=9, strength_mod=-2),
            arm_wrestling.State(names=("A", "B"), ds=(4, 1), rounds_played=1),
        ),
        # From equal DS below 0, fatigue due for B only, B a round away from certain failure.
        (
            _match(target=2, max_rounds=9, con=9, con_score=0, strength_mod=3),
            arm_wrestling.State(
                names=("A", "B"), ds=(-3, -3), con_checks_made=(0, 12), rounds_played=8
            ),
        ),
        # One side always wins the Strength checks (modifiers 25 apart).
        (_match(target=20, max_rounds=2, con=5, con_score=5, strength_mod=25), None),
    ],
)
def test_arm_wrestle_exact_against_the_rules_played_out(
    config: arm_wrestling.Config, state: arm_wrestling.State | None
) -> None:
    start = state or arm_wrestling.start(config, Dice())
    odds = arm_odds.exact_odds(config, start)
    assert _as_played(odds) == _enumerate_match(config, start)
    assert odds.a_wins + odds.b_wins + odds.draw + odds.undecided == 1
    assert odds == _walk_ds_pairs(config, start)


@pytest.mark.parametrize(
    ("config", "state"),
    [
        (_match(target=8, max_rounds=6), arm_wrestling.State(names=("A", "B"))),
        (
            _match(target=12, max_rounds=9, con=4, con_score=5, strength_mod=-3),
            arm_wrestling.State(
                names=("A", "B"), ds=(7, -2), con_checks_made=(1, 0), rounds_played=5
            ),
        ),
        (
            arm_wrestling.Config(
                arm_wrestling.Competitor("Ann", 2, 6, 1, endurance=True, off_hand=True),
                arm_wrestling.Competitor("Bea", 1, 8, -1, misc_mod=2),
                target=10,
                max_rounds=9,
            ),
            arm_wrestling.State(names=("Ann", "Bea"), ds=(-4, -1), rounds_played=2),
        ),
    ],
)
def test_arm_wrestle_exact_against_the_walk_over_ds_pairs(
    config: arm_wrestling.Config, state: arm_wrestling.State
) -> None:
    assert arm_odds.exact_odds(config, state) == _walk_ds_pairs(config, state)


def test_two_even_wrestlers_are_even_exactly() -> None:
    config = arm_wrestling.Config(
        arm_wrestling.Competitor("A", 0, 200, 100),
        arm_wrestling.Competitor("B", 0, 200, 100),
        target=10,
        max_rounds=30,
    )
    odds = arm_odds.arm_wrestle_odds(config, arm_wrestling.State(names=("A", "B")))
    assert odds.a_wins == odds.b_wins
    assert odds.draw == 0
    assert 2 * odds.a_wins + odds.undecided == 1
    assert round(float(odds.a_wins), 4) == 0.4792


def test_lydia_against_the_ogre_exactly() -> None:
    config = arm_wrestling.Config(
        arm_wrestling.Competitor("Lydia", 2, 12, 1), arm_wrestling.Competitor("Ogre", 6, 15, 2)
    )
    odds = arm_odds.arm_wrestle_odds(config, arm_wrestling.start(config, Dice()))
    assert odds.a_wins + odds.b_wins + odds.draw + odds.undecided == 1
    assert odds.undecided == 0  # Lydia cannot pass a fatigue check after round 24
    assert round(float(odds.a_wins), 6) == 0.040344
    assert round(float(odds.b_wins), 6) == 0.959602
    assert round(float(odds.draw), 7) == 0.0000544
    # Every denominator is 400 per round of Strength checks times 20 per fatigue check.
    assert 400**24 * 20**21 % odds.a_wins.denominator == 0


def test_arm_wrestle_odds_from_a_state_equal_a_fresh_start_there() -> None:
    config = _match(target=6, max_rounds=4)
    state = arm_wrestling.State(names=("A", "B"), ds=(3, 0), rounds_played=1)
    here = arm_odds.exact_odds(config, state)
    assert here.a_wins + here.b_wins + here.draw + here.undecided == 1
    finished = arm_wrestling.State(
        names=("A", "B"), finished=True, winner="B", reason="target", rounds_played=3
    )
    done = arm_odds.exact_odds(config, finished)
    assert (done.b_wins, done.expected_rounds) == (Fraction(1), Fraction(3))


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


def test_chase_from_a_distance_start_with_initiative_weighs_every_initiative_roll() -> None:
    # 2 increments (10) plus the escapee's initiative d20 - 5: leads 6 to 25, each 1 in 20.
    start = chases.DistanceStart(increments=2, with_initiative=True)
    config = replace(CHASES["plain, two increments"][0], start=start, max_rounds=3)
    config = replace(config, escapee=_racer("E", mods={"strength": 2, "initiative": -5}))
    terrain = CHASES["plain, two increments"][1]
    starts = chase_odds.starting_states(config)
    assert sorted(state.lead for state, _ in starts) == list(range(6, 26))
    assert all(p == Fraction(1, 20) for _, p in starts)
    odds = chase_odds.chase_odds(config, None, terrain, "none")
    assert isinstance(odds, chase_odds.ChaseOdds)
    alone = chase_odds.chase_odds(
        replace(config, start=chases.DistanceStart(increments=2)), None, terrain, "none"
    )
    assert isinstance(alone, chase_odds.ChaseOdds)
    assert odds.caught < alone.caught  # a longer lead on average is caught less often


def test_unbounded_retries_fall_back_to_monte_carlo() -> None:
    config, terrain, _ = CHASES["an obstacle with one retry"]
    config = replace(config, max_retries=None, max_rounds=5)
    odds = chase_odds.chase_odds(config, None, terrain, "none", seed=4)
    assert isinstance(odds, chase_odds.ChaseEstimate)
    assert odds.seed == 4
    assert odds.trials > 100


def test_choices_whose_increments_cannot_be_enumerated_are_estimated() -> None:
    # Unbounded retries: neither the first increment (an obstacle) nor the walk after it on
    # the same terrain can be enumerated; on plain terrain after, only the first cannot.
    config, terrain, _ = CHASES["an obstacle with one retry"]
    config = replace(config, max_retries=None, max_rounds=5)
    state = chases.start(config, Dice())
    plain = chases.Terrain(races.Increment(check="strength"))
    options = [
        (chases.RoundInput(terrain), terrain),
        (chases.RoundInput(terrain), plain),
        (chases.RoundInput(plain), terrain),
        (chases.RoundInput(plain), plain),
    ]
    answers = chase_odds.choices_odds(config, state, options, "none", seed=4)
    assert [type(odds) for odds in answers] == [
        chase_odds.ChaseEstimate,
        chase_odds.ChaseEstimate,
        chase_odds.ChaseEstimate,
        chase_odds.ChaseOdds,
    ]
    for odds, (first, after) in zip(answers, options, strict=True):
        assert odds == chase_odds.choice_odds(config, state, first, after, "none", seed=4)
    exact = answers[3]
    assert isinstance(exact, chase_odds.ChaseOdds)
    assert exact.caught + exact.escaped + exact.gave_up == 1


# --- honest estimates ------------------------------------------------------------------------


def test_an_outcome_never_seen_is_not_certain_to_be_impossible() -> None:
    never = simulation.estimate(0, 100)
    assert never.probability == 0
    # The Agresti-Coull error: (0 + 2) / 104 over 104 trials.
    assert never.standard_error == sqrt((2 / 104) * (102 / 104) / 104)
    always = simulation.estimate(100, 100)
    assert always.probability == 1
    assert always.standard_error == pytest.approx(never.standard_error)
    common = simulation.estimate(500, 1000)
    assert common.standard_error == pytest.approx(sqrt(0.25 / 1000), rel=0.01)


#: One increment with an obstacle either racer may fail (no retry: she forfeits): every
#: outcome happens, the rarest (both forfeit, a tie) a few times in 150 races.
COVERAGE_RACE = races.Config(
    competitors=(
        races.Competitor("Ann", speed=30, mods={"strength": 2, "jump": 0}),
        races.Competitor("Bob", speed=30, mods={"strength": 0, "jump": 1}),
    ),
    course=races.Course(
        (
            races.Increment(
                check="strength", obstacle=races.Obstacle("obstacle", check="jump", dc=4)
            ),
        )
    ),
)


def test_race_estimates_cover_their_chances_as_their_errors_say() -> None:
    """Over 300 seeds, each estimate +- 2 standard errors holds the chance (the mean of all
    45 000 races) 90% to 99% of the time, for every outcome expected 3 times or more in an
    estimate's 150 races, and at least 90% of the time for rarer ones."""
    trials = 150
    start = races.start(COVERAGE_RACE, Dice())
    runs = [race_odds.race_odds(COVERAGE_RACE, start, seed, trials=trials) for seed in range(300)]
    assert {run.trials for run in runs} == {trials}

    def reported(run: race_odds.RaceEstimate) -> dict[str, simulation.Estimate]:
        shown = {f"wins.{name}": e for name, e in run.wins.items()}
        shown.update({f"forfeits.{name}": e for name, e in run.forfeits.items()})
        return {**shown, "tie": run.tie, "nobody": run.nobody}

    tables = [reported(run) for run in runs]
    for name in tables[0]:
        chance = sum(table[name].probability for table in tables) / len(tables)
        assert chance > 0, name  # every outcome happens
        held = sum(
            abs(table[name].probability - chance) <= 2 * table[name].standard_error
            for table in tables
        ) / len(tables)
        assert held >= 0.90, (name, chance, held)
        if chance * trials >= 3:
            assert held <= 0.99, (name, chance, held)
        # An estimate that never saw the outcome still gives it an error.
        assert all(table[name].standard_error > 0 for table in tables)


#: Four strength increments from a lead of 14, the escapee hiding when she may: caught and
#: still on common, escaped (by the lead or by hiding) about 7%, hid rare (0.68%: about once
#: in an estimate's 150 chases, never in a third of them).
COVERAGE_CHASE = chases.Config(
    _racer("E", mods={"strength": 1, "hide": -14}),
    _racer("C", mods={"strength": 1, "spot": 2}),
    chases.LeadStart(lead=14),
    max_rounds=4,
)


def test_chase_estimates_cover_their_chances_as_their_errors_say() -> None:
    """What a chase past the exact walk's budget answers: over 300 seeds, each estimate +- 2
    standard errors holds the exact chance 90% to 99% of the time for every outcome expected
    3 times or more in an estimate's 150 chases, and at least 90% of the time for rarer ones,
    with an error even when the outcome was never seen."""
    trials = 150
    terrain = chases.Terrain(races.Increment(check="strength"))
    start = chases.start(COVERAGE_CHASE, Dice())
    exact = chase_odds.exact_odds(COVERAGE_CHASE, start, terrain, "hide-when-possible")
    runs = [
        chase_odds.simulated_odds(
            COVERAGE_CHASE, start, terrain, "hide-when-possible", seed, trials_asked=trials
        )
        for seed in range(300)
    ]
    assert {run.trials for run in runs} == {trials}
    assert Fraction(1, 200) < exact.hid < Fraction(1, 100)
    assert sum(run.hid.probability == 0 for run in runs) > 50
    for name in ("caught", "escaped", "hid", "gave_up"):
        chance = float(getattr(exact, name))
        estimates: list[simulation.Estimate] = [getattr(run, name) for run in runs]
        held = sum(
            abs(each.probability - chance) <= 2 * each.standard_error for each in estimates
        ) / len(estimates)
        assert held >= 0.90, (name, chance, held)
        if chance * trials >= 3:
            assert held <= 0.99, (name, chance, held)
        assert all(each.standard_error > 0 for each in estimates)


def test_an_arm_wrestle_past_the_budget_is_refused_as_past_the_work_limit() -> None:
    config = arm_wrestling.Config(
        arm_wrestling.Competitor("A", 0, 200, 100, endurance=True),
        arm_wrestling.Competitor("B", 0, 200, 100, endurance=True),
        target=100,
        max_rounds=10_000,
    )
    start = arm_wrestling.start(config, Dice())
    assert arm_odds.horizon(config, start) == 316
    with pytest.raises(WorkLimitExceeded, match="more work than the service does"):
        arm_odds.exact_odds(config, start, budget=10**6)
    # Its last rounds fit: odds from a state close to the end are answered.
    late = replace(start, ds=(40, 60), con_checks_made=(110, 110), rounds_played=310)
    odds = arm_odds.exact_odds(config, late)
    assert odds.a_wins + odds.b_wins + odds.draw + odds.undecided == 1
    assert odds.b_wins > odds.a_wins


def _one_sided_match(config: arm_wrestling.Config) -> arm_odds.ArmWrestleOdds:
    """A match from creation in which `a` never loses a round of Strength checks (her check
    modifier at least 19 over `b`'s): `b`'s DS stays 0 (she never wins a round, so never pushes
    and never leads), so only `a`'s DS walks, by `roll_a - roll_b + modifier difference`, and
    both check fatigue by the rules' formulas. An independent walk over one DS, in integers."""
    mods = [arm_wrestling.check_modifier(config, side) for side in config.competitors]
    assert mods[0] - mods[1] >= 19
    free = [arm_wrestling.free_rounds(config, side) for side in config.competitors]
    fatigue = [arm_wrestling.fatigue_modifier(config, side) for side in config.competitors]
    rises = Counter(
        (roll_a + mods[0]) - (roll_b + mods[1])
        for roll_a in range(1, 21)
        for roll_b in range(1, 21)
    )
    layer = {0: 1}  # a's DS -> paths, out of `scale`
    scale = 1
    a_wins = b_wins = draw = expected = 0
    checks = [0, 0]
    for number in range(1, config.max_rounds + 1):
        if not layer:
            break
        faces = [20, 20]
        for index in (0, 1):
            if number > free[index]:
                dc = arm_wrestling.fatigue_dc(checks[index])
                faces[index] = sum(1 for roll in range(1, 21) if roll + fatigue[index] >= dc)
                checks[index] += 1
        step = 20 * 20 * 400
        a_wins, b_wins, draw = a_wins * step, b_wins * step, draw * step
        expected = expected * step + sum(layer.values()) * step
        scale *= step
        following: dict[int, int] = {}
        for ds, weight in layer.items():
            a_wins += weight * faces[0] * (20 - faces[1]) * 400
            b_wins += weight * (20 - faces[0]) * faces[1] * 400
            both = weight * (20 - faces[0]) * (20 - faces[1]) * 400
            if ds > 0:
                a_wins += both
            else:
                draw += both
            carried = weight * faces[0] * faces[1]
            for rise, count in rises.items():
                if ds + rise >= config.target:
                    a_wins += carried * count
                else:
                    following[ds + rise] = following.get(ds + rise, 0) + carried * count
        layer = following
    undecided = sum(layer.values())
    return arm_odds.ArmWrestleOdds(
        Fraction(a_wins, scale),
        Fraction(b_wins, scale),
        Fraction(draw, scale),
        Fraction(undecided, scale),
        Fraction(expected, scale),
    )


#: The longest match the creation limits allow: 200 free rounds, then fatigue checks at +104
#: that pass on every face up to DC 105 and on none past DC 124.
LONGEST = arm_wrestling.Config(
    arm_wrestling.Competitor("A", 0, 200, 100, endurance=True),
    arm_wrestling.Competitor("B", 0, 200, 100, endurance=True),
    target=100,
    max_rounds=10_000,
)


@pytest.mark.parametrize(("strength", "target"), [(19, 100), (25, 100), (19, 3)])
def test_the_longest_match_the_limits_allow_exactly_when_one_side_never_loses_a_round(
    strength: int, target: int
) -> None:
    config = replace(
        LONGEST, a=replace(LONGEST.a, strength_mod=strength), target=target, max_rounds=316
    )
    start = arm_wrestling.start(config, Dice())
    assert arm_odds.horizon(config, start) == 316
    odds = arm_odds.exact_odds(config, start)
    assert odds == _one_sided_match(config)
    assert odds.a_wins + odds.b_wins + odds.draw + odds.undecided == 1
    if strength == 19:  # a round is a tie on 1 pair of 400: b wins only after 200 ties running
        assert 0 < odds.b_wins < Fraction(1, 400**200)
    else:  # a gains at least 6 every round: she reaches the target before any fatigue check
        assert (odds.a_wins, odds.b_wins) == (Fraction(1), Fraction(0))
    # Every denominator is 400 per round of Strength checks times 20 per fatigue check.
    assert (400**316 * 400**116) % odds.expected_rounds.denominator == 0


def test_a_long_even_match_within_the_budget_is_exact() -> None:
    # 52 rounds to target 100 (the longest even match the bench answers): the walk's largest
    # question answered, about two thirds of its budget.
    config = replace(
        LONGEST,
        a=replace(LONGEST.a, con_score=30, con_mod=10, endurance=False),
        b=replace(LONGEST.b, con_score=30, con_mod=10, endurance=False),
    )
    start = arm_wrestling.start(config, Dice())
    assert arm_odds.horizon(config, start) == 52
    odds = arm_odds.exact_odds(config, start)
    assert odds.a_wins + odds.b_wins + odds.draw + odds.undecided == 1
    assert odds.a_wins == odds.b_wins  # the same wrestler twice
    assert odds.undecided == 0  # neither can pass the check before round 52
    assert odds.draw > 0
    assert 400**51 * 20**43 % odds.a_wins.denominator == 0
    assert round(float(odds.a_wins), 6) == 0.499554


@settings(max_examples=150, deadline=None)
@given(
    shift=st.integers(-22, 22),
    con=st.tuples(st.integers(0, 4), st.integers(0, 4)),
    con_mod=st.tuples(st.integers(-6, 8), st.integers(-6, 8)),
    target=st.integers(1, 12),
    ds=st.tuples(st.integers(-8, 11), st.integers(-8, 11)),
    played=st.integers(0, 3),
    left=st.integers(1, 4),
)
def test_arm_wrestle_exact_equals_the_walk_over_ds_pairs_anywhere(
    shift: int,
    con: tuple[int, int],
    con_mod: tuple[int, int],
    target: int,
    ds: tuple[int, int],
    played: int,
    left: int,
) -> None:
    config = arm_wrestling.Config(
        arm_wrestling.Competitor("A", shift, con[0], con_mod[0]),
        arm_wrestling.Competitor("B", 0, con[1], con_mod[1]),
        target=target,
        max_rounds=played + left,
    )
    start = arm_wrestling.State(
        names=("A", "B"),
        ds=(min(ds[0], target - 1), min(ds[1], target - 1)),
        con_checks_made=(max(played - con[0], 0), max(played - con[1], 0)),
        rounds_played=played,
    )
    odds = arm_odds.exact_odds(config, start)
    assert odds.a_wins + odds.b_wins + odds.draw + odds.undecided == 1
    assert odds == _walk_ds_pairs(config, start)


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


def test_chase_choices_walked_together_are_each_choice_walked_alone() -> None:
    # Thirty increments: the packed weights outgrow their first slots and are widened.
    config = replace(CHOOSING, max_rounds=30)
    state = chases.start(config, Dice())
    uphill = chases.Terrain(races.Increment(check="strength", modifier=-6))
    options = [
        (chases.RoundInput(PLAIN, chases.Hide()), PLAIN),
        (chases.RoundInput(PLAIN, chases.CreateHazard(penalty=4)), PLAIN),
        (chases.RoundInput(PLAIN), PLAIN),
        (chases.RoundInput(uphill), PLAIN),  # its own terrain first, then the same walk
        (chases.RoundInput(uphill), uphill),  # another walk
    ]
    together = chase_odds.choices_odds(config, state, options, "hide-when-possible")
    alone = [
        chase_odds.choice_odds(config, state, first, terrain, "hide-when-possible")
        for first, terrain in options
    ]
    assert together == alone
    for odds in together:
        assert isinstance(odds, chase_odds.ChaseOdds)
        assert odds.caught + odds.escaped + odds.gave_up == 1
    # Each alone is the mixture of the odds from every state its increment leaves.
    expected = _after_each_outcome(config, state, options[1][0], PLAIN, "hide-when-possible")
    hazard = together[1]
    assert isinstance(hazard, chase_odds.ChaseOdds)
    assert (hazard.caught, hazard.hid, hazard.expected_increments) == (
        expected["caught"],
        expected["hid"],
        expected["expected_increments"],
    )


def test_chase_choices_past_the_budget_together_are_answered_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A group's walk counts every option's steps: with a budget one option's walk fits but not
    # three, each option is walked alone, and answered exactly as before.
    state = chases.start(CHOOSING, Dice())
    options = [
        (chases.RoundInput(PLAIN, chases.Hide()), PLAIN),
        (chases.RoundInput(PLAIN), PLAIN),
    ]
    expected = [
        chase_odds.choice_odds(CHOOSING, state, first, terrain, "none")
        for first, terrain in options
    ]
    walked: list[int] = []
    walk = chase_odds._walk

    def counted(*args: object) -> list[chase_odds.ChaseOdds]:
        starts = args[5]
        assert isinstance(starts, list)
        walked.append(len(starts))
        if len(starts) > 1:
            raise enumeration.TooLarge
        return walk(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(chase_odds, "_walk", counted)
    assert chase_odds.choices_odds(CHOOSING, state, options, "none") == expected
    assert walked == [2, 1, 1]


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
