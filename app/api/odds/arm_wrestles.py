"""The odds of an arm wrestle (docs/rules.md#arm-wrestling)."""

from __future__ import annotations

from app.api.odds.figures import percent, probability
from app.api.odds.worker import inline_cached, off_loop
from app.api.schemas.odds import OddsArmWrestleAnswer
from app.rules import arm_wrestling
from app.rules.odds import arm_wrestling as arm_odds
from app.rules.odds import fraction_text


def arm_wrestle_answer(
    config: arm_wrestling.Config, state: arm_wrestling.State, seed: int
) -> OddsArmWrestleAnswer:
    """The arm wrestle answer (computed in the worker process)."""
    odds = arm_odds.arm_wrestle_odds(config, state, seed)
    a, b = config.a.name, config.b.name
    if isinstance(odds, arm_odds.ArmWrestleOdds):
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
        a_wins, b_wins = float(odds.a_wins), float(odds.b_wins)
    else:
        answer = {
            "method": "monte-carlo",
            "a": a,
            "b": b,
            "a_wins": odds.a_wins.probability,
            "a_wins_exact": None,
            "b_wins": odds.b_wins.probability,
            "b_wins_exact": None,
            "draw": odds.draw.probability,
            "draw_exact": None,
            "undecided": odds.undecided.probability,
            "undecided_exact": None,
            "expected_rounds": odds.expected_rounds,
            "expected_rounds_exact": None,
            "standard_error": {
                "a_wins": odds.a_wins.standard_error,
                "b_wins": odds.b_wins.standard_error,
                "draw": odds.draw.standard_error,
                "undecided": odds.undecided.standard_error,
            },
            "trials": odds.trials,
            "seed": odds.seed,
            "rounds_played": state.rounds_played,
            "summary": "",
        }
        a_wins, b_wins = odds.a_wins.probability, odds.b_wins.probability
    answer["summary"] = (
        f"{a} wins {percent(a_wins)}, {b} {percent(b_wins)}, draw "
        f"{percent(answer['draw'])}, undecided {percent(answer['undecided'])}; "
        f"{answer['expected_rounds']:.2f} rounds expected ({answer['method']})."
    )
    return answer


async def arm_wrestle_odds(
    config: arm_wrestling.Config, state: arm_wrestling.State, seed: int
) -> OddsArmWrestleAnswer:
    """Inline when a question's work is bounded by a couple of milliseconds (no trial can
    outlast the estimate's round budget), else in the worker process: handing a question to
    the worker and back costs a fifth of a small question's time."""
    if arm_odds.longest_trial(config, state) <= arm_odds.SIMULATION_BUDGET:
        return inline_cached(arm_wrestle_answer, config, state, seed)
    return await off_loop(arm_wrestle_answer, config, state, seed)
