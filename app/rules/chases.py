"""Chases: one escapee, one chaser, a lead in DS (docs/rules.md#chases).

The lead is the escapee's DS minus the chaser's. Each increment the GM describes the terrain, the
escapee may use one tactic (hide, or create a hazard), then both make the increment's check as in
races (`app.rules.races.run_increment`, with the long-race Constitution check before it). The
chase ends when the lead is 0 or less (caught), 30 or more (escaped), when a hide succeeds (hid),
or when the GM ends it (gave up).

Rulings where docs/rules.md#chases is silent:

- *Hide vs Spot ties.* The escapee is named first and the chaser second: the escapee acts (she
  tries to slip away) and the chaser defends against it, so after 20 equal rerolls the chaser wins
  and the chase goes on (docs/rules.md#opposed-checks).
- *Order within an increment:* both Constitution checks (when due), then the tactic, then the
  escapee's increment checks, then the chaser's. A side that rests makes no other check in it
  (docs/rules.md#races): a resting escapee uses no tactic (nothing is paid); a resting chaser makes
  no
  Spot check, so a hide against him succeeds unopposed, and no hazard check (he adds 0 anyway).
- *Held up.* An escapee who lost her hide, and a chaser who failed the hazard check, add 0 and make
  no further check this increment (the terrain's obstacle included).
- *Tactic checks* get neither the speed bonus (whatever `speed_bonus`), Run, pacing
  (docs/rules.md#races) nor the terrain's `modifier`; `tactic.success` for a hazard means it was
  created *and*
  held the chaser up.
- *The hazard's cost* comes off the escapee's DS at once, but the end of the chase is judged only
  once the increment's checks are made ("then ... the lead is re-evaluated").
- *Forfeits.* An escapee who forfeits at a terrain obstacle is caught; a chaser who forfeits (and
  an escapee who does not) lets her escape. `max_retries` (5; `null` for no cap, bounded by the
  request's dice budget; an obstacle no die can pass then forfeits at once) and
  `damage_instead_of_forfeit` (false; with it a failed terrain obstacle or hazard costs only its
  damage) work as in races (`app.rules.races`, *Options*).
  **Ruling:** the hazard an escapee *creates* carries no damage, so with
  `damage_instead_of_forfeit` it still holds the chaser up.
- **Ruling:** `speed_bonus` works as in races (`"increment"` by default; `"every-roll"` adds the
  speed bonus to terrain obstacle, hazard, Ride and Constitution checks too), and never to the
  tactic checks below. `pacing_rule` is a race option only: a chase's pacing changes the safe
  increments (the option concerns races).
- *Starts.* A start lead of 30 or more is a chase already escaped: `start` returns a finished
  state. An initiative start that rolls a lead of 0 or less is rejected (`RulesError` at
  ("start", "mode")), as is one that cannot roll above 0 at all (`check_config`); so is a lead
  or a distance of 0 or less (the create body's bounds; `start` too, at its field).
- *`max_rounds`.* When that many increments have been played without an end, the chaser gives up:
  `status_detail` "gave-up" (as when the GM ends it), the round's `outcome` stays null and its
  `status_detail` says "gave-up". The escapee is then the winner, as in every end but "caught".
- *Terrain* takes the race increment's fields: `check`, `flat`, `dc` (with `on_fail`, defaulting as
  in races), `drown_margin`, `modifier`, `obstacle`, `mounted` (which needs both to have mounts).
- Increments raced so far, for the Constitution DC, are the increments of the chase played so far
  (the mount's: those played mounted), as in races.

Dice, keyed (who, purpose): (escapee, "initiative") at the start; (escapee, "hide") and (chaser,
"spot") for a hide; (escapee, "dexterity") to create a hazard and (chaser, "hazard") to get past it;
and for each side the race purposes "constitution", "obstacle", "ride", "check", "damage".

The create and round bodies' shapes and bounds are checked at the edge
(`app.api.schemas.chases`), which builds `Config` and `RoundInput`; `check_config`,
`check_round_input` and `validate_round` check only what spans fields, listing every violation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Final, Literal

from app.rules.common import MAX_OPPOSED_REROLLS, opposed_check
from app.rules.dice import Dice, Key, Need
from app.rules.errors import PhaseError, RulesError
from app.rules.messages import N_, Argument, Listing, Message, Signed, english, m, ng
from app.rules.races import (
    CONSTITUTION,
    DEFAULT_MAX_RETRIES,
    RESTED,
    CheckRecord,
    Competitor,
    Increment,
    IncrementOutcome,
    SpeedBonusRule,
    check_increment,
    describe_increment,
    endurance_check,
    endurance_due,
    every_roll_bonus,
    increment_needs,
    run_increment,
)
from app.rules.text import name_key
from app.rules.violations import Violations

StartMode = Literal["initiative", "distance", "lead"]
StatusDetail = Literal["caught", "escaped", "hid", "gave-up"]
Outcome = Literal["caught", "escaped", "hid"]
TacticPolicy = Literal["none", "hide-when-possible"]


#: docs/rules.md#the-lead-and-the-end, escaped at 30 or more.
CAUGHT_AT: Final = 0
ESCAPED_AT: Final = 30
#: Hiding needs a lead of 20 or more on terrain that is not flat.
HIDE_MIN_LEAD: Final = 20
#: The best an initiative d20 can roll (an initiative start needs it to give a lead).
BEST_D20: Final = 20
#: A distance start gives 5 DS per increment of the chaser's speed.
DS_PER_DISTANCE_INCREMENT: Final = 5
#: Hazards: the rule's 5 DS base cost, the Dexterity DC 14, the chaser's DC 10 + penalty.
DEFAULT_HAZARD_BASE_COST: Final = 5
HAZARD_CREATE_DC: Final = 14
HAZARD_BASE_DC: Final = 10
DEFAULT_CHASER_CHECK: Final = "balance"
#: docs/rules.md#chases default; docs/api.md#limits.
DEFAULT_MAX_ROUNDS: Final = 200
MAX_ROUNDS_LIMIT: Final = 10_000

#: Dice purposes (docs/api.md#chases).
INITIATIVE: Final = "initiative"
HIDE: Final = "hide"
SPOT: Final = "spot"
DEXTERITY: Final = "dexterity"
HAZARD: Final = "hazard"


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class InitiativeStart:
    """The escapee's initiative check (`d20 + mods.initiative`) is the lead."""

    mode: Literal["initiative"] = "initiative"


@dataclass(frozen=True, slots=True, kw_only=True)
class DistanceStart:
    """The lead is 5 x the `increments` of the chaser's speed between them; with
    `with_initiative`, that is added to the escapee's initiative check (the source's "the
    escapee's starting DS is increased by 5 times that number", docs/rules.md#starting-lead)."""

    mode: Literal["distance"] = "distance"
    increments: int
    with_initiative: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class LeadStart:
    """An explicit lead in DS."""

    mode: Literal["lead"] = "lead"
    lead: int


#: How the lead starts (docs/rules.md#starting-lead).
Start = InitiativeStart | DistanceStart | LeadStart


@dataclass(frozen=True, slots=True)
class Config:
    """A chase: the two sides, the start, and the options of docs/api.md#chases."""

    escapee: Competitor
    chaser: Competitor
    start: Start
    hazard_base_cost: int = DEFAULT_HAZARD_BASE_COST
    endurance_rule: bool = True
    max_rounds: int = DEFAULT_MAX_ROUNDS
    #: None: no cap (as in races).
    max_retries: int | None = DEFAULT_MAX_RETRIES
    damage_instead_of_forfeit: bool = False
    speed_bonus: SpeedBonusRule = "increment"


def check_config(config: Config) -> None:
    """What a chase's fields must agree on; `RulesError` lists every violation
    (docs/rules.md#chases).

    Two different names, and an initiative start the escapee's modifier can give a lead at all.
    """
    violations = Violations()
    if name_key(config.escapee.name) == name_key(config.chaser.name):
        violations.add(("chaser", "name"), N_("the chaser and the escapee need different names"))
    best = BEST_D20 + config.escapee.modifier(INITIATIVE)
    if isinstance(config.start, InitiativeStart) and best <= CAUGHT_AT:
        violations.add(("start", "mode"), N_("the escapee's initiative can never give a lead"))
    if (
        isinstance(config.start, DistanceStart)
        and config.start.with_initiative
        and best + DS_PER_DISTANCE_INCREMENT * config.start.increments <= CAUGHT_AT
    ):
        violations.add(
            ("start", "with_initiative"),
            N_("the escapee's initiative and the distance can never give a lead"),
        )
    violations.raise_if_any()


def rolls_initiative(begin: InitiativeStart | DistanceStart | LeadStart) -> bool:
    """Whether the start rolls the escapee's initiative die (docs/rules.md#starting-lead)."""
    return isinstance(begin, InitiativeStart) or (
        isinstance(begin, DistanceStart) and begin.with_initiative
    )


# --------------------------------------------------------------------------------------------
# Round input: the terrain and the escapee's tactic
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Terrain:
    """The increment the GM describes: a race increment, and whether it is flat
    (docs/rules.md#chases)."""

    increment: Increment
    flat: bool = False


@dataclass(frozen=True, slots=True)
class Hide:
    """Opposed Hide vs Spot; needs a lead of 20 or more and terrain that is not flat."""

    kind: Literal["hide"] = "hide"


@dataclass(frozen=True, slots=True)
class CreateHazard:
    """A hazard with a voluntary `penalty` >= 0; the chaser checks `chaser_check` vs DC 10 + p."""

    penalty: int
    chaser_check: str = DEFAULT_CHASER_CHECK
    kind: Literal["hazard"] = "hazard"


Tactic = Hide | CreateHazard


@dataclass(frozen=True, slots=True)
class RoundInput:
    """One increment's input (docs/api.md#chases round body, without its dice)."""

    terrain: Terrain
    tactic: Tactic | None = None


# --------------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class State:
    """docs/api.md#chases state, plus the increments played (for endurance and `max_rounds`)."""

    lead: int
    ds: Mapping[str, int]
    status_detail: StatusDetail | None = None
    increments: int = 0
    mounted_increments: int = 0


def start(config: Config, dice: Dice) -> State:
    """The starting lead (docs/rules.md#starting-lead): initiative roll, 5 x increments (plus the
    initiative roll `with_initiative`), or given.

    The escapee's DS is the lead and the chaser's 0. A lead of 30 or more has escaped already.
    """
    escapee, begin = config.escapee, config.start
    if isinstance(begin, InitiativeStart):
        roll = dice.d20(who=escapee.name, purpose=INITIATIVE)
        lead = roll + escapee.modifier(INITIATIVE)
        if lead <= CAUGHT_AT:
            raise RulesError(
                m(
                    "{name}'s initiative {lead} gives no lead: the chase would be over",
                    name=escapee.name,
                    lead=lead,
                ),
                ("start", "mode"),
            )
    elif isinstance(begin, DistanceStart):
        lead = DS_PER_DISTANCE_INCREMENT * begin.increments
        if lead <= CAUGHT_AT:
            raise RulesError(
                N_("the chase would be over already: lead <= 0"), ("start", "increments")
            )
        if begin.with_initiative:
            lead += dice.d20(who=escapee.name, purpose=INITIATIVE) + escapee.modifier(INITIATIVE)
            if lead <= CAUGHT_AT:
                raise RulesError(
                    m(
                        "{name}'s initiative and the distance give a lead of {lead}: the chase "
                        "would be over",
                        name=escapee.name,
                        lead=lead,
                    ),
                    ("start", "with_initiative"),
                )
    else:
        lead = begin.lead
        if lead <= CAUGHT_AT:
            raise RulesError(N_("the chase would be over already: lead <= 0"), ("start", "lead"))
    return State(
        lead=lead,
        ds={escapee.name: lead, config.chaser.name: 0},
        status_detail="escaped" if lead >= ESCAPED_AT else None,
    )


def is_finished(state: State) -> bool:
    """Caught, escaped, hid or given up (docs/rules.md#the-lead-and-the-end)."""
    return state.status_detail is not None


def winner(config: Config, state: State) -> str | None:
    """The chaser when caught; the escapee for every other end; None while it goes on."""
    if state.status_detail is None:
        return None
    return config.chaser.name if state.status_detail == "caught" else config.escapee.name


def end(config: Config, state: State, reason: str = "gave-up") -> State:  # noqa: ARG001
    """The GM ends the chase: the chaser gives up (docs/rules.md#the-lead-and-the-end)."""
    if is_finished(state):
        raise PhaseError(N_("the chase is over"))
    if reason != "gave-up":
        raise RulesError(N_("the only reason to end a chase is gave-up"), ("reason",))
    return replace(state, status_detail="gave-up")


def choose_tactic(
    config: Config,  # noqa: ARG001
    state: State,
    terrain: Terrain,
    policy: str,
) -> Tactic | None:
    """The tactic `resolve` uses: `none`, or `hide-when-possible` (lead >= 20, not flat)."""
    if policy == "none":
        return None
    if policy == "hide-when-possible":
        return Hide() if state.lead >= HIDE_MIN_LEAD and not terrain.flat else None
    raise RulesError(N_("tactic_policy must be none or hide-when-possible"), ("tactic_policy",))


# --------------------------------------------------------------------------------------------
# Rounds
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TacticRecord:
    """The tactic as docs/api.md#chases records it; `attempted` is false for a resting escapee."""

    kind: Literal["hide", "hazard"]
    success: bool
    attempted: bool = True
    cost: int | None = None
    penalty: int | None = None
    created: bool | None = None
    escapee_total: int | None = None
    chaser_total: int | None = None
    chaser_check: str | None = None
    dc: int | None = None


def round_cost(record: TacticRecord | None) -> int:
    """What the tactic cost the escapee in DS: a hazard's `hazard_base_cost + p`, else 0."""
    if record is None or record.cost is None:
        return 0
    return record.cost


@dataclass(frozen=True, slots=True)
class SideRound:
    """One side's increment: rested, held up by the tactic, and the race checks it made."""

    name: str
    gained: int
    total: int | None
    rested: bool
    held_up: bool
    events: tuple[str, ...]
    checks: tuple[CheckRecord, ...]


@dataclass(frozen=True, slots=True)
class Round:
    """docs/api.md#chases round record, but number/rolls/summary; plus `increment` and `sides`."""

    increment: int
    terrain: Terrain
    lead_before: int
    tactic: TacticRecord | None
    escapee: SideRound
    chaser: SideRound
    lead: int
    finished: bool
    outcome: Outcome | None
    status_detail: StatusDetail | None

    @property
    def cost(self) -> int:
        """The hazard's cost in DS (0 without one)."""
        return round_cost(self.tactic)

    @property
    def gains(self) -> dict[str, int]:
        """What each side's increment checks added, by name (the escapee first)."""
        return {side.name: side.gained for side in (self.escapee, self.chaser)}


def check_round_input(round_input: RoundInput) -> None:
    """What a round body's fields must agree on, whatever the chase's state (docs/rules.md#chases).

    The terrain as a race increment (`check_increment`), and no hiding on flat terrain.
    """
    violations = Violations()
    _check_round_input(round_input, violations)
    violations.raise_if_any()


def _check_round_input(round_input: RoundInput, violations: Violations) -> None:
    terrain = round_input.terrain
    check_increment(terrain.increment, ("terrain",), violations)
    if isinstance(round_input.tactic, Hide) and terrain.flat:
        violations.add(("tactic", "kind"), N_("nobody can hide on flat terrain"))


def validate_round(config: Config, state: State, round_input: RoundInput) -> None:
    """`RulesError` for a round the rules forbid now (docs/rules.md#tactics-hiding,
    docs/rules.md#mounts).

    `check_round_input`'s checks, then what depends on the chase: a hide needs a lead of 20,
    mounted terrain needs both sides mounted.
    """
    violations = Violations()
    _check_round_input(round_input, violations)
    terrain, tactic = round_input.terrain, round_input.tactic
    if isinstance(tactic, Hide) and state.lead < HIDE_MIN_LEAD:
        violations.add(
            ("tactic", "kind"),
            m(
                "hiding needs a lead of {least} or more (the lead is {lead})",
                least=HIDE_MIN_LEAD,
                lead=state.lead,
            ),
        )
    if isinstance(tactic, CreateHazard) and tactic.penalty < 0:
        violations.add(("tactic", "penalty"), N_("penalty must be at least 0"))
    if terrain.increment.mounted:
        for side in (config.escapee, config.chaser):
            if side.mount is None:
                violations.add(("terrain", "mounted"), m("{name} has no mount", name=side.name))
    violations.raise_if_any()


def dice_needs(config: Config, state: State, round_input: RoundInput) -> dict[Key, Need]:
    """The dice an increment with `round_input` may take, from the state and the round body
    alone (docs/rules.md#supplied-and-server-dice): each side's Constitution die when its check
    is due (surely rolled); the tactic's dice (Hide and Spot with their rerolls on a tie, or
    the escapee's Dexterity and the chaser's hazard check); then each side's increment dice
    as in races. A die is sure only when no die before it could skip it."""
    increment = round_input.terrain.increment
    tactic = round_input.tactic
    needs: dict[Key, Need] = {}
    resting: dict[str, bool] = {}
    for side in (config.escapee, config.chaser):
        due = endurance_due(
            side,
            mounted=increment.mounted,
            increments_raced=state.increments,
            mounted_increments_raced=state.mounted_increments,
            endurance_rule=config.endurance_rule,
        )
        resting[side.name] = due is not None
        if due is not None:
            needs[(side.name, CONSTITUTION)] = Need(20, certain=1)
    escapee, chaser = config.escapee.name, config.chaser.name
    calm = not any(resting.values())
    opposed = 1 + MAX_OPPOSED_REROLLS
    if isinstance(tactic, Hide):
        needs[(escapee, HIDE)] = Need(
            20, opposed, certain=0 if resting[escapee] else 1, when="if she is not resting"
        )
        needs[(chaser, SPOT)] = Need(
            20, opposed, certain=1 if calm else 0, when="if neither side is resting"
        )
    elif isinstance(tactic, CreateHazard):
        needs[(escapee, DEXTERITY)] = Need(
            20, certain=0 if resting[escapee] else 1, when="if she is not resting"
        )
        needs[(chaser, HAZARD)] = Need(20, when="if the escapee creates the hazard")
    for side in (config.escapee, config.chaser):
        needs.update(
            increment_needs(
                side,
                increment,
                max_retries=config.max_retries,
                damage_instead_of_forfeit=config.damage_instead_of_forfeit,
                sure=calm and tactic is None,
            )
        )
    return needs


def play_round(
    config: Config, state: State, round_input: RoundInput, dice: Dice
) -> tuple[State, Round]:
    """Play one chase increment (docs/rules.md#chase-increments).

    Constitution checks when due, then the escapee's tactic — `hide` (opposed Hide vs Spot, the
    escapee first; winning ends the chase, losing adds her 0) or `hazard` (costs
    `hazard_base_cost + p` at once; Dexterity `d20 + dexterity - p` vs 14 creates it; the chaser
    then checks vs DC `10 + p` or adds 0) — then both sides' increment checks as in races, and
    `lead = lead_before - cost + gains[escapee] - gains[chaser]`.
    """
    if is_finished(state):
        raise PhaseError(N_("the chase is over"))
    validate_round(config, state, round_input)
    escapee, chaser = config.escapee, config.chaser
    increment = round_input.terrain.increment
    tactic = round_input.tactic

    def constitution(side: Competitor) -> CheckRecord | None:
        return endurance_check(
            side,
            mounted=increment.mounted,
            increments_raced=state.increments,
            mounted_increments_raced=state.mounted_increments,
            endurance_rule=config.endurance_rule,
            dice=dice,
            roll_bonus=every_roll_bonus(side, increment, config.speed_bonus),
        )

    escapee_con, chaser_con = constitution(escapee), constitution(chaser)
    escapee_rests = escapee_con is not None and not escapee_con.success
    chaser_rests = chaser_con is not None and not chaser_con.success

    record: TacticRecord | None = None
    escapee_held = chaser_held = hid = False
    if isinstance(tactic, Hide):
        record = _hide(config, dice, escapee_rests=escapee_rests, chaser_rests=chaser_rests)
        hid = record.success
        escapee_held = record.attempted and not record.success
    elif isinstance(tactic, CreateHazard):
        record = _hazard(
            config, tactic, dice, escapee_rests=escapee_rests, chaser_rests=chaser_rests
        )
        chaser_held = record.success and record.chaser_total is not None

    def side_round(side: Competitor, con: CheckRecord | None, rests: bool, held: bool) -> SideRound:
        if rests:
            outcome = RESTED
        elif held or hid:
            outcome = IncrementOutcome(gained=0, total=None, events=("held-up",) if held else ())
        else:
            outcome = run_increment(
                side,
                increment,
                dice,
                max_retries=config.max_retries,
                damage_instead_of_forfeit=config.damage_instead_of_forfeit,
                speed_bonus=config.speed_bonus,
            )
        checks = outcome.checks if con is None else (con, *outcome.checks)
        return SideRound(
            side.name,
            outcome.gained,
            outcome.total,
            rests,
            held and not rests,
            outcome.events,
            checks,
        )

    escapee_line = side_round(escapee, escapee_con, escapee_rests, escapee_held)
    chaser_line = side_round(chaser, chaser_con, chaser_rests, chaser_held)
    cost = round_cost(record)
    lead = state.lead - cost + escapee_line.gained - chaser_line.gained
    ds = {
        escapee.name: state.ds[escapee.name] - cost + escapee_line.gained,
        chaser.name: state.ds[chaser.name] + chaser_line.gained,
    }
    increments = state.increments + 1
    status = _status_after(
        config,
        lead=lead,
        increments=increments,
        hid=hid,
        escapee_forfeited="forfeited" in escapee_line.events,
        chaser_forfeited="forfeited" in chaser_line.events,
    )
    new_state = State(
        lead=lead,
        ds=ds,
        status_detail=status,
        increments=increments,
        mounted_increments=state.mounted_increments + (1 if increment.mounted else 0),
    )
    return new_state, Round(
        increment=increments,
        terrain=round_input.terrain,
        lead_before=state.lead,
        tactic=record,
        escapee=escapee_line,
        chaser=chaser_line,
        lead=lead,
        finished=status is not None,
        outcome=None if status is None or status == "gave-up" else status,
        status_detail=status,
    )


def _status_after(
    config: Config,
    *,
    lead: int,
    increments: int,
    hid: bool,
    escapee_forfeited: bool,
    chaser_forfeited: bool,
) -> StatusDetail | None:
    """How the chase stands after an increment (docs/rules.md#the-lead-and-the-end; module
    rulings)."""
    if hid:
        return "hid"
    if escapee_forfeited:
        return "caught"
    if chaser_forfeited:
        return "escaped"
    if lead <= CAUGHT_AT:
        return "caught"
    if lead >= ESCAPED_AT:
        return "escaped"
    if increments >= config.max_rounds:
        return "gave-up"
    return None


def _hide(config: Config, dice: Dice, *, escapee_rests: bool, chaser_rests: bool) -> TacticRecord:
    """Opposed Hide (escapee, first) vs Spot (chaser, second, the defending side)
    (docs/rules.md#dice-and-checks)."""
    if escapee_rests:
        return TacticRecord("hide", success=False, attempted=False)
    if chaser_rests:
        return TacticRecord("hide", success=True)
    contest = opposed_check(
        dice,
        first=(config.escapee.name, HIDE, config.escapee.modifier(HIDE)),
        second=(config.chaser.name, SPOT, config.chaser.modifier(SPOT)),
    )
    return TacticRecord(
        "hide",
        success=contest.first_wins,
        escapee_total=contest.first.total,
        chaser_total=contest.second.total,
    )


def _hazard(
    config: Config,
    tactic: CreateHazard,
    dice: Dice,
    *,
    escapee_rests: bool,
    chaser_rests: bool,
) -> TacticRecord:
    """Create a hazard (docs/rules.md#chases): pay, Dexterity vs DC 14, the chaser's check vs 10 +
    p."""
    penalty = tactic.penalty
    if escapee_rests:
        return TacticRecord("hazard", success=False, attempted=False, cost=0, penalty=penalty)
    cost = config.hazard_base_cost + penalty
    dexterity = dice.d20(who=config.escapee.name, purpose=DEXTERITY)
    escapee_total = dexterity + config.escapee.modifier(DEXTERITY) - penalty
    created = escapee_total >= HAZARD_CREATE_DC
    dc = HAZARD_BASE_DC + penalty
    chaser_total = None
    if created and not chaser_rests:
        roll = dice.d20(who=config.chaser.name, purpose=HAZARD)
        chaser_total = roll + config.chaser.modifier(tactic.chaser_check)
    return TacticRecord(
        "hazard",
        success=created and chaser_total is not None and chaser_total < dc,
        cost=cost,
        penalty=penalty,
        created=created,
        escapee_total=escapee_total,
        chaser_total=chaser_total,
        chaser_check=tactic.chaser_check,
        dc=dc,
    )


# --------------------------------------------------------------------------------------------
# Presentation
# --------------------------------------------------------------------------------------------


def _total(value: int | None) -> Argument:
    """A check's total as a summary shows it (a check not rolled reads as Python writes None)."""
    return "None" if value is None else value


def _describe_tactic(config: Config, record: TacticRecord) -> Message:
    escapee, chaser = config.escapee.name, config.chaser.name
    if not record.attempted:
        if record.kind == "hide":
            return m("{escapee} rests instead of trying to hide", escapee=escapee)
        return m("{escapee} rests instead of trying to create a hazard", escapee=escapee)
    if record.kind == "hide":
        if record.escapee_total is None:
            return m("{escapee} hides while {chaser} rests", escapee=escapee, chaser=chaser)
        totals: dict[str, Argument] = {
            "escapee": escapee,
            "chaser": chaser,
            "hide": record.escapee_total,
            "spot": _total(record.chaser_total),
        }
        if record.success:
            return m("{escapee} hides from {chaser} (Hide {hide} vs Spot {spot})", **totals)
        return m("{escapee} fails to hide from {chaser} (Hide {hide} vs Spot {spot})", **totals)
    paid: dict[str, Argument] = {
        "escapee": escapee,
        "cost": _total(record.cost),
        "dexterity": _total(record.escapee_total),
    }
    if not record.created:
        return m(
            "{escapee} pays {cost} DS for a hazard (Dexterity {dexterity} vs 14, not created)",
            **paid,
        )
    if record.chaser_total is None:
        return m(
            "{escapee} pays {cost} DS for a hazard (Dexterity {dexterity} vs 14, created; "
            "{chaser} rests)",
            **paid,
            chaser=chaser,
        )
    checked: dict[str, Argument] = {
        **paid,
        "chaser": chaser,
        "check": str(record.chaser_check),
        "total": record.chaser_total,
        "dc": _total(record.dc),
    }
    if record.success:
        return m(
            "{escapee} pays {cost} DS for a hazard (Dexterity {dexterity} vs 14, created; "
            "{chaser} fails {check} {total} vs DC {dc})",
            **checked,
        )
    return m(
        "{escapee} pays {cost} DS for a hazard (Dexterity {dexterity} vs 14, created; "
        "{chaser} passes {check} {total} vs DC {dc})",
        **checked,
    )


def _describe_side(line: SideRound) -> Message:
    if line.rested:
        return m("{name} rests", name=line.name)
    if line.held_up:
        return m("{name} +0 (held up)", name=line.name)
    if "forfeited" in line.events:
        return m("{name} is stopped by the obstacle", name=line.name)
    return m("{name} {gained}", name=line.name, gained=Signed(line.gained))


def round_message(config: Config, state_after: State, round: Round) -> Message:
    """One line for the Discord bot, e.g. `Ralf +12, the guard +0; lead 8 -> 20.`"""
    parts: list[Argument] = []
    if round.tactic is not None:
        parts.append(_describe_tactic(config, round.tactic))
    if round.outcome != "hid":
        parts.append(Listing([_describe_side(round.escapee), _describe_side(round.chaser)]))
    terrain = describe_increment(round.terrain.increment)
    line: dict[str, Argument] = {
        "number": round.increment,
        "terrain": m("{terrain}, flat", terrain=terrain) if round.terrain.flat else terrain,
        "parts": Listing(parts, "; "),
        "before": round.lead_before,
        "lead": round.lead,
    }
    if round.status_detail is None:
        return m("Increment {number} ({terrain}): {parts}; lead {before} -> {lead}.", **line)
    escapee, chaser = config.escapee.name, config.chaser.name
    played = state_after.increments
    ending = {
        "caught": m("{chaser} catches {escapee}", chaser=chaser, escapee=escapee),
        "escaped": m("{escapee} escapes", escapee=escapee),
        "hid": m("{escapee} escapes by hiding", escapee=escapee),
        "gave-up": ng(
            "{chaser} gives up after {count} increment",
            "{chaser} gives up after {count} increments",
            played,
            chaser=chaser,
        ),
    }
    return m(
        "Increment {number} ({terrain}): {parts}; lead {before} -> {lead}. {ending}.",
        **line,
        ending=ending[round.status_detail],
    )


def round_summary(config: Config, state_after: State, round: Round) -> str:
    """`round_message` in English."""
    return english(round_message(config, state_after, round))


def session_message(config: Config, state: State) -> Message:
    """`Chase: Ralf leads the guard by 12 after 0 increments.` or how the chase ended."""
    names: dict[str, Argument] = {
        "escapee": config.escapee.name,
        "chaser": config.chaser.name,
        "lead": state.lead,
    }
    count = state.increments
    if state.status_detail is None:
        return ng(
            "Chase: {escapee} leads {chaser} by {lead} after {count} increment.",
            "Chase: {escapee} leads {chaser} by {lead} after {count} increments.",
            count,
            **names,
        )
    if state.status_detail == "caught":
        return ng(
            "Chase over: {chaser} caught {escapee} after {count} increment.",
            "Chase over: {chaser} caught {escapee} after {count} increments.",
            count,
            **names,
        )
    if state.status_detail == "escaped":
        return ng(
            "Chase over: {escapee} escaped {chaser} with a lead of {lead} after {count} increment.",
            "Chase over: {escapee} escaped {chaser} with a lead of {lead} after {count} "
            "increments.",
            count,
            **names,
        )
    if state.status_detail == "hid":
        return ng(
            "Chase over: {escapee} escaped {chaser} by hiding after {count} increment.",
            "Chase over: {escapee} escaped {chaser} by hiding after {count} increments.",
            count,
            **names,
        )
    return ng(
        "Chase over: {chaser} gave up; {escapee} got away with a lead of {lead} after {count} "
        "increment.",
        "Chase over: {chaser} gave up; {escapee} got away with a lead of {lead} after {count} "
        "increments.",
        count,
        **names,
    )
