"""Arm wrestling: an opposed-DS match played round by round (RULES.md §3.1).

Two competitors, `a` and `b`, each with a Degree of Success (DS) starting at 0. Every round first
makes the fatigue checks that are due (a failure ends the match), then the opposed Strength checks,
whose difference pushes one DS: the round's winner's when she leads or nobody leads, otherwise the
leader's, downwards. The first DS to reach the target number wins; `max_rounds` stops a match
undecided.

Rulings where RULES.md §3.1 is silent (each is marked **Ruling** where it is applied):

- The variants substitute only what §3.1 names: `psychic` swaps `caster_level` in for
  `strength_mod`; `mental` swaps `int_mod` in for `strength_mod` and `wis_score`/`wis_mod` in for
  `con_score`/`con_mod`. `misc_mod`, the off-hand penalty and the Endurance bonus apply in every
  variant exactly as the caller flags them.
- In `mental`, `wis_mod` defaults to the ability modifier of `wis_score` (RULES.md §0).
- A match that ends on fatigue has a loser, so `spikes` damage and `loser_damage` apply to her just
  as on a target win; a draw or a `max_rounds` stop has no loser and so no damage.
- Damage from `loser_damage` below 0 counts as 0 (damage never heals).
- Score fields (`con_score`, `wis_score`) and `caster_level` must not be negative; the two names
  must differ and not be blank (they key the supplied dice, RULES.md §0).

Dice, keyed (who, purpose) as API.md "Arm wrestles" names them: (name, "constitution") for each
fatigue check (the Wisdom check in `mental`), (name, "strength") for each opposed check (the
Intelligence check in `mental`, the caster-level check in `psychic`), and (loser, "damage") for the
spikes 1d4 or the `loser_damage` notation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from app.rules.common import CheckRoll, ability_modifier
from app.rules.dice import Dice
from app.rules.errors import Loc, PhaseError, RulesError
from app.rules.violations import MAX_NOTATION_CHARS, Violations

Variant = Literal["standard", "spikes", "psychic", "mental"]
Reason = Literal["target", "fatigue", "draw", "max_rounds"]
Effect = Literal["strained-arm", "injured-hand", "damage"]

_VARIANTS: Final[dict[str, Variant]] = {variant: variant for variant in get_args(Variant)}
_REASONS: Final[dict[str, Reason]] = {reason: reason for reason in get_args(Reason)}
_EFFECTS: Final[dict[str, Effect]] = {effect: effect for effect in get_args(Effect)}
VARIANTS: Final[tuple[str, ...]] = tuple(_VARIANTS)

#: RULES.md §3.1 Ruling: the target number defaults to 20 and may be set per match (1..100).
DEFAULT_TARGET: Final = 20
MIN_TARGET: Final = 1
MAX_TARGET: Final = 100
#: RULES.md §3.1 (default 200) and API.md "Limits" (at most 10 000).
DEFAULT_MAX_ROUNDS: Final = 200
MAX_ROUNDS_LIMIT: Final = 10_000
#: RULES.md §3.1 step 1: DC 10 + checks already made, +4 with Endurance.
FATIGUE_BASE_DC: Final = 10
ENDURANCE_BONUS: Final = 4
#: RULES.md §3.1 step 2: -2 with the off hand unless she has Two-Weapon Fighting.
OFF_HAND_PENALTY: Final = 2
#: RULES.md §3.1 spikes: the loser takes 1d4 + the winner's Strength bonus.
SPIKES_DIE_SIDES: Final = 4

#: Dice purposes (API.md "Arm wrestles" round body).
STRENGTH: Final = "strength"
CONSTITUTION: Final = "constitution"
DAMAGE: Final = "damage"


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Competitor:
    """One arm wrestler as API.md "Arm wrestles" describes her (RULES.md §3.1)."""

    name: str
    strength_mod: int
    con_score: int
    con_mod: int
    endurance: bool = False
    off_hand: bool = False
    two_weapon_fighting: bool = False
    misc_mod: int = 0
    caster_level: int | None = None
    int_mod: int | None = None
    wis_score: int | None = None
    wis_mod: int | None = None

    @property
    def strength_bonus(self) -> int:
        """A bonus is `max(modifier, 0)` (RULES.md §0), used by the spikes variant."""
        return max(self.strength_mod, 0)


@dataclass(frozen=True, slots=True)
class Config:
    """A match's settings: the two competitors, target number, variant and limits."""

    a: Competitor
    b: Competitor
    target: int = DEFAULT_TARGET
    variant: Variant = "standard"
    max_rounds: int = DEFAULT_MAX_ROUNDS
    loser_damage: str | None = None

    @property
    def competitors(self) -> tuple[Competitor, Competitor]:
        return (self.a, self.b)


def _competitor_from_dict(
    data: Any, side: Literal["a", "b"], variant: str, violations: Violations
) -> Competitor:
    loc: Loc = (side,)
    if not isinstance(data, Mapping):
        violations.add(loc, "a competitor must be an object")
        return Competitor(name=side, strength_mod=0, con_score=0, con_mod=0)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        violations.add((side, "name"), "name must be a non-blank string")
        name = side
    strength_mod = violations.integer(data, "strength_mod", loc) or 0
    con_score = violations.integer(data, "con_score", loc)
    con_mod = violations.integer(data, "con_mod", loc) or 0
    misc_mod = violations.integer(data, "misc_mod", loc, default=0) or 0
    caster_level = _optional_integer(data, "caster_level", loc, violations)
    int_mod = _optional_integer(data, "int_mod", loc, violations)
    wis_score = _optional_integer(data, "wis_score", loc, violations)
    wis_mod = _optional_integer(data, "wis_mod", loc, violations)
    if con_score is not None and con_score < 0:
        violations.add((side, "con_score"), "con_score must not be negative")
    if variant == "psychic":
        if caster_level is None:
            violations.add((side, "caster_level"), "the psychic variant needs caster_level")
        elif caster_level < 0:
            violations.add((side, "caster_level"), "caster_level must not be negative")
    if variant == "mental":
        if int_mod is None:
            violations.add((side, "int_mod"), "the mental variant needs int_mod")
        if wis_score is None:
            violations.add((side, "wis_score"), "the mental variant needs wis_score")
        elif wis_score < 0:
            violations.add((side, "wis_score"), "wis_score must not be negative")
        elif wis_mod is None:
            # Ruling (RULES.md §0): a missing modifier is the one its score gives.
            wis_mod = ability_modifier(wis_score)
    return Competitor(
        name=name,
        strength_mod=strength_mod,
        con_score=con_score or 0,
        con_mod=con_mod,
        endurance=violations.flag(data, "endurance", loc, False),
        off_hand=violations.flag(data, "off_hand", loc, False),
        two_weapon_fighting=violations.flag(data, "two_weapon_fighting", loc, False),
        misc_mod=misc_mod,
        caster_level=caster_level,
        int_mod=int_mod,
        wis_score=wis_score,
        wis_mod=wis_mod,
    )


def _optional_integer(
    data: Mapping[str, Any], key: str, loc: Loc, violations: Violations
) -> int | None:
    if data.get(key) is None:
        return None
    return violations.integer(data, key, loc)


def _bounded(
    data: Mapping[str, Any],
    key: str,
    default: int,
    low: int,
    high: int,
    violations: Violations,
) -> int:
    value = violations.integer(data, key, (), default=default)
    if value is None:
        return default
    if not low <= value <= high:
        violations.add((key,), f"{key} must be between {low} and {high}")
    return value


def config_from_dict(data: Mapping[str, Any]) -> Config:
    """Build a match from an API.md "Arm wrestles" create body, applying defaults (RULES.md §3.1).

    Raises `RulesError` listing every violation: a target outside 1..100, `max_rounds` outside
    1..10 000, an unknown variant, equal or blank names, `loser_damage` outside `mental`, a
    missing `caster_level` (`psychic`) or `int_mod`/`wis_score` (`mental`), negative scores.
    Keys the rules do not use (such as `seed`) are ignored.
    """
    violations = Violations()
    requested = data.get("variant")
    variant: Variant = "standard"
    if requested is not None:
        if isinstance(requested, str) and requested in _VARIANTS:
            variant = _VARIANTS[requested]
        else:
            violations.add(("variant",), f"variant must be one of {', '.join(VARIANTS)}")
    target = _bounded(data, "target", DEFAULT_TARGET, MIN_TARGET, MAX_TARGET, violations)
    max_rounds = _bounded(data, "max_rounds", DEFAULT_MAX_ROUNDS, 1, MAX_ROUNDS_LIMIT, violations)
    a = _competitor_from_dict(data.get("a"), "a", variant, violations)
    b = _competitor_from_dict(data.get("b"), "b", variant, violations)
    if a.name == b.name:
        violations.add(("b", "name"), "the two competitors need different names")
    loser_damage = data.get("loser_damage")
    if loser_damage is not None:
        if variant != "mental":
            violations.add(("loser_damage",), "loser_damage is only for the mental variant")
        elif not isinstance(loser_damage, str) or not loser_damage.strip():
            violations.add(("loser_damage",), "loser_damage must be dice notation such as 2d6")
        elif len(loser_damage) > MAX_NOTATION_CHARS:
            violations.add(
                ("loser_damage",), f"loser_damage is longer than {MAX_NOTATION_CHARS} characters"
            )
    violations.raise_if_any()
    return Config(
        a=a,
        b=b,
        target=target,
        variant=variant,
        max_rounds=max_rounds,
        loser_damage=loser_damage,
    )


def _competitor_to_dict(competitor: Competitor) -> dict[str, Any]:
    return {
        "name": competitor.name,
        "strength_mod": competitor.strength_mod,
        "con_score": competitor.con_score,
        "con_mod": competitor.con_mod,
        "endurance": competitor.endurance,
        "off_hand": competitor.off_hand,
        "two_weapon_fighting": competitor.two_weapon_fighting,
        "misc_mod": competitor.misc_mod,
        "caster_level": competitor.caster_level,
        "int_mod": competitor.int_mod,
        "wis_score": competitor.wis_score,
        "wis_mod": competitor.wis_mod,
    }


def config_to_dict(config: Config) -> dict[str, Any]:
    """The normalised create body (defaults applied); round-trips through `config_from_dict`."""
    return {
        "a": _competitor_to_dict(config.a),
        "b": _competitor_to_dict(config.b),
        "target": config.target,
        "variant": config.variant,
        "max_rounds": config.max_rounds,
        "loser_damage": config.loser_damage,
    }


# --------------------------------------------------------------------------------------------
# The rule's formulas
# --------------------------------------------------------------------------------------------


def _given(value: int | None, field: str) -> int:
    if value is None:  # config_from_dict guarantees it for the variant that reads it
        raise RulesError(f"{field} is required by this variant", (field,))
    return value


def check_modifier(config: Config, competitor: Competitor) -> int:
    """The modifier of a competitor's round check (RULES.md §3.1 step 2 and "Variants").

    `strength_mod` (`caster_level` in `psychic`, `int_mod` in `mental`) + `misc_mod`, -2 with the
    off hand unless she has Two-Weapon Fighting.
    """
    if config.variant == "psychic":
        ability = _given(competitor.caster_level, "caster_level")
    elif config.variant == "mental":
        ability = _given(competitor.int_mod, "int_mod")
    else:
        ability = competitor.strength_mod
    off_hand_penalty = (
        OFF_HAND_PENALTY if competitor.off_hand and not competitor.two_weapon_fighting else 0
    )
    return ability + competitor.misc_mod - off_hand_penalty


def free_rounds(config: Config, competitor: Competitor) -> int:
    """Rounds she wrestles before fatigue checks start: `con_score` (`wis_score` in `mental`)."""
    if config.variant == "mental":
        return _given(competitor.wis_score, "wis_score")
    return competitor.con_score


def fatigue_modifier(config: Config, competitor: Competitor) -> int:
    """The fatigue check's modifier: `con_mod` (`wis_mod` in `mental`), +4 with Endurance.

    RULES.md §3.1 step 1.
    """
    if config.variant == "mental":
        ability = _given(competitor.wis_mod, "wis_mod")
    else:
        ability = competitor.con_mod
    return ability + (ENDURANCE_BONUS if competitor.endurance else 0)


def fatigue_dc(checks_made: int) -> int:
    """DC `10 + (number of fatigue checks she has already made in this match)` (RULES.md §3.1)."""
    return FATIGUE_BASE_DC + checks_made


def leader_index(ds: tuple[int, int]) -> int | None:
    """Index of the one with the higher DS, the leader; None on equal DS (RULES.md §3.1)."""
    if ds[0] == ds[1]:
        return None
    return 0 if ds[0] > ds[1] else 1


def push(ds: tuple[int, int], round_winner: int, difference: int) -> tuple[int, int]:
    """Apply one round's difference `d` to the DS pair (RULES.md §3.1 step 2).

    If the round's winner leads, or nobody leads, her DS rises by `d`; if she trails, the
    leader's DS falls by `d` (possibly below 0, possibly handing over the lead). The trailing
    competitor's own DS never moves.
    """
    round_loser = 1 - round_winner
    moved = list(ds)
    if ds[round_winner] >= ds[round_loser]:
        moved[round_winner] += difference
    else:
        moved[round_loser] -= difference
    return (moved[0], moved[1])


# --------------------------------------------------------------------------------------------
# State, rounds and results
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Consequence:
    """What the match did to someone (API.md "Arm wrestles" result `consequences`)."""

    name: str
    effect: Effect
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "effect": self.effect, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class Damage:
    """Damage the loser takes (spikes, or `loser_damage` in `mental`)."""

    name: str
    amount: int

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "amount": self.amount}


@dataclass(frozen=True, slots=True)
class State:
    """Where a match stands. `names`, `ds` and `con_checks_made` are in (a, b) order."""

    names: tuple[str, str]
    ds: tuple[int, int] = (0, 0)
    con_checks_made: tuple[int, int] = (0, 0)
    rounds_played: int = 0
    finished: bool = False
    winner: str | None = None
    reason: Reason | None = None
    consequences: tuple[Consequence, ...] = ()
    damage: Damage | None = None

    @property
    def leader(self) -> str | None:
        index = leader_index(self.ds)
        return None if index is None else self.names[index]

    def ds_by_name(self) -> dict[str, int]:
        return dict(zip(self.names, self.ds, strict=True))


@dataclass(frozen=True, slots=True)
class FatigueCheck:
    """One fatigue check (Constitution; Wisdom in `mental`) made before a round."""

    name: str
    dc: int
    roll: int
    total: int

    @property
    def passed(self) -> bool:
        return self.total >= self.dc

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "dc": self.dc,
            "roll": self.roll,
            "total": self.total,
            "passed": self.passed,
        }


@dataclass(frozen=True, slots=True)
class Round:
    """One round as API.md's round record shows it (without `number`, `rolls`, `summary`).

    `pushed` (not part of the record) is whose DS the difference moved, for the summary line.
    """

    fatigue: tuple[FatigueCheck, ...]
    checks: tuple[tuple[str, CheckRoll], ...]
    round_winner: str | None
    difference: int
    ds: tuple[tuple[str, int], ...]
    leader: str | None
    finished: bool
    winner: str | None
    reason: Reason | None
    pushed: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "fatigue": [check.to_dict() for check in self.fatigue],
            "checks": {
                name: {"roll": check.roll, "total": check.total} for name, check in self.checks
            },
            "round_winner": self.round_winner,
            "difference": self.difference,
            "ds": dict(self.ds),
            "leader": self.leader,
            "finished": self.finished,
            "winner": self.winner,
            "reason": self.reason,
        }


def state_to_dict(state: State) -> dict[str, Any]:
    """Everything needed to continue the match, JSON-safe.

    `names` keeps the (a, b) order explicitly: JSON stores (PostgreSQL's JSONB) may reorder keys.
    """
    return {
        "names": list(state.names),
        "ds": state.ds_by_name(),
        "leader": state.leader,
        "con_checks_made": dict(zip(state.names, state.con_checks_made, strict=True)),
        "rounds_played": state.rounds_played,
        "finished": state.finished,
        "winner": state.winner,
        "reason": state.reason,
        "consequences": [consequence.to_dict() for consequence in state.consequences],
        "damage": None if state.damage is None else state.damage.to_dict(),
    }


def state_from_dict(d: Mapping[str, Any]) -> State:
    """The inverse of `state_to_dict`."""
    a, b = d["names"]
    names = (str(a), str(b))
    ds = d["ds"]
    checks_made = d["con_checks_made"]
    damage = d.get("damage")
    reason = d.get("reason")
    return State(
        names=names,
        ds=(int(ds[a]), int(ds[b])),
        con_checks_made=(int(checks_made[a]), int(checks_made[b])),
        rounds_played=int(d["rounds_played"]),
        finished=bool(d["finished"]),
        winner=d.get("winner"),
        reason=_reason(reason) if reason is not None else None,
        consequences=tuple(
            Consequence(str(item["name"]), _effect(item["effect"]), str(item["detail"]))
            for item in d.get("consequences", ())
        ),
        damage=None if damage is None else Damage(str(damage["name"]), int(damage["amount"])),
    )


def _reason(value: Any) -> Reason:
    if value not in _REASONS:
        raise ValueError(f"unknown reason {value!r}")
    return _REASONS[value]


def _effect(value: Any) -> Effect:
    if value not in _EFFECTS:
        raise ValueError(f"unknown effect {value!r}")
    return _EFFECTS[value]


def public_state(state: State) -> dict[str, Any]:
    """Exactly API.md's arm-wrestle `state`: `ds`, `leader`, `con_checks_made`."""
    return {
        "ds": state.ds_by_name(),
        "leader": state.leader,
        "con_checks_made": dict(zip(state.names, state.con_checks_made, strict=True)),
    }


def start(config: Config, dice: Dice) -> State:  # noqa: ARG001 - no die is rolled at the start
    """A fresh match: both DS 0, nobody leads, no fatigue checks made (RULES.md §3.1)."""
    return State(names=(config.a.name, config.b.name))


def is_finished(state: State) -> bool:
    """Whether the match is over: target, fatigue, draw or `max_rounds` (RULES.md §3.1)."""
    return state.finished


def result(config: Config, state: State) -> dict[str, Any] | None:  # noqa: ARG001 - interface
    """API.md's arm-wrestle `result` once the match is over, else None."""
    if not state.finished:
        return None
    outcome: dict[str, Any] = {
        "winner": state.winner,
        "reason": state.reason,
        "consequences": [consequence.to_dict() for consequence in state.consequences],
    }
    if state.damage is not None:
        outcome["damage"] = state.damage.to_dict()
    return outcome


# --------------------------------------------------------------------------------------------
# Playing a round
# --------------------------------------------------------------------------------------------


def _strained_arm(config: Config, name: str) -> Consequence:
    if config.variant == "mental":
        # The mental variant substitutes Wisdom for Constitution and Intelligence for Strength.
        detail = (
            "failed the Wisdom check: -2 to Intelligence-based rolls until she rests for at "
            "least one minute"
        )
    else:
        detail = (
            "failed the Constitution check: -2 to Strength-based rolls with that arm until she "
            "rests for at least one minute"
        )
    return Consequence(name, "strained-arm", detail)


def _loser_pays(
    config: Config, winner: int, dice: Dice
) -> tuple[tuple[Consequence, ...], Damage | None]:
    """Spikes damage and injury, or `mental` `loser_damage` (RULES.md §3.1 "Variants").

    **Ruling:** applied on every ending that has a loser, fatigue endings included.
    """
    victor = config.competitors[winner]
    loser = config.competitors[1 - winner].name
    if config.variant == "spikes":
        (spike,) = dice.roll(1, SPIKES_DIE_SIDES, who=loser, purpose=DAMAGE)
        amount = spike + victor.strength_bonus
        return (
            Consequence(
                loser,
                "damage",
                f"{amount} damage from the spikes (1d4 rolled {spike} + {victor.name}'s "
                f"Strength bonus {victor.strength_bonus})",
            ),
            Consequence(
                loser,
                "injured-hand",
                "-2 on skills that need that hand and on attack rolls with it until the injury "
                "heals",
            ),
        ), Damage(loser, amount)
    if config.variant == "mental" and config.loser_damage is not None:
        rolled = dice.notation(config.loser_damage, who=loser, purpose=DAMAGE)
        # Ruling: damage below 0 counts as 0 (damage never heals).
        amount = max(rolled.total, 0)
        return (
            Consequence(
                loser, "damage", f"{amount} damage ({config.loser_damage}: {rolled.breakdown})"
            ),
        ), Damage(loser, amount)
    return (), None


def _fatigue_checks(
    config: Config, state: State, number: int, dice: Dice
) -> tuple[tuple[FatigueCheck, ...], tuple[int, int]]:
    """RULES.md §3.1 step 1: the checks due before round `number`, in (a, b) order."""
    checks: list[FatigueCheck] = []
    checks_made = list(state.con_checks_made)
    for index, competitor in enumerate(config.competitors):
        if number <= free_rounds(config, competitor):
            continue
        roll = dice.d20(who=competitor.name, purpose=CONSTITUTION)
        checks.append(
            FatigueCheck(
                name=competitor.name,
                dc=fatigue_dc(checks_made[index]),
                roll=roll,
                total=roll + fatigue_modifier(config, competitor),
            )
        )
        checks_made[index] += 1
    return tuple(checks), (checks_made[0], checks_made[1])


def play_round(config: Config, state: State, dice: Dice) -> tuple[State, Round]:
    """Play one round of the match (RULES.md §3.1 "A round").

    1. Fatigue checks for each competitor past her free rounds. Exactly one failure: the other
       wins; two: the higher DS wins, equal DS is a draw; every failure strains an arm. A match
       that ends here rolls no Strength checks.
    2. Opposed checks `d20 + check_modifier`; equal totals change nothing, else `push`.
    3. A DS at or above the target wins; after `max_rounds` rounds the match stops undecided.

    Raises `PhaseError` once the match is finished.
    """
    if state.finished:
        raise PhaseError("the arm wrestle is already finished")
    number = state.rounds_played + 1
    names = state.names
    fatigue, checks_made = _fatigue_checks(config, state, number, dice)
    failed = {check.name for check in fatigue if not check.passed}
    if failed:
        return _end_on_fatigue(config, state, number, fatigue, checks_made, failed, dice)

    rolls = [dice.d20(who=competitor.name, purpose=STRENGTH) for competitor in config.competitors]
    checks = tuple(
        CheckRoll(roll, roll + check_modifier(config, competitor))
        for roll, competitor in zip(rolls, config.competitors, strict=True)
    )
    difference = abs(checks[0].total - checks[1].total)
    ds = state.ds
    round_winner: int | None = None
    pushed: str | None = None
    if difference:
        round_winner = 0 if checks[0].total > checks[1].total else 1
        ds = push(state.ds, round_winner, difference)
        pushed = names[0] if ds[0] != state.ds[0] else names[1]

    winner: str | None = None
    reason: Reason | None = None
    consequences: tuple[Consequence, ...] = ()
    damage: Damage | None = None
    reached = [index for index in (0, 1) if ds[index] >= config.target]
    if reached:
        # Only one DS moves in a round, and only upwards for the round's winner, so at most one
        # competitor can reach the target.
        winner_index = reached[0]
        winner, reason = names[winner_index], "target"
        consequences, damage = _loser_pays(config, winner_index, dice)
    elif number >= config.max_rounds:
        reason = "max_rounds"
    finished = reason is not None
    new_state = State(
        names=names,
        ds=ds,
        con_checks_made=checks_made,
        rounds_played=number,
        finished=finished,
        winner=winner,
        reason=reason,
        consequences=consequences,
        damage=damage,
    )
    return new_state, Round(
        fatigue=fatigue,
        checks=tuple(zip(names, checks, strict=True)),
        round_winner=None if round_winner is None else names[round_winner],
        difference=difference,
        ds=tuple(zip(names, ds, strict=True)),
        leader=new_state.leader,
        finished=finished,
        winner=winner,
        reason=reason,
        pushed=pushed,
    )


def _end_on_fatigue(
    config: Config,
    state: State,
    number: int,
    fatigue: tuple[FatigueCheck, ...],
    checks_made: tuple[int, int],
    failed: set[str],
    dice: Dice,
) -> tuple[State, Round]:
    names = state.names
    strained = tuple(_strained_arm(config, name) for name in names if name in failed)
    # Exactly one failure: the other wins; both: the higher DS wins, equal DS is a draw.
    winner_index = (1 if names[0] in failed else 0) if len(failed) == 1 else leader_index(state.ds)
    reason: Reason = "fatigue" if winner_index is not None else "draw"
    paid: tuple[Consequence, ...] = ()
    damage: Damage | None = None
    if winner_index is not None:
        paid, damage = _loser_pays(config, winner_index, dice)
    winner = None if winner_index is None else names[winner_index]
    new_state = State(
        names=names,
        ds=state.ds,
        con_checks_made=checks_made,
        rounds_played=number,
        finished=True,
        winner=winner,
        reason=reason,
        consequences=strained + paid,
        damage=damage,
    )
    return new_state, Round(
        fatigue=fatigue,
        checks=(),
        round_winner=None,
        difference=0,
        ds=tuple(zip(names, state.ds, strict=True)),
        leader=new_state.leader,
        finished=True,
        winner=winner,
        reason=reason,
    )


# --------------------------------------------------------------------------------------------
# Presentation
# --------------------------------------------------------------------------------------------


def round_summary(config: Config, state_after: State, round: Round) -> str:
    """One line for a Discord bot, without the "Round N: " prefix the web layer adds.

    E.g. "Ogre beats Lydia by 8: Lydia's DS falls to -3 (Lydia -3, Ogre 0; Ogre leads)."
    """
    parts: list[str] = []
    if round.fatigue:
        ability = "Wisdom" if config.variant == "mental" else "Constitution"
        parts.append(
            f"{ability}: "
            + "; ".join(
                f"{check.name} {check.total} vs DC {check.dc}, "
                + ("passes" if check.passed else "fails")
                for check in round.fatigue
            )
            + "."
        )
    standing = ", ".join(f"{name} {ds}" for name, ds in round.ds)
    leads = f"{round.leader} leads" if round.leader is not None else "nobody leads"
    if round.checks:
        (first, first_check), (second, _) = round.checks
        if round.round_winner is None:
            parts.append(
                f"{first} and {second} tie at {first_check.total}: nothing changes "
                f"({standing}; {leads})."
            )
        else:
            loser = second if round.round_winner == first else first
            pushed_ds = dict(round.ds)[round.pushed] if round.pushed is not None else 0
            direction = "rises" if round.pushed == round.round_winner else "falls"
            parts.append(
                f"{round.round_winner} beats {loser} by {round.difference}: "
                f"{round.pushed}'s DS {direction} to {pushed_ds} ({standing}; {leads})."
            )
    if round.finished:
        parts.append(_ending(config, state_after, round))
    return " ".join(parts)


def _ending(config: Config, state_after: State, round: Round) -> str:
    if round.reason == "target":
        line = f"{round.winner} wins, reaching DS {config.target}."
    elif round.reason == "fatigue":
        tired = [check.name for check in round.fatigue if not check.passed]
        if len(tired) == 1:
            line = f"{tired[0]} can wrestle no more: {round.winner} wins."
        else:
            line = f"Both can wrestle no more: {round.winner} wins on the higher DS."
    elif round.reason == "draw":
        line = "Both can wrestle no more with equal DS: a draw."
    else:
        line = f"No winner after {config.max_rounds} rounds."
    if state_after.damage is not None:
        injury = " and an injured hand" if config.variant == "spikes" else ""
        line += f" {state_after.damage.name} takes {state_after.damage.amount} damage{injury}."
    return line
