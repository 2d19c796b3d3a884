"""Token odds of one round of a skill game (docs/rules.md#skill-games, docs/rules.md#odds): exact.

Each member of a party rolls `d20 + modifier` for each chosen skill and the party's best
result earns a token when `skill_games._earns_token` says so (it exceeds the DC, or meets it
under `token_rule: "meet"`). That test is monotone in the result, so the best earns exactly
when some member's result earns: a skill misses only when every member misses, with
probability the product of the members' missing faces over 20 each. Skills are rolled
independently, so the number of tokens is the sum of one Bernoulli per skill (its exact
distribution by convolution). The chosen skills are checked by `choose_skills` itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

from app.rules import skill_games as rules
from app.rules.dice import Dice
from app.rules.errors import RulesError, RuleViolation
from app.rules.messages import N_

D20: Final = 20


@dataclass(frozen=True, slots=True)
class PartyTokenOdds:
    """One party's round: each chosen skill's chance of a token, the tokens' distribution
    (0 to the number of skills) and their expected number."""

    party: str
    skills: tuple[str, ...]
    token: dict[str, Fraction]
    tokens: dict[int, Fraction]
    expected: Fraction


class _LowestFace:
    """An `Rng` rolling 1 on every die: `choose_skills` run only for its checks."""

    def die(self, sides: int) -> int:
        del sides
        return 1


def check_choices(config: rules.Config, skills: Mapping[str, Sequence[str]]) -> None:
    """Every named party exists and its skills are a valid choice, as `choose_skills` checks
    (errors located at `("skills", party, ...)`)."""
    state = rules.start(config, Dice(_LowestFace()))
    for party, chosen in skills.items():
        if config.party(party) is None:
            raise RulesError(N_("not a party of this skill game"), ("skills", party))
        try:
            rules.choose_skills(config, state, party, list(chosen), Dice(_LowestFace()))
        except RulesError as error:
            # choose_skills locates its errors in its own body, ("skills", index); here the
            # skills are under their party's name.
            first, *more = error.violations
            raise RulesError(
                first.said or first.msg,
                ("skills", party, *first.loc[1:]),
                more=[RuleViolation(("skills", party, *v.loc[1:]), v.msg, v.said) for v in more],
            ) from None


def check_choice(
    config: rules.Config, state: rules.State, party: str, skills: Sequence[str]
) -> None:
    """`party` choosing `skills` now, checked as `choose_skills` checks it against the game as
    it stands (the phase, a party that has chosen already; errors located as its own)."""
    rules.choose_skills(config, state, party, list(skills), Dice(_LowestFace()))


def _missing_rolls(config: rules.Config, party: rules.Party, skill: str) -> int:
    """Of the party's 20**members rolls for `skill`, how many earn no token (every member
    misses)."""
    missing = 1
    for member in party.members:
        modifier = member.modifier(skill)
        missing *= sum(
            1 for face in range(1, D20 + 1) if not rules._earns_token(config, face + modifier)
        )
    return missing


def party_token_odds(config: rules.Config, party: str, skills: Sequence[str]) -> PartyTokenOdds:
    """The exact token odds of `party` choosing `skills` this round (checked beforehand)."""
    side = config.party(party)
    if side is None:
        raise RulesError(N_("not a party of this skill game"), ("skills", party))
    # The convolution runs on whole counts of rolls (weights over (20**members)**skills),
    # with one Fraction per count of tokens at the end.
    scale = D20 ** len(side.members)
    missing = {skill: _missing_rolls(config, side, skill) for skill in skills}
    chances = {skill: 1 - Fraction(miss, scale) for skill, miss in missing.items()}
    weights = [1]
    for miss in missing.values():
        hit = scale - miss
        following = [0] * (len(weights) + 1)
        for earned, weight in enumerate(weights):
            following[earned] += weight * miss
            following[earned + 1] += weight * hit
        weights = following
    total = scale ** len(chances)
    tokens = {earned: Fraction(weight, total) for earned, weight in enumerate(weights)}
    return PartyTokenOdds(
        party=party,
        skills=tuple(skills),
        token=chances,
        tokens={earned: p for earned, p in sorted(tokens.items()) if p},
        expected=sum(chances.values(), Fraction(0)),
    )


def token_odds(
    config: rules.Config, skills: Mapping[str, Sequence[str]]
) -> tuple[PartyTokenOdds, ...]:
    """Each named party's token odds for one round (docs/rules.md#skill-games), for a config
    `check_config` accepts; checks the choices first."""
    check_choices(config, skills)
    return tuple(party_token_odds(config, party, chosen) for party, chosen in skills.items())
