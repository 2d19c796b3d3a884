"""Races as sessions, increment by increment (API.md "Races", RULES.md §3.3).

Each competitor gets a party token of her own besides the GM's: it reads the race (GET) but may
not play it (403), so racers can follow along without being able to post dice.
"""

from __future__ import annotations

from typing import Any

from app.api.schemas.races import RaceCreate, RaceRound
from app.api.sessions import Created, Played, SessionKind, session_router
from app.notation import validate_notation
from app.rules import races as rules
from app.rules.dice import Dice
from app.rules.errors import Loc, RulesError, RuleViolation


def check_damage_notation(increments: list[tuple[Loc, str]]) -> None:
    """Every obstacle's and hazard's `damage` must be rollable dice notation (RULES.md §5)."""
    found: list[RuleViolation] = []
    for loc, expr in increments:
        try:
            validate_notation(expr, loc)
        except RulesError as exc:
            found.extend(exc.violations)
    if found:
        first, *rest = found
        raise RulesError(first.msg, first.loc, more=rest)


def create(body: RaceCreate, dice: Dice) -> Created:
    """A race at its start: everyone racing at DS 0 (RULES.md §3.3)."""
    config = rules.config_from_dict(body.model_dump(exclude={"seed"}, exclude_none=True))
    if config.preset is None:
        check_damage_notation(
            [
                (("course", "increments", index, "obstacle", "damage"), increment.obstacle.damage)
                for index, increment in enumerate(config.increments)
                if increment.obstacle is not None and increment.obstacle.damage is not None
            ]
        )
    state = rules.start(config, dice)
    return Created(
        rules.config_to_dict(config),
        rules.state_to_dict(state),
        parties=tuple(competitor.name for competitor in config.competitors),
    )


def play(config_data: dict[str, Any], state_data: dict[str, Any], _body: Any, dice: Dice) -> Played:
    """The next increment for every competitor still racing."""
    config = rules.config_from_dict(config_data)
    state, played = rules.play_round(config, rules.state_from_dict(state_data), dice)
    return Played(
        rules.state_to_dict(state),
        rules.is_finished(state),
        rules.result(config, state),
        played.to_dict(),
        rules.round_summary(config, state, played),
    )


def public_state(_config: dict[str, Any], state_data: dict[str, Any]) -> dict[str, Any]:
    return rules.public_state(rules.state_from_dict(state_data))


def describe(
    config_data: dict[str, Any], state_data: dict[str, Any], outcome: dict[str, Any] | None
) -> str:
    """`Race (dash): increment 1 of 2 done; Ann 18, Bob 15.` or who won."""
    course = config_data["course"]
    name = course if isinstance(course, str) else "custom course"
    ds: dict[str, int] = state_data["ds"]
    standing: dict[str, str] = state_data["standing"]
    board = ", ".join(
        f"{racer} {score}" + (" (forfeited)" if standing.get(racer) == "forfeited" else "")
        for racer, score in sorted(ds.items(), key=lambda item: -item[1])
    )
    head = f"Race ({name})"
    if outcome is None:
        return f"{head}: increment {state_data['increment']} of {state_data['of']} done; {board}."
    winners: list[str] = outcome["winners"]
    if not winners:
        return f"{head} over: nobody finished; {board}."
    if len(winners) == 1:
        return f"{head} over: {winners[0]} wins; {board}."
    return f"{head} over: tie between {', '.join(winners)}; {board}."


KIND = SessionKind(
    path="races",
    title="race",
    create_model=RaceCreate,
    create=create,
    public_state=public_state,
    create_example={
        "course": "dash",
        "competitors": [
            {"name": "Ann", "speed": 30, "mods": {"strength": 2}, "feats": ["run"]},
            {"name": "Bob", "speed": 40, "mods": {"strength": 1}, "pacing": "sprint"},
        ],
    },
    play=play,
    round_model=RaceRound,
    round_example={"rolls": {"Ann": {"check": 14}, "Bob": {"check": 9}}},
    names=lambda config: (competitor["name"] for competitor in config["competitors"]),
    purposes=frozenset({rules.CHECK, rules.OBSTACLE, rules.CONSTITUTION, rules.RIDE, rules.DAMAGE}),
    resolve_round=lambda _config, _state, _body: RaceRound(),
    describe=describe,
)

router = session_router(KIND)
