"""Legend skill games (docs/rules.md#skill-games): action rounds of skill checks, tokens and sealed
choices.

An action round has two phases. In the *skills* phase each party chooses its skills and its
members roll (`choose_skills`); once every party has, the phase is *choices*: each party seals a
choice (`submit_choice`, replaceable until the reveal), and when every party has, `reveal` pays
the bids or costs, applies the effects and checks the end condition. The GM may `grant` tokens
and `end` the game at any time.

Nothing here shows a sealed choice: `State.submitted` names only which parties have submitted
(the state's presentation, app/api/kinds/skill_games.py, shows no more), and no error message
repeats a bid or the action a party sealed. A config's cross-field rules are `check_config`'s.

**Rulings** where docs/rules.md#skill-games is silent (each also noted where it is applied):
- Names of parties and members are unique together (docs/rules.md#dice-and-checks), so a member's
  skill die and
  a party's order die never share a (who, purpose) key; at most 64 members in the whole game.
- Skill checks are rolled skill by skill in the order the party listed them, each by every
  member in roster order. Equal best results credit the member listed first.
- In a bidding game a missing `min_margin` is 0; `cost` belongs to option games only and
  `min_margin` to bidding games only. An option game's action applies all its effects.
- In an option game a party buys each action at most once per round.
- Tokens never go below 0: a loss larger than a party's tokens takes them all. Progress has no
  floor. Tied bidders act one after another in their order; option actions act at once (their
  token changes are summed before the floor applies).
- The order d20 is rolled only when two or more tied parties take their action. Rerolls follow
  the opposed-check cap of docs/rules.md#ties-between-bids
  of the order they were named in the game (the side named second wins).
- The end condition is checked once, at the end of the round, on the final progress.
- A grant may be negative down to 0 tokens, but never while that party's choice is sealed (it
  could make the sealed choice unaffordable).
- The round record (`Round.choices`) keeps every choice; what a party may read of it — every
  bid, the actions taken, and of the actions not taken only its own (the Legend text's "reveal
  the number of tokens they bid, but not the actions they chose", docs/rules.md#bidding) — is
  the presentation's (`app.api.kinds.skill_games.round_shown_to`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, cast

from app.rules.common import MAX_OPPOSED_REROLLS
from app.rules.dice import Dice
from app.rules.errors import Loc, PhaseError, RulesError
from app.rules.messages import N_, Argument, Listing, Message, english, m, ng, term
from app.rules.text import name_key
from app.rules.violations import Violations

Kind = Literal["bidding", "option"]
Controller = Literal["gm", "players"]
Target = Literal["self", "opponents"]
TokenRule = Literal["exceed", "meet"]
Phase = Literal["skills", "choices"]
Reason = Literal["goal", "max_rounds", "ended"]

MIN_PARTIES = 2
MAX_PARTIES = 16
#: At most 64 members in one party and in the whole game (docs/api.md#limits).
MAX_MEMBERS = 64
MAX_ROUNDS = 10_000

#: The purpose of the d20 that orders tied bidders (docs/api.md#skill-games).
ORDER_PURPOSE = "order"


# --- configuration -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Effect:
    """One effect of an action; in bidding games a tier used from `min_margin` up."""

    text: str
    progress: int = 0
    tokens: int = 0
    target: Target = "self"
    min_margin: int | None = None


@dataclass(frozen=True, slots=True)
class Action:
    """An entry of the action set (docs/rules.md#action-sets)."""

    name: str
    effects: tuple[Effect, ...]
    cost: int | None = None

    def tier(self, margin: int) -> Effect | None:
        """The tier with the highest `min_margin` not above `margin`, if any
        (docs/rules.md#skill-games)."""
        usable = [
            effect
            for effect in self.effects
            if effect.min_margin is not None and effect.min_margin <= margin
        ]
        return max(usable, key=lambda effect: cast(int, effect.min_margin), default=None)


@dataclass(frozen=True, slots=True)
class Member:
    name: str
    skills: Mapping[str, int] = field(default_factory=dict)

    def modifier(self, skill: str) -> int:
        """The member's modifier for `skill`; 0 for a skill the member lacks
        (docs/rules.md#skill-games)."""
        return self.skills.get(skill, 0)


@dataclass(frozen=True, slots=True)
class Party:
    name: str
    controller: Controller
    members: tuple[Member, ...]


@dataclass(frozen=True, slots=True)
class Config:
    """A skill game as created (docs/rules.md#skill-games), normalised.

    Defaults: `max_actions_per_round` 1, `token_rule` "exceed", effect `target` "self",
    `progress` and `tokens` 0; a bidding tier's missing `min_margin` is 0 (set by whoever
    builds the config from a request).
    """

    dc: int
    skill_list: tuple[str, ...]
    skills_per_round: int
    kind: Kind
    actions: tuple[Action, ...]
    parties: tuple[Party, ...]
    max_actions_per_round: int = 1
    goal: int | None = None
    max_rounds: int | None = None
    token_rule: TokenRule = "exceed"

    @property
    def party_names(self) -> tuple[str, ...]:
        return tuple(party.name for party in self.parties)

    def action(self, name: str) -> Action | None:
        return next((action for action in self.actions if action.name == name), None)

    def party(self, name: str) -> Party | None:
        return next((party for party in self.parties if party.name == name), None)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _list(value: object, loc: Loc, what: str) -> list[Any]:
    if not isinstance(value, list | tuple):
        raise RulesError(m("{what} must be a list", what=what), loc)
    return list(value)


def check_config(config: Config) -> None:
    """The rules of a skill game's config that span fields (docs/rules.md#skill-games,
    docs/api.md#skill-games).

    Shapes and bounds are the request schema's; this checks what depends on the game as a
    whole, and raises one `RulesError` listing every violation: distinct skills, actions and
    names; `skills_per_round` within the skill list; tiers (`min_margin`) only in bidding
    games, distinct per action; `cost` in every action of an option game and in no action of
    a bidding game; one action per round in bidding games; modifiers only for listed skills;
    at most 64 members in the whole game; and at least one of `goal` and `max_rounds`.
    """
    violations = Violations()
    for index, skill in enumerate(config.skill_list):
        if skill in config.skill_list[:index]:
            violations.add(
                ("skill_list", index), m("{skill} is on the skill list twice", skill=repr(skill))
            )
    if not 1 <= config.skills_per_round <= len(config.skill_list):
        violations.add(
            ("skills_per_round",),
            m("skills_per_round must be between 1 and {most}", most=len(config.skill_list)),
        )
    if config.kind == "bidding" and config.max_actions_per_round != 1:
        violations.add(("max_actions_per_round",), N_("a bidding game takes one action per round"))
    for index, action in enumerate(config.actions):
        _check_action(config, action, ("actions", index), violations)
        if any(name_key(other.name) == name_key(action.name) for other in config.actions[:index]):
            violations.add(
                ("actions", index, "name"),
                m("two actions are named {name}", name=repr(action.name)),
            )
    if config.goal is None and config.max_rounds is None:
        violations.add((), N_("a skill game needs an end condition: goal, max_rounds or both"))
    _check_parties(config, violations)
    violations.raise_if_any()


def _check_action(config: Config, action: Action, loc: Loc, violations: Violations) -> None:
    if config.kind == "option" and action.cost is None:
        violations.add((*loc, "cost"), N_("every action of an option game needs a cost"))
    if config.kind == "bidding" and action.cost is not None:
        violations.add(
            (*loc, "cost"), N_("cost applies only to option games (bidding games pay bids)")
        )
    margins: set[int] = set()
    for index, effect in enumerate(action.effects):
        margin_loc: Loc = (*loc, "effects", index, "min_margin")
        if effect.min_margin is None:
            continue
        if config.kind == "option":
            violations.add(margin_loc, N_("min_margin applies only to bidding games"))
        elif effect.min_margin in margins:
            violations.add(margin_loc, N_("the tiers of an action need distinct min_margin values"))
        margins.add(effect.min_margin)


def _check_parties(config: Config, violations: Violations) -> None:
    # docs/rules.md#names
    names_seen: set[str] = set()
    member_count = 0
    for index, party in enumerate(config.parties):
        loc: Loc = ("parties", index)
        if name_key(party.name) in names_seen:
            violations.add(
                (*loc, "name"), m("the name {name} is used twice", name=repr(party.name))
            )
        names_seen.add(name_key(party.name))
        for member_index, member in enumerate(party.members):
            member_loc: Loc = (*loc, "members", member_index)
            if name_key(member.name) in names_seen:
                violations.add(
                    (*member_loc, "name"),
                    m("the name {name} is used twice", name=repr(member.name)),
                )
            names_seen.add(name_key(member.name))
            for skill in member.skills:
                if skill not in config.skill_list:
                    violations.add(
                        (*member_loc, "skills", skill),
                        m("{skill} is not on the skill list", skill=repr(skill)),
                    )
        before = member_count
        member_count += len(party.members)
        if member_count > MAX_MEMBERS >= before:
            violations.add(
                (*loc, "members"), m("a skill game has at most {most} members", most=MAX_MEMBERS)
            )


# --- state ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SkillCheck:
    """A party's best result for one chosen skill (docs/rules.md#skills-and-tokens)."""

    skill: str
    best: int
    by: str
    token: bool


@dataclass(frozen=True, slots=True)
class SkillChecks:
    """One party's checks for the round, as the skills call answers them."""

    party: str
    checks: tuple[SkillCheck, ...]

    @property
    def tokens_earned(self) -> int:
        return sum(check.token for check in self.checks)


@dataclass(frozen=True, slots=True)
class Choice:
    """A sealed choice: one action and a bid (bidding) or the actions bought (option)."""

    actions: tuple[str, ...]
    bid: int | None = None


@dataclass(frozen=True, slots=True)
class State:
    """A skill game between calls. `choices` holds sealed content: never show it."""

    parties: tuple[str, ...]
    tokens: Mapping[str, int]
    progress: Mapping[str, int]
    phase: Phase = "skills"
    rounds_played: int = 0
    skills_done: tuple[str, ...] = ()
    checks: Mapping[str, tuple[SkillCheck, ...]] = field(default_factory=dict)
    choices: Mapping[str, Choice] = field(default_factory=dict)
    finished: bool = False
    winner: str | None = None
    tie: bool = False
    reason: Reason | None = None

    @property
    def round(self) -> int:
        """The action round in progress; once finished, the number of rounds played."""
        return self.rounds_played if self.finished else self.rounds_played + 1

    @property
    def submitted(self) -> tuple[str, ...]:
        return tuple(party for party in self.parties if party in self.choices)


def start(config: Config, dice: Dice) -> State:
    """A new game: round 1 in the skills phase, no tokens, no progress (docs/rules.md#skill-games).

    No die is rolled at the start; `dice` is taken for the common module interface.
    """
    del dice
    return State(
        parties=config.party_names,
        tokens=dict.fromkeys(config.party_names, 0),
        progress=dict.fromkeys(config.party_names, 0),
    )


def is_finished(state: State) -> bool:
    return state.finished


def _require_active(state: State) -> None:
    if state.finished:
        raise PhaseError(N_("the skill game is finished"))


def _require_party(config: Config, party: str) -> Party:
    found = config.party(party)
    if found is None:
        raise RulesError(N_("not a party of this skill game"), ("party",))
    return found


def waiting_for(state: State) -> list[str]:
    """The parties the current phase still waits for (public: who, never what)."""
    if state.finished:
        return []
    done = state.skills_done if state.phase == "skills" else state.submitted
    return [party for party in state.parties if party not in done]


def all_submitted(state: State) -> bool:
    """Whether every party has sealed its choice, so the round can be revealed."""
    return not state.finished and state.phase == "choices" and not waiting_for(state)


# --- step 1 and 2: skills and checks -------------------------------------------------------


def _earns_token(config: Config, best: int) -> bool:
    # docs/rules.md#skills-and-tokens: a result must exceed the DC; the "meet" ruling counts
    # equality too.
    return best > config.dc or (config.token_rule == "meet" and best == config.dc)


def choose_skills(
    config: Config, state: State, party: str, skills: Sequence[str], dice: Dice
) -> tuple[State, SkillChecks]:
    """A party chooses its skills and every member rolls for each (docs/rules.md#skills-and-tokens).

    Dice: one d20 per (member, skill), keyed (who=member name, purpose=skill name), skill by
    skill in the order given, members in roster order. The party's best result per skill earns
    a token when it exceeds the DC (or meets it, with `token_rule: "meet"`). When every party
    has chosen, the phase becomes `choices`.
    """
    _require_active(state)
    side = _require_party(config, party)
    if state.phase != "skills":
        raise PhaseError(
            N_("skills are chosen at the start of a round; sealed choices are due now")
        )
    if party in state.skills_done:
        raise PhaseError(m("{party} has already chosen its skills this round", party=party))
    chosen = _list(skills, ("skills",), "skills")
    for index, skill in enumerate(chosen):
        if not isinstance(skill, str) or skill not in config.skill_list:
            raise RulesError(N_("not a skill on this game's skill list"), ("skills", index))
        if skill in chosen[:index]:
            raise RulesError(
                m("{skill} is chosen twice; skills must be distinct", skill=repr(skill)),
                ("skills", index),
            )
    if len(chosen) != config.skills_per_round:
        raise RulesError(
            ng(
                "choose exactly {count} skill per round",
                "choose exactly {count} skills per round",
                config.skills_per_round,
            ),
            ("skills",),
        )

    checks: list[SkillCheck] = []
    for skill in chosen:
        best: tuple[int, str] | None = None
        for member in side.members:
            total = dice.d20(who=member.name, purpose=skill) + member.modifier(skill)
            if best is None or total > best[0]:
                best = (total, member.name)
        assert best is not None  # a party has at least one member
        checks.append(SkillCheck(skill, best[0], best[1], _earns_token(config, best[0])))
    outcome = SkillChecks(party, tuple(checks))

    skills_done = (*state.skills_done, party)
    everyone = all(name in skills_done for name in state.parties)
    new_state = replace(
        state,
        tokens={**state.tokens, party: state.tokens[party] + outcome.tokens_earned},
        skills_done=skills_done,
        checks={**state.checks, party: outcome.checks},
        phase="choices" if everyone else "skills",
    )
    return new_state, outcome


# --- step 3: sealed choices ----------------------------------------------------------------


def _choice_from_body(config: Config, choice: Mapping[str, Any], tokens: int) -> tuple[Choice, int]:
    """Validate a party's choice; returns it and what it costs. Errors never echo a bid."""
    if config.kind == "bidding":
        if choice.get("actions") is not None:
            raise RulesError(N_("a bidding game takes one action and a bid"), ("actions",))
        action = choice.get("action")
        if action is None:
            raise RulesError(N_("a bidding choice needs an action"), ("action",))
        if not isinstance(action, str) or config.action(action) is None:
            raise RulesError(N_("not an action of this skill game"), ("action",))
        bid = choice.get("bid")
        if bid is None:
            raise RulesError(N_("a bidding choice needs a bid"), ("bid",))
        if not _is_int(bid):
            raise RulesError(N_("a bid must be a whole number of tokens"), ("bid",))
        if bid < 0:
            raise RulesError(N_("a bid cannot be negative"), ("bid",))
        sealed = Choice((action,), int(bid))
        return sealed, _price(config, sealed, tokens)

    for key in ("action", "bid"):
        if choice.get(key) is not None:
            raise RulesError(N_("an option game takes a list of actions and no bid"), (key,))
    raw = choice.get("actions")
    if raw is None:
        raise RulesError(
            N_("an option choice lists its actions (an empty list buys none)"), ("actions",)
        )
    names = _list(raw, ("actions",), "actions")
    if len(names) > config.max_actions_per_round:
        raise RulesError(
            ng(
                "at most {count} action per round",
                "at most {count} actions per round",
                config.max_actions_per_round,
            ),
            ("actions",),
        )
    for index, name in enumerate(names):
        if not isinstance(name, str) or config.action(name) is None:
            raise RulesError(N_("not an action of this skill game"), ("actions", index))
        # Ruling: each action is bought at most once per round.
        if name in names[:index]:
            raise RulesError(N_("an action may be bought only once per round"), ("actions", index))
    sealed = Choice(tuple(names))
    return sealed, _price(config, sealed, tokens)


def _price(config: Config, choice: Choice, tokens: int) -> int:
    """What a valid choice pays (its bid, or its actions' costs); more than `tokens` raises."""
    if choice.bid is not None:
        if choice.bid > tokens:
            raise RulesError(N_("bid exceeds the party's tokens"), ("bid",))
        return choice.bid
    cost = sum(cast(Action, config.action(name)).cost or 0 for name in choice.actions)
    if cost > tokens:
        raise RulesError(N_("the chosen actions cost more than the party's tokens"), ("actions",))
    return cost


def submit_choice(config: Config, state: State, party: str, choice: Mapping[str, Any]) -> State:
    """Seal a party's choice for this round, replacing any earlier one
    (docs/rules.md#sealed-choices).

    `choice` is the choices body: `{"action", "bid"}` with 0 <= bid <= the party's tokens
    (bidding), or `{"actions": [...]}` of at most `max_actions_per_round` distinct actions whose
    costs sum to at most its tokens (option; an empty list is allowed).
    """
    _require_active(state)
    _require_party(config, party)
    if state.phase != "choices":
        raise PhaseError(N_("choices are sealed after every party has chosen its skills"))
    sealed, _ = _choice_from_body(config, choice, state.tokens[party])
    return replace(state, choices={**state.choices, party: sealed})


# --- reveal --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TakenEffect:
    """An effect that took place on reveal; `margin` and `tier` only in bidding games."""

    party: str
    action: str
    text: str
    margin: int | None = None
    tier: int | None = None


@dataclass(frozen=True, slots=True)
class Round:
    """One revealed action round (docs/api.md#skill-games round record)."""

    kind: Kind
    checks: Mapping[str, tuple[SkillCheck, ...]]
    choices: Mapping[str, Choice]
    paid: Mapping[str, int]
    effects: tuple[TakenEffect, ...]
    tokens: Mapping[str, int]
    progress: Mapping[str, int]
    finished: bool
    winner: str | None = None
    tie: bool = False
    reason: Reason | None = None
    #: Bidding only: every bid, the parties whose bid won, and the winning margin.
    bids: Mapping[str, int] | None = None
    bid_winners: tuple[str, ...] = ()
    margin: int | None = None
    #: Bidding ties only: the tied parties that took their action, in order.
    order: tuple[str, ...] | None = None


def _bid_order(parties: Sequence[str], dice: Dice, rerolls: int = 0) -> list[str]:
    """Tied bidders in descending order of a d20 each; equal rolls reroll among themselves.

    docs/rules.md#ties-between-bids (bid-order rolls are opposed checks with no modifier): after
    `MAX_OPPOSED_REROLLS` rerolls the parties still tied go in reverse of the order named.
    """
    rolls = {party: dice.d20(who=party, purpose=ORDER_PURPOSE) for party in parties}
    ordered: list[str] = []
    for value in sorted(set(rolls.values()), reverse=True):
        group = [party for party in parties if rolls[party] == value]
        if len(group) == 1:
            ordered += group
        elif rerolls < MAX_OPPOSED_REROLLS:
            ordered += _bid_order(group, dice, rerolls + 1)
        else:
            ordered += reversed(group)
    return ordered


def _targets(parties: Iterable[str], party: str, effect: Effect) -> list[str]:
    if effect.target == "self":
        return [party]
    return [other for other in parties if other != party]


def progress_moved(config: Config, effects: Sequence[TakenEffect]) -> dict[str, int]:
    """How far a revealed round moved each party's progress, from the effects that took place
    (docs/rules.md#skill-games): a bidding action's tier at the round's margin, an option
    action's effects one after another (as `reveal` lists them), each to its targets."""
    moved = dict.fromkeys(config.party_names, 0)
    taken_so_far: dict[tuple[str, str], int] = {}
    for taken in effects:
        action = config.action(taken.action)
        if action is None or taken.party not in moved:
            continue
        effect: Effect | None
        if config.kind == "bidding":
            effect = action.tier(taken.margin or 0)
        elif action.effects:
            # One purchase lists each of its action's effects in turn; a second, again.
            at = taken_so_far.get((taken.party, action.name), 0)
            taken_so_far[(taken.party, action.name)] = at + 1
            effect = action.effects[at % len(action.effects)]
        else:
            effect = None
        if effect is None:
            continue
        for target in _targets(config.party_names, taken.party, effect):
            moved[target] += effect.progress
    return moved


def _standing(progress: Mapping[str, int], contenders: Sequence[str]) -> tuple[str | None, bool]:
    """The single highest progress wins; equal highest is a tie (docs/rules.md#skill-games)."""
    top = max(progress[party] for party in contenders)
    leaders = [party for party in contenders if progress[party] == top]
    return (leaders[0], False) if len(leaders) == 1 else (None, True)


def _end_check(
    config: Config, progress: Mapping[str, int], rounds_played: int
) -> tuple[Reason, str | None, bool] | None:
    """docs/rules.md#action-sets, checked when a round ends: goal first, then max_rounds."""
    if config.goal is not None:
        reached = [party for party in config.party_names if progress[party] >= config.goal]
        if reached:
            return ("goal", *_standing(progress, reached))
    if config.max_rounds is not None and rounds_played >= config.max_rounds:
        return ("max_rounds", *_standing(progress, config.party_names))
    return None


def reveal(config: Config, state: State, dice: Dice) -> tuple[State, Round]:
    """Reveal every sealed choice, pay, take the actions and check the end
    (docs/rules.md#sealed-choices).

    Bidding: every party pays its bid; the single highest bid takes its action's tier for
    margin = bid - highest other bid; tied highest bids act at margin 0, each tied party whose
    action has a margin-0 tier in descending order of a d20 each (who = party, purpose
    "order"), rolled only when two or more act. Option: every party pays its costs and all
    chosen actions take effect together. Tokens never go below 0.
    """
    _require_active(state)
    if state.phase != "choices":
        raise PhaseError(N_("the round has no sealed choices yet; parties are choosing skills"))
    waiting = waiting_for(state)
    if waiting:
        raise PhaseError(
            m("waiting for sealed choices from {parties}", parties=Listing(list(waiting)))
        )

    parties = config.party_names
    tokens = dict(state.tokens)
    progress = dict(state.progress)
    paid: dict[str, int] = {}
    for party in parties:
        # Tokens only grow while a choice is sealed, so this re-check cannot fail on real
        # play; it guards against a stored state edited by hand.
        paid[party] = _price(config, state.choices[party], tokens[party])
        tokens[party] -= paid[party]

    taken: list[TakenEffect] = []
    if config.kind == "bidding":
        bids = {party: cast(int, state.choices[party].bid) for party in parties}
        top = max(bids.values())
        leaders = [party for party in parties if bids[party] == top]
        order: tuple[str, ...] | None = None
        if len(leaders) == 1:
            (leader,) = leaders
            margin = top - max(bids[party] for party in parties if party != leader)
            acting = [leader]
        else:
            margin = 0
            acting = [
                party
                for party in leaders
                if _action_of(config, state.choices[party]).tier(0) is not None
            ]
            # Ruling: the order d20 decides something only between two or more actors.
            order = tuple(_bid_order(acting, dice)) if len(acting) > 1 else tuple(acting)
            acting = list(order)
        for party in acting:
            action = _action_of(config, state.choices[party])
            tier = action.tier(margin)
            if tier is None:
                continue
            # Tied bidders act one after another, so each effect lands (and floors) in turn.
            for target in _targets(parties, party, tier):
                progress[target] += tier.progress
                tokens[target] = max(0, tokens[target] + tier.tokens)
            taken.append(TakenEffect(party, action.name, tier.text, margin, tier.min_margin))
        bid_record: dict[str, int] | None = bids
        bid_winners = tuple(leaders)
        round_margin: int | None = margin
    else:
        token_change = dict.fromkeys(parties, 0)
        for party in parties:
            for name in state.choices[party].actions:
                action = cast(Action, config.action(name))
                for effect in action.effects:
                    for target in _targets(parties, party, effect):
                        progress[target] += effect.progress
                        token_change[target] += effect.tokens
                    taken.append(TakenEffect(party, action.name, effect.text))
        # All option actions happen at once: the floor applies to the summed change.
        for party in parties:
            tokens[party] = max(0, tokens[party] + token_change[party])
        bid_record, bid_winners, round_margin, order = None, (), None, None

    rounds_played = state.rounds_played + 1
    ending = _end_check(config, progress, rounds_played)
    reason, winner, tie = ending if ending is not None else (None, None, False)
    finished = ending is not None
    new_state = State(
        parties=state.parties,
        tokens=tokens,
        progress=progress,
        phase="skills",
        rounds_played=rounds_played,
        finished=finished,
        winner=winner,
        tie=tie,
        reason=reason,
    )
    record = Round(
        kind=config.kind,
        checks={party: state.checks.get(party, ()) for party in parties},
        choices={party: state.choices[party] for party in parties},
        paid=paid,
        effects=tuple(taken),
        tokens=dict(tokens),
        progress=dict(progress),
        finished=finished,
        winner=winner,
        tie=tie,
        reason=reason,
        bids=bid_record,
        bid_winners=bid_winners,
        margin=round_margin,
        order=order,
    )
    return new_state, record


def _action_of(config: Config, choice: Choice) -> Action:
    return cast(Action, config.action(choice.actions[0]))


# --- the GM --------------------------------------------------------------------------------


def grant(config: Config, state: State, party: str, tokens: int) -> State:
    """The GM grants a party tokens, or takes some with a negative grant
    (docs/rules.md#skills-and-tokens).

    Ruling: a negative grant may take a party down to 0 tokens, not below, and never while the
    party's choice is sealed (it could make the sealed choice unaffordable).
    """
    _require_active(state)
    _require_party(config, party)
    if tokens < 0 and party in state.choices:
        raise PhaseError(
            m("{party} has sealed its choice; take tokens after the reveal", party=party)
        )
    if state.tokens[party] + tokens < 0:
        raise RulesError(N_("a grant cannot take a party's tokens below 0"), ("tokens",))
    return replace(state, tokens={**state.tokens, party: state.tokens[party] + tokens})


def end(config: Config, state: State) -> State:
    """The GM ends the game: the highest progress wins, equal highest a tie
    (docs/rules.md#skill-games).

    Sealed choices of the unfinished round are discarded unrevealed.
    """
    _require_active(state)
    winner, tie = _standing(state.progress, config.party_names)
    return State(
        parties=state.parties,
        tokens=dict(state.tokens),
        progress=dict(state.progress),
        phase="skills",
        rounds_played=state.rounds_played,
        finished=True,
        winner=winner,
        tie=tie,
        reason="ended",
    )


# --- presentation --------------------------------------------------------------------------


def _standings(config: Config, values: Mapping[str, int]) -> Listing:
    return Listing(
        [m("{name} {score}", name=party, score=values[party]) for party in config.party_names]
    )


def skill_checks_message(config: Config, outcome: SkillChecks) -> Message:
    """One line for a party's checks, e.g. "Heroes: Athletics 22 by Ann (token), ..."."""
    parts = Listing(
        [
            m("{skill} {best} by {by} (token)", skill=check.skill, best=check.best, by=check.by)
            if check.token
            else m("{skill} {best} by {by}", skill=check.skill, best=check.best, by=check.by)
            for check in outcome.checks
        ]
    )
    return ng(
        "{party}: {checks} against DC {dc}; {count} token earned.",
        "{party}: {checks} against DC {dc}; {count} tokens earned.",
        outcome.tokens_earned,
        party=outcome.party,
        checks=parts,
        dc=config.dc,
    )


def skill_checks_summary(config: Config, outcome: SkillChecks) -> str:
    """`skill_checks_message` in English."""
    return english(skill_checks_message(config, outcome))


def round_message(config: Config, state_after: State, round: Round) -> Message:
    """One line a Discord bot posts for a revealed round (no "Round N:" prefix)."""
    sentences: list[Argument] = []
    if round.bids is not None:
        bids = Listing(
            [m("{name} {score}", name=party, score=bid) for party, bid in round.bids.items()]
        )
        sentences.append(m("Bids: {bids}.", bids=bids))
        if len(round.bid_winners) == 1:
            (leader,) = round.bid_winners
            if not round.effects:
                sentences.append(
                    m(
                        "{leader} wins the bid by {margin}; {action} has no effect at that margin.",
                        leader=leader,
                        margin=_total(round.margin),
                        action=round.choices[leader].actions[0],
                    )
                )
            else:
                sentences.append(
                    m(
                        "{leader} wins the bid by {margin}.",
                        leader=leader,
                        margin=_total(round.margin),
                    )
                )
        else:
            sentences.append(
                m(
                    "{parties} tie for the highest bid.",
                    parties=Listing(list(round.bid_winners), "and-each"),
                )
            )
            idle = [party for party in round.bid_winners if party not in (round.order or ())]
            if idle:
                sentences.append(
                    m("No margin-0 effect for {parties}.", parties=Listing(idle, "and-each"))
                )
            if round.order is not None and len(round.order) > 1:
                sentences.append(m("Order: {order}.", order=Listing(list(round.order))))
    else:
        idle = [party for party, choice in round.choices.items() if not choice.actions]
        if idle:
            sentences.append(m("{parties} buy nothing.", parties=Listing(idle, "and-each")))
    for effect in round.effects:
        text = effect.text if effect.text.endswith((".", "!", "?")) else f"{effect.text}."
        sentences.append(
            m("{party} — {action}: {text}", party=effect.party, action=effect.action, text=text)
        )
    sentences.append(m("Progress: {progress}.", progress=_standings(config, round.progress)))
    sentences.append(m("Tokens: {tokens}.", tokens=_standings(config, round.tokens)))
    if state_after.finished:
        sentences.append(_ending(state_after))
    # The sentences one after another: no words of its own to translate.
    return Message("{sentences}", {"sentences": Listing(sentences, " ")})


def round_summary(config: Config, state_after: State, round: Round) -> str:
    """`round_message` in English."""
    return english(round_message(config, state_after, round))


def _total(value: int | None) -> Argument:
    """A number as a summary shows it (one not there reads as Python writes None)."""
    return "None" if value is None else value


#: Why a game ended, as its summaries say.
WHY: Mapping[str, str] = {
    "goal": N_("goal reached"),
    "max_rounds": N_("last round played"),
    "ended": N_("ended by the GM"),
}
#: A finished game's reason when none is recorded.
OVER = N_("over")


def _cause(state: State) -> Message:
    return term(WHY[state.reason] if state.reason is not None else OVER)


def _ending(state: State) -> Message:
    if state.winner is not None:
        return m("{winner} wins the game ({cause}).", winner=state.winner, cause=_cause(state))
    return m("The game ends in a tie ({cause}).", cause=_cause(state))


def session_message(config: Config, state: State) -> Message:
    """The session's one line: phase and who is awaited, never what anyone sealed."""
    head: dict[str, Argument] = {
        "kind": config.kind,
        "dc": config.dc,
        "standing": m(
            "Progress: {progress}. Tokens: {tokens}.",
            progress=_standings(config, state.progress),
            tokens=_standings(config, state.tokens),
        ),
    }
    if state.finished:
        verdict = (
            m("{winner} wins", winner=state.winner) if state.winner is not None else term(A_TIE)
        )
        return ng(
            "Skill game ({kind}, DC {dc}) over after {count} round: {verdict} ({cause}). "
            "{standing}",
            "Skill game ({kind}, DC {dc}) over after {count} rounds: {verdict} ({cause}). "
            "{standing}",
            state.rounds_played,
            **head,
            verdict=verdict,
            cause=_cause(state),
        )
    return m(
        "Skill game ({kind}, DC {dc}), round {round}: {doing}, waiting for {waiting}. {standing}",
        **head,
        round=state.round,
        doing=term(CHOOSING if state.phase == "skills" else SEALING),
        waiting=Listing(waiting_for(state)),
    )


#: A finished game without a winner, as its summary says.
A_TIE = N_("a tie")
#: What the parties are doing, as a session's summary says.
CHOOSING = N_("choosing skills")
SEALING = N_("sealing choices")
