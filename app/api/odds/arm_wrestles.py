"""The odds of an arm wrestle (docs/rules.md#arm-wrestling): exact, from its start or from
where a match stands."""

from __future__ import annotations

from typing import Final

from app.api.odds.figures import percent, probability
from app.api.odds.worker import inline_cached, off_loop
from app.api.schemas.odds import OddsArmWrestleAnswer
from app.rules import arm_wrestling
from app.rules.odds import arm_wrestling as arm_odds
from app.rules.odds import fraction_text

#: Matches that can last at most this many more rounds are answered inline: their walk takes
#: well under a millisecond, less than handing the question to the worker and back.
INLINE_ROUNDS: Final = 6


def arm_wrestle_answer(
    config: arm_wrestling.Config, state: arm_wrestling.State
) -> OddsArmWrestleAnswer:
    """The arm wrestle answer (computed in the worker process)."""
    odds = arm_odds.arm_wrestle_odds(config, state)
    a, b = config.a.name, config.b.name
    answer: OddsArmWrestleAnswer = {
        "method": "exact",
        "a": a,
        "b": b,
        "a_wins": probability(odds.a_wins),
        "a_wins_exact": fraction_text(odds.a_wins),
        "b_wins": probability(odds.b_wins),
        "b_wins_exact": fraction_text(odds.b_wins),
        "draw": probability(odds.draw),
        "draw_exact": fraction_text(odds.draw),
        "undecided": probability(odds.undecided),
        "undecided_exact": fraction_text(odds.undecided),
        "expected_rounds": probability(odds.expected_rounds),
        "expected_rounds_exact": fraction_text(odds.expected_rounds),
        "standard_error": None,
        "trials": None,
        "seed": None,
        "rounds_played": state.rounds_played,
        "summary": "",
    }
    answer["summary"] = (
        f"{a} wins {percent(answer['a_wins'])}, {b} {percent(answer['b_wins'])}, draw "
        f"{percent(answer['draw'])}, undecided {percent(answer['undecided'])}; "
        f"{answer['expected_rounds']:.2f} rounds expected (exact)."
    )
    return answer


async def arm_wrestle_odds(
    config: arm_wrestling.Config, state: arm_wrestling.State
) -> OddsArmWrestleAnswer:
    """Inline for a match a few rounds from its end, else in the worker process (a fresh
    match's walk takes milliseconds to seconds: docs/performance.md#odds)."""
    if arm_odds.horizon(config, state) <= INLINE_ROUNDS:
        return inline_cached(arm_wrestle_answer, config, state)
    return await off_loop(arm_wrestle_answer, config, state)
