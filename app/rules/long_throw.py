"""The long throw: a direct-DS competition of strength (or dexterity, or aim)
(docs/rules.md#long-throws).

Four modes. `distance` (the default): each thrower able to lift the object makes one Strength
check, which is her DS (doubled with Far Shot: the whole check, or with `far_shot_doubles: "die"`
the d20 alone), and the check gives how far the object flies. `caber`: one Dexterity check each,
which is her DS. `precision`: series of attack rolls against an AC 5 target that starts 4 range
increments away and moves one increment further after every two series; whoever misses while
someone else hits is out, the last thrower in wins. `halfling-toss` (docs/rules.md#halfling-toss):
the distance throw of a creature at a bank `toss_distance_ft` (15 or more) away; a toss that falls
short misses and loses, the highest DS among those who landed it wins.

Whether a thrower may compete, and her penalty, come from her load limits
(docs/rules.md#who-may-throw-loads): the
3.5 SRD carrying-capacity table for her Strength score, scaled by size, or three limits the caller
gives directly.

Rulings where docs/rules.md#long-throws is silent (each is marked "Ruling" in a comment where it
applies):

- *Load table beyond Str 29.* The SRD multiplies the whole row of the Strength score with the same
  ones digit in 20..29 by 4 per ten points beyond it, so all three maxima scale: Str 30 is
  532/1064/1600 (4 * 133/266/400), not 533/1066/1600. For Str 1..29 the light and medium maxima
  are `floor(heavy / 3)` and `floor(2 * heavy / 3)`, which is exactly the SRD table.
- *Size.* The size multiplier applies to each of the three table maxima, rounding down
  (a Small Str 10 thrower: 24/49/75 lb). Limits the caller gives directly are used as given,
  not scaled.
- *Weapon Focus* is a flag meaning "Weapon Focus in this object as a weapon"; it adds +1, only
  when the object is a weapon, to the distance check and to each `precision` attack roll (the
  source gives it to "her check", and a precision throw's check is its attack roll:
  docs/rules.md#precision), and nothing in `caber` (a Dexterity check, not a throw at range).
- *Under ten.* A distance check below 10 throws `floor(increment * max(c, 0) / 10)` feet, reported
  as 0 whole increments (a Ruling, docs/rules.md#distance); with Far Shot `increment` is doubled.
- *Thrown creatures.* Each eligible thrower throws her own creature (an identical one, as with
  any object), so each makes her own landing-damage roll and the creature she threw its own
  Tumble check with her `tumble_mod` (0 when not given; the check is always made). This applies
  in `distance` and `caber` (caber is "as distance"); a `precision` series throws many times and
  resolves hits, not landings, so no creature damage is rolled there. `into_wall` matters only
  for creatures: the damage is `1d6 + the thrower's Strength bonus`; the wall takes the full
  amount, Tumble or not; the creature's `damage` is 0 when Tumble negates it.
- *Strength modifier.* `strength_mod` defaults to the modifier of `strength_score`; an eligible
  thrower whose mode needs it (the distance check, or the Strength bonus of a creature thrown into
  a wall) and who has neither is a rules error.
- *Precision with fewer than two throwers* in: no series is thrown; a lone eligible thrower is
  the last one in and wins, nobody eligible means nobody wins. A thrower's precision DS is the
  number of hits she scored.
- *Dice.* Supplied values for a thrower who cannot lift the object are ignored (she rolls no
  dice, docs/rules.md#who-may-throw-loads: reported, not an error); any other supplied value left
  unused (more
  precision rolls than series she threw in, damage dice for an object that is no creature) is the
  wrong count (docs/rules.md#dice-and-checks).

Dice, keyed (who, purpose) with who the thrower's name: (name, "throw") for the distance check,
the caber check and each precision attack roll, in that order; (name, "damage") for the 1d6
landing damage of the creature she threw; (name, "tumble") for that creature's Tumble check. In
distance and caber mode the dice are rolled thrower by thrower in the given order (throw, then
damage and tumble); in precision series by series, thrower by thrower.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Final, Literal, get_args

from app.rules.common import ability_modifier
from app.rules.dice import Dice, Key, Need
from app.rules.errors import Loc, PhaseError, RulesError, RuleViolation
from app.rules.messages import N_, Listing, Message, english, m, ng, term
from app.rules.text import name_key

Mode = Literal["distance", "caber", "precision", "halfling-toss"]
#: What Far Shot doubles in a distance check's DS (docs/rules.md#distance): the whole check
#: (the default) or the d20 alone.
FarShotRule = Literal["check", "die"]
Size = Literal[
    "fine", "diminutive", "tiny", "small", "medium", "large", "huge", "gargantuan", "colossal"
]
Load = Literal["light", "medium", "heavy", "over"]

MODES: Final[tuple[Mode, ...]] = get_args(Mode)
FAR_SHOT_RULES: Final[tuple[FarShotRule, ...]] = get_args(FarShotRule)
SIZES: Final[tuple[Size, ...]] = get_args(Size)

#: Dice purposes (docs/api.md#long-throws).
THROW: Final = "throw"
DAMAGE: Final = "damage"
TUMBLE: Final = "tumble"

#: docs/api.md#limits: at most 64 competitors.
MAX_COMPETITORS: Final = 64
#: docs/rules.md#long-throw-variants: `max_series` defaults to 40; bounded like `max_rounds`
#: (docs/api.md#limits).
DEFAULT_MAX_SERIES: Final = 40
MAX_SERIES_LIMIT: Final = 10_000
#: Sane bounds that keep every reported number a 64-bit integer.
MIN_STRENGTH: Final = 1
MAX_STRENGTH: Final = 200
MAX_MODIFIER: Final = 1_000
MAX_LOAD_LB: Final = 10**18
MAX_WEIGHT_LB: Final = 10**15
MAX_RANGE_INCREMENT_FT: Final = 10_000

#: docs/rules.md#who-may-throw-loads: medium load -3, heavy load -6 on every roll of the
#: competition.
LOAD_PENALTY: Final[Mapping[Load, int]] = {"light": 0, "medium": -3, "heavy": -6}
#: docs/rules.md#distance: +1 with Weapon Focus when the object is a weapon.
WEAPON_FOCUS_BONUS: Final = 1
#: docs/rules.md#distance: a Tumble check against DC 15 negates the thrown creature's damage.
TUMBLE_DC: Final = 15
LANDING_DIE_SIDES: Final = 6
#: docs/rules.md#precision: AC 5, 4 range increments away at first, -2 per increment beyond 1.
TARGET_AC: Final = 5
START_INCREMENTS: Final = 4
SERIES_PER_MOVE: Final = 2
RANGE_PENALTY_PER_INCREMENT: Final = 2
#: docs/rules.md#halfling-toss: "from a distance of 15 ft or more".
HALFLING_TOSS_DISTANCE_FT: Final = 15
MAX_TOSS_DISTANCE_FT: Final = 1_000_000

#: docs/rules.md#who-may-throw-loads: heavy-load maximum (lb) of a Medium biped by Strength score,
#: 1..29.
HEAVY_LOAD_TABLE: Final[Mapping[int, int]] = {
    1: 10, 2: 20, 3: 30, 4: 40, 5: 50, 6: 60, 7: 70, 8: 80, 9: 90, 10: 100,
    11: 115, 12: 130, 13: 150, 14: 175, 15: 200, 16: 230, 17: 260, 18: 300, 19: 350, 20: 400,
    21: 460, 22: 520, 23: 600, 24: 700, 25: 800, 26: 920, 27: 1040, 28: 1200, 29: 1400,
}  # fmt: skip
#: docs/rules.md#who-may-throw-loads: each +10 Strength beyond the table multiplies the row by 4.
TEN_STRENGTH_MULTIPLIER: Final = 4
#: docs/rules.md#who-may-throw-loads: carrying capacity by size.
SIZE_MULTIPLIER: Final[Mapping[Size, Fraction]] = {
    "fine": Fraction(1, 8),
    "diminutive": Fraction(1, 4),
    "tiny": Fraction(1, 2),
    "small": Fraction(3, 4),
    "medium": Fraction(1),
    "large": Fraction(2),
    "huge": Fraction(4),
    "gargantuan": Fraction(8),
    "colossal": Fraction(16),
}


# --------------------------------------------------------------------------------------------
# Objects and load
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ThrownObject:
    """What is thrown (docs/rules.md#objects)."""

    name: str
    weight_lb: float
    range_increment_ft: int
    weapon: bool = False
    creature: bool = False


#: docs/rules.md#objects: the objects a request may name.
STANDARD_OBJECTS: Final[Mapping[str, ThrownObject]] = {
    "javelin": ThrownObject("javelin", 2, 30, weapon=True),
    "discus": ThrownObject("discus", 5, 20),
    "stone": ThrownObject("stone", 14, 10),
    "halfling": ThrownObject("halfling", 30, 5, creature=True),
    "small-boulder": ThrownObject("small-boulder", 56, 5),
    "log": ThrownObject("log", 150, 2),
}


@dataclass(frozen=True, slots=True)
class LoadLimits:
    """Light, medium and heavy load maxima in lb (docs/rules.md#who-may-throw-loads)."""

    light: int
    medium: int
    heavy: int


def _table_row(strength_score: int) -> LoadLimits:
    """The SRD row for a Medium biped (docs/rules.md#who-may-throw-loads and the Ruling in the
    module docstring)."""
    if strength_score < MIN_STRENGTH:
        raise ValueError(f"strength_score must be at least {MIN_STRENGTH}")
    if strength_score in HEAVY_LOAD_TABLE:
        heavy = HEAVY_LOAD_TABLE[strength_score]
        return LoadLimits(heavy // 3, 2 * heavy // 3, heavy)
    # Ruling: the SRD multiplies the whole row (light and medium too), not just the heavy load.
    tens_beyond = (strength_score - 20) // 10
    base = _table_row(strength_score - 10 * tens_beyond)
    factor = TEN_STRENGTH_MULTIPLIER**tens_beyond
    return LoadLimits(base.light * factor, base.medium * factor, base.heavy * factor)


def heavy_load_max(strength_score: int) -> int:
    """Heavy-load maximum (lb) of a Medium biped (docs/rules.md#who-may-throw-loads)."""
    return _table_row(strength_score).heavy


def load_limits_for(strength_score: int, size: Size = "medium") -> LoadLimits:
    """The SRD load limits for a Strength score, scaled by size, rounding down
    (docs/rules.md#who-may-throw-loads)."""
    row = _table_row(strength_score)
    multiplier = SIZE_MULTIPLIER[size]
    # Ruling: each scaled maximum rounds down (docs/rules.md#rounding).
    return LoadLimits(
        math.floor(row.light * multiplier),
        math.floor(row.medium * multiplier),
        math.floor(row.heavy * multiplier),
    )


def load_category(weight_lb: float, limits: LoadLimits) -> Load:
    """Light up to the light maximum, medium, heavy, else over: cannot lift
    (docs/rules.md#who-may-throw-loads)."""
    if weight_lb <= limits.light:
        return "light"
    if weight_lb <= limits.medium:
        return "medium"
    if weight_lb <= limits.heavy:
        return "heavy"
    return "over"


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Thrower:
    """One competitor as docs/api.md#long-throws describes her (docs/rules.md#long-throws)."""

    name: str
    strength_score: int | None = None
    load_limits: LoadLimits | None = None
    size: Size = "medium"
    strength_mod: int | None = None
    dex_mod: int = 0
    ranged_attack_bonus: int = 0
    weapon_focus: bool = False
    far_shot: bool = False
    tumble_mod: int = 0

    @property
    def effective_strength_mod(self) -> int | None:
        """`strength_mod`, else the modifier of `strength_score` (docs/rules.md#dice-and-checks),
        else unknown."""
        if self.strength_mod is not None:
            return self.strength_mod
        if self.strength_score is not None:
            return ability_modifier(self.strength_score)
        return None

    @property
    def strength_bonus(self) -> int:
        """A bonus is `max(modifier, 0)` (docs/rules.md#dice-and-checks)."""
        return max(self.effective_strength_mod or 0, 0)

    @property
    def limits(self) -> LoadLimits:
        """Given limits, else the SRD table's for her Strength and size
        (docs/rules.md#who-may-throw-loads)."""
        if self.load_limits is not None:
            return self.load_limits
        if self.strength_score is None:
            raise ValueError(f"{self.name} has neither load_limits nor strength_score")
        return load_limits_for(self.strength_score, self.size)


@dataclass(frozen=True, slots=True)
class Assessment:
    """Whether a thrower can lift the object, and her load penalty
    (docs/rules.md#who-may-throw-loads)."""

    thrower: Thrower
    limits: LoadLimits
    load: Load

    @property
    def eligible(self) -> bool:
        return self.load != "over"

    @property
    def penalty(self) -> int:
        return LOAD_PENALTY.get(self.load, 0)


def assess(thrown: ThrownObject, thrower: Thrower) -> Assessment:
    """Her load category for the object (docs/rules.md#who-may-throw-loads)."""
    limits = thrower.limits
    return Assessment(thrower, limits, load_category(thrown.weight_lb, limits))


@dataclass(frozen=True, slots=True)
class LongThrowConfig:
    """A validated long-throw competition (docs/rules.md#long-throws); build it with
    `long_throw_config`."""

    thrown: ThrownObject
    throwers: tuple[Thrower, ...]
    mode: Mode = "distance"
    into_wall: bool = False
    max_series: int = DEFAULT_MAX_SERIES
    #: `halfling-toss`: how far away the snow bank or hay bale is.
    toss_distance_ft: int = HALFLING_TOSS_DISTANCE_FT
    far_shot_doubles: FarShotRule = "check"

    @property
    def creature_landings(self) -> bool:
        """Whether thrown creatures land and take damage in this mode.

        Ruling: in `distance`, `caber` and `halfling-toss`; a `precision` series scores hits,
        not landings.
        """
        return self.thrown.creature and self.mode != "precision"

    @property
    def assessments(self) -> tuple[Assessment, ...]:
        return tuple(assess(self.thrown, thrower) for thrower in self.throwers)


def _needs_strength_mod(mode: Mode, thrown: ThrownObject, into_wall: bool) -> bool:
    return mode in ("distance", "halfling-toss") or (
        thrown.creature and into_wall and mode == "caber"
    )


def long_throw_config(
    thrown: ThrownObject,
    throwers: Sequence[Thrower],
    *,
    mode: Mode = "distance",
    into_wall: bool = False,
    max_series: int = DEFAULT_MAX_SERIES,
    toss_distance_ft: int | None = None,
    far_shot_doubles: FarShotRule = "check",
) -> LongThrowConfig:
    """Validate a long-throw competition (docs/rules.md#long-throws, docs/api.md#limits).

    Every violation is reported at once, each with its location in the request body. A
    `halfling-toss` throws a creature (not `into_wall`) at a bank `toss_distance_ft` away (15,
    the default, or more); `toss_distance_ft` belongs to that mode alone.
    """
    found: list[RuleViolation] = []

    def bad(loc: Loc, msg: str | Message) -> None:
        found.append(RuleViolation.of(loc, msg))

    if mode not in MODES:
        bad(("mode",), m("mode must be one of {modes}", modes=", ".join(MODES)))
    if not 1 <= max_series <= MAX_SERIES_LIMIT:
        bad(("max_series",), m("max_series must be 1..{most}", most=MAX_SERIES_LIMIT))
    if far_shot_doubles not in FAR_SHOT_RULES:
        bad(
            ("far_shot_doubles",),
            m("far_shot_doubles must be one of {rules}", rules=", ".join(FAR_SHOT_RULES)),
        )
    if mode == "halfling-toss":
        if not thrown.creature:
            bad(
                ("object",),
                N_("a halfling toss throws a creature (the halfling, or creature: true)"),
            )
        if into_wall:
            bad(("into_wall",), N_("a halfling toss lands in a snow bank or hay bale, not a wall"))
        if toss_distance_ft is not None and not (
            HALFLING_TOSS_DISTANCE_FT <= toss_distance_ft <= MAX_TOSS_DISTANCE_FT
        ):
            bad(
                ("toss_distance_ft",),
                m(
                    "a halfling toss is from {least} ft or more (at most {most})",
                    least=HALFLING_TOSS_DISTANCE_FT,
                    most=MAX_TOSS_DISTANCE_FT,
                ),
            )
    elif toss_distance_ft is not None:
        bad(("toss_distance_ft",), N_("toss_distance_ft applies only to mode halfling-toss"))
    if not (math.isfinite(thrown.weight_lb) and 0 < thrown.weight_lb <= MAX_WEIGHT_LB):
        bad(
            ("object", "weight_lb"),
            m("weight_lb must be above 0 and at most {most}", most=MAX_WEIGHT_LB),
        )
    if not 1 <= thrown.range_increment_ft <= MAX_RANGE_INCREMENT_FT:
        bad(
            ("object", "range_increment_ft"),
            m("range_increment_ft must be 1..{most}", most=MAX_RANGE_INCREMENT_FT),
        )
    if not 1 <= len(throwers) <= MAX_COMPETITORS:
        bad(("competitors",), m("a long throw needs 1..{most} competitors", most=MAX_COMPETITORS))
    seen: set[str] = set()
    for index, thrower in enumerate(throwers):
        found.extend(_thrower_violations(thrower, ("competitors", index)))
        if name_key(thrower.name) in seen:
            bad(
                ("competitors", index, "name"),
                m("the name {name} is used twice", name=repr(thrower.name)),
            )
        seen.add(name_key(thrower.name))
    if not found:
        needs_mod = _needs_strength_mod(mode, thrown, into_wall)
        for index, thrower in enumerate(throwers):
            eligible = assess(thrown, thrower).eligible
            if needs_mod and eligible and thrower.effective_strength_mod is None:
                bad(
                    ("competitors", index, "strength_mod"),
                    m(
                        "{name} needs strength_mod or strength_score in {mode} mode",
                        name=thrower.name,
                        mode=mode,
                    ),
                )
    if found:
        raise RulesError.of_all(found)
    return LongThrowConfig(
        thrown,
        tuple(throwers),
        mode,
        into_wall,
        max_series,
        HALFLING_TOSS_DISTANCE_FT if toss_distance_ft is None else toss_distance_ft,
        far_shot_doubles,
    )


def _thrower_violations(thrower: Thrower, loc: Loc) -> list[RuleViolation]:
    found: list[RuleViolation] = []
    if not thrower.name.strip():
        found.append(RuleViolation((*loc, "name"), N_("name must not be blank")))
    if thrower.size not in SIZES:
        found.append(
            RuleViolation.of(
                (*loc, "size"), m("size must be one of {sizes}", sizes=", ".join(SIZES))
            )
        )
    if thrower.strength_score is None and thrower.load_limits is None:
        found.append(RuleViolation(loc, N_("give strength_score or load_limits")))
    if thrower.strength_score is not None and not (
        MIN_STRENGTH <= thrower.strength_score <= MAX_STRENGTH
    ):
        found.append(
            RuleViolation.of(
                (*loc, "strength_score"),
                m(
                    "strength_score must be {least}..{most}",
                    least=MIN_STRENGTH,
                    most=MAX_STRENGTH,
                ),
            )
        )
    limits = thrower.load_limits
    if limits is not None and not 0 <= limits.light <= limits.medium <= limits.heavy <= MAX_LOAD_LB:
        found.append(
            RuleViolation(
                (*loc, "load_limits"),
                N_("load limits must satisfy 0 <= light <= medium <= heavy <= 10**18"),
            )
        )
    modifiers = {
        "strength_mod": thrower.strength_mod,
        "dex_mod": thrower.dex_mod,
        "ranged_attack_bonus": thrower.ranged_attack_bonus,
        "tumble_mod": thrower.tumble_mod,
    }
    for field, value in modifiers.items():
        if value is not None and not -MAX_MODIFIER <= value <= MAX_MODIFIER:
            found.append(
                RuleViolation.of(
                    (*loc, field),
                    m("{field} must be -{most}..{most}", field=field, most=MAX_MODIFIER),
                )
            )
    return found


# --------------------------------------------------------------------------------------------
# Distance and caber
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Distance:
    """How far a distance check throws (docs/rules.md#distance)."""

    increments: int
    distance_ft: int


def throw_distance(check: int, range_increment_ft: int, *, far_shot: bool = False) -> Distance:
    """`c >= 10`: `1 + floor((c - 10) / 4)` increments; below 10, `floor(inc * max(c, 0) / 10)` ft.

    docs/rules.md#distance and its Ruling. Far Shot doubles the range increment (not the check);
    there
    is no five-increment cap.
    """
    increment = range_increment_ft * (2 if far_shot else 1)
    if check >= 10:
        increments = 1 + (check - 10) // 4
        return Distance(increments, increments * increment)
    return Distance(0, increment * max(check, 0) // 10)


def distance_check_modifier(thrown: ThrownObject, assessment: Assessment) -> int:
    """`strength_mod + load penalty`, +1 for Weapon Focus in a weapon (docs/rules.md#distance)."""
    thrower = assessment.thrower
    focus = WEAPON_FOCUS_BONUS if thrown.weapon and thrower.weapon_focus else 0
    return (thrower.effective_strength_mod or 0) + assessment.penalty + focus


def precision_attack_modifier(thrown: ThrownObject, assessment: Assessment) -> int:
    """`ranged_attack_bonus + load penalty`, +1 for Weapon Focus in a weapon
    (docs/rules.md#long-throw-variants).

    The range penalty of the series comes off on top (`range_penalty`).
    """
    thrower = assessment.thrower
    focus = WEAPON_FOCUS_BONUS if thrown.weapon and thrower.weapon_focus else 0
    return thrower.ranged_attack_bonus + assessment.penalty + focus


def caber_check_modifier(assessment: Assessment) -> int:
    """`dex_mod + load penalty`; no Far Shot, no Weapon Focus
    (docs/rules.md#long-throw-variants)."""
    return assessment.thrower.dex_mod + assessment.penalty


@dataclass(frozen=True, slots=True)
class CreatureDamage:
    """A thrown creature's landing (docs/rules.md#distance): `damage` is what the creature takes."""

    rolled: int
    damage: int
    tumble_roll: int
    tumble_total: int
    negated: bool
    wall_damage: int | None


def creature_landing(thrower: Thrower, dice: Dice, *, into_wall: bool) -> CreatureDamage:
    """1d6 on landing; into a wall `1d6 + Str bonus`, which the wall takes too; Tumble DC 15
    negates the creature's damage, not the wall's (docs/rules.md#distance)."""
    (die,) = dice.roll(1, LANDING_DIE_SIDES, who=thrower.name, purpose=DAMAGE)
    rolled = die + (thrower.strength_bonus if into_wall else 0)
    tumble_roll = dice.d20(who=thrower.name, purpose=TUMBLE)
    tumble_total = tumble_roll + thrower.tumble_mod
    negated = tumble_total >= TUMBLE_DC
    return CreatureDamage(
        rolled=rolled,
        damage=0 if negated else rolled,
        tumble_roll=tumble_roll,
        tumble_total=tumble_total,
        negated=negated,
        wall_damage=rolled if into_wall else None,
    )


@dataclass(frozen=True, slots=True)
class ThrowResult:
    """One thrower's standing in `distance` or `caber` mode (docs/rules.md#distance,
    docs/rules.md#long-throw-variants).

    An ineligible thrower rolls nothing: `roll`, `check` and `degree_of_success` are None.
    `landed` (`halfling-toss` only): whether the toss carried to the bank.
    """

    assessment: Assessment
    roll: int | None = None
    check: int | None = None
    degree_of_success: int | None = None
    distance: Distance | None = None
    creature_damage: CreatureDamage | None = None
    landed: bool | None = None

    @property
    def name(self) -> str:
        return self.assessment.thrower.name


def throw_once(config: LongThrowConfig, assessment: Assessment, dice: Dice) -> ThrowResult:
    """One thrower's throw in `distance` or `caber` mode (docs/rules.md#distance,
    docs/rules.md#long-throw-variants)."""
    if not assessment.eligible:
        return ThrowResult(assessment)
    thrower = assessment.thrower
    roll = dice.d20(who=thrower.name, purpose=THROW)
    distance: Distance | None = None
    if config.mode == "caber":
        check = roll + caber_check_modifier(assessment)
        degree_of_success = check
    else:
        check = roll + distance_check_modifier(config.thrown, assessment)
        degree_of_success = far_shot_ds(
            roll, check, far_shot=thrower.far_shot, rule=config.far_shot_doubles
        )
        distance = throw_distance(
            check, config.thrown.range_increment_ft, far_shot=thrower.far_shot
        )
    landing = (
        creature_landing(thrower, dice, into_wall=config.into_wall)
        if config.creature_landings
        else None
    )
    landed = (
        distance.distance_ft >= config.toss_distance_ft
        if config.mode == "halfling-toss" and distance is not None
        else None
    )
    return ThrowResult(assessment, roll, check, degree_of_success, distance, landing, landed)


def far_shot_ds(roll: int, check: int, *, far_shot: bool, rule: FarShotRule = "check") -> int:
    """A distance check's DS: the check, with Far Shot doubled — the whole check (`rule`
    "check", the default: the book's "instead of doubling their result") or the d20 alone
    ("die": `2 * roll + modifier`) (docs/rules.md#distance)."""
    if not far_shot:
        return check
    return check * 2 if rule == "check" else check + roll


def highest_degree_of_success(results: Sequence[ThrowResult]) -> tuple[str, ...]:
    """Names with the highest DS among eligible throwers; more than one is a tie
    (docs/rules.md#distance). In a halfling toss a thrower who missed the bank has lost
    (docs/rules.md#halfling-toss): only those who landed it count."""
    scored = [
        result
        for result in results
        if result.degree_of_success is not None and result.landed is not False
    ]
    if not scored:
        return ()
    best = max(result.degree_of_success or 0 for result in scored)
    return tuple(result.name for result in scored if result.degree_of_success == best)


# --------------------------------------------------------------------------------------------
# Precision
# --------------------------------------------------------------------------------------------


def target_increments(series_number: int) -> int:
    """The target's distance in range increments in series `series_number`
    (docs/rules.md#long-throw-variants).

    4 at first, one further after every two series.
    """
    return START_INCREMENTS + (series_number - 1) // SERIES_PER_MOVE


def range_penalty(increments: int, *, far_shot: bool = False) -> int:
    """`2 * (n - 1)`, with Far Shot `n` counted in doubled increments, rounded up
    (docs/rules.md#precision)."""
    counted = -(-increments // 2) if far_shot else increments
    return RANGE_PENALTY_PER_INCREMENT * (counted - 1)


def attack_hits(roll: int, total: int) -> bool:
    """Natural 20 hits, natural 1 misses, else a total of AC 5 or more hits
    (docs/rules.md#long-throw-variants)."""
    if roll == 20:
        return True
    if roll == 1:
        return False
    return total >= TARGET_AC


@dataclass(frozen=True, slots=True)
class PrecisionThrow:
    name: str
    roll: int
    range_penalty: int
    total: int
    hit: bool


@dataclass(frozen=True, slots=True)
class Series:
    """One precision series: everyone still in throws once (docs/rules.md#long-throw-variants)."""

    number: int
    distance_increments: int
    throws: tuple[PrecisionThrow, ...]
    out: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PrecisionState:
    """Who is still in, and how many series have been thrown (docs/rules.md#long-throw-variants)."""

    still_in: tuple[str, ...]
    series_played: int = 0
    finished: bool = False


def precision_start(config: LongThrowConfig) -> PrecisionState:
    """Every eligible thrower starts in (docs/rules.md#long-throw-variants).

    Ruling: with fewer than two in there is nobody to outlast, so no series is thrown.
    """
    still_in = tuple(a.thrower.name for a in config.assessments if a.eligible)
    return PrecisionState(still_in, 0, len(still_in) < 2)


def precision_series(
    config: LongThrowConfig, state: PrecisionState, dice: Dice
) -> tuple[PrecisionState, Series]:
    """Throw one series (docs/rules.md#long-throw-variants): if anyone hits, everyone who missed is
    out."""
    if state.finished:
        raise PhaseError(N_("the precision competition is finished"))
    number = state.series_played + 1
    increments = target_increments(number)
    by_name = {a.thrower.name: a for a in config.assessments}
    throws: list[PrecisionThrow] = []
    for name in state.still_in:
        assessment = by_name[name]
        thrower = assessment.thrower
        penalty = range_penalty(increments, far_shot=thrower.far_shot)
        roll = dice.d20(who=name, purpose=THROW)
        total = roll + precision_attack_modifier(config.thrown, assessment) - penalty
        throws.append(PrecisionThrow(name, roll, penalty, total, attack_hits(roll, total)))
    anyone_hit = any(throw.hit for throw in throws)
    out = tuple(throw.name for throw in throws if anyone_hit and not throw.hit)
    still_in = tuple(name for name in state.still_in if name not in out)
    finished = len(still_in) < 2 or number >= config.max_series
    new_state = replace(state, still_in=still_in, series_played=number, finished=finished)
    return new_state, Series(number, increments, tuple(throws), out)


# --------------------------------------------------------------------------------------------
# The whole competition
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class LongThrow:
    """The outcome of a long-throw competition (docs/rules.md#long-throws)."""

    config: LongThrowConfig
    winners: tuple[str, ...]
    throws: tuple[ThrowResult, ...] = ()
    series: tuple[Series, ...] = ()

    @property
    def tie(self) -> bool:
        return len(self.winners) > 1


def dice_needs(config: LongThrowConfig) -> dict[Key, Need]:
    """The dice a competition may take, from its config alone
    (docs/rules.md#supplied-and-server-dice): each thrower's throw (one, or in `precision` one
    per series, the first surely), and a thrown creature's landing die and Tumble check. A
    thrower who cannot lift the object throws nothing: her dice are listed as never surely
    rolled, so that they are reported unused, not refused."""
    needs: dict[Key, Need] = {}
    for assessment in config.assessments:
        name = assessment.thrower.name
        sure = 1 if assessment.eligible else 0
        if config.mode == "precision":
            if sum(1 for other in config.assessments if other.eligible) < 2:
                continue  # nobody to outlast: no series is thrown (`precision_start`)
            needs[(name, THROW)] = Need(
                20, config.max_series, certain=sure, when="one a series while she is in"
            )
            continue
        needs[(name, THROW)] = Need(20, certain=sure)
        if config.creature_landings:
            needs[(name, DAMAGE)] = Need(LANDING_DIE_SIDES, certain=sure)
            needs[(name, TUMBLE)] = Need(20, certain=sure)
    return needs


def resolve_long_throw(config: LongThrowConfig, dice: Dice) -> LongThrow:
    """Resolve the whole competition in the config's mode (docs/rules.md#long-throws)."""
    if config.mode == "precision":
        state = precision_start(config)
        played: list[Series] = []
        while not state.finished:
            state, series = precision_series(config, state, dice)
            played.append(series)
        return LongThrow(config, state.still_in, series=tuple(played))
    throws = tuple(throw_once(config, assessment, dice) for assessment in config.assessments)
    return LongThrow(config, highest_degree_of_success(throws), throws=throws)


# --------------------------------------------------------------------------------------------
# Presentation
# --------------------------------------------------------------------------------------------


def _pounds(weight_lb: float) -> str:
    return f"{weight_lb:g}"


#: The modes' words, as a summary shows them (`term`).
MODE_WORDS: Final = (N_("distance"), N_("caber"), N_("precision"))


def _describe_throw(config: LongThrowConfig, result: ThrowResult) -> Listing:
    name = result.name
    assessment = result.assessment
    if not assessment.eligible:
        cannot = m(
            "{name} cannot lift it ({weight} lb > heavy load {heavy} lb)",
            name=name,
            weight=_pounds(config.thrown.weight_lb),
            heavy=assessment.limits.heavy,
        )
        return Listing([cannot])
    parts: list[Message] = [
        m(
            "{name} rolled {roll}, check {check}, DS {ds}",
            name=name,
            roll=str(result.roll),
            check=str(result.check),
            ds=str(result.degree_of_success),
        )
    ]
    if result.distance is not None:
        increments = result.distance.increments
        if increments:
            parts.append(
                ng(
                    "{count} increment ({feet} ft)",
                    "{count} increments ({feet} ft)",
                    increments,
                    feet=result.distance.distance_ft,
                )
            )
        else:
            parts.append(m("{feet} ft", feet=result.distance.distance_ft))
    if result.landed is not None:
        parts.append(
            m("lands it")
            if result.landed
            else m("misses: loses, and is pelted with stones by the halflings")
        )
    landing = result.creature_damage
    if landing is not None:
        thrown = config.thrown.name
        if landing.negated:
            text = m("the {thrown} tumbles clear", thrown=thrown)
        else:
            text = m("the {thrown} takes {damage} damage", thrown=thrown, damage=landing.damage)
        if landing.wall_damage is not None:
            text = m("{landing}, the wall takes {damage}", landing=text, damage=landing.wall_damage)
        parts.append(text)
    return Listing(parts)


def _verdict(outcome: LongThrow, nobody: Message) -> Message:
    if not outcome.winners:
        return nobody
    if outcome.tie:
        return m("Tie between {names}.", names=Listing(outcome.winners))
    return m("{name} wins.", name=outcome.winners[0])


def long_throw_message(outcome: LongThrow) -> Message:
    """One line for a chat bot: each thrower's result, then who won (docs/rules.md#long-throws)."""
    config = outcome.config
    thrown = config.thrown.name
    head = m("Long throw ({thrown}, {mode})", thrown=thrown, mode=term(config.mode))
    if config.mode != "precision":
        lines = Listing([_describe_throw(config, result) for result in outcome.throws], "; ")
        nobody = m("Nobody can lift it.")
        if config.mode == "halfling-toss":
            head = m(
                "Halfling toss ({thrown}, {feet} ft)", thrown=thrown, feet=config.toss_distance_ft
            )
            if any(result.landed is False for result in outcome.throws):
                nobody = m("Nobody lands it.")
        return m(
            "{head}: {throws}. {verdict}",
            head=head,
            throws=lines,
            verdict=_verdict(outcome, nobody),
        )
    unable = [a.thrower.name for a in config.assessments if not a.eligible]
    parts: list[Message] = []
    if unable:
        parts.append(m("{names} cannot lift it", names=Listing(unable)))
    parts.append(ng("{count} series", "{count} series", len(outcome.series)))
    parts.extend(
        m("{names} out in series {number}", names=Listing(series.out), number=series.number)
        for series in outcome.series
        if series.out
    )
    if outcome.tie:
        verdict = ng(
            "Still in after {count} series: tie between {names}.",
            "Still in after {count} series: tie between {names}.",
            len(outcome.series),
            names=Listing(outcome.winners),
        )
    else:
        verdict = _verdict(outcome, m("Nobody can lift it."))
    return m("{head}: {parts}. {verdict}", head=head, parts=Listing(parts, "; "), verdict=verdict)


def long_throw_summary(outcome: LongThrow) -> str:
    """`long_throw_message` in English."""
    return english(long_throw_message(outcome))
