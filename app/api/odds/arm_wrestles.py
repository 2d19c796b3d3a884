"""The odds of an arm wrestle (docs/rules.md#arm-wrestling), from its start or from where a
match stands: exact fractions where the exact walk fits its budget, else the bounded walk's
doubles with their error bounds (docs/rules.md#odds)."""

from __future__ import annotations

from contextlib import suppress
from fractions import Fraction
from typing import Final

from app.api.odds.figures import in_language, probability
from app.api.odds.worker import inline_cached, off_loop
from app.api.schemas.odds import OddsArmWrestleAnswer
from app.numeric import exact as exact_walk
from app.rules import arm_wrestling
from app.rules.messages import N_, Fixed, Message, Percent, english, m, term
from app.rules.odds import arm_wrestling as arm_odds
from app.rules.odds import fraction_text

#: Matches that can last at most this many more rounds are answered inline: their walk takes
#: well under a millisecond, less than handing the question to the worker and back.
INLINE_ROUNDS: Final = 6


def arm_wrestle_answer(
    config: arm_wrestling.Config, state: arm_wrestling.State
) -> OddsArmWrestleAnswer:
    """The arm wrestle answer (computed in the worker process): exact, or past the exact
    walk's budget the bounded walk's."""
    odds: arm_odds.ArmWrestleOdds | None = None
    bound: dict[str, float] | None = None
    if not arm_odds.surely_too_long(config, state):
        with suppress(arm_odds.TooLarge):
            odds = arm_odds.arm_wrestle_odds(config, state, exact_walk.gmp)
    if odds is None:
        from app.numeric import arm_wrestling as numeric  # NumPy and Numba: the worker only

        bounded = numeric.arm_wrestle_odds(config, state)
        odds, bound = bounded.odds, bounded.bound

    def exact(value: Fraction) -> str | None:
        return None if bound is not None else fraction_text(value)

    a, b = config.a.name, config.b.name
    answer: OddsArmWrestleAnswer = {
        "method": "exact" if bound is None else "bounded",
        "a": a,
        "b": b,
        "a_wins": probability(odds.a_wins),
        "a_wins_exact": exact(odds.a_wins),
        "b_wins": probability(odds.b_wins),
        "b_wins_exact": exact(odds.b_wins),
        "draw": probability(odds.draw),
        "draw_exact": exact(odds.draw),
        "undecided": probability(odds.undecided),
        "undecided_exact": exact(odds.undecided),
        "expected_rounds": probability(odds.expected_rounds),
        "expected_rounds_exact": exact(odds.expected_rounds),
        "error_bound": bound,
        "standard_error": None,
        "trials": None,
        "seed": None,
        "rounds_played": state.rounds_played,
        "summary": "",
    }
    answer["summary"] = english(arm_wrestle_said(a, b, answer))
    return answer


def arm_wrestle_said(a: str, b: str, answer: OddsArmWrestleAnswer) -> Message:
    """An arm wrestle's odds in one line (docs/languages.md)."""
    bound = answer["error_bound"]
    how = (
        term(N_("exact"))
        if bound is None
        else m("each within {bound}", bound=f"{max(bound.values()):.0e}")
    )
    return m(
        "{a} wins {a_wins}, {b} {b_wins}, draw {draw}, undecided {undecided}; {rounds} rounds "
        "expected ({how}).",
        a=a,
        a_wins=Percent(answer["a_wins"]),
        b=b,
        b_wins=Percent(answer["b_wins"]),
        draw=Percent(answer["draw"]),
        undecided=Percent(answer["undecided"]),
        rounds=Fixed(answer["expected_rounds"]),
        how=how,
    )


async def arm_wrestle_odds(
    config: arm_wrestling.Config, state: arm_wrestling.State
) -> OddsArmWrestleAnswer:
    """Inline for a match a few rounds from its end, else in the worker process (a fresh
    match's walk takes milliseconds to seconds: docs/performance.md#odds)."""
    if arm_odds.horizon(config, state) <= INLINE_ROUNDS:
        answer = inline_cached(arm_wrestle_answer, config, state)
    else:
        answer = await off_loop(arm_wrestle_answer, config, state)
    # Made in English wherever it was computed (and cached so); said in the request's language.
    return in_language(answer, arm_wrestle_said(config.a.name, config.b.name, answer))
