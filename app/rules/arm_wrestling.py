"""Arm wrestling: an opposed-DS match played round by round (docs/rules.md#arm-wrestling).

Two competitors, `a` and `b`, each with a Degree of Success (DS) starting at 0. Every round first
makes the fatigue checks that are due (a failure ends the match), then the opposed Strength checks,
whose difference pushes one DS: the round's winner's when she leads or nobody leads, otherwise the
leader's, downwards. The first DS to reach the target number wins; `max_rounds` stops a match
undecided.

Rulings where docs/rules.md#arm-wrestling is silent (each is marked **Ruling** where it is applied):

- The variants substitute only what docs/rules.md#arm-wrestling-variants names: `psychic` swaps
  `caster_level` in for
  `strength_mod`; `mental` swaps `int_mod` in for `strength_mod` and `wis_score`/`wis_mod` in for
  `con_score`/`con_mod`. `misc_mod`, the off-hand penalty and the Endurance bonus apply in every
  variant exactly as the caller flags them.
- In `mental`, `wis_mod` defaults to the ability modifier of `wis_score`
  (docs/rules.md#dice-and-checks).
- A match that ends on fatigue has a loser, so `spikes` damage and `loser_damage` apply to her just
  as on a target win; a draw or a `max_rounds` stop has no loser and so no damage.
- Damage from `loser_damage` below 0 counts as 0 (damage never heals).
- `loser_damage` serves `psychic` as well as `mental`: the source's "The GM can optionally rule
  that the loser takes damage" follows both in one paragraph, and a psychic match without it
  (the default) takes no damage, as before (docs/rules.md#arm-wrestling-variants).
- Score fields (`con_score`, `wis_score`) and `caster_level` must not be negative, and names must
  not be blank (the create body's schema checks both); the two names must differ (they key the
  supplied dice, docs/rules.md#names).

Dice, keyed (who, purpose) as docs/api.md#arm-wrestles names them: (name, "constitution") for each
fatigue check (the Wisdom check in `mental`), (name, "strength") for each opposed check (the
Intelligence check in `mental`, the caster-level check in `psychic`), and (loser, "damage") for the
spikes 1d4 or the `loser_damage` notation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, get_args

from app.rules.common import CheckRoll
from app.rules.dice import Dice, Key, Need
from app.rules.errors import PhaseError, RulesError
from app.rules.messages import N_, Argument, Listing, Message, english, m, ng, term
from app.rules.text import name_key
from app.rules.violations import Violations

Variant = Literal["standard", "spikes", "psychic", "mental"]
#: The variants whose match may name `loser_damage` (docs/rules.md#arm-wrestling-variants).
LOSER_DAMAGE_VARIANTS: Final[tuple[Variant, ...]] = ("mental", "psychic")
Reason = Literal["target", "fatigue", "draw", "max_rounds"]
#: The reasons' words, as a session's summary shows them (`term`).
REASON_WORDS: Final = (N_("target"), N_("fatigue"), N_("draw"), N_("max_rounds"))
Effect = Literal["strained-arm", "injured-hand", "damage"]

VARIANTS: Final[tuple[Variant, ...]] = get_args(Variant)

#: docs/rules.md#arm-wrestling defaults to 20 and may be set per match (1..100).
DEFAULT_TARGET: Final = 20
MIN_TARGET: Final = 1
MAX_TARGET: Final = 100
#: docs/rules.md#arm-wrestling (default 200) and docs/api.md#limits (at most 10 000).
DEFAULT_MAX_ROUNDS: Final = 200
MAX_ROUNDS_LIMIT: Final = 10_000
#: docs/rules.md#fatigue: DC 10 + checks already made, +4 with Endurance.
FATIGUE_BASE_DC: Final = 10
ENDURANCE_BONUS: Final = 4
#: docs/rules.md#pushing-the-ds: -2 with the off hand unless she has Two-Weapon Fighting.
OFF_HAND_PENALTY: Final = 2
#: docs/rules.md#arm-wrestling-variants: the loser takes 1d4 + the winner's Strength bonus.
SPIKES_DIE_SIDES: Final = 4

#: Dice purposes (docs/api.md#arm-wrestles round body).
STRENGTH: Final = "strength"
CONSTITUTION: Final = "constitution"
DAMAGE: Final = "damage"


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Competitor:
    """One arm wrestler as docs/api.md#arm-wrestles describes her (docs/rules.md#arm-wrestling)."""

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
        """A bonus is `max(modifier, 0)` (docs/rules.md#dice-and-checks), used by the spikes
        variant."""
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


def check_config(config: Config) -> None:
    """The checks of a match's settings that span fields (docs/rules.md#arm-wrestling,
    docs/rules.md#names "Names").

    The create body's schema has already checked every field on its own (types, bounds, the
    variant's name); this adds what depends on another field: the two names differ, `psychic`
    needs `caster_level` and `mental` needs `int_mod` and `wis_score` from both competitors, and
    `loser_damage` is only for `mental` and `psychic`. Raises one `RulesError` listing every
    violation.
    """
    violations = Violations()
    for side, competitor in (("a", config.a), ("b", config.b)):
        if config.variant == "psychic" and competitor.caster_level is None:
            violations.add((side, "caster_level"), N_("the psychic variant needs caster_level"))
        if config.variant == "mental":
            if competitor.int_mod is None:
                violations.add((side, "int_mod"), N_("the mental variant needs int_mod"))
            if competitor.wis_score is None:
                violations.add((side, "wis_score"), N_("the mental variant needs wis_score"))
    if name_key(config.a.name) == name_key(config.b.name):
        violations.add(("b", "name"), "the two competitors need different names")
    if config.loser_damage is not None and config.variant not in LOSER_DAMAGE_VARIANTS:
        violations.add(
            ("loser_damage",), N_("loser_damage is only for the mental and psychic variants")
        )
    violations.raise_if_any()


# --------------------------------------------------------------------------------------------
# The rule's formulas
# --------------------------------------------------------------------------------------------


def _given(value: int | None, field: str) -> int:
    if value is None:  # check_config guarantees it for the variant that reads it
        raise RulesError(m("{field} is required by this variant", field=field), (field,))
    return value


def check_modifier(config: Config, competitor: Competitor) -> int:
    """The modifier of a competitor's round check (docs/rules.md#pushing-the-ds and "Variants").

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

    docs/rules.md#fatigue.
    """
    if config.variant == "mental":
        ability = _given(competitor.wis_mod, "wis_mod")
    else:
        ability = competitor.con_mod
    return ability + (ENDURANCE_BONUS if competitor.endurance else 0)


def fatigue_dc(checks_made: int) -> int:
    """DC `10 + (number of fatigue checks she has already made in this match)`
    (docs/rules.md#arm-wrestling)."""
    return FATIGUE_BASE_DC + checks_made


def leader_index(ds: tuple[int, int]) -> int | None:
    """Index of the one with the higher DS, the leader; None on equal DS
    (docs/rules.md#arm-wrestling)."""
    if ds[0] == ds[1]:
        return None
    return 0 if ds[0] > ds[1] else 1


def push(ds: tuple[int, int], round_winner: int, difference: int) -> tuple[int, int]:
    """Apply one round's difference `d` to the DS pair (docs/rules.md#pushing-the-ds).

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
    """What the match did to someone (docs/api.md#arm-wrestles result `consequences`)."""

    name: str
    effect: Effect
    detail: str


@dataclass(frozen=True, slots=True)
class Damage:
    """Damage the loser takes (spikes, or `loser_damage` in `mental` and `psychic`)."""

    name: str
    amount: int


@dataclass(frozen=True, slots=True)
class State:
    """Where a match stands. `names`, `ds` and `con_checks_made` are in (a, b) order.

    Stored as `serial.dump(state)`: pairs are JSON lists, so their order survives a store that
    reorders an object's keys (PostgreSQL's JSONB).
    """

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

    def con_checks_by_name(self) -> dict[str, int]:
        return dict(zip(self.names, self.con_checks_made, strict=True))


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


@dataclass(frozen=True, slots=True)
class Round:
    """One round as docs/api.md#arm-wrestles shows it (without `number`, `rolls`, `summary`).

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


def start(config: Config, dice: Dice) -> State:  # noqa: ARG001 - no die is rolled at the start
    """A fresh match: both DS 0, nobody leads, no fatigue checks made
    (docs/rules.md#arm-wrestling)."""
    return State(names=(config.a.name, config.b.name))


def is_finished(state: State) -> bool:
    """Whether the match is over: target, fatigue, draw or `max_rounds`
    (docs/rules.md#arm-wrestling)."""
    return state.finished


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
    """Spikes damage and injury, or `loser_damage` in `mental` and `psychic`
    (docs/rules.md#arm-wrestling-variants).

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
    if config.variant in LOSER_DAMAGE_VARIANTS and config.loser_damage is not None:
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
    """docs/rules.md#fatigue: the checks due before round `number`, in (a, b) order."""
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


def dice_needs(config: Config, state: State) -> dict[Key, Need]:
    """The dice the next round may take, from the state alone
    (docs/rules.md#supplied-and-server-dice): a competitor's Constitution (Wisdom) die when
    her fatigue check is due, surely rolled; both Strength dice, sure unless a fatigue check
    could end the match first; and in a variant with damage the loser's damage die, for
    either (who loses is decided by the round)."""
    number = state.rounds_played + 1
    due = [number > free_rounds(config, competitor) for competitor in config.competitors]
    needs: dict[Key, Need] = {}
    for competitor, checks in zip(config.competitors, due, strict=True):
        if checks:
            needs[(competitor.name, CONSTITUTION)] = Need(20, certain=1)
        needs[(competitor.name, STRENGTH)] = (
            Need(20, when="if no fatigue check ends the match") if any(due) else Need(20, certain=1)
        )
        if config.variant == "spikes":
            needs[(competitor.name, DAMAGE)] = Need(SPIKES_DIE_SIDES, when="if she loses")
        elif config.variant in LOSER_DAMAGE_VARIANTS and config.loser_damage is not None:
            needs[(competitor.name, DAMAGE)] = Need(
                0, notation=config.loser_damage, when="if she loses"
            )
    return needs


def play_round(config: Config, state: State, dice: Dice) -> tuple[State, Round]:
    """Play one round of the match (docs/rules.md#arm-wrestling).

    1. Fatigue checks for each competitor past her free rounds. Exactly one failure: the other
       wins; two: the higher DS wins, equal DS is a draw; every failure strains an arm. A match
       that ends here rolls no Strength checks.
    2. Opposed checks `d20 + check_modifier`; equal totals change nothing, else `push`.
    3. A DS at or above the target wins; after `max_rounds` rounds the match stops undecided.

    Raises `PhaseError` once the match is finished.
    """
    if state.finished:
        raise PhaseError(N_("the arm wrestle is already finished"))
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


#: The abilities of fatigue checks, as a summary shows them (`term`).
ABILITY_WORDS: Final = (N_("Wisdom"), N_("Constitution"))


def round_message(config: Config, state_after: State, round: Round) -> Message:
    """One line for a Discord bot, without the "Round N: " prefix the web layer adds.

    E.g. "Ogre beats Lydia by 8: Lydia's DS falls to -3 (Lydia -3, Ogre 0; Ogre leads)."
    """
    parts: list[Message] = []
    if round.fatigue:
        ability = "Wisdom" if config.variant == "mental" else "Constitution"
        checks = [
            m("{name} {total} vs DC {dc}, passes", name=check.name, total=check.total, dc=check.dc)
            if check.passed
            else m(
                "{name} {total} vs DC {dc}, fails", name=check.name, total=check.total, dc=check.dc
            )
            for check in round.fatigue
        ]
        parts.append(m("{ability}: {checks}.", ability=term(ability), checks=Listing(checks, "; ")))
    standing = Listing([m("{name} {ds}", name=name, ds=ds) for name, ds in round.ds])
    leads = m("{name} leads", name=round.leader) if round.leader is not None else m("nobody leads")
    if round.checks:
        (first, first_check), (second, _) = round.checks
        if round.round_winner is None:
            parts.append(
                m(
                    "{first} and {second} tie at {total}: nothing changes ({standing}; {leads}).",
                    first=first,
                    second=second,
                    total=first_check.total,
                    standing=standing,
                    leads=leads,
                )
            )
        else:
            loser = second if round.round_winner == first else first
            pushed_ds = dict(round.ds)[round.pushed] if round.pushed is not None else 0
            pushed: dict[str, Argument] = {
                "winner": round.round_winner,
                "loser": loser,
                "difference": round.difference,
                "pushed": str(round.pushed),
                "ds": pushed_ds,
                "standing": standing,
                "leads": leads,
            }
            if round.pushed == round.round_winner:
                parts.append(
                    m(
                        "{winner} beats {loser} by {difference}: {pushed}'s DS rises to {ds} "
                        "({standing}; {leads}).",
                        **pushed,
                    )
                )
            else:
                parts.append(
                    m(
                        "{winner} beats {loser} by {difference}: {pushed}'s DS falls to {ds} "
                        "({standing}; {leads}).",
                        **pushed,
                    )
                )
    if round.finished:
        parts.append(_ending(config, state_after, round))
    return m("{sentences}", sentences=Listing(parts, " "))


def round_summary(config: Config, state_after: State, round: Round) -> str:
    """`round_message` in English."""
    return english(round_message(config, state_after, round))


def _ending(config: Config, state_after: State, round: Round) -> Message:
    winner = str(round.winner)
    if round.reason == "target":
        line = m("{winner} wins, reaching DS {target}.", winner=winner, target=config.target)
    elif round.reason == "fatigue":
        tired = [check.name for check in round.fatigue if not check.passed]
        if len(tired) == 1:
            line = m("{tired} can wrestle no more: {winner} wins.", tired=tired[0], winner=winner)
        else:
            line = m("Both can wrestle no more: {winner} wins on the higher DS.", winner=winner)
    elif round.reason == "draw":
        line = m("Both can wrestle no more with equal DS: a draw.")
    else:
        line = ng(
            "No winner after {count} round.", "No winner after {count} rounds.", config.max_rounds
        )
    if state_after.damage is None:
        return line
    damage: dict[str, Argument] = {
        "line": line,
        "name": state_after.damage.name,
        "amount": state_after.damage.amount,
    }
    if config.variant == "spikes":
        return m("{line} {name} takes {amount} damage and an injured hand.", **damage)
    return m("{line} {name} takes {amount} damage.", **damage)
