"""Odds of a chase over known terrain (docs/rules.md#chases, docs/rules.md#odds): exact over the
lead, else Monte Carlo.

The terrain is the same every increment and the escapee follows a tactic policy (`none` or
`hide-when-possible`, as `resolve` takes them). The exact method walks the chase increment by
increment over every live lead (1 to 29), with the increment's transitions taken from the
rules' own functions, enumerated die by die (`enumeration.outcomes`):

- each side's Constitution check when due (`races.endurance_check`, as `play_round` calls it);
- each side's increment (`races.run_increment`: obstacle, retries, Ride, the check, forfeits);
- the hide contest (`chases._hide`, the function `play_round` uses);
- the tactic (`chases.choose_tactic`) and the end (`chases._status_after`) for each lead.

Those parts are independent given who rests, so a transition's probability is their product;
`play_round` composes them in the same order (tests compare both, die by die, on small chases).
The odds at a choice of the next increment (`choices_odds`) walk the options that leave the same
state but for the lead together: one integer per lead holds every option's numerator, each in
a slot of its own.
Past `EXACT_BUDGET` (steps of leads x transitions, weighted by the weights' length), or when
an enumeration has no bound (retries without `max_retries`), the odds are estimated by playing
`play_round` itself with seeded dice, within `SIMULATION_BUDGET` increments.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from math import lcm
from typing import Final, Literal

from app.rules import chases as rules
from app.rules import races
from app.rules.common import MAX_OPPOSED_REROLLS
from app.rules.dice import MAX_DICE_PER_REQUEST, Dice, DiceBudget, SeededRng, WorkLimitExceeded
from app.rules.errors import PhaseError, RulesError
from app.rules.messages import N_
from app.rules.odds.enumeration import TooLarge, no_damage, outcomes
from app.rules.odds.simulation import Estimate, estimate

#: Most work an exact walk may do, in lead x transition steps weighted by the length of the
#: weights in 64-bit words (they grow by every increment's scale): about 0.1 s on one core.
EXACT_BUDGET: Final = 10_000_000
#: Most increments a Monte Carlo estimate plays (about 0.15 s of work on one core).
SIMULATION_BUDGET: Final = 4_000
#: Most runs of the rules one side's increment (or the hide contest) may be enumerated with.
ENUMERATION_BUDGET: Final = 5_000
D20: Final = 20

Policy = Literal["none", "hide-when-possible"]
End = Literal["caught", "escaped", "hid", "gave-up"]


@dataclass(frozen=True, slots=True)
class ChaseOdds:
    """Exact: `caught`, `escaped` (by the lead or by hiding), `hid` (the part of `escaped`
    won by hiding), `gave_up` (still on at `max_rounds`) and the expected increments of the
    whole chase (those already played included)."""

    caught: Fraction
    escaped: Fraction
    hid: Fraction
    gave_up: Fraction
    expected_increments: Fraction


@dataclass(frozen=True, slots=True)
class ChaseEstimate:
    """A Monte Carlo estimate of the same, with standard errors, trials and seed."""

    caught: Estimate
    escaped: Estimate
    hid: Estimate
    gave_up: Estimate
    expected_increments: float
    trials: int
    seed: int


#: A side's increment: (DS gained, forfeited) -> probability.
Gains = dict[tuple[int, bool], Fraction]
_REST: Final[Gains] = {(0, False): Fraction(1)}


def _gains(config: rules.Config, side: races.Competitor, terrain: rules.Terrain) -> Gains:
    gains: Gains = {}
    for outcome, probability in outcomes(
        lambda dice: races.run_increment(
            side,
            terrain.increment,
            dice,
            max_retries=config.max_retries,
            damage_instead_of_forfeit=config.damage_instead_of_forfeit,
            speed_bonus=config.speed_bonus,
        ),
        ENUMERATION_BUDGET,
    ):
        key = (outcome.gained, "forfeited" in outcome.events)
        gains[key] = gains.get(key, Fraction(0)) + probability
    return gains


def _passes_constitution(
    config: rules.Config, side: races.Competitor, terrain: rules.Terrain, raced: int, mounted: int
) -> Fraction:
    """The probability that `side` does not rest this increment (1 when no check is due)."""
    increment = terrain.increment
    passed = Fraction(0)
    for record, probability in outcomes(
        lambda dice: races.endurance_check(
            side,
            mounted=increment.mounted,
            increments_raced=raced,
            mounted_increments_raced=mounted,
            endurance_rule=config.endurance_rule,
            dice=dice,
            roll_bonus=races.every_roll_bonus(side, increment, config.speed_bonus),
        )
    ):
        if record is None or record.success:
            passed += probability
    return passed


def _hide_wins(config: rules.Config) -> Fraction:
    """The probability that the escapee wins the hide contest (`chases._hide`).

    With different modifiers one pair of rolls decides (`opposed_check`), and it is enumerated
    through `_hide` itself. With equal modifiers a tie is rolled again, up to
    `MAX_OPPOSED_REROLLS` times, then goes to the chaser (`common.opposed_check`'s rule): a
    tree too deep to enumerate, so one pair of rolls is enumerated and the rerolls summed as
    the geometric series they are.
    """
    hide = config.escapee.modifier(rules.HIDE)
    if hide != config.chaser.modifier(rules.SPOT):
        won = Fraction(0)
        for record, probability in outcomes(
            lambda dice: rules._hide(config, dice, escapee_rests=False, chaser_rests=False)
        ):
            if record.success:
                won += probability
        return won
    faces = range(1, D20 + 1)
    wins = Fraction(sum(first > second for first in faces for second in faces), D20 * D20)
    tie = Fraction(1, D20)
    return wins * sum((tie**reroll for reroll in range(1 + MAX_OPPOSED_REROLLS)), Fraction(0))


#: A transition: (lead change, how the increment ends the chase or None) -> probability;
#: "forfeit-escapee" / "forfeit-chaser" / "hid" are settled before the lead is looked at.
Step = tuple[int, str | None]


def _combine(
    escapee: Gains, chaser: Gains, weight: Fraction, into: dict[Step, Fraction], cost: int = 0
) -> None:
    for (gained_e, forfeit_e), p_e in escapee.items():
        for (gained_c, forfeit_c), p_c in chaser.items():
            tag = "forfeit-escapee" if forfeit_e else "forfeit-chaser" if forfeit_c else None
            key = (gained_e - gained_c - cost, tag)
            into[key] = into.get(key, Fraction(0)) + weight * p_e * p_c


def _transitions(
    hide: bool,
    pass_e: Fraction,
    pass_c: Fraction,
    gains_e: Gains,
    gains_c: Gains,
    hide_wins: Fraction,
) -> dict[Step, Fraction]:
    """One increment's transitions, composed as `play_round` composes its parts."""
    into: dict[Step, Fraction] = {}
    for e_rests, p_e in ((False, pass_e), (True, 1 - pass_e)):
        for c_rests, p_c in ((False, pass_c), (True, 1 - pass_c)):
            weight = p_e * p_c
            if not weight:
                continue
            escapee = _REST if e_rests else gains_e
            chaser = _REST if c_rests else gains_c
            if hide and not e_rests:
                # A resting chaser cannot spot: the hide succeeds. Else the contest decides;
                # losing it, the escapee adds 0 while the chaser runs.
                won = Fraction(1) if c_rests else hide_wins
                if won:
                    into[(0, "hid")] = into.get((0, "hid"), Fraction(0)) + weight * won
                if won != 1:
                    _combine(_REST, chaser, weight * (1 - won), into)
                continue
            _combine(escapee, chaser, weight, into)
    return into


def _hazard_holds(config: rules.Config, tactic: rules.CreateHazard, chaser_rests: bool) -> Fraction:
    """The probability that a hazard is created and holds the chaser up (`chases._hazard`,
    enumerated: a Dexterity d20, then the chaser's d20)."""
    held = Fraction(0)
    for record, probability in outcomes(
        lambda dice: rules._hazard(
            config, tactic, dice, escapee_rests=False, chaser_rests=chaser_rests
        )
    ):
        if record.success and record.chaser_total is not None:
            held += probability
    return held


def _hazard_transitions(
    config: rules.Config,
    tactic: rules.CreateHazard,
    pass_e: Fraction,
    pass_c: Fraction,
    gains_e: Gains,
    gains_c: Gains,
) -> dict[Step, Fraction]:
    """One increment's transitions with a hazard, composed as `play_round` composes them: a
    resting escapee makes none (and pays nothing); else she pays `hazard_base_cost + p`, and a
    chaser it holds up adds 0 and makes no other check."""
    into: dict[Step, Fraction] = {}
    cost = config.hazard_base_cost + tactic.penalty
    for e_rests, p_e in ((False, pass_e), (True, 1 - pass_e)):
        for c_rests, p_c in ((False, pass_c), (True, 1 - pass_c)):
            weight = p_e * p_c
            if not weight:
                continue
            chaser = _REST if c_rests else gains_c
            if e_rests:
                _combine(_REST, chaser, weight, into)
                continue
            held = _hazard_holds(config, tactic, c_rests)
            if held:
                _combine(gains_e, _REST, weight * held, into, cost)
            if held != 1:
                _combine(gains_e, chaser, weight * (1 - held), into, cost)
    return into


def next_increment(
    config: rules.Config, state: rules.State, first: rules.RoundInput
) -> dict[Step, Fraction]:
    """The transitions of the next increment played with `first` (its terrain and tactic),
    its dice unknown: (lead change, how it ends the chase or None) -> probability."""
    terrain = first.terrain
    escapee, chaser = config.escapee, config.chaser
    gains_e, gains_c = _gains(config, escapee, terrain), _gains(config, chaser, terrain)
    raced, mounted = state.increments, state.mounted_increments
    pass_e = _passes_constitution(config, escapee, terrain, raced, mounted)
    pass_c = _passes_constitution(config, chaser, terrain, raced, mounted)
    tactic = first.tactic
    if isinstance(tactic, rules.CreateHazard):
        return _hazard_transitions(config, tactic, pass_e, pass_c, gains_e, gains_c)
    hide = isinstance(tactic, rules.Hide)
    hide_wins = _hide_wins(config) if hide else Fraction(0)
    return _transitions(hide, pass_e, pass_c, gains_e, gains_c, hide_wins)


def _status(config: rules.Config, lead: int, increments: int, tag: str | None) -> End | None:
    status = rules._status_after(
        config,
        lead=lead,
        increments=increments,
        hid=tag == "hid",
        escapee_forfeited=tag == "forfeit-escapee",
        chaser_forfeited=tag == "forfeit-chaser",
    )
    return status


def _finished(state: rules.State) -> ChaseOdds:
    detail = state.status_detail
    one, zero = Fraction(1), Fraction(0)
    return ChaseOdds(
        caught=one if detail == "caught" else zero,
        escaped=one if detail in ("escaped", "hid") else zero,
        hid=one if detail == "hid" else zero,
        gave_up=one if detail == "gave-up" else zero,
        expected_increments=Fraction(state.increments),
    )


def exact_odds(
    config: rules.Config,
    state: rules.State,
    terrain: rules.Terrain,
    policy: Policy,
    budget: int = EXACT_BUDGET,
    leads: Mapping[int, Fraction] | None = None,
) -> ChaseOdds:
    """The exact odds from `state` on (or from each of `leads`, with its probability, and
    `state`'s other fields); raises `TooLarge` past `budget` steps."""
    if rules.is_finished(state):
        return _finished(state)
    if leads is None:
        leads = {state.lead: Fraction(1)}
    (walked,) = _walk(config, state, terrain, policy, budget, [leads])
    return walked


#: A table's steps from one lead, compiled: those going on (the lead after, the count out of
#: the table's scale), then those ending the chase (how, the count).
Compiled = tuple[tuple[tuple[int, int], ...], tuple[tuple[End, int], ...]]


def _walk(
    config: rules.Config,
    state: rules.State,
    terrain: rules.Terrain,
    policy: Policy,
    budget: int,
    starts: Sequence[Mapping[int, Fraction]],
) -> list[ChaseOdds]:
    """The walk of `exact_odds` from several distributions of the lead at once (`state`'s
    other fields shared), one answer each, not normalised: each answer is `exact_odds` from its
    distribution made to sum to 1, times its sum, and its `expected_increments` counts
    `state.increments` once per unit of that sum (so an answer from a distribution of sum 1 is
    `exact_odds` itself).

    The transitions are the same for every distribution, so their weights are walked together:
    one integer per lead holds every distribution's numerator, each in a slot of `slot` bits
    (wide enough for the denominator times the increments walked; widened when it no longer
    is). `budget` is for each distribution: the steps are counted once for each."""
    count = len(starts)
    escapee, chaser = config.escapee, config.chaser
    gains_e, gains_c = _gains(config, escapee, terrain), _gains(config, chaser, terrain)
    hide_wins = _hide_wins(config)
    denominator = lcm(*(p.denominator for leads in starts for p in leads.values()))
    slot = 2 * denominator.bit_length() + 64
    layer: dict[int, int] = {}
    for index, leads in enumerate(starts):
        for lead, p in leads.items():
            if p:
                layer[lead] = layer.get(lead, 0) + (int(p * denominator) << (index * slot))
    ends: Counter[End] = Counter()
    # Numerators over `denominator`, packed as the layer's weights.
    ended: dict[End, int] = dict.fromkeys(("caught", "escaped", "hid", "gave-up"), 0)
    expected = 0  # increments to come, over `denominator` like the ends
    raced, mounted = state.increments, state.mounted_increments
    steps = 0
    tables: dict[tuple[bool, Fraction, Fraction], tuple[int, list[tuple[Step, int]]]] = {}
    compiled: dict[tuple[int, bool, Fraction, Fraction, bool], Compiled] = {}
    tactics: dict[int, bool] = {}
    while layer and raced < config.max_rounds:
        expected += sum(layer.values())
        pass_e = _passes_constitution(config, escapee, terrain, raced, mounted)
        pass_c = _passes_constitution(config, chaser, terrain, raced, mounted)
        for hide in (False, True):
            key = (hide, pass_e, pass_c)
            if key not in tables:
                steps_of = _transitions(hide, pass_e, pass_c, gains_e, gains_c, hide_wins)
                common = lcm(*(p.denominator for p in steps_of.values()))
                tables[key] = (
                    common,
                    [(step, int(p * common)) for step, p in steps_of.items() if p],
                )
        # Both tables of a layer share one denominator: the larger scale is a multiple of the
        # other's? Not in general, so each is brought to their lcm.
        scale_none, table_none = tables[(False, pass_e, pass_c)]
        scale_hide, table_hide = tables[(True, pass_e, pass_c)]
        scale = lcm(scale_none, scale_hide)
        raced += 1
        mounted += 1 if terrain.increment.mounted else 0
        last = raced >= config.max_rounds
        if count > 1 and (denominator * scale).bit_length() + 64 > slot:
            wider = 2 * (denominator * scale).bit_length() + 64
            layer = {lead: _widen(w, count, slot, wider) for lead, w in layer.items()}
            ended = {end: _widen(w, count, slot, wider) for end, w in ended.items()}
            expected = _widen(expected, count, slot, wider)
            slot = wider
        # A step's cost grows with the weights' length (the denominator's): counted in words.
        size = count * (1 + denominator.bit_length() // 64)
        following: dict[int, int] = {}
        ends.clear()
        for lead, weight in layer.items():
            hides = tactics.get(lead)
            if hides is None:
                tactic = rules.choose_tactic(config, replace(state, lead=lead), terrain, policy)
                hides = tactics[lead] = isinstance(tactic, rules.Hide)
            factor = weight * (scale // (scale_hide if hides else scale_none))
            moves = compiled.get((lead, hides, pass_e, pass_c, last))
            if moves is None:
                moves = compiled[(lead, hides, pass_e, pass_c, last)] = _compile(
                    config, lead, table_hide if hides else table_none, raced
                )
            going, ending = moves
            steps += (len(going) + len(ending)) * size
            if steps > budget * count:
                raise TooLarge
            for after, times in going:
                following[after] = following.get(after, 0) + factor * times
            for end, times in ending:
                ends[end] += factor * times
        denominator *= scale
        # The ends so far, over the new denominator (one Fraction each at the end: adding
        # Fractions every increment spent most of the walk in gcds of long numbers).
        for end in ended:
            ended[end] = ended[end] * scale + ends[end]
        expected *= scale
        layer = following
    mask = (1 << slot) - 1
    answers: list[ChaseOdds] = []
    for index, leads in enumerate(starts):
        at = index * slot

        def part(weight: int, at: int = at) -> int:
            return (weight >> at) & mask if count > 1 else weight

        mass = sum(leads.values(), Fraction(0))
        hid = part(ended["hid"])
        answers.append(
            ChaseOdds(
                caught=Fraction(part(ended["caught"]), denominator),
                escaped=Fraction(part(ended["escaped"]) + hid, denominator),
                hid=Fraction(hid, denominator),
                gave_up=Fraction(part(ended["gave-up"]), denominator),
                expected_increments=mass * state.increments + Fraction(part(expected), denominator),
            )
        )
    return answers


def _compile(
    config: rules.Config, lead: int, table: list[tuple[Step, int]], raced: int
) -> Compiled:
    """`table`'s steps from `lead` at `raced` increments: where each goes, or how it ends
    (`_status`, the rules' `_status_after`, reads the increments only against `max_rounds`, so
    one compiled table serves every increment before the last)."""
    going: list[tuple[int, int]] = []
    ending: list[tuple[End, int]] = []
    for (change, tag), times in table:
        after = lead + change
        end = _status(config, after, raced, tag)
        if end is None:
            going.append((after, times))
        else:
            ending.append((end, times))
    return tuple(going), tuple(ending)


def _widen(weight: int, count: int, slot: int, wider: int) -> int:
    """`weight`'s `count` slots of `slot` bits, each moved to a slot of `wider` bits."""
    mask = (1 << slot) - 1
    widened = 0
    for index in range(count):
        widened |= ((weight >> (index * slot)) & mask) << (index * wider)
    return widened


def simulated_odds(
    config: rules.Config,
    state: rules.State,
    terrain: rules.Terrain,
    policy: Policy,
    seed: int,
    budget: int = SIMULATION_BUDGET,
    trials_asked: int | None = None,
    first: rules.RoundInput | None = None,
) -> ChaseEstimate:
    """Play the chase from `state` with `play_round` and seeded dice until `budget`
    increments are spent (at least one trial), or `trials_asked` times; the request's work
    limit of dice stops it sooner. With `first`, every trial's next increment is `first` (its
    terrain and tactic), the ones after it `terrain` under `policy`."""
    rng = SeededRng(seed, "odds:chase")
    # The resolution's own work limit: a chase that cannot end within it is refused alike.
    work = DiceBudget(MAX_DICE_PER_REQUEST)
    results: Counter[str] = Counter()
    played = trials = total = 0
    while (played < budget if trials_asked is None else trials < trials_asked) or trials == 0:
        here, opening = state, first
        try:
            while not rules.is_finished(here):
                if opening is None:
                    tactic = rules.choose_tactic(config, here, terrain, policy)
                    round_input = rules.RoundInput(terrain, tactic)
                else:
                    round_input, opening = opening, None
                dice = Dice(rng, notation=no_damage, budget=work)
                here, _ = rules.play_round(config, here, round_input, dice)
                played += 1
        except WorkLimitExceeded:
            if trials == 0:
                raise
            break
        trials += 1
        total += here.increments
        results[here.status_detail or ""] += 1
    return ChaseEstimate(
        caught=estimate(results["caught"], trials),
        escaped=estimate(results["escaped"] + results["hid"], trials),
        hid=estimate(results["hid"], trials),
        gave_up=estimate(results["gave-up"], trials),
        expected_increments=total / trials,
        trials=trials,
        seed=seed,
    )


def starting_states(config: rules.Config) -> list[tuple[rules.State, Fraction]]:
    """The chase's possible starts (`start`, enumerated), given that it starts at all (an
    initiative roll giving no lead is refused at creation)."""
    starts: list[tuple[rules.State, Fraction]] = []
    for result, probability in outcomes(lambda dice: _start_or_none(config, dice)):
        if result is not None:
            starts.append((result, probability))
    valid = sum((p for _, p in starts), Fraction(0))
    return [(state, p / valid) for state, p in starts]


def _start_or_none(config: rules.Config, dice: Dice) -> rules.State | None:
    try:
        return rules.start(config, dice)
    except RulesError:
        return None


def check_terrain(config: rules.Config, terrain: rules.Terrain) -> None:
    """The terrain as a round body's (`check_round_input`), and mounted terrain needs both
    sides mounted (`validate_round`'s check, whatever the lead)."""
    rules.check_round_input(rules.RoundInput(terrain))
    rules.validate_round(
        config, rules.State(lead=rules.HIDE_MIN_LEAD, ds={}), rules.RoundInput(terrain)
    )


def chase_odds(
    config: rules.Config,
    state: rules.State | None,
    terrain: rules.Terrain,
    policy: Policy,
    seed: int = 0,
    trials: int | None = None,
) -> ChaseOdds | ChaseEstimate:
    """Exact odds when the walk fits its budget, else a seeded estimate (docs/rules.md#odds)
    of `trials` trials when asked (each start of an initiative mixture gets as many).

    `state` None: from the chase's start (an initiative start is a mixture over its rolls).
    """
    if state is not None:
        try:
            return exact_odds(config, state, terrain, policy)
        except TooLarge:
            return simulated_odds(config, state, terrain, policy, seed, trials_asked=trials)
    starts = starting_states(config)
    # A start of 30 or more has escaped already; the others are walked together.
    escaped = sum((p for begin, p in starts if rules.is_finished(begin)), Fraction(0))
    leads = {begin.lead: p for begin, p in starts if not rules.is_finished(begin)}
    first = starts[0][0]
    if not leads:
        return _finished(first)
    live = replace(first, lead=next(iter(leads)), status_detail=None)
    try:
        walked = exact_odds(config, live, terrain, policy, leads=leads)
    except TooLarge:
        estimates = [
            (
                simulated_odds(
                    config, begin, terrain, policy, seed, SIMULATION_BUDGET // 4, trials
                ),
                p,
            )
            for begin, p in starts
            if not rules.is_finished(begin)
        ]
        mixed = _mix_estimates(estimates, seed)
        return replace(
            mixed,
            escaped=Estimate(
                mixed.escaped.probability + float(escaped), mixed.escaped.standard_error
            ),
        )
    return replace(walked, escaped=walked.escaped + escaped)


def _mix_estimates(parts: list[tuple[ChaseEstimate, Fraction]], seed: int) -> ChaseEstimate:
    """Estimates of each start, weighed by the start's probability (stratified)."""

    def mixed(name: str) -> Estimate:
        probability = sum(float(p) * getattr(e, name).probability for e, p in parts)
        variance = sum((float(p) * getattr(e, name).standard_error) ** 2 for e, p in parts)
        return Estimate(probability, variance**0.5)

    return ChaseEstimate(
        caught=mixed("caught"),
        escaped=mixed("escaped"),
        hid=mixed("hid"),
        gave_up=mixed("gave_up"),
        expected_increments=sum(float(p) * e.expected_increments for e, p in parts),
        trials=sum(e.trials for e, _ in parts),
        seed=seed,
    )


def choice_odds(
    config: rules.Config,
    state: rules.State,
    first: rules.RoundInput,
    terrain: rules.Terrain,
    policy: Policy,
    seed: int = 0,
) -> ChaseOdds | ChaseEstimate:
    """The odds of the chase whose next increment is `first` (docs/rules.md#odds): that
    increment's terrain and tactic chosen, its dice unknown, and the increments after it on
    `terrain` under `policy`, as `chase_odds` from the state each of its outcomes leaves.

    Raises what `play_round` would for `first` (`validate_round`; a finished chase). Exact when
    the walk fits its budget, else a seeded estimate playing `first`, then the policy.
    """
    return choices_odds(config, state, [(first, terrain)], policy, seed)[0]


def choices_odds(
    config: rules.Config,
    state: rules.State,
    options: Sequence[tuple[rules.RoundInput, rules.Terrain]],
    policy: Policy,
    seed: int = 0,
) -> list[ChaseOdds | ChaseEstimate]:
    """`choice_odds` of each option (its next increment, the terrain after it), in one go: the
    options whose increments after the first are walked alike (the same terrain, the same
    increments raced) differ only in the lead the first leaves, so they are walked together
    (`_walk`). A group whose walk passes the budget (`EXACT_BUDGET` for each of its options)
    is answered option by option, as `choice_odds` alone would: exact when its own walk fits,
    else estimated."""
    if rules.is_finished(state):
        raise PhaseError(N_("the chase is over"))
    for first, _ in options:
        rules.validate_round(config, state, first)
    answers: list[ChaseOdds | ChaseEstimate | None] = [None] * len(options)
    firsts: dict[int, First] = {}
    groups: dict[tuple[rules.Terrain, int, int], list[int]] = {}
    for index, (first, terrain) in enumerate(options):
        try:
            firsts[index] = begun = _first_increment(config, state, first)
        except TooLarge:  # an increment whose dice cannot be enumerated
            answers[index] = simulated_odds(config, state, terrain, policy, seed, first=first)
            continue
        after, _, leads = begun
        if leads:
            key = (terrain, after.increments, after.mounted_increments)
            groups.setdefault(key, []).append(index)
        else:  # the next increment ends the chase whatever its dice
            answers[index] = _compose(begun, None)
    for (terrain, _, _), members in groups.items():
        walked: list[ChaseOdds | ChaseEstimate] = []
        try:
            walked.extend(_walk_from(config, [firsts[index] for index in members], terrain, policy))
        except TooLarge:
            # Each alone, as `choice_odds` answers it: exact if its own walk fits.
            for index in members:
                first, _ = options[index]
                try:
                    walked.extend(_walk_from(config, [firsts[index]], terrain, policy))
                except TooLarge:
                    walked.append(simulated_odds(config, state, terrain, policy, seed, first=first))
        for index, odds in zip(members, walked, strict=True):
            answers[index] = (
                odds if isinstance(odds, ChaseEstimate) else _compose(firsts[index], odds)
            )
    return [answer for answer in answers if answer is not None]


#: The next increment of a choice: the state it leaves (its lead aside), how likely it ends
#: the chase each way, and the leads it leaves the chase going on at, with their chances.
First = tuple[rules.State, dict[End, Fraction], dict[int, Fraction]]


def _first_increment(config: rules.Config, state: rules.State, first: rules.RoundInput) -> First:
    increments = state.increments + 1
    after = replace(
        state,
        increments=increments,
        mounted_increments=state.mounted_increments + (1 if first.terrain.increment.mounted else 0),
    )
    ended: dict[End, Fraction] = dict.fromkeys(("caught", "escaped", "hid", "gave-up"), Fraction(0))
    leads: dict[int, Fraction] = {}
    for (change, tag), probability in next_increment(config, state, first).items():
        lead = state.lead + change
        end = _status(config, lead, increments, tag)
        if end is None:
            leads[lead] = leads.get(lead, Fraction(0)) + probability
        elif probability:
            ended[end] += probability
    return after, ended, {lead: p for lead, p in leads.items() if p}


def _walk_from(
    config: rules.Config, firsts: list[First], terrain: rules.Terrain, policy: Policy
) -> list[ChaseOdds]:
    """`_walk` from the leads each first increment leaves (they leave the same state, their
    leads aside)."""
    after, _, leads = firsts[0]
    starts = [begun[2] for begun in firsts]
    return _walk(
        config, replace(after, lead=next(iter(leads))), terrain, policy, EXACT_BUDGET, starts
    )


def _compose(first: First, walked: ChaseOdds | None) -> ChaseOdds:
    """The odds of a choice: its first increment's ends, and the walk from the leads it leaves
    (`_walk`'s answer, weighted by their chance already; None when it leaves none)."""
    after, ended, _ = first
    if walked is None:
        zero = Fraction(0)
        walked = ChaseOdds(zero, zero, zero, zero, zero)
    going_on = sum(first[2].values(), Fraction(0))
    return ChaseOdds(
        caught=ended["caught"] + walked.caught,
        escaped=ended["escaped"] + ended["hid"] + walked.escaped,
        hid=ended["hid"] + walked.hid,
        gave_up=ended["gave-up"] + walked.gave_up,
        expected_increments=(1 - going_on) * after.increments + walked.expected_increments,
    )
