"""Chases (docs/rules.md#chases): the Ralf example, starts, tactics, ends, endurance, properties."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.rules import chases, serial
from app.rules.dice import Dice, SeededRng
from app.rules.errors import PhaseError, RulesError
from app.rules.races import Competitor, Increment, Mount, Obstacle, Pacing
from tests.helpers import Rolls, fake_notation, supplied

RALF = Competitor(
    "Ralf", speed=30, mods={"strength": 1, "dexterity": 3, "hide": 5, "initiative": 2}
)
GUARD = Competitor("guard", speed=30, mods={"strength": 2, "balance": 2, "spot": 1, "tumble": 6})
STREET = chases.Terrain(Increment("strength"))
FIELD = chases.Terrain(Increment("strength"), flat=True)
HIDE = chases.Hide()


def checked(config: chases.Config) -> chases.Config:
    """`config`, checked as creating a chase checks it."""
    chases.check_config(config)
    return config


def chase(
    lead: int = 12,
    escapee: Competitor | None = None,
    chaser: Competitor | None = None,
    **options: Any,
) -> chases.Config:
    return checked(
        chases.Config(
            escapee=escapee or RALF,
            chaser=chaser or GUARD,
            start=chases.LeadStart(lead=lead),
            **options,
        )
    )


def begin(config: chases.Config) -> chases.State:
    return chases.start(config, supplied({}))


def at(config: chases.Config, lead: int, increments: int = 0) -> chases.State:
    """A chase in progress: the given lead, `increments` played."""
    return chases.State(
        lead=lead,
        ds={config.escapee.name: lead, config.chaser.name: 0},
        increments=increments,
    )


def play(
    config: chases.Config,
    state: chases.State,
    terrain: chases.Terrain | Increment,
    tactic: chases.Tactic | None,
    rolls: Rolls,
) -> tuple[chases.State, chases.Round]:
    if isinstance(terrain, Increment):
        terrain = chases.Terrain(terrain)
    dice = supplied(rolls)
    new_state, record = chases.play_round(config, state, chases.RoundInput(terrain, tactic), dice)
    dice.require_all_used()
    return new_state, record


def tactic(record: chases.Round) -> chases.TacticRecord:
    assert record.tactic is not None
    return record.tactic


def hazard(penalty: int, chaser_check: str = "balance") -> chases.CreateHazard:
    return chases.CreateHazard(penalty=penalty, chaser_check=chaser_check)


def violation_locs(error: pytest.ExceptionInfo[RulesError]) -> list[tuple[str | int, ...]]:
    return [violation.loc for violation in error.value.violations]


# --------------------------------------------------------------------------------------------
# The worked example
# --------------------------------------------------------------------------------------------


def test_ralf_escapes_the_city_guard() -> None:
    """The worked example of docs/rules.md#chase-increments, with `hazard_base_cost: 0`."""
    config = chase(lead=12, hazard_base_cost=0)
    state = begin(config)
    assert state == chases.State(lead=12, ds={"Ralf": 12, "guard": 0}, status_detail=None)
    # A -4 hazard: lead 8 at once; Dexterity 17 + 3 - 4 = 16 >= 14 creates it; the guard's
    # Balance 9 + 2 = 11 fails DC 14, so he adds 0; Ralf's Strength check 5 + 1 + 6 = 12.
    state, record = play(
        config,
        state,
        STREET,
        hazard(4),
        {"Ralf": {"dexterity": 17, "check": 5}, "guard": {"hazard": 9}},
    )
    assert record.lead_before == 12
    assert record.tactic == chases.TacticRecord(
        "hazard",
        success=True,
        cost=4,
        penalty=4,
        created=True,
        escapee_total=16,
        chaser_total=11,
        chaser_check="balance",
        dc=14,
    )
    assert record.gains == {"Ralf": 12, "guard": 0}
    assert record.lead == 20
    assert record.finished is False
    assert record.outcome is None
    assert (state.lead, state.ds, state.status_detail) == (20, {"Ralf": 20, "guard": 0}, None)
    # With that lead, and terrain that is not flat, Hide beats Spot: the chase is over.
    state, record = play(config, state, STREET, HIDE, {"Ralf": {"hide": 15}, "guard": {"spot": 10}})
    assert record.tactic == chases.TacticRecord(
        "hide", success=True, escapee_total=20, chaser_total=11
    )
    assert record.gains == {"Ralf": 0, "guard": 0}
    assert record.lead == 20
    assert record.finished is True
    assert record.outcome == "hid"
    assert state.status_detail == "hid"
    assert chases.is_finished(state)
    assert chases.winner(config, state) == "Ralf"
    assert state == chases.State(
        lead=20, ds={"Ralf": 20, "guard": 0}, status_detail="hid", increments=2
    )


def test_ralf_summaries() -> None:
    config = chase(lead=12, hazard_base_cost=0)
    state = begin(config)
    round_input = chases.RoundInput(STREET, hazard(4))
    state, record = chases.play_round(
        config,
        state,
        round_input,
        supplied({"Ralf": {"dexterity": 17, "check": 5}, "guard": {"hazard": 9}}),
    )
    assert chases.round_summary(config, state, record) == (
        "Increment 1 (strength): Ralf pays 4 DS for a hazard (Dexterity 16 vs 14, created; "
        "guard fails balance 11 vs DC 14); Ralf +12, guard +0 (held up); lead 12 -> 20."
    )
    hide = chases.RoundInput(STREET, HIDE)
    state, record = chases.play_round(
        config, state, hide, supplied({"Ralf": {"hide": 15}, "guard": {"spot": 10}})
    )
    assert chases.round_summary(config, state, record) == (
        "Increment 2 (strength): Ralf hides from guard (Hide 20 vs Spot 11); lead 20 -> 20. "
        "Ralf escapes by hiding."
    )


# --------------------------------------------------------------------------------------------
# Starts
# --------------------------------------------------------------------------------------------


def test_initiative_start_rolls_the_escapees_initiative() -> None:
    config = checked(chases.Config(RALF, GUARD, chases.InitiativeStart()))
    dice = supplied({"Ralf": {"initiative": 7}})
    state = chases.start(config, dice)
    dice.require_all_used()
    assert state.lead == 9
    assert state.ds == {"Ralf": 9, "guard": 0}
    assert [(entry.who, entry.purpose) for entry in dice.log] == [("Ralf", "initiative")]


def test_initiative_start_without_a_lead_is_rejected() -> None:
    slow = replace(RALF, mods={"initiative": -5})
    config = checked(chases.Config(slow, GUARD, chases.InitiativeStart()))
    with pytest.raises(RulesError) as error:
        chases.start(config, supplied({"Ralf": {"initiative": 5}}))
    assert violation_locs(error) == [("start", "mode")]
    hopeless = replace(RALF, mods={"initiative": -20})
    with pytest.raises(RulesError) as error:
        checked(chases.Config(hopeless, GUARD, chases.InitiativeStart()))
    assert violation_locs(error) == [("start", "mode")]


def test_distance_start_is_5_per_increment() -> None:
    config = checked(chases.Config(RALF, GUARD, chases.DistanceStart(increments=3)))
    assert begin(config).lead == 15
    assert not chases.rolls_initiative(config.start)


def test_distance_start_with_initiative_adds_the_initiative_check() -> None:
    # Ralf's initiative +2 rolls 7 (9), increased by 5 x 3 increments: a lead of 24.
    start = chases.DistanceStart(increments=3, with_initiative=True)
    config = checked(chases.Config(RALF, GUARD, start))
    assert chases.rolls_initiative(config.start)
    dice = supplied({"Ralf": {"initiative": 7}})
    state = chases.start(config, dice)
    dice.require_all_used()
    assert (state.lead, state.ds) == (24, {"Ralf": 24, "guard": 0})
    # A lead that reaches 30 has escaped already: 20 + 2 + 15.
    escaped = chases.start(config, supplied({"Ralf": {"initiative": 20}}))
    assert (escaped.lead, escaped.status_detail) == (37, "escaped")


def test_distance_start_with_initiative_without_a_lead_is_rejected() -> None:
    slow = replace(RALF, mods={"initiative": -12})
    start = chases.DistanceStart(increments=1, with_initiative=True)
    config = checked(chases.Config(slow, GUARD, start))
    with pytest.raises(RulesError) as error:
        chases.start(config, supplied({"Ralf": {"initiative": 2}}))  # 2 - 12 + 5 = -5
    assert violation_locs(error) == [("start", "with_initiative")]
    hopeless = replace(RALF, mods={"initiative": -30})
    with pytest.raises(RulesError) as error:
        checked(chases.Config(hopeless, GUARD, start))
    assert violation_locs(error) == [("start", "with_initiative")]


@pytest.mark.parametrize(
    ("start", "loc"),
    [
        (chases.LeadStart(lead=0), ("start", "lead")),
        (chases.LeadStart(lead=-4), ("start", "lead")),
        (chases.DistanceStart(increments=0), ("start", "increments")),
    ],
)
def test_start_without_a_lead_is_rejected(start: chases.Start, loc: tuple[str | int, ...]) -> None:
    with pytest.raises(RulesError) as error:
        chases.start(checked(chases.Config(RALF, GUARD, start)), supplied({}))
    assert loc in violation_locs(error)


def test_start_at_30_or_more_has_escaped_already() -> None:
    config = chase(lead=30)
    state = begin(config)
    assert state.status_detail == "escaped"
    assert chases.is_finished(state)
    assert chases.winner(config, state) == "Ralf"
    with pytest.raises(PhaseError):
        chases.play_round(
            config,
            state,
            chases.RoundInput(chases.Terrain(Increment("strength"))),
            supplied({}),
        )


# --------------------------------------------------------------------------------------------
# Hide
# --------------------------------------------------------------------------------------------


def test_hide_needs_a_lead_of_20() -> None:
    config = chase(lead=19)
    with pytest.raises(RulesError) as error:
        play(config, begin(config), STREET, HIDE, {})
    assert violation_locs(error) == [("tactic", "kind")]


def test_hide_on_flat_terrain_is_rejected() -> None:
    with pytest.raises(RulesError) as error:
        chases.check_round_input(chases.RoundInput(FIELD, HIDE))
    assert violation_locs(error) == [("tactic", "kind")]
    config = chase(lead=25)
    flat_hide = chases.RoundInput(FIELD, HIDE)
    with pytest.raises(RulesError) as error:
        chases.play_round(config, begin(config), flat_hide, supplied({}))
    assert violation_locs(error) == [("tactic", "kind")]


def test_lost_hide_adds_the_escapee_nothing_while_the_chaser_checks() -> None:
    config = chase(lead=22)
    state, record = play(
        config,
        begin(config),
        STREET,
        HIDE,
        {"Ralf": {"hide": 2}, "guard": {"spot": 12, "check": 4}},
    )
    assert record.tactic == chases.TacticRecord(
        "hide", success=False, escapee_total=7, chaser_total=13
    )
    assert record.gains == {"Ralf": 0, "guard": 12}  # 4 + 2 + 6
    assert record.lead == 10
    assert record.escapee.events == ("held-up",)
    assert state.ds == {"Ralf": 22, "guard": 12}


def test_hide_tie_goes_to_the_higher_modifier() -> None:
    config = chase(lead=22, chaser=replace(GUARD, mods={"spot": 7}))
    _, record = play(
        config,
        begin(config),
        STREET,
        HIDE,
        {"Ralf": {"hide": 10}, "guard": {"spot": 8, "check": 1}},
    )
    assert tactic(record).success is False  # 15 vs 15: the guard's +7 beats Ralf's +5


def test_hide_full_tie_rerolls_then_goes_to_the_defending_chaser() -> None:
    config = chase(lead=22, chaser=replace(GUARD, mods={"spot": 5}))
    rerolled: Rolls = {"Ralf": {"hide": [10, 16]}, "guard": {"spot": [10, 3]}}
    _, record = play(config, begin(config), STREET, HIDE, rerolled)
    assert record.outcome == "hid"
    deadlocked: Rolls = {"Ralf": {"hide": [10] * 21}, "guard": {"spot": [10] * 21, "check": 1}}
    _, record = play(config, begin(config), STREET, HIDE, deadlocked)
    assert tactic(record).success is False
    assert record.outcome is None


# --------------------------------------------------------------------------------------------
# Hazards
# --------------------------------------------------------------------------------------------


def test_hazard_costs_the_base_cost_plus_penalty_even_when_not_created() -> None:
    config = chase(lead=15)  # hazard_base_cost defaults to 5
    state, record = play(
        config,
        begin(config),
        STREET,
        hazard(2),
        {"Ralf": {"dexterity": 12, "check": 10}, "guard": {"check": 10}},
    )
    assert record.tactic == chases.TacticRecord(
        "hazard",
        success=False,
        cost=7,
        penalty=2,
        created=False,
        escapee_total=13,
        chaser_check="balance",
        dc=12,
    )
    assert record.gains == {"Ralf": 17, "guard": 18}
    assert record.lead == 15 - 7 + 17 - 18
    assert state.ds == {"Ralf": 15 - 7 + 17, "guard": 18}


def test_created_hazard_the_chaser_passes_slows_nobody() -> None:
    config = chase(lead=15)
    _, record = play(
        config,
        begin(config),
        STREET,
        hazard(0, chaser_check="tumble"),
        {"Ralf": {"dexterity": 11, "check": 10}, "guard": {"hazard": 4, "check": 10}},
    )
    # Dexterity 11 + 3 = 14 creates it; the guard's Tumble 4 + 6 = 10 meets DC 10.
    assert tactic(record).created is True
    assert tactic(record).chaser_total == 10
    assert tactic(record).chaser_check == "tumble"
    assert tactic(record).success is False
    assert record.gains == {"Ralf": 17, "guard": 18}
    assert record.lead == 15 - 5 + 17 - 18


def test_negative_penalty_is_rejected() -> None:
    config = chase()
    bad = chases.RoundInput(STREET, hazard(-1))
    with pytest.raises(RulesError) as error:
        chases.play_round(config, begin(config), bad, supplied({}))
    assert violation_locs(error) == [("tactic", "penalty")]


def test_the_lead_may_dip_during_the_round_without_ending_it() -> None:
    config = chase(lead=3)
    _, record = play(
        config,
        begin(config),
        STREET,
        hazard(1),
        {"Ralf": {"dexterity": 20, "check": 20}, "guard": {"hazard": 1}},
    )
    assert record.lead == 3 - 6 + 27
    assert record.finished is False


# --------------------------------------------------------------------------------------------
# Ends
# --------------------------------------------------------------------------------------------


def test_caught_when_the_lead_falls_to_zero() -> None:
    config = chase(lead=5)
    state, record = play(
        config, begin(config), STREET, None, {"Ralf": {"check": 1}, "guard": {"check": 1}}
    )
    # Ralf 1 + 1 + 6 = 8, guard 1 + 2 + 6 = 9: lead 4.
    assert record.lead == 4
    state, record = play(config, state, STREET, None, {"Ralf": {"check": 1}, "guard": {"check": 5}})
    assert record.lead == 4 + 8 - 13 == -1
    assert record.outcome == "caught"
    assert state.status_detail == "caught"
    assert chases.winner(config, state) == "guard"


def test_escaped_at_a_lead_of_30() -> None:
    config = chase(lead=24)
    state, record = play(
        config, begin(config), STREET, None, {"Ralf": {"check": 10}, "guard": {"check": 3}}
    )
    assert record.lead == 24 + 17 - 11 == 30
    assert record.outcome == "escaped"
    assert chases.winner(config, state) == "Ralf"


def test_max_rounds_ends_it_with_the_chaser_giving_up() -> None:
    config = chase(lead=10, max_rounds=2)
    rolls = {"Ralf": {"check": 5}, "guard": {"check": 4}}
    state, record = play(config, begin(config), STREET, None, rolls)
    assert record.finished is False
    state, last = chases.play_round(config, state, chases.RoundInput(STREET), supplied(rolls))
    record = last
    assert record.finished is True
    assert record.outcome is None
    assert record.status_detail == "gave-up"
    assert state.status_detail == "gave-up"
    assert chases.winner(config, state) == "Ralf"
    assert chases.round_summary(config, state, last) == (
        "Increment 2 (strength): Ralf +12, guard +12; lead 10 -> 10. "
        "guard gives up after 2 increments."
    )


def test_gm_ends_the_chase() -> None:
    config = chase()
    state = chases.end(config, begin(config))
    assert (state.lead, state.ds, state.status_detail) == (12, {"Ralf": 12, "guard": 0}, "gave-up")
    with pytest.raises(PhaseError):
        chases.end(config, state)
    with pytest.raises(PhaseError):
        chases.play_round(config, state, chases.RoundInput(STREET), supplied({}))
    with pytest.raises(RulesError) as error:
        chases.end(config, begin(config), reason="bored")
    assert violation_locs(error) == [("reason",)]


# --------------------------------------------------------------------------------------------
# Resolve's tactic policy
# --------------------------------------------------------------------------------------------


def test_choose_tactic() -> None:
    config = chase()
    street = chases.Terrain(Increment("strength"))
    field = chases.Terrain(Increment("strength"), flat=True)
    assert chases.choose_tactic(config, at(config, 25), street, "none") is None
    assert (
        chases.choose_tactic(config, at(config, 20), street, "hide-when-possible") == chases.Hide()
    )
    assert chases.choose_tactic(config, at(config, 19), street, "hide-when-possible") is None
    assert chases.choose_tactic(config, at(config, 25), field, "hide-when-possible") is None
    with pytest.raises(RulesError) as error:
        chases.choose_tactic(config, at(config, 25), street, "ambush")
    assert violation_locs(error) == [("tactic_policy",)]


# --------------------------------------------------------------------------------------------
# Terrain, endurance, forfeits
# --------------------------------------------------------------------------------------------


def test_terrain_is_a_race_increment() -> None:
    config = chase(lead=12)
    climb = Increment("climb", dc=14, on_fail="retry", modifier=-1)
    _, record = play(
        config,
        begin(config),
        climb,
        None,
        {"Ralf": {"check": 3, "obstacle": [20]}, "guard": {"check": 20}},
    )
    # Ralf 3 + 0 + 6 - 1 = 8 fails DC 14, retries once (-10); the guard 20 + 6 - 1 = 25.
    assert record.gains == {"Ralf": -10, "guard": 25}
    assert record.lead == 12 - 10 - 25
    assert record.outcome == "caught"


def test_escapee_forfeiting_at_an_obstacle_is_caught() -> None:
    wall = Increment("strength", obstacle=Obstacle("obstacle", "climb", 15))
    config = chase(lead=20)
    _, record = play(
        config,
        begin(config),
        wall,
        None,
        {"Ralf": {"obstacle": 1}, "guard": {"obstacle": 15, "check": 1}},
    )
    assert record.escapee.events == ("obstacle-failed", "forfeited")
    assert record.outcome == "caught"
    assert record.lead == 20 - 9


def test_chaser_forfeiting_at_an_obstacle_lets_her_escape() -> None:
    wall = Increment("strength", obstacle=Obstacle("obstacle", "climb", 15, damage="1d6"))
    config = chase(lead=5)
    state, record = play(
        config,
        begin(config),
        wall,
        None,
        {"Ralf": {"obstacle": 15, "check": 1}, "guard": {"obstacle": 1, "damage": 4}},
    )
    assert record.outcome == "escaped"
    assert state.status_detail == "escaped"
    assert record.chaser.events == ("obstacle-failed", "damage 4", "forfeited")


def test_taking_damage_rule_applies_in_chases() -> None:
    wall = Increment("strength", obstacle=Obstacle("obstacle", "climb", 15, damage="1d6"))
    config = chase(lead=5, damage_instead_of_forfeit=True)
    _, record = play(
        config,
        begin(config),
        wall,
        None,
        {"Ralf": {"obstacle": 15, "check": 1}, "guard": {"obstacle": 1, "damage": 4, "check": 1}},
    )
    assert record.outcome is None
    assert record.gains == {"Ralf": 8, "guard": 9}


def test_mounted_terrain_needs_mounts() -> None:
    config = chase()
    with pytest.raises(RulesError) as error:
        play(config, begin(config), Increment("strength", mounted=True), None, {})
    assert violation_locs(error) == [("terrain", "mounted"), ("terrain", "mounted")]


def test_mounted_chase_uses_the_mounts() -> None:
    horse = Mount(strength_mod=4, speed=60)
    config = chase(lead=10, escapee=replace(RALF, mount=horse), chaser=replace(GUARD, mount=horse))
    state, record = play(
        config,
        begin(config),
        Increment("strength", mounted=True),
        None,
        {"Ralf": {"ride": 10, "check": 10}, "guard": {"ride": 1, "check": 10}},
    )
    assert record.gains == {"Ralf": 10 + 4 + 12 + 2, "guard": 10 + 4 + 12}
    assert state.mounted_increments == 1


def test_long_chase_rests_and_a_resting_escapee_uses_no_tactic() -> None:
    tired = replace(RALF, con_score=1, con_mod=0)
    config = chase(escapee=tired)
    _, record = play(
        config,
        at(config, 12, increments=1),
        STREET,
        hazard(3),
        {"Ralf": {"constitution": 1}, "guard": {"check": 1}},
    )
    assert record.tactic == chases.TacticRecord(
        "hazard", success=False, attempted=False, cost=0, penalty=3
    )
    assert record.escapee.rested is True
    assert record.escapee.checks[0].dc == 2
    assert record.gains == {"Ralf": 0, "guard": 9}
    assert record.lead == 3


def test_hide_against_a_resting_chaser_succeeds_unopposed() -> None:
    tired = replace(GUARD, con_score=2, con_mod=-4, feats=("endurance",))
    config = chase(chaser=tired, endurance_rule=True)
    state, record = play(
        config,
        at(config, 20, increments=2),
        STREET,
        HIDE,
        {"guard": {"constitution": 3}},
    )
    assert record.tactic == chases.TacticRecord("hide", success=True)
    assert record.outcome == "hid"
    assert record.chaser.checks[0].total == 3 - 4 + 4
    assert state.status_detail == "hid"


def test_endurance_rule_off_means_no_constitution_checks() -> None:
    tired = replace(RALF, con_score=1)
    config = chase(escapee=tired, endurance_rule=False)
    _, record = play(
        config,
        at(config, 12, increments=5),
        STREET,
        None,
        {"Ralf": {"check": 1}, "guard": {"check": 1}},
    )
    assert record.gains == {"Ralf": 8, "guard": 9}


# --------------------------------------------------------------------------------------------
# Shapes
# --------------------------------------------------------------------------------------------


def test_config_defaults_and_round_trip() -> None:
    config = chase()
    body = serial.dump(config)
    assert body["start"] == {"mode": "lead", "lead": 12}
    assert body["hazard_base_cost"] == 5
    assert body["endurance_rule"] is True
    assert body["max_rounds"] == 200
    assert serial.load(chases.Config, body) == config
    for start in (chases.InitiativeStart(), chases.DistanceStart(increments=3)):
        other = replace(config, start=start)
        assert serial.load(chases.Config, serial.dump(other)) == other
    assert serial.dump(chases.DistanceStart(increments=3)) == {
        "mode": "distance",
        "increments": 3,
        "with_initiative": False,
    }
    assert serial.dump(chases.InitiativeStart()) == {"mode": "initiative"}


def test_same_names_are_rejected() -> None:
    with pytest.raises(RulesError) as error:
        chase(chaser=replace(GUARD, name="Ralf"))
    assert violation_locs(error) == [("chaser", "name")]


def test_every_violation_is_listed_at_once() -> None:
    hopeless = replace(RALF, mods={"initiative": -20})
    with pytest.raises(RulesError) as error:
        checked(chases.Config(hopeless, replace(GUARD, name="Ralf"), chases.InitiativeStart()))
    assert violation_locs(error) == [("chaser", "name"), ("start", "mode")]


def test_state_round_trip() -> None:
    config = chase()
    state, _ = play(
        config, begin(config), STREET, None, {"Ralf": {"check": 1}, "guard": {"check": 1}}
    )
    body = serial.dump(state)
    assert body == {
        "lead": 11,
        "ds": {"Ralf": 20, "guard": 9},
        "status_detail": None,
        "increments": 1,
        "mounted_increments": 0,
    }
    assert serial.load(chases.State, body) == state


@pytest.mark.parametrize(
    ("terrain", "loc"),
    [
        (Increment("swim", on_fail="stall"), ("terrain", "on_fail")),
        (Increment("swim", mounted=True), ("terrain", "check")),
        (
            Increment("strength", obstacle=Obstacle("hazard", "jump", 10, retry=True)),
            ("terrain", "obstacle", "retry"),
        ),
    ],
)
def test_terrain_is_checked_as_a_race_increment(
    terrain: Increment, loc: tuple[str | int, ...]
) -> None:
    config = chase(escapee=replace(RALF, mount=Mount(strength_mod=1, speed=40)))
    with pytest.raises(RulesError) as error:
        play(config, begin(config), terrain, None, {})
    assert loc in violation_locs(error)


def test_resolve_chooses_by_the_terrain() -> None:
    config = chase(lead=22)
    terrain = chases.Terrain(Increment("climb", dc=10, on_fail="retry"))
    assert chases.choose_tactic(config, begin(config), terrain, "hide-when-possible") == (
        chases.Hide()
    )


def test_round_record_has_the_api_fields() -> None:
    config = chase()
    _, record = play(
        config, begin(config), STREET, None, {"Ralf": {"check": 1}, "guard": {"check": 1}}
    )
    assert all(
        hasattr(record, name)
        for name in ("lead_before", "tactic", "gains", "lead", "finished", "outcome")
    )
    assert record.tactic is None


# --------------------------------------------------------------------------------------------
# Properties
# --------------------------------------------------------------------------------------------

PACINGS: tuple[Pacing, ...] = ("normal", "sprint", "pace")
side_bodies = st.fixed_dictionaries(
    {
        "speed": st.integers(0, 60),
        "mods": st.dictionaries(
            st.sampled_from(["strength", "climb", "swim", "hide", "spot", "dexterity", "balance"]),
            st.integers(-5, 10),
            max_size=7,
        ),
        "con_score": st.one_of(st.none(), st.integers(1, 12)),
        "feats": st.lists(st.sampled_from(["run", "endurance"]), unique=True).map(tuple),
        "pacing": st.sampled_from(PACINGS),
    }
)
terrains = st.builds(
    lambda check, flat, dc, modifier, obstacle: chases.Terrain(
        Increment(
            check,
            dc=dc,
            # As a round body without `on_fail` defaults it
            # (docs/rules.md#dc-checks-climbing-and-swimming).
            on_fail=None if dc is None else "retry" if check == "climb" else "stall",
            modifier=modifier,
            obstacle=obstacle,
        ),
        flat=flat,
    ),
    st.sampled_from(["strength", "climb", "swim"]),
    st.booleans(),
    st.one_of(st.none(), st.integers(5, 20)),
    st.integers(-2, 2),
    st.one_of(
        st.none(),
        st.builds(
            Obstacle,
            kind=st.sampled_from(["obstacle", "hazard"]),
            check=st.just("jump"),
            dc=st.integers(5, 20),
        ),
    ),
)


@settings(max_examples=150, deadline=None)
@given(
    escapee=side_bodies,
    chaser=side_bodies,
    lead=st.integers(1, 29),
    hazard_base_cost=st.integers(0, 5),
    plan=st.lists(
        st.tuples(terrains, st.sampled_from(["none", "hide", "hazard"]), st.integers(0, 6)),
        min_size=1,
        max_size=30,
    ),
    seed=st.integers(0, 2**63 - 1),
)
def test_lead_formula_and_ends_hold(
    escapee: dict[str, Any],
    chaser: dict[str, Any],
    lead: int,
    hazard_base_cost: int,
    plan: list[tuple[chases.Terrain, str, int]],
    seed: int,
) -> None:
    config = chase(
        lead,
        Competitor("E", **escapee),
        Competitor("C", **chaser),
        hazard_base_cost=hazard_base_cost,
        max_rounds=len(plan),
    )
    state = begin(config)
    dice = Dice(SeededRng(seed), notation=fake_notation)
    for terrain, tactic_kind, penalty in plan:
        if chases.is_finished(state):
            break
        chosen: chases.Tactic | None = None
        if tactic_kind == "hazard":
            chosen = hazard(penalty)
        elif tactic_kind == "hide" and state.lead >= 20 and not terrain.flat:
            chosen = HIDE
        before = state
        state, record = chases.play_round(config, state, chases.RoundInput(terrain, chosen), dice)
        cost = chases.round_cost(record.tactic)
        assert record.lead_before == before.lead
        assert record.lead == before.lead - cost + record.gains["E"] - record.gains["C"]
        assert state.lead == record.lead == state.ds["E"] - state.ds["C"]
        assert state.ds["E"] == before.ds["E"] - cost + record.gains["E"]
        assert state.ds["C"] == before.ds["C"] + record.gains["C"]
        if isinstance(chosen, chases.CreateHazard) and tactic(record).attempted:
            assert cost == hazard_base_cost + penalty
        status = state.status_detail
        if status is None:
            assert 0 < state.lead < 30
            assert record.outcome is None
        elif status == "caught":
            assert state.lead <= 0 or "forfeited" in record.escapee.events
        elif status == "escaped":
            assert state.lead >= 30 or "forfeited" in record.chaser.events
        elif status == "hid":
            assert tactic(record).kind == "hide"
            assert tactic(record).success is True
        assert record.finished == (status is not None)
    assert chases.is_finished(state)  # max_rounds = the plan's length ends it at the latest


@settings(max_examples=200, deadline=None)
@given(
    escapee=st.sampled_from([RALF, replace(RALF, mods={"initiative": -20}), GUARD]),
    chaser=st.sampled_from([GUARD, RALF]),
    start=st.one_of(
        st.builds(chases.LeadStart, lead=st.integers(-5, 40)),
        st.builds(chases.DistanceStart, increments=st.integers(-2, 8)),
        st.just(chases.InitiativeStart()),
    ),
    hazard_base_cost=st.integers(0, 8),
    max_rounds=st.integers(1, 10_000),
)
def test_checking_a_config_either_passes_or_lists_violations(
    escapee: Competitor,
    chaser: Competitor,
    start: chases.Start,
    hazard_base_cost: int,
    max_rounds: int,
) -> None:
    config = chases.Config(
        escapee, chaser, start, hazard_base_cost=hazard_base_cost, max_rounds=max_rounds
    )
    try:
        chases.check_config(config)
    except RulesError as error:
        violations = error.violations
        assert violations
    else:
        assert serial.load(chases.Config, serial.dump(config)) == config
