"""Races (docs/rules.md#races): presets, the increment check, every increment kind, endurance,
winners."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import races, serial
from app.rules.dice import Dice, SeededRng
from app.rules.errors import PhaseError, RulesError
from tests.helpers import Rolls, fake_notation, supplied


def play(config: races.Config, state: races.State, rolls: Rolls) -> tuple[races.State, races.Round]:
    dice = supplied(rolls)
    new_state, record = races.play_round(config, state, dice)
    dice.require_all_used()
    return new_state, record


def runner(name: str = "Ann", speed: int = 30, **options: Any) -> races.Competitor:
    return races.Competitor(name=name, speed=speed, **options)


def race(
    increments: Sequence[races.Increment] | races.Preset,
    *competitors: races.Competitor,
    **options: Any,
) -> races.Config:
    """A race as its create body would make it, checked as creating one checks it."""
    course = increments if isinstance(increments, str) else races.Course(tuple(increments))
    config = races.Config(course=course, competitors=competitors or (runner(),), **options)
    races.check_config(config)
    return config


def first_round(
    increments: Sequence[races.Increment] | races.Preset,
    rolls: Rolls,
    *competitors: races.Competitor,
    **options: Any,
) -> tuple[races.State, races.Round]:
    config = race(increments, *competitors, **options)
    return play(config, races.start(config, supplied({})), rolls)


def line(record: races.Round, name: str = "Ann") -> dict[str, Any]:
    """`name`'s line of the round record (its JSON: the line's fields but her name)."""
    (entry,) = [entry for entry in record.competitors if entry.name == name]
    body: dict[str, Any] = serial.dump(entry)
    del body["name"]
    return body


def violation_locs(error: pytest.ExceptionInfo[RulesError]) -> list[tuple[str | int, ...]]:
    return [violation.loc for violation in error.value.violations]


Increment, Obstacle = races.Increment, races.Obstacle
STRENGTH = Increment("strength")


# --------------------------------------------------------------------------------------------
# Presets
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("preset", "count"), [("dash", 2), ("typical", 10), ("marathon", 20)])
def test_plain_presets_are_strength_increments(preset: races.Preset, count: int) -> None:
    config = race(preset)
    assert config.increments == (races.Increment(check="strength"),) * count
    assert races.start(config, supplied({})).of == count


def test_dakrothian_marathon_follows_the_table_row_by_row() -> None:
    course = race("dakrothian-marathon", runner(mount=races.Mount(strength_mod=4, speed=60)))
    rows = dict(enumerate(course.increments, start=1))
    assert len(rows) == 20
    plain = races.Increment(check="strength")
    # 1-3: strength; at 3 an obstacle: Jump DC 15, retry, 3d6 damage on each failure.
    assert rows[1] == rows[2] == plain
    assert rows[3] == races.Increment(
        check="strength",
        obstacle=races.Obstacle(kind="obstacle", check="jump", dc=15, retry=True, damage="3d6"),
    )
    # 4-6: climb, DC 14, on_fail retry.
    for number in (4, 5, 6):
        assert rows[number] == races.Increment(check="climb", dc=14, on_fail="retry")
    # 7-8: strength; at 8 a hazard: Jump DC 12, 3d6 damage on failure.
    assert rows[7] == plain
    assert rows[8] == races.Increment(
        check="strength",
        obstacle=races.Obstacle(kind="hazard", check="jump", dc=12, damage="3d6"),
    )
    # 9-11: swim, DC 15, on_fail stall, drown_margin 5.
    for number in (9, 10, 11):
        assert rows[number] == races.Increment(check="swim", dc=15, on_fail="stall", drown_margin=5)
    # 12-13: swim, DC 15, on_fail stall, modifiers -1 and -2 (underwater tunnel).
    assert rows[12] == races.Increment(check="swim", dc=15, on_fail="stall", modifier=-1)
    assert rows[13] == races.Increment(check="swim", dc=15, on_fail="stall", modifier=-2)
    # 14-18: strength; at 16 a hazard: Balance DC 12.
    for number in (14, 15, 17, 18):
        assert rows[number] == plain
    assert rows[16] == races.Increment(
        check="strength", obstacle=races.Obstacle(kind="hazard", check="balance", dc=12)
    )
    # 19-20: mounted; at 20 an obstacle: Jump DC 18, no retry, 4d6 damage.
    assert rows[19] == races.Increment(check="strength", mounted=True)
    assert rows[20] == races.Increment(
        check="strength",
        mounted=True,
        obstacle=races.Obstacle(kind="obstacle", check="jump", dc=18, retry=False, damage="4d6"),
    )


def test_dakrothian_marathon_needs_every_competitor_mounted() -> None:
    with pytest.raises(RulesError) as error:
        race(
            "dakrothian-marathon",
            runner("Ann", mount=races.Mount(strength_mod=4, speed=60)),
            runner("Bob"),
        )
    assert violation_locs(error) == [("competitors", 1, "mount")]


# --------------------------------------------------------------------------------------------
# The increment check
# --------------------------------------------------------------------------------------------


def test_plain_increment_adds_d20_modifier_speed_bonus_and_increment_modifier() -> None:
    # d20 11 + strength 3 + 2 x floor(35 / 10) = 6 + increment modifier -1 = 19.
    state, record = first_round(
        [Increment("strength", modifier=-1)],
        {"Ann": {"check": 11}},
        runner(speed=35, mods={"strength": 3}),
    )
    assert line(record) == {
        "gained": 19,
        "total": 19,
        "ds": 19,
        "standing": "racing",
        "events": [],
        "checks": [
            {
                "kind": "increment",
                "check": "strength",
                "roll": 11,
                "total": 19,
                "dc": None,
                "success": None,
            }
        ],
    }
    assert state.ds == {"Ann": 19}
    assert state.increment == 1


@pytest.mark.parametrize(
    ("check", "speeds", "expected_speed_bonus"),
    [
        ("swim", {"swim": 20, "land": 40}, 4),
        ("climb", {"climb": 10}, 2),
        ("strength", {"land": 40, "swim": 20}, 8),
        ("jump", {"land": 50}, 10),
        ("swim", {"land": 40}, 6),  # no swim speed: `speed` (30)
        ("strength", {}, 6),
    ],
)
def test_speed_bonus_uses_the_speed_for_that_movement(
    check: str, speeds: dict[str, int], expected_speed_bonus: int
) -> None:
    _, record = first_round(
        [Increment(check)], {"Ann": {"check": 10}}, runner(speed=30, speeds=speeds)
    )
    assert line(record)["total"] == 10 + expected_speed_bonus


@pytest.mark.parametrize(
    ("check", "feats", "pacing", "bonus"),
    [
        ("strength", ("run",), "normal", 2),
        ("swim", ("run",), "normal", 0),  # Run helps only foot-race (strength) checks
        ("strength", (), "sprint", 2),
        ("strength", (), "pace", -2),
        ("strength", ("run",), "sprint", 4),
        ("climb", (), "pace", -2),
    ],
)
def test_run_feat_and_pacing(
    check: str, feats: tuple[str, ...], pacing: races.Pacing, bonus: int
) -> None:
    _, record = first_round(
        [Increment(check)], {"Ann": {"check": 10}}, runner(speed=0, feats=feats, pacing=pacing)
    )
    assert line(record)["total"] == 10 + bonus


def test_mods_and_speeds_are_looked_up_by_the_check() -> None:
    _, record = first_round(
        [Increment("swim")],
        {"Ann": {"check": 10}},
        runner(speed=30, speeds={"swim": 20}, mods={"swim": 5}),
    )
    assert line(record)["total"] == 10 + 5 + 4


def test_speed_bonus_run_and_pacing_stay_off_obstacle_checks() -> None:
    # Obstacle: d20 8 + jump 2 + increment modifier 1 = 11 vs DC 12: fails (no speed, Run, sprint).
    _, record = first_round(
        [Increment("strength", modifier=1, obstacle=Obstacle("hazard", "jump", 12))],
        {"Ann": {"obstacle": [8]}},
        runner(speed=60, mods={"jump": 2}, feats=("run",), pacing="sprint"),
    )
    assert line(record)["checks"][0]["total"] == 11
    assert line(record)["events"] == ["hazard-failed"]


# --------------------------------------------------------------------------------------------
# Mounted increments
# --------------------------------------------------------------------------------------------

PACINGS: tuple[races.Pacing, ...] = ("normal", "sprint", "pace")
HORSE = races.Mount(name="Bucephalus", strength_mod=4, speed=60)
MOUNTED = Increment("strength", mounted=True)


@pytest.mark.parametrize(
    ("ride_mod", "bonus"), [(-1, 0), (0, 2), (9, 2), (10, 4), (19, 4), (20, 6), (35, 6)]
)
def test_ride_check_gives_the_mount_2_4_or_6(ride_mod: int, bonus: int) -> None:
    # Ride d20 10 + ride_mod, then the mount's check: d20 10 + Str 4 + 2 x floor(60 / 10) + bonus.
    rider = runner(speed=30, mods={"ride": ride_mod, "strength": 9}, feats=("run",), mount=HORSE)
    _, record = first_round([MOUNTED], {"Ann": {"ride": 10, "check": 10}}, rider)
    ride, check = line(record)["checks"]
    assert ride == {
        "kind": "ride",
        "check": "ride",
        "roll": 10,
        "total": 10 + ride_mod,
        "dc": None,
        "success": None,
    }
    # Neither the rider's Strength, her speed nor her Run feat count when mounted.
    assert check["total"] == 10 + 4 + 12 + bonus


def test_mounted_check_takes_pacing_and_increment_modifier() -> None:
    rider = runner(pacing="sprint", mount=HORSE)
    _, record = first_round(
        [Increment("strength", mounted=True, modifier=-3)],
        {"Ann": {"ride": 1, "check": 10}},
        rider,
    )
    assert line(record)["total"] == 10 + 4 + 12 + 2 - 3


def test_mounted_increment_without_a_mount_is_rejected_at_creation() -> None:
    with pytest.raises(RulesError) as error:
        race(
            [STRENGTH, MOUNTED],
            runner("Ann", mount=HORSE),
            runner("Bob"),
        )
    assert violation_locs(error) == [("competitors", 1, "mount")]


def test_mounted_increment_must_be_a_strength_check() -> None:
    with pytest.raises(RulesError) as error:
        race([Increment("swim", mounted=True)], runner(mount=HORSE))
    assert violation_locs(error) == [("course", "increments", 0, "check")]


# --------------------------------------------------------------------------------------------
# Increments with a DC
# --------------------------------------------------------------------------------------------

CLIMB = Increment("climb", dc=14, on_fail="retry")
SWIM = Increment("swim", dc=15, on_fail="stall")


def test_dc_check_passed_adds_its_total() -> None:
    _, record = first_round([CLIMB], {"Ann": {"check": 14}}, runner(speed=0))
    assert line(record)["gained"] == 14
    assert line(record)["checks"][0]["success"] is True


def test_failed_retry_check_retries_at_10_ds_and_adds_nothing() -> None:
    # 5 fails DC 14, retry 9 fails, retry 14 passes: two retries, -20 DS, no increment DS.
    state, record = first_round(
        [CLIMB], {"Ann": {"check": 5, "obstacle": [9, 14]}}, runner(speed=0)
    )
    assert line(record)["gained"] == -20
    assert line(record)["total"] == 5
    assert line(record)["events"] == ["check-failed", "retry", "check-failed", "retry"]
    assert [check["kind"] for check in line(record)["checks"]] == ["increment", "retry", "retry"]
    assert state.ds == {"Ann": -20}
    assert state.standing == {"Ann": "racing"}


def test_retries_repeat_the_increment_check_with_its_full_modifier() -> None:
    # Climb mod 2 + speed 20 (bonus 4): 7 + 6 = 13 fails DC 14; the retry 8 + 6 = 14 passes.
    _, record = first_round(
        [CLIMB], {"Ann": {"check": 7, "obstacle": [8]}}, runner(speed=20, mods={"climb": 2})
    )
    assert [check["total"] for check in line(record)["checks"]] == [13, 14]
    assert line(record)["gained"] == -10


def test_max_retries_failed_retries_forfeit() -> None:
    state, record = first_round(
        [CLIMB, CLIMB], {"Ann": {"check": 1, "obstacle": [2, 3]}}, runner(speed=0), max_retries=2
    )
    assert line(record)["gained"] == -20
    assert line(record)["standing"] == "forfeited"
    assert line(record)["events"][-1] == "forfeited"
    assert line(record)["events"].count("retry") == 2
    assert races.is_finished(state)  # nobody is racing any more
    assert races.winners(state) == ()
    assert state == races.State(
        increment=1,
        of=2,
        ds={"Ann": -20},
        standing={"Ann": "forfeited"},
        damage={"Ann": 0},
        flags={"Ann": ()},
    )


def test_max_retries_zero_forfeits_on_the_first_failure() -> None:
    _, record = first_round([CLIMB], {"Ann": {"check": 1}}, runner(speed=0), max_retries=0)
    assert line(record)["events"] == ["check-failed", "forfeited"]
    assert line(record)["gained"] == 0


def test_stall_adds_nothing_and_a_small_failure_does_not_drown() -> None:
    state, record = first_round([SWIM], {"Ann": {"check": 11}}, runner(speed=0))
    assert line(record)["gained"] == 0
    assert line(record)["total"] == 11
    assert line(record)["events"] == ["check-failed"]
    assert state.flags == {"Ann": ()}


def test_stall_failing_by_drown_margin_marks_drowning_once() -> None:
    config = race([SWIM, SWIM, SWIM], runner(speed=0))
    state = races.start(config, supplied({}))
    state, record = play(config, state, {"Ann": {"check": 10}})  # fails by exactly 5
    assert line(record)["events"] == ["check-failed", "drowning"]
    assert state.flags == {"Ann": ("drowning",)}
    state, record = play(config, state, {"Ann": {"check": 1}})
    assert line(record)["events"] == ["check-failed", "drowning"]
    assert state.flags == {"Ann": ("drowning",)}
    state, record = play(config, state, {"Ann": {"check": 20}})
    assert line(record)["gained"] == 20
    assert line(record)["standing"] == "racing"  # she stays in unless the GM removes her


def test_drown_margin_is_configurable() -> None:
    _, record = first_round(
        [replace(SWIM, drown_margin=2)], {"Ann": {"check": 13}}, runner(speed=0)
    )
    assert "drowning" in line(record)["events"]


def test_on_fail_without_dc_is_rejected() -> None:
    with pytest.raises(RulesError) as error:
        race([STRENGTH, Increment("swim", on_fail="stall")])
    assert violation_locs(error) == [("course", "increments", 1, "on_fail")]


# --------------------------------------------------------------------------------------------
# Obstacles and hazards
# --------------------------------------------------------------------------------------------

CANYON = Increment("strength", obstacle=Obstacle("obstacle", "jump", 15, retry=True, damage="3d6"))
WALL = Increment("strength", obstacle=Obstacle("obstacle", "climb", 15, damage="1d4+2"))
MARSH = Increment("strength", obstacle=Obstacle("hazard", "balance", 12))


def test_passed_obstacle_goes_on_as_usual() -> None:
    _, record = first_round([CANYON], {"Ann": {"obstacle": [15], "check": 10}}, runner(speed=0))
    assert line(record)["gained"] == 10
    assert line(record)["events"] == []
    assert [check["kind"] for check in line(record)["checks"]] == ["obstacle", "increment"]


def test_failed_obstacle_with_retry_takes_damage_on_each_failure() -> None:
    state, record = first_round(
        [CANYON],
        {"Ann": {"obstacle": [3, 4, 15], "damage": [1, 2, 3, 6, 6, 6]}},
        runner(speed=0),
    )
    assert line(record)["events"] == [
        "obstacle-failed",
        "damage 6",
        "retry",
        "obstacle-failed",
        "damage 18",
        "retry",
    ]
    assert line(record)["gained"] == -20
    assert line(record)["total"] is None  # no increment check after a retried obstacle
    assert state.damage == {"Ann": 24}
    assert state.ds == {"Ann": -20}


def test_obstacle_retries_exhausted_forfeit() -> None:
    state, record = first_round(
        [CANYON],
        {"Ann": {"obstacle": [1, 1], "damage": [1] * 6}},
        runner(speed=0),
        max_retries=1,
    )
    assert line(record)["events"] == [
        "obstacle-failed",
        "damage 3",
        "retry",
        "obstacle-failed",
        "damage 3",
        "forfeited",
    ]
    assert line(record)["gained"] == -10
    assert state.standing == {"Ann": "forfeited"}


def test_failed_obstacle_without_retry_forfeits() -> None:
    state, record = first_round(
        [WALL, STRENGTH],
        {"Ann": {"obstacle": [5], "damage": [4]}, "Bob": {"obstacle": [20], "check": 3}},
        runner("Ann", speed=0),
        runner("Bob", speed=0),
    )
    assert line(record, "Ann")["events"] == ["obstacle-failed", "damage 6", "forfeited"]
    assert line(record, "Ann")["standing"] == "forfeited"
    assert state.damage == {"Ann": 6, "Bob": 0}
    assert not races.is_finished(state)
    config = race([WALL, STRENGTH], runner("Ann", speed=0), runner("Bob", speed=0))
    state, record = play(config, state, {"Bob": {"check": 1}})
    assert line(record, "Ann") == {
        "gained": 0,
        "total": None,
        "ds": 0,
        "standing": "forfeited",
        "events": [],
        "checks": [],
    }
    assert record.finished
    assert record.winners == ("Bob",)  # Ann's DS 0 < Bob's 4, but she is out anyway


def test_forfeited_competitor_cannot_win_with_the_highest_ds() -> None:
    config = race([STRENGTH, WALL], runner("Ann", speed=0), runner("Bob", speed=0))
    state = races.start(config, supplied({}))
    state, _ = play(config, state, {"Ann": {"check": 20}, "Bob": {"check": 2}})
    state, record = play(
        config,
        state,
        {"Ann": {"obstacle": [1], "damage": [1]}, "Bob": {"obstacle": [15], "check": 1}},
    )
    assert state.ds == {"Ann": 20, "Bob": 3}
    assert record.winners == ("Bob",)


def test_taking_damage_rule_replaces_forfeit_and_retry() -> None:
    for obstacle in (WALL, CANYON):
        state, record = first_round(
            [obstacle],
            {"Ann": {"obstacle": [2], "damage": [3] * (1 if obstacle is WALL else 3), "check": 12}},
            runner(speed=0),
            damage_instead_of_forfeit=True,
        )
        assert line(record)["standing"] == "racing"
        assert line(record)["gained"] == 12  # she gains her increment check as usual
        assert "retry" not in line(record)["events"]
        assert state.damage["Ann"] in (5, 9)


def test_failed_hazard_adds_nothing_and_she_stays_in() -> None:
    state, record = first_round([MARSH], {"Ann": {"obstacle": [11]}}, runner(speed=0))
    assert line(record)["events"] == ["hazard-failed"]
    assert line(record)["gained"] == 0
    assert line(record)["total"] is None
    assert state.standing == {"Ann": "racing"}


def test_failed_hazard_with_damage() -> None:
    lake = Increment("strength", obstacle=Obstacle("hazard", "jump", 12, damage="3d6"))
    state, record = first_round(
        [lake], {"Ann": {"obstacle": [2], "damage": [6, 5, 4]}}, runner(speed=0)
    )
    assert line(record)["events"] == ["hazard-failed", "damage 15"]
    assert (line(record)["gained"], line(record)["total"]) == (0, None)
    assert state.damage == {"Ann": 15}


def test_taking_damage_covers_hazards_too() -> None:
    # Issue 12, point 3, both readings on the same dice: by default a failed hazard adds 0;
    # with damage_instead_of_forfeit it costs only its damage and the check is added as usual.
    lake = Increment("strength", obstacle=Obstacle("hazard", "jump", 12, damage="3d6"))
    rolls: Rolls = {"Ann": {"obstacle": [2], "damage": [6, 5, 4], "check": 9}}
    _, slowed = first_round([lake], {"Ann": {"obstacle": [2], "damage": [6, 5, 4]}}, runner())
    state, going_on = first_round([lake], rolls, runner(), damage_instead_of_forfeit=True)
    assert (line(slowed)["gained"], line(slowed)["total"]) == (0, None)
    assert line(going_on)["events"] == ["hazard-failed", "damage 15"]
    assert (line(going_on)["gained"], line(going_on)["total"]) == (15, 15)  # 9 + 6 speed bonus
    assert (state.ds, state.damage) == ({"Ann": 15}, {"Ann": 15})
    # a hazard without damage then costs nothing at all
    marsh = Increment("strength", obstacle=Obstacle("hazard", "balance", 12))
    _, free = first_round(
        [marsh], {"Ann": {"obstacle": [2], "check": 9}}, runner(), damage_instead_of_forfeit=True
    )
    assert (line(free)["events"], line(free)["gained"]) == (["hazard-failed"], 15)


def test_passed_hazard_goes_on() -> None:
    _, record = first_round([MARSH], {"Ann": {"obstacle": [12], "check": 7}}, runner(speed=0))
    assert line(record)["gained"] == 7


def test_negative_damage_counts_as_zero() -> None:
    scratch = Increment("strength", obstacle=Obstacle("hazard", "balance", 12, damage="1d4-5"))
    state, record = first_round(
        [scratch], {"Ann": {"obstacle": [1], "damage": [2]}}, runner(speed=0)
    )
    assert line(record)["events"] == ["hazard-failed", "damage 0"]
    assert state.damage == {"Ann": 0}


def test_hazard_with_retry_is_rejected() -> None:
    with pytest.raises(RulesError) as error:
        race([Increment("strength", obstacle=Obstacle("hazard", "balance", 12, retry=True))])
    assert violation_locs(error) == [("course", "increments", 0, "obstacle", "retry")]


def test_obstacle_before_a_dc_check_uses_the_obstacle_dice_in_order() -> None:
    # Obstacle 20 passes; climb check 3 fails DC 14; its retry takes the next obstacle die.
    mixed = replace(CLIMB, obstacle=Obstacle("obstacle", "jump", 10))
    _, record = first_round([mixed], {"Ann": {"obstacle": [20, 14], "check": 3}}, runner(speed=0))
    assert [check["kind"] for check in line(record)["checks"]] == ["obstacle", "increment", "retry"]
    assert line(record)["gained"] == -10


# --------------------------------------------------------------------------------------------
# Long races
# --------------------------------------------------------------------------------------------


def marathon_state(config: races.Config, done: int) -> races.State:
    state = races.start(config, supplied({}))
    return races.State(
        increment=done,
        of=state.of,
        ds=state.ds,
        standing=state.standing,
        damage=state.damage,
        flags=state.flags,
    )


@pytest.mark.parametrize(("pacing", "safe"), [("normal", 12), ("pace", 14), ("sprint", 10)])
def test_safe_increments_are_con_score_adjusted_by_pacing(pacing: races.Pacing, safe: int) -> None:
    config = race("marathon", runner(speed=0, con_score=12, con_mod=10, pacing=pacing))
    # The last safe increment: no Constitution die.
    _, record = play(config, marathon_state(config, safe - 1), {"Ann": {"check": 10}})
    assert [check["kind"] for check in line(record)["checks"]] == ["increment"]
    # The next one: a check against DC 2 x increments raced so far.
    _, record = play(
        config, marathon_state(config, safe), {"Ann": {"constitution": 20, "check": 10}}
    )
    constitution = line(record)["checks"][0]
    assert constitution["kind"] == "constitution"
    assert constitution["dc"] == 2 * safe
    assert constitution["total"] == 30
    assert line(record)["gained"] == 10 + races.PACING_BONUS[pacing]


def test_failed_constitution_check_rests() -> None:
    config = race("marathon", runner(speed=0, con_score=10, con_mod=3))
    state, record = play(config, marathon_state(config, 10), {"Ann": {"constitution": 16}})
    assert line(record) == {
        "gained": 0,
        "total": None,
        "ds": 0,
        "standing": "racing",
        "events": ["rested"],
        "checks": [
            {
                "kind": "constitution",
                "check": "constitution",
                "roll": 16,
                "total": 19,
                "dc": 20,
                "success": False,
            }
        ],
    }
    assert state.increment == 11


def test_passed_constitution_check_races_on() -> None:
    config = race("marathon", runner(speed=0, con_score=10, con_mod=3))
    _, record = play(config, marathon_state(config, 10), {"Ann": {"constitution": 17, "check": 9}})
    assert line(record)["gained"] == 9


def test_endurance_feat_adds_4_to_the_constitution_check() -> None:
    config = race("marathon", runner(speed=0, con_score=10, feats=("endurance",)))
    _, record = play(config, marathon_state(config, 10), {"Ann": {"constitution": 16, "check": 9}})
    assert line(record)["checks"][0]["total"] == 20
    assert line(record)["gained"] == 9


def test_pacing_changes_the_safe_count_not_con_mod() -> None:
    config = race("marathon", runner(speed=0, con_score=10, con_mod=0, pacing="pace"))
    _, record = play(config, marathon_state(config, 12), {"Ann": {"constitution": 20}})
    assert line(record)["checks"][0]["total"] == 20
    assert line(record)["checks"][0]["dc"] == 24
    assert line(record)["events"] == ["rested"]


def test_endurance_rule_off_or_no_con_score_means_no_checks() -> None:
    for config in (
        race("marathon", runner(speed=0, con_score=3), endurance_rule=False),
        race("marathon", runner(speed=0, con_mod=5)),
    ):
        _, record = play(config, marathon_state(config, 19), {"Ann": {"check": 4}})
        assert line(record)["gained"] == 4


def test_mount_checks_with_its_own_con_and_mounted_increments_only() -> None:
    horse = replace(HORSE, con_score=1, con_mod=0)
    course = [STRENGTH, STRENGTH, MOUNTED, MOUNTED]
    config = race(course, runner(speed=0, con_score=18, feats=("endurance",), mount=horse))
    state = marathon_state(config, 2)
    # Two foot increments raced, but the mount has raced none: safe (its Con 1 > 0).
    state, record = play(config, state, {"Ann": {"ride": 1, "check": 1}})
    assert [check["kind"] for check in line(record)["checks"]] == ["ride", "increment"]
    # One mounted increment raced = its Con score: DC 2 x 1, no Endurance bonus from the rider.
    _, record = play(config, state, {"Ann": {"constitution": 1}})
    assert line(record)["checks"][0] == {
        "kind": "constitution",
        "check": "constitution",
        "roll": 1,
        "total": 1,
        "dc": 2,
        "success": False,
    }
    assert line(record)["events"] == ["rested"]


def test_non_living_mount_never_checks() -> None:
    golem = replace(HORSE, con_score=0, living=False)
    config = race([MOUNTED] * 3, runner(speed=0, mount=golem))
    _, record = play(config, marathon_state(config, 2), {"Ann": {"ride": 1, "check": 1}})
    assert "constitution" not in [check["kind"] for check in line(record)["checks"]]


def test_rider_counts_every_increment_raced_on_foot() -> None:
    config = race(
        [MOUNTED, STRENGTH, STRENGTH],
        runner(speed=0, con_score=2, con_mod=0, mount=HORSE),
    )
    _, record = play(config, marathon_state(config, 2), {"Ann": {"constitution": 4, "check": 1}})
    assert line(record)["checks"][0]["dc"] == 4


# --------------------------------------------------------------------------------------------
# Winners, phases, the record
# --------------------------------------------------------------------------------------------


def test_dash_winner_and_tie() -> None:
    config = race("dash", runner("Ann", speed=0), runner("Bob", speed=0), runner("Cid", speed=0))
    state = races.start(config, supplied({}))
    state, record = play(
        config, state, {"Ann": {"check": 10}, "Bob": {"check": 12}, "Cid": {"check": 3}}
    )
    assert not record.finished
    assert record.winners == ()
    assert not races.is_finished(state)
    state, record = play(
        config, state, {"Ann": {"check": 15}, "Bob": {"check": 13}, "Cid": {"check": 20}}
    )
    assert record.finished
    assert record.winners == ("Ann", "Bob")
    assert races.is_finished(state)
    assert races.winners(state) == ("Ann", "Bob")  # a tie
    assert state == races.State(
        increment=2,
        of=2,
        ds={"Ann": 25, "Bob": 25, "Cid": 23},
        standing={"Ann": "racing", "Bob": "racing", "Cid": "racing"},
        damage={"Ann": 0, "Bob": 0, "Cid": 0},
        flags={"Ann": (), "Bob": (), "Cid": ()},
    )
    with pytest.raises(PhaseError):
        races.play_round(config, state, supplied({}))


def test_round_record_and_summary() -> None:
    config = race("dash", runner("Ann", speed=0), runner("Bob", speed=0))
    state = races.start(config, supplied({}))
    state, record = play(config, state, {"Ann": {"check": 10}, "Bob": {"check": 12}})
    assert {field.name for field in fields(record)} == {
        "increment",
        "competitors",
        "finished",
        "winners",
    }
    assert set(line(record, "Ann")) >= {"gained", "total", "ds", "standing", "events"}
    assert races.round_summary(config, state, record) == (
        "Increment 1/2 (strength): Ann +10 (DS 10); Bob +12 (DS 12)."
    )
    state, record = play(config, state, {"Ann": {"check": 20}, "Bob": {"check": 1}})
    assert races.round_summary(config, state, record) == (
        "Increment 2/2 (strength): Ann +20 (DS 30); Bob +1 (DS 13). Ann wins the race with DS 30."
    )


def test_summary_shows_events_and_ties() -> None:
    config = race([CANYON], runner("Ann", speed=0), runner("Bob", speed=0))
    state, record = play(
        config,
        races.start(config, supplied({})),
        {
            "Ann": {"obstacle": [1, 20], "damage": [1, 1, 1]},
            "Bob": {"obstacle": [1, 20], "damage": [2, 2, 2]},
        },
    )
    assert races.round_summary(config, state, record) == (
        "Increment 1/1 (strength, obstacle jump DC 15): "
        "Ann -10 [obstacle-failed, damage 3, retry] (DS -10); "
        "Bob -10 [obstacle-failed, damage 6, retry] (DS -10). Tie between Ann and Bob at DS -10."
    )


def test_uses_server_dice_when_none_are_supplied() -> None:
    config = race("typical", runner("Ann"), runner("Bob"))
    state = races.start(config, supplied({}))
    dice = Dice(SeededRng(7), notation=fake_notation)
    while not races.is_finished(state):
        state, _ = races.play_round(config, state, dice)
    assert state.increment == 10
    assert [entry.purpose for entry in dice.log] == ["check"] * 20
    assert all(entry.source == "rolled" for entry in dice.log)


def test_a_seeded_dakrothian_marathon_runs_to_the_end() -> None:
    horse = races.Mount(strength_mod=5, speed=60, con_score=15)
    config = race(
        "dakrothian-marathon",
        *(
            runner(
                f"Racer {index}",
                speed=30,
                mods={"strength": 2, "climb": 4, "swim": 3, "jump": 3, "balance": 1, "ride": 5},
                con_score=12 + index,
                feats=("endurance",) if index % 2 else ("run",),
                pacing=PACINGS[index % 3],
                mount=horse,
            )
            for index in range(6)
        ),
    )
    state = races.start(config, supplied({}))
    dice = Dice(SeededRng(2024), notation=fake_notation)
    played = 0
    while not races.is_finished(state):
        state, record = races.play_round(config, state, dice)
        played += 1
    assert played == 20 or not any(s == "racing" for s in state.standing.values())
    assert record.finished
    assert {entry.purpose for entry in dice.log} <= {
        "check",
        "obstacle",
        "constitution",
        "ride",
        "damage",
    }
    assert {entry.who for entry in dice.log} <= {f"Racer {index}" for index in range(6)}
    assert races.is_finished(state)


# --------------------------------------------------------------------------------------------
# Creation
# --------------------------------------------------------------------------------------------


def test_config_round_trips_and_spells_out_the_course() -> None:
    config = race(
        [CLIMB, MARSH],
        runner(
            "Ann",
            con_score=15,
            con_mod=2,
            mount=races.Mount(strength_mod=2, speed=50, con_score=13, con_mod=1),
        ),
    )
    body = serial.dump(config)
    assert body["damage_instead_of_forfeit"] is False
    assert body["endurance_rule"] is True
    assert body["max_retries"] == 5
    assert body["competitors"][0]["con_mod"] == 2
    assert body["competitors"][0]["pacing"] == "normal"
    assert body["competitors"][0]["speeds"] == {}
    assert body["competitors"][0]["mount"] == {
        "name": None,
        "strength_mod": 2,
        "speed": 50,
        "con_score": 13,
        "con_mod": 1,
        "living": True,
    }
    assert body["increments"][0] == {
        "check": "climb",
        "dc": 14,
        "on_fail": "retry",
        "drown_margin": 5,
        "modifier": 0,
        "mounted": False,
        "obstacle": None,
    }
    assert body["course"] == {"increments": body["increments"]}
    assert serial.load(races.Config, body) == config
    preset = race("dakrothian-marathon", runner(mount=HORSE))
    preset_body = serial.dump(preset)
    assert preset_body["course"] == "dakrothian-marathon"
    assert len(preset_body["increments"]) == 20
    assert serial.load(races.Config, preset_body) == preset
    assert serial.load(races.Config, preset_body).preset == "dakrothian-marathon"


def test_state_round_trips_as_the_api_shape() -> None:
    config = race([Increment("swim", dc=15, on_fail="stall")], runner("Ann", speed=0))
    state, _ = play(config, races.start(config, supplied({})), {"Ann": {"check": 1}})
    body = serial.dump(state)
    assert body == {
        "increment": 1,
        "of": 1,
        "ds": {"Ann": 0},
        "standing": {"Ann": "racing"},
        "damage": {"Ann": 0},
        "flags": {"Ann": ["drowning"]},
        "pacing": {},
    }
    assert serial.load(races.State, body) == state


@pytest.mark.parametrize(
    ("course", "competitors", "loc"),
    [
        ([STRENGTH], (runner("Ann"), runner("Ann")), ("competitors", 1, "name")),
        (
            [STRENGTH, Increment("swim", on_fail="stall")],
            (runner(),),
            ("course", "increments", 1, "on_fail"),
        ),
        (
            [Increment("climb", mounted=True)],
            (runner(mount=HORSE),),
            ("course", "increments", 0, "check"),
        ),
        (
            [Increment("strength", obstacle=Obstacle("hazard", "jump", 3, retry=True))],
            (runner(),),
            ("course", "increments", 0, "obstacle", "retry"),
        ),
        ([MOUNTED], (runner(mount=HORSE), runner("Bob")), ("competitors", 1, "mount")),
    ],
)
def test_rule_violations_are_reported_where_they_are(
    course: list[races.Increment],
    competitors: tuple[races.Competitor, ...],
    loc: tuple[str | int, ...],
) -> None:
    with pytest.raises(RulesError) as error:
        race(course, *competitors)
    assert loc in violation_locs(error)


def test_every_violation_is_listed_at_once() -> None:
    with pytest.raises(RulesError) as error:
        race(
            [Increment("swim", on_fail="stall"), Increment("swim", mounted=True)],
            runner(),
            runner(),
        )
    assert violation_locs(error) == [
        ("course", "increments", 0, "on_fail"),
        ("course", "increments", 1, "check"),
        ("competitors", 1, "name"),
        ("competitors", 0, "mount"),
        ("competitors", 1, "mount"),
    ]


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

checks = st.sampled_from(["strength", "swim", "climb", "jump", "balance"])
obstacles = st.one_of(
    st.none(),
    st.builds(
        Obstacle,
        kind=st.just("obstacle"),
        check=checks,
        dc=st.integers(5, 25),
        retry=st.booleans(),
        damage=st.sampled_from(["1d6", "2d4+1", None]),
    ),
    st.builds(
        Obstacle,
        kind=st.just("hazard"),
        check=checks,
        dc=st.integers(5, 25),
        damage=st.sampled_from(["1d6", None]),
    ),
)
increments = st.builds(
    lambda check, dc, on_fail, modifier, mounted, obstacle: Increment(
        check="strength" if mounted else check,
        dc=dc,
        on_fail=on_fail if dc is not None else None,
        modifier=modifier,
        mounted=mounted,
        obstacle=obstacle,
    ),
    checks,
    st.one_of(st.none(), st.integers(5, 25)),
    st.sampled_from(["retry", "stall"]),
    st.integers(-3, 3),
    st.booleans(),
    obstacles,
)
competitor_bodies = st.fixed_dictionaries(
    {
        "speed": st.integers(0, 60),
        "mods": st.dictionaries(checks, st.integers(-5, 10), max_size=5),
        "con_score": st.one_of(st.none(), st.integers(1, 20)),
        "feats": st.lists(st.sampled_from(["run", "endurance"]), unique=True).map(tuple),
        "pacing": st.sampled_from(PACINGS),
        "mount": st.builds(
            races.Mount,
            strength_mod=st.integers(-2, 8),
            speed=st.integers(0, 80),
            con_score=st.one_of(st.none(), st.integers(1, 20)),
            living=st.booleans(),
        ),
    }
)


@settings(max_examples=150, deadline=None)
@given(
    course=st.lists(increments, min_size=1, max_size=12),
    bodies=st.lists(competitor_bodies, min_size=1, max_size=4),
    seed=st.integers(0, 2**63 - 1),
    damage_instead_of_forfeit=st.booleans(),
    max_retries=st.integers(0, 5),
)
def test_a_race_always_finishes_and_ds_adds_up(
    course: list[races.Increment],
    bodies: list[dict[str, Any]],
    seed: int,
    damage_instead_of_forfeit: bool,
    max_retries: int,
) -> None:
    competitors = [runner(f"R{index}", **body) for index, body in enumerate(bodies)]
    config = race(
        course,
        *competitors,
        damage_instead_of_forfeit=damage_instead_of_forfeit,
        max_retries=max_retries,
    )
    state = races.start(config, supplied({}))
    dice = Dice(SeededRng(seed), notation=fake_notation)
    gained_total = dict.fromkeys(state.ds, 0)
    rounds = 0
    while not races.is_finished(state):
        before = state
        state, record = races.play_round(config, state, dice)
        rounds += 1
        for name in state.ds:
            entry = line(record, name)
            assert state.ds[name] == before.ds[name] + entry["gained"]
            gained_total[name] += entry["gained"]
            if before.standing[name] == "forfeited":
                assert entry["gained"] == 0
                assert entry["checks"] == []
            # A competitor adds her check's total, or 0 less 10 DS per retry.
            assert entry["gained"] == entry["total"] or (
                entry["gained"] % races.RETRY_COST == 0
                and -races.RETRY_COST * max_retries <= entry["gained"] <= 0
            )
            if damage_instead_of_forfeit and "forfeited" in entry["events"]:
                # Taking damage replaces forfeits at obstacles; failed DC retries still forfeit.
                assert "check-failed" in entry["events"]
    assert rounds <= len(course)
    assert state.ds == gained_total
    assert sum(state.ds.values()) == sum(gained_total.values())
    won = races.winners(state)
    racing = [name for name, standing in state.standing.items() if standing == "racing"]
    if racing:
        assert won
        assert all(state.ds[name] == max(state.ds[r] for r in racing) for name in won)
    else:
        assert won == ()


names = st.sampled_from(["Ann", "Bob", "Cid"])
any_increments = st.builds(
    Increment,
    check=checks,
    dc=st.one_of(st.none(), st.integers(0, 30)),
    on_fail=st.sampled_from(["retry", "stall", None]),
    mounted=st.booleans(),
    obstacle=st.one_of(
        st.none(),
        st.builds(
            Obstacle,
            kind=st.sampled_from(["obstacle", "hazard"]),
            check=checks,
            dc=st.integers(0, 30),
            retry=st.booleans(),
        ),
    ),
)


@settings(max_examples=200, deadline=None)
@given(
    course=st.one_of(
        st.sampled_from(list(races.PRESETS)),
        st.lists(any_increments, min_size=1, max_size=4),
    ),
    competitors=st.lists(
        st.builds(
            races.Competitor,
            name=names,
            speed=st.integers(0, 60),
            mount=st.one_of(
                st.none(), st.builds(races.Mount, strength_mod=st.just(1), speed=st.just(40))
            ),
        ),
        min_size=1,
        max_size=3,
    ),
    max_retries=st.integers(0, 100),
    endurance_rule=st.booleans(),
)
def test_checking_a_config_either_passes_or_lists_violations(
    course: races.Preset | list[races.Increment],
    competitors: list[races.Competitor],
    max_retries: int,
    endurance_rule: bool,
) -> None:
    config = races.Config(
        course=course if isinstance(course, str) else races.Course(tuple(course)),
        competitors=tuple(competitors),
        max_retries=max_retries,
        endurance_rule=endurance_rule,
    )
    try:
        races.check_config(config)
    except RulesError as error:
        violations = error.violations
        assert violations
        assert all(violation.msg for violation in violations)
    else:
        assert serial.load(races.Config, serial.dump(config)) == config


# --------------------------------------------------------------------------------------------
# Options where the source reads two ways (module docstring, *Options*)
# --------------------------------------------------------------------------------------------


def test_options_default_to_the_old_readings() -> None:
    config = race([STRENGTH])
    assert (config.speed_bonus, config.pacing_rule, config.max_retries) == (
        "increment",
        "safe-increments",
        5,
    )
    assert (config.damage_instead_of_forfeit, config.endurance_rule) == (False, True)


def test_speed_bonus_on_every_roll() -> None:
    # Speed 30: +6. The same dice, both readings: the obstacle (Jump +0, DC 12) and the check.
    wall = Increment("strength", obstacle=Obstacle("obstacle", "jump", 12))
    rolls: Rolls = {"Ann": {"obstacle": [8], "check": 10}}
    _, increment_only = first_round([wall], {"Ann": {"obstacle": [8]}}, runner())
    assert line(increment_only)["events"] == ["obstacle-failed", "forfeited"]
    assert line(increment_only)["checks"][0]["total"] == 8
    _, every_roll = first_round([wall], rolls, runner(), speed_bonus="every-roll")
    assert line(every_roll)["checks"][0]["total"] == 14  # 8 + 6 passes DC 12
    assert (line(every_roll)["gained"], line(every_roll)["standing"]) == (16, "racing")


def test_speed_bonus_on_every_roll_reaches_hazard_ride_and_constitution_checks() -> None:
    # A swim increment moves at the swim speed (20: +4), its hazard and Constitution check too.
    rough = Increment("swim", obstacle=Obstacle("hazard", "swim", 15))
    swimmer = runner(speed=30, speeds={"swim": 20}, con_score=0)  # checks before increment 1
    rolls: Rolls = {"Ann": {"constitution": 1, "obstacle": [11], "check": 10}}
    _, plain = first_round([rough], {"Ann": {"constitution": 1}}, swimmer)
    assert line(plain)["events"] == ["rested"]  # Con 0 (-5): 1 - 5 fails DC 0
    _, every = first_round([rough], rolls, swimmer, speed_bonus="every-roll")
    constitution, hazard, check = line(every)["checks"]
    assert (constitution["total"], constitution["success"]) == (1 - 5 + 4, True)
    assert (hazard["total"], hazard["success"]) == (15, True)
    assert check["total"] == 14
    # Mounted: the Ride check gets the mount's speed bonus (60 ft: +12), as does its check.
    horse = races.Mount(strength_mod=3, speed=60)
    mounted = Increment("strength", mounted=True)
    rider = runner(mods={"ride": 0}, mount=horse)
    rolls = {"Ann": {"ride": 9, "check": 5}}
    _, ride_plain = first_round([mounted], rolls, rider)
    _, ride_every = first_round([mounted], rolls, rider, speed_bonus="every-roll")
    assert [c["total"] for c in line(ride_plain)["checks"]] == [9, 5 + 3 + 12]  # no Ride bonus
    assert [c["total"] for c in line(ride_every)["checks"]] == [21, 5 + 3 + 12 + 4]


def test_pacing_changes_the_constitution_score() -> None:
    # Con 12 (+1), pacing: safe-increments gives 14 safe increments at +1; the score reading
    # gives Con 14, so 14 safe increments at +2. Sprinting: 10 safe at +1, or Con 10 at +0.
    course = [STRENGTH] * 16
    for pacing, rule, safe, modifier in (
        ("pace", "safe-increments", 14, 1),
        ("pace", "constitution-score", 14, 2),
        ("sprint", "safe-increments", 10, 1),
        ("sprint", "constitution-score", 10, 0),
    ):
        config = race(course, runner(con_score=12, pacing=pacing), pacing_rule=rule)
        state = races.start(config, supplied({}))
        for _ in range(safe):
            state, _ = play(config, state, {"Ann": {"check": 10}})
        _, record = play(config, state, {"Ann": {"constitution": 10}})
        (constitution,) = line(record)["checks"]
        assert (constitution["kind"], constitution["total"]) == ("constitution", 10 + modifier)
        assert (constitution["dc"], line(record)["events"]) == (2 * safe, ["rested"])


def test_pacing_constitution_score_changes_who_rests_on_the_same_dice() -> None:
    # Con 10 sprinting: 8 safe increments either way; the 9th check is DC 16 with a 16 rolled:
    # +0 passes under safe-increments, -1 (Con 8) fails under constitution-score.
    course = [STRENGTH] * 9
    outcomes = []
    for rule in ("safe-increments", "constitution-score"):
        config = race(course, runner(con_score=10, pacing="sprint"), pacing_rule=rule)
        state = races.start(config, supplied({}))
        for _ in range(8):
            state, _ = play(config, state, {"Ann": {"check": 10}})
        rolls: Rolls = {"Ann": {"constitution": 16, "check": 10}}
        if rule == "constitution-score":
            rolls = {"Ann": {"constitution": 16}}
        _, record = play(config, state, rolls)
        outcomes.append(line(record)["events"])
    assert outcomes == [[], ["rested"]]


def test_pacing_constitution_score_changes_the_mount_too() -> None:
    horse = races.Mount(strength_mod=3, speed=40, con_score=2)
    rider = runner(mount=horse, pacing="pace")
    mounted = Increment("strength", mounted=True)
    config = race([mounted] * 5, rider, pacing_rule="constitution-score")
    state = races.start(config, supplied({}))
    for _ in range(4):  # Con 2 + 2 = 4 safe mounted increments
        state, _ = play(config, state, {"Ann": {"ride": 1, "check": 10}})
    _, record = play(config, state, {"Ann": {"constitution": 10}})
    constitution = line(record)["checks"][0]
    assert (constitution["total"], constitution["dc"]) == (10 - 3, 8)  # Con 4: -3, so rests
    assert line(record)["events"] == ["rested"]


def test_max_retries_null_retries_until_one_passes() -> None:
    # Seven failed retries, then a pass: the default cap of 5 forfeits on the same dice.
    wall = Increment("strength", obstacle=Obstacle("obstacle", "climb", 15, retry=True))
    dice = [1] * 6 + [15]
    _, capped = first_round([wall], {"Ann": {"obstacle": dice[:6]}}, runner())
    assert line(capped)["standing"] == "forfeited"
    state, uncapped = first_round([wall], {"Ann": {"obstacle": dice}}, runner(), max_retries=None)
    assert line(uncapped)["events"].count("retry") == 6
    assert (line(uncapped)["gained"], line(uncapped)["standing"]) == (-60, "racing")
    assert state.ds == {"Ann": -60}


class _AlwaysOne:
    """An `Rng` rolling 1 on every die: a retry that could pass but never does."""

    def die(self, sides: int) -> int:
        del sides
        return 1


def test_max_retries_null_is_bounded_by_the_dice_budget() -> None:
    from app.rules.dice import DiceBudget, WorkLimitExceeded

    # DC 15 with +0 can pass (on 15 or more), so the retries go on until the budget stops them.
    wall = Increment("strength", obstacle=Obstacle("obstacle", "climb", 15, retry=True))
    config = race([wall], runner(speed=0), max_retries=None)
    budget = DiceBudget(1_000)
    dice = Dice(_AlwaysOne(), budget=budget)
    with pytest.raises(WorkLimitExceeded, match="more than 1,000 dice"):
        races.play_round(config, races.start(config, dice), dice)
    assert budget.left < 0


def test_an_uncapped_retry_no_die_can_pass_forfeits_at_once() -> None:
    # DC 25 with +0: even a natural 20 gives 20, so no retry is tried and she forfeits.
    wall = Increment("strength", obstacle=Obstacle("obstacle", "climb", 25, retry=True))
    config = race(
        [wall, STRENGTH], runner("Ann", speed=0), runner("Bob", speed=0), max_retries=None
    )
    state, record = play(
        config,
        races.start(config, supplied({})),
        {"Ann": {"obstacle": 20}, "Bob": {"obstacle": 20}},
    )
    assert line(record)["events"] == ["obstacle-failed", "impassable", "forfeited"]
    assert (line(record)["gained"], line(record)["standing"]) == (0, "forfeited")
    assert [check["total"] for check in line(record)["checks"]] == [20]
    assert races.is_finished(state)
    assert "Ann forfeited [obstacle-failed, impassable] (DS 0)" in races.round_summary(
        config, state, record
    )


def test_an_impassable_retry_ends_one_racer_and_the_race_goes_on() -> None:
    # Ann (climb +0) cannot reach DC 21; Bob (climb +1) can, on a natural 20, after retries.
    wall = Increment("strength", obstacle=Obstacle("obstacle", "climb", 21, retry=True))
    bob = runner("Bob", speed=0, mods={"climb": 1})
    config = race([wall, STRENGTH], runner("Ann", speed=0), bob, max_retries=None)
    state, record = play(
        config,
        races.start(config, supplied({})),
        {"Ann": {"obstacle": 7}, "Bob": {"obstacle": [3, 19, 20]}},
    )
    assert line(record, "Bob")["events"] == [
        "obstacle-failed", "retry", "obstacle-failed", "retry",
    ]  # fmt: skip
    assert state.standing == {"Ann": "forfeited", "Bob": "racing"}
    assert state.ds == {"Ann": 0, "Bob": -20}
    state, record = play(config, state, {"Bob": {"check": 12}})
    assert races.is_finished(state)
    assert races.winners(state) == ("Bob",)
    assert state.ds == {"Ann": 0, "Bob": -8}


def test_an_impassable_dc_check_with_uncapped_retries_forfeits_at_once() -> None:
    # A climbing increment's own DC (on_fail retry): check 20 + 0 can never reach DC 22.
    cliff = Increment("climb", dc=22, on_fail="retry")
    _, record = first_round([cliff], {"Ann": {"check": 20}}, runner(speed=0), max_retries=None)
    assert line(record)["events"] == ["check-failed", "impassable", "forfeited"]
    assert line(record)["standing"] == "forfeited"


def test_a_capped_retry_is_rolled_even_when_no_die_can_pass() -> None:
    wall = Increment("strength", obstacle=Obstacle("obstacle", "climb", 25, retry=True))
    _, record = first_round([wall], {"Ann": {"obstacle": [20, 20]}}, runner(), max_retries=1)
    assert line(record)["events"] == [
        "obstacle-failed", "retry", "obstacle-failed", "forfeited",
    ]  # fmt: skip
    assert line(record)["gained"] == -10


def test_options_round_trip_through_the_stored_config() -> None:
    config = race(
        [STRENGTH],
        max_retries=None,
        speed_bonus="every-roll",
        pacing_rule="constitution-score",
        damage_instead_of_forfeit=True,
    )
    dumped = serial.dump(config)
    assert (dumped["max_retries"], dumped["speed_bonus"], dumped["pacing_rule"]) == (
        None,
        "every-roll",
        "constitution-score",
    )
    assert serial.load(races.Config, dumped) == config
    # a config stored before the options existed loads with today's readings
    old = {key: value for key, value in dumped.items() if key not in ("speed_bonus", "pacing_rule")}
    loaded = serial.load(races.Config, {**old, "max_retries": 5})
    assert (loaded.speed_bonus, loaded.pacing_rule, loaded.max_retries) == (
        "increment",
        "safe-increments",
        5,
    )
