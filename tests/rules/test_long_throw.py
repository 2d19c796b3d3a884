"""The long throw (docs/rules.md#long-throws): load table, distance, caber, precision, thrown
creatures."""

from __future__ import annotations

import ast
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import long_throw as lt
from app.rules.dice import Dice, SeededRng
from app.rules.errors import DiceError, PhaseError, RulesError
from tests.helpers import supplied_keys

JAVELIN = lt.STANDARD_OBJECTS["javelin"]
DISCUS = lt.STANDARD_OBJECTS["discus"]
STONE = lt.STANDARD_OBJECTS["stone"]
HALFLING = lt.STANDARD_OBJECTS["halfling"]
LOG = lt.STANDARD_OBJECTS["log"]


def run(
    thrown: lt.ThrownObject,
    throwers: Sequence[lt.Thrower],
    dice: Mapping[tuple[str, str], Sequence[int]],
    *,
    mode: lt.Mode = "distance",
    into_wall: bool = False,
    max_series: int = lt.DEFAULT_MAX_SERIES,
    toss_distance_ft: int | None = None,
    far_shot_doubles: lt.FarShotRule = "check",
) -> tuple[lt.LongThrow, Dice]:
    config = lt.long_throw_config(
        thrown,
        throwers,
        mode=mode,
        into_wall=into_wall,
        max_series=max_series,
        toss_distance_ft=toss_distance_ft,
        far_shot_doubles=far_shot_doubles,
    )
    source = supplied_keys(dice)
    outcome = lt.resolve_long_throw(config, source)
    source.require_all_used()
    return outcome, source


def only(outcome: lt.LongThrow, name: str) -> lt.ThrowResult:
    (result,) = (r for r in outcome.throws if r.name == name)
    return result


# --- the carrying-capacity table (docs/rules.md#who-may-throw-loads) -------------------------

#: The 3.5 SRD table (light, medium, heavy maxima in lb), typed in from the SRD, not computed.
SRD_TABLE = {
    1: (3, 6, 10), 2: (6, 13, 20), 3: (10, 20, 30), 4: (13, 26, 40), 5: (16, 33, 50),
    6: (20, 40, 60), 7: (23, 46, 70), 8: (26, 53, 80), 9: (30, 60, 90), 10: (33, 66, 100),
    11: (38, 76, 115), 12: (43, 86, 130), 13: (50, 100, 150), 14: (58, 116, 175),
    15: (66, 133, 200), 16: (76, 153, 230), 17: (86, 173, 260), 18: (100, 200, 300),
    19: (116, 233, 350), 20: (133, 266, 400), 21: (153, 306, 460), 22: (173, 346, 520),
    23: (200, 400, 600), 24: (233, 466, 700), 25: (266, 533, 800), 26: (306, 613, 920),
    27: (346, 693, 1040), 28: (400, 800, 1200), 29: (466, 933, 1400),
}  # fmt: skip


@pytest.mark.parametrize(("strength", "row"), sorted(SRD_TABLE.items()))
def test_table_matches_the_srd(strength: int, row: tuple[int, int, int]) -> None:
    assert lt.load_limits_for(strength) == lt.LoadLimits(*row)
    assert lt.heavy_load_max(strength) == row[2]


@pytest.mark.parametrize(
    ("strength", "row"),
    [
        (30, (532, 1064, 1600)),
        (35, (1064, 2132, 3200)),
        (39, (1864, 3732, 5600)),
        (40, (2128, 4256, 6400)),
        (49, (7456, 14928, 22400)),
        (50, (8512, 17024, 25600)),
    ],
)
def test_each_ten_beyond_29_multiplies_the_row_by_four(
    strength: int, row: tuple[int, int, int]
) -> None:
    assert lt.load_limits_for(strength) == lt.LoadLimits(*row)


@given(st.integers(min_value=20, max_value=lt.MAX_STRENGTH - 10))
def test_heavy_load_quadruples_every_ten(strength: int) -> None:
    assert lt.heavy_load_max(strength + 10) == 4 * lt.heavy_load_max(strength)


@pytest.mark.parametrize(
    ("size", "row"),
    [
        ("fine", (4, 8, 12)),
        ("diminutive", (8, 16, 25)),
        ("tiny", (16, 33, 50)),
        ("small", (24, 49, 75)),
        ("medium", (33, 66, 100)),
        ("large", (66, 132, 200)),
        ("huge", (132, 264, 400)),
        ("gargantuan", (264, 528, 800)),
        ("colossal", (528, 1056, 1600)),
    ],
)
def test_size_scales_str_10_rounding_down(size: lt.Size, row: tuple[int, int, int]) -> None:
    assert lt.load_limits_for(10, size) == lt.LoadLimits(*row)


def test_size_scaling_rounds_each_maximum_down() -> None:
    assert lt.load_limits_for(11, "tiny") == lt.LoadLimits(19, 38, 57)
    assert lt.load_limits_for(14, "small") == lt.LoadLimits(43, 87, 131)
    assert lt.load_limits_for(30, "large") == lt.LoadLimits(1064, 2128, 3200)


@pytest.mark.parametrize(
    ("strength", "size", "light", "medium", "heavy"),
    [
        (10, "medium", 33, 66, 100),
        (14, "medium", 58, 116, 175),
        (18, "medium", 100, 200, 300),
        (25, "medium", 266, 533, 800),
        (30, "medium", 532, 1064, 1600),
        (18, "small", 75, 150, 225),
        (14, "large", 116, 232, 350),
        (10, "fine", 4, 8, 12),
    ],
)
def test_load_category_boundaries(
    strength: int, size: lt.Size, light: int, medium: int, heavy: int
) -> None:
    limits = lt.load_limits_for(strength, size)
    assert lt.load_category(light, limits) == "light"
    assert lt.load_category(light + 0.5, limits) == "medium"
    assert lt.load_category(light + 1, limits) == "medium"
    assert lt.load_category(medium, limits) == "medium"
    assert lt.load_category(medium + 1, limits) == "heavy"
    assert lt.load_category(heavy, limits) == "heavy"
    assert lt.load_category(heavy + 0.5, limits) == "over"
    assert lt.load_category(heavy + 1, limits) == "over"


def test_given_load_limits_are_used_unscaled() -> None:
    given_limits = lt.LoadLimits(1, 2, 3)
    thrower = lt.Thrower("Pix", load_limits=given_limits, size="colossal", strength_score=30)
    assert thrower.limits == given_limits
    assessment = lt.assess(lt.ThrownObject("pebble", 2.5, 10), thrower)
    assert (assessment.load, assessment.penalty, assessment.eligible) == ("heavy", -6, True)


# --- distance (docs/rules.md#distance) --------------------------------------------------------


@pytest.mark.parametrize(
    ("strength", "thrown", "load", "penalty", "check"),
    [
        # Str 4 carries 13/26/40: a 13-lb rock is light; d20 12 - 3 (Str mod) = 9
        (4, lt.ThrownObject("rock", 13, 10), "light", 0, 9),
        # Str 3 carries 10/20/30: the 14-lb stone is medium; 12 - 4 - 3 = 5
        (3, STONE, "medium", -3, 5),
        # Str 2 carries 6/13/20: the stone is heavy; 12 - 4 - 6 = 2
        (2, STONE, "heavy", -6, 2),
    ],
)
def test_load_penalty_on_the_distance_check(
    strength: int, thrown: lt.ThrownObject, load: str, penalty: int, check: int
) -> None:
    outcome, _ = run(thrown, [lt.Thrower("Ann", strength_score=strength)], {("Ann", "throw"): [12]})
    result = only(outcome, "Ann")
    assert result.assessment.load == load
    assert result.assessment.penalty == penalty
    assert result.check == check
    assert result.degree_of_success == check


def test_ineligible_thrower_is_reported_and_rolls_nothing() -> None:
    throwers = [lt.Thrower("Weak", strength_score=8), lt.Thrower("Strong", strength_score=18)]
    outcome, dice = run(LOG, throwers, {("Strong", "throw"): [11]})
    weak = only(outcome, "Weak")
    assert not weak.assessment.eligible
    assert weak.assessment.load == "over"
    assert weak.assessment.penalty == 0
    assert (weak.roll, weak.check, weak.degree_of_success, weak.distance) == (None,) * 4
    assert [entry.who for entry in dice.log] == ["Strong"]
    strong = only(outcome, "Strong")
    # Str 18 carries 100/200/300: the 150-lb log is a medium load, -3
    assert (strong.assessment.load, strong.check) == ("medium", 11 + 4 - 3)
    assert outcome.winners == ("Strong",)
    # Its entry in an answer: tests/api/test_long_throws_api.py, the same throwers.


def test_nobody_eligible_means_no_winner() -> None:
    outcome, dice = run(LOG, [lt.Thrower("Weak", strength_score=3)], {})
    assert outcome.winners == ()
    assert not outcome.tie
    assert dice.log == []
    assert lt.long_throw_summary(outcome).endswith("Nobody can lift it.")


def test_strength_mod_defaults_to_the_score_modifier_and_can_be_overridden() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=15),
        lt.Thrower("Bob", strength_score=15, strength_mod=5),
    ]
    outcome, _ = run(DISCUS, throwers, {("Ann", "throw"): [10], ("Bob", "throw"): [10]})
    assert only(outcome, "Ann").check == 12
    assert only(outcome, "Bob").check == 15
    assert outcome.winners == ("Bob",)


def test_far_shot_doubles_ds_and_the_range_increment_not_the_check() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=10),
        lt.Thrower("Far", strength_score=10, far_shot=True),
    ]
    outcome, _ = run(JAVELIN, throwers, {("Ann", "throw"): [17], ("Far", "throw"): [17]})
    ann, far = only(outcome, "Ann"), only(outcome, "Far")
    assert (ann.check, ann.degree_of_success) == (17, 17)
    assert (far.check, far.degree_of_success) == (17, 34)
    # check 17: 1 + floor(7 / 4) = 2 increments either way; 30 ft or, doubled, 60 ft each
    assert ann.distance == lt.Distance(2, 60)
    assert far.distance == lt.Distance(2, 120)
    assert outcome.winners == ("Far",)


def test_far_shot_doubles_the_die_alone_with_far_shot_doubles_die() -> None:
    # Strength 14 (+2), a d20 of 15: the check is 17; doubling the check gives DS 34, doubling
    # the die 2 * 15 + 2 = 32. The distance doubles the range increment either way.
    throwers = [lt.Thrower("Far", strength_score=14, far_shot=True)]
    dice = {("Far", "throw"): [15]}
    whole, _ = run(JAVELIN, throwers, dice)
    die, _ = run(JAVELIN, throwers, dice, far_shot_doubles="die")
    assert (only(whole, "Far").check, only(whole, "Far").degree_of_success) == (17, 34)
    assert (only(die, "Far").check, only(die, "Far").degree_of_success) == (17, 32)
    assert only(die, "Far").distance == only(whole, "Far").distance == lt.Distance(2, 120)
    # Without Far Shot the option changes nothing.
    plain, _ = run(JAVELIN, [lt.Thrower("Ann", strength_score=14)], {("Ann", "throw"): [15]},
                   far_shot_doubles="die")  # fmt: skip
    assert only(plain, "Ann").degree_of_success == 17


def test_far_shot_doubles_die_can_change_the_winner() -> None:
    # Ann (+8, no Far Shot) rolls 12: DS 20. Far (+0, Far Shot) rolls 11: the whole check
    # doubled is 22 and wins; the die doubled is 22 too. With +1: check 12 → 24, die → 23.
    throwers = [
        lt.Thrower("Ann", strength_score=10, strength_mod=8),
        lt.Thrower("Far", strength_score=10, strength_mod=-1, far_shot=True),
    ]
    dice = {("Ann", "throw"): [12], ("Far", "throw"): [11]}
    whole, _ = run(DISCUS, throwers, dice)
    die, _ = run(DISCUS, throwers, dice, far_shot_doubles="die")
    assert only(whole, "Far").degree_of_success == 20  # (11 - 1) * 2
    assert only(die, "Far").degree_of_success == 21  # 2 * 11 - 1
    assert whole.winners == ("Ann", "Far")
    assert die.winners == ("Far",)


# --- the halfling toss (docs/rules.md#halfling-toss) ----------------------------------------


def test_halfling_toss_a_toss_short_of_15_ft_misses_and_loses() -> None:
    # Halfling: 30 lb, 5 ft increments. Ogre (Str 18, +4) rolls 14: check 18, 3 increments,
    # 15 ft — into the bank. Bram (Str 14, +2) rolls 15: check 17, 2 increments, 10 ft — short.
    throwers = [lt.Thrower("Ogre", strength_score=18), lt.Thrower("Bram", strength_score=14)]
    dice = {
        ("Ogre", "throw"): [14], ("Ogre", "damage"): [3], ("Ogre", "tumble"): [2],
        ("Bram", "throw"): [15], ("Bram", "damage"): [5], ("Bram", "tumble"): [19],
    }  # fmt: skip
    outcome, log = run(HALFLING, throwers, dice, mode="halfling-toss")
    ogre, bram = only(outcome, "Ogre"), only(outcome, "Bram")
    assert (ogre.check, ogre.degree_of_success, ogre.distance, ogre.landed) == (
        18, 18, lt.Distance(3, 15), True,
    )  # fmt: skip
    assert (bram.check, bram.distance, bram.landed) == (17, lt.Distance(2, 10), False)
    assert outcome.winners == ("Ogre",)
    # Every tossed halfling lands somewhere: 1d6, and its Tumble check (DC 15).
    assert ogre.creature_damage is not None
    assert ogre.creature_damage.damage == 3
    assert bram.creature_damage is not None
    assert bram.creature_damage.negated
    assert [(e.who, e.purpose) for e in log.log] == [
        ("Ogre", "throw"), ("Ogre", "damage"), ("Ogre", "tumble"),
        ("Bram", "throw"), ("Bram", "damage"), ("Bram", "tumble"),
    ]  # fmt: skip
    assert lt.long_throw_summary(outcome) == (
        "Halfling toss (halfling, 15 ft): Ogre rolled 14, check 18, DS 18, 3 increments (15 ft), "
        "lands it, the halfling takes 3 damage; Bram rolled 15, check 17, DS 17, 2 increments "
        "(10 ft), misses: loses, and is pelted with stones by the halflings, the halfling tumbles "
        "clear. Ogre wins."
    )


def test_halfling_toss_a_longer_miss_loses_to_a_shorter_landing() -> None:
    # From 20 ft: Ann's check 21 throws 15 ft (DS 21) and misses; Bob's Far Shot makes his
    # increments 10 ft, so his check 14 throws 2 of them, 20 ft (DS 28), into the bank.
    throwers = [
        lt.Thrower("Ann", strength_score=10, strength_mod=5),
        lt.Thrower("Bob", strength_score=10, strength_mod=0, far_shot=True),
    ]
    dice = {
        ("Ann", "throw"): [16], ("Ann", "damage"): [1], ("Ann", "tumble"): [1],
        ("Bob", "throw"): [14], ("Bob", "damage"): [1], ("Bob", "tumble"): [1],
    }  # fmt: skip
    outcome, _ = run(HALFLING, throwers, dice, mode="halfling-toss", toss_distance_ft=20)
    assert (only(outcome, "Ann").distance, only(outcome, "Ann").landed) == (
        lt.Distance(3, 15), False,
    )  # fmt: skip
    assert (only(outcome, "Bob").distance, only(outcome, "Bob").landed) == (
        lt.Distance(2, 20), True,
    )  # fmt: skip
    assert outcome.winners == ("Bob",)


def test_halfling_toss_everyone_misses_nobody_wins_and_landings_tie() -> None:
    throwers = [lt.Thrower("Ann", strength_score=10), lt.Thrower("Bob", strength_score=10)]
    dice = {
        ("Ann", "throw"): [9], ("Ann", "damage"): [1], ("Ann", "tumble"): [1],
        ("Bob", "throw"): [17], ("Bob", "damage"): [1], ("Bob", "tumble"): [1],
    }  # fmt: skip
    missed, _ = run(HALFLING, throwers, dice, mode="halfling-toss")
    assert missed.winners == ()
    assert lt.long_throw_summary(missed).endswith("Nobody lands it.")
    both = {**dice, ("Ann", "throw"): [18], ("Bob", "throw"): [18]}
    landed, _ = run(HALFLING, throwers, both, mode="halfling-toss")
    assert landed.winners == ("Ann", "Bob")
    assert landed.tie


@pytest.mark.parametrize(
    ("options", "loc"),
    [
        ({"thrown": STONE}, ("object",)),
        ({"into_wall": True}, ("into_wall",)),
        ({"toss_distance_ft": 14}, ("toss_distance_ft",)),
        ({"mode": "distance", "toss_distance_ft": 20}, ("toss_distance_ft",)),
    ],
)
def test_halfling_toss_config_violations(options: dict[str, object], loc: tuple[str]) -> None:
    settings_: dict[str, object] = {"thrown": HALFLING, "mode": "halfling-toss", **options}
    thrown = settings_.pop("thrown")
    assert isinstance(thrown, lt.ThrownObject)
    with pytest.raises(RulesError) as error:
        lt.long_throw_config(thrown, [lt.Thrower("Ann", strength_score=10)], **settings_)  # type: ignore[arg-type]
    assert [violation.loc for violation in error.value.violations] == [loc]


def test_halfling_toss_takes_any_creature() -> None:
    # "One man tried to play Dwarf toss": a custom creature may be tossed too.
    dwarf = lt.ThrownObject("dwarf", 150, 2, creature=True)
    throwers = [lt.Thrower("Ogre", strength_score=30, size="large")]
    dice = {("Ogre", "throw"): [20], ("Ogre", "damage"): [6], ("Ogre", "tumble"): [1]}
    outcome, _ = run(dwarf, throwers, dice, mode="halfling-toss")
    # Str 30 (+10), check 30: 6 increments of 2 ft, 12 ft — short of 15.
    assert (only(outcome, "Ogre").distance, only(outcome, "Ogre").landed) == (
        lt.Distance(6, 12), False,
    )  # fmt: skip
    assert outcome.winners == ()


@pytest.mark.parametrize(
    ("check", "increments"),
    [(10, 1), (13, 1), (14, 2), (17, 2), (18, 3), (29, 5), (30, 6), (34, 7), (50, 11)],
)
def test_distance_from_check_of_ten_or_more_has_no_cap(check: int, increments: int) -> None:
    assert lt.throw_distance(check, 20) == lt.Distance(increments, increments * 20)
    assert lt.throw_distance(check, 20, far_shot=True) == lt.Distance(increments, increments * 40)


@pytest.mark.parametrize(
    ("check", "increment", "far_shot", "feet"),
    [
        (9, 10, False, 9),
        (5, 30, False, 15),
        (7, 5, False, 3),
        (7, 5, True, 7),
        (9, 2, False, 1),
        (4, 2, False, 0),
        (1, 30, True, 6),
        (0, 30, False, 0),
        (-3, 30, True, 0),
    ],
)
def test_distance_under_ten_ruling(check: int, increment: int, far_shot: bool, feet: int) -> None:
    assert lt.throw_distance(check, increment, far_shot=far_shot) == lt.Distance(0, feet)


def test_weapon_focus_only_for_a_weapon() -> None:
    throwers = [
        lt.Thrower("Focus", strength_score=10, weapon_focus=True),
        lt.Thrower("Plain", strength_score=10),
    ]
    rolls = {("Focus", "throw"): [13], ("Plain", "throw"): [13]}
    javelin, _ = run(JAVELIN, throwers, rolls)
    assert only(javelin, "Focus").check == 14
    assert only(javelin, "Focus").distance == lt.Distance(2, 60)
    assert only(javelin, "Plain").check == 13
    assert javelin.winners == ("Focus",)
    discus, _ = run(DISCUS, throwers, rolls)
    assert only(discus, "Focus").check == 13
    assert discus.winners == ("Focus", "Plain")
    assert discus.tie


def test_equal_highest_ds_is_a_tie() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=12),
        lt.Thrower("Bob", strength_score=10, far_shot=True),
        lt.Thrower("Cid", strength_score=10),
    ]
    rolls = {("Ann", "throw"): [13], ("Bob", "throw"): [7], ("Cid", "throw"): [14]}
    outcome, _ = run(DISCUS, throwers, rolls)
    assert [only(outcome, n).degree_of_success for n in ("Ann", "Bob", "Cid")] == [14, 14, 14]
    assert outcome.winners == ("Ann", "Bob", "Cid")
    assert outcome.tie


# --- thrown creatures (docs/rules.md#thrown-creatures) ----------------------------------------


def test_halfling_lands_and_takes_1d6() -> None:
    thrower = lt.Thrower("Ogre", strength_score=20, tumble_mod=3)
    dice = {("Ogre", "throw"): [10], ("Ogre", "damage"): [4], ("Ogre", "tumble"): [11]}
    outcome, log = run(HALFLING, [thrower], dice)
    landing = only(outcome, "Ogre").creature_damage
    assert landing == lt.CreatureDamage(
        rolled=4, damage=4, tumble_roll=11, tumble_total=14, negated=False, wall_damage=None
    )
    assert [(e.purpose, e.dice) for e in log.log] == [
        ("throw", "1d20"),
        ("damage", "1d6"),
        ("tumble", "1d20"),
    ]


def test_tumble_dc_15_negates_the_landing_damage() -> None:
    thrower = lt.Thrower("Ogre", strength_score=20, tumble_mod=3)
    dice = {("Ogre", "throw"): [10], ("Ogre", "damage"): [4], ("Ogre", "tumble"): [12]}
    outcome, _ = run(HALFLING, [thrower], dice)
    landing = only(outcome, "Ogre").creature_damage
    assert landing is not None
    assert (landing.tumble_total, landing.negated, landing.damage, landing.rolled) == (
        15,
        True,
        0,
        4,
    )


def test_into_wall_adds_strength_bonus_and_the_wall_takes_it_despite_tumble() -> None:
    thrower = lt.Thrower("Ogre", strength_score=17, tumble_mod=3)
    dice = {("Ogre", "throw"): [10], ("Ogre", "damage"): [4], ("Ogre", "tumble"): [12]}
    outcome, _ = run(HALFLING, [thrower], dice, into_wall=True)
    landing = only(outcome, "Ogre").creature_damage
    assert landing == lt.CreatureDamage(
        rolled=7, damage=0, tumble_roll=12, tumble_total=15, negated=True, wall_damage=7
    )
    dice[("Ogre", "tumble")] = [2]
    outcome, _ = run(HALFLING, [thrower], dice, into_wall=True)
    landing = only(outcome, "Ogre").creature_damage
    assert landing is not None
    assert (landing.damage, landing.wall_damage, landing.negated) == (7, 7, False)


def test_into_wall_with_a_negative_strength_modifier_adds_nothing() -> None:
    thrower = lt.Thrower("Kid", strength_score=12, strength_mod=-2)
    dice = {("Kid", "throw"): [10], ("Kid", "damage"): [5], ("Kid", "tumble"): [1]}
    outcome, _ = run(HALFLING, [thrower], dice, into_wall=True)
    landing = only(outcome, "Kid").creature_damage
    assert landing is not None
    assert (landing.damage, landing.wall_damage) == (5, 5)


def test_each_eligible_thrower_throws_her_own_creature() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=16, tumble_mod=0),
        lt.Thrower("Weak", strength_score=2),  # heavy load 20 lb: cannot lift 30
        lt.Thrower("Bob", strength_score=16, tumble_mod=10),
    ]
    dice = {
        ("Ann", "throw"): [12],
        ("Ann", "damage"): [6],
        ("Ann", "tumble"): [14],
        ("Bob", "throw"): [12],
        ("Bob", "damage"): [2],
        ("Bob", "tumble"): [5],
    }
    outcome, log = run(HALFLING, throwers, dice)
    assert [(e.who, e.purpose) for e in log.log] == [
        ("Ann", "throw"),
        ("Ann", "damage"),
        ("Ann", "tumble"),
        ("Bob", "throw"),
        ("Bob", "damage"),
        ("Bob", "tumble"),
    ]
    ann, bob = only(outcome, "Ann").creature_damage, only(outcome, "Bob").creature_damage
    assert ann is not None
    assert bob is not None
    assert (ann.damage, ann.negated) == (6, False)
    assert (bob.damage, bob.negated) == (0, True)
    assert only(outcome, "Weak").creature_damage is None


def test_objects_that_are_not_creatures_roll_no_landing_dice() -> None:
    outcome, log = run(
        STONE, [lt.Thrower("Ann", strength_score=16)], {("Ann", "throw"): [9]}, into_wall=True
    )
    assert only(outcome, "Ann").creature_damage is None
    assert len(log.log) == 1


# --- caber (docs/rules.md#caber) --------------------------------------------------------------


def test_caber_is_a_dexterity_check_with_load_penalty_and_no_feats() -> None:
    throwers = [
        # 150 lb: Str 18 is medium (-3), Str 22 light; Far Shot and Weapon Focus do nothing
        lt.Thrower("Ann", strength_score=18, dex_mod=4, far_shot=True, weapon_focus=True),
        lt.Thrower("Bob", strength_score=22, dex_mod=0),
        lt.Thrower("Cid", strength_score=5, dex_mod=9),
    ]
    outcome, log = run(
        LOG, throwers, {("Ann", "throw"): [10], ("Bob", "throw"): [12]}, mode="caber"
    )
    ann, bob = only(outcome, "Ann"), only(outcome, "Bob")
    assert (ann.check, ann.degree_of_success, ann.distance) == (11, 11, None)
    assert (bob.check, bob.degree_of_success) == (12, 12)
    assert not only(outcome, "Cid").assessment.eligible
    assert outcome.winners == ("Bob",)
    assert len(log.log) == 2


def test_caber_with_a_weapon_ignores_weapon_focus() -> None:
    thrower = lt.Thrower("Ann", strength_score=10, dex_mod=2, weapon_focus=True)
    outcome, _ = run(JAVELIN, [thrower], {("Ann", "throw"): [10]}, mode="caber")
    assert only(outcome, "Ann").check == 12


def test_caber_halfling_still_lands() -> None:
    thrower = lt.Thrower("Ogre", load_limits=lt.LoadLimits(100, 200, 300), strength_mod=4)
    dice = {("Ogre", "throw"): [5], ("Ogre", "damage"): [3], ("Ogre", "tumble"): [3]}
    outcome, _ = run(HALFLING, [thrower], dice, mode="caber", into_wall=True)
    landing = only(outcome, "Ogre").creature_damage
    assert landing is not None
    assert (landing.damage, landing.wall_damage) == (7, 7)


# --- precision (docs/rules.md#precision) ------------------------------------------------------


def test_target_moves_back_one_increment_every_two_series() -> None:
    assert [lt.target_increments(n) for n in range(1, 9)] == [4, 4, 5, 5, 6, 6, 7, 7]


@pytest.mark.parametrize(
    ("increments", "far_shot", "penalty"),
    [(4, False, 6), (5, False, 8), (10, False, 18), (4, True, 2), (5, True, 4), (6, True, 4)],
)
def test_range_penalty(increments: int, far_shot: bool, penalty: int) -> None:
    assert lt.range_penalty(increments, far_shot=far_shot) == penalty


@pytest.mark.parametrize(
    ("roll", "total", "hit"),
    [(20, -10, True), (1, 30, False), (10, 5, True), (10, 4, False), (19, 4, False)],
)
def test_natural_20_hits_natural_1_misses_else_ac_5(roll: int, total: int, hit: bool) -> None:
    assert lt.attack_hits(roll, total) is hit


def test_precision_attack_total_and_elimination() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=10, ranged_attack_bonus=3),
        # Far Shot counts the 4 increments as 2
        lt.Thrower("Bob", strength_score=10, ranged_attack_bonus=3, far_shot=True),
        # the 2-lb javelin is a heavy load for these limits: -6
        lt.Thrower("Cid", load_limits=lt.LoadLimits(1, 1, 5), ranged_attack_bonus=3),
    ]
    dice = {("Ann", "throw"): [8], ("Bob", "throw"): [4], ("Cid", "throw"): [11]}
    outcome, _ = run(JAVELIN, throwers, dice, mode="precision", max_series=1)
    (series,) = outcome.series
    assert series.number == 1
    assert series.distance_increments == 4
    assert series.throws == (
        lt.PrecisionThrow("Ann", 8, 6, 5, True),  # 8 + 3 - 6
        lt.PrecisionThrow("Bob", 4, 2, 5, True),  # 4 + 3 - 2
        lt.PrecisionThrow("Cid", 11, 6, 2, False),  # 11 + 3 - 6 - 6
    )
    assert series.out == ("Cid",)
    assert outcome.winners == ("Ann", "Bob")
    assert outcome.tie


def test_precision_weapon_focus_adds_one_to_the_attack_with_a_weapon() -> None:
    # Issue 12, point 5: "she gets a +1 bonus to her check" covers the precision attack roll.
    # Same dice, 4 + 3 - 6 = 1 without Weapon Focus: a total of 4 misses AC 5, 5 hits.
    dice = {("Ann", "throw"): [8], ("Bob", "throw"): [7]}
    focused = lt.Thrower("Ann", strength_score=10, ranged_attack_bonus=3, weapon_focus=True)
    plain = lt.Thrower("Bob", strength_score=10, ranged_attack_bonus=3)
    outcome, _ = run(JAVELIN, [focused, plain], dice, mode="precision", max_series=1)
    assert outcome.series[0].throws == (
        lt.PrecisionThrow("Ann", 8, 6, 6, True),  # 8 + 3 - 6 + 1
        lt.PrecisionThrow("Bob", 7, 6, 4, False),  # 7 + 3 - 6
    )
    assert outcome.winners == ("Ann",)
    # Weapon Focus in a stone is no Weapon Focus: the stone is not a weapon
    stone_focused = lt.Thrower("Ann", strength_score=10, ranged_attack_bonus=3, weapon_focus=True)
    outcome, _ = run(STONE, [stone_focused, plain], dice, mode="precision", max_series=1)
    assert [throw.total for throw in outcome.series[0].throws] == [5, 4]


def test_precision_runs_until_one_is_left() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=10, ranged_attack_bonus=6),
        lt.Thrower("Bob", strength_score=10, ranged_attack_bonus=6, far_shot=True),
        lt.Thrower("Cid", strength_score=10, ranged_attack_bonus=6),
    ]
    dice = {
        # series 1 (4 increments): Ann 5 + 6 - 6 = 5 hits, Bob's natural 1 misses although
        # 1 + 6 - 2 = 5, Cid's natural 20 hits: Bob is out
        # series 2 (4 increments): Ann 2 and Cid's natural 1 both miss: nobody is out
        # series 3 (5 increments, -8): Ann's natural 1 misses, Cid's 7 + 6 - 8 = 5 hits
        ("Ann", "throw"): [5, 2, 1],
        ("Bob", "throw"): [1],
        ("Cid", "throw"): [20, 1, 7],
    }
    outcome, _ = run(JAVELIN, throwers, dice, mode="precision")
    assert [s.distance_increments for s in outcome.series] == [4, 4, 5]
    assert [s.out for s in outcome.series] == [("Bob",), (), ("Ann",)]
    rows = [[(t.name, t.range_penalty, t.total, t.hit) for t in s.throws] for s in outcome.series]
    assert rows == [
        [("Ann", 6, 5, True), ("Bob", 2, 5, False), ("Cid", 6, 20, True)],
        [("Ann", 6, 2, False), ("Cid", 6, 1, False)],
        [("Ann", 8, -1, False), ("Cid", 8, 5, True)],
    ]
    assert outcome.winners == ("Cid",)
    assert not outcome.tie
    # The answer's entries: tests/api/test_long_throws_api.py, the same throwers and dice.
    assert lt.long_throw_summary(outcome) == (
        "Long throw (javelin, precision): 3 series; Bob out in series 1; "
        "Ann out in series 3. Cid wins."
    )


def test_precision_far_shot_against_the_target_moving_every_two_series() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=10, ranged_attack_bonus=6),
        lt.Thrower("Bob", strength_score=10, ranged_attack_bonus=6, far_shot=True),
    ]
    # 4, 4, 5, 5, 6 increments: Ann's penalty 6, 6, 8, 8, 10; Bob counts 2, 2, 3, 3, 3
    # doubled increments: 2, 2, 4, 4, 4. Every total is just enough, so both stay in.
    dice = {("Ann", "throw"): [5, 5, 7, 7, 9], ("Bob", "throw"): [2, 2, 3, 3, 3]}
    outcome, _ = run(JAVELIN, throwers, dice, mode="precision", max_series=5)
    assert [s.number for s in outcome.series] == [1, 2, 3, 4, 5]
    assert [s.distance_increments for s in outcome.series] == [4, 4, 5, 5, 6]
    rows = [[(t.range_penalty, t.total, t.hit) for t in s.throws] for s in outcome.series]
    assert rows == [
        [(6, 5, True), (2, 6, True)],
        [(6, 5, True), (2, 6, True)],
        [(8, 5, True), (4, 5, True)],
        [(8, 5, True), (4, 5, True)],
        [(10, 5, True), (4, 5, True)],
    ]
    assert outcome.winners == ("Ann", "Bob")
    assert outcome.tie


def test_precision_one_less_on_the_moved_target_misses() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=10, ranged_attack_bonus=6),
        lt.Thrower("Bob", strength_score=10, ranged_attack_bonus=6, far_shot=True),
    ]
    # series 3: the target is at 5 increments; Ann's 6 + 6 - 8 = 4 misses, Bob's 3 + 6 - 4 hits
    dice = {("Ann", "throw"): [5, 5, 6], ("Bob", "throw"): [2, 2, 3]}
    outcome, _ = run(JAVELIN, throwers, dice, mode="precision")
    assert outcome.series[2].throws[0] == lt.PrecisionThrow("Ann", 6, 8, 4, False)
    assert outcome.series[2].out == ("Ann",)
    assert outcome.winners == ("Bob",)


def test_precision_max_series_tie() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=10, ranged_attack_bonus=20),
        lt.Thrower("Bob", strength_score=10, ranged_attack_bonus=20),
    ]
    dice = {("Ann", "throw"): [10, 1, 10], ("Bob", "throw"): [10, 1, 10]}
    outcome, _ = run(JAVELIN, throwers, dice, mode="precision", max_series=3)
    assert len(outcome.series) == 3
    assert [s.out for s in outcome.series] == [(), (), ()]
    assert [[t.hit for t in s.throws] for s in outcome.series] == [
        [True, True],
        [False, False],
        [True, True],
    ]
    assert outcome.winners == ("Ann", "Bob")
    assert outcome.tie
    assert lt.long_throw_summary(outcome) == (
        "Long throw (javelin, precision): 3 series. Still in after 3 series: tie between Ann, Bob."
    )


def test_precision_load_penalty_applies_to_every_attack() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=3, ranged_attack_bonus=10),  # 14 lb: medium, -3
        lt.Thrower("Bob", strength_score=2, ranged_attack_bonus=10),  # 14 lb: heavy, -6
    ]
    dice = {("Ann", "throw"): [4, 4], ("Bob", "throw"): [7, 4]}
    outcome, _ = run(STONE, throwers, dice, mode="precision")
    first, second = outcome.series
    # series 1: Ann 4 + 10 - 3 - 6 = 5 hits; Bob 7 + 10 - 6 - 6 = 5 hits
    assert [t.total for t in first.throws] == [5, 5]
    # series 2: Ann 5 hits again; Bob 4 + 10 - 6 - 6 = 2 misses and is out
    assert [t.total for t in second.throws] == [5, 2]
    assert second.out == ("Bob",)
    assert outcome.winners == ("Ann",)


def test_precision_with_one_eligible_thrower_throws_no_series() -> None:
    throwers = [lt.Thrower("Ann", strength_score=16), lt.Thrower("Weak", strength_score=3)]
    outcome, dice = run(LOG, throwers, {}, mode="precision")
    assert outcome.series == ()
    assert outcome.winners == ("Ann",)
    assert dice.log == []
    assert lt.long_throw_summary(outcome) == (
        "Long throw (log, precision): Weak cannot lift it; 0 series. Ann wins."
    )


def test_precision_series_after_the_end_is_a_phase_error() -> None:
    config = lt.long_throw_config(
        JAVELIN,
        [lt.Thrower("Ann", strength_score=10), lt.Thrower("Bob", strength_score=10)],
        mode="precision",
    )
    state = lt.precision_start(config)
    state, series = lt.precision_series(
        config, state, supplied_keys({("Ann", "throw"): [20], ("Bob", "throw"): [1]})
    )
    assert series.out == ("Bob",)
    assert state == lt.PrecisionState(("Ann",), 1, True)
    with pytest.raises(PhaseError):
        lt.precision_series(config, state, supplied_keys({}))


def test_supplied_precision_rolls_are_used_in_order_then_the_server_rolls() -> None:
    config = lt.long_throw_config(
        JAVELIN,
        [
            lt.Thrower("Ann", strength_score=10, ranged_attack_bonus=30),
            lt.Thrower("Bob", strength_score=10, ranged_attack_bonus=30),
        ],
        mode="precision",
        max_series=6,
    )
    dice = Dice(SeededRng(5), {("Ann", "throw"): [2, 3], ("Bob", "throw"): [4]})
    outcome = lt.resolve_long_throw(config, dice)
    ann_rolls = [t.roll for s in outcome.series for t in s.throws if t.name == "Ann"]
    assert ann_rolls[:2] == [2, 3]
    sources = [(e.who, e.source) for e in dice.log][:4]
    assert sources == [
        ("Ann", "supplied"),
        ("Bob", "supplied"),
        ("Ann", "supplied"),
        ("Bob", "rolled"),
    ]


def test_supplied_die_out_of_range_is_a_dice_error() -> None:
    config = lt.long_throw_config(JAVELIN, [lt.Thrower("Ann", strength_score=10)])
    with pytest.raises(DiceError):
        lt.resolve_long_throw(config, supplied_keys({("Ann", "throw"): [21]}))


# --- validation -------------------------------------------------------------------------------


def violations(exc: pytest.ExceptionInfo[RulesError]) -> list[tuple[object, ...]]:
    return [violation.loc for violation in exc.value.violations]


def test_a_thrower_needs_a_strength_score_or_load_limits() -> None:
    with pytest.raises(RulesError) as exc:
        lt.long_throw_config(JAVELIN, [lt.Thrower("Ann", strength_mod=2)])
    assert violations(exc) == [("competitors", 0)]


def test_names_must_be_unique_and_not_blank() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=10),
        lt.Thrower("Ann", strength_score=12),
        lt.Thrower(" ", strength_score=12),
    ]
    with pytest.raises(RulesError) as exc:
        lt.long_throw_config(JAVELIN, throwers)
    assert violations(exc) == [("competitors", 1, "name"), ("competitors", 2, "name")]


@pytest.mark.parametrize("count", [0, lt.MAX_COMPETITORS + 1])
def test_competitor_count_limits(count: int) -> None:
    throwers = [lt.Thrower(f"T{i}", strength_score=10) for i in range(count)]
    with pytest.raises(RulesError) as exc:
        lt.long_throw_config(JAVELIN, throwers)
    assert violations(exc) == [("competitors",)]


def test_sixty_four_competitors_are_fine() -> None:
    throwers = [lt.Thrower(f"T{i}", strength_score=10) for i in range(lt.MAX_COMPETITORS)]
    outcome = lt.resolve_long_throw(lt.long_throw_config(JAVELIN, throwers), Dice(SeededRng(1)))
    assert len(outcome.throws) == lt.MAX_COMPETITORS


@pytest.mark.parametrize("max_series", [0, lt.MAX_SERIES_LIMIT + 1])
def test_max_series_bounds(max_series: int) -> None:
    with pytest.raises(RulesError) as exc:
        lt.long_throw_config(JAVELIN, [lt.Thrower("Ann", strength_score=10)], max_series=max_series)
    assert violations(exc) == [("max_series",)]


def test_bad_limits_scores_and_modifiers() -> None:
    throwers = [
        lt.Thrower("Ann", load_limits=lt.LoadLimits(10, 5, 20), strength_mod=0),
        lt.Thrower("Bob", strength_score=0),
        lt.Thrower("Cid", strength_score=10, dex_mod=lt.MAX_MODIFIER + 1),
    ]
    with pytest.raises(RulesError) as exc:
        lt.long_throw_config(JAVELIN, throwers)
    assert violations(exc) == [
        ("competitors", 0, "load_limits"),
        ("competitors", 1, "strength_score"),
        ("competitors", 2, "dex_mod"),
    ]


def test_bad_object() -> None:
    with pytest.raises(RulesError) as exc:
        lt.long_throw_config(lt.ThrownObject("air", 0, 0), [lt.Thrower("Ann", strength_score=10)])
    assert violations(exc) == [("object", "weight_lb"), ("object", "range_increment_ft")]


def test_strength_mod_needed_only_by_eligible_throwers_whose_mode_uses_it() -> None:
    limits_only = lt.Thrower("Ann", load_limits=lt.LoadLimits(10, 20, 30))
    with pytest.raises(RulesError) as exc:
        lt.long_throw_config(DISCUS, [limits_only])
    assert violations(exc) == [("competitors", 0, "strength_mod")]
    with pytest.raises(RulesError):
        lt.long_throw_config(HALFLING, [limits_only], mode="caber", into_wall=True)
    # not needed: caber, precision, a caber halfling without a wall, or an ineligible thrower
    lt.long_throw_config(DISCUS, [limits_only], mode="caber")
    lt.long_throw_config(DISCUS, [limits_only], mode="precision")
    lt.long_throw_config(HALFLING, [limits_only], mode="caber")
    lt.long_throw_config(LOG, [limits_only])


# --- presentation -----------------------------------------------------------------------------


def test_distance_summary() -> None:
    throwers = [
        lt.Thrower("Ann", strength_score=14, weapon_focus=True),
        lt.Thrower("Bob", strength_score=1, size="fine"),
        lt.Thrower("Cid", strength_score=10),
    ]
    outcome, _ = run(JAVELIN, throwers, {("Ann", "throw"): [15], ("Cid", "throw"): [6]})
    assert lt.long_throw_summary(outcome) == (
        "Long throw (javelin, distance): Ann rolled 15, check 18, DS 18, 3 increments (90 ft); "
        "Bob cannot lift it (2 lb > heavy load 1 lb); Cid rolled 6, check 6, DS 6, 18 ft. "
        "Ann wins."
    )


def test_creature_summary() -> None:
    thrower = lt.Thrower("Ogre", strength_score=17)
    dice = {("Ogre", "throw"): [10], ("Ogre", "damage"): [4], ("Ogre", "tumble"): [3]}
    outcome, _ = run(HALFLING, [thrower], dice, into_wall=True)
    assert lt.long_throw_summary(outcome) == (
        "Long throw (halfling, distance): Ogre rolled 10, check 13, DS 13, 1 increment (5 ft), "
        "the halfling takes 7 damage, the wall takes 7. Ogre wins."
    )
    dice[("Ogre", "tumble")] = [15]
    outcome, _ = run(HALFLING, [thrower], dice)
    assert lt.long_throw_summary(outcome).endswith("the halfling tumbles clear. Ogre wins.")


def test_tie_summary() -> None:
    throwers = [lt.Thrower("Ann", strength_score=10), lt.Thrower("Bob", strength_score=10)]
    outcome, _ = run(
        DISCUS, throwers, {("Ann", "throw"): [12], ("Bob", "throw"): [12]}, mode="caber"
    )
    assert lt.long_throw_summary(outcome) == (
        "Long throw (discus, caber): Ann rolled 12, check 12, DS 12; "
        "Bob rolled 12, check 12, DS 12. Tie between Ann, Bob."
    )


# --- properties -------------------------------------------------------------------------------

objects = st.one_of(
    st.sampled_from(sorted(lt.STANDARD_OBJECTS.values(), key=lambda o: o.name)),
    st.builds(
        lt.ThrownObject,
        name=st.just("thing"),
        weight_lb=st.one_of(
            st.integers(1, 3000), st.floats(0.01, 3000, allow_nan=False, allow_infinity=False)
        ),
        range_increment_ft=st.integers(1, 100),
        weapon=st.booleans(),
        creature=st.booleans(),
    ),
)


@st.composite
def throwers(draw: st.DrawFn) -> list[lt.Thrower]:
    count = draw(st.integers(1, 6))
    out: list[lt.Thrower] = []
    for index in range(count):
        use_limits = draw(st.booleans())
        limits = None
        if use_limits:
            light, medium, heavy = sorted(
                draw(st.lists(st.integers(0, 800), min_size=3, max_size=3))
            )
            limits = lt.LoadLimits(light, medium, heavy)
        out.append(
            lt.Thrower(
                name=f"T{index}",
                strength_score=draw(st.one_of(st.none(), st.integers(1, 45)))
                if use_limits
                else draw(st.integers(1, 45)),
                load_limits=limits,
                size=draw(st.sampled_from(lt.SIZES)),
                strength_mod=draw(st.one_of(st.none(), st.integers(-5, 15))),
                dex_mod=draw(st.integers(-5, 10)),
                ranged_attack_bonus=draw(st.integers(-5, 25)),
                weapon_focus=draw(st.booleans()),
                far_shot=draw(st.booleans()),
                tumble_mod=draw(st.integers(-5, 15)),
            )
        )
    return out


@settings(max_examples=300, deadline=None)
@given(
    thrown=objects,
    competitors=throwers(),
    mode=st.sampled_from(lt.MODES),
    into_wall=st.booleans(),
    max_series=st.integers(1, 60),
    seed=st.integers(0, 2**32),
    far_shot_doubles=st.sampled_from(lt.FAR_SHOT_RULES),
)
def test_a_competition_resolves_or_raises_and_obeys_its_formulas(
    thrown: lt.ThrownObject,
    competitors: list[lt.Thrower],
    mode: lt.Mode,
    into_wall: bool,
    max_series: int,
    seed: int,
    far_shot_doubles: lt.FarShotRule,
) -> None:
    error: RulesError | None = None
    try:
        config = lt.long_throw_config(
            thrown,
            competitors,
            mode=mode,
            into_wall=into_wall,
            max_series=max_series,
            far_shot_doubles=far_shot_doubles,
        )
    except RulesError as exc:
        error = exc
    if error is not None:
        # the only ways these inputs break a rule: a needed strength_mod is missing, or a
        # halfling toss of something that is no creature, or into a wall
        tossing = mode == "halfling-toss"
        expected = [("object",)] if tossing and not thrown.creature else []
        expected += [("into_wall",)] if tossing and into_wall else []
        shown = [v.loc for v in error.violations]
        assert shown[: len(expected)] == expected
        assert [loc[-1] for loc in shown[len(expected) :]] == ["strength_mod"] * (
            len(shown) - len(expected)
        )
        return
    outcome = lt.resolve_long_throw(config, Dice(SeededRng(seed)))
    assessments = config.assessments
    eligible = [a.thrower.name for a in assessments if a.eligible]
    for assessment in assessments:
        assert assessment.eligible == (thrown.weight_lb <= assessment.limits.heavy)
        assert assessment.penalty in (0, -3, -6)
    assert set(outcome.winners) <= set(eligible)
    assert outcome.tie == (len(outcome.winners) > 1)
    if mode == "halfling-toss":
        landed = [r.name for r in outcome.throws if r.landed]
        assert set(outcome.winners) <= set(landed)
        assert bool(outcome.winners) == bool(landed)
    else:
        assert bool(outcome.winners) == bool(eligible)
    if mode == "precision":
        _check_precision(config, outcome, eligible)
        return
    for result in outcome.throws:
        assessment, thrower = result.assessment, result.assessment.thrower
        if not assessment.eligible:
            assert result.roll is None
            assert result.creature_damage is None
            continue
        assert result.roll is not None
        assert 1 <= result.roll <= 20
        if mode == "caber":
            assert result.check == result.roll + thrower.dex_mod + assessment.penalty
            assert result.degree_of_success == result.check
            assert result.distance is None
        else:
            focus = 1 if thrown.weapon and thrower.weapon_focus else 0
            strength_mod = thrower.effective_strength_mod
            assert strength_mod is not None
            assert result.check == result.roll + strength_mod + assessment.penalty + focus
            doubled = result.check if far_shot_doubles == "check" else result.roll
            assert result.degree_of_success == result.check + (doubled if thrower.far_shot else 0)
            assert result.distance == lt.throw_distance(
                result.check, thrown.range_increment_ft, far_shot=thrower.far_shot
            )
            if mode == "halfling-toss":
                assert result.landed == (result.distance.distance_ft >= 15)
        landing = result.creature_damage
        assert (landing is not None) == thrown.creature
        if landing is not None:
            assert landing.damage == (0 if landing.negated else landing.rolled)
            assert landing.negated == (landing.tumble_total >= 15)
            assert (landing.wall_damage is not None) == into_wall
    scores = [
        r.degree_of_success
        for r in outcome.throws
        if r.degree_of_success is not None and r.landed is not False
    ]
    winning = [r.degree_of_success for r in outcome.throws if r.name in outcome.winners]
    assert winning == [max(scores, default=0)] * len(winning)
    assert len(winning) == scores.count(max(scores, default=0))


def _check_precision(
    config: lt.LongThrowConfig, outcome: lt.LongThrow, eligible: list[str]
) -> None:
    assert len(outcome.series) <= config.max_series
    if len(eligible) < 2:
        assert outcome.series == ()
        assert list(outcome.winners) == eligible
        return
    if outcome.tie:
        assert len(outcome.series) == config.max_series
    still_in = list(eligible)
    by_name = {a.thrower.name: a for a in config.assessments}
    for number, series in enumerate(outcome.series, start=1):
        assert series.number == number
        assert series.distance_increments == 4 + (number - 1) // 2
        assert [t.name for t in series.throws] == still_in
        for throw in series.throws:
            assessment = by_name[throw.name]
            thrower = assessment.thrower
            counted = series.distance_increments
            if thrower.far_shot:
                counted = (counted + 1) // 2
            focus = 1 if config.thrown.weapon and thrower.weapon_focus else 0
            assert throw.total == (
                throw.roll
                + thrower.ranged_attack_bonus
                + assessment.penalty
                + focus
                - 2 * (counted - 1)
            )
            assert throw.hit == (throw.roll == 20 or (throw.roll != 1 and throw.total >= 5))
        hits = [t.name for t in series.throws if t.hit]
        misses = [t.name for t in series.throws if not t.hit]
        assert list(series.out) == (misses if hits else [])
        still_in = [name for name in still_in if name not in series.out]
        assert still_in
    assert list(outcome.winners) == still_in


def test_the_rules_module_imports_only_the_standard_library_and_the_rules() -> None:
    source = Path(lt.__file__).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
        elif isinstance(node, ast.Import):
            root = node.names[0].name.split(".")[0]
        else:
            continue
        if root == "app":
            assert isinstance(node, ast.ImportFrom)
            assert node.module is not None
            assert node.module.startswith("app.rules")
        else:
            assert root in sys.stdlib_module_names or root == "__future__"
