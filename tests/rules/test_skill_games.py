"""Legend skill games (docs/rules.md#skill-games): config, skill checks, sealed choices, reveal,
endings."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from app.api.kinds import skill_games as present
from app.api.schemas.skill_games import SkillGameCreate
from app.rules import serial
from app.rules import skill_games as sg
from app.rules.common import MAX_OPPOSED_REROLLS
from app.rules.dice import Dice, SeededRng
from app.rules.errors import PhaseError, RulesError
from tests.helpers import ConstantRng, supplied_keys


def ones() -> Dice:
    return Dice(ConstantRng())


def bidding_body(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "dc": 15,
        "skill_list": ["Athletics", "Stealth", "Persuasion"],
        "skills_per_round": 2,
        "kind": "bidding",
        "actions": [
            {
                "name": "Charge",
                "effects": [
                    {"min_margin": 0, "text": "A scramble forward.", "progress": 1},
                    {"min_margin": 2, "text": "A clean break.", "progress": 2},
                    {"min_margin": 5, "text": "A rout.", "progress": 4},
                ],
            },
            {
                "name": "Ambush",
                "effects": [
                    {
                        "min_margin": 3,
                        "text": "They fall back.",
                        "progress": -2,
                        "target": "opponents",
                    }
                ],
            },
            {"name": "Rally", "effects": [{"text": "Second wind.", "tokens": 2}]},
            {
                "name": "Sabotage",
                "effects": [{"text": "Supplies burn.", "tokens": -3, "target": "opponents"}],
            },
        ],
        "goal": 10,
        "parties": [
            {
                "name": "Heroes",
                "controller": "players",
                "members": [
                    {"name": "Ann", "skills": {"Athletics": 3, "Stealth": 1}},
                    {"name": "Bo", "skills": {"Stealth": 5}},
                ],
            },
            {
                "name": "Villains",
                "controller": "gm",
                "members": [{"name": "Cy", "skills": {"Athletics": 2, "Persuasion": 4}}],
            },
        ],
    }
    body.update(changes)
    return body


def option_body(**changes: Any) -> dict[str, Any]:
    body = bidding_body(
        kind="option",
        max_actions_per_round=2,
        actions=[
            {"name": "Advance", "cost": 2, "effects": [{"text": "Onward.", "progress": 2}]},
            {
                "name": "Sabotage",
                "cost": 1,
                "effects": [{"text": "Supplies burn.", "tokens": -2, "target": "opponents"}],
            },
            {"name": "Hoard", "cost": 0, "effects": [{"text": "Stockpile.", "tokens": 1}]},
            {
                "name": "Feint",
                "cost": 1,
                "effects": [
                    {"text": "A step ahead.", "progress": 1},
                    {"text": "They stumble.", "progress": -1, "target": "opponents"},
                ],
            },
        ],
    )
    body.update(changes)
    return body


def three_parties() -> list[dict[str, Any]]:
    parties: list[dict[str, Any]] = bidding_body()["parties"]
    return [
        *parties,
        {"name": "Rogues", "controller": "players", "members": [{"name": "Dee", "skills": {}}]},
    ]


def at_choices(config: sg.Config, tokens: Mapping[str, int] | None = None) -> sg.State:
    """A game in round 1's choices phase (every check rolled 1, so no tokens), then granted."""
    state = sg.start(config, ones())
    for party in config.party_names:
        state, _ = sg.choose_skills(config, state, party, list(config.skill_list[:2]), ones())
    for party, count in (tokens or {}).items():
        state = sg.grant(config, state, party, count)
    assert state.phase == "choices"
    return state


def bid(action: str, amount: int) -> dict[str, Any]:
    return {"action": action, "bid": amount}


def play_bids(
    config: sg.Config,
    state: sg.State,
    choices: Mapping[str, dict[str, Any]],
    dice: Dice | None = None,
) -> tuple[sg.State, sg.Round]:
    for party, choice in choices.items():
        state = sg.submit_choice(config, state, party, choice)
    return sg.reveal(config, state, dice if dice is not None else supplied_keys({}))


def game(body: Mapping[str, Any]) -> sg.Config:
    """A config from a create body, as the API builds it: the schema, then the rules' checks."""
    config = SkillGameCreate.model_validate(body).to_rules()
    sg.check_config(config)
    return config


def shown_checks(checks: sg.SkillChecks) -> dict[str, Any]:
    """A party's checks as the skills call answers them."""
    return {"checks": present.checks_record(checks.checks), "tokens_earned": checks.tokens_earned}


# --- config --------------------------------------------------------------------------------


def test_config_applies_defaults_and_round_trips() -> None:
    config = game(bidding_body())

    assert config.max_actions_per_round == 1
    assert config.token_rule == "exceed"
    assert config.max_rounds is None
    rally = config.action("Rally")
    assert rally is not None
    assert rally.effects == (sg.Effect("Second wind.", progress=0, tokens=2, min_margin=0),)
    normalised = present.public_config(config)
    assert normalised["actions"][2] == {
        "name": "Rally",
        "effects": [
            {"min_margin": 0, "text": "Second wind.", "progress": 0, "tokens": 2, "target": "self"}
        ],
    }
    assert "goal" in normalised
    assert "max_rounds" not in normalised
    stored = json.loads(json.dumps(normalised))
    assert serial.load(sg.Config, stored) == config
    assert game(stored) == config  # the served config is a valid create body


def test_option_config_round_trips_without_tiers() -> None:
    config = game(option_body(max_rounds=5, token_rule="meet"))
    normalised = present.public_config(config)

    assert normalised["actions"][0] == {
        "name": "Advance",
        "cost": 2,
        "effects": [{"text": "Onward.", "progress": 2, "tokens": 0, "target": "self"}],
    }
    assert normalised["max_rounds"] == 5
    assert normalised["token_rule"] == "meet"
    assert serial.load(sg.Config, normalised) == config
    assert game(normalised) == config


def _set(body: dict[str, Any], path: Sequence[str | int], value: Any) -> dict[str, Any]:
    changed = copy.deepcopy(body)
    node: Any = changed
    for step in path[:-1]:
        node = node[step]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return changed


_DELETE = object()


# Shapes and bounds (a boolean dc, an empty skill list, a negative min_margin, an unknown
# target, 1 or 17 parties, 65 members in a party...) are the create schema's: see
# tests/api/test_skill_games_api.py `_invalid_bodies`. The rules check what spans fields.


@pytest.mark.parametrize(
    ("path", "value", "loc"),
    [
        (("skill_list",), ["Athletics", "Athletics"], ("skill_list", 1)),
        (("skills_per_round",), 4, ("skills_per_round",)),
        (("max_actions_per_round",), 2, ("max_actions_per_round",)),
        (("actions", 1, "name"), "Charge", ("actions", 1, "name")),
        (("actions", 0, "cost"), 1, ("actions", 0, "cost")),
        (("actions", 0, "effects", 1, "min_margin"), 0, ("actions", 0, "effects", 1, "min_margin")),
        (("goal",), _DELETE, ()),
        (("parties", 1, "name"), "Heroes", ("parties", 1, "name")),
        (("parties", 1, "members", 0, "name"), "Ann", ("parties", 1, "members", 0, "name")),
        (("parties", 1, "members", 0, "name"), "Heroes", ("parties", 1, "members", 0, "name")),
        (("parties", 0, "members", 1, "name"), "Ann", ("parties", 0, "members", 1, "name")),
        (
            ("parties", 0, "members", 0, "skills", "Swimming"),
            2,
            ("parties", 0, "members", 0, "skills", "Swimming"),
        ),
    ],
)
def test_config_violations_name_their_place(
    path: Sequence[str | int], value: Any, loc: tuple[str | int, ...]
) -> None:
    with pytest.raises(RulesError) as caught:
        game(_set(bidding_body(), path, value))
    assert caught.value.violations[0].loc == loc


@pytest.mark.parametrize(
    ("path", "value", "loc"),
    [
        (("actions", 0, "cost"), _DELETE, ("actions", 0, "cost")),
        (("actions", 0, "effects", 0, "min_margin"), 0, ("actions", 0, "effects", 0, "min_margin")),
    ],
)
def test_option_config_violations(
    path: Sequence[str | int], value: Any, loc: tuple[str | int, ...]
) -> None:
    with pytest.raises(RulesError) as caught:
        game(_set(option_body(), path, value))
    assert caught.value.violations[0].loc == loc


def test_every_violation_is_listed_at_once() -> None:
    body = _set(bidding_body(), ("skill_list",), [*bidding_body()["skill_list"], "Stealth"])
    body = _set(body, ("actions", 1, "name"), "Charge")
    body = _set(body, ("parties", 1, "name"), "Heroes")
    with pytest.raises(RulesError) as caught:
        game(body)
    assert [violation.loc for violation in caught.value.violations] == [
        ("skill_list", 3),
        ("actions", 1, "name"),
        ("parties", 1, "name"),
    ]


def test_member_limit_is_for_the_whole_game() -> None:
    # 64 members in all is the limit for the whole game, not only for one party (the
    # schema refuses more than 64 in one party, and fewer than 2 or more than 16 parties).
    halves = [
        {"name": name, "controller": "gm", "members": [{"name": f"{name}{i}"} for i in range(33)]}
        for name in ("A", "B")
    ]
    with pytest.raises(RulesError, match="at most 64 members") as caught:
        game(bidding_body(parties=halves))
    assert caught.value.violations[0].loc == ("parties", 1, "members")


def test_max_rounds_alone_is_an_end_condition() -> None:
    body = bidding_body(max_rounds=10_000)
    del body["goal"]
    config = game(body)
    assert (config.goal, config.max_rounds) == (None, 10_000)


_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 20), st.text(max_size=3), st.just("Stealth")
)
_bodies: st.SearchStrategy[Any] = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(
                ["name", "cost", "effects", "min_margin", "text", "members", "skills", "kind"]
            ),
            inner,
            max_size=4,
        ),
    ),
    max_leaves=20,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from([bidding_body(), option_body()]),
    st.lists(
        st.tuples(
            st.sampled_from(
                [
                    ("dc",),
                    ("skills_per_round",),
                    ("max_actions_per_round",),
                    ("actions",),
                    ("actions", 0),
                    ("actions", 0, "effects"),
                    ("actions", 0, "cost"),
                    ("actions", 1, "effects", 0),
                    ("goal",),
                    ("max_rounds",),
                    ("parties",),
                    ("parties", 0, "members"),
                    ("parties", 1, "members", 0, "skills"),
                    ("skill_list",),
                    ("token_rule",),
                ]
            ),
            _bodies,
        ),
        max_size=3,
    ),
)
def test_config_either_validates_and_round_trips_or_is_refused(
    base: dict[str, Any], mutations: list[tuple[tuple[str | int, ...], Any]]
) -> None:
    body = base
    for path, value in mutations:
        try:
            body = _set(body, path, value)
        except (KeyError, IndexError, TypeError):
            continue
    try:
        create = SkillGameCreate.model_validate(body)
    except ValidationError as shape:
        shape_errors = shape.errors()
    else:
        shape_errors = []
    if shape_errors:
        # Refused at the edge (a 422 naming the place): the rules never see it.
        assert all(error["loc"] for error in shape_errors)
        return
    config = create.to_rules()
    try:
        sg.check_config(config)
    except RulesError as error:
        refusal: RulesError | None = error
    else:
        refusal = None
    if refusal is not None:
        assert refusal.msg
        assert all(
            violation.loc == () or violation.loc[0] in body for violation in refusal.violations
        )
        return
    stored = json.loads(json.dumps(present.public_config(config)))
    assert serial.load(sg.Config, stored) == config


# --- skills and checks ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("token_rule", "roll", "earns"),
    [
        ("exceed", 14, False),  # total 15 = DC: not above it
        ("exceed", 15, True),  # total 16 = DC + 1
        ("meet", 13, False),  # total 14 = DC - 1
        ("meet", 14, True),  # total 15 = DC: meeting is enough
        ("meet", 15, True),
    ],
)
def test_token_at_dc_and_dc_plus_one(token_rule: str, roll: int, earns: bool) -> None:
    config = game(bidding_body(skills_per_round=1, token_rule=token_rule))
    state = sg.start(config, ones())
    # Ann has Stealth +1, so her total is roll + 1; Bo's 1 + 5 = 6 never beats it.
    dice = supplied_keys({("Ann", "Stealth"): [roll], ("Bo", "Stealth"): [1]})
    after, checks = sg.choose_skills(config, state, "Heroes", ["Stealth"], dice)

    assert shown_checks(checks) == {
        "checks": {"Stealth": {"best": roll + 1, "by": "Ann", "token": earns}},
        "tokens_earned": int(earns),
    }
    assert after.tokens == {"Heroes": int(earns), "Villains": 0}
    assert state.tokens == {"Heroes": 0, "Villains": 0}  # the input is untouched


def test_checks_take_each_skills_best_member_and_roll_in_order() -> None:
    config = game(bidding_body())
    state = sg.start(config, ones())
    dice = supplied_keys(
        {
            ("Ann", "Persuasion"): [14],  # lacks the skill: 14 + 0
            ("Bo", "Persuasion"): [17],  # 17 + 0 = 17 > 15
            ("Ann", "Stealth"): [12],  # 12 + 1 = 13
            ("Bo", "Stealth"): [8],  # 8 + 5 = 13: equal best, Ann listed first
        }
    )
    after, checks = sg.choose_skills(config, state, "Heroes", ["Persuasion", "Stealth"], dice)

    assert shown_checks(checks) == {
        "checks": {
            "Persuasion": {"best": 17, "by": "Bo", "token": True},
            "Stealth": {"best": 13, "by": "Ann", "token": False},
        },
        "tokens_earned": 1,
    }
    assert [(roll.who, roll.purpose, roll.values) for roll in dice.log] == [
        ("Ann", "Persuasion", (14,)),
        ("Bo", "Persuasion", (17,)),
        ("Ann", "Stealth", (12,)),
        ("Bo", "Stealth", (8,)),
    ]
    assert after.phase == "skills"
    assert after.skills_done == ("Heroes",)
    assert sg.waiting_for(after) == ["Villains"]

    dice = supplied_keys({("Cy", "Athletics"): [20], ("Cy", "Persuasion"): [12]})
    done, villain_checks = sg.choose_skills(
        config, after, "Villains", ["Athletics", "Persuasion"], dice
    )
    assert villain_checks.tokens_earned == 2  # 22 and 16
    assert done.phase == "choices"
    assert done.tokens == {"Heroes": 1, "Villains": 2}
    assert sg.waiting_for(done) == ["Heroes", "Villains"]
    assert present.public_state(done)["skills_done"] == ["Heroes", "Villains"]


@pytest.mark.parametrize(
    ("skills", "loc"),
    [
        (["Athletics"], ("skills",)),
        (["Athletics", "Stealth", "Persuasion"], ("skills",)),
        (["Athletics", "Athletics"], ("skills", 1)),
        (["Athletics", "Swimming"], ("skills", 1)),
    ],
)
def test_skill_choices_must_be_distinct_listed_and_exactly_enough(
    skills: list[str], loc: tuple[str | int, ...]
) -> None:
    config = game(bidding_body())
    state = sg.start(config, ones())
    dice = ones()
    with pytest.raises(RulesError) as caught:
        sg.choose_skills(config, state, "Heroes", skills, dice)
    assert caught.value.violations[0].loc == loc
    assert dice.log == []  # nothing rolled, nothing changed
    assert state.skills_done == ()


def test_skills_phase_errors() -> None:
    config = game(bidding_body())
    state = sg.start(config, ones())
    with pytest.raises(RulesError) as caught:
        sg.choose_skills(config, state, "Pirates", ["Athletics", "Stealth"], ones())
    assert caught.value.violations[0].loc == ("party",)

    once, _ = sg.choose_skills(config, state, "Heroes", ["Athletics", "Stealth"], ones())
    with pytest.raises(PhaseError, match="already chosen"):
        sg.choose_skills(config, once, "Heroes", ["Athletics", "Stealth"], ones())
    with pytest.raises(PhaseError):
        sg.submit_choice(config, once, "Heroes", bid("Charge", 0))
    with pytest.raises(PhaseError):
        sg.reveal(config, once, ones())

    choosing = at_choices(config)
    with pytest.raises(PhaseError):
        sg.choose_skills(config, choosing, "Heroes", ["Athletics", "Stealth"], ones())


# --- sealed choices ------------------------------------------------------------------------


def test_bid_above_tokens_is_refused_without_echoing_it() -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 3, "Villains": 1})
    with pytest.raises(RulesError) as caught:
        sg.submit_choice(config, state, "Heroes", bid("Charge", 4))
    assert caught.value.msg == "bid exceeds the party's tokens"
    assert caught.value.violations[0].loc == ("bid",)
    assert state.choices == {}

    assert sg.submit_choice(config, state, "Heroes", bid("Charge", 3)).choices == {
        "Heroes": sg.Choice(("Charge",), 3)
    }


@pytest.mark.parametrize(
    ("choice", "loc"),
    [
        ({"action": "Charge", "bid": -1}, ("bid",)),
        ({"action": "Charge", "bid": True}, ("bid",)),
        ({"action": "Charge"}, ("bid",)),
        ({"action": "Teleport", "bid": 0}, ("action",)),
        ({"bid": 0}, ("action",)),
        ({"actions": ["Charge"]}, ("actions",)),
    ],
)
def test_bad_bids_raise_and_change_nothing(
    choice: dict[str, Any], loc: tuple[str | int, ...]
) -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 2})
    with pytest.raises(RulesError) as caught:
        sg.submit_choice(config, state, "Heroes", choice)
    assert caught.value.violations[0].loc == loc
    assert not any(character.isdigit() for character in caught.value.msg)
    assert "Teleport" not in caught.value.msg


@pytest.mark.parametrize(
    ("actions", "message", "loc"),
    [
        (["Advance", "Sabotage"], "cost more than the party's tokens", ("actions",)),
        (["Hoard", "Sabotage", "Feint"], "at most 2 actions per round", ("actions",)),
        (["Hoard", "Hoard"], "only once per round", ("actions", 1)),
        (["Fly"], "not an action of this skill game", ("actions", 0)),
    ],
)
def test_over_budget_over_limit_or_repeated_purchases_raise(
    actions: list[str], message: str, loc: tuple[str | int, ...]
) -> None:
    config = game(option_body())
    state = at_choices(config, {"Heroes": 2})
    with pytest.raises(RulesError) as caught:
        sg.submit_choice(config, state, "Heroes", {"actions": actions})
    assert message in caught.value.msg
    assert caught.value.violations[0].loc == loc
    assert state.choices == {}
    assert state.tokens["Heroes"] == 2


def test_option_choice_shape_errors() -> None:
    config = game(option_body())
    state = at_choices(config)
    with pytest.raises(RulesError) as caught:
        sg.submit_choice(config, state, "Heroes", {"action": "Hoard", "bid": 0})
    assert caught.value.violations[0].loc == ("action",)
    with pytest.raises(RulesError) as caught:
        sg.submit_choice(config, state, "Heroes", {})
    assert caught.value.violations[0].loc == ("actions",)


def test_choices_may_be_replaced_until_the_reveal() -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 3, "Villains": 2})
    state = sg.submit_choice(config, state, "Heroes", bid("Charge", 3))
    assert sg.waiting_for(state) == ["Villains"]
    assert not sg.all_submitted(state)
    state = sg.submit_choice(config, state, "Heroes", bid("Rally", 1))
    state = sg.submit_choice(config, state, "Villains", bid("Charge", 2))
    assert sg.all_submitted(state)
    assert sg.waiting_for(state) == []

    after, record = sg.reveal(config, state, supplied_keys({}))
    assert present.round_outcome(record)["bids"] == {"Heroes": 1, "Villains": 2}
    assert present.round_outcome(record)["choices"] == {
        "Heroes": {"action": "Rally", "bid": 1},
        "Villains": {"action": "Charge", "bid": 2},
    }
    assert after.tokens == {"Heroes": 2, "Villains": 0}


def test_reveal_waits_for_every_party() -> None:
    config = game(bidding_body())
    state = sg.submit_choice(config, at_choices(config), "Heroes", bid("Charge", 0))
    with pytest.raises(PhaseError, match="waiting for sealed choices from Villains"):
        sg.reveal(config, state, ones())


def test_errors_for_one_party_never_show_anothers_sealed_choice() -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 7, "Villains": 1})
    state = sg.submit_choice(config, state, "Heroes", bid("Ambush", 7))
    for choice in (bid("Charge", 5), bid("Nope", 0), {"action": "Charge", "bid": -2}):
        with pytest.raises(RulesError) as caught:
            sg.submit_choice(config, state, "Villains", choice)
        assert "Ambush" not in str(caught.value)
        assert "7" not in str(caught.value)
    with pytest.raises(PhaseError) as waiting:
        sg.reveal(config, state, ones())
    assert "Ambush" not in str(waiting.value)
    assert "7" not in str(waiting.value)


# --- the public state never shows a sealed choice ------------------------------------------


def test_public_state_shows_who_submitted_never_what() -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 9, "Villains": 9})
    sealed = sg.submit_choice(config, state, "Heroes", bid("Ambush", 8))
    other = sg.submit_choice(config, state, "Heroes", bid("Rally", 0))

    shown = present.public_state(sealed)
    assert shown == {
        "phase": "choices",
        "tokens": {"Heroes": 9, "Villains": 9},
        "progress": {"Heroes": 0, "Villains": 0},
        "skills_done": ["Heroes", "Villains"],
        "submitted": ["Heroes"],
        "round": 1,
        "finished": False,
        "winner": None,
    }
    text = json.dumps(shown)
    assert "Ambush" not in text
    assert "8" not in text
    assert "bid" not in text
    assert shown == present.public_state(other)

    # Storage keeps the sealed choice, so the game can continue.
    stored = json.loads(json.dumps(serial.dump(sealed)))
    assert stored["choices"] == {"Heroes": {"actions": ["Ambush"], "bid": 8}}
    assert serial.load(sg.State, stored) == sealed


def test_option_public_state_hides_purchases() -> None:
    config = game(option_body())
    state = at_choices(config, {"Heroes": 3})
    sealed = sg.submit_choice(config, state, "Heroes", {"actions": ["Advance", "Sabotage"]})
    text = json.dumps(present.public_state(sealed))
    assert "Advance" not in text
    assert "Sabotage" not in text
    assert present.public_state(sealed) == present.public_state(
        sg.submit_choice(config, state, "Heroes", {"actions": []})
    )


@settings(max_examples=100)
@given(
    action=st.sampled_from(["Charge", "Ambush", "Rally", "Sabotage"]),
    amount=st.integers(0, 12),
)
def test_public_state_is_the_same_whatever_was_sealed(action: str, amount: int) -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 12, "Villains": 3})
    baseline = present.public_state(sg.submit_choice(config, state, "Heroes", bid("Charge", 0)))
    sealed = sg.submit_choice(config, state, "Heroes", bid(action, amount))
    assert present.public_state(sealed) == baseline
    assert action not in json.dumps(present.public_state(sealed))


# --- reveal: bidding -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("heroes_bid", "villains_bid", "margin", "tier", "text", "progress"),
    [
        (4, 3, 1, 0, "A scramble forward.", 1),
        (5, 3, 2, 2, "A clean break.", 2),  # exactly a tier's min_margin
        (7, 3, 4, 2, "A clean break.", 2),
        (8, 3, 5, 5, "A rout.", 4),
        (8, 0, 8, 5, "A rout.", 4),  # a zero bid counts
    ],
)
def test_single_highest_bid_uses_the_tier_for_its_margin(
    heroes_bid: int, villains_bid: int, margin: int, tier: int, text: str, progress: int
) -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 8, "Villains": 3})
    after, record = play_bids(
        config,
        state,
        {"Heroes": bid("Charge", heroes_bid), "Villains": bid("Rally", villains_bid)},
    )
    assert present.round_outcome(record) == {
        "checks": {
            "Heroes": {
                "Athletics": {"best": 4, "by": "Ann", "token": False},
                "Stealth": {"best": 6, "by": "Bo", "token": False},
            },
            "Villains": {
                "Athletics": {"best": 3, "by": "Cy", "token": False},
                "Stealth": {"best": 1, "by": "Cy", "token": False},
            },
        },
        "bids": {"Heroes": heroes_bid, "Villains": villains_bid},
        "choices": {
            "Heroes": {"action": "Charge", "bid": heroes_bid},
            "Villains": {"action": "Rally", "bid": villains_bid},
        },
        "effects": [
            {"party": "Heroes", "action": "Charge", "margin": margin, "tier": tier, "text": text}
        ],
        "tokens": {"Heroes": 8 - heroes_bid, "Villains": 3 - villains_bid},
        "progress": {"Heroes": progress, "Villains": 0},
        "finished": False,
    }
    assert after.progress == {"Heroes": progress, "Villains": 0}
    assert after.phase == "skills"
    assert after.round == 2
    assert after.skills_done == ()
    assert after.choices == {}
    assert after.checks == {}


def test_margin_is_over_the_highest_other_bid_among_many() -> None:
    config = game(bidding_body(parties=three_parties()))
    state = at_choices(config, {"Heroes": 5, "Villains": 3, "Rogues": 1})
    after, record = play_bids(
        config,
        state,
        {"Heroes": bid("Ambush", 1), "Villains": bid("Charge", 3), "Rogues": bid("Charge", 0)},
    )
    # Villains win 3 over the next highest 1: margin 2, Charge's tier 2.
    assert present.round_outcome(record)["effects"] == [
        {"party": "Villains", "action": "Charge", "margin": 2, "tier": 2, "text": "A clean break."}
    ]
    assert after.tokens == {"Heroes": 4, "Villains": 0, "Rogues": 1}
    assert record.paid == {"Heroes": 1, "Villains": 3, "Rogues": 0}


def test_winning_action_without_a_tier_for_its_margin_does_nothing() -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 2, "Villains": 2})
    after, record = play_bids(
        config, state, {"Heroes": bid("Ambush", 2), "Villains": bid("Charge", 0)}
    )
    assert record.margin == 2  # Ambush's only tier needs 3
    assert present.round_outcome(record)["effects"] == []
    assert after.progress == {"Heroes": 0, "Villains": 0}
    assert after.tokens == {"Heroes": 0, "Villains": 2}
    assert sg.round_summary(config, after, record) == (
        "Bids: Heroes 2, Villains 0. Heroes wins the bid by 2; Ambush has no effect at that "
        "margin. Progress: Heroes 0, Villains 0. Tokens: Heroes 0, Villains 2."
    )


def test_opponent_effects_reach_every_other_party_and_tokens_stop_at_zero() -> None:
    config = game(bidding_body(parties=three_parties()))
    state = at_choices(config, {"Heroes": 4, "Villains": 5, "Rogues": 1})
    after, record = play_bids(
        config,
        state,
        {"Heroes": bid("Sabotage", 4), "Villains": bid("Rally", 1), "Rogues": bid("Rally", 0)},
    )
    assert present.round_outcome(record)["effects"] == [
        {"party": "Heroes", "action": "Sabotage", "margin": 3, "tier": 0, "text": "Supplies burn."}
    ]
    # Villains 5 - 1 paid - 3 = 1; Rogues 1 - 0 - 3 floors at 0.
    assert after.tokens == {"Heroes": 0, "Villains": 1, "Rogues": 0}


def test_tied_bids_act_at_margin_zero_in_descending_d20_order() -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 2, "Villains": 3})
    dice = supplied_keys({("Heroes", "order"): [5], ("Villains", "order"): [12]})
    after, record = play_bids(
        config, state, {"Heroes": bid("Rally", 2), "Villains": bid("Sabotage", 2)}, dice
    )
    shown = present.round_outcome(record)
    assert shown["order"] == ["Villains", "Heroes"]
    assert shown["effects"] == [
        {
            "party": "Villains",
            "action": "Sabotage",
            "margin": 0,
            "tier": 0,
            "text": "Supplies burn.",
        },
        {"party": "Heroes", "action": "Rally", "margin": 0, "tier": 0, "text": "Second wind."},
    ]
    # Heroes pay 2 (0 left), lose 3 (stays 0), then Rally +2: the order matters.
    assert after.tokens == {"Heroes": 2, "Villains": 1}
    assert [(roll.who, roll.purpose, roll.values) for roll in dice.log] == [
        ("Heroes", "order", (5,)),
        ("Villains", "order", (12,)),
    ]

    # The other order: Rally first, then Sabotage takes the new tokens away.
    dice = supplied_keys({("Heroes", "order"): [15], ("Villains", "order"): [12]})
    after, record = play_bids(
        config, state, {"Heroes": bid("Rally", 2), "Villains": bid("Sabotage", 2)}, dice
    )
    assert record.order == ("Heroes", "Villains")
    assert after.tokens == {"Heroes": 0, "Villains": 1}
    assert sg.round_summary(config, after, record) == (
        "Bids: Heroes 2, Villains 2. Heroes and Villains tie for the highest bid. "
        "Order: Heroes, Villains. Heroes — Rally: Second wind. Villains — Sabotage: "
        "Supplies burn. Progress: Heroes 0, Villains 0. Tokens: Heroes 0, Villains 1."
    )


def test_tied_d20s_reroll_among_themselves_keeping_their_place() -> None:
    config = game(bidding_body(parties=three_parties()))
    state = at_choices(config)
    dice = supplied_keys(
        {
            ("Heroes", "order"): [10, 3],
            ("Villains", "order"): [10, 8],
            ("Rogues", "order"): [15],
        }
    )
    _, record = play_bids(
        config,
        state,
        {"Heroes": bid("Charge", 0), "Villains": bid("Rally", 0), "Rogues": bid("Charge", 0)},
        dice,
    )
    assert record.order == ("Rogues", "Villains", "Heroes")
    assert [effect.party for effect in record.effects] == ["Rogues", "Villains", "Heroes"]
    assert dice.unused() == []

    # The reroll decides only among the tied: a low reroll never drops below a lower first roll.
    dice = supplied_keys(
        {
            ("Heroes", "order"): [10, 1],
            ("Villains", "order"): [10, 2],
            ("Rogues", "order"): [4],
        }
    )
    _, record = play_bids(
        config,
        state,
        {"Heroes": bid("Charge", 0), "Villains": bid("Rally", 0), "Rogues": bid("Charge", 0)},
        dice,
    )
    assert record.order == ("Villains", "Heroes", "Rogues")


def test_order_rolls_stop_after_twenty_rerolls_with_the_later_named_first() -> None:
    config = game(bidding_body())
    state = at_choices(config)
    rolls = [7] * (1 + MAX_OPPOSED_REROLLS)
    dice = supplied_keys({("Heroes", "order"): rolls, ("Villains", "order"): rolls})
    _, record = play_bids(
        config, state, {"Heroes": bid("Charge", 0), "Villains": bid("Rally", 0)}, dice
    )
    assert record.order == ("Villains", "Heroes")
    assert len(dice.log) == 2 * 21
    assert dice.unused() == []


def test_tied_parties_without_a_margin_zero_tier_do_nothing() -> None:
    config = game(bidding_body(parties=three_parties()))
    state = at_choices(config, {"Heroes": 3, "Villains": 3, "Rogues": 3})
    dice = supplied_keys({("Villains", "order"): [2], ("Rogues", "order"): [19]})
    after, record = play_bids(
        config,
        state,
        {"Heroes": bid("Ambush", 3), "Villains": bid("Charge", 3), "Rogues": bid("Rally", 3)},
        dice,
    )
    assert present.round_outcome(record)["order"] == ["Rogues", "Villains"]
    assert [effect.party for effect in record.effects] == ["Rogues", "Villains"]
    assert after.progress == {"Heroes": 0, "Villains": 1, "Rogues": 0}
    assert after.tokens == {"Heroes": 0, "Villains": 0, "Rogues": 2}
    assert "No margin-0 effect for Heroes." in sg.round_summary(config, after, record)

    # Only one tied party acts: it needs no order roll.
    two = game(bidding_body())
    state = at_choices(two, {"Heroes": 1, "Villains": 1})
    dice = supplied_keys({})
    after, record = play_bids(
        two, state, {"Heroes": bid("Ambush", 1), "Villains": bid("Charge", 1)}, dice
    )
    assert record.order == ("Villains",)
    assert dice.log == []
    assert after.progress == {"Heroes": 0, "Villains": 1}

    # Nobody tied can act at margin 0: nothing happens, but the bids are paid.
    state = at_choices(two, {"Heroes": 1, "Villains": 1})
    after, record = play_bids(
        two, state, {"Heroes": bid("Ambush", 1), "Villains": bid("Ambush", 1)}, supplied_keys({})
    )
    assert record.order == ()
    assert record.effects == ()
    assert after.tokens == {"Heroes": 0, "Villains": 0}


# --- reveal: option ------------------------------------------------------------------------


def test_option_purchases_take_effect_together() -> None:
    config = game(option_body())
    state = at_choices(config, {"Heroes": 3, "Villains": 1})
    after, record = play_bids(
        config,
        state,
        {"Heroes": {"actions": ["Advance", "Sabotage"]}, "Villains": {"actions": ["Hoard"]}},
    )
    assert present.round_outcome(record) == {
        "checks": {
            "Heroes": {
                "Athletics": {"best": 4, "by": "Ann", "token": False},
                "Stealth": {"best": 6, "by": "Bo", "token": False},
            },
            "Villains": {
                "Athletics": {"best": 3, "by": "Cy", "token": False},
                "Stealth": {"best": 1, "by": "Cy", "token": False},
            },
        },
        "choices": {
            "Heroes": {"actions": ["Advance", "Sabotage"]},
            "Villains": {"actions": ["Hoard"]},
        },
        "effects": [
            {"party": "Heroes", "action": "Advance", "text": "Onward."},
            {"party": "Heroes", "action": "Sabotage", "text": "Supplies burn."},
            {"party": "Villains", "action": "Hoard", "text": "Stockpile."},
        ],
        "tokens": {"Heroes": 0, "Villains": 0},
        "progress": {"Heroes": 2, "Villains": 0},
        "finished": False,
    }
    assert "bids" not in present.round_outcome(record)
    # Villains: 1 - 0 paid + 1 (Hoard) - 2 (Sabotage), summed before the floor: 0, not 1.
    assert record.paid == {"Heroes": 3, "Villains": 0}
    assert after.tokens == {"Heroes": 0, "Villains": 0}
    assert after.progress == {"Heroes": 2, "Villains": 0}


def test_option_actions_apply_all_their_effects_and_zero_actions_is_allowed() -> None:
    config = game(option_body())
    state = at_choices(config, {"Heroes": 1})
    after, record = play_bids(
        config, state, {"Heroes": {"actions": ["Feint"]}, "Villains": {"actions": []}}
    )
    assert after.progress == {"Heroes": 1, "Villains": -1}  # progress has no floor
    assert after.tokens == {"Heroes": 0, "Villains": 0}
    assert sg.round_summary(config, after, record) == (
        "Villains buy nothing. Heroes — Feint: A step ahead. Heroes — Feint: They stumble. "
        "Progress: Heroes 1, Villains -1. Tokens: Heroes 0, Villains 0."
    )


# --- endings -------------------------------------------------------------------------------


def test_reaching_the_goal_wins() -> None:
    config = game(bidding_body(goal=4))
    state = at_choices(config, {"Heroes": 5})
    after, record = play_bids(
        config, state, {"Heroes": bid("Charge", 5), "Villains": bid("Rally", 0)}
    )
    assert present.round_outcome(record)["finished"] is True
    assert present.round_outcome(record)["winner"] == "Heroes"
    assert sg.is_finished(after)
    assert present.result(config, after) == {
        "winner": "Heroes",
        "tie": False,
        "progress": {"Heroes": 4, "Villains": 0},
        "tokens": {"Heroes": 0, "Villains": 0},
        "reason": "goal",
    }
    assert sg.round_summary(config, after, record).endswith("Heroes wins the game (goal reached).")
    assert present.public_state(after)["winner"] == "Heroes"
    assert sg.waiting_for(after) == []
    for call in (
        lambda: sg.choose_skills(config, after, "Heroes", ["Athletics", "Stealth"], ones()),
        lambda: sg.submit_choice(config, after, "Heroes", bid("Charge", 0)),
        lambda: sg.reveal(config, after, ones()),
        lambda: sg.grant(config, after, "Heroes", 1),
        lambda: sg.end(config, after),
    ):
        with pytest.raises(PhaseError):
            call()


def _option_goal_game(goal: int) -> sg.Config:
    return game(
        option_body(
            goal=goal,
            actions=[
                {"name": "Step", "cost": 0, "effects": [{"text": "Step.", "progress": 1}]},
                {"name": "Leap", "cost": 0, "effects": [{"text": "Leap.", "progress": 3}]},
            ],
        )
    )


def test_several_reaching_the_goal_at_once_higher_progress_wins_else_tie() -> None:
    config = _option_goal_game(1)
    after, record = play_bids(
        config,
        at_choices(config),
        {"Heroes": {"actions": ["Step"]}, "Villains": {"actions": ["Leap"]}},
    )
    assert (after.winner, after.tie, after.reason) == ("Villains", False, "goal")

    after, record = play_bids(
        config,
        at_choices(config),
        {"Heroes": {"actions": ["Leap"]}, "Villains": {"actions": ["Leap"]}},
    )
    assert (after.winner, after.tie, after.reason) == (None, True, "goal")
    assert present.round_outcome(record)["winner"] is None
    assert present.result(config, after) == {
        "winner": None,
        "tie": True,
        "progress": {"Heroes": 3, "Villains": 3},
        "tokens": {"Heroes": 0, "Villains": 0},
        "reason": "goal",
    }
    assert sg.round_summary(config, after, record).endswith(
        "The game ends in a tie (goal reached)."
    )


def test_goal_tie_only_among_those_who_reached_it() -> None:
    config = _option_goal_game(3)
    config = game({**present.public_config(config), "parties": three_parties()})
    after, _ = play_bids(
        config,
        at_choices(config),
        {
            "Heroes": {"actions": ["Leap"]},
            "Villains": {"actions": ["Step"]},
            "Rogues": {"actions": ["Step", "Leap"]},
        },
    )
    assert (after.winner, after.tie) == ("Rogues", False)


def test_max_rounds_ending_highest_progress_wins_equal_is_a_tie() -> None:
    body = option_body(
        max_rounds=2,
        actions=[{"name": "Step", "cost": 0, "effects": [{"text": "Step.", "progress": 1}]}],
    )
    del body["goal"]
    config = game(body)

    state = at_choices(config)
    state, record = play_bids(
        config, state, {"Heroes": {"actions": ["Step"]}, "Villains": {"actions": []}}
    )
    assert not record.finished
    assert "winner" not in present.round_outcome(record)
    state = at_choices_from(config, state)
    state, record = play_bids(
        config, state, {"Heroes": {"actions": []}, "Villains": {"actions": []}}
    )
    assert record.finished
    assert present.result(config, state) == {
        "winner": "Heroes",
        "tie": False,
        "progress": {"Heroes": 1, "Villains": 0},
        "tokens": {"Heroes": 0, "Villains": 0},
        "reason": "max_rounds",
    }
    assert state.round == 2

    state = at_choices(config)
    state, _ = play_bids(
        config, state, {"Heroes": {"actions": ["Step"]}, "Villains": {"actions": ["Step"]}}
    )
    state = at_choices_from(config, state)
    state, record = play_bids(
        config, state, {"Heroes": {"actions": []}, "Villains": {"actions": []}}
    )
    assert (state.winner, state.tie, state.reason) == (None, True, "max_rounds")
    assert sg.round_summary(config, state, record).endswith(
        "The game ends in a tie (last round played)."
    )


def at_choices_from(config: sg.Config, state: sg.State) -> sg.State:
    for party in sg.waiting_for(state):
        state, _ = sg.choose_skills(config, state, party, list(config.skill_list[:2]), ones())
    return state


def test_gm_ends_the_game_discarding_sealed_choices() -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 2})
    state, _ = play_bids(config, state, {"Heroes": bid("Charge", 2), "Villains": bid("Rally", 0)})
    state = at_choices_from(config, state)
    state = sg.submit_choice(config, state, "Villains", bid("Rally", 0))

    ended = sg.end(config, state)
    assert ended.choices == {}
    assert serial.dump(ended)["choices"] == {}
    assert present.result(config, ended) == {
        "winner": "Heroes",
        "tie": False,
        "progress": {"Heroes": 2, "Villains": 0},
        "tokens": {"Heroes": 0, "Villains": 0},
        "reason": "ended",
    }
    assert present.result(config, state) is None
    level = sg.end(config, at_choices(config))
    assert (level.winner, level.tie, level.reason) == (None, True, "ended")


# --- the GM's grants -----------------------------------------------------------------------


def test_grants_add_and_take_tokens_down_to_zero() -> None:
    config = game(bidding_body())
    state = sg.start(config, ones())
    state = sg.grant(config, state, "Villains", 3)
    assert state.tokens == {"Heroes": 0, "Villains": 3}
    state = sg.grant(config, state, "Villains", -3)
    assert state.tokens == {"Heroes": 0, "Villains": 0}
    with pytest.raises(RulesError) as caught:
        sg.grant(config, state, "Villains", -1)
    assert caught.value.violations[0].loc == ("tokens",)
    with pytest.raises(RulesError) as caught:
        sg.grant(config, state, "Pirates", 1)
    assert caught.value.violations[0].loc == ("party",)


def test_no_tokens_are_taken_from_a_party_with_a_sealed_choice() -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 3})
    state = sg.submit_choice(config, state, "Heroes", bid("Charge", 3))
    with pytest.raises(PhaseError, match="sealed"):
        sg.grant(config, state, "Heroes", -1)
    richer = sg.grant(config, state, "Heroes", 2)
    assert richer.tokens["Heroes"] == 5
    assert sg.grant(config, state, "Villains", 0).tokens["Villains"] == 0


# --- storage and presentation --------------------------------------------------------------


def test_state_round_trips_through_json_in_every_phase() -> None:
    config = game(bidding_body())
    state = sg.start(config, ones())
    half, _ = sg.choose_skills(
        config, state, "Heroes", ["Athletics", "Stealth"], Dice(ConstantRng(19))
    )
    choosing = at_choices_from(config, half)
    sealed = sg.submit_choice(config, choosing, "Heroes", bid("Charge", 1))
    ended = sg.end(config, sealed)
    for each in (state, half, choosing, sealed, ended):
        stored = json.loads(json.dumps(serial.dump(each)))
        assert serial.load(sg.State, stored) == each
    assert serial.dump(half)["checks"] == {
        "Heroes": [
            {"skill": "Athletics", "best": 22, "by": "Ann", "token": True},
            {"skill": "Stealth", "best": 24, "by": "Bo", "token": True},
        ]
    }


def test_skill_checks_summary() -> None:
    config = game(bidding_body())
    dice = supplied_keys(
        {
            ("Ann", "Athletics"): [16],
            ("Bo", "Athletics"): [2],
            ("Ann", "Stealth"): [3],
            ("Bo", "Stealth"): [4],
        }
    )
    _, checks = sg.choose_skills(
        config, sg.start(config, ones()), "Heroes", ["Athletics", "Stealth"], dice
    )
    assert sg.skill_checks_summary(config, checks) == (
        "Heroes: Athletics 19 by Ann (token), Stealth 9 by Bo against DC 15; 1 token earned."
    )


# --- invariants ----------------------------------------------------------------------------


def cost_of(config: sg.Config, name: str) -> int:
    action = config.action(name)
    assert action is not None
    assert action.cost is not None
    return action.cost


_choice_bodies = st.one_of(
    st.fixed_dictionaries(
        {
            "action": st.sampled_from(["Charge", "Ambush", "Rally", "Sabotage", "Nope"]),
            "bid": st.integers(-1, 8),
        }
    ),
    st.fixed_dictionaries(
        {
            "actions": st.lists(
                st.sampled_from(["Advance", "Sabotage", "Hoard", "Feint", "Nope"]), max_size=3
            )
        }
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(["bidding", "option"]),
    three=st.booleans(),
    token_rule=st.sampled_from(["exceed", "meet"]),
    seed=st.integers(0, 2**32),
    plays=st.lists(
        st.tuples(
            st.lists(
                st.sampled_from(["Athletics", "Stealth", "Persuasion", "Swimming"]),
                min_size=2,
                max_size=2,
            ),
            st.lists(_choice_bodies, min_size=3, max_size=3),
            st.lists(st.integers(-2, 3), min_size=3, max_size=3),
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_games_either_resolve_or_raise_and_keep_their_books(
    kind: str,
    three: bool,
    token_rule: str,
    seed: int,
    plays: list[tuple[list[str], list[dict[str, Any]], list[int]]],
) -> None:
    make = bidding_body if kind == "bidding" else option_body
    body = make(goal=3, max_rounds=6, token_rule=token_rule, dc=8)
    if three:
        body["parties"] = three_parties()
    config = game(body)
    dice = Dice(SeededRng(seed))
    state = sg.start(config, dice)
    parties = config.party_names
    for skills, choices, grants in plays:
        if sg.is_finished(state):
            break
        for party, granted in zip(parties, grants, strict=False):
            try:
                state = sg.grant(config, state, party, granted)
            except RulesError:
                assert state.tokens[party] + granted < 0
        for party in parties:
            try:
                state, checks = sg.choose_skills(config, state, party, skills, dice)
            except RulesError:
                state, checks = sg.choose_skills(
                    config, state, party, list(config.skill_list[:2]), dice
                )
            assert checks.tokens_earned == sum(check.token for check in checks.checks)
            for check in checks.checks:
                assert check.token == (
                    check.best > config.dc or (token_rule == "meet" and check.best == config.dc)
                )
        assert state.phase == "choices"
        for party, choice in zip(parties, choices, strict=False):
            before = state
            try:
                state = sg.submit_choice(config, state, party, choice)
            except RulesError:
                assert state is before
                fallback = bid("Rally", 0) if kind == "bidding" else {"actions": []}
                state = sg.submit_choice(config, state, party, fallback)
        assert sg.all_submitted(state)
        tokens_before = dict(state.tokens)
        sealed = dict(state.choices)
        state, record = sg.reveal(config, state, dice)

        assert all(count >= 0 for count in state.tokens.values())
        if kind == "bidding":
            assert record.bids is not None
            assert sum(record.paid.values()) == sum(record.bids.values())
            assert record.paid == {party: sealed[party].bid for party in parties}
        else:
            assert record.paid == {
                party: sum(cost_of(config, name) for name in sealed[party].actions)
                for party in parties
            }
        for party in parties:
            assert record.paid[party] <= tokens_before[party]
        assert record.tokens == state.tokens
        event(f"bid winners: {len(record.bid_winners)}; order: {record.order is not None}")
        shown = present.round_outcome(record)
        assert json.loads(json.dumps(shown)) == shown
        assert serial.load(sg.State, json.loads(json.dumps(serial.dump(state)))) == state
        assert isinstance(sg.round_summary(config, state, record), str)
    event(f"ending: {state.reason}")
    if state.finished:
        outcome = present.result(config, state)
        assert outcome is not None
        assert outcome["tie"] == (outcome["winner"] is None)
        assert state.rounds_played <= 6


# --- how far a revealed round moved each party's progress (its card) -------------------------


def test_progress_moved_by_an_option_round_counts_every_effect_to_its_targets() -> None:
    config = game(option_body())
    state = at_choices(config, {"Heroes": 3, "Villains": 1})
    after, record = play_bids(
        config,
        state,
        {"Heroes": {"actions": ["Feint", "Advance"]}, "Villains": {"actions": ["Feint"]}},
    )
    # Heroes: Feint +1 and Advance +2 for themselves, the Villains' Feint -1 on them: +2.
    # Villains: their own Feint +1, the Heroes' Feint -1 on them: 0.
    assert sg.progress_moved(config, record.effects) == {"Heroes": 2, "Villains": 0}
    assert after.progress == {"Heroes": 2, "Villains": 0}


@pytest.mark.parametrize(
    ("heroes", "villains", "moved"),
    [
        # Charge won by 3: its margin-2 tier, "A clean break.", 2 forward.
        (bid("Charge", 3), bid("Rally", 0), {"Heroes": 2, "Villains": 0}),
        # Charge won by 1: its margin-0 tier, 1 forward.
        (bid("Charge", 2), bid("Rally", 1), {"Heroes": 1, "Villains": 0}),
        # Ambush won by 3: its one tier (margin 3) sets the opponents 2 back.
        (bid("Ambush", 3), bid("Charge", 0), {"Heroes": 0, "Villains": -2}),
        # Ambush won by 2: no tier at that margin, nothing moves.
        (bid("Ambush", 3), bid("Charge", 1), {"Heroes": 0, "Villains": 0}),
    ],
)
def test_progress_moved_by_a_bid_is_its_tier_at_the_rounds_margin(
    heroes: dict[str, Any], villains: dict[str, Any], moved: dict[str, int]
) -> None:
    config = game(bidding_body())
    state = at_choices(config, {"Heroes": 3, "Villains": 3})
    after, record = play_bids(config, state, {"Heroes": heroes, "Villains": villains})
    assert sg.progress_moved(config, record.effects) == moved
    assert after.progress == moved
