# The generator writes a defaulted, bounded `int | null` field as a root model with a
# plain int default, which pydantic validates into that model (validate_default):
# right at run time, but a type error to mypy.
# mypy: disable-error-code="assignment"
"""Arbiter's request and answer models, generated from its OpenAPI document by
`clients/python/generate.py` (datamodel-code-generator): do not edit by hand."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, RootModel, StringConstraints
from typing_extensions import TypeAliasType


class AddedSeedRecord(BaseModel):
    """
    A seed a token holder added: who (`gm`, `party:<name>`, `seat:<name>`) and the seed.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    by: Annotated[str, Field(title="By")]
    seed: Annotated[str, Field(title="Seed")]


class ArmWrestleCheck(BaseModel):
    """
    One competitor's opposed check in a round: the d20 and the total.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    roll: Annotated[int, Field(title="Roll")]
    total: Annotated[int, Field(title="Total")]


class ArmWrestleConsequence(BaseModel):
    """
    What the match did to someone: a strained arm, an injured hand, damage.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    effect: Annotated[Literal["strained-arm", "injured-hand", "damage"], Field(title="Effect")]
    detail: Annotated[str, Field(title="Detail")]


class LoserDamage(RootModel[str]):
    root: Annotated[str, Field(max_length=1000, min_length=1, title="Loser Damage")]


class Seed(RootModel[int]):
    root: Annotated[
        int, Field(description="0 <= seed < 2**63", ge=0, lt=9223372036854775808, title="Seed")
    ]


class ArmWrestleDamage(BaseModel):
    """
    Damage the loser takes (spikes, or `loser_damage` in `mental` and `psychic`).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    amount: Annotated[int, Field(title="Amount")]


class Strength(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Strength")]


class Constitution(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Constitution")]


class Damage(RootModel[int]):
    root: Annotated[int, Field(ge=1, title="Damage")]


class Damage1Item(RootModel[int]):
    root: Annotated[int, Field(ge=1)]


class Damage1(RootModel[list[Damage1Item]]):
    root: Annotated[list[Damage1Item], Field(max_length=1000, title="Damage")]


class ArmWrestleDice(BaseModel):
    """
    One competitor's dice in a round body: its fields are the dice purposes.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    strength: Annotated[Strength | None, Field(title="Strength")] = None
    constitution: Annotated[Constitution | None, Field(title="Constitution")] = None
    damage: Annotated[Damage | Damage1 | None, Field(title="Damage")] = None


class ArmWrestleFatigueCheck(BaseModel):
    """
    One fatigue check (Constitution; Wisdom in `mental`) made before a round.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    dc: Annotated[int, Field(title="Dc")]
    roll: Annotated[int, Field(title="Roll")]
    total: Annotated[int, Field(title="Total")]
    passed: Annotated[bool, Field(title="Passed")]


class ArmWrestleResult(BaseModel):
    """
    A finished arm wrestle's `result`; `damage` only when the loser takes some.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    winner: Annotated[str | None, Field(title="Winner")]
    reason: Annotated[Literal["target", "fatigue", "draw", "max_rounds"], Field(title="Reason")]
    consequences: Annotated[list[ArmWrestleConsequence], Field(title="Consequences")]
    damage: ArmWrestleDamage | None = None


class DeadlineSeconds(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="with `collect`: after this many seconds the server rolls the dice still missing",
            ge=1,
            le=604800,
            title="Deadline Seconds",
        ),
    ]


class ArmWrestleRound(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    collect: Annotated[
        bool | None,
        Field(
            description="wait for each seat's dice instead of rolling (a seated session) Default: false.",
            title="Collect",
        ),
    ] = None
    deadline_seconds: Annotated[DeadlineSeconds | None, Field(title="Deadline Seconds")] = None
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            ArmWrestleDice,
        ]
        | None,
        Field(title="Rolls"),
    ] = None


class ArmWrestleSeatDice(BaseModel):
    """
    One competitor's dice for the round waiting for them, as a round body's `rolls` carries them (a seat's token: only its own competitor's).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            ArmWrestleDice,
        ],
        Field(min_length=1, title="Rolls"),
    ]


class ArmWrestleState(BaseModel):
    """
    An arm wrestle's `state`: each DS, the leader and the fatigue checks made, by name.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    ds: Annotated[dict[str, int], Field(title="Ds")]
    leader: Annotated[str | None, Field(title="Leader")]
    con_checks_made: Annotated[dict[str, int], Field(title="Con Checks Made")]


class CasterLevel(RootModel[int]):
    root: Annotated[int, Field(ge=0, le=100, title="Caster Level")]


class IntMod(RootModel[int]):
    root: Annotated[int, Field(ge=-100, le=100, title="Int Mod")]


class WisScore(RootModel[int]):
    root: Annotated[int, Field(ge=0, le=200, title="Wis Score")]


class WisMod(RootModel[int]):
    root: Annotated[int, Field(ge=-100, le=100, title="Wis Mod")]


class ArmWrestler(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    strength_mod: Annotated[int, Field(ge=-100, le=100, title="Strength Mod")]
    con_score: Annotated[int, Field(ge=0, le=200, title="Con Score")]
    con_mod: Annotated[int, Field(ge=-100, le=100, title="Con Mod")]
    endurance: Annotated[bool | None, Field(description="Default: false.", title="Endurance")] = (
        None
    )
    off_hand: Annotated[bool | None, Field(description="Default: false.", title="Off Hand")] = None
    two_weapon_fighting: Annotated[
        bool | None, Field(description="Default: false.", title="Two Weapon Fighting")
    ] = None
    misc_mod: Annotated[
        int | None, Field(description="Default: 0.", ge=-100, le=100, title="Misc Mod")
    ] = None
    caster_level: Annotated[CasterLevel | None, Field(title="Caster Level")] = None
    int_mod: Annotated[IntMod | None, Field(title="Int Mod")] = None
    wis_score: Annotated[WisScore | None, Field(title="Wis Score")] = None
    wis_mod: Annotated[WisMod | None, Field(title="Wis Mod")] = None


class ArmWrestlerConfig(BaseModel):
    """
    One competitor in an arm wrestle's `config`, every field given.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    strength_mod: Annotated[int, Field(title="Strength Mod")]
    con_score: Annotated[int, Field(title="Con Score")]
    con_mod: Annotated[int, Field(title="Con Mod")]
    endurance: Annotated[bool, Field(title="Endurance")]
    off_hand: Annotated[bool, Field(title="Off Hand")]
    two_weapon_fighting: Annotated[bool, Field(title="Two Weapon Fighting")]
    misc_mod: Annotated[int, Field(title="Misc Mod")]
    caster_level: Annotated[int | None, Field(title="Caster Level")]
    int_mod: Annotated[int | None, Field(title="Int Mod")]
    wis_score: Annotated[int | None, Field(title="Wis Score")]
    wis_mod: Annotated[int | None, Field(title="Wis Mod")]


class Rating(RootModel[int]):
    root: Annotated[
        int, Field(description="r, the sum of the two stats", ge=-100, le=100, title="Rating")
    ]


class Stat(RootModel[int]):
    root: Annotated[int, Field(ge=-1000, le=1000)]


class Stats(RootModel[list[Stat]]):
    root: Annotated[
        list[Stat],
        Field(
            description="two stats; the rating is their sum",
            max_length=2,
            min_length=2,
            title="Stats",
        ),
    ]


class Target(RootModel[int]):
    root: Annotated[
        int, Field(description="succeeds when score >= it", ge=-100000, le=100000, title="Target")
    ]


class Die(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=100)]


class Dice(RootModel[list[Die]]):
    root: Annotated[
        list[Die],
        Field(
            description="the seven d100s, in any order", max_length=7, min_length=7, title="Dice"
        ),
    ]


class CriticalDie(RootModel[int]):
    root: Annotated[int, Field(description="the critical d100", ge=1, le=100, title="Critical Die")]


class MagnitudeDie(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="the magnitude d100, used only on a critical; without a critical it is ignored and left out of rolls",
            ge=1,
            le=100,
            title="Magnitude Die",
        ),
    ]


class CairnRollRequest(BaseModel):
    """
    A Cairn Hill roll (docs/rules.md#cairn-hill-roll).

    Rules across fields:
    - exactly one of `rating` and `stats` (said in the schema);
    - the stats' sum is a rating within the same bounds.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rating: Annotated[Rating | None, Field(title="Rating")] = None
    stats: Annotated[Stats | None, Field(title="Stats")] = None
    target: Annotated[Target | None, Field(title="Target")] = None
    dice: Annotated[Dice | None, Field(title="Dice")] = None
    success_x2_x3: Annotated[
        Literal["raised", "lowered"] | None,
        Field(
            description='a critical success on the x2 and x3 rows: "raised" like the other rows, or "lowered", as the source writes those two rows (docs/rules.md#cairn-hill-roll) Default: "raised".',
            title="Success X2 X3",
        ),
    ] = None
    critical_die: Annotated[
        CriticalDie | None, Field(description="the critical d100", title="Critical Die")
    ] = None
    magnitude_die: Annotated[
        MagnitudeDie | None,
        Field(
            description="the magnitude d100, used only on a critical; without a critical it is ignored and left out of rolls",
            title="Magnitude Die",
        ),
    ] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class CardAgainst(BaseModel):
    """
    What a check on a round card was against: an opponent's total, a DC, or a skill to
    roll under (only the keys that apply).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str | None, Field(title="Name")] = None
    total: Annotated[int | None, Field(title="Total")] = None
    dc: Annotated[int | None, Field(title="Dc")] = None
    skill: Annotated[int | None, Field(title="Skill")] = None


class CardChange(BaseModel):
    """
    What a round changed for one competitor or party: its DS, a chase's lead, a skill
    game's progress or tokens (`delta` null when the round does not say by how much); `text`
    is the change as words in the request's language.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    kind: Annotated[Literal["ds", "lead", "progress", "tokens"], Field(title="Kind")]
    delta: Annotated[int | None, Field(title="Delta")]
    to: Annotated[int, Field(title="To")]
    text: Annotated[str, Field(title="Text")]


class CardDie(BaseModel):
    """
    One roll on a round card: who rolled what, for what, its modifier and total (null for
    dice that are not a check, such as damage), what it was against, its margin (positive:
    made it or won by that much), whether it succeeded, and who gave the die; `text` is the
    roll as one line and `note` its margin, result and source, both in the request's
    language.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str | None, Field(title="Name")]
    purpose: Annotated[str, Field(title="Purpose")]
    dice: Annotated[str, Field(title="Dice")]
    values: Annotated[list[int], Field(title="Values")]
    modifier: Annotated[int | None, Field(title="Modifier")]
    total: Annotated[int | None, Field(title="Total")]
    against: CardAgainst | None
    margin: Annotated[int | None, Field(title="Margin")]
    success: Annotated[bool | None, Field(title="Success")]
    source: Annotated[
        Literal["server", "deadline", "roll-for-me", "gm", "seat", "party", "entered"],
        Field(title="Source"),
    ]
    text: Annotated[str, Field(title="Text")]
    note: Annotated[str, Field(title="Note")]


class MaxRetries(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="retries allowed after a failed obstacle; null: no cap (an obstacle no die can pass then forfeits at once, `impassable`) Default: 5.",
            ge=0,
            le=100,
            title="Max Retries",
        ),
    ]


class Check(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Check")]


class Hide(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Hide")]


class Hide1Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Hide1(RootModel[list[Hide1Item]]):
    root: Annotated[list[Hide1Item], Field(max_length=21, min_length=1, title="Hide")]


class Spot(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Spot")]


class Spot1Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Spot1(RootModel[list[Spot1Item]]):
    root: Annotated[list[Spot1Item], Field(max_length=21, min_length=1, title="Spot")]


class Dexterity(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Dexterity")]


class Hazard(RootModel[int]):
    root: Annotated[
        int, Field(description="the chaser's check to get past it", ge=1, le=20, title="Hazard")
    ]


class Obstacle(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Obstacle")]


class Obstacle1Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Obstacle1(RootModel[list[Obstacle1Item]]):
    root: Annotated[list[Obstacle1Item], Field(max_length=101, min_length=1, title="Obstacle")]


class Ride(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Ride")]


class Damage2Item(RootModel[int]):
    root: Annotated[int, Field(ge=1)]


class Damage2(RootModel[list[Damage2Item]]):
    root: Annotated[list[Damage2Item], Field(max_length=10000, min_length=1, title="Damage")]


class ChaseDice(BaseModel):
    """
    One side's supplied dice for one increment.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    check: Annotated[Check | None, Field(title="Check")] = None
    hide: Annotated[Hide | Hide1 | None, Field(title="Hide")] = None
    spot: Annotated[Spot | Spot1 | None, Field(title="Spot")] = None
    dexterity: Annotated[Dexterity | None, Field(title="Dexterity")] = None
    hazard: Annotated[
        Hazard | None, Field(description="the chaser's check to get past it", title="Hazard")
    ] = None
    constitution: Annotated[Constitution | None, Field(title="Constitution")] = None
    obstacle: Annotated[Obstacle | Obstacle1 | None, Field(title="Obstacle")] = None
    ride: Annotated[Ride | None, Field(title="Ride")] = None
    damage: Annotated[Damage2 | None, Field(title="Damage")] = None


class ChaseEnd(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    reason: Annotated[
        Literal["gave-up"] | None, Field(description='Default: "gave-up".', title="Reason")
    ] = None


class Hide2(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Hide")]


class Hide3Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Hide3(RootModel[list[Hide3Item]]):
    root: Annotated[list[Hide3Item], Field(max_length=21, min_length=1, title="Hide")]


class Spot2(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Spot")]


class Spot3Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Spot3(RootModel[list[Spot3Item]]):
    root: Annotated[list[Spot3Item], Field(max_length=21, min_length=1, title="Spot")]


class Obstacle2(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Obstacle")]


class Obstacle3Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Obstacle3(RootModel[list[Obstacle3Item]]):
    root: Annotated[list[Obstacle3Item], Field(max_length=101, min_length=1, title="Obstacle")]


class Damage3Item(RootModel[int]):
    root: Annotated[int, Field(ge=1)]


class Damage3(RootModel[list[Damage3Item]]):
    root: Annotated[list[Damage3Item], Field(max_length=10000, min_length=1, title="Damage")]


class Initiative(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Initiative")]


class ChasePurposeDice(BaseModel):
    """
    Every die one side may be given: a round's, and the escapee's initiative at creation.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    check: Annotated[Check | None, Field(title="Check")] = None
    hide: Annotated[Hide2 | Hide3 | None, Field(title="Hide")] = None
    spot: Annotated[Spot2 | Spot3 | None, Field(title="Spot")] = None
    dexterity: Annotated[Dexterity | None, Field(title="Dexterity")] = None
    hazard: Annotated[
        Hazard | None, Field(description="the chaser's check to get past it", title="Hazard")
    ] = None
    constitution: Annotated[Constitution | None, Field(title="Constitution")] = None
    obstacle: Annotated[Obstacle2 | Obstacle3 | None, Field(title="Obstacle")] = None
    ride: Annotated[Ride | None, Field(title="Ride")] = None
    damage: Annotated[Damage3 | None, Field(title="Damage")] = None
    initiative: Annotated[Initiative | None, Field(title="Initiative")] = None


class ChaseResult(BaseModel):
    """
    A finished chase: how it ended, who won, the final lead and DS, increments played.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    status_detail: Annotated[
        Literal["caught", "escaped", "hid", "gave-up"], Field(title="Status Detail")
    ]
    winner: Annotated[str, Field(title="Winner")]
    lead: Annotated[int, Field(title="Lead")]
    ds: Annotated[dict[str, int], Field(title="Ds")]
    increments: Annotated[int, Field(title="Increments")]


class ChaseSeatDice(BaseModel):
    """
    One competitor's dice for the round waiting for them, as a round body's `rolls` carries them (a seat's token: only its own competitor's).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            ChasePurposeDice,
        ],
        Field(min_length=1, title="Rolls"),
    ]


class ChaseStartConfig(BaseModel):
    """
    How the lead started: `increments` for a distance start, `lead` for a lead start.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[Literal["initiative", "distance", "lead"], Field(title="Mode")]
    increments: Annotated[int | None, Field(title="Increments")] = None
    with_initiative: Annotated[bool | None, Field(title="With Initiative")] = None
    lead: Annotated[int | None, Field(title="Lead")] = None


class ChaseState(BaseModel):
    """
    A chase's `state`: the lead, both sides' DS, and how it ended (null while it goes on).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    lead: Annotated[int, Field(title="Lead")]
    ds: Annotated[dict[str, int], Field(title="Ds")]
    status_detail: Annotated[
        Literal["caught", "escaped", "hid", "gave-up"] | None, Field(title="Status Detail")
    ]


class ChaseTacticRecord(BaseModel):
    """
    The escapee's tactic; `attempted` (false) only when she rested instead.

    A hide has the opposed totals when both checked; a hazard its cost and penalty, and once
    attempted whether it was created, the totals, the chaser's check and its DC.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    kind: Annotated[Literal["hide", "hazard"], Field(title="Kind")]
    success: Annotated[bool, Field(title="Success")]
    attempted: Annotated[bool | None, Field(title="Attempted")] = None
    cost: Annotated[int | None, Field(title="Cost")] = None
    penalty: Annotated[int | None, Field(title="Penalty")] = None
    created: Annotated[bool | None, Field(title="Created")] = None
    escapee_total: Annotated[int | None, Field(title="Escapee Total")] = None
    chaser_total: Annotated[int | None, Field(title="Chaser Total")] = None
    chaser_check: Annotated[str | None, Field(title="Chaser Check")] = None
    dc: Annotated[int | None, Field(title="Dc")] = None


class Dc(RootModel[int]):
    root: Annotated[int, Field(ge=0, le=1000, title="Dc")]


class Contestant(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    skill: Annotated[int, Field(description="effective skill", ge=-100, le=1000, title="Skill")]


class CustomObject(BaseModel):
    """
    An object not in docs/rules.md#objects's table.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    weight_lb: Annotated[float, Field(gt=0.0, le=1000000000000000.0, title="Weight Lb")]
    range_increment_ft: Annotated[int, Field(ge=1, le=10000, title="Range Increment Ft")]
    weapon: Annotated[bool | None, Field(description="Default: false.", title="Weapon")] = None
    creature: Annotated[bool | None, Field(description="Default: false.", title="Creature")] = None


class Dc1(RootModel[int]):
    root: Annotated[
        int, Field(description="succeeds when total >= dc", ge=-1000, le=1000, title="Dc")
    ]


class Roll(RootModel[int]):
    root: Annotated[
        int, Field(description="the natural d20, if already rolled", ge=1, le=20, title="Roll")
    ]


class D20CheckRequest(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    modifier: Annotated[int, Field(ge=-1000, le=1000, title="Modifier")]
    dc: Annotated[Dc1 | None, Field(title="Dc")] = None
    roll: Annotated[
        Roll | None, Field(description="the natural d20, if already rolled", title="Roll")
    ] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class DistanceStart(BaseModel):
    """
    The lead is 5 x the increments of the chaser's speed between them.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[Literal["distance"], Field(title="Mode")]
    increments: Annotated[int, Field(ge=1, le=10000, title="Increments")]
    with_initiative: Annotated[
        bool | None,
        Field(
            description="add the 5 DS per increment to the escapee's initiative check (the source's 'increased by') rather than making them the whole lead Default: false.",
            title="With Initiative",
        ),
    ] = None


class Roll1Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=6)]


class Roll1(RootModel[list[Roll1Item]]):
    root: Annotated[list[Roll1Item], Field(max_length=3, min_length=3, title="Roll")]


class GurpsCompetitor(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    skill: Annotated[int, Field(description="effective skill", ge=-100, le=1000, title="Skill")]
    roll: Annotated[Roll1 | None, Field(title="Roll")] = None


class GurpsCompetitorRoll(BaseModel):
    """
    A named competitor's success roll in a quick contest or a resistance roll.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    skill: Annotated[int, Field(title="Skill")]
    roll: Annotated[list[int], Field(title="Roll")]
    total: Annotated[int, Field(title="Total")]
    success: Annotated[bool, Field(title="Success")]
    critical: Annotated[Literal["success", "failure"] | None, Field(title="Critical")]
    margin: Annotated[int, Field(title="Margin")]


class HazardTactic(BaseModel):
    """
    Costs `hazard_base_cost + penalty` DS; Dexterity - penalty vs 14 creates it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    kind: Annotated[Literal["hazard"], Field(title="Kind")]
    penalty: Annotated[int, Field(ge=0, le=1000, title="Penalty")]
    chaser_check: Annotated[
        str | None,
        Field(
            description='Default: "balance".',
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Chaser Check",
        ),
    ] = None


class Health(BaseModel):
    """
    The process answers.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    status: Annotated[Literal["ok"], Field(title="Status")]


class HideTactic(BaseModel):
    """
    Opposed Hide vs Spot: needs a lead of 20 or more and terrain that is not flat.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    kind: Annotated[Literal["hide"], Field(title="Kind")]


class InitiativeStart(BaseModel):
    """
    The escapee's initiative check (`d20 + mods.initiative`) is the lead.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[Literal["initiative"], Field(title="Mode")]


class LeadStart(BaseModel):
    """
    An explicit lead in DS.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[Literal["lead"], Field(title="Mode")]
    lead: Annotated[int, Field(ge=1, le=10000, title="Lead")]


class LoadLimitsIn(BaseModel):
    """
    Light, medium and heavy load maxima in lb, used as given (not scaled by size).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    light: Annotated[int, Field(ge=0, le=1000000000000000000, title="Light")]
    medium: Annotated[int, Field(ge=0, le=1000000000000000000, title="Medium")]
    heavy: Annotated[int, Field(ge=0, le=1000000000000000000, title="Heavy")]


class StrengthScore(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=200, title="Strength Score")]


class StrengthMod(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="defaults to the modifier of strength_score",
            ge=-1000,
            le=1000,
            title="Strength Mod",
        ),
    ]


class Roll2(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="the supplied d20 (distance, caber); in precision a list, one per series",
            ge=1,
            le=20,
            title="Roll",
        ),
    ]


class Roll3Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Roll3(RootModel[list[Roll3Item]]):
    root: Annotated[
        list[Roll3Item],
        Field(
            description="the supplied d20 (distance, caber); in precision a list, one per series",
            max_length=10000,
            title="Roll",
        ),
    ]


class DamageRoll(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="the supplied landing-damage d6 of the creature she throws",
            ge=1,
            le=6,
            title="Damage Roll",
        ),
    ]


class TumbleRoll(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="the supplied Tumble d20 of the creature she throws",
            ge=1,
            le=20,
            title="Tumble Roll",
        ),
    ]


class LongThrowCompetitor(BaseModel):
    """
    A thrower: `strength_score`, `load_limits` or both.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    strength_score: Annotated[StrengthScore | None, Field(title="Strength Score")] = None
    load_limits: LoadLimitsIn | None = None
    size: Annotated[
        Literal[
            "fine",
            "diminutive",
            "tiny",
            "small",
            "medium",
            "large",
            "huge",
            "gargantuan",
            "colossal",
        ]
        | None,
        Field(description='Default: "medium".', title="Size"),
    ] = None
    strength_mod: Annotated[
        StrengthMod | None,
        Field(description="defaults to the modifier of strength_score", title="Strength Mod"),
    ] = None
    dex_mod: Annotated[
        int | None, Field(description="Default: 0.", ge=-1000, le=1000, title="Dex Mod")
    ] = None
    ranged_attack_bonus: Annotated[
        int | None, Field(description="Default: 0.", ge=-1000, le=1000, title="Ranged Attack Bonus")
    ] = None
    weapon_focus: Annotated[
        bool | None,
        Field(
            description="Weapon Focus in this object as a weapon: +1 on the distance check when the object is a weapon Default: false.",
            title="Weapon Focus",
        ),
    ] = None
    far_shot: Annotated[bool | None, Field(description="Default: false.", title="Far Shot")] = None
    tumble_mod: Annotated[
        int | None,
        Field(
            description="Tumble modifier of the creature she throws Default: 0.",
            ge=-1000,
            le=1000,
            title="Tumble Mod",
        ),
    ] = None
    roll: Annotated[
        Roll2 | Roll3 | None,
        Field(
            description="the supplied d20 (distance, caber); in precision a list, one per series",
            title="Roll",
        ),
    ] = None
    damage_roll: Annotated[
        DamageRoll | None,
        Field(
            description="the supplied landing-damage d6 of the creature she throws",
            title="Damage Roll",
        ),
    ] = None
    tumble_roll: Annotated[
        TumbleRoll | None,
        Field(
            description="the supplied Tumble d20 of the creature she throws", title="Tumble Roll"
        ),
    ] = None


class LongThrowCreatureDamage(BaseModel):
    """
    A thrown creature's landing: its damage, its Tumble check, the wall's damage.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    damage: Annotated[int, Field(title="Damage")]
    rolled_damage: Annotated[int, Field(title="Rolled Damage")]
    tumble_roll: Annotated[int, Field(title="Tumble Roll")]
    tumble_total: Annotated[int, Field(title="Tumble Total")]
    negated: Annotated[bool, Field(title="Negated")]
    wall_damage: Annotated[int | None, Field(title="Wall Damage")]


class LongThrowLoadLimits(BaseModel):
    """
    A thrower's light, medium and heavy load maxima in lb (docs/rules.md#who-may-throw-loads).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    light: Annotated[int, Field(title="Light")]
    medium: Annotated[int, Field(title="Medium")]
    heavy: Annotated[int, Field(title="Heavy")]


class LongThrowObject(BaseModel):
    """
    The object thrown in a long throw, standard or custom (docs/rules.md#objects).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    weight_lb: Annotated[float, Field(title="Weight Lb")]
    range_increment_ft: Annotated[int, Field(title="Range Increment Ft")]
    weapon: Annotated[bool, Field(title="Weapon")]
    creature: Annotated[bool, Field(title="Creature")]


class LongThrowPrecisionThrow(BaseModel):
    """
    One attack roll of a precision series (docs/rules.md#long-throw-variants).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    roll: Annotated[int, Field(title="Roll")]
    range_penalty: Annotated[int, Field(title="Range Penalty")]
    total: Annotated[int, Field(title="Total")]
    hit: Annotated[bool, Field(title="Hit")]


class TossDistanceFt(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="halfling-toss only: how far away the bank is, 15 (the default) or more",
            ge=15,
            le=1000000,
            title="Toss Distance Ft",
        ),
    ]


class LongThrowRequest(BaseModel):
    """
    A long-throw competition: the object, the mode and the throwers
    (docs/rules.md#long-throws).

    Rules across fields:
    - competitor names are unique;
    - every competitor gives `strength_score`, `load_limits` or both;
    - `load_limits` are in order: light <= medium <= heavy;
    - in `distance` and `halfling-toss` mode, and in `caber` with a creature thrown
      `into_wall`, a competitor who can lift the object needs `strength_mod` or
      `strength_score`;
    - `halfling-toss` throws a creature (`halfling`, or a custom object with `creature: true`),
      never `into_wall`; `toss_distance_ft` is for that mode only.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    object: Annotated[
        Literal["javelin", "discus", "stone", "halfling", "small-boulder", "log"] | CustomObject,
        Field(title="Object"),
    ]
    mode: Annotated[
        Literal["distance", "caber", "precision", "halfling-toss"] | None,
        Field(
            description='distance, caber, precision, or halfling-toss: a toss into a snow bank or hay bale toss_distance_ft away, where a thrower who falls short loses Default: "distance".',
            title="Mode",
        ),
    ] = None
    into_wall: Annotated[bool | None, Field(description="Default: false.", title="Into Wall")] = (
        None
    )
    max_series: Annotated[
        int | None, Field(description="Default: 40.", ge=1, le=10000, title="Max Series")
    ] = None
    toss_distance_ft: Annotated[
        TossDistanceFt | None,
        Field(
            description="halfling-toss only: how far away the bank is, 15 (the default) or more",
            title="Toss Distance Ft",
        ),
    ] = None
    far_shot_doubles: Annotated[
        Literal["check", "die"] | None,
        Field(
            description='what Far Shot doubles in a distance or halfling-toss DS: the whole check (check) or the d20 alone (die) Default: "check".',
            title="Far Shot Doubles",
        ),
    ] = None
    competitors: Annotated[
        list[LongThrowCompetitor], Field(max_length=64, min_length=1, title="Competitors")
    ]
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class LongThrowSeries(BaseModel):
    """
    One precision series: the target's distance, every throw, who went out.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    number: Annotated[int, Field(title="Number")]
    distance_increments: Annotated[int, Field(title="Distance Increments")]
    throws: Annotated[list[LongThrowPrecisionThrow], Field(title="Throws")]
    out: Annotated[list[str], Field(title="Out")]


class OddsArmWrestleAnswer(BaseModel):
    """
    The answer of `POST /v1/odds/arm-wrestles` and of a match's `GET …/odds`
    (docs/rules.md#arm-wrestling), from the start or from where the match stands.

    `method` `exact` (a walk over the difference of the DS, docs/rules.md#odds): every
    `*_exact` is a fraction (or, past 4000 digits, its 17-digit decimal) and `error_bound` is
    null. `method` `bounded`, for a match too long for the exact walk: the same walk in
    doubles with every rounding counted; each `*_exact` is null and `error_bound` gives, per
    answer, how far at most the double is from the exact value (no Monte Carlo either way).
    `standard_error`, `trials` and `seed` are always null (no estimate is made; a request's
    `seed` changes nothing). `expected_rounds` counts the whole match (a stopped match as
    `max_rounds`).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    method: Annotated[Literal["exact", "bounded"], Field(title="Method")]
    a: Annotated[str, Field(title="A")]
    b: Annotated[str, Field(title="B")]
    a_wins: Annotated[float, Field(title="A Wins")]
    a_wins_exact: Annotated[str | None, Field(title="A Wins Exact")]
    b_wins: Annotated[float, Field(title="B Wins")]
    b_wins_exact: Annotated[str | None, Field(title="B Wins Exact")]
    draw: Annotated[float, Field(title="Draw")]
    draw_exact: Annotated[str | None, Field(title="Draw Exact")]
    undecided: Annotated[float, Field(title="Undecided")]
    undecided_exact: Annotated[str | None, Field(title="Undecided Exact")]
    expected_rounds: Annotated[float, Field(title="Expected Rounds")]
    expected_rounds_exact: Annotated[str | None, Field(title="Expected Rounds Exact")]
    error_bound: Annotated[dict[str, float] | None, Field(title="Error Bound")]
    standard_error: Annotated[dict[str, float] | None, Field(title="Standard Error")]
    trials: Annotated[int | None, Field(title="Trials")]
    seed: Annotated[int | None, Field(title="Seed")]
    rounds_played: Annotated[int, Field(title="Rounds Played")]
    summary: Annotated[str, Field(title="Summary")]


class OddsCairnAnswer(BaseModel):
    """
    The answer of `POST /v1/odds/cairn` (docs/rules.md#cairn-hill-roll): the score's whole
    distribution.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    method: Annotated[Literal["exact"], Field(title="Method")]
    rating: Annotated[int, Field(title="Rating")]
    chosen_names: Annotated[
        list[
            Literal[
                "worst",
                "second worst",
                "third worst",
                "middle",
                "third best",
                "second best",
                "best",
            ]
        ],
        Field(title="Chosen Names"),
    ]
    distribution: Annotated[dict[str, float], Field(title="Distribution")]
    distribution_exact: Annotated[dict[str, str], Field(title="Distribution Exact")]
    mean: Annotated[float, Field(title="Mean")]
    mean_exact: Annotated[str, Field(title="Mean Exact")]
    critical_success: Annotated[float, Field(title="Critical Success")]
    critical_success_exact: Annotated[str, Field(title="Critical Success Exact")]
    critical_failure: Annotated[float, Field(title="Critical Failure")]
    critical_failure_exact: Annotated[str, Field(title="Critical Failure Exact")]
    target: Annotated[int | None, Field(title="Target")]
    success: Annotated[float | None, Field(title="Success")]
    success_exact: Annotated[str | None, Field(title="Success Exact")]
    summary: Annotated[str, Field(title="Summary")]


class OddsChaseAnswer(BaseModel):
    """
    The answer of `POST /v1/odds/chases` (docs/rules.md#chases) and of a chase's
    `GET …/odds` and `POST …/odds`.

    `escaped` counts escapes by the lead and by hiding (`hid`, its part won by hiding);
    `gave_up` is the chase still on after `max_rounds` (the chaser gives up). Exact over the
    lead when the walk fits the service's budget, else Monte Carlo (then `*_exact` are null
    and `standard_error`, `trials`, `seed` are given; the errors by the Agresti-Coull rule,
    so an outcome never seen is 0 with an error of about 1.4 / trials, never 0 +- 0).
    `expected_increments` counts the whole chase, the `increments_played` included.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    method: Annotated[Literal["exact", "monte-carlo"], Field(title="Method")]
    escapee: Annotated[str, Field(title="Escapee")]
    chaser: Annotated[str, Field(title="Chaser")]
    tactic_policy: Annotated[Literal["none", "hide-when-possible"], Field(title="Tactic Policy")]
    caught: Annotated[float, Field(title="Caught")]
    caught_exact: Annotated[str | None, Field(title="Caught Exact")]
    escaped: Annotated[float, Field(title="Escaped")]
    escaped_exact: Annotated[str | None, Field(title="Escaped Exact")]
    hid: Annotated[float, Field(title="Hid")]
    hid_exact: Annotated[str | None, Field(title="Hid Exact")]
    gave_up: Annotated[float, Field(title="Gave Up")]
    gave_up_exact: Annotated[str | None, Field(title="Gave Up Exact")]
    expected_increments: Annotated[float, Field(title="Expected Increments")]
    expected_increments_exact: Annotated[str | None, Field(title="Expected Increments Exact")]
    standard_error: Annotated[dict[str, float] | None, Field(title="Standard Error")]
    trials: Annotated[int | None, Field(title="Trials")]
    seed: Annotated[int | None, Field(title="Seed")]
    increments_played: Annotated[int, Field(title="Increments Played")]
    summary: Annotated[str, Field(title="Summary")]


class OddsChaseChoice(BaseModel):
    """
    One option: its label, its `move` as sent, and the chase's odds once that increment
    is the next one played (its dice unknown): `…/odds`'s answer for that session.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    label: Annotated[str, Field(title="Label")]
    move: Annotated[dict[str, Any], Field(title="Move")]
    odds: OddsChaseAnswer


class OddsChaseChoicesAnswer(BaseModel):
    """
    The answer of `POST /v1/chases/{id}/odds/choices`: each option in the order sent;
    `best` the label of the option the escapee gets away with most often (the first of
    equals); `summary` one line for a chat.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    options: Annotated[list[OddsChaseChoice], Field(title="Options")]
    best: Annotated[str, Field(title="Best")]
    summary: Annotated[str, Field(title="Summary")]


class Trials(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="trials of a Monte Carlo estimate, 1 to 10000: its standard errors shrink as 1/sqrt(trials); without it, the service's default budget of work. The request's work limit of dice may stop it sooner (`trials` in the answer says how many were played); exact answers ignore it",
            ge=1,
            le=10000,
            title="Trials",
        ),
    ]


class Label(RootModel[str]):
    root: Annotated[str, Field(max_length=100, min_length=1, title="Label")]


class OddsPair(BaseModel):
    """
    One opponent's own figures: the chance that the competitor beats it, ties with it (a
    GURPS quick contest only), or is beaten by it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    opponent: Annotated[str, Field(title="Opponent")]
    beats: Annotated[float, Field(title="Beats")]
    beats_exact: Annotated[str, Field(title="Beats Exact")]
    ties: Annotated[float, Field(title="Ties")]
    ties_exact: Annotated[str, Field(title="Ties Exact")]
    beaten_by: Annotated[float, Field(title="Beaten By")]
    beaten_by_exact: Annotated[str, Field(title="Beaten By Exact")]


class OddsPartyTokens(BaseModel):
    """
    One party's round: `token` is each chosen skill's chance of earning a token (its best
    member's result against the DC); `tokens` the distribution of tokens earned.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    skills: Annotated[list[str], Field(title="Skills")]
    token: Annotated[dict[str, float], Field(title="Token")]
    token_exact: Annotated[dict[str, str], Field(title="Token Exact")]
    tokens: Annotated[dict[str, float], Field(title="Tokens")]
    tokens_exact: Annotated[dict[str, str], Field(title="Tokens Exact")]
    expected_tokens: Annotated[float, Field(title="Expected Tokens")]
    expected_tokens_exact: Annotated[str, Field(title="Expected Tokens Exact")]


class OddsQuickContestAnswer(BaseModel):
    """
    The answer of `POST /v1/odds/gurps/quick-contest` (docs/rules.md#quick-contest).

    `margin_of_victory` is the distribution of the winner's margin, given that somebody wins.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    method: Annotated[Literal["exact"], Field(title="Method")]
    a: Annotated[str, Field(title="A")]
    b: Annotated[str, Field(title="B")]
    a_wins: Annotated[float, Field(title="A Wins")]
    a_wins_exact: Annotated[str, Field(title="A Wins Exact")]
    b_wins: Annotated[float, Field(title="B Wins")]
    b_wins_exact: Annotated[str, Field(title="B Wins Exact")]
    tie: Annotated[float, Field(title="Tie")]
    tie_exact: Annotated[str, Field(title="Tie Exact")]
    margin_of_victory: Annotated[dict[str, float], Field(title="Margin Of Victory")]
    margin_of_victory_exact: Annotated[dict[str, str], Field(title="Margin Of Victory Exact")]
    summary: Annotated[str, Field(title="Summary")]


class OddsRaceAnswer(BaseModel):
    """
    The answer of `POST /v1/odds/races` (docs/rules.md#races) and of a race's `GET …/odds`:
    a seeded Monte Carlo estimate.

    `wins` is each racer's chance of winning outright, `forfeits` of forfeiting; `tie` a
    shared first place, `nobody` every racer forfeited; `standard_error` gives each one's
    (`wins.<name>`, `forfeits.<name>`, `tie`, `nobody`), by the Agresti-Coull rule: an
    outcome never seen in the trials is 0 with an error of about 1.4 / trials, never
    0 +- 0. A finished race answers its result with `method` "exact", one trial and no error.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    method: Annotated[Literal["exact", "monte-carlo"], Field(title="Method")]
    wins: Annotated[dict[str, float], Field(title="Wins")]
    forfeits: Annotated[dict[str, float], Field(title="Forfeits")]
    tie: Annotated[float, Field(title="Tie")]
    nobody: Annotated[float, Field(title="Nobody")]
    standard_error: Annotated[dict[str, float], Field(title="Standard Error")]
    trials: Annotated[int, Field(title="Trials")]
    seed: Annotated[int, Field(title="Seed")]
    increments_played: Annotated[int, Field(title="Increments Played")]
    summary: Annotated[str, Field(title="Summary")]


class OddsRaceChoice(BaseModel):
    """
    One option: its label, its `move` as sent, and the race's odds once that racer races
    at that pacing (the others at theirs): `…/odds`'s answer for that race.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    label: Annotated[str, Field(title="Label")]
    move: Annotated[dict[str, Any], Field(title="Move")]
    odds: OddsRaceAnswer


class OddsRaceChoicesAnswer(BaseModel):
    """
    The answer of `POST /v1/races/{id}/odds/choices`: each option in the order sent;
    `best` the label of the option whose racer wins most often (the first of equals);
    `summary` one line for a chat.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    options: Annotated[list[OddsRaceChoice], Field(title="Options")]
    best: Annotated[str, Field(title="Best")]
    summary: Annotated[str, Field(title="Summary")]


class OddsRankedEntry(BaseModel):
    """
    A competitor's chance to place first alone, and to share first place.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    first: Annotated[float, Field(title="First")]
    first_exact: Annotated[str, Field(title="First Exact")]
    shared_first: Annotated[float, Field(title="Shared First")]
    shared_first_exact: Annotated[str, Field(title="Shared First Exact")]


class OddsRegularContestAnswer(BaseModel):
    """
    The answer of `POST /v1/odds/gurps/regular-contest` (docs/rules.md#regular-contest).

    `expected_rounds` counts an undecided contest as `max_rounds` rounds; `rounds_played` is
    0 for a fresh contest, or the rounds a session has played (odds from here).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    method: Annotated[Literal["exact"], Field(title="Method")]
    effective_skills: Annotated[dict[str, int], Field(title="Effective Skills")]
    a_wins: Annotated[float, Field(title="A Wins")]
    a_wins_exact: Annotated[str, Field(title="A Wins Exact")]
    b_wins: Annotated[float, Field(title="B Wins")]
    b_wins_exact: Annotated[str, Field(title="B Wins Exact")]
    undecided: Annotated[float, Field(title="Undecided")]
    undecided_exact: Annotated[str, Field(title="Undecided Exact")]
    expected_rounds: Annotated[float, Field(title="Expected Rounds")]
    expected_rounds_exact: Annotated[str, Field(title="Expected Rounds Exact")]
    rounds_played: Annotated[int, Field(title="Rounds Played")]
    summary: Annotated[str, Field(title="Summary")]


class OddsResistanceRollAnswer(BaseModel):
    """
    The answer of `POST /v1/odds/gurps/resistance-roll` (docs/rules.md#resistance-roll).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    method: Annotated[Literal["exact"], Field(title="Method")]
    attacker: Annotated[str, Field(title="Attacker")]
    defender: Annotated[str, Field(title="Defender")]
    affected: Annotated[float, Field(title="Affected")]
    affected_exact: Annotated[str, Field(title="Affected Exact")]
    summary: Annotated[str, Field(title="Summary")]


class OddsSkillGameTokensAnswer(BaseModel):
    """
    The answer of `POST /v1/odds/skill-games/tokens` (docs/rules.md#skill-games): per party
    named, the exact distribution of tokens earned in one round under the game's
    `token_rule`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    method: Annotated[Literal["exact"], Field(title="Method")]
    dc: Annotated[int, Field(title="Dc")]
    token_rule: Annotated[Literal["exceed", "meet"], Field(title="Token Rule")]
    parties: Annotated[dict[str, OddsPartyTokens], Field(title="Parties")]
    summary: Annotated[str, Field(title="Summary")]


class SkillsAdditionalPropertyItem(RootModel[str]):
    root: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
        ),
    ]


SkillsAdditionalProperty = TypeAliasType(
    "SkillsAdditionalProperty", Annotated[list[SkillsAdditionalPropertyItem], Field(max_length=64)]
)


class OddsSuccessRollAnswer(BaseModel):
    """
    The answer of `POST /v1/odds/gurps/success-roll` (docs/rules.md#success-roll).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    method: Annotated[Literal["exact"], Field(title="Method")]
    skill: Annotated[int, Field(title="Skill")]
    success: Annotated[float, Field(title="Success")]
    success_exact: Annotated[str, Field(title="Success Exact")]
    critical_success: Annotated[float, Field(title="Critical Success")]
    critical_success_exact: Annotated[str, Field(title="Critical Success Exact")]
    critical_failure: Annotated[float, Field(title="Critical Failure")]
    critical_failure_exact: Annotated[str, Field(title="Critical Failure Exact")]
    margin: Annotated[dict[str, float], Field(title="Margin")]
    margin_exact: Annotated[dict[str, str], Field(title="Margin Exact")]
    summary: Annotated[str, Field(title="Summary")]


class OpposedAttempt(BaseModel):
    """
    One pair of checks: each side's natural d20 and total.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    competitor_roll: Annotated[int, Field(title="Competitor Roll")]
    competitor_total: Annotated[int, Field(title="Competitor Total")]
    opponent_roll: Annotated[int, Field(title="Opponent Roll")]
    opponent_total: Annotated[int, Field(title="Opponent Total")]


class Roll4(RootModel[int]):
    root: Annotated[
        int, Field(description="the natural d20, if already rolled", ge=1, le=20, title="Roll")
    ]


class RerollsAdditionalPropertyItem(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


RerollsAdditionalProperty = TypeAliasType(
    "RerollsAdditionalProperty",
    Annotated[list[RerollsAdditionalPropertyItem], Field(max_length=20)],
)


class OpposedCompetitor(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    modifier: Annotated[int, Field(ge=-1000, le=1000, title="Modifier")]
    roll: Annotated[
        Roll4 | None, Field(description="the natural d20, if already rolled", title="Roll")
    ] = None
    rerolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            RerollsAdditionalProperty,
        ]
        | None,
        Field(
            description="the competitor's own rerolls of a tie, by opponent: a pair that ties with equal modifiers rolls again, the competitor's reroll that pair's own",
            title="Rerolls",
        ),
    ] = None


class Reroll(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Rerolls(RootModel[list[Reroll]]):
    root: Annotated[
        list[Reroll],
        Field(
            description="the opponent's rerolls of a tie, in order", max_length=20, title="Rerolls"
        ),
    ]


class OpposedOpponent(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    modifier: Annotated[int, Field(ge=-1000, le=1000, title="Modifier")]
    roll: Annotated[
        Roll4 | None, Field(description="the natural d20, if already rolled", title="Roll")
    ] = None
    rerolls: Annotated[
        Rerolls | None,
        Field(description="the opponent's rerolls of a tie, in order", title="Rerolls"),
    ] = None


class OpposedPairResult(BaseModel):
    """
    One opponent's opposed check against the competitor: every attempt (the first holds
    the competitor's one d20; the last decided it).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    opponent: Annotated[str, Field(title="Opponent")]
    modifier: Annotated[int, Field(title="Modifier")]
    winner: Annotated[str, Field(title="Winner")]
    attempts: Annotated[list[OpposedAttempt], Field(title="Attempts")]


class OwedDie(BaseModel):
    """
    Dice a seat owes in the round waiting for them: a purpose of its dice (as a round
    body's `rolls` names it), the die's `sides` (a dice expression's: its `notation`
    instead, whose `most` counts rolls), how many values it surely rolls (`certain`, owed
    before the seat is done) and how many it may roll at most (`most`, null: no bound), and
    for a conditional die when it is rolled. A seat may send its conditional dice with its
    sure ones; those it does not send the server rolls if the round needs them. A round
    opened before `sides` was told has none.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    purpose: Annotated[str, Field(title="Purpose")]
    sides: Annotated[int | None, Field(title="Sides")] = None
    notation: Annotated[str | None, Field(title="Notation")] = None
    certain: Annotated[int, Field(title="Certain")]
    most: Annotated[int | None, Field(title="Most")]
    when: Annotated[str | None, Field(title="When")]


class PendingRound(BaseModel):
    """
    A round waiting for the seats' dice: its number, who it still waits for, what each
    seat owes (`owes`, by name), and the moment the server rolls the dice still missing.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    number: Annotated[int, Field(title="Number")]
    waiting_for: Annotated[list[str], Field(title="Waiting For")]
    deadline: Annotated[AwareDatetime, Field(title="Deadline")]
    owes: Annotated[dict[str, list[OwedDie]] | None, Field(title="Owes")] = None
    seconds_left: Annotated[int | None, Field(title="Seconds Left")] = None


class Pinged(BaseModel):
    """
    A ping written to the subscription's queue: its `webhook-id` (the delivery's
    `webhook_id` in `…/deliveries`, where what came of it is listed).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    webhook_id: Annotated[str, Field(title="Webhook Id")]
    summary: Annotated[str, Field(title="Summary")]


class ProofOpening(BaseModel):
    """
    What a sealed choice hides, and the salt it was sealed with: the SHA-256 of this
    object's canonical JSON is the choice's `seal` (docs/verifiable-dice.md#sealed-choices).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    action: Annotated[str, Field(title="Action")]
    salt: Annotated[str, Field(title="Salt")]


class QuickContestPair(BaseModel):
    """
    One opponent's roll and its quick contest with the competitor.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    opponent: GurpsCompetitorRoll
    winner: Annotated[str | None, Field(title="Winner")]
    tie: Annotated[bool, Field(title="Tie")]
    margin_of_victory: Annotated[int | None, Field(title="Margin Of Victory")]


class QuickContestRequest(BaseModel):
    """
    A quick contest: both competitors roll once (docs/rules.md#quick-contest).

    Rules across fields:
    - `a` and `b` have different names.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    a: GurpsCompetitor
    b: GurpsCompetitor
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class Opponents2(RootModel[list[GurpsCompetitor]]):
    root: Annotated[list[GurpsCompetitor], Field(max_length=64, min_length=1, title="Opponents")]


class Competitors2(RootModel[list[GurpsCompetitor]]):
    root: Annotated[list[GurpsCompetitor], Field(max_length=64, min_length=2, title="Competitors")]


class QuickContestsOddsRequest(BaseModel):
    """
    The same body as `POST /v1/gurps/quick-contests`; supplied rolls are not read.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[
        Literal["versus", "ranked"] | None, Field(description='Default: "versus".', title="Mode")
    ] = None
    competitor: GurpsCompetitor | None = None
    opponents: Annotated[Opponents2 | None, Field(title="Opponents")] = None
    competitors: Annotated[Competitors2 | None, Field(title="Competitors")] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class QuickContestsRequest(BaseModel):
    """
    One competitor's single roll against each opponent's own (`mode` "versus", the
    default: `competitor` and `opponents`), or everyone ranked by one roll each (`mode`
    "ranked": `competitors`). docs/rules.md#one-against-many.

    Rules across fields:
    - "versus" takes `competitor` and `opponents` and no `competitors`; "ranked" takes
      `competitors` and neither of the others;
    - every name differs from every other.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[
        Literal["versus", "ranked"] | None, Field(description='Default: "versus".', title="Mode")
    ] = None
    competitor: GurpsCompetitor | None = None
    opponents: Annotated[Opponents2 | None, Field(title="Opponents")] = None
    competitors: Annotated[Competitors2 | None, Field(title="Competitors")] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class RaceCheckRecord(BaseModel):
    """
    One d20 check made in an increment (`dc` and `success` null when it has no DC).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    kind: Annotated[
        Literal["constitution", "obstacle", "hazard", "ride", "increment", "retry"],
        Field(title="Kind"),
    ]
    check: Annotated[str, Field(title="Check")]
    roll: Annotated[int, Field(title="Roll")]
    total: Annotated[int, Field(title="Total")]
    dc: Annotated[int | None, Field(title="Dc")]
    success: Annotated[bool | None, Field(title="Success")]


ModsAdditionalProperty = TypeAliasType(
    "ModsAdditionalProperty", Annotated[int, Field(ge=-1000, le=1000)]
)


class ConScore(RootModel[int]):
    root: Annotated[int, Field(ge=0, le=200, title="Con Score")]


class ConMod(RootModel[int]):
    root: Annotated[
        int, Field(description="defaults to con_score's", ge=-1000, le=1000, title="Con Mod")
    ]


class Feat(RootModel[str]):
    root: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
        ),
    ]


class Feats(RootModel[list[Feat]]):
    root: Annotated[
        list[Feat], Field(description="run, endurance, ...", max_length=32, title="Feats")
    ]


class RaceCompetitorLine(BaseModel):
    """
    One competitor in a round record; `total` is null when she made no increment check.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    gained: Annotated[int, Field(title="Gained")]
    total: Annotated[int | None, Field(title="Total")]
    ds: Annotated[int, Field(title="Ds")]
    standing: Annotated[Literal["racing", "forfeited"], Field(title="Standing")]
    events: Annotated[list[str], Field(title="Events")]
    checks: Annotated[list[RaceCheckRecord], Field(title="Checks")]


class Obstacle4(RootModel[int]):
    root: Annotated[
        int,
        Field(
            description="the obstacle or hazard die, then each retry's, in order",
            ge=1,
            le=20,
            title="Obstacle",
        ),
    ]


class Obstacle5Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Obstacle5(RootModel[list[Obstacle5Item]]):
    root: Annotated[
        list[Obstacle5Item],
        Field(
            description="the obstacle or hazard die, then each retry's, in order",
            max_length=101,
            min_length=1,
            title="Obstacle",
        ),
    ]


class Damage4Item(RootModel[int]):
    root: Annotated[int, Field(ge=1)]


class Damage4(RootModel[list[Damage4Item]]):
    root: Annotated[
        list[Damage4Item],
        Field(
            description="every die of the damage rolled, in order",
            max_length=10000,
            min_length=1,
            title="Damage",
        ),
    ]


class RaceDice(BaseModel):
    """
    One competitor's supplied dice for one increment.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    check: Annotated[Check | None, Field(title="Check")] = None
    obstacle: Annotated[
        Obstacle4 | Obstacle5 | None,
        Field(
            description="the obstacle or hazard die, then each retry's, in order", title="Obstacle"
        ),
    ] = None
    constitution: Annotated[Constitution | None, Field(title="Constitution")] = None
    ride: Annotated[Ride | None, Field(title="Ride")] = None
    damage: Annotated[
        Damage4 | None,
        Field(description="every die of the damage rolled, in order", title="Damage"),
    ] = None


class Dc2(RootModel[int]):
    root: Annotated[int, Field(ge=0, le=1000, title="Dc")]


class Name(RootModel[str]):
    root: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]


class RaceMount(BaseModel):
    """
    A mount: its Strength check and speed replace the rider's on mounted increments.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[Name | None, Field(title="Name")] = None
    strength_mod: Annotated[int, Field(ge=-1000, le=1000, title="Strength Mod")]
    speed: Annotated[int, Field(description="feet per round", ge=0, le=10000, title="Speed")]
    con_score: Annotated[ConScore | None, Field(title="Con Score")] = None
    con_mod: Annotated[
        ConMod | None, Field(description="defaults to con_score's", title="Con Mod")
    ] = None
    living: Annotated[
        bool | None,
        Field(description="a mount that is not living never tires Default: true.", title="Living"),
    ] = None


class RaceMountConfig(BaseModel):
    """
    A mount as the session's config spells it out (`con_mod` derived from `con_score`).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str | None, Field(title="Name")]
    strength_mod: Annotated[int, Field(title="Strength Mod")]
    speed: Annotated[int, Field(title="Speed")]
    con_score: Annotated[int | None, Field(title="Con Score")]
    con_mod: Annotated[int | None, Field(title="Con Mod")]
    living: Annotated[bool, Field(title="Living")]


class Damage5(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description="dice notation (docs/rules.md#dice-notation), e.g. 3d6",
            max_length=1000,
            min_length=1,
            title="Damage",
        ),
    ]


class RaceObstacle(BaseModel):
    """
    An obstacle (must be passed) or a hazard (failure adds 0) before the increment check;
    a hazard is never retried.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    kind: Annotated[Literal["obstacle", "hazard"], Field(title="Kind")]
    check: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Check",
        ),
    ]
    dc: Annotated[int, Field(ge=0, le=1000, title="Dc")]
    retry: Annotated[bool | None, Field(description="Default: false.", title="Retry")] = None
    damage: Annotated[Damage5 | None, Field(title="Damage")] = None


class RaceObstacleConfig(BaseModel):
    """
    An obstacle or hazard before an increment's check.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    kind: Annotated[Literal["obstacle", "hazard"], Field(title="Kind")]
    check: Annotated[str, Field(title="Check")]
    dc: Annotated[int, Field(title="Dc")]
    retry: Annotated[bool, Field(title="Retry")]
    damage: Annotated[str | None, Field(title="Damage")]


class RacePacing(BaseModel):
    """
    The body of `POST /v1/races/{id}/pacing`: a racer's pacing for the whole race, chosen
    before its first increment (docs/rules.md#races, "Pacing").
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    pacing: Annotated[Literal["normal", "sprint", "pace"], Field(title="Pacing")]


class RaceResult(BaseModel):
    """
    A finished race: the winners (several on a tie, none when everybody forfeited).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    winners: Annotated[list[str], Field(title="Winners")]
    tie: Annotated[bool, Field(title="Tie")]
    ds: Annotated[dict[str, int], Field(title="Ds")]
    standing: Annotated[dict[str, Literal["racing", "forfeited"]], Field(title="Standing")]
    damage: Annotated[dict[str, int], Field(title="Damage")]
    flags: Annotated[dict[str, list[str]], Field(title="Flags")]


class RaceRound(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    collect: Annotated[
        bool | None,
        Field(
            description="wait for each seat's dice instead of rolling (a seated session) Default: false.",
            title="Collect",
        ),
    ] = None
    deadline_seconds: Annotated[DeadlineSeconds | None, Field(title="Deadline Seconds")] = None
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            RaceDice,
        ]
        | None,
        Field(title="Rolls"),
    ] = None


class RaceSeatDice(BaseModel):
    """
    One competitor's dice for the round waiting for them, as a round body's `rolls` carries them (a seat's token: only its own competitor's).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            RaceDice,
        ],
        Field(min_length=1, title="Rolls"),
    ]


class Land(RootModel[int]):
    root: Annotated[int, Field(description="feet per round", ge=0, le=10000, title="Land")]


class Swim(RootModel[int]):
    root: Annotated[int, Field(description="feet per round", ge=0, le=10000, title="Swim")]


class Climb(RootModel[int]):
    root: Annotated[int, Field(description="feet per round", ge=0, le=10000, title="Climb")]


class RaceSpeeds(BaseModel):
    """
    Speeds (ft) per movement; a missing one is the competitor's `speed`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    land: Annotated[Land | None, Field(title="Land")] = None
    swim: Annotated[Swim | None, Field(title="Swim")] = None
    climb: Annotated[Climb | None, Field(title="Climb")] = None


class RaceSpeedsConfig(BaseModel):
    """
    The speeds given (ft), by movement; a missing one is the competitor's `speed`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    land: Annotated[int | None, Field(title="Land")] = None
    swim: Annotated[int | None, Field(title="Swim")] = None
    climb: Annotated[int | None, Field(title="Climb")] = None


class RaceState(BaseModel):
    """
    A race's `state`: increments done of `of`, and every competitor's DS, standing, damage.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    increment: Annotated[int, Field(title="Increment")]
    of: Annotated[int, Field(title="Of")]
    ds: Annotated[dict[str, int], Field(title="Ds")]
    standing: Annotated[dict[str, Literal["racing", "forfeited"]], Field(title="Standing")]
    damage: Annotated[dict[str, int], Field(title="Damage")]
    flags: Annotated[dict[str, list[str]], Field(title="Flags")]
    pacing: Annotated[dict[str, Literal["normal", "sprint", "pace"]], Field(title="Pacing")]


class RankedCheckEntry(BaseModel):
    """
    A competitor's place (1 is first; those still tied after every reroll share a place,
    the next skipped), its check, and the natural d20s of its rerolls of a tie.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    place: Annotated[int, Field(title="Place")]
    name: Annotated[str, Field(title="Name")]
    modifier: Annotated[int, Field(title="Modifier")]
    roll: Annotated[int, Field(title="Roll")]
    total: Annotated[int, Field(title="Total")]
    rerolls: Annotated[list[int], Field(title="Rerolls")]


class Rerolls1Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Rerolls1(RootModel[list[Rerolls1Item]]):
    root: Annotated[
        list[Rerolls1Item],
        Field(
            description="the competitor's rerolls of a tie with those equal to it in total and modifier, in order",
            max_length=20,
            title="Rerolls",
        ),
    ]


class RankedChecker(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    modifier: Annotated[int, Field(ge=-1000, le=1000, title="Modifier")]
    roll: Annotated[
        Roll4 | None, Field(description="the natural d20, if already rolled", title="Roll")
    ] = None
    rerolls: Annotated[
        Rerolls1 | None,
        Field(
            description="the competitor's rerolls of a tie with those equal to it in total and modifier, in order",
            title="Rerolls",
        ),
    ] = None


class RankedEntry(BaseModel):
    """
    A competitor's place (1 is first; equal results share a place, the next skipped).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    skill: Annotated[int, Field(title="Skill")]
    roll: Annotated[list[int], Field(title="Roll")]
    total: Annotated[int, Field(title="Total")]
    success: Annotated[bool, Field(title="Success")]
    critical: Annotated[Literal["success", "failure"] | None, Field(title="Critical")]
    margin: Annotated[int, Field(title="Margin")]
    place: Annotated[int, Field(title="Place")]


class Readiness(BaseModel):
    """
    The store is reachable, migrated to head and takes changes (a committed write, at most
    every few seconds; `store: "none"` without a store), and the odds worker is running.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    status: Annotated[Literal["ready"], Field(title="Status")]
    store: Annotated[Literal["none"] | None, Field(title="Store")] = None


class RegularContestCreate(BaseModel):
    """
    A new regular contest: its two sides and options (docs/rules.md#regular-contest).

    Rules across fields:
    - the two sides' names differ;
    - `dice` "verifiable" takes no `seed`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    a: Contestant
    b: Contestant
    normalize: Annotated[bool | None, Field(description="Default: true.", title="Normalize")] = None
    max_rounds: Annotated[
        int | None, Field(description="Default: 100.", ge=1, le=10000, title="Max Rounds")
    ] = None
    seconds_per_round: Annotated[
        int | None, Field(description="Default: 1.", ge=0, le=86400, title="Seconds Per Round")
    ] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None
    dice: Annotated[
        Literal["server", "verifiable"] | None,
        Field(
            description='`"verifiable"`: every server die derived from a committed secret seed and the seeds the token holders add, every round chained, all of it revealed once the session is over (docs/verifiable-dice.md); not with `seed` Default: "server".',
            title="Dice",
        ),
    ] = None
    seats: Annotated[
        bool | None,
        Field(
            description="give each competitor a seat token (`tokens.seats`), which reads the session and posts only that competitor's dice Default: false.",
            title="Seats",
        ),
    ] = None


class RegularContestResult(BaseModel):
    """
    A finished regular contest's `result`: who won after how many rounds, or undecided.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    winner: Annotated[str | None, Field(title="Winner")]
    status: Annotated[Literal["decided", "undecided"], Field(title="Status")]
    rounds_taken: Annotated[int, Field(title="Rounds Taken")]
    game_seconds: Annotated[int, Field(title="Game Seconds")]
    effective_skills: Annotated[dict[str, int], Field(title="Effective Skills")]


class RegularContestSide(BaseModel):
    """
    One side's success roll in a round of a regular contest, against its adjusted skill.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    roll: Annotated[list[int], Field(title="Roll")]
    total: Annotated[int, Field(title="Total")]
    success: Annotated[bool, Field(title="Success")]
    skill: Annotated[int, Field(title="Skill")]
    margin: Annotated[int, Field(title="Margin")]
    critical: Annotated[Literal["success", "failure"] | None, Field(title="Critical")]


class RegularContestState(BaseModel):
    """
    A regular contest's `state`: rounds played, the winner so far, the adjusted skills.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rounds: Annotated[int, Field(title="Rounds")]
    winner: Annotated[str | None, Field(title="Winner")]
    effective_skills: Annotated[dict[str, int], Field(title="Effective Skills")]


class RegularContestant(BaseModel):
    """
    One side of a regular contest as created: its name and skill before any adjustment.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    skill: Annotated[int, Field(title="Skill")]


class SuccessItem(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=6)]


class Success(RootModel[list[SuccessItem]]):
    root: Annotated[list[SuccessItem], Field(max_length=3, min_length=3, title="Success")]


class RegularRollSupply(BaseModel):
    """
    One contestant's dice in a round body: its fields are the dice purposes.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    success: Annotated[Success | None, Field(title="Success")] = None


class RegularRoundSide(BaseModel):
    """
    One side's roll in a round of a one-shot regular contest.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    roll: Annotated[list[int], Field(title="Roll")]
    total: Annotated[int, Field(title="Total")]
    success: Annotated[bool, Field(title="Success")]


class Replayed(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    replayed: Annotated[int, Field(title="Replayed")]
    summary: Annotated[str, Field(title="Summary")]


class ResistanceDefenderRolled(BaseModel):
    """
    The defender of a resistance roll who resisted: her success roll, `rolled` true.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    skill: Annotated[int, Field(title="Skill")]
    roll: Annotated[list[int], Field(title="Roll")]
    total: Annotated[int, Field(title="Total")]
    success: Annotated[bool, Field(title="Success")]
    critical: Annotated[Literal["success", "failure"] | None, Field(title="Critical")]
    margin: Annotated[int, Field(title="Margin")]
    rolled: Annotated[Literal[True], Field(title="Rolled")]


class ResistanceDefenderUnrolled(BaseModel):
    """
    The defender of a resistance roll whose attacker failed: no roll, `rolled` false.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    skill: Annotated[int, Field(title="Skill")]
    rolled: Annotated[Literal[False], Field(title="Rolled")]


class ResistanceRollRequest(BaseModel):
    """
    A resistance roll: the attacker rolls, the defender resists (docs/rules.md#resistance-roll).

    Rules across fields:
    - the attacker and the defender have different names.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    attacker: GurpsCompetitor
    defender: GurpsCompetitor
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class Name1(RootModel[str]):
    root: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
        ),
    ]


class RollFor(BaseModel):
    """
    The seats to roll for: the server's dice. The GM's token names any seat the round waits
    for (recorded as the GM's, `dice_from` "gm"); a seat's token only its own, its "roll for
    me" (`dice_from` "roll-for-me": any dice it sent are kept, the server rolls the rest).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    names: Annotated[list[Name1], Field(max_length=64, min_length=1, title="Names")]


class RollRecord(BaseModel):
    """
    One (who, purpose) roll in an answer's `rolls`: its dice, values and where they came from.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    who: Annotated[str | None, Field(title="Who")]
    purpose: Annotated[str, Field(title="Purpose")]
    dice: Annotated[str, Field(title="Dice")]
    values: Annotated[list[int], Field(title="Values")]
    source: Annotated[Literal["supplied", "rolled"], Field(title="Source")]
    by: Annotated[str | None, Field(title="By")] = None
    sides: Annotated[list[int] | None, Field(title="Sides")] = None


class RollRequest(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    expr: Annotated[
        str,
        Field(
            description="dice notation as the d20 library reads it, e.g. 4d6kh3 or 1d20+5[fire]",
            examples=["4d6kh3"],
            max_length=1000,
            min_length=1,
            title="Expr",
        ),
    ]
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class RoundCard(BaseModel):
    """
    A round as a card (docs/api.md#round-cards): built when the service answers, from the
    round's record (never stored or chained), as data and as words in the request's language
    (`text`: the round as one line; each die's and change's own `text`), which every surface
    shows as they are.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    number: Annotated[int, Field(title="Number")]
    dice: Annotated[list[CardDie], Field(title="Dice")]
    changes: Annotated[list[CardChange], Field(title="Changes")]
    winner: Annotated[str | None, Field(title="Winner")]
    finished: Annotated[bool, Field(title="Finished")]
    text: Annotated[str, Field(title="Text")]


class SeedBody(BaseModel):
    """
    A seed a token holder adds to a verifiable session before its first round.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    seed: Annotated[
        str,
        Field(
            description="any text of 1 to 256 Unicode code points (not bytes); its exact UTF-8 bytes are hashed",
            max_length=256,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f]*$",
            title="Seed",
        ),
    ]


class Cost(RootModel[int]):
    root: Annotated[int, Field(ge=0, le=1000000, title="Cost")]


class SkillGameBid(BaseModel):
    """
    A revealed bidding choice: its bid, and its action when the reader may see it — the
    action of a party that took it, or the reader's own (a party's token), or any (the GM's)
    (docs/rules.md#bidding).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    action: Annotated[str | None, Field(title="Action")] = None
    bid: Annotated[int, Field(title="Bid")]


class SkillGameCheck(BaseModel):
    """
    A party's best result for one chosen skill.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    best: Annotated[int, Field(title="Best")]
    by: Annotated[str, Field(title="By")]
    token: Annotated[bool, Field(title="Token")]


class Action(RootModel[str]):
    root: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Action",
        ),
    ]


class Bid(RootModel[int]):
    root: Annotated[int, Field(ge=0, le=4611686018427387904, title="Bid")]


class Action1(RootModel[str]):
    root: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
        ),
    ]


class Actions(RootModel[list[Action1]]):
    root: Annotated[list[Action1], Field(max_length=64, title="Actions")]


class SkillListItem(RootModel[str]):
    root: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
        ),
    ]


class MaxActionsPerRound(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=64, title="Max Actions Per Round")]


class Goal(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=1000000, title="Goal")]


class MaxRounds(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=10000, title="Max Rounds")]


class MinMargin(RootModel[int]):
    root: Annotated[int, Field(ge=0, le=1000000, title="Min Margin")]


class SkillGameEffect(BaseModel):
    """
    An effect; in bidding games a tier used from `min_margin` (default 0) up.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    min_margin: Annotated[MinMargin | None, Field(title="Min Margin")] = None
    text: Annotated[
        str,
        Field(
            max_length=500,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Text",
        ),
    ]
    progress: Annotated[
        int | None, Field(description="Default: 0.", ge=-1000000, le=1000000, title="Progress")
    ] = None
    tokens: Annotated[
        int | None, Field(description="Default: 0.", ge=-1000000, le=1000000, title="Tokens")
    ] = None
    target: Annotated[
        Literal["self", "opponents"] | None, Field(description='Default: "self".', title="Target")
    ] = None


class SkillGameEffectConfig(BaseModel):
    """
    An action's effect as created; `min_margin` only in bidding games.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    min_margin: Annotated[int | None, Field(title="Min Margin")] = None
    text: Annotated[str, Field(title="Text")]
    progress: Annotated[int, Field(title="Progress")]
    tokens: Annotated[int, Field(title="Tokens")]
    target: Annotated[Literal["self", "opponents"], Field(title="Target")]


class Reason(RootModel[str]):
    root: Annotated[
        str,
        Field(
            max_length=500,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Reason",
        ),
    ]


class SkillGameEnd(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    reason: Annotated[Reason | None, Field(title="Reason")] = None


class SkillGameGrant(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    party: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Party",
        ),
    ]
    tokens: Annotated[int, Field(ge=-1000000, le=1000000, title="Tokens")]
    reason: Annotated[
        str,
        Field(
            max_length=500,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Reason",
        ),
    ]


class SkillGameGrantRecord(BaseModel):
    """
    A grant of the GM's, as answered and as listed in the next revealed round.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    party: Annotated[str, Field(title="Party")]
    tokens: Annotated[int, Field(title="Tokens")]
    reason: Annotated[str, Field(title="Reason")]


SkillsAdditionalProperty1 = TypeAliasType(
    "SkillsAdditionalProperty1", Annotated[int, Field(ge=-100, le=100)]
)


class SkillGameMember(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    skills: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            SkillsAdditionalProperty1,
        ]
        | None,
        Field(max_length=64, title="Skills"),
    ] = None


class SkillGameMemberConfig(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    skills: Annotated[dict[str, int], Field(title="Skills")]


class Order(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20, title="Order")]


class Order1Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=20)]


class Order1(RootModel[list[Order1Item]]):
    root: Annotated[list[Order1Item], Field(max_length=21, min_length=1, title="Order")]


class SkillGameOrderDice(BaseModel):
    """
    The party's own d20 (or d20s, the first and its rerolls) ordering tied bidders.

    The kind's dice model: its one field is the one fixed dice purpose. A skill check's die
    is supplied under the skill's own name (`SkillGameSkills.rolls`), so those purposes are
    the game's skill list, not fields.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    order: Annotated[Order | Order1, Field(title="Order")]


class SkillGameOwnChoice(BaseModel):
    """
    A party's own sealed choice of the round in progress (null: none sealed yet).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    party: Annotated[str, Field(title="Party")]
    round: Annotated[int, Field(title="Round")]
    choice: Annotated[dict[str, Any] | None, Field(title="Choice")]


class SkillGameParty(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    controller: Annotated[Literal["gm", "players"], Field(title="Controller")]
    members: Annotated[list[SkillGameMember], Field(max_length=64, min_length=1, title="Members")]


class SkillGamePartyConfig(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    controller: Annotated[Literal["gm", "players"], Field(title="Controller")]
    members: Annotated[list[SkillGameMemberConfig], Field(title="Members")]


class SkillGamePurchase(BaseModel):
    """
    A revealed option choice: the actions bought (maybe none).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    actions: Annotated[list[str], Field(title="Actions")]


class SkillGameResult(BaseModel):
    """
    A finished skill game's `result`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    winner: Annotated[str | None, Field(title="Winner")]
    tie: Annotated[bool, Field(title="Tie")]
    progress: Annotated[dict[str, int], Field(title="Progress")]
    tokens: Annotated[dict[str, int], Field(title="Tokens")]
    reason: Annotated[Literal["goal", "max_rounds", "ended"] | None, Field(title="Reason")]


class Skill(RootModel[str]):
    root: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
        ),
    ]


RollsAdditionalPropertyAdditionalProperty = TypeAliasType(
    "RollsAdditionalPropertyAdditionalProperty", Annotated[int, Field(ge=1, le=20)]
)


RollsAdditionalProperty = TypeAliasType(
    "RollsAdditionalProperty",
    Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            RollsAdditionalPropertyAdditionalProperty,
        ],
        Field(max_length=64),
    ],
)


class SkillGameSkills(BaseModel):
    """
    A party's skills for this round; `rolls` are its members' d20s, `{member: {skill: d20}}`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    party: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Party",
        ),
    ]
    skills: Annotated[list[Skill], Field(max_length=64, title="Skills")]
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            RollsAdditionalProperty,
        ]
        | None,
        Field(title="Rolls"),
    ] = None


class SkillGameState(BaseModel):
    """
    A skill game's `state`: who has chosen and sealed, never what.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    phase: Annotated[Literal["skills", "choices"], Field(title="Phase")]
    tokens: Annotated[dict[str, int], Field(title="Tokens")]
    progress: Annotated[dict[str, int], Field(title="Progress")]
    skills_done: Annotated[list[str], Field(title="Skills Done")]
    submitted: Annotated[list[str], Field(title="Submitted")]
    round: Annotated[int, Field(title="Round")]
    finished: Annotated[bool, Field(title="Finished")]
    winner: Annotated[str | None, Field(title="Winner")]


class SkillGameTakenEffect(BaseModel):
    """
    An effect that took place; `margin` and `tier` only in bidding games.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    party: Annotated[str, Field(title="Party")]
    action: Annotated[str, Field(title="Action")]
    margin: Annotated[int | None, Field(title="Margin")] = None
    tier: Annotated[int | None, Field(title="Tier")] = None
    text: Annotated[str, Field(title="Text")]


class StartDice(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    initiative: Annotated[Initiative | None, Field(title="Initiative")] = None


class SuccessRollAnswer(BaseModel):
    """
    The answer of `POST /v1/gurps/success-roll`: one 3d6 roll against a skill.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    skill: Annotated[int, Field(title="Skill")]
    roll: Annotated[list[int], Field(title="Roll")]
    total: Annotated[int, Field(title="Total")]
    success: Annotated[bool, Field(title="Success")]
    critical: Annotated[Literal["success", "failure"] | None, Field(title="Critical")]
    margin: Annotated[int, Field(title="Margin")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    summary: Annotated[str, Field(title="Summary")]


class Roll7Item(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=6)]


class Roll7(RootModel[list[Roll7Item]]):
    root: Annotated[list[Roll7Item], Field(max_length=3, min_length=3, title="Roll")]


class SuccessRollRequest(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    skill: Annotated[int, Field(description="effective skill", ge=-100, le=1000, title="Skill")]
    roll: Annotated[Roll7 | None, Field(title="Roll")] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class AItem(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=6)]


class BItem(RootModel[int]):
    root: Annotated[int, Field(ge=1, le=6)]


class SuppliedRound(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    a: Annotated[list[AItem], Field(max_length=3, min_length=3, title="A")]
    b: Annotated[list[BItem], Field(max_length=3, min_length=3, title="B")]


class Tokens(BaseModel):
    """
    A new session's tokens, shown only in its creation's answer.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    gm: Annotated[str, Field(title="Gm")]
    parties: Annotated[dict[str, str] | None, Field(title="Parties")] = None
    seats: Annotated[dict[str, str] | None, Field(title="Seats")] = None


class UnusedRecord(BaseModel):
    """
    Supplied values of one (who, purpose) that the round did not use, in a record's
    `unused` (never in `rolls`): `why` is `ended` (the contest ended in the round before
    asking for them), `not-needed` (the round never called for them: a check passed, no tie,
    not the loser) or `surplus` (the round used fewer of them than were supplied; these are
    the ones left). docs/rules.md#supplied-and-server-dice.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    who: Annotated[str | None, Field(title="Who")]
    purpose: Annotated[str, Field(title="Purpose")]
    values: Annotated[list[int], Field(title="Values")]
    why: Annotated[Literal["ended", "not-needed", "surplus"], Field(title="Why")]
    by: Annotated[str | None, Field(title="By")] = None


class Webhook(BaseModel):
    """
    A subscription (its secret is shown only when made or rotated).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    url: Annotated[str, Field(title="Url")]
    events: Annotated[list[str] | None, Field(title="Events")]
    view: Annotated[str, Field(title="View")]
    language: Annotated[str, Field(title="Language")]
    status: Annotated[str, Field(title="Status")]
    failing_since: Annotated[str | None, Field(title="Failing Since")]
    created_at: Annotated[str, Field(title="Created At")]
    previous_secret_until: Annotated[str | None, Field(title="Previous Secret Until")]
    secret: Annotated[str | None, Field(title="Secret")] = None


class Event(RootModel[str]):
    root: Annotated[str, Field(max_length=32, min_length=1)]


class Events(RootModel[list[Event]]):
    root: Annotated[
        list[Event],
        Field(
            description="the live events' names to send (`round`, `pending`, `dice-in`, …); absent: every one",
            max_length=32,
            min_length=1,
            title="Events",
        ),
    ]


class WebhookCreate(BaseModel):
    """
    A subscription: where to send the session's live events, which, and in whose view.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    url: Annotated[
        str,
        Field(
            description="http or https; its host must resolve to public addresses only",
            max_length=2048,
            min_length=1,
            title="Url",
        ),
    ]
    events: Annotated[
        Events | None,
        Field(
            description="the live events' names to send (`round`, `pending`, `dice-in`, …); absent: every one",
            title="Events",
        ),
    ] = None
    view: Annotated[
        Literal["public", "gm"] | None,
        Field(
            description="`public` (default): round records as a party's stream shows the other parties' (a bidding game's losing actions hidden); `gm`: the GM's view Default: \"public\".",
            title="View",
        ),
    ] = None
    language: Annotated[
        Literal["en", "de", "fr", "es", "pt-BR"] | None,
        Field(
            description="the language of the payloads' summaries (`en`, `de`, `fr`, `es`, `pt-BR`); absent: the language this request is answered in (`Accept-Language`, `?lang=`)",
            title="Language",
        ),
    ] = None


class WebhookDelivery(BaseModel):
    """
    One delivery: the event sent, its `webhook-id`, and what came of its attempts.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[int, Field(title="Id")]
    webhook_id: Annotated[str, Field(title="Webhook Id")]
    session_id: Annotated[str, Field(title="Session Id")]
    version: Annotated[int, Field(title="Version")]
    event: Annotated[str, Field(title="Event")]
    status: Annotated[str, Field(title="Status")]
    attempts: Annotated[int, Field(title="Attempts")]
    next_attempt_at: Annotated[str | None, Field(title="Next Attempt At")]
    last_status: Annotated[int | None, Field(title="Last Status")]
    last_error: Annotated[str | None, Field(title="Last Error")]
    delivered_at: Annotated[str | None, Field(title="Delivered At")]
    created_at: Annotated[str, Field(title="Created At")]


class WebhookDeliveryShown(BaseModel):
    """
    One delivery, with its body: the JSON text exactly as signed and sent (a receiver's
    signature check can be tried on it, byte for byte).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[int, Field(title="Id")]
    webhook_id: Annotated[str, Field(title="Webhook Id")]
    session_id: Annotated[str, Field(title="Session Id")]
    version: Annotated[int, Field(title="Version")]
    event: Annotated[str, Field(title="Event")]
    status: Annotated[str, Field(title="Status")]
    attempts: Annotated[int, Field(title="Attempts")]
    next_attempt_at: Annotated[str | None, Field(title="Next Attempt At")]
    last_status: Annotated[int | None, Field(title="Last Status")]
    last_error: Annotated[str | None, Field(title="Last Error")]
    delivered_at: Annotated[str | None, Field(title="Delivered At")]
    created_at: Annotated[str, Field(title="Created At")]
    body: Annotated[str, Field(title="Body")]


class Url(RootModel[str]):
    root: Annotated[
        str,
        Field(
            description="http or https; its host must resolve to public addresses only",
            max_length=2048,
            min_length=1,
            title="Url",
        ),
    ]


class Events1Item(RootModel[str]):
    root: Annotated[str, Field(max_length=32, min_length=1)]


class Events1(RootModel[list[Events1Item]]):
    root: Annotated[
        list[Events1Item],
        Field(
            description="the live events' names to send; null: every one",
            max_length=32,
            min_length=1,
            title="Events",
        ),
    ]


class WebhookUpdate(BaseModel):
    """
    A subscription's changes: each field given replaces its value, each left out keeps
    it (`"events": null`: every event from now on).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    url: Annotated[
        Url | None,
        Field(
            description="http or https; its host must resolve to public addresses only", title="Url"
        ),
    ] = None
    events: Annotated[
        Events1 | None,
        Field(description="the live events' names to send; null: every one", title="Events"),
    ] = None
    view: Annotated[
        Literal["public", "gm"] | None, Field(description="`public` or `gm`", title="View")
    ] = None
    language: Annotated[
        Literal["en", "de", "fr", "es", "pt-BR"] | None,
        Field(description="the language of the payloads' summaries", title="Language"),
    ] = None


class Webhooks(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    webhooks: Annotated[list[Webhook], Field(title="Webhooks")]


class ProblemError(BaseModel):
    """
    One invalid part of a request: where it is and what is wrong.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    loc: Annotated[
        list[str | int], Field(description='The path to the part: `["body", "a", "skill"]`.')
    ]
    msg: str


class ArmWrestleConfig(BaseModel):
    """
    An arm wrestle's `config`: the create body with its defaults applied.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    a: ArmWrestlerConfig
    b: ArmWrestlerConfig
    target: Annotated[int, Field(title="Target")]
    variant: Annotated[Literal["standard", "spikes", "psychic", "mental"], Field(title="Variant")]
    max_rounds: Annotated[int, Field(title="Max Rounds")]
    loser_damage: Annotated[str | None, Field(title="Loser Damage")]


class ArmWrestleCreate(BaseModel):
    """
    A new arm wrestle: two competitors and the match's settings (docs/rules.md#arm-wrestling).

    Rules across fields:
    - the two competitors' names differ;
    - the `psychic` variant needs `caster_level` from both competitors;
    - the `mental` variant needs `int_mod` and `wis_score` from both competitors;
    - `loser_damage` is only for the `mental` and `psychic` variants, and is valid dice
      notation;
    - `dice` "verifiable" takes no `seed`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    a: ArmWrestler
    b: ArmWrestler
    target: Annotated[
        int | None, Field(description="Default: 20.", ge=1, le=100, title="Target")
    ] = None
    variant: Annotated[
        Literal["standard", "spikes", "psychic", "mental"] | None,
        Field(description='Default: "standard".', title="Variant"),
    ] = None
    max_rounds: Annotated[
        int | None, Field(description="Default: 200.", ge=1, le=10000, title="Max Rounds")
    ] = None
    loser_damage: Annotated[LoserDamage | None, Field(title="Loser Damage")] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None
    dice: Annotated[
        Literal["server", "verifiable"] | None,
        Field(
            description='`"verifiable"`: every server die derived from a committed secret seed and the seeds the token holders add, every round chained, all of it revealed once the session is over (docs/verifiable-dice.md); not with `seed` Default: "server".',
            title="Dice",
        ),
    ] = None
    seats: Annotated[
        bool | None,
        Field(
            description="give each competitor a seat token (`tokens.seats`), which reads the session and posts only that competitor's dice Default: false.",
            title="Seats",
        ),
    ] = None


class ArmWrestleCreated(BaseModel):
    """
    A new session with its tokens (omitted in a replay to a caller that did not scope its Idempotency-Key with a secret of its own).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished"], Field(title="Status")]
    version: Annotated[int, Field(title="Version")]
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    round: Annotated[int, Field(title="Round")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    start_rolls: Annotated[list[RollRecord] | None, Field(title="Start Rolls")] = None
    summary: Annotated[str | None, Field(title="Summary")] = None
    pending: PendingRound | None = None
    dice: Annotated[Literal["verifiable"] | None, Field(title="Dice")] = None
    commitment: Annotated[str | None, Field(title="Commitment")] = None
    chain_head: Annotated[str | None, Field(title="Chain Head")] = None
    config: ArmWrestleConfig
    state: ArmWrestleState
    result: ArmWrestleResult | None
    tokens: Tokens | None = None


class ArmWrestleRoundRecord(BaseModel):
    """
    One round of an arm wrestle as served: its number, outcome, dice and summary line.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    fatigue: Annotated[list[ArmWrestleFatigueCheck], Field(title="Fatigue")]
    checks: Annotated[dict[str, ArmWrestleCheck], Field(title="Checks")]
    round_winner: Annotated[str | None, Field(title="Round Winner")]
    difference: Annotated[int, Field(title="Difference")]
    ds: Annotated[dict[str, int], Field(title="Ds")]
    leader: Annotated[str | None, Field(title="Leader")]
    finished: Annotated[bool, Field(title="Finished")]
    winner: Annotated[str | None, Field(title="Winner")]
    reason: Annotated[
        Literal["target", "fatigue", "draw", "max_rounds"] | None, Field(title="Reason")
    ]
    number: Annotated[int, Field(title="Number")]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    unused: Annotated[list[UnusedRecord] | None, Field(title="Unused")] = None
    summary: Annotated[str, Field(title="Summary")]
    cards: Annotated[list[RoundCard] | None, Field(title="Cards")] = None
    dice_from: Annotated[
        dict[str, Literal["seat", "gm", "deadline", "roll-for-me"]] | None, Field(title="Dice From")
    ] = None


class ArmWrestleRounds(BaseModel):
    """
    The rounds played, oldest first.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rounds: Annotated[list[ArmWrestleRoundRecord], Field(title="Rounds")]


class ArmWrestleSession(BaseModel):
    """
    An arm wrestle as every answer shows it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished"], Field(title="Status")]
    version: Annotated[int, Field(title="Version")]
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    round: Annotated[int, Field(title="Round")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    start_rolls: Annotated[list[RollRecord] | None, Field(title="Start Rolls")] = None
    summary: Annotated[str | None, Field(title="Summary")] = None
    pending: PendingRound | None = None
    dice: Annotated[Literal["verifiable"] | None, Field(title="Dice")] = None
    commitment: Annotated[str | None, Field(title="Commitment")] = None
    chain_head: Annotated[str | None, Field(title="Chain Head")] = None
    config: ArmWrestleConfig
    state: ArmWrestleState
    result: ArmWrestleResult | None


class ArmWrestleWaiting(BaseModel):
    """
    A round waiting for the seats' dice, and the session: who it still waits for (`name`: whose dice just came in; `names`: whom the GM rolled for), never a die.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    pending: PendingRound
    name: Annotated[str | None, Field(title="Name")] = None
    names: Annotated[list[str] | None, Field(title="Names")] = None
    session: ArmWrestleSession
    summary: Annotated[str, Field(title="Summary")]


class CairnRollAnswer(BaseModel):
    """
    The answer of `POST /v1/cairn/roll`: every step of the roll
    (docs/rules.md#cairn-hill-roll).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rating: Annotated[int, Field(title="Rating")]
    dice_sorted: Annotated[list[int], Field(title="Dice Sorted")]
    chosen: Annotated[list[int], Field(title="Chosen")]
    chosen_names: Annotated[
        list[
            Literal[
                "worst",
                "second worst",
                "third worst",
                "middle",
                "third best",
                "second best",
                "best",
            ]
        ],
        Field(title="Chosen Names"),
    ]
    average: Annotated[int, Field(title="Average")]
    base_score: Annotated[int, Field(title="Base Score")]
    critical_die: Annotated[int, Field(title="Critical Die")]
    critical: Annotated[Literal["success", "failure"] | None, Field(title="Critical")]
    magnitude_die: Annotated[int | None, Field(title="Magnitude Die")]
    multiplier: Annotated[int | None, Field(title="Multiplier")]
    adjustment: Annotated[int, Field(title="Adjustment")]
    score: Annotated[int, Field(title="Score")]
    target: Annotated[int | None, Field(title="Target")]
    success: Annotated[bool | None, Field(title="Success")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    unused: Annotated[list[UnusedRecord] | None, Field(title="Unused")] = None
    summary: Annotated[str, Field(title="Summary")]


class ChaseSideRecord(BaseModel):
    """
    One side's increment: what it gained, whether it rested or was held up, its checks.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    gained: Annotated[int, Field(title="Gained")]
    total: Annotated[int | None, Field(title="Total")]
    rested: Annotated[bool, Field(title="Rested")]
    held_up: Annotated[bool, Field(title="Held Up")]
    events: Annotated[list[str], Field(title="Events")]
    checks: Annotated[list[RaceCheckRecord], Field(title="Checks")]


class ChaseTerrain(BaseModel):
    """
    The increment the GM describes (a race increment, and whether it is flat).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    check: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Check",
        ),
    ]
    dc: Annotated[Dc | None, Field(title="Dc")] = None
    on_fail: Annotated[Literal["retry", "stall"] | None, Field(title="On Fail")] = None
    drown_margin: Annotated[
        int | None, Field(description="Default: 5.", ge=1, le=1000, title="Drown Margin")
    ] = None
    modifier: Annotated[
        int | None, Field(description="Default: 0.", ge=-1000, le=1000, title="Modifier")
    ] = None
    mounted: Annotated[bool | None, Field(description="Default: false.", title="Mounted")] = None
    obstacle: RaceObstacle | None = None
    flat: Annotated[bool | None, Field(description="Default: false.", title="Flat")] = None


class ChaseTerrainRecord(BaseModel):
    """
    The increment's terrain, normalised as a race increment, and whether it was flat.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    check: Annotated[str, Field(title="Check")]
    dc: Annotated[int | None, Field(title="Dc")]
    on_fail: Annotated[Literal["retry", "stall"] | None, Field(title="On Fail")]
    drown_margin: Annotated[int, Field(title="Drown Margin")]
    modifier: Annotated[int, Field(title="Modifier")]
    mounted: Annotated[bool, Field(title="Mounted")]
    obstacle: RaceObstacleConfig | None
    flat: Annotated[bool, Field(title="Flat")]


class D20CheckAnswer(BaseModel):
    """
    The answer of `POST /v1/d20/check`: the d20, the total and, with a DC, success.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    roll: Annotated[int, Field(title="Roll")]
    modifier: Annotated[int, Field(title="Modifier")]
    total: Annotated[int, Field(title="Total")]
    dc: Annotated[int | None, Field(title="Dc")]
    success: Annotated[bool | None, Field(title="Success")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    summary: Annotated[str, Field(title="Summary")]


class LongThrowCompetitorResult(BaseModel):
    """
    One thrower's standing; which optional keys appear depends on the mode and object.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    eligible: Annotated[bool, Field(title="Eligible")]
    load: Annotated[Literal["light", "medium", "heavy", "over"], Field(title="Load")]
    penalty: Annotated[Literal[0, -3, -6], Field(title="Penalty")]
    load_limits: LongThrowLoadLimits
    roll: Annotated[int | list[int] | None, Field(title="Roll")]
    check: Annotated[int | list[int] | None, Field(title="Check")]
    ds: Annotated[int | None, Field(title="Ds")]
    increments: Annotated[int | None, Field(title="Increments")] = None
    distance_ft: Annotated[int | None, Field(title="Distance Ft")] = None
    landed: Annotated[bool | None, Field(title="Landed")] = None
    creature_damage: LongThrowCreatureDamage | None = None
    out_in_series: Annotated[int | None, Field(title="Out In Series")] = None


class NotationRollAnswer(BaseModel):
    """
    The answer of `GET|POST /v1/roll`: the total and breakdown of a dice expression.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    expr: Annotated[str, Field(title="Expr")]
    total: Annotated[int, Field(title="Total")]
    breakdown: Annotated[str, Field(title="Breakdown")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    summary: Annotated[str, Field(title="Summary")]


class OddsChaseFromHereRequest(BaseModel):
    """
    The body of `POST /v1/chases/{id}/odds`: the chase's odds from its current state, for
    the terrain of every increment to come (a round body's `terrain`, the same validation),
    the escapee's tactic policy, and the seed and trials of a Monte Carlo estimate. The same
    question as `GET /v1/chases/{id}/odds?terrain=<JSON>&tactic_policy=…&seed=…&trials=…`,
    and the same answer.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    terrain: ChaseTerrain
    tactic_policy: Annotated[
        Literal["none", "hide-when-possible"] | None,
        Field(description='Default: "none".', title="Tactic Policy"),
    ] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None
    trials: Annotated[Trials | None, Field(title="Trials")] = None


class OddsGroupAnswer(BaseModel):
    """
    The answer of `POST /v1/odds/gurps/quick-contests` and `POST /v1/odds/d20/opposed-checks`
    (docs/rules.md#one-against-many), exact, over the competitor's one shared roll.

    `pairs` per opponent; `beaten` the distribution of how many opponents are beaten (keys
    "0" to "n"); `all_beaten` its last; `beaten_by_any` the chance that at least one opponent
    wins its pair; `independent_all_beaten` the product of the pairs' `beats`, which is what
    treating the pairs as independent would claim (wrong: they share the competitor's roll),
    for comparison. In "ranked" mode only `ranking` and `nobody_alone_first` apply (the others
    are empty or null).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    method: Annotated[Literal["exact"], Field(title="Method")]
    mode: Annotated[Literal["versus", "ranked"], Field(title="Mode")]
    competitor: Annotated[str | None, Field(title="Competitor")]
    pairs: Annotated[list[OddsPair], Field(title="Pairs")]
    beaten: Annotated[dict[str, float], Field(title="Beaten")]
    beaten_exact: Annotated[dict[str, str], Field(title="Beaten Exact")]
    all_beaten: Annotated[float | None, Field(title="All Beaten")]
    all_beaten_exact: Annotated[str | None, Field(title="All Beaten Exact")]
    beaten_by_any: Annotated[float | None, Field(title="Beaten By Any")]
    beaten_by_any_exact: Annotated[str | None, Field(title="Beaten By Any Exact")]
    independent_all_beaten: Annotated[float | None, Field(title="Independent All Beaten")]
    independent_all_beaten_exact: Annotated[str | None, Field(title="Independent All Beaten Exact")]
    ranking: Annotated[list[OddsRankedEntry], Field(title="Ranking")]
    nobody_alone_first: Annotated[float | None, Field(title="Nobody Alone First")]
    nobody_alone_first_exact: Annotated[str | None, Field(title="Nobody Alone First Exact")]
    summary: Annotated[str, Field(title="Summary")]


class OddsRaceOption(BaseModel):
    """
    One option for a race before its first increment: `move` is the pacing body a racer
    would post (`POST /v1/races/{id}/pacing`, the same validation); `label` names it in the
    answer (by default, the racer and the pacing).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    label: Annotated[Label | None, Field(title="Label")] = None
    move: RacePacing


class OddsSkillGameChoice(BaseModel):
    """
    One option: its label, its `move` as sent, and the exact token odds of that party
    choosing those skills (`POST /v1/odds/skill-games/tokens`'s answer for this game).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    label: Annotated[str, Field(title="Label")]
    move: Annotated[dict[str, Any], Field(title="Move")]
    odds: OddsSkillGameTokensAnswer


class OddsSkillGameChoicesAnswer(BaseModel):
    """
    The answer of `POST /v1/skill-games/{id}/odds/choices`: each option in the order sent;
    `best` the label of the option with the most tokens expected (the first of equals);
    `summary` one line for a chat.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    options: Annotated[list[OddsSkillGameChoice], Field(title="Options")]
    best: Annotated[str, Field(title="Best")]
    summary: Annotated[str, Field(title="Summary")]


class OddsSkillGameOption(BaseModel):
    """
    One option for a party's next step: `move` is the skills body it would post
    (`POST /v1/skill-games/{id}/skills`, the same validation, checked against the game as it
    stands), without `rolls`; `label` names it in the answer (by default, its skills).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    label: Annotated[Label | None, Field(title="Label")] = None
    move: SkillGameSkills


class OpposedChecksAnswer(BaseModel):
    """
    The answer of `POST /v1/d20/opposed-checks`. In "versus" mode `competitor`, its
    `modifier`, `roll` and `total`, `results` (one per opponent, in their order) and the
    counts; in "ranked" mode `ranking` (best first) and `winner` (null when first place is
    shared). What does not apply to the mode is null (or empty).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[Literal["versus", "ranked"], Field(title="Mode")]
    competitor: Annotated[str | None, Field(title="Competitor")]
    modifier: Annotated[int | None, Field(title="Modifier")]
    roll: Annotated[int | None, Field(title="Roll")]
    total: Annotated[int | None, Field(title="Total")]
    results: Annotated[list[OpposedPairResult], Field(title="Results")]
    beaten: Annotated[int | None, Field(title="Beaten")]
    beaten_by: Annotated[int | None, Field(title="Beaten By")]
    ranking: Annotated[list[RankedCheckEntry], Field(title="Ranking")]
    winner: Annotated[str | None, Field(title="Winner")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    unused: Annotated[list[UnusedRecord] | None, Field(title="Unused")] = None
    summary: Annotated[str, Field(title="Summary")]


class Opponents(RootModel[list[OpposedOpponent]]):
    root: Annotated[list[OpposedOpponent], Field(max_length=64, min_length=1, title="Opponents")]


class Competitors(RootModel[list[RankedChecker]]):
    root: Annotated[list[RankedChecker], Field(max_length=64, min_length=2, title="Competitors")]


class OpposedChecksOddsRequest(BaseModel):
    """
    The same body as `POST /v1/d20/opposed-checks`; supplied rolls are not read.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[
        Literal["versus", "ranked"] | None, Field(description='Default: "versus".', title="Mode")
    ] = None
    competitor: OpposedCompetitor | None = None
    opponents: Annotated[Opponents | None, Field(title="Opponents")] = None
    competitors: Annotated[Competitors | None, Field(title="Competitors")] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class OpposedChecksRequest(BaseModel):
    """
    One d20 check against each opponent's opposed check (`mode` "versus", the default:
    `competitor` and `opponents`), or everyone ranked by one d20 check each (`mode` "ranked":
    `competitors`). docs/rules.md#one-against-many.

    Rules across fields:
    - "versus" takes `competitor` and `opponents` and no `competitors`; "ranked" takes
      `competitors` and neither of the others;
    - every name differs from every other;
    - `competitor.rerolls` names opponents of this call.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[
        Literal["versus", "ranked"] | None, Field(description='Default: "versus".', title="Mode")
    ] = None
    competitor: OpposedCompetitor | None = None
    opponents: Annotated[Opponents | None, Field(title="Opponents")] = None
    competitors: Annotated[Competitors | None, Field(title="Competitors")] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class ProofGenesis(BaseModel):
    """
    The chain's first record (docs/verifiable-dice.md#the-chain).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    scheme: Annotated[str, Field(title="Scheme")]
    session: Annotated[str, Field(title="Session")]
    kind: Annotated[str, Field(title="Kind")]
    commitment: Annotated[str, Field(title="Commitment")]
    config: Annotated[dict[str, Any], Field(title="Config")]
    start_rolls: Annotated[list[RollRecord], Field(title="Start Rolls")]


class ProofRound(BaseModel):
    """
    A stored round as the chain covers it (a bidding game's losing actions sealed), and
    its link.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    number: Annotated[int, Field(title="Number")]
    inputs: Annotated[dict[str, Any], Field(title="Inputs")]
    dice: Annotated[list[RollRecord], Field(title="Dice")]
    outcome: Annotated[dict[str, Any], Field(title="Outcome")]
    link: Annotated[str, Field(title="Link")]
    openings: Annotated[dict[str, ProofOpening] | None, Field(title="Openings")] = None


class QuickContestAnswer(BaseModel):
    """
    The answer of `POST /v1/gurps/quick-contest`: both rolls and who won by how much.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    winner: Annotated[str | None, Field(title="Winner")]
    tie: Annotated[bool, Field(title="Tie")]
    margin_of_victory: Annotated[int | None, Field(title="Margin Of Victory")]
    a: GurpsCompetitorRoll
    b: GurpsCompetitorRoll
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    summary: Annotated[str, Field(title="Summary")]


class QuickContestsAnswer(BaseModel):
    """
    The answer of `POST /v1/gurps/quick-contests`. In "versus" mode `competitor`, `results`
    (one per opponent, in their order) and the counts; in "ranked" mode `ranking` (best first)
    and `winner` (null when first place is shared). What does not apply to the mode is null
    (or empty).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[Literal["versus", "ranked"], Field(title="Mode")]
    competitor: GurpsCompetitorRoll | None
    results: Annotated[list[QuickContestPair], Field(title="Results")]
    beaten: Annotated[int | None, Field(title="Beaten")]
    beaten_by: Annotated[int | None, Field(title="Beaten By")]
    ties: Annotated[int | None, Field(title="Ties")]
    ranking: Annotated[list[RankedEntry], Field(title="Ranking")]
    winner: Annotated[str | None, Field(title="Winner")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    summary: Annotated[str, Field(title="Summary")]


class RaceCompetitor(BaseModel):
    """
    A racer, or a party to a chase (docs/api.md#races).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    speed: Annotated[int, Field(description="feet per round", ge=0, le=10000, title="Speed")]
    speeds: RaceSpeeds | None = None
    mods: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            ModsAdditionalProperty,
        ]
        | None,
        Field(
            description="modifiers by check or skill name (strength, swim, ride, hide, ...); a missing one is 0",
            title="Mods",
        ),
    ] = None
    con_score: Annotated[ConScore | None, Field(title="Con Score")] = None
    con_mod: Annotated[
        ConMod | None, Field(description="defaults to con_score's", title="Con Mod")
    ] = None
    feats: Annotated[Feats | None, Field(description="run, endurance, ...", title="Feats")] = None
    pacing: Annotated[
        Literal["normal", "sprint", "pace"] | None,
        Field(description='Default: "normal".', title="Pacing"),
    ] = None
    mount: RaceMount | None = None


class RaceCompetitorConfig(BaseModel):
    """
    A competitor (or a party to a chase), normalised: names and feats lower-case.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    speed: Annotated[int, Field(title="Speed")]
    speeds: RaceSpeedsConfig
    mods: Annotated[dict[str, int], Field(title="Mods")]
    con_score: Annotated[int | None, Field(title="Con Score")]
    con_mod: Annotated[int | None, Field(title="Con Mod")]
    feats: Annotated[list[str], Field(title="Feats")]
    pacing: Annotated[Literal["normal", "sprint", "pace"], Field(title="Pacing")]
    mount: RaceMountConfig | None


class RaceIncrement(BaseModel):
    """
    One range increment (docs/rules.md#obstacles-and-hazards): `on_fail` needs a `dc`; a
    `mounted` one is the mount's `strength` check.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    check: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Check",
        ),
    ]
    dc: Annotated[Dc2 | None, Field(title="Dc")] = None
    on_fail: Annotated[Literal["retry", "stall"] | None, Field(title="On Fail")] = None
    drown_margin: Annotated[
        int | None, Field(description="Default: 5.", ge=1, le=1000, title="Drown Margin")
    ] = None
    modifier: Annotated[
        int | None, Field(description="Default: 0.", ge=-1000, le=1000, title="Modifier")
    ] = None
    mounted: Annotated[bool | None, Field(description="Default: false.", title="Mounted")] = None
    obstacle: RaceObstacle | None = None


class RaceIncrementConfig(BaseModel):
    """
    One increment, normalised: its check lower-case, `on_fail` defaulted when it has a `dc`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    check: Annotated[str, Field(title="Check")]
    dc: Annotated[int | None, Field(title="Dc")]
    on_fail: Annotated[Literal["retry", "stall"] | None, Field(title="On Fail")]
    drown_margin: Annotated[int, Field(title="Drown Margin")]
    modifier: Annotated[int, Field(title="Modifier")]
    mounted: Annotated[bool, Field(title="Mounted")]
    obstacle: RaceObstacleConfig | None


class RaceRoundRecord(BaseModel):
    """
    One increment of a race as `rounds` lists it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    increment: Annotated[int, Field(title="Increment")]
    competitors: Annotated[dict[str, RaceCompetitorLine], Field(title="Competitors")]
    finished: Annotated[bool, Field(title="Finished")]
    winners: Annotated[list[str], Field(title="Winners")]
    number: Annotated[int, Field(title="Number")]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    unused: Annotated[list[UnusedRecord] | None, Field(title="Unused")] = None
    summary: Annotated[str, Field(title="Summary")]
    cards: Annotated[list[RoundCard] | None, Field(title="Cards")] = None
    dice_from: Annotated[
        dict[str, Literal["seat", "gm", "deadline", "roll-for-me"]] | None, Field(title="Dice From")
    ] = None


class RaceRounds(BaseModel):
    """
    The rounds played, oldest first.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rounds: Annotated[list[RaceRoundRecord], Field(title="Rounds")]


class RegularContestConfig(BaseModel):
    """
    A regular contest's `config`: the create body with defaults, and the adjusted skills.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    a: RegularContestant
    b: RegularContestant
    normalize: Annotated[bool, Field(title="Normalize")]
    max_rounds: Annotated[int, Field(title="Max Rounds")]
    seconds_per_round: Annotated[int, Field(title="Seconds Per Round")]
    effective_skills: Annotated[dict[str, int], Field(title="Effective Skills")]


class RegularContestCreated(BaseModel):
    """
    A new session with its tokens (omitted in a replay to a caller that did not scope its Idempotency-Key with a secret of its own).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished"], Field(title="Status")]
    version: Annotated[int, Field(title="Version")]
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    round: Annotated[int, Field(title="Round")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    start_rolls: Annotated[list[RollRecord] | None, Field(title="Start Rolls")] = None
    summary: Annotated[str | None, Field(title="Summary")] = None
    pending: PendingRound | None = None
    dice: Annotated[Literal["verifiable"] | None, Field(title="Dice")] = None
    commitment: Annotated[str | None, Field(title="Commitment")] = None
    chain_head: Annotated[str | None, Field(title="Chain Head")] = None
    config: RegularContestConfig
    state: RegularContestState
    result: RegularContestResult | None
    tokens: Tokens | None = None


class RegularContestRequest(BaseModel):
    """
    A regular contest played to its end in one call (docs/rules.md#regular-contest).

    Rules across fields:
    - `a` and `b` have different names;
    - `rounds` supplies at most `max_rounds` rounds, and no more than the contest plays (it ends
      at the first round exactly one side succeeds).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    a: Contestant
    b: Contestant
    normalize: Annotated[bool | None, Field(description="Default: true.", title="Normalize")] = None
    max_rounds: Annotated[
        int | None, Field(description="Default: 100.", ge=1, le=10000, title="Max Rounds")
    ] = None
    seconds_per_round: Annotated[
        int | None, Field(description="Default: 1.", ge=0, le=86400, title="Seconds Per Round")
    ] = None
    rounds: Annotated[list[SuppliedRound] | None, Field(max_length=10000, title="Rounds")] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class RegularContestRound(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    collect: Annotated[
        bool | None,
        Field(
            description="wait for each seat's dice instead of rolling (a seated session) Default: false.",
            title="Collect",
        ),
    ] = None
    deadline_seconds: Annotated[DeadlineSeconds | None, Field(title="Deadline Seconds")] = None
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            RegularRollSupply,
        ]
        | None,
        Field(title="Rolls"),
    ] = None


class RegularContestRoundRecord(BaseModel):
    """
    One round of a regular contest as served: its number, outcome, dice and summary line.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    a: RegularContestSide
    b: RegularContestSide
    finished: Annotated[bool, Field(title="Finished")]
    winner: Annotated[str | None, Field(title="Winner")]
    number: Annotated[int, Field(title="Number")]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    unused: Annotated[list[UnusedRecord] | None, Field(title="Unused")] = None
    summary: Annotated[str, Field(title="Summary")]
    cards: Annotated[list[RoundCard] | None, Field(title="Cards")] = None
    dice_from: Annotated[
        dict[str, Literal["seat", "gm", "deadline", "roll-for-me"]] | None, Field(title="Dice From")
    ] = None


class RegularContestRounds(BaseModel):
    """
    The rounds played, oldest first.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rounds: Annotated[list[RegularContestRoundRecord], Field(title="Rounds")]


class RegularContestSeatDice(BaseModel):
    """
    One competitor's dice for the round waiting for them, as a round body's `rolls` carries them (a seat's token: only its own competitor's).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            RegularRollSupply,
        ],
        Field(min_length=1, title="Rolls"),
    ]


class RegularContestSession(BaseModel):
    """
    A regular contest as every answer shows it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished"], Field(title="Status")]
    version: Annotated[int, Field(title="Version")]
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    round: Annotated[int, Field(title="Round")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    start_rolls: Annotated[list[RollRecord] | None, Field(title="Start Rolls")] = None
    summary: Annotated[str | None, Field(title="Summary")] = None
    pending: PendingRound | None = None
    dice: Annotated[Literal["verifiable"] | None, Field(title="Dice")] = None
    commitment: Annotated[str | None, Field(title="Commitment")] = None
    chain_head: Annotated[str | None, Field(title="Chain Head")] = None
    config: RegularContestConfig
    state: RegularContestState
    result: RegularContestResult | None


class RegularContestWaiting(BaseModel):
    """
    A round waiting for the seats' dice, and the session: who it still waits for (`name`: whose dice just came in; `names`: whom the GM rolled for), never a die.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    pending: PendingRound
    name: Annotated[str | None, Field(title="Name")] = None
    names: Annotated[list[str] | None, Field(title="Names")] = None
    session: RegularContestSession
    summary: Annotated[str, Field(title="Summary")]


class RegularRoundPlayed(BaseModel):
    """
    One round of a one-shot regular contest: both sides' rolls.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    number: Annotated[int, Field(title="Number")]
    a: RegularRoundSide
    b: RegularRoundSide


class ResistanceRollAnswer(BaseModel):
    """
    The answer of `POST /v1/gurps/resistance-roll`: whether the defender is affected.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    affected: Annotated[bool, Field(title="Affected")]
    winner: Annotated[str, Field(title="Winner")]
    margin_of_victory: Annotated[int | None, Field(title="Margin Of Victory")]
    attacker: GurpsCompetitorRoll
    defender: Annotated[
        ResistanceDefenderRolled | ResistanceDefenderUnrolled, Field(title="Defender")
    ]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    unused: Annotated[list[UnusedRecord] | None, Field(title="Unused")] = None
    summary: Annotated[str, Field(title="Summary")]


class SkillGameAction(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Name",
        ),
    ]
    cost: Annotated[Cost | None, Field(title="Cost")] = None
    effects: Annotated[list[SkillGameEffect], Field(max_length=16, min_length=1, title="Effects")]


class SkillGameActionConfig(BaseModel):
    """
    An action as created; `cost` only in option games.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    name: Annotated[str, Field(title="Name")]
    cost: Annotated[int | None, Field(title="Cost")] = None
    effects: Annotated[list[SkillGameEffectConfig], Field(title="Effects")]


class SkillGameChoice(BaseModel):
    """
    A sealed choice: `action` and `bid` (bidding) or `actions` (option).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    party: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*[^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff\\t\\n\\x0b\\x0c\\r \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000][^\\x00-\\x1f\\x7f-\\x9f\\u2028\\u2029\\u200b\\u202a-\\u202e\\u2060\\u2066-\\u2069\\ufeff]*$",
            title="Party",
        ),
    ]
    action: Annotated[Action | None, Field(title="Action")] = None
    bid: Annotated[Bid | None, Field(title="Bid")] = None
    actions: Annotated[Actions | None, Field(title="Actions")] = None
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            SkillGameOrderDice,
        ]
        | None,
        Field(title="Rolls"),
    ] = None


class SkillGameConfig(BaseModel):
    """
    A skill game's `config`: the create body normalised (defaults filled in, no seed).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    dc: Annotated[int, Field(title="Dc")]
    skill_list: Annotated[list[str], Field(title="Skill List")]
    skills_per_round: Annotated[int, Field(title="Skills Per Round")]
    kind: Annotated[Literal["bidding", "option"], Field(title="Kind")]
    max_actions_per_round: Annotated[int, Field(title="Max Actions Per Round")]
    actions: Annotated[list[SkillGameActionConfig], Field(title="Actions")]
    goal: Annotated[int | None, Field(title="Goal")] = None
    max_rounds: Annotated[int | None, Field(title="Max Rounds")] = None
    token_rule: Annotated[Literal["exceed", "meet"], Field(title="Token Rule")]
    parties: Annotated[list[SkillGamePartyConfig], Field(title="Parties")]


class SkillGameCreate(BaseModel):
    """
    A new skill game: its skills, actions, parties and end (docs/rules.md#skill-games).

    Rules across fields:
    - no skill is twice in `skill_list`;
    - 1 <= `skills_per_round` <= the number of skills in `skill_list`;
    - a bidding game takes one action per round (`max_actions_per_round` left out, or 1);
    - action names are unique;
    - an option game needs `cost` on every action; a bidding game takes none (bids pay);
    - `min_margin` only in bidding games, and distinct among one action's effects;
    - `goal`, `max_rounds` or both;
    - party and member names are unique, all of them together;
    - every skill in a member's `skills` is in `skill_list`;
    - at most 64 members in all the parties together;
    - `dice` "verifiable" takes no `seed`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    dc: Annotated[int, Field(ge=-1000, le=1000, title="Dc")]
    skill_list: Annotated[
        list[SkillListItem], Field(max_length=64, min_length=1, title="Skill List")
    ]
    skills_per_round: Annotated[int, Field(ge=1, le=64, title="Skills Per Round")]
    kind: Annotated[Literal["bidding", "option"], Field(title="Kind")]
    max_actions_per_round: Annotated[
        MaxActionsPerRound | None, Field(title="Max Actions Per Round")
    ] = None
    actions: Annotated[list[SkillGameAction], Field(max_length=64, min_length=1, title="Actions")]
    goal: Annotated[Goal | None, Field(title="Goal")] = None
    max_rounds: Annotated[MaxRounds | None, Field(title="Max Rounds")] = None
    token_rule: Annotated[
        Literal["exceed", "meet"] | None,
        Field(description='Default: "exceed".', title="Token Rule"),
    ] = None
    parties: Annotated[list[SkillGameParty], Field(max_length=16, min_length=2, title="Parties")]
    seed: Annotated[Seed | None, Field(title="Seed")] = None
    dice: Annotated[
        Literal["server", "verifiable"] | None,
        Field(
            description='`"verifiable"`: every server die derived from a committed secret seed and the seeds the token holders add, every round chained, all of it revealed once the session is over (docs/verifiable-dice.md); not with `seed` Default: "server".',
            title="Dice",
        ),
    ] = None


class SkillGameCreated(BaseModel):
    """
    A new session with its tokens (omitted in a replay to a caller that did not scope its Idempotency-Key with a secret of its own).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished"], Field(title="Status")]
    version: Annotated[int, Field(title="Version")]
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    round: Annotated[int, Field(title="Round")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    start_rolls: Annotated[list[RollRecord] | None, Field(title="Start Rolls")] = None
    summary: Annotated[str | None, Field(title="Summary")] = None
    pending: PendingRound | None = None
    dice: Annotated[Literal["verifiable"] | None, Field(title="Dice")] = None
    commitment: Annotated[str | None, Field(title="Commitment")] = None
    chain_head: Annotated[str | None, Field(title="Chain Head")] = None
    config: SkillGameConfig
    state: SkillGameState
    result: SkillGameResult | None
    tokens: Tokens | None = None


class SkillGameRound(BaseModel):
    """
    A revealed round as served: every die of the round (skill checks, then order d20s).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    checks: Annotated[dict[str, dict[str, SkillGameCheck]], Field(title="Checks")]
    bids: Annotated[dict[str, int] | None, Field(title="Bids")] = None
    choices: Annotated[dict[str, SkillGameBid | SkillGamePurchase], Field(title="Choices")]
    order: Annotated[list[str] | None, Field(title="Order")] = None
    effects: Annotated[list[SkillGameTakenEffect], Field(title="Effects")]
    tokens: Annotated[dict[str, int], Field(title="Tokens")]
    progress: Annotated[dict[str, int], Field(title="Progress")]
    finished: Annotated[bool, Field(title="Finished")]
    winner: Annotated[str | None, Field(title="Winner")] = None
    grants: Annotated[list[SkillGameGrantRecord] | None, Field(title="Grants")] = None
    number: Annotated[int, Field(title="Number")]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    unused: Annotated[list[UnusedRecord] | None, Field(title="Unused")] = None
    summary: Annotated[str, Field(title="Summary")]
    cards: Annotated[list[RoundCard] | None, Field(title="Cards")] = None


class SkillGameRounds(BaseModel):
    """
    The rounds played, oldest first.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rounds: Annotated[list[SkillGameRound], Field(title="Rounds")]


class SkillGameSession(BaseModel):
    """
    A skill game as every answer shows it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished"], Field(title="Status")]
    version: Annotated[int, Field(title="Version")]
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    round: Annotated[int, Field(title="Round")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    start_rolls: Annotated[list[RollRecord] | None, Field(title="Start Rolls")] = None
    summary: Annotated[str | None, Field(title="Summary")] = None
    pending: PendingRound | None = None
    dice: Annotated[Literal["verifiable"] | None, Field(title="Dice")] = None
    commitment: Annotated[str | None, Field(title="Commitment")] = None
    chain_head: Annotated[str | None, Field(title="Chain Head")] = None
    config: SkillGameConfig
    state: SkillGameState
    result: SkillGameResult | None


class SkillGameSkillsAnswer(BaseModel):
    """
    A party's checks for the round, its dice and the session after them.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    party: Annotated[str, Field(title="Party")]
    checks: Annotated[dict[str, SkillGameCheck], Field(title="Checks")]
    tokens_earned: Annotated[int, Field(title="Tokens Earned")]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    session: SkillGameSession
    summary: Annotated[str, Field(title="Summary")]


class WebhookDeliveries(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    deliveries: Annotated[list[WebhookDelivery], Field(title="Deliveries")]


class Problem(BaseModel):
    """
    An error (RFC 9457 problem+json); a 422 lists at most 50 `errors` and counts the rest.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    type: Annotated[str, Field(title="Type")]
    title: Annotated[str, Field(title="Title")]
    status: Annotated[int, Field(title="Status")]
    detail: Annotated[str, Field(title="Detail")]
    errors: Annotated[
        list[ProblemError] | None, Field(description="The invalid parts of a 422, at most 50.")
    ] = None
    errors_omitted: Annotated[
        int | None, Field(description="Errors found beyond those listed.", ge=1)
    ] = None


class ArmWrestleChanged(BaseModel):
    """
    The changed session.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: ArmWrestleSession


class ArmWrestleResolved(BaseModel):
    """
    The session after `resolve`: how many rounds it played, and the last few of them (every round is in `GET …/rounds`).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: ArmWrestleSession
    played: Annotated[int, Field(title="Played")]
    summary: Annotated[str, Field(title="Summary")]
    rounds: Annotated[list[ArmWrestleRoundRecord], Field(title="Rounds")]


class ArmWrestleRoundAnswer(BaseModel):
    """
    The round just played and the session after it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    round: ArmWrestleRoundRecord
    session: ArmWrestleSession
    summary: Annotated[str, Field(title="Summary")]


class ArmWrestleSeedAdded(BaseModel):
    """
    The seeds added so far (the new one last), their digest, and the session.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    seeds: Annotated[list[AddedSeedRecord], Field(title="Seeds")]
    seeds_digest: Annotated[str, Field(title="Seeds Digest")]
    session: ArmWrestleSession
    summary: Annotated[str, Field(title="Summary")]


class ChaseConfig(BaseModel):
    """
    A chase's `config`: both sides normalised as race competitors, the start, the options.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    escapee: RaceCompetitorConfig
    chaser: RaceCompetitorConfig
    start: ChaseStartConfig
    hazard_base_cost: Annotated[int, Field(title="Hazard Base Cost")]
    endurance_rule: Annotated[bool, Field(title="Endurance Rule")]
    max_rounds: Annotated[int, Field(title="Max Rounds")]
    max_retries: Annotated[int | None, Field(title="Max Retries")]
    damage_instead_of_forfeit: Annotated[bool, Field(title="Damage Instead Of Forfeit")]
    speed_bonus: Annotated[Literal["increment", "every-roll"], Field(title="Speed Bonus")]


class ChaseCreate(BaseModel):
    """
    A new chase: the escapee, the chaser, how it starts and its options
    (docs/rules.md#chases).

    Rules across fields:
    - the escapee's and the chaser's names differ;
    - an `initiative` start needs an escapee whose initiative can give a lead at all: the best
      d20, 20, plus her `mods.initiative` must be above 0 (docs/rules.md#starting-lead), and
      a rolled lead of 0 or less is refused;
    - `rolls` supplies only the escapee's `initiative` die, and only with a start that rolls
      it: `initiative`, or `distance` `with_initiative` (whose best roll, 20, plus her
      `mods.initiative` plus the distance's DS must be above 0 too);
    - `dice` "verifiable" takes no `seed`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    escapee: RaceCompetitor
    chaser: RaceCompetitor
    start: Annotated[InitiativeStart | DistanceStart | LeadStart, Field(title="Start")]
    hazard_base_cost: Annotated[
        int | None,
        Field(
            description="DS a hazard costs the escapee on top of its penalty (the source's example: 0) Default: 5.",
            ge=0,
            le=10000,
            title="Hazard Base Cost",
        ),
    ] = None
    endurance_rule: Annotated[
        bool | None, Field(description="Default: true.", title="Endurance Rule")
    ] = None
    max_rounds: Annotated[
        int | None, Field(description="Default: 200.", ge=1, le=10000, title="Max Rounds")
    ] = None
    max_retries: Annotated[
        MaxRetries | None,
        Field(
            description="retries allowed after a failed obstacle; null: no cap (an obstacle no die can pass then forfeits at once, `impassable`) Default: 5.",
            title="Max Retries",
        ),
    ] = None
    damage_instead_of_forfeit: Annotated[
        bool | None, Field(description="Default: false.", title="Damage Instead Of Forfeit")
    ] = None
    speed_bonus: Annotated[
        Literal["increment", "every-roll"] | None,
        Field(
            description='the speed bonus goes to the increment check only (increment), or to the obstacle, hazard, Ride and Constitution checks too (every-roll) Default: "increment".',
            title="Speed Bonus",
        ),
    ] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None
    dice: Annotated[
        Literal["server", "verifiable"] | None,
        Field(
            description='`"verifiable"`: every server die derived from a committed secret seed and the seeds the token holders add, every round chained, all of it revealed once the session is over (docs/verifiable-dice.md); not with `seed` Default: "server".',
            title="Dice",
        ),
    ] = None
    seats: Annotated[
        bool | None,
        Field(
            description="give each competitor a seat token (`tokens.seats`), which reads the session and posts only that competitor's dice Default: false.",
            title="Seats",
        ),
    ] = None
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            StartDice,
        ]
        | None,
        Field(description="the escapee's supplied initiative die", title="Rolls"),
    ] = None


class ChaseCreated(BaseModel):
    """
    A new session with its tokens (omitted in a replay to a caller that did not scope its Idempotency-Key with a secret of its own).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished"], Field(title="Status")]
    version: Annotated[int, Field(title="Version")]
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    round: Annotated[int, Field(title="Round")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    start_rolls: Annotated[list[RollRecord] | None, Field(title="Start Rolls")] = None
    summary: Annotated[str | None, Field(title="Summary")] = None
    pending: PendingRound | None = None
    dice: Annotated[Literal["verifiable"] | None, Field(title="Dice")] = None
    commitment: Annotated[str | None, Field(title="Commitment")] = None
    chain_head: Annotated[str | None, Field(title="Chain Head")] = None
    config: ChaseConfig
    state: ChaseState
    result: ChaseResult | None
    tokens: Tokens | None = None


class ChaseResolve(BaseModel):
    """
    `resolve`: the terrain of every remaining increment, and when the escapee hides.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    terrain: ChaseTerrain
    tactic_policy: Annotated[
        Literal["none", "hide-when-possible"] | None,
        Field(description='Default: "none".', title="Tactic Policy"),
    ] = None


class ChaseRound(BaseModel):
    model_config = ConfigDict(
        extra="ignore",
    )
    collect: Annotated[
        bool | None,
        Field(
            description="wait for each seat's dice instead of rolling (a seated session) Default: false.",
            title="Collect",
        ),
    ] = None
    deadline_seconds: Annotated[DeadlineSeconds | None, Field(title="Deadline Seconds")] = None
    terrain: ChaseTerrain
    tactic: Annotated[HideTactic | HazardTactic | None, Field(title="Tactic")] = None
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            ChaseDice,
        ]
        | None,
        Field(title="Rolls"),
    ] = None


class ChaseRoundRecord(BaseModel):
    """
    One increment of a chase as `rounds` lists it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    increment: Annotated[int, Field(title="Increment")]
    terrain: ChaseTerrainRecord
    lead_before: Annotated[int, Field(title="Lead Before")]
    tactic: ChaseTacticRecord | None
    gains: Annotated[dict[str, int], Field(title="Gains")]
    lead: Annotated[int, Field(title="Lead")]
    finished: Annotated[bool, Field(title="Finished")]
    outcome: Annotated[Literal["caught", "escaped", "hid"] | None, Field(title="Outcome")]
    status_detail: Annotated[
        Literal["caught", "escaped", "hid", "gave-up"] | None, Field(title="Status Detail")
    ]
    sides: Annotated[dict[str, ChaseSideRecord], Field(title="Sides")]
    number: Annotated[int, Field(title="Number")]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    unused: Annotated[list[UnusedRecord] | None, Field(title="Unused")] = None
    summary: Annotated[str, Field(title="Summary")]
    cards: Annotated[list[RoundCard] | None, Field(title="Cards")] = None
    dice_from: Annotated[
        dict[str, Literal["seat", "gm", "deadline", "roll-for-me"]] | None, Field(title="Dice From")
    ] = None


class ChaseRounds(BaseModel):
    """
    The rounds played, oldest first.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    rounds: Annotated[list[ChaseRoundRecord], Field(title="Rounds")]


class ChaseSession(BaseModel):
    """
    A chase as every answer shows it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished"], Field(title="Status")]
    version: Annotated[int, Field(title="Version")]
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    round: Annotated[int, Field(title="Round")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    start_rolls: Annotated[list[RollRecord] | None, Field(title="Start Rolls")] = None
    summary: Annotated[str | None, Field(title="Summary")] = None
    pending: PendingRound | None = None
    dice: Annotated[Literal["verifiable"] | None, Field(title="Dice")] = None
    commitment: Annotated[str | None, Field(title="Commitment")] = None
    chain_head: Annotated[str | None, Field(title="Chain Head")] = None
    config: ChaseConfig
    state: ChaseState
    result: ChaseResult | None


class ChaseWaiting(BaseModel):
    """
    A round waiting for the seats' dice, and the session: who it still waits for (`name`: whose dice just came in; `names`: whom the GM rolled for), never a die.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    pending: PendingRound
    name: Annotated[str | None, Field(title="Name")] = None
    names: Annotated[list[str] | None, Field(title="Names")] = None
    session: ChaseSession
    summary: Annotated[str, Field(title="Summary")]


class LongThrowAnswer(BaseModel):
    """
    The answer of `POST /v1/long-throws`; `series` is there in precision mode only.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    mode: Annotated[Literal["distance", "caber", "precision", "halfling-toss"], Field(title="Mode")]
    object: LongThrowObject
    winners: Annotated[list[str], Field(title="Winners")]
    tie: Annotated[bool, Field(title="Tie")]
    competitors: Annotated[list[LongThrowCompetitorResult], Field(title="Competitors")]
    series: Annotated[list[LongThrowSeries] | None, Field(title="Series")] = None
    toss_distance_ft: Annotated[int | None, Field(title="Toss Distance Ft")] = None
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    unused: Annotated[list[UnusedRecord] | None, Field(title="Unused")] = None
    summary: Annotated[str, Field(title="Summary")]


class OddsChaseOption(BaseModel):
    """
    One option for a chase's next increment: `move` is the round body it would post
    (`POST /v1/chases/{id}/rounds`, the same validation: its terrain and tactic), without
    `rolls` (the dice are what is unknown); `label` names it in the answer (by default, its
    tactic).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    label: Annotated[Label | None, Field(title="Label")] = None
    move: ChaseRound


class OddsChaseRequest(BaseModel):
    """
    The body of `POST /v1/odds/chases`: a chase as created (`POST /v1/chases`, the same
    validation), plus the terrain of every increment and the escapee's tactic policy, as
    `resolve` takes them. `rolls` fixes the starting initiative die; without it an
    initiative start is weighed over every roll that starts the chase. `seed` seeds a Monte
    Carlo estimate and `trials` sets its trials (each starting roll of an initiative mixture
    gets as many).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    escapee: RaceCompetitor
    chaser: RaceCompetitor
    start: Annotated[InitiativeStart | DistanceStart | LeadStart, Field(title="Start")]
    hazard_base_cost: Annotated[
        int | None,
        Field(
            description="DS a hazard costs the escapee on top of its penalty (the source's example: 0) Default: 5.",
            ge=0,
            le=10000,
            title="Hazard Base Cost",
        ),
    ] = None
    endurance_rule: Annotated[
        bool | None, Field(description="Default: true.", title="Endurance Rule")
    ] = None
    max_rounds: Annotated[
        int | None, Field(description="Default: 200.", ge=1, le=10000, title="Max Rounds")
    ] = None
    max_retries: Annotated[
        MaxRetries | None,
        Field(
            description="retries allowed after a failed obstacle; null: no cap (an obstacle no die can pass then forfeits at once, `impassable`) Default: 5.",
            title="Max Retries",
        ),
    ] = None
    damage_instead_of_forfeit: Annotated[
        bool | None, Field(description="Default: false.", title="Damage Instead Of Forfeit")
    ] = None
    speed_bonus: Annotated[
        Literal["increment", "every-roll"] | None,
        Field(
            description='the speed bonus goes to the increment check only (increment), or to the obstacle, hazard, Ride and Constitution checks too (every-roll) Default: "increment".',
            title="Speed Bonus",
        ),
    ] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None
    dice: Annotated[
        Literal["server", "verifiable"] | None,
        Field(
            description='`"verifiable"`: every server die derived from a committed secret seed and the seeds the token holders add, every round chained, all of it revealed once the session is over (docs/verifiable-dice.md); not with `seed` Default: "server".',
            title="Dice",
        ),
    ] = None
    seats: Annotated[
        bool | None,
        Field(
            description="give each competitor a seat token (`tokens.seats`), which reads the session and posts only that competitor's dice Default: false.",
            title="Seats",
        ),
    ] = None
    rolls: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            StartDice,
        ]
        | None,
        Field(description="the escapee's supplied initiative die", title="Rolls"),
    ] = None
    terrain: ChaseTerrain
    tactic_policy: Annotated[
        Literal["none", "hide-when-possible"] | None,
        Field(description='Default: "none".', title="Tactic Policy"),
    ] = None
    trials: Annotated[Trials | None, Field(title="Trials")] = None


class OddsRaceChoicesRequest(BaseModel):
    """
    The body of `POST /v1/races/{id}/odds/choices`: the options (1 to 16), each one
    racer's pacing, and the seed and trials of the Monte Carlo estimate every option is
    played with (the same dice for every option).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    options: Annotated[list[OddsRaceOption], Field(max_length=16, min_length=1, title="Options")]
    seed: Annotated[Seed | None, Field(title="Seed")] = None
    trials: Annotated[Trials | None, Field(title="Trials")] = None


class OddsSkillGameChoicesRequest(BaseModel):
    """
    The body of `POST /v1/skill-games/{id}/odds/choices`: the options (1 to 16), each a
    party's choice of skills for this round.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    options: Annotated[
        list[OddsSkillGameOption], Field(max_length=16, min_length=1, title="Options")
    ]


class OddsSkillGameTokensRequest(BaseModel):
    """
    The body of `POST /v1/odds/skill-games/tokens`: a skill game as created and the skills
    each party would choose this round.

    `game` is exactly the body of `POST /v1/skill-games` (the same validation and 422s, located
    under `game`); `skills` maps a party's name to its chosen skills (`{party: [skill, ...]}`:
    `skills_per_round` distinct skills of the game's `skill_list`, as the skills call takes
    them). Only the parties named are answered.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    game: SkillGameCreate
    skills: Annotated[
        dict[
            Annotated[
                str,
                StringConstraints(
                    pattern=r"^[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*[^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\x00-\x1f\x7f-\x9f\u2028\u2029\u200b\u202a-\u202e\u2060\u2066-\u2069\ufeff]*$",
                    min_length=1,
                    max_length=64,
                ),
            ],
            SkillsAdditionalProperty,
        ],
        Field(max_length=16, min_length=1, title="Skills"),
    ]


class Proof(BaseModel):
    """
    A verifiable session's proof (docs/verifiable-dice.md#the-proof): while it runs, the
    commitment, the seeds added and the chain's head; once it is over (`revealed`), the
    server seed too and its rounds as chained, a page at a time (`after`, `limit`).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    scheme: Annotated[str, Field(title="Scheme")]
    session: Annotated[str, Field(title="Session")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished", "deleted"], Field(title="Status")]
    revealed: Annotated[bool, Field(title="Revealed")]
    commitment: Annotated[str, Field(title="Commitment")]
    seeds: Annotated[list[AddedSeedRecord], Field(title="Seeds")]
    seeds_digest: Annotated[str, Field(title="Seeds Digest")]
    seeds_open: Annotated[bool, Field(title="Seeds Open")]
    seeds_link: Annotated[str | None, Field(title="Seeds Link")]
    chain_head: Annotated[str, Field(title="Chain Head")]
    rounds_played: Annotated[int, Field(title="Rounds Played")]
    genesis: ProofGenesis
    genesis_link: Annotated[str, Field(title="Genesis Link")]
    server_seed: Annotated[str | None, Field(title="Server Seed")] = None
    rounds: Annotated[list[ProofRound] | None, Field(title="Rounds")] = None
    summary: Annotated[str, Field(title="Summary")]


class RaceCourse(BaseModel):
    """
    A course of your own.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    increments: Annotated[
        list[RaceIncrement], Field(max_length=200, min_length=1, title="Increments")
    ]


class RaceCreate(BaseModel):
    """
    A new race: its course, its competitors and its options (docs/rules.md#races).

    Rules across fields:
    - competitor names are unique;
    - when the course has mounted increments, every competitor has a `mount`;
    - in each increment of a course of your own: `on_fail` needs a `dc`; a `mounted` one is
      the mount's `strength` check (its `check` is `strength`); a hazard is never retried
      (its obstacle's `retry` is false); an obstacle's `damage` is valid dice notation;
    - `dice` "verifiable" takes no `seed`.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    course: Annotated[
        Literal["dash", "typical", "marathon", "dakrothian-marathon"] | RaceCourse,
        Field(description="a preset (docs/rules.md#races) or {increments: [...]}", title="Course"),
    ]
    competitors: Annotated[
        list[RaceCompetitor], Field(max_length=64, min_length=1, title="Competitors")
    ]
    damage_instead_of_forfeit: Annotated[
        bool | None,
        Field(
            description="a failed obstacle or hazard costs only its damage; the racer goes on as usual Default: false.",
            title="Damage Instead Of Forfeit",
        ),
    ] = None
    endurance_rule: Annotated[
        bool | None, Field(description="Default: true.", title="Endurance Rule")
    ] = None
    max_retries: Annotated[
        MaxRetries | None,
        Field(
            description="retries allowed after a failed obstacle; null: no cap (an obstacle no die can pass then forfeits at once, `impassable`) Default: 5.",
            title="Max Retries",
        ),
    ] = None
    speed_bonus: Annotated[
        Literal["increment", "every-roll"] | None,
        Field(
            description='the speed bonus goes to the increment check only (increment), or to the obstacle, hazard, Ride and Constitution checks too (every-roll) Default: "increment".',
            title="Speed Bonus",
        ),
    ] = None
    pacing_rule: Annotated[
        Literal["safe-increments", "constitution-score"] | None,
        Field(
            description='pacing and sprinting change the safe increments only (safe-increments), or the Constitution score itself, and so its modifier (constitution-score) Default: "safe-increments".',
            title="Pacing Rule",
        ),
    ] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None
    dice: Annotated[
        Literal["server", "verifiable"] | None,
        Field(
            description='`"verifiable"`: every server die derived from a committed secret seed and the seeds the token holders add, every round chained, all of it revealed once the session is over (docs/verifiable-dice.md); not with `seed` Default: "server".',
            title="Dice",
        ),
    ] = None
    seats: Annotated[
        bool | None,
        Field(
            description="give each competitor a seat token (`tokens.seats`), which reads the session and posts only that competitor's dice Default: false.",
            title="Seats",
        ),
    ] = None


class RaceCustomCourse(BaseModel):
    """
    A course of one's own.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    increments: Annotated[list[RaceIncrementConfig], Field(title="Increments")]


class RegularContestAnswer(BaseModel):
    """
    The answer of `POST /v1/gurps/regular-contest`: every round until one side wins.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    effective_skills: Annotated[dict[str, int], Field(title="Effective Skills")]
    status: Annotated[Literal["decided", "undecided"], Field(title="Status")]
    winner: Annotated[str | None, Field(title="Winner")]
    rounds_taken: Annotated[int, Field(title="Rounds Taken")]
    game_seconds: Annotated[int, Field(title="Game Seconds")]
    rounds: Annotated[list[RegularRoundPlayed], Field(title="Rounds")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    rolls: Annotated[list[RollRecord], Field(title="Rolls")]
    summary: Annotated[str, Field(title="Summary")]


class RegularContestChanged(BaseModel):
    """
    The changed session.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: RegularContestSession


class RegularContestResolved(BaseModel):
    """
    The session after `resolve`: how many rounds it played, and the last few of them (every round is in `GET …/rounds`).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: RegularContestSession
    played: Annotated[int, Field(title="Played")]
    summary: Annotated[str, Field(title="Summary")]
    rounds: Annotated[list[RegularContestRoundRecord], Field(title="Rounds")]


class RegularContestRoundAnswer(BaseModel):
    """
    The round just played and the session after it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    round: RegularContestRoundRecord
    session: RegularContestSession
    summary: Annotated[str, Field(title="Summary")]


class RegularContestSeedAdded(BaseModel):
    """
    The seeds added so far (the new one last), their digest, and the session.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    seeds: Annotated[list[AddedSeedRecord], Field(title="Seeds")]
    seeds_digest: Annotated[str, Field(title="Seeds Digest")]
    session: RegularContestSession
    summary: Annotated[str, Field(title="Summary")]


class SkillGameEnded(BaseModel):
    """
    The ended game: its session and one line.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: SkillGameSession
    summary: Annotated[str, Field(title="Summary")]


class SkillGameGranted(BaseModel):
    """
    The GM's grant and the session after it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    grant: SkillGameGrantRecord
    session: SkillGameSession
    summary: Annotated[str, Field(title="Summary")]


class SkillGameRevealed(BaseModel):
    """
    200: the last choice revealed and resolved the round.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    round: SkillGameRound
    session: SkillGameSession
    summary: Annotated[str, Field(title="Summary")]


class SkillGameSealed(BaseModel):
    """
    202: the choice is sealed; who is still awaited (never what anyone sealed).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    submitted: Annotated[Literal[True], Field(title="Submitted")]
    party: Annotated[str, Field(title="Party")]
    waiting_for: Annotated[list[str], Field(title="Waiting For")]
    session: SkillGameSession
    summary: Annotated[str, Field(title="Summary")]


class SkillGameSeedAdded(BaseModel):
    """
    The seeds added so far (the new one last), their digest, and the session.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    seeds: Annotated[list[AddedSeedRecord], Field(title="Seeds")]
    seeds_digest: Annotated[str, Field(title="Seeds Digest")]
    session: SkillGameSession
    summary: Annotated[str, Field(title="Summary")]


class ChaseChanged(BaseModel):
    """
    The changed session.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: ChaseSession


class ChaseEnded(BaseModel):
    """
    The ended chase (the chaser gave up): its session and one line.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: ChaseSession
    summary: Annotated[str, Field(title="Summary")]


class ChaseResolved(BaseModel):
    """
    The session after `resolve`: how many rounds it played, and the last few of them (every round is in `GET …/rounds`).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: ChaseSession
    played: Annotated[int, Field(title="Played")]
    summary: Annotated[str, Field(title="Summary")]
    rounds: Annotated[list[ChaseRoundRecord], Field(title="Rounds")]


class ChaseRoundAnswer(BaseModel):
    """
    The round just played and the session after it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    round: ChaseRoundRecord
    session: ChaseSession
    summary: Annotated[str, Field(title="Summary")]


class ChaseSeedAdded(BaseModel):
    """
    The seeds added so far (the new one last), their digest, and the session.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    seeds: Annotated[list[AddedSeedRecord], Field(title="Seeds")]
    seeds_digest: Annotated[str, Field(title="Seeds Digest")]
    session: ChaseSession
    summary: Annotated[str, Field(title="Summary")]


class OddsChaseChoicesRequest(BaseModel):
    """
    The body of `POST /v1/chases/{id}/odds/choices`: the options for the next increment
    (1 to 16), and the odds question of the increments after it, as `POST …/odds` asks it:
    their `terrain` (by default each option's own), the escapee's `tactic_policy`, the seed
    of a Monte Carlo estimate.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    options: Annotated[list[OddsChaseOption], Field(max_length=16, min_length=1, title="Options")]
    terrain: ChaseTerrain | None = None
    tactic_policy: Annotated[
        Literal["none", "hide-when-possible"] | None,
        Field(description='Default: "none".', title="Tactic Policy"),
    ] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None


class OddsRaceRequest(BaseModel):
    """
    The body of `POST /v1/odds/races`: a race as created (`POST /v1/races`, the same
    validation), `seed` seeding the estimate, and `trials` its number of trials.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    course: Annotated[
        Literal["dash", "typical", "marathon", "dakrothian-marathon"] | RaceCourse,
        Field(description="a preset (docs/rules.md#races) or {increments: [...]}", title="Course"),
    ]
    competitors: Annotated[
        list[RaceCompetitor], Field(max_length=64, min_length=1, title="Competitors")
    ]
    damage_instead_of_forfeit: Annotated[
        bool | None,
        Field(
            description="a failed obstacle or hazard costs only its damage; the racer goes on as usual Default: false.",
            title="Damage Instead Of Forfeit",
        ),
    ] = None
    endurance_rule: Annotated[
        bool | None, Field(description="Default: true.", title="Endurance Rule")
    ] = None
    max_retries: Annotated[
        MaxRetries | None,
        Field(
            description="retries allowed after a failed obstacle; null: no cap (an obstacle no die can pass then forfeits at once, `impassable`) Default: 5.",
            title="Max Retries",
        ),
    ] = None
    speed_bonus: Annotated[
        Literal["increment", "every-roll"] | None,
        Field(
            description='the speed bonus goes to the increment check only (increment), or to the obstacle, hazard, Ride and Constitution checks too (every-roll) Default: "increment".',
            title="Speed Bonus",
        ),
    ] = None
    pacing_rule: Annotated[
        Literal["safe-increments", "constitution-score"] | None,
        Field(
            description='pacing and sprinting change the safe increments only (safe-increments), or the Constitution score itself, and so its modifier (constitution-score) Default: "safe-increments".',
            title="Pacing Rule",
        ),
    ] = None
    seed: Annotated[Seed | None, Field(title="Seed")] = None
    dice: Annotated[
        Literal["server", "verifiable"] | None,
        Field(
            description='`"verifiable"`: every server die derived from a committed secret seed and the seeds the token holders add, every round chained, all of it revealed once the session is over (docs/verifiable-dice.md); not with `seed` Default: "server".',
            title="Dice",
        ),
    ] = None
    seats: Annotated[
        bool | None,
        Field(
            description="give each competitor a seat token (`tokens.seats`), which reads the session and posts only that competitor's dice Default: false.",
            title="Seats",
        ),
    ] = None
    trials: Annotated[Trials | None, Field(title="Trials")] = None


class RaceConfig(BaseModel):
    """
    A race's `config`: the course as given, and its increments spelled out (a preset's too).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    course: Annotated[
        Literal["dash", "typical", "marathon", "dakrothian-marathon"] | RaceCustomCourse,
        Field(title="Course"),
    ]
    increments: Annotated[list[RaceIncrementConfig], Field(title="Increments")]
    competitors: Annotated[list[RaceCompetitorConfig], Field(title="Competitors")]
    damage_instead_of_forfeit: Annotated[bool, Field(title="Damage Instead Of Forfeit")]
    endurance_rule: Annotated[bool, Field(title="Endurance Rule")]
    max_retries: Annotated[int | None, Field(title="Max Retries")]
    speed_bonus: Annotated[Literal["increment", "every-roll"], Field(title="Speed Bonus")]
    pacing_rule: Annotated[
        Literal["safe-increments", "constitution-score"], Field(title="Pacing Rule")
    ]


class RaceCreated(BaseModel):
    """
    A new session with its tokens (omitted in a replay to a caller that did not scope its Idempotency-Key with a secret of its own).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished"], Field(title="Status")]
    version: Annotated[int, Field(title="Version")]
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    round: Annotated[int, Field(title="Round")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    start_rolls: Annotated[list[RollRecord] | None, Field(title="Start Rolls")] = None
    summary: Annotated[str | None, Field(title="Summary")] = None
    pending: PendingRound | None = None
    dice: Annotated[Literal["verifiable"] | None, Field(title="Dice")] = None
    commitment: Annotated[str | None, Field(title="Commitment")] = None
    chain_head: Annotated[str | None, Field(title="Chain Head")] = None
    config: RaceConfig
    state: RaceState
    result: RaceResult | None
    tokens: Tokens | None = None


class RaceSession(BaseModel):
    """
    A race as every answer shows it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    id: Annotated[str, Field(title="Id")]
    kind: Annotated[str, Field(title="Kind")]
    status: Annotated[Literal["active", "finished"], Field(title="Status")]
    version: Annotated[int, Field(title="Version")]
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    round: Annotated[int, Field(title="Round")]
    rule: Annotated[
        str,
        Field(
            description="the rule applied: a section of the repository's rules reference, e.g. docs/rules.md#quick-contest",
            examples=["docs/rules.md#quick-contest"],
            title="Rule",
        ),
    ]
    start_rolls: Annotated[list[RollRecord] | None, Field(title="Start Rolls")] = None
    summary: Annotated[str | None, Field(title="Summary")] = None
    pending: PendingRound | None = None
    dice: Annotated[Literal["verifiable"] | None, Field(title="Dice")] = None
    commitment: Annotated[str | None, Field(title="Commitment")] = None
    chain_head: Annotated[str | None, Field(title="Chain Head")] = None
    config: RaceConfig
    state: RaceState
    result: RaceResult | None


class RaceWaiting(BaseModel):
    """
    A round waiting for the seats' dice, and the session: who it still waits for (`name`: whose dice just came in; `names`: whom the GM rolled for), never a die.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    pending: PendingRound
    name: Annotated[str | None, Field(title="Name")] = None
    names: Annotated[list[str] | None, Field(title="Names")] = None
    session: RaceSession
    summary: Annotated[str, Field(title="Summary")]


class RaceChanged(BaseModel):
    """
    The changed session.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: RaceSession


class RacePacingChosen(BaseModel):
    """
    The answer of `POST /v1/races/{id}/pacing`: the race with that pacing, and one line.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: RaceSession
    summary: Annotated[str, Field(title="Summary")]


class RaceResolved(BaseModel):
    """
    The session after `resolve`: how many rounds it played, and the last few of them (every round is in `GET …/rounds`).
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    session: RaceSession
    played: Annotated[int, Field(title="Played")]
    summary: Annotated[str, Field(title="Summary")]
    rounds: Annotated[list[RaceRoundRecord], Field(title="Rounds")]


class RaceRoundAnswer(BaseModel):
    """
    The round just played and the session after it.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    round: RaceRoundRecord
    session: RaceSession
    summary: Annotated[str, Field(title="Summary")]


class RaceSeedAdded(BaseModel):
    """
    The seeds added so far (the new one last), their digest, and the session.
    """

    model_config = ConfigDict(
        extra="ignore",
    )
    seeds: Annotated[list[AddedSeedRecord], Field(title="Seeds")]
    seeds_digest: Annotated[str, Field(title="Seeds Digest")]
    session: RaceSession
    summary: Annotated[str, Field(title="Summary")]
