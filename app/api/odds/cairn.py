"""The odds of a Cairn Hill roll (docs/rules.md#cairn-hill-roll)."""

from __future__ import annotations

from app.api.odds.figures import distribution, exact, percent, probability
from app.api.oneshots.cairn import POSITIONS
from app.api.schemas.odds import OddsCairnAnswer
from app.rules import cairn
from app.rules.odds import cairn as cairn_odds


def cairn_answer(
    rating: int, target: int | None, success_rows: cairn.SuccessRows = "raised"
) -> OddsCairnAnswer:
    """The Cairn answer (computed in the worker process: about 5-10 ms cold)."""
    odds = cairn_odds.cairn_odds(rating, target, success_rows)
    scores, scores_exact = distribution(odds.distribution)
    lower, higher = odds.chosen
    line = (
        f"Rating {rating} ({cairn.POSITION_NAMES[lower]} and {cairn.POSITION_NAMES[higher]}): "
        f"mean score {float(odds.mean):.2f}, critical success "
        f"{percent(float(odds.critical_success))}, critical failure "
        f"{percent(float(odds.critical_failure))}"
    )
    if odds.success is not None:
        line += f"; score >= {target}: {percent(float(odds.success))}"
    return {
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
        "summary": line + ".",
    }
