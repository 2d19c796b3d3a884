"""Races: a course of range increments, direct DS (docs/rules.md#races).

Every competitor still racing makes one check per increment and adds its total to her Degree of
Success (DS); after the last increment the highest DS among those who did not forfeit wins (equal
highest: a tie). `play_round` plays one increment for everybody; the web layer's `resolve` simply
loops it until `is_finished`.

Chases (docs/rules.md#chases, `app.rules.chases`) race the same competitors over the same kind of
increment, so the competitor, the increment and the per-increment checks live here and are public:
`Competitor`, `Increment`, `check_increment`, `endurance_check` and `run_increment`.

The create body's shape and bounds are checked at the edge (`app.api.schemas.races`), which
builds `Config` and normalises it (lower-case names, derived defaults); `check_config` checks
only what spans fields, listing every violation at once.

Rulings where docs/rules.md#races is silent:

- *Speed by movement.* The check `swim` moves at `speeds.swim`, `climb` at `speeds.climb`, every
  other check at `speeds.land`; a missing one falls back to `speed` (docs/rules.md#races: "else
  `speed`").
- *Names.* Check names, `mods` keys and feats are case-insensitive and stored lower-case, so
  `"Swim"` finds `speeds.swim`; two `mods` keys differing only in case are rejected. The rules
  take them lower-case; the create and round bodies lower-case them.
- *Increment modifier.* It is added to the increment's own checks: the increment check, its retries
  and the increment's obstacle or hazard check, never to Constitution or Ride checks.
- *DC without `on_fail`.* A `climb` check defaults to `retry` (the source's climbing race), any
  other check to `stall`. `on_fail` without a `dc` is rejected.
- *Retried DC checks.* The retries of a failed `on_fail: retry` check repeat the increment check
  with its full modifier (speed bonus included: it is the same climb) and draw their dice from the
  "obstacle" purpose, since docs/api.md#races is a single value. After a retried obstacle or
  check she adds 0 (minus the retry costs) and makes no further check this increment.
- *A failed obstacle, retry or hazard ends the increment for her*: she adds 0 and makes no
  increment check (its total is `null`), since nothing could be added.
- **Ruling:** *Taking damage* (`damage_instead_of_forfeit`, off by default) covers obstacles and
  hazards alike: the source's "rather than slow down or stop" names both, and slowing down is
  what a hazard does. A failed obstacle or hazard check then costs only its `damage` (nothing
  without one), and she makes her increment check and adds it as usual (no retry, no forfeit).
  A failed `on_fail: retry` check still retries: it carries no damage to take instead.
- *Mounted increments* must use the `strength` check (the mount's Strength check). Obstacle and
  hazard checks on a mounted increment are the rider's own. The Run feat does not apply (it is a
  foot-race bonus); pacing does, to the check and to the mount's safe count. The rider's Endurance
  feat does not help the mount's Constitution check.
- *Increments raced so far* (the Constitution DC is 2 * that). The rider's count is every increment
  of the race already played — resting, retrying or riding, she was in it. The mount's count is the
  mounted increments already played (fresh horses waiting at the last leg have raced none). A
  count below the safe number of increments means no check; from the safe number on, she checks
  before each increment, so a Con 10 runner first checks before increment 11, at DC 20.
- A mount without a `con_score`, or with `living: false`, never checks; neither does a competitor
  without a `con_score` (the rule is on "when a competitor's `con_score` is given").
- Damage below 0 counts as 0; `drown_margin` is at least 1; speeds and scores are not negative;
  a `hazard` takes no `retry`.

Options where the source reads two ways (docs/rules.md#races), set per race and stored with its
config;
each default is the reading Arbiter has always used:

- **Ruling:** `speed_bonus` — `"increment"` (default): the speed bonus `2 * floor(speed / 10)`
  goes to the increment check (and its retries) only. `"every-roll"`: the source's "adds 2 points
  to *any roll*", so it also goes to the obstacle or hazard check, the Ride check and the
  Constitution check. The speed is the one the increment moves at: on foot her speed for the
  increment's check (`speed_for`), mounted the mount's (the Ride and the mount's Constitution
  check included). Tactic checks of a chase (Hide, Spot, Dexterity, the chaser's hazard check)
  never get it: the issue that asked for the option names only these four.
- **Ruling:** `pacing_rule` — `"safe-increments"` (default): pacing (+2) and sprinting (-2) change
  only the number of safe increments. `"constitution-score"`: they change the Constitution score
  itself ("a 2 point penalty to his Constitution"), so the safe count is the changed score and
  the Constitution modifier moves with it (a +-2 score is +-1 modifier; a given `con_mod` keeps
  its difference from the score's). The mount's score changes the same way when mounted.
- **Ruling:** `max_retries` — default 5, a guard of Arbiter's own (the source names no cap:
  "Each retry decreases your current DS by 10 points"), 0..100; `null` means no cap. An uncapped
  retry loop draws every die from the round's `Dice`, so the request's dice budget
  (`app.rules.dice.MAX_DICE_PER_REQUEST`) bounds it: a retry that keeps failing ends in
  `WorkLimitExceeded` (422, naming the limit) and the round changes nothing.
- **Ruling:** an uncapped retry that no die can pass (`20 + modifier` below the DC) is not
  tried: she forfeits at once, with the event `impassable`, rather than leaving the race stuck
  (docs/rules.md#obstacles-and-hazards). A capped retry is rolled as usual.
- A race whose competitors have all forfeited is finished at once, with no winners.

Dice, keyed (who, purpose) with who the competitor's name: "constitution" (the Constitution check,
the mount's too), "obstacle" (each obstacle or hazard attempt and each retry of a failed DC check,
in order), "ride" (the Ride check), "check" (the increment check), "damage" (dice notation).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Final, Literal

from app.rules.common import ability_modifier
from app.rules.dice import Dice, Key, Need
from app.rules.errors import Loc, PhaseError, RulesError
from app.rules.messages import N_, Argument, Listing, Message, Signed, english, m, ng, term
from app.rules.text import name_key
from app.rules.violations import Violations

Preset = Literal["dash", "typical", "marathon", "dakrothian-marathon"]
Pacing = Literal["normal", "sprint", "pace"]
OnFail = Literal["retry", "stall"]
ObstacleKind = Literal["obstacle", "hazard"]
Standing = Literal["racing", "forfeited"]
CheckKind = Literal["constitution", "obstacle", "hazard", "ride", "increment", "retry"]
#: Options where the source reads two ways (module docstring).
SpeedBonusRule = Literal["increment", "every-roll"]
PacingRule = Literal["safe-increments", "constitution-score"]

MOVEMENTS: Final = ("land", "swim", "climb")

#: docs/api.md#limits.
MAX_COMPETITORS: Final = 64
MAX_INCREMENTS: Final = 200
#: docs/rules.md#races defaults.
DEFAULT_MAX_RETRIES: Final = 5
MAX_RETRIES_LIMIT: Final = 100
DEFAULT_DROWN_MARGIN: Final = 5
RETRY_COST: Final = 10
#: +2 per full 10 ft of speed; +2 Run on foot-race checks; ±2 for sprinting or pacing.
SPEED_BONUS_PER_STEP: Final = 2
SPEED_STEP_FT: Final = 10
RUN_BONUS: Final = 2
PACING_BONUS: Final[Mapping[str, int]] = {"normal": 0, "sprint": 2, "pace": -2}
#: Safe increments (or, with `pacing_rule: constitution-score`, the Constitution score itself):
#: +2 when pacing, -2 when sprinting.
PACING_SAFE_INCREMENTS: Final[Mapping[str, int]] = {"normal": 0, "sprint": -2, "pace": 2}
ENDURANCE_BONUS: Final = 4
#: Ride check: +2 at 10 or more, +4 at 20, +6 at 30.
RIDE_BONUSES: Final[tuple[tuple[int, int], ...]] = ((30, 6), (20, 4), (10, 2))

FOOT_RACE_CHECK: Final = "strength"
RUN_FEAT: Final = "run"
ENDURANCE_FEAT: Final = "endurance"
DROWNING: Final = "drowning"

#: Dice purposes (docs/api.md#races round body).
CHECK: Final = "check"
OBSTACLE: Final = "obstacle"
CONSTITUTION: Final = "constitution"
RIDE: Final = "ride"
DAMAGE: Final = "damage"


# --------------------------------------------------------------------------------------------
# Competitors and increments
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Mount:
    """A mount (docs/rules.md#races): its Strength check and speed replace the rider's when
    mounted."""

    name: str | None = None
    strength_mod: int
    speed: int
    con_score: int | None = None
    con_mod: int | None = None
    living: bool = True

    @property
    def constitution_modifier(self) -> int:
        if self.con_mod is not None:
            return self.con_mod
        return ability_modifier(self.con_score) if self.con_score is not None else 0


@dataclass(frozen=True, slots=True)
class Competitor:
    """A racer or a party to a chase (docs/rules.md#races, docs/api.md#races)."""

    name: str
    speed: int
    #: Speeds (ft) by movement (`land`, `swim`, `climb`); a missing one is `speed`.
    speeds: Mapping[str, int] = field(default_factory=dict)
    #: Modifiers by check or skill name, lower-case.
    mods: Mapping[str, int] = field(default_factory=dict)
    con_score: int | None = None
    con_mod: int | None = None
    feats: tuple[str, ...] = ()
    pacing: Pacing = "normal"
    mount: Mount | None = None

    def modifier(self, check: str) -> int:
        """The modifier for a check or skill; a missing one is 0 (docs/rules.md#races)."""
        return self.mods.get(check, 0)

    def has_feat(self, feat: str) -> bool:
        return feat in self.feats

    @property
    def constitution_modifier(self) -> int:
        if self.con_mod is not None:
            return self.con_mod
        return ability_modifier(self.con_score) if self.con_score is not None else 0

    def speed_for(self, check: str) -> int:
        """The speed for the movement a check makes (module docstring: *Speed by movement*)."""
        movement = check if check in ("swim", "climb") else "land"
        return self.speeds.get(movement, self.speed)


@dataclass(frozen=True, slots=True)
class Obstacle:
    """An `obstacle` (must be passed) or a `hazard` (failure adds 0) at an increment."""

    kind: ObstacleKind
    check: str
    dc: int
    retry: bool = False
    damage: str | None = None


@dataclass(frozen=True, slots=True)
class Increment:
    """One range increment of a course, or one chase increment's terrain (docs/rules.md#races)."""

    check: str
    dc: int | None = None
    on_fail: OnFail | None = None
    drown_margin: int = DEFAULT_DROWN_MARGIN
    modifier: int = 0
    mounted: bool = False
    obstacle: Obstacle | None = None


def check_increment(increment: Increment, loc: Loc, violations: Violations) -> None:
    """What one increment's fields must agree on (docs/rules.md#races; module docstring rulings).

    `on_fail` needs a `dc`, a mounted increment is the mount's `strength` check, and a hazard
    is never retried.
    """
    if increment.on_fail is not None and increment.dc is None:
        violations.add((*loc, "on_fail"), N_("on_fail needs a dc"))
    if increment.mounted and increment.check != FOOT_RACE_CHECK:
        violations.add((*loc, "check"), N_("a mounted increment uses the mount's strength check"))
    obstacle = increment.obstacle
    if obstacle is not None and obstacle.kind == "hazard" and obstacle.retry:
        violations.add((*loc, "obstacle", "retry"), N_("a hazard is never retried"))


def describe_increment(increment: Increment) -> str:
    """`strength`, `climb DC 14`, `mounted strength, obstacle jump DC 18` — for summaries."""
    words = f"mounted {increment.check}" if increment.mounted else increment.check
    if increment.dc is not None:
        words += f" DC {increment.dc}"
    if increment.modifier:
        words += f" {increment.modifier:+d}"
    obstacle = increment.obstacle
    if obstacle is not None:
        words += f", {obstacle.kind} {obstacle.check} DC {obstacle.dc}"
    return words


# --------------------------------------------------------------------------------------------
# Courses
# --------------------------------------------------------------------------------------------


def _strength(count: int) -> tuple[Increment, ...]:
    return tuple(Increment(check=FOOT_RACE_CHECK) for _ in range(count))


def _dakrothian_marathon() -> tuple[Increment, ...]:
    """docs/rules.md#races's table, 20 increments (the swim split 9-11, the tunnel 12-13)."""
    strength = Increment(check=FOOT_RACE_CHECK)
    climb = Increment(check="climb", dc=14, on_fail="retry")
    swim = Increment(check="swim", dc=15, on_fail="stall", drown_margin=5)
    mounted = Increment(check=FOOT_RACE_CHECK, mounted=True)
    return (
        strength,
        strength,
        Increment(
            check=FOOT_RACE_CHECK,
            obstacle=Obstacle(kind="obstacle", check="jump", dc=15, retry=True, damage="3d6"),
        ),
        climb,
        climb,
        climb,
        strength,
        Increment(
            check=FOOT_RACE_CHECK,
            obstacle=Obstacle(kind="hazard", check="jump", dc=12, damage="3d6"),
        ),
        swim,
        swim,
        swim,
        Increment(check="swim", dc=15, on_fail="stall", modifier=-1),
        Increment(check="swim", dc=15, on_fail="stall", modifier=-2),
        strength,
        strength,
        Increment(check=FOOT_RACE_CHECK, obstacle=Obstacle(kind="hazard", check="balance", dc=12)),
        strength,
        strength,
        mounted,
        Increment(
            check=FOOT_RACE_CHECK,
            mounted=True,
            obstacle=Obstacle(kind="obstacle", check="jump", dc=18, retry=False, damage="4d6"),
        ),
    )


#: docs/rules.md#race-presets.
PRESETS: Final[Mapping[Preset, tuple[Increment, ...]]] = {
    "dash": _strength(2),
    "typical": _strength(10),
    "marathon": _strength(20),
    "dakrothian-marathon": _dakrothian_marathon(),
}


# --------------------------------------------------------------------------------------------
# Configuration
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Course:
    """A course of one's own: its increments in order."""

    increments: tuple[Increment, ...]


@dataclass(frozen=True, slots=True)
class Config:
    """A race: its course (a preset's name, or a `Course`), the increments it comes to, racers."""

    course: Preset | Course
    #: The course's increments spelled out, a preset's too (derived from `course`).
    increments: tuple[Increment, ...] = field(init=False)
    competitors: tuple[Competitor, ...]
    damage_instead_of_forfeit: bool = False
    endurance_rule: bool = True
    #: None: no cap (module docstring, *Options*).
    max_retries: int | None = DEFAULT_MAX_RETRIES
    speed_bonus: SpeedBonusRule = "increment"
    pacing_rule: PacingRule = "safe-increments"

    def __post_init__(self) -> None:
        course = self.course
        increments = course.increments if isinstance(course, Course) else PRESETS[course]
        object.__setattr__(self, "increments", increments)

    @property
    def preset(self) -> Preset | None:
        """The preset's name, or None for a course of one's own."""
        return None if isinstance(self.course, Course) else self.course


def check_config(config: Config) -> None:
    """What a race's fields must agree on; `RulesError` lists every violation (docs/rules.md#races).

    Each increment's own fields (`check_increment`), one name per competitor, and a mount for
    everybody when the course has mounted increments.
    """
    violations = Violations()
    for index, increment in enumerate(config.increments):
        check_increment(increment, ("course", "increments", index), violations)
    seen: set[str] = set()
    for index, competitor in enumerate(config.competitors):
        if name_key(competitor.name) in seen:
            violations.add(
                ("competitors", index, "name"),
                m("two competitors named {name}", name=competitor.name),
            )
        seen.add(name_key(competitor.name))
    if any(increment.mounted for increment in config.increments):
        for index, competitor in enumerate(config.competitors):
            if competitor.mount is None:
                violations.add(
                    ("competitors", index, "mount"),
                    m(
                        "{name} needs a mount: the course has mounted increments",
                        name=competitor.name,
                    ),
                )
    violations.raise_if_any()


# --------------------------------------------------------------------------------------------
# The checks of one increment (shared with chases)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CheckRecord:
    """One d20 check made in an increment, for the round record."""

    kind: CheckKind
    check: str
    roll: int
    total: int
    dc: int | None = None
    success: bool | None = None


def speed_bonus(speed: int) -> int:
    """`2 * floor(speed / 10)` (docs/rules.md#races)."""
    return SPEED_BONUS_PER_STEP * (speed // SPEED_STEP_FT)


def movement_speed_bonus(competitor: Competitor, increment: Increment) -> int:
    """The speed bonus of the movement an increment makes: the mount's when mounted, else hers
    for the increment's check (module docstring, `speed_bonus`)."""
    if increment.mounted and competitor.mount is not None:
        return speed_bonus(competitor.mount.speed)
    return speed_bonus(competitor.speed_for(increment.check))


def every_roll_bonus(competitor: Competitor, increment: Increment, rule: SpeedBonusRule) -> int:
    """What `speed_bonus: every-roll` adds to an increment's other rolls (obstacle, hazard, Ride,
    Constitution); 0 with the default `increment`."""
    return movement_speed_bonus(competitor, increment) if rule == "every-roll" else 0


def ride_bonus(ride_total: int) -> int:
    """The mount's bonus from the rider's Ride check: +2/+4/+6 at 10/20/30 (docs/rules.md#races)."""
    for threshold, bonus in RIDE_BONUSES:
        if ride_total >= threshold:
            return bonus
    return 0


def increment_check_modifier(competitor: Competitor, increment: Increment, ride: int = 0) -> int:
    """Everything added to the increment check's d20 (docs/rules.md#the-increment-check).

    On foot: the check's modifier + speed bonus for that movement + the increment modifier, +2 Run
    on `strength` checks, ±2 pacing. Mounted: the mount's Strength modifier and speed bonus + the
    Ride bonus `ride` + the increment modifier ± pacing.
    """
    pacing = PACING_BONUS[competitor.pacing]
    if increment.mounted:
        mount = competitor.mount
        if mount is None:
            raise RulesError(m("{name} has no mount", name=competitor.name), ("mounted",))
        return mount.strength_mod + speed_bonus(mount.speed) + ride + increment.modifier + pacing
    run = RUN_BONUS if increment.check == FOOT_RACE_CHECK and competitor.has_feat(RUN_FEAT) else 0
    return (
        competitor.modifier(increment.check)
        + speed_bonus(competitor.speed_for(increment.check))
        + increment.modifier
        + run
        + pacing
    )


def endurance_dc(increments_raced: int) -> int:
    """DC `2 * increments raced so far` (docs/rules.md#endurance-in-long-races)."""
    return 2 * increments_raced


def endurance_check(
    competitor: Competitor,
    *,
    mounted: bool,
    increments_raced: int,
    mounted_increments_raced: int,
    endurance_rule: bool,
    dice: Dice,
    pacing_rule: PacingRule = "safe-increments",
    roll_bonus: int = 0,
) -> CheckRecord | None:
    """The long-race Constitution check due before an increment, or None (docs/rules.md#races).

    On foot the competitor checks (+4 Endurance) once `increments_raced` reaches her safe count,
    `con_score` +2 pacing / -2 sprinting; mounted, the mount does, counting only
    `mounted_increments_raced`, unless it is not living. A failure means she rests.
    With `pacing_rule: constitution-score` the +-2 changes the score itself, and so the
    modifier too; `roll_bonus` is the `speed_bonus: every-roll` bonus (`every_roll_bonus`).
    """
    due = endurance_due(
        competitor,
        mounted=mounted,
        increments_raced=increments_raced,
        mounted_increments_raced=mounted_increments_raced,
        endurance_rule=endurance_rule,
        pacing_rule=pacing_rule,
    )
    if due is None:
        return None
    con_modifier, dc = due
    roll = dice.d20(who=competitor.name, purpose=CONSTITUTION)
    total = roll + con_modifier + roll_bonus
    return CheckRecord("constitution", CONSTITUTION, roll, total, dc, total >= dc)


def endurance_due(
    competitor: Competitor,
    *,
    mounted: bool,
    increments_raced: int,
    mounted_increments_raced: int,
    endurance_rule: bool,
    pacing_rule: PacingRule = "safe-increments",
) -> tuple[int, int] | None:
    """The Constitution check `endurance_check` makes before an increment, as (its modifier
    before any roll bonus, its DC), or None when none is due: decided before any die."""
    if not endurance_rule:
        return None
    pacing = PACING_SAFE_INCREMENTS[competitor.pacing]
    if mounted:
        mount = competitor.mount
        if mount is None or not mount.living or mount.con_score is None:
            return None
        con_score, con_modifier, raced = (
            mount.con_score,
            mount.constitution_modifier,
            mounted_increments_raced,
        )
    else:
        if competitor.con_score is None:
            return None
        con_score, con_modifier, raced = (
            competitor.con_score,
            competitor.constitution_modifier,
            increments_raced,
        )
        if competitor.has_feat(ENDURANCE_FEAT):
            con_modifier += ENDURANCE_BONUS
    if pacing_rule == "constitution-score":
        con_modifier += ability_modifier(con_score + pacing) - ability_modifier(con_score)
        con_score += pacing
        pacing = 0
    if raced < con_score + pacing:
        return None
    return con_modifier, endurance_dc(raced)


def increment_needs(
    competitor: Competitor,
    increment: Increment,
    *,
    max_retries: int | None,
    damage_instead_of_forfeit: bool,
    sure: bool,
) -> dict[Key, Need]:
    """The dice `run_increment` may take from her in `increment` (docs/rules.md#races), from
    the increment alone: each obstacle or hazard attempt and each retry ("obstacle"), the
    damage of each failure, the Ride check when mounted, the increment check. With `sure`
    (nothing before it could stop her), the first of them is surely rolled; every later one
    depends on the dice before it."""
    name = competitor.name
    needs: dict[Key, Need] = {}
    obstacle = increment.obstacle
    # Attempts drawn from "obstacle": the obstacle's own (and its retries), then the retries
    # of a failed increment check with `on_fail: retry`. None: no cap.
    faced: int | None = 0
    if obstacle is not None:
        retried = obstacle.kind == "obstacle" and obstacle.retry and not damage_instead_of_forfeit
        faced = (None if max_retries is None else 1 + max_retries) if retried else 1
    rechecks: int | None = 0
    if increment.dc is not None and increment.on_fail == "retry":
        rechecks = max_retries
    attempts = None if faced is None or rechecks is None else faced + rechecks
    if obstacle is not None:
        needs[(name, OBSTACLE)] = Need(
            20,
            attempts,
            certain=1 if sure else 0,
            when=None if sure else "if she faces the obstacle",
        )
        if obstacle.damage is not None:
            needs[(name, DAMAGE)] = Need(
                0, faced, notation=obstacle.damage, when="if she fails the obstacle"
            )
        sure = False
    elif attempts is None or attempts > 0:
        needs[(name, OBSTACLE)] = Need(20, attempts, when="if she fails the check and retries")
    if increment.mounted:
        needs[(name, RIDE)] = Need(
            20, certain=1 if sure else 0, when=None if sure else "if she rides this increment"
        )
        sure = False
    needs[(name, CHECK)] = Need(
        20,
        certain=1 if sure else 0,
        when=None if sure else "if she makes the increment check",
    )
    return needs


@dataclass(frozen=True, slots=True)
class IncrementOutcome:
    """What one competitor's checks in one increment came to (docs/rules.md#races).

    `gained` is the DS added, after retry costs; `total` the increment check's total (None when
    she made none); `damage` the damage taken.
    """

    gained: int
    total: int | None
    forfeited: bool = False
    damage: int = 0
    drowning: bool = False
    events: tuple[str, ...] = ()
    checks: tuple[CheckRecord, ...] = ()


RESTED: Final = IncrementOutcome(gained=0, total=None, events=("rested",))
#: The event of an uncapped retry that no die can pass (docs/rules.md#obstacles-and-hazards).
IMPASSABLE: Final = "impassable"
#: The highest face of the d20 every check rolls.
D20_FACES: Final = 20


def can_pass(modifier: int, dc: int) -> bool:
    """Whether some d20 passes the check: a natural 20 is not automatic on a check
    (docs/rules.md#d20-checks), so `20 + modifier` must reach the DC."""
    return D20_FACES + modifier >= dc


class _Increment:
    """The checks of one competitor in one increment, in the order docs/rules.md#races gives
    them."""

    def __init__(
        self,
        competitor: Competitor,
        increment: Increment,
        dice: Dice,
        *,
        max_retries: int | None,
        damage_instead_of_forfeit: bool,
        speed_bonus: SpeedBonusRule,
    ) -> None:
        self.competitor = competitor
        self.increment = increment
        self.dice = dice
        self.max_retries = max_retries
        self.damage_instead_of_forfeit = damage_instead_of_forfeit
        #: Added to the obstacle, hazard and Ride checks (`speed_bonus: every-roll`).
        self.roll_bonus = every_roll_bonus(competitor, increment, speed_bonus)
        self.events: list[str] = []
        self.checks: list[CheckRecord] = []
        self.damage = 0
        self.retries = 0

    def outcome(
        self, gained: int, total: int | None, *, forfeited: bool = False, drowning: bool = False
    ) -> IncrementOutcome:
        if forfeited:
            self.events.append("forfeited")
        return IncrementOutcome(
            gained=gained - RETRY_COST * self.retries,
            total=total,
            forfeited=forfeited,
            damage=self.damage,
            drowning=drowning,
            events=tuple(self.events),
            checks=tuple(self.checks),
        )

    def d20_check(self, kind: CheckKind, check: str, purpose: str, modifier: int, dc: int) -> bool:
        roll = self.dice.d20(who=self.competitor.name, purpose=purpose)
        total = roll + modifier
        self.checks.append(CheckRecord(kind, check, roll, total, dc, total >= dc))
        return total >= dc

    def take_damage(self, expr: str | None) -> None:
        if expr is None:
            return
        rolled = self.dice.notation(expr, who=self.competitor.name, purpose=DAMAGE)
        # Ruling: damage below 0 counts as 0 (damage never heals).
        amount = max(rolled.total, 0)
        self.damage += amount
        self.events.append(f"damage {amount}")

    def retry_until_passed(
        self, attempt: Callable[[], bool], on_failure: Callable[[], None], *, passable: bool
    ) -> bool:
        """Retries at 10 DS each until one passes; False after `max_retries` failed retries.

        Without a cap (`max_retries` None) it goes on until one passes — unless no die can pass
        (`passable` False: a natural 20 plus the modifier is still below the DC), when no retry
        is made and she forfeits at once, the event `impassable` saying why
        (docs/rules.md#obstacles-and-hazards). Every attempt draws its die from `self.dice`,
        whose request budget still bounds a retry that could pass but keeps failing.
        """
        if self.max_retries is None and not passable:
            self.events.append(IMPASSABLE)
            return False
        attempts = itertools.count() if self.max_retries is None else range(self.max_retries)
        for _ in attempts:
            self.retries += 1
            self.events.append("retry")
            if attempt():
                return True
            on_failure()
        return False

    def play(self) -> IncrementOutcome:
        increment = self.increment
        obstacle = increment.obstacle
        if obstacle is not None:
            held_up = self.face_obstacle(obstacle)
            if held_up is not None:
                return held_up
        ride = 0
        if increment.mounted:
            roll = self.dice.d20(who=self.competitor.name, purpose=RIDE)
            total = roll + self.competitor.modifier(RIDE) + self.roll_bonus
            ride = ride_bonus(total)
            self.checks.append(CheckRecord("ride", RIDE, roll, total, None, None))
        modifier = increment_check_modifier(self.competitor, increment, ride)
        roll = self.dice.d20(who=self.competitor.name, purpose=CHECK)
        total = roll + modifier
        dc = increment.dc
        passed = dc is None or total >= dc
        self.checks.append(
            CheckRecord(
                "increment", increment.check, roll, total, dc, None if dc is None else passed
            )
        )
        if dc is None or passed:
            return self.outcome(total, total)
        target: int = dc
        self.events.append("check-failed")
        if increment.on_fail == "retry":
            # The failed check becomes an obstacle with retries (docs/rules.md#races).
            if self.retry_until_passed(
                lambda: self.d20_check("retry", increment.check, OBSTACLE, modifier, target),
                lambda: self.events.append("check-failed"),
                passable=can_pass(modifier, target),
            ):
                return self.outcome(0, total)
            return self.outcome(0, total, forfeited=True)
        drowning = target - total >= increment.drown_margin
        if drowning:
            self.events.append(DROWNING)
        return self.outcome(0, total, drowning=drowning)

    def face_obstacle(self, obstacle: Obstacle) -> IncrementOutcome | None:
        """The obstacle or hazard check; an outcome when it ends her increment, else None."""
        modifier = (
            self.competitor.modifier(obstacle.check) + self.increment.modifier + self.roll_bonus
        )

        def attempt() -> bool:
            return self.d20_check(obstacle.kind, obstacle.check, OBSTACLE, modifier, obstacle.dc)

        if attempt():
            return None
        if obstacle.kind == "hazard":
            self.events.append("hazard-failed")
            self.take_damage(obstacle.damage)
            if self.damage_instead_of_forfeit:
                return None
            return self.outcome(0, None)

        def failed() -> None:
            self.events.append("obstacle-failed")
            self.take_damage(obstacle.damage)

        failed()
        if self.damage_instead_of_forfeit:
            return None
        if obstacle.retry and self.retry_until_passed(
            attempt, failed, passable=can_pass(modifier, obstacle.dc)
        ):
            return self.outcome(0, None)
        return self.outcome(0, None, forfeited=True)


def run_increment(
    competitor: Competitor,
    increment: Increment,
    dice: Dice,
    *,
    max_retries: int | None = DEFAULT_MAX_RETRIES,
    damage_instead_of_forfeit: bool = False,
    speed_bonus: SpeedBonusRule = "increment",
) -> IncrementOutcome:
    """One competitor's checks in one increment, after any Constitution check (docs/rules.md#races).

    The obstacle or hazard first (damage on each failure; a hazard adds 0; an obstacle retries
    at 10 DS each, and forfeits without retry or after `max_retries` failed retries, None: no
    cap; with `damage_instead_of_forfeit` a failed obstacle or hazard costs only its damage),
    then the Ride check when mounted, then the increment check with its DC and `on_fail`.
    `speed_bonus: every-roll` adds the speed bonus to the obstacle, hazard and Ride checks too.
    """
    return _Increment(
        competitor,
        increment,
        dice,
        max_retries=max_retries,
        damage_instead_of_forfeit=damage_instead_of_forfeit,
        speed_bonus=speed_bonus,
    ).play()


# --------------------------------------------------------------------------------------------
# State and rounds
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class State:
    """docs/api.md#races state: increments done so far, DS, standing, damage and flags."""

    increment: int
    of: int
    ds: Mapping[str, int]
    standing: Mapping[str, Standing]
    damage: Mapping[str, int]
    flags: Mapping[str, tuple[str, ...]]
    #: The pacing a racer chose before the first increment (`choose_pacing`), by name; one
    #: not in it races at the pacing she was created with.
    pacing: Mapping[str, Pacing] = field(default_factory=dict)


def start(config: Config, dice: Dice) -> State:  # noqa: ARG001 - a race rolls nothing at the start
    """Everyone at DS 0, racing, before the first increment (docs/rules.md#races)."""
    names = [competitor.name for competitor in config.competitors]
    return State(
        increment=0,
        of=len(config.increments),
        ds=dict.fromkeys(names, 0),
        standing=dict.fromkeys(names, "racing"),
        damage=dict.fromkeys(names, 0),
        flags=dict.fromkeys(names, ()),
    )


def choose_pacing(config: Config, state: State, name: str, pacing: Pacing) -> State:
    """`name` races at `pacing` (docs/rules.md#races, "Pacing"): the source's choice "for the
    duration of the race", so it is made before the first increment, and may be changed until
    then; once an increment is played it is a `PhaseError`."""
    if not any(competitor.name == name for competitor in config.competitors):
        raise RulesError(m("{name} is not racing here", name=name), ("name",))
    if state.increment > 0:
        raise PhaseError(
            ng(
                "pacing is chosen for the whole race, before its first increment: "
                "{count} increment played",
                "pacing is chosen for the whole race, before its first increment: "
                "{count} increments played",
                state.increment,
            )
        )
    return replace(state, pacing={**state.pacing, name: pacing})


def pacing_of(config: Config, state: State) -> dict[str, Pacing]:
    """Every racer's pacing: the one she chose (`State.pacing`), else her creation's."""
    return {
        competitor.name: state.pacing.get(competitor.name, competitor.pacing)
        for competitor in config.competitors
    }


def raced_config(config: Config, state: State) -> Config:
    """`config` with every racer at the pacing she races at (`pacing_of`)."""
    if not state.pacing:
        return config
    pacing = pacing_of(config, state)
    return replace(
        config,
        competitors=tuple(
            replace(competitor, pacing=pacing[competitor.name]) for competitor in config.competitors
        ),
    )


def is_finished(state: State) -> bool:
    """After the last increment, or once nobody is racing (docs/rules.md#races)."""
    return state.increment >= state.of or all(
        standing == "forfeited" for standing in state.standing.values()
    )


def winners(state: State) -> tuple[str, ...]:
    """The highest DS among those who did not forfeit; several on a tie (docs/rules.md#races)."""
    racing = [name for name, standing in state.standing.items() if standing == "racing"]
    if not racing:
        return ()
    best = max(state.ds[name] for name in racing)
    return tuple(name for name in racing if state.ds[name] == best)


@dataclass(frozen=True, slots=True)
class CompetitorRound:
    """One competitor's line in a round record (docs/api.md#races)."""

    name: str
    gained: int
    total: int | None
    ds: int
    standing: Standing
    events: tuple[str, ...]
    checks: tuple[CheckRecord, ...]


@dataclass(frozen=True, slots=True)
class Round:
    """An increment's record: docs/api.md#races fields (plus `increment`) but
    number/rolls/summary."""

    increment: int
    competitors: tuple[CompetitorRound, ...]
    finished: bool
    winners: tuple[str, ...]


def _next_increment(config: Config, state: State) -> tuple[Config, int, Increment, int]:
    """The race as raced (`raced_config`), the next increment's index and the increment, and
    the mounted increments already played (the mounts' count for endurance)."""
    raced = raced_config(config, state)
    index = state.increment
    mounted_raced = sum(1 for earlier in raced.increments[:index] if earlier.mounted)
    return raced, index, raced.increments[index], mounted_raced


def dice_needs(config: Config, state: State) -> dict[Key, Need]:
    """The dice the next increment may take, from the state alone
    (docs/rules.md#supplied-and-server-dice): from every competitor still racing, her
    Constitution die when its check is due (surely rolled), then what `increment_needs`
    lists; nothing from one who has forfeited."""
    if is_finished(state):
        return {}
    config, index, increment, mounted_raced = _next_increment(config, state)
    needs: dict[Key, Need] = {}
    for competitor in config.competitors:
        if state.standing[competitor.name] == "forfeited":
            continue
        due = endurance_due(
            competitor,
            mounted=increment.mounted,
            increments_raced=index,
            mounted_increments_raced=mounted_raced,
            endurance_rule=config.endurance_rule,
            pacing_rule=config.pacing_rule,
        )
        if due is not None:
            needs[(competitor.name, CONSTITUTION)] = Need(20, certain=1)
        needs.update(
            increment_needs(
                competitor,
                increment,
                max_retries=config.max_retries,
                damage_instead_of_forfeit=config.damage_instead_of_forfeit,
                sure=due is None,
            )
        )
    return needs


def play_round(config: Config, state: State, dice: Dice) -> tuple[State, Round]:
    """Play the next increment for every competitor still racing (docs/rules.md#races), each at
    the pacing she races at (`raced_config`).

    Each makes the Constitution check when due (failing, she rests: 0 DS, no other check), then
    `run_increment`. Forfeited competitors are listed with their standing and no checks.
    """
    if is_finished(state):
        raise PhaseError(N_("the race is finished"))
    config, index, increment, mounted_raced = _next_increment(config, state)
    ds, standing = dict(state.ds), dict(state.standing)
    damage, flags = dict(state.damage), dict(state.flags)
    lines: list[CompetitorRound] = []
    for competitor in config.competitors:
        name = competitor.name
        if standing[name] == "forfeited":
            lines.append(CompetitorRound(name, 0, None, ds[name], "forfeited", (), ()))
            continue
        constitution = endurance_check(
            competitor,
            mounted=increment.mounted,
            increments_raced=index,
            mounted_increments_raced=mounted_raced,
            endurance_rule=config.endurance_rule,
            dice=dice,
            pacing_rule=config.pacing_rule,
            roll_bonus=every_roll_bonus(competitor, increment, config.speed_bonus),
        )
        if constitution is not None and not constitution.success:
            outcome = RESTED
        else:
            outcome = run_increment(
                competitor,
                increment,
                dice,
                max_retries=config.max_retries,
                damage_instead_of_forfeit=config.damage_instead_of_forfeit,
                speed_bonus=config.speed_bonus,
            )
        checks = outcome.checks if constitution is None else (constitution, *outcome.checks)
        ds[name] += outcome.gained
        damage[name] += outcome.damage
        if outcome.forfeited:
            standing[name] = "forfeited"
        if outcome.drowning and DROWNING not in flags[name]:
            flags[name] = (*flags[name], DROWNING)
        lines.append(
            CompetitorRound(
                name,
                outcome.gained,
                outcome.total,
                ds[name],
                standing[name],
                outcome.events,
                checks,
            )
        )
    new_state = State(
        increment=index + 1,
        of=state.of,
        ds=ds,
        standing=standing,
        damage=damage,
        flags=flags,
        pacing=state.pacing,
    )
    finished = is_finished(new_state)
    return new_state, Round(
        increment=index + 1,
        competitors=tuple(lines),
        finished=finished,
        winners=winners(new_state) if finished else (),
    )


# --------------------------------------------------------------------------------------------
# Presentation
# --------------------------------------------------------------------------------------------


def describe_outcome(line: CompetitorRound) -> Message:
    """`Ann +24 (DS 60)`, `Bob rested (DS 30)`, `Cid forfeited (DS 20)` — for summaries.

    The notes in brackets are the record's `events`, as the JSON names them."""
    notes = [event for event in line.events if event not in ("forfeited", "rested")]
    if "forfeited" in line.events:
        head = m("{name} forfeited", name=line.name)
    elif "rested" in line.events:
        head = m("{name} rested", name=line.name)
    else:
        head = m("{name} {gained}", name=line.name, gained=Signed(line.gained))
    if notes:
        return m("{head} [{notes}] (DS {ds})", head=head, notes=Listing(notes), ds=line.ds)
    return m("{head} (DS {ds})", head=head, ds=line.ds)


def round_message(config: Config, state_after: State, round: Round) -> Message:
    """One line for the Discord bot, e.g. `Increment 3/20 (strength): Ann +24 (DS 60); …`."""
    increment = config.increments[round.increment - 1]
    racers = Listing(
        [
            describe_outcome(line)
            for line in round.competitors
            if line.checks or line.events or line.standing == "racing"
        ],
        "; ",
    )
    head: dict[str, Argument] = {
        "number": round.increment,
        "of": state_after.of,
        "increment": describe_increment(increment),
        "racers": racers,
    }
    if not round.finished:
        return m("Increment {number}/{of} ({increment}): {racers}.", **head)
    won = round.winners
    if not won:
        return m(
            "Increment {number}/{of} ({increment}): {racers}. Race over: nobody finished.", **head
        )
    best = state_after.ds[won[0]]
    if len(won) == 1:
        return m(
            "Increment {number}/{of} ({increment}): {racers}. {winner} wins the race with DS {ds}.",
            **head,
            winner=won[0],
            ds=best,
        )
    return m(
        "Increment {number}/{of} ({increment}): {racers}. Tie between {winners} at DS {ds}.",
        **head,
        winners=Listing(list(won), "and"),
        ds=best,
    )


def round_summary(config: Config, state_after: State, round: Round) -> str:
    """`round_message` in English."""
    return english(round_message(config, state_after, round))


def session_message(config: Config, state: State) -> Message:
    """`Race (dash): increment 1 of 2 done; Ann 18, Bob 15.` or who won."""
    board = Listing(
        [
            m("{name} {score} (forfeited)", name=racer, score=score)
            if state.standing[racer] == "forfeited"
            else m("{name} {score}", name=racer, score=score)
            for racer, score in sorted(state.ds.items(), key=lambda item: -item[1])
        ]
    )
    head: dict[str, Argument] = {
        "course": config.preset or term(CUSTOM_COURSE),
        "board": board,
    }
    if not is_finished(state):
        return m(
            "Race ({course}): increment {number} of {of} done; {board}.",
            **head,
            number=state.increment,
            of=state.of,
        )
    won = winners(state)
    if not won:
        return m("Race ({course}) over: nobody finished; {board}.", **head)
    if len(won) == 1:
        return m("Race ({course}) over: {winner} wins; {board}.", **head, winner=won[0])
    return m(
        "Race ({course}) over: tie between {winners}; {board}.", **head, winners=Listing(list(won))
    )


#: A course of the GM's own, as a session's summary names it.
CUSTOM_COURSE = N_("custom course")
