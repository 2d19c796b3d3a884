"""One against many and rankings (docs/rules.md#one-against-many): the resolutions with
supplied dice, and their exact odds against brute force over every roll, played through the
resolutions themselves."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from app.rules import groups, gurps
from app.rules.common import MAX_OPPOSED_REROLLS
from app.rules.dice import Dice
from app.rules.odds import groups as group_odds
from app.rules.odds.enumeration import outcomes
from app.rules.odds.gurps import ROLLS_3D6, TOTAL_COUNTS, quick_contest_odds
from tests.helpers import ScriptedRng
from tests.helpers import supplied_keys as supplied

#: One 3d6 roll of each total (the judges read only the total), with how many rolls make it.
TOTALS = [
    (next(r for r in itertools.product(range(1, 7), repeat=3) if sum(r) == total), count)
    for total, count in TOTAL_COUNTS.items()
]


def test_one_roll_against_each_opponent() -> None:
    dice = supplied(
        {
            ("Thief", gurps.SUCCESS): [2, 3, 4],
            ("Guard", gurps.SUCCESS): [5, 5, 1],
            ("Captain", gurps.SUCCESS): [1, 1, 2],
            ("Dog", gurps.SUCCESS): [4, 4, 5],
        }
    )
    contests = groups.quick_contests(
        ("Thief", 13), [("Guard", 10), ("Captain", 10), ("Dog", 17)], dice
    )
    # Thief makes it by 4; Guard misses by 1 (Thief by 5); Captain rolls 4, a success by 6
    # (Captain by 2); Dog rolls 13 against 17, made by 4: a tie.
    assert contests.competitor.margin == 4
    assert [(r.name, r.winner, r.margin_of_victory) for r in contests.results] == [
        ("Guard", "competitor", 5),
        ("Captain", "opponent", 2),
        ("Dog", None, None),
    ]
    assert (contests.beaten, contests.beaten_by, contests.ties) == (1, 1, 1)
    assert groups.quick_contests_summary("Thief", contests) == (
        "Thief (skill 13) rolled 9, made it by 4: beats 1 of 3 (Guard); loses to Captain; "
        "ties with Dog."
    )
    # Each die rolled once, by whom it was supplied for: the one roll is shared.
    assert [(entry.who, entry.values) for entry in dice.log] == [
        ("Thief", (2, 3, 4)),
        ("Guard", (5, 5, 1)),
        ("Captain", (1, 1, 2)),
        ("Dog", (4, 4, 5)),
    ]


def test_ranking_shares_places() -> None:
    dice = supplied(
        {
            ("Ann", gurps.SUCCESS): [5, 5, 1],
            ("Bob", gurps.SUCCESS): [2, 3, 4],
            ("Cid", gurps.SUCCESS): [3, 3, 3],
            ("Dee", gurps.SUCCESS): [6, 6, 6],
        }
    )
    placed = groups.ranked([("Ann", 12), ("Bob", 10), ("Cid", 10), ("Dee", 18)], dice)
    # Ann 11 v 12: by 1; Bob 9 v 10: by 1; Cid 9 v 10: by 1; Dee 18: fails whatever the skill.
    assert [(p.name, p.place) for p in placed] == [("Ann", 1), ("Bob", 1), ("Cid", 1), ("Dee", 4)]


def test_opposed_checks_reroll_a_tie_pair_by_pair() -> None:
    dice = supplied(
        {
            ("Thief", groups.CHECK): [11],
            ("Thief", groups.reroll_purpose("Captain")): [15],
            ("Guard", groups.CHECK): [18],
            ("Captain", groups.CHECK): [11],
            ("Captain", groups.reroll_purpose("Thief")): [9],
            ("Twin", groups.CHECK): [16],
        }
    )
    checks = groups.opposed_checks(("Thief", 7), [("Guard", 2), ("Captain", 7), ("Twin", 2)], dice)
    # 18 against Guard's 20: Guard; 18 = 18 with equal modifiers: rerolled, 22 v 16: Thief;
    # 18 = 18 against Twin's +2: the higher modifier, Thief.
    assert [(r.name, r.competitor_wins, len(r.attempts)) for r in checks.results] == [
        ("Guard", False, 1),
        ("Captain", True, 2),
        ("Twin", True, 1),
    ]
    assert dice.unused() == []


def test_a_pair_tied_past_every_reroll_goes_to_the_opponent() -> None:
    ties = [10] * (1 + MAX_OPPOSED_REROLLS)
    dice = supplied(
        {
            ("A", groups.CHECK): ties[:1],
            ("A", groups.reroll_purpose("B")): ties[1:],
            ("B", groups.CHECK): ties[:1],
            ("B", groups.reroll_purpose("A")): ties[1:],
        }
    )
    checks = groups.opposed_checks(("A", 3), [("B", 3)], dice)
    assert not checks.results[0].competitor_wins
    assert len(checks.results[0].attempts) == 1 + MAX_OPPOSED_REROLLS


# --- odds against brute force -----------------------------------------------------------------


def brute_quick_contests(
    skill: int, opponents: list[int]
) -> tuple[list[tuple[Fraction, Fraction, Fraction]], dict[int, Fraction], Fraction]:
    """Every combination of 3d6 totals, played through `groups.quick_contests`: per opponent
    (beats, ties, beaten by), how many are beaten, and the chance somebody beats the one."""
    names = [f"O{i}" for i in range(len(opponents))]
    per = [[Fraction(0)] * 3 for _ in opponents]
    beaten: Counter[int] = Counter()
    by_any = 0
    scale = ROLLS_3D6 ** (1 + len(opponents))
    for combo in itertools.product(TOTALS, repeat=1 + len(opponents)):
        weight = 1
        values: dict[tuple[str | None, str], list[int]] = {}
        for who, (roll, count) in zip(["Me", *names], combo, strict=True):
            weight *= count
            values[(who, gurps.SUCCESS)] = list(roll)
        contests = groups.quick_contests(
            ("Me", skill), list(zip(names, opponents, strict=True)), supplied(values)
        )
        for i, result in enumerate(contests.results):
            slot = {"competitor": 0, None: 1, "opponent": 2}[result.winner]
            per[i][slot] += Fraction(weight, scale)
        beaten[contests.beaten] += weight
        if contests.beaten_by:
            by_any += weight
    pairs = [(p[0], p[1], p[2]) for p in per]
    return pairs, {k: Fraction(v, scale) for k, v in beaten.items()}, Fraction(by_any, scale)


@pytest.mark.parametrize(("skill", "opponents"), [(13, [10, 10]), (9, [12, 4]), (15, [15, 15])])
def test_quick_contests_odds_equal_brute_force(skill: int, opponents: list[int]) -> None:
    odds = group_odds.quick_contests_odds(skill, opponents)
    pairs, beaten, by_any = brute_quick_contests(skill, opponents)
    assert [(p.beats, p.ties, p.beaten_by) for p in odds.pairs] == pairs
    assert {k: p for k, p in enumerate(odds.beaten) if p} == beaten
    assert odds.all_beaten == beaten.get(len(opponents), 0)
    assert odds.beaten_by_any == by_any
    assert sum(odds.beaten) == 1


def test_a_pair_is_the_two_sided_quick_contest() -> None:
    odds = group_odds.quick_contests_odds(13, [10])
    two = quick_contest_odds(13, 10)
    assert (odds.pairs[0].beats, odds.pairs[0].ties, odds.pairs[0].beaten_by) == (
        two.a_wins,
        two.tie,
        two.b_wins,
    )


def test_nobody_spots_me_is_not_the_product_of_each_guard() -> None:
    """A thief's Stealth 13 against three guards' Perception 10: the shared roll makes the
    guards' results move together, so the chance that none of them wins is not the product
    of each one's own."""
    odds = group_odds.quick_contests_odds(13, [10, 10, 10])
    nobody = 1 - odds.beaten_by_any
    product = Fraction(1)
    for pair in odds.pairs:
        product *= 1 - pair.beaten_by
    assert nobody > product  # a good roll beats them all at once
    assert odds.all_beaten > odds.independent_all_beaten
    pairs, beaten, by_any = brute_quick_contests(13, [10, 10])
    two = group_odds.quick_contests_odds(13, [10, 10])
    assert 1 - two.beaten_by_any == 1 - by_any
    assert two.independent_all_beaten == pairs[0][0] * pairs[1][0] != beaten[2]


def test_no_opponent_that_cannot_win_changes_the_odds() -> None:
    # Skill -100 only succeeds on 3 or 4, and then by 0: the competitor at 18 beats it unless
    # the competitor's own roll fails; the figures stay exact fractions that sum to 1.
    odds = group_odds.quick_contests_odds(18, [-100])
    assert sum(odds.beaten) == 1
    assert odds.pairs[0].beats + odds.pairs[0].ties + odds.pairs[0].beaten_by == 1


def brute_opposed(
    modifier: int, opponents: list[int]
) -> tuple[list[Fraction], dict[int, Fraction]]:
    """Every first d20 of everyone, played through `groups.opposed_checks` (modifiers that
    differ from the competitor's, so no pair rerolls)."""
    names = [f"O{i}" for i in range(len(opponents))]
    beats = [Fraction(0)] * len(opponents)
    beaten: Counter[int] = Counter()
    scale = 20 ** (1 + len(opponents))
    for combo in itertools.product(range(1, 21), repeat=1 + len(opponents)):
        values: dict[tuple[str | None, str], list[int]] = {
            (who, groups.CHECK): [roll] for who, roll in zip(["Me", *names], combo, strict=True)
        }
        checks = groups.opposed_checks(
            ("Me", modifier), list(zip(names, opponents, strict=True)), supplied(values)
        )
        for i, result in enumerate(checks.results):
            beats[i] += Fraction(result.competitor_wins, scale)
        beaten[checks.beaten] += 1
    return beats, {k: Fraction(v, scale) for k, v in beaten.items()}


@pytest.mark.parametrize(("modifier", "opponents"), [(5, [2, 8]), (0, [-3, 4, 1])])
def test_opposed_checks_odds_equal_brute_force(modifier: int, opponents: list[int]) -> None:
    odds = group_odds.opposed_checks_odds(modifier, opponents)
    beats, beaten = brute_opposed(modifier, opponents)
    assert [p.beats for p in odds.pairs] == beats
    assert {k: p for k, p in enumerate(odds.beaten) if p} == beaten
    assert odds.beaten_by_any == 1 - beaten.get(len(opponents), 0)


def test_equal_modifiers_reroll_chance() -> None:
    """With equal modifiers a tied pair rerolls: per attempt the first side wins 190 of the 400
    pairs and ties 20, at most 20 rerolls, then the second side wins — a geometric sum."""
    tie = Fraction(1, 20)
    win = Fraction(19, 40)
    assert win * (1 - tie**MAX_OPPOSED_REROLLS) / (1 - tie) == group_odds.EQUAL_REROLLS_WIN
    # One opponent at the same modifier: the first d20s tie 20 of 400 times.
    odds = group_odds.opposed_checks_odds(4, [4])
    assert odds.pairs[0].beats == win + tie * group_odds.EQUAL_REROLLS_WIN
    assert odds.pairs[0].beats < Fraction(1, 2) < odds.pairs[0].beaten_by


def brute_ranked(skills: list[int]) -> tuple[list[Fraction], list[Fraction]]:
    names = [f"C{i}" for i in range(len(skills))]
    first = [Fraction(0)] * len(skills)
    shared = [Fraction(0)] * len(skills)
    scale = ROLLS_3D6 ** len(skills)
    for combo in itertools.product(TOTALS, repeat=len(skills)):
        weight = 1
        values: dict[tuple[str | None, str], list[int]] = {}
        for who, (roll, count) in zip(names, combo, strict=True):
            weight *= count
            values[(who, gurps.SUCCESS)] = list(roll)
        placed = groups.ranked(list(zip(names, skills, strict=True)), supplied(values))
        firsts = [p.name for p in placed if p.place == 1]
        for name in firsts:
            target = first if len(firsts) == 1 else shared
            target[names.index(name)] += Fraction(weight, scale)
    return first, shared


@pytest.mark.parametrize("skills", [[12, 11, 13], [10, 10], [3, 18, 9]])
def test_ranked_odds_equal_brute_force(skills: list[int]) -> None:
    odds = group_odds.ranked_odds(skills)
    first, shared = brute_ranked(skills)
    assert list(odds.first) == first
    assert list(odds.shared_first) == shared
    assert odds.nobody_alone == 1 - sum(first)


def test_the_shared_roll_is_rolled_once() -> None:
    # Server dice: one 3d6 for the competitor, one for each of 64 opponents, nothing more.
    rng = ScriptedRng([1, 2, 3] * 65, sides=6)
    contests = groups.quick_contests(("Me", 12), [(f"O{i}", 10) for i in range(64)], Dice(rng))
    assert rng.left == 0
    assert len(contests.results) == 64
    # Everyone rolled 6: the competitor makes it by 6, every opponent by 4.
    assert contests.beaten == 64
    assert {r.margin_of_victory for r in contests.results} == {2}


def test_the_thief_and_two_guards() -> None:
    """docs/rules.md#odds-of-one-against-many's example."""
    odds = group_odds.quick_contests_odds(13, [10, 10])
    assert odds.pairs[0].beats == Fraction(11207, 15552)
    assert odds.all_beaten == Fraction(5869267, 10077696)
    assert round(float(odds.independent_all_beaten), 3) == 0.519


# --- d20: everyone ranked ---------------------------------------------------------------------


def test_ranked_checks_break_ties_by_modifier_then_by_rerolls() -> None:
    dice = supplied(
        {
            ("Ann", groups.CHECK): [14],  # 17
            ("Bob", groups.CHECK): [10],  # 17, the higher modifier: above Ann
            ("Cid", groups.CHECK): [15],  # 22
            ("Dee", groups.CHECK): [14],  # 17 at +3, as Ann: they roll again
            ("Eve", groups.CHECK): [12],  # 22 at +10, above Cid
            ("Ann", groups.REROLL): [9, 4],
            ("Dee", groups.REROLL): [9, 18],  # tied again, then Dee
        }
    )
    ranking = groups.ranked_checks(
        [("Ann", 3), ("Bob", 7), ("Cid", 7), ("Dee", 3), ("Eve", 10)], dice
    )
    assert [(r.place, r.name, r.check.total, r.rerolls) for r in ranking] == [
        (1, "Eve", 22, ()),
        (2, "Cid", 22, ()),
        (3, "Bob", 17, ()),
        (4, "Dee", 17, (9, 18)),
        (5, "Ann", 17, (9, 4)),
    ]
    assert dice.unused() == []
    assert groups.ranked_checks_summary(ranking[3:]) == (
        "4. Dee (d20 14 + 3 = 17, rerolls 9 18); 5. Ann (d20 14 + 3 = 17, rerolls 9 4)."
    )


def test_ranked_checks_still_tied_after_every_reroll_share_the_place() -> None:
    ties = [10] * MAX_OPPOSED_REROLLS
    dice = supplied(
        {
            ("A", groups.CHECK): [10],
            ("B", groups.CHECK): [10],
            ("C", groups.CHECK): [1],
            ("A", groups.REROLL): ties,
            ("B", groups.REROLL): ties,
        }
    )
    ranking = groups.ranked_checks([("A", -2), ("B", -2), ("C", 0)], dice)
    assert [(r.place, r.name) for r in ranking] == [(1, "A"), (1, "B"), (3, "C")]
    assert dice.unused() == []


def brute_ranked_checks(
    modifiers: list[int], max_rerolls: int
) -> tuple[list[Fraction], list[Fraction]]:
    """Each competitor's chance to be first alone, and to share first place, over every d20
    the ranked check itself draws (its rerolls included)."""
    names = [f"C{i}" for i in range(len(modifiers))]
    first = [Fraction(0)] * len(names)
    shared = [Fraction(0)] * len(names)
    everyone = list(zip(names, modifiers, strict=True))
    for ranking, chance in outcomes(
        lambda dice: groups.ranked_checks(everyone, dice, max_rerolls=max_rerolls)
    ):
        top = [entry.name for entry in ranking if entry.place == 1]
        for name in top:
            (first if len(top) == 1 else shared)[names.index(name)] += chance
    return first, shared


@pytest.mark.parametrize(
    ("modifiers", "max_rerolls"),
    [([0, 0], 1), ([2, 0, 5], 0), ([0, 0, 0], 0), ([4, 4, 1], 0), ([3, -1], 3)],
)
def test_ranked_checks_odds_equal_brute_force(modifiers: list[int], max_rerolls: int) -> None:
    odds = group_odds.ranked_checks_odds(modifiers, max_rerolls=max_rerolls)
    first, shared = brute_ranked_checks(modifiers, max_rerolls)
    assert list(odds.first) == first
    assert list(odds.shared_first) == shared
    assert odds.nobody_alone == 1 - sum(first)


def test_two_at_one_modifier_share_first_only_past_every_reroll() -> None:
    # The first d20s tie 1 time in 20, and each reroll ties again 1 time in 20.
    odds = group_odds.ranked_checks_odds([5, 5])
    tie = Fraction(1, 20)
    assert odds.first == (Fraction(19, 40) + tie * (1 - tie**MAX_OPPOSED_REROLLS) / 2,) * 2
    assert odds.shared_first == (tie ** (1 + MAX_OPPOSED_REROLLS),) * 2
    assert odds.nobody_alone == tie ** (1 + MAX_OPPOSED_REROLLS)


def test_sixty_four_at_one_modifier_each_come_first_equally() -> None:
    odds = group_odds.ranked_checks_odds([2] * 64)
    assert len(set(odds.first)) == 1
    assert sum(odds.first) + odds.nobody_alone == 1
    assert 0 < odds.nobody_alone < Fraction(1, 10**20)
