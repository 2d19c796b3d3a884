"""The odds of a Cairn Hill roll (docs/rules.md#cairn-hill-roll)."""

from __future__ import annotations

from app.api.odds.figures import distribution, exact, probability
from app.api.oneshots.cairn import POSITIONS
from app.api.schemas.odds import OddsCairnAnswer
from app.rules import cairn
from app.rules.messages import Argument, Fixed, Message, Percent, english, m, term
from app.rules.odds import cairn as cairn_odds


def cairn_answer(
    rating: int, target: int | None, success_rows: cairn.SuccessRows = "raised"
) -> OddsCairnAnswer:
    """The Cairn answer (computed in the worker process: about 5-10 ms cold)."""
    odds = cairn_odds.cairn_odds(rating, target, success_rows)
    scores, scores_exact = distribution(odds.distribution)
    lower, higher = odds.chosen
    answer: OddsCairnAnswer = {
        "method": "exact",
        "rating": rating,
        "chosen_names": [
            POSITIONS[cairn.POSITION_NAMES[lower]],
            POSITIONS[cairn.POSITION_NAMES[higher]],
        ],
        "distribution": scores,
        "distribution_exact": scores_exact,
        "mean": probability(odds.mean),
        "mean_exact": exact(odds.mean),
        "critical_success": probability(odds.critical_success),
        "critical_success_exact": exact(odds.critical_success),
        "critical_failure": probability(odds.critical_failure),
        "critical_failure_exact": exact(odds.critical_failure),
        "target": target,
        "success": None if odds.success is None else probability(odds.success),
        "success_exact": None if odds.success is None else exact(odds.success),
        "summary": "",
    }
    answer["summary"] = english(cairn_said(answer))
    return answer


def cairn_said(answer: OddsCairnAnswer) -> Message:
    """A Cairn Hill roll's odds in one line (docs/languages.md)."""
    lower, higher = answer["chosen_names"]
    figures: dict[str, Argument] = {
        "rating": answer["rating"],
        "lower": term(lower),
        "higher": term(higher),
        "mean": Fixed(answer["mean"]),
        "critical_success": Percent(answer["critical_success"]),
        "critical_failure": Percent(answer["critical_failure"]),
    }
    if answer["success"] is None:
        return m(
            "Rating {rating} ({lower} and {higher}): mean score {mean}, critical success "
            "{critical_success}, critical failure {critical_failure}.",
            **figures,
        )
    return m(
        "Rating {rating} ({lower} and {higher}): mean score {mean}, critical success "
        "{critical_success}, critical failure {critical_failure}; score >= {target}: "
        "{success}.",
        **figures,
        target=answer["target"] or 0,
        success=Percent(answer["success"]),
    )
