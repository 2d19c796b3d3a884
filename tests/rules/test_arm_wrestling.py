"""Arm wrestling rules core (docs/rules.md#arm-wrestling)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import arm_wrestling as aw
from app.rules import serial
from app.rules.common import CheckRoll
from app.rules.dice import Dice
from app.rules.errors import DiceError, PhaseError, RulesError
from tests.helpers import DrawnRng, Rolls, fake_notation, supplied


def competitor(name: str, **fields: Any) -> aw.Competitor:
    body: dict[str, Any] = {"name": name, "strength_mod": 0, "con_score": 30, "con_mod": 0}
    body.update(fields)
    return aw.Competitor(**body)


def make_config(a: aw.Competitor, b: aw.Competitor, **settings_: Any) -> aw.Config:
    """A match as a create body builds it; `check_config` must accept it."""
    config = aw.Config(a=a, b=b, **settings_)
    aw.check_config(config)
    return config


def play(config: aw.Config, state: aw.State, rolls: Rolls) -> tuple[aw.State, aw.Round, Dice]:
    """One round with every die supplied; every supplied die must be used."""
    dice = supplied(rolls)
    new_state, round_ = aw.play_round(config, state, dice)
    dice.require_all_used()
    return new_state, round_, dice


def strength(a_name: str, a_roll: int, b_name: str, b_roll: int) -> dict[str, dict[str, int]]:
    return {a_name: {"strength": a_roll}, b_name: {"strength": b_roll}}


def used_keys(dice: Dice) -> list[tuple[str | None, str]]:
    return [(entry.who, entry.purpose) for entry in dice.log]


def fatigue_rows(round_: aw.Round) -> list[tuple[str, int, int, int, bool]]:
    """Each fatigue check as (name, dc, roll, total, passed)."""
    return [
        (check.name, check.dc, check.roll, check.total, check.passed) for check in round_.fatigue
    ]


def outcome(state: aw.State) -> tuple[str | None, aw.Reason | None, tuple[aw.Consequence, ...]]:
    """A finished match's (winner, reason, consequences)."""
    assert state.finished
    return (state.winner, state.reason, state.consequences)


def strained(name: str) -> aw.Consequence:
    return aw.Consequence(
        name,
        "strained-arm",
        "failed the Constitution check: -2 to Strength-based rolls with that arm until she rests "
        "for at least one minute",
    )


# --------------------------------------------------------------------------------------------
# The worked example (docs/rules.md#pushing-the-ds): Lydia +2 Strength, the Ogre +6.
# --------------------------------------------------------------------------------------------

LYDIA_AND_OGRE = (
    # (Lydia's d20, Ogre's d20, round winner, difference, Lydia DS, Ogre DS, leader)
    (15, 6, "Lydia", 5, 5, 0, "Lydia"),  # Lydia beats the Ogre by 5 (Lydia 5)
    (10, 14, "Ogre", 8, -3, 0, "Ogre"),  # the Ogre beats her by 8 (Lydia -3; Ogre leads at 0)
    (9, 11, "Ogre", 6, -3, 6, "Ogre"),  # the Ogre beats her by 6 (Ogre 6)
    (16, 11, "Lydia", 1, -3, 5, "Ogre"),  # she beats him by 1 (Ogre 5)
    (5, 9, "Ogre", 8, -3, 13, "Ogre"),  # he beats her by 8 (Ogre 13)
)


def lydia_and_ogre_config(**settings_: Any) -> aw.Config:
    return make_config(
        competitor("Lydia", strength_mod=2, con_score=12, con_mod=1),
        competitor("Ogre", strength_mod=6, con_score=18, con_mod=4),
        **settings_,
    )


def lydia_and_ogre_after_five_rounds() -> tuple[aw.Config, aw.State]:
    config = lydia_and_ogre_config()
    state = aw.start(config, Dice())
    for lydia_roll, ogre_roll, *_ in LYDIA_AND_OGRE:
        state, _, _ = play(config, state, strength("Lydia", lydia_roll, "Ogre", ogre_roll))
    return config, state


def test_lydia_and_ogre_worked_example_round_by_round() -> None:
    config = lydia_and_ogre_config()
    state = aw.start(config, Dice())
    assert (state.ds_by_name(), state.leader, state.con_checks_by_name()) == (
        {"Lydia": 0, "Ogre": 0},
        None,
        {"Lydia": 0, "Ogre": 0},
    )
    for lydia_roll, ogre_roll, winner, difference, lydia_ds, ogre_ds, leader in LYDIA_AND_OGRE:
        state, round_, dice = play(config, state, strength("Lydia", lydia_roll, "Ogre", ogre_roll))
        assert round_.round_winner == winner
        assert round_.difference == difference
        assert dict(round_.ds) == {"Lydia": lydia_ds, "Ogre": ogre_ds}
        assert state.ds_by_name() == {"Lydia": lydia_ds, "Ogre": ogre_ds}
        assert state.leader == leader
        assert round_.leader == leader
        assert not round_.finished
        assert round_.fatigue == ()
        assert used_keys(dice) == [("Lydia", "strength"), ("Ogre", "strength")]
    assert state.rounds_played == 5
    assert not state.finished


def test_lydia_and_ogre_second_round_record() -> None:
    config = lydia_and_ogre_config()
    state, _, _ = play(config, aw.start(config, Dice()), strength("Lydia", 15, "Ogre", 6))
    state, round_, _ = play(config, state, strength("Lydia", 10, "Ogre", 14))
    assert round_ == aw.Round(
        fatigue=(),
        checks=(("Lydia", CheckRoll(roll=10, total=12)), ("Ogre", CheckRoll(roll=14, total=20))),
        round_winner="Ogre",
        difference=8,
        ds=(("Lydia", -3), ("Ogre", 0)),
        leader="Ogre",
        finished=False,
        winner=None,
        reason=None,
        pushed="Lydia",
    )
    assert aw.round_summary(config, state, round_) == (
        "Ogre beats Lydia by 8: Lydia's DS falls to -3 (Lydia -3, Ogre 0; Ogre leads)."
    )


def test_lydia_and_ogre_ogre_needs_seven_more() -> None:
    """'He needs to beat her by 7 or more next round.'"""
    config, state = lydia_and_ogre_after_five_rounds()
    # Beating her by 6 leaves the Ogre at 19.
    short, round_, _ = play(config, state, strength("Lydia", 10, "Ogre", 10))
    assert round_.difference == 4
    short, round_, _ = play(config, state, strength("Lydia", 10, "Ogre", 12))
    assert round_.difference == 6
    assert short.ds == (-3, 19)
    assert not short.finished
    # Beating her by 7 brings him to 20: the target.
    won, round_, _ = play(config, state, strength("Lydia", 10, "Ogre", 13))
    assert round_.difference == 7
    assert won.ds == (-3, 20)
    assert won.finished
    assert (round_.finished, round_.winner, round_.reason) == (True, "Ogre", "target")
    assert outcome(won) == ("Ogre", "target", ())
    assert won.damage is None
    assert aw.round_summary(config, won, round_) == (
        "Ogre beats Lydia by 7: Ogre's DS rises to 20 (Lydia -3, Ogre 20; Ogre leads). "
        "Ogre wins, reaching DS 20."
    )


def test_the_trailing_winner_can_hand_the_lead_over() -> None:
    config, state = lydia_and_ogre_after_five_rounds()
    # Lydia (-3) trails the Ogre (13) and beats him by 15: his DS falls to -2, below hers.
    state, round_, _ = play(config, state, strength("Lydia", 20, "Ogre", 1))
    assert round_.difference == 15
    assert state.ds == (-3, -2)
    assert state.leader == "Ogre"
    state, round_, _ = play(config, state, strength("Lydia", 20, "Ogre", 14))
    assert round_.difference == 2
    assert state.ds == (-3, -4)
    assert state.leader == "Lydia"


def test_equal_totals_change_nothing() -> None:
    config, state = lydia_and_ogre_after_five_rounds()
    after, round_, _ = play(config, state, strength("Lydia", 14, "Ogre", 10))
    assert round_.round_winner is None
    assert round_.difference == 0
    assert after.ds == state.ds
    assert after.rounds_played == 6
    assert aw.round_summary(config, after, round_) == (
        "Lydia and Ogre tie at 16: nothing changes (Lydia -3, Ogre 13; Ogre leads)."
    )


def test_start_rolls_nothing_and_targets_are_configurable() -> None:
    config = lydia_and_ogre_config(target=5)
    dice = Dice()
    state = aw.start(config, dice)
    assert dice.log == []
    state, round_, _ = play(config, state, strength("Lydia", 15, "Ogre", 6))
    assert (state.ds, round_.winner, round_.reason) == ((5, 0), "Lydia", "target")


# --------------------------------------------------------------------------------------------
# Fatigue (docs/rules.md#fatigue)
# --------------------------------------------------------------------------------------------


def test_fatigue_checks_start_after_con_score_rounds_and_the_dc_grows() -> None:
    config = make_config(
        competitor("Ann", con_score=2, con_mod=1), competitor("Bea", con_score=3, con_mod=0)
    )
    state = aw.start(config, Dice())
    for _ in range(2):
        state, round_, dice = play(config, state, strength("Ann", 10, "Bea", 10))
        assert round_.fatigue == ()
        assert used_keys(dice) == [("Ann", "strength"), ("Bea", "strength")]
    # Round 3: Ann's first check, DC 10.
    state, round_, dice = play(
        config, state, {"Ann": {"constitution": 9, "strength": 10}, "Bea": {"strength": 10}}
    )
    assert fatigue_rows(round_) == [("Ann", 10, 9, 10, True)]
    assert used_keys(dice) == [("Ann", "constitution"), ("Ann", "strength"), ("Bea", "strength")]
    assert state.con_checks_by_name() == {"Ann": 1, "Bea": 0}
    # Round 4: Ann at DC 11, Bea's first check at DC 10.
    state, round_, _ = play(
        config,
        state,
        {"Ann": {"constitution": 10, "strength": 10}, "Bea": {"constitution": 10, "strength": 10}},
    )
    assert [(check.name, check.dc, check.total, check.passed) for check in round_.fatigue] == [
        ("Ann", 11, 11, True),
        ("Bea", 10, 10, True),
    ]
    # Round 5: Ann at DC 12, Bea at DC 11.
    state, round_, _ = play(
        config,
        state,
        {"Ann": {"constitution": 11, "strength": 10}, "Bea": {"constitution": 11, "strength": 10}},
    )
    assert [(check.name, check.dc) for check in round_.fatigue] == [("Ann", 12), ("Bea", 11)]
    assert state.con_checks_by_name() == {"Ann": 3, "Bea": 2}
    assert aw.round_summary(config, state, round_) == (
        "Constitution: Ann 12 vs DC 12, passes; Bea 11 vs DC 11, passes. "
        "Ann and Bea tie at 10: nothing changes (Ann 0, Bea 0; nobody leads)."
    )


@pytest.mark.parametrize(("endurance", "passed"), [(True, True), (False, False)])
def test_endurance_adds_four_to_the_fatigue_check(endurance: bool, passed: bool) -> None:
    config = make_config(
        competitor("Ann", con_score=0, con_mod=0, endurance=endurance),
        competitor("Bea", con_score=5),
    )
    dice = supplied({"Ann": {"constitution": 6, "strength": 10}, "Bea": {"strength": 10}})
    _, round_ = aw.play_round(config, aw.start(config, Dice()), dice)
    (check,) = round_.fatigue
    assert check.total == (10 if endurance else 6)
    assert check.passed is passed


def test_exactly_one_failure_hands_the_match_to_the_other_without_strength_checks() -> None:
    config = make_config(
        competitor("Ann", strength_mod=5, con_score=1, con_mod=0),
        competitor("Bea", con_score=1, con_mod=0),
    )
    state, _, _ = play(config, aw.start(config, Dice()), strength("Ann", 10, "Bea", 5))
    assert state.ds == (10, 0)
    # Ann leads but fails her check: Bea wins anyway.
    state, round_, dice = play(
        config, state, {"Ann": {"constitution": 9}, "Bea": {"constitution": 10}}
    )
    assert used_keys(dice) == [("Ann", "constitution"), ("Bea", "constitution")]
    assert fatigue_rows(round_) == [("Ann", 10, 9, 9, False), ("Bea", 10, 10, 10, True)]
    assert round_ == aw.Round(
        fatigue=round_.fatigue,
        checks=(),
        round_winner=None,
        difference=0,
        ds=(("Ann", 10), ("Bea", 0)),
        leader="Ann",
        finished=True,
        winner="Bea",
        reason="fatigue",
    )
    assert aw.is_finished(state)
    assert outcome(state) == ("Bea", "fatigue", (strained("Ann"),))
    assert state.damage is None
    assert aw.round_summary(config, state, round_) == (
        "Constitution: Ann 9 vs DC 10, fails; Bea 10 vs DC 10, passes. "
        "Ann can wrestle no more: Bea wins."
    )


def test_a_fatigue_ending_leaves_supplied_strength_dice_unused() -> None:
    config = make_config(competitor("Ann", con_score=0), competitor("Bea", con_score=0))
    dice = supplied(
        {"Ann": {"constitution": 1, "strength": 10}, "Bea": {"constitution": 20, "strength": 10}}
    )
    state, _ = aw.play_round(config, aw.start(config, Dice()), dice)
    assert state.winner == "Bea"
    with pytest.raises(DiceError):
        dice.require_all_used()


def test_both_failing_goes_to_the_higher_ds() -> None:
    config = make_config(
        competitor("Ann", con_score=1, con_mod=-1), competitor("Bea", con_score=1, con_mod=2)
    )
    state, _, _ = play(config, aw.start(config, Dice()), strength("Ann", 4, "Bea", 7))
    assert state.ds == (0, 3)
    state, round_, _ = play(config, state, {"Ann": {"constitution": 3}, "Bea": {"constitution": 7}})
    assert [(check.total, check.passed) for check in round_.fatigue] == [(2, False), (9, False)]
    assert (round_.winner, round_.reason) == ("Bea", "fatigue")
    assert [(c.name, c.effect) for c in state.consequences] == [
        ("Ann", "strained-arm"),
        ("Bea", "strained-arm"),
    ]
    assert aw.round_summary(config, state, round_).endswith(
        "Both can wrestle no more: Bea wins on the higher DS."
    )


def test_both_failing_with_equal_ds_is_a_draw() -> None:
    config = make_config(competitor("Ann", con_score=0), competitor("Bea", con_score=0))
    state, round_, _ = play(
        config, aw.start(config, Dice()), {"Ann": {"constitution": 2}, "Bea": {"constitution": 9}}
    )
    assert (round_.finished, round_.winner, round_.reason) == (True, None, "draw")
    assert state.finished
    assert state.winner is None
    assert state.reason == "draw"
    assert [c.effect for c in state.consequences] == ["strained-arm", "strained-arm"]
    assert state.damage is None


def test_a_finished_match_refuses_more_rounds() -> None:
    config = make_config(competitor("Ann", con_score=0), competitor("Bea", con_score=0))
    state, _, _ = play(
        config, aw.start(config, Dice()), {"Ann": {"constitution": 2}, "Bea": {"constitution": 9}}
    )
    with pytest.raises(PhaseError):
        aw.play_round(config, state, Dice())


# --------------------------------------------------------------------------------------------
# Strength checks: off hand, misc_mod, variants
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "total"),
    [
        ({}, 13),
        ({"off_hand": True}, 11),
        ({"off_hand": True, "two_weapon_fighting": True}, 13),
        ({"two_weapon_fighting": True}, 13),
        ({"misc_mod": 2}, 15),
        ({"misc_mod": -1, "off_hand": True}, 10),
    ],
)
def test_strength_check_modifiers(fields: dict[str, Any], total: int) -> None:
    config = make_config(competitor("Ann", strength_mod=3, **fields), competitor("Bea"))
    _, round_, _ = play(config, aw.start(config, Dice()), strength("Ann", 10, "Bea", 10))
    assert dict(round_.checks)["Ann"] == CheckRoll(roll=10, total=total)


def test_psychic_uses_caster_level() -> None:
    config = make_config(
        competitor("Mage", strength_mod=-1, caster_level=7),
        competitor("Sorcerer", strength_mod=4, caster_level=3, misc_mod=1),
        variant="psychic",
    )
    state, round_, _ = play(config, aw.start(config, Dice()), strength("Mage", 10, "Sorcerer", 10))
    assert round_.checks == (
        ("Mage", CheckRoll(roll=10, total=17)),
        ("Sorcerer", CheckRoll(roll=10, total=14)),
    )
    assert state.ds == (3, 0)


def test_mental_uses_intelligence_and_wisdom() -> None:
    config = make_config(
        # wis_mod -5 is the modifier of wis_score 1, the create body's default (see the API
        # test test_mental_wis_mod_defaults_to_the_modifier_of_wis_score).
        competitor(
            "Psion", strength_mod=-2, con_score=30, con_mod=5, int_mod=4, wis_score=1, wis_mod=-5
        ),
        competitor("Sage", strength_mod=0, con_score=0, int_mod=2, wis_score=14, wis_mod=3),
        variant="mental",
    )
    state = aw.start(config, Dice())
    state, round_, _ = play(config, state, strength("Psion", 10, "Sage", 10))
    # Psion wrestles 1 round freely (wis_score 1, not con_score 30); the Sage 14 (not con_score 0).
    assert round_.fatigue == ()
    assert round_.checks == (
        ("Psion", CheckRoll(roll=10, total=14)),
        ("Sage", CheckRoll(roll=10, total=12)),
    )
    state, round_, _ = play(
        config,
        state,
        {"Psion": {"constitution": 15, "strength": 10}, "Sage": {"strength": 10}},
    )
    assert fatigue_rows(round_) == [("Psion", 10, 15, 10, True)]
    assert state.ds == (4, 0)
    state, round_, _ = play(config, state, {"Psion": {"constitution": 15}})
    assert fatigue_rows(round_) == [("Psion", 11, 15, 10, False)]
    assert (state.winner, state.reason) == ("Sage", "fatigue")
    assert state.consequences[0].detail.startswith("failed the Wisdom check")
    assert aw.round_summary(config, state, round_).startswith("Wisdom: Psion 10 vs DC 11, fails.")


# --------------------------------------------------------------------------------------------
# Spikes and loser damage
# --------------------------------------------------------------------------------------------


def spikes_config(winner_strength: int = 3, **settings_: Any) -> aw.Config:
    return make_config(
        competitor("Ann", strength_mod=winner_strength, con_score=0, endurance=True),
        competitor("Bea", strength_mod=0, con_score=0),
        variant="spikes",
        target=5,
        **settings_,
    )


def test_spikes_loser_takes_1d4_plus_the_winners_strength_bonus() -> None:
    config = spikes_config(winner_strength=3)
    rolls = {
        "Ann": {"constitution": 10, "strength": 12},
        "Bea": {"constitution": 10, "strength": 8, "damage": 2},
    }
    state, round_, dice = play(config, aw.start(config, Dice()), rolls)
    assert (round_.winner, round_.reason, state.ds) == ("Ann", "target", (7, 0))
    assert used_keys(dice)[-1] == ("Bea", "damage")
    assert dice.log[-1].dice == "1d4"
    assert outcome(state) == (
        "Ann",
        "target",
        (
            aw.Consequence(
                "Bea",
                "damage",
                "5 damage from the spikes (1d4 rolled 2 + Ann's Strength bonus 3)",
            ),
            aw.Consequence(
                "Bea",
                "injured-hand",
                "-2 on skills that need that hand and on attack rolls with it until the injury "
                "heals",
            ),
        ),
    )
    assert state.damage == aw.Damage("Bea", 5)
    assert aw.round_summary(config, state, round_).endswith(
        "Ann wins, reaching DS 5. Bea takes 5 damage and an injured hand."
    )


def test_spikes_strength_bonus_is_never_negative() -> None:
    config = spikes_config(winner_strength=-2)
    rolls = {
        "Ann": {"constitution": 10, "strength": 20},
        "Bea": {"constitution": 10, "strength": 1, "damage": 4},
    }
    state, _, _ = play(config, aw.start(config, Dice()), rolls)
    assert state.damage == aw.Damage("Bea", 4)


def test_spikes_on_a_fatigue_ending_hurt_the_loser() -> None:
    config = spikes_config(winner_strength=1)
    rolls = {"Ann": {"constitution": 10}, "Bea": {"constitution": 9, "damage": 3}}
    state, _, _ = play(config, aw.start(config, Dice()), rolls)
    assert (state.winner, state.reason) == ("Ann", "fatigue")
    assert [(c.name, c.effect) for c in state.consequences] == [
        ("Bea", "strained-arm"),
        ("Bea", "damage"),
        ("Bea", "injured-hand"),
    ]
    assert state.damage == aw.Damage("Bea", 4)


def test_spikes_on_a_draw_hurt_nobody() -> None:
    config = spikes_config()
    rolls = {"Ann": {"constitution": 1}, "Bea": {"constitution": 1}}
    state, _, dice = play(config, aw.start(config, Dice()), rolls)
    assert (state.winner, state.reason, state.damage) == (None, "draw", None)
    assert ("Bea", "damage") not in used_keys(dice)


def mental_config(**settings_: Any) -> aw.Config:
    return make_config(
        competitor("Psion", int_mod=3, wis_score=10, wis_mod=0),
        competitor("Sage", int_mod=0, wis_score=10, wis_mod=0),
        variant="mental",
        target=3,
        **settings_,
    )


def test_mental_loser_takes_loser_damage() -> None:
    config = mental_config(loser_damage="2d6+1")
    rolls: Rolls = {"Psion": {"strength": 10}, "Sage": {"strength": 10, "damage": [4, 5]}}
    state, round_, dice = play(config, aw.start(config, Dice()), rolls)
    assert (round_.winner, state.ds) == ("Psion", (3, 0))
    assert dice.log[-1].record() == {
        "who": "Sage",
        "purpose": "damage",
        "dice": "2d6+1",
        "values": [4, 5],
        "source": "supplied",
    }
    assert state.damage == aw.Damage("Sage", 10)
    assert state.consequences == (
        aw.Consequence("Sage", "damage", "10 damage (2d6+1: 2d6 (4, 5) + 1)"),
    )


def test_mental_loser_damage_below_zero_counts_as_zero() -> None:
    config = mental_config(loser_damage="1d4-5")
    rolls = {"Psion": {"strength": 10}, "Sage": {"strength": 10, "damage": 2}}
    state, _, _ = play(config, aw.start(config, Dice()), rolls)
    assert state.damage == aw.Damage("Sage", 0)


def psychic_config(**settings_: Any) -> aw.Config:
    return make_config(
        competitor("Mage", caster_level=7, con_score=10),
        competitor("Sorcerer", caster_level=3, con_score=10),
        variant="psychic",
        target=4,
        **settings_,
    )


def test_psychic_loser_takes_loser_damage_too() -> None:
    # "The GM can optionally rule that the loser takes damage" serves psychic matches too: the
    # Mage's 10 + 7 beats the Sorcerer's 10 + 3 by 4, the target; the Sorcerer takes 1d6+1.
    config = psychic_config(loser_damage="1d6+1")
    rolls: Rolls = {"Mage": {"strength": 10}, "Sorcerer": {"strength": 10, "damage": 3}}
    state, round_, dice = play(config, aw.start(config, Dice()), rolls)
    assert (round_.winner, state.ds) == ("Mage", (4, 0))
    assert state.damage == aw.Damage("Sorcerer", 4)
    assert state.consequences == (
        aw.Consequence("Sorcerer", "damage", "4 damage (1d6+1: 1d6 (3) + 1)"),
    )
    assert serial.dump(dice.log[-1])["purpose"] == "damage"
    # Without it (the default) a psychic match hurts nobody, as before.
    plain = psychic_config()
    state, _, dice = play(plain, aw.start(plain, Dice()), strength("Mage", 10, "Sorcerer", 10))
    assert state.damage is None
    assert len(dice.log) == 2


def test_psychic_loser_damage_leaves_the_odds_alone() -> None:
    # Damage follows the loser once the match is decided: it never changes who wins.
    from app.rules.odds import arm_wrestling as arm_odds

    plain = psychic_config()
    hurting = psychic_config(loser_damage="2d6")
    assert arm_odds.arm_wrestle_odds(hurting, aw.start(hurting, Dice())) == (
        arm_odds.arm_wrestle_odds(plain, aw.start(plain, Dice()))
    )


def test_mental_without_loser_damage_hurts_nobody() -> None:
    config = mental_config()
    state, _, dice = play(config, aw.start(config, Dice()), strength("Psion", 10, "Sage", 10))
    assert outcome(state) == ("Psion", "target", ())
    assert state.damage is None
    assert len(dice.log) == 2


# --------------------------------------------------------------------------------------------
# max_rounds
# --------------------------------------------------------------------------------------------


def test_a_match_stops_undecided_after_max_rounds() -> None:
    config = lydia_and_ogre_config(max_rounds=2)
    state, round_, _ = play(config, aw.start(config, Dice()), strength("Lydia", 15, "Ogre", 6))
    assert not round_.finished
    state, round_, _ = play(config, state, strength("Lydia", 10, "Ogre", 14))
    assert (round_.finished, round_.winner, round_.reason) == (True, None, "max_rounds")
    assert outcome(state) == (None, "max_rounds", ())
    assert state.damage is None
    assert aw.round_summary(config, state, round_).endswith("No winner after 2 rounds.")
    with pytest.raises(PhaseError):
        aw.play_round(config, state, Dice())


def test_reaching_the_target_in_the_last_round_still_wins() -> None:
    config = lydia_and_ogre_config(max_rounds=1, target=5)
    _, round_, _ = play(config, aw.start(config, Dice()), strength("Lydia", 15, "Ogre", 6))
    assert (round_.winner, round_.reason) == ("Lydia", "target")


def test_default_max_rounds_is_200() -> None:
    config = make_config(competitor("Ann", con_score=500), competitor("Bea", con_score=500))
    state = aw.start(config, Dice())
    for _ in range(199):
        state, round_, _ = play(config, state, strength("Ann", 10, "Bea", 10))
        assert not round_.finished
    state, round_, _ = play(config, state, strength("Ann", 10, "Bea", 10))
    assert (state.rounds_played, round_.reason) == (200, "max_rounds")


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


def test_defaults_are_applied_and_the_config_round_trips() -> None:
    config = make_config(competitor("Ann"), competitor("Bea"))
    assert (config.target, config.variant, config.max_rounds, config.loser_damage) == (
        20,
        "standard",
        200,
        None,
    )
    # The stored (and served) config is `serial.dump(config)`.
    body = serial.dump(config)
    assert body["a"] == {
        "name": "Ann",
        "strength_mod": 0,
        "con_score": 30,
        "con_mod": 0,
        "endurance": False,
        "off_hand": False,
        "two_weapon_fighting": False,
        "misc_mod": 0,
        "caster_level": None,
        "int_mod": None,
        "wis_score": None,
        "wis_mod": None,
    }
    assert "seed" not in body
    assert serial.load(aw.Config, body) == config
    assert serial.load(aw.Config, serial.dump(mental_config(loser_damage="1d6"))) == (
        mental_config(loser_damage="1d6")
    )


# Violations of one field alone (bounds, types, blank names, an unknown variant, notation
# length) are the create body's schema's: tests/api/test_arm_wrestles_api.py checks them.
@pytest.mark.parametrize(
    ("settings_", "loc"),
    [
        ({"loser_damage": "1d6"}, ("loser_damage",)),
        ({"variant": "spikes", "loser_damage": "1d6"}, ("loser_damage",)),
        ({"b": competitor("Ann")}, ("b", "name")),
        ({"variant": "psychic", "b": competitor("Bea", caster_level=1)}, ("a", "caster_level")),
        (
            {"variant": "mental", "a": competitor("Ann", wis_score=10), "b": competitor("Bea")},
            ("a", "int_mod"),
        ),
        ({"variant": "mental", "a": competitor("Ann", int_mod=1)}, ("a", "wis_score")),
    ],
)
def test_config_violations_name_their_place(
    settings_: dict[str, Any], loc: tuple[Any, ...]
) -> None:
    config = aw.Config(**{"a": competitor("Ann"), "b": competitor("Bea"), **settings_})
    with pytest.raises(RulesError) as caught:
        aw.check_config(config)
    assert loc in [violation.loc for violation in caught.value.violations]


def test_every_config_violation_is_listed_at_once() -> None:
    with pytest.raises(RulesError) as caught:
        aw.check_config(aw.Config(a=competitor("Ann"), b=competitor("Ann"), variant="psychic"))
    assert [violation.loc for violation in caught.value.violations] == [
        ("a", "caster_level"),
        ("b", "caster_level"),
        ("b", "name"),
    ]


def test_the_state_round_trips_even_with_reordered_keys() -> None:
    config = spikes_config()
    rolls = {"Ann": {"constitution": 10}, "Bea": {"constitution": 9, "damage": 3}}
    state, _, _ = play(config, aw.start(config, Dice()), rolls)
    stored = serial.dump(state)
    # A JSONB column may hand keys back in another order; pairs are lists, in (a, b) order.
    reordered = {key: stored[key] for key in reversed(stored)}
    reordered["damage"] = dict(reversed(stored["damage"].items()))
    reordered["consequences"] = [dict(reversed(item.items())) for item in stored["consequences"]]
    assert serial.load(aw.State, reordered) == state
    assert (state.ds_by_name(), state.leader, state.con_checks_by_name()) == (
        {"Ann": 0, "Bea": 0},
        None,
        {"Ann": 1, "Bea": 1},
    )


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------


def competitors(name: str) -> st.SearchStrategy[aw.Competitor]:
    return st.builds(
        aw.Competitor,
        name=st.just(name),
        strength_mod=st.integers(-5, 10),
        con_score=st.integers(0, 8),
        con_mod=st.integers(-3, 4),
        endurance=st.booleans(),
        off_hand=st.booleans(),
        two_weapon_fighting=st.booleans(),
        misc_mod=st.integers(-3, 3),
        caster_level=st.integers(0, 20),
        int_mod=st.integers(-3, 6),
        wis_score=st.integers(0, 8),
        wis_mod=st.integers(-3, 4),
    )


@st.composite
def configs(draw: st.DrawFn) -> aw.Config:
    variant = draw(st.sampled_from(aw.VARIANTS))
    return make_config(
        draw(competitors("Ann")),
        draw(competitors("Bea")),
        variant=variant,
        target=draw(st.integers(1, 40)),
        max_rounds=draw(st.integers(1, 60)),
        loser_damage=draw(st.sampled_from([None, "1d6", "2d4+1"])) if variant == "mental" else None,
    )


@settings(max_examples=200)
@given(config=configs(), data=st.data())
def test_every_round_obeys_the_ds_rule(config: aw.Config, data: st.DataObject) -> None:
    state = aw.start(config, Dice())
    while not aw.is_finished(state):
        before = state
        dice = Dice(DrawnRng(data), notation=fake_notation)
        state, round_ = aw.play_round(config, before, dice)
        assert state.rounds_played == before.rounds_played + 1 <= config.max_rounds
        assert serial.load(aw.State, serial.dump(state)) == state
        moved = [after - earlier for after, earlier in zip(state.ds, before.ds, strict=True)]
        leader = aw.leader_index(before.ds)
        if leader is not None:
            # The trailing competitor's own DS never moves.
            assert moved[1 - leader] == 0
        # At most one DS moves, by exactly the difference.
        assert sorted(abs(change) for change in moved) == [0, round_.difference] or (
            round_.difference == 0 and moved == [0, 0]
        )
        if round_.checks:
            (_, first), (_, second) = round_.checks
            assert round_.difference == abs(first.total - second.total)
            if round_.round_winner is not None:
                winner = state.names.index(round_.round_winner)
                if leader in (None, winner):
                    assert moved[winner] == round_.difference
                else:
                    assert moved[leader] == -round_.difference
        else:
            assert round_.reason in ("fatigue", "draw")
            assert moved == [0, 0]
        for index, competitor_ in enumerate(config.competitors):
            assert state.con_checks_made[index] == max(
                0, state.rounds_played - aw.free_rounds(config, competitor_)
            )
        for check in round_.fatigue:
            index = state.names.index(check.name)
            assert check.dc == 10 + before.con_checks_made[index]
    assert state.finished
    assert state.reason in ("target", "fatigue", "draw", "max_rounds")
    if state.reason == "target":
        assert state.winner is not None
        winner = state.names.index(state.winner)
        assert state.ds[winner] >= config.target > state.ds[1 - winner]
    if state.reason in ("draw", "max_rounds"):
        assert state.winner is None
        assert state.damage is None
    if config.variant == "spikes" and state.winner is not None:
        victor = config.competitors[state.names.index(state.winner)]
        assert state.damage is not None
        assert 1 + victor.strength_bonus <= state.damage.amount <= 4 + victor.strength_bonus
    with pytest.raises(PhaseError):
        aw.play_round(config, state, Dice())


@given(
    ds=st.tuples(st.integers(-100, 100), st.integers(-100, 100)),
    round_winner=st.sampled_from([0, 1]),
    difference=st.integers(1, 40),
)
def test_push_moves_one_ds_by_the_difference(
    ds: tuple[int, int], round_winner: int, difference: int
) -> None:
    pushed = aw.push(ds, round_winner, difference)
    if ds[round_winner] >= ds[1 - round_winner]:
        assert pushed[round_winner] == ds[round_winner] + difference
        assert pushed[1 - round_winner] == ds[1 - round_winner]
    else:
        assert pushed[1 - round_winner] == ds[1 - round_winner] - difference
        assert pushed[round_winner] == ds[round_winner]


optional_competitors = st.builds(
    aw.Competitor,
    name=st.sampled_from(["Ann", "Bea"]),
    strength_mod=st.integers(-5, 5),
    con_score=st.integers(0, 30),
    con_mod=st.integers(-5, 5),
    caster_level=st.integers(0, 20) | st.none(),
    int_mod=st.integers(-5, 5) | st.none(),
    wis_score=st.integers(0, 20) | st.none(),
    wis_mod=st.integers(-5, 5) | st.none(),
)


@given(
    config=st.builds(
        aw.Config,
        a=optional_competitors,
        b=optional_competitors,
        target=st.integers(1, 100),
        variant=st.sampled_from(aw.VARIANTS),
        max_rounds=st.integers(1, 10_000),
        loser_damage=st.sampled_from(["1d6", "2d4+1"]) | st.none(),
    ),
    data=st.data(),
)
def test_a_config_is_either_accepted_or_a_rules_error(
    config: aw.Config, data: st.DataObject
) -> None:
    """Whatever the create body's schema lets through, `check_config` accepts a config the
    rules can play, or rejects it with a rules error."""
    try:
        aw.check_config(config)
    except RulesError as error:
        rejected: RulesError | None = error
    else:
        rejected = None
    if rejected is not None:
        assert rejected.violations[0].msg
        return
    assert config.a.name != config.b.name
    assert config.loser_damage is None or config.variant in ("mental", "psychic")
    assert serial.load(aw.Config, serial.dump(config)) == config
    if config.variant != "mental" or (
        config.a.wis_mod is not None and config.b.wis_mod is not None
    ):
        # Every field the variant reads is there: a round plays without a rules error.
        dice = Dice(DrawnRng(data), notation=fake_notation)
        aw.play_round(config, aw.start(config, Dice()), dice)
