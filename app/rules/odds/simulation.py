"""What every Monte Carlo estimate reports (docs/rules.md#odds): a proportion and its standard
error, honest for rare outcomes too."""

from __future__ import annotations

from dataclasses import dataclass
from math import sqrt
from typing import Final

#: Most trials a caller may ask one estimate for (docs/api.md#odds `trials`); the request's
#: work limit of dice (docs/rules.md#work-limit) may stop it sooner.
MAX_TRIALS: Final = 10_000
#: The Agresti-Coull interval adds 2 successes and 2 failures (z = 2 adds z**2 / 2 of each).
ADDED: Final = 2


@dataclass(frozen=True, slots=True)
class Estimate:
    """A probability estimated from `hits` of `trials`, with its standard error."""

    probability: float
    standard_error: float


def estimate(hits: int, trials: int) -> Estimate:
    """The proportion `hits / trials`, and its standard error by the Agresti-Coull rule.

    The error is the binomial one of `(hits + 2) / (trials + 4)` over `trials + 4`: for common
    outcomes it is the usual `sqrt(p (1 - p) / trials)`, and an outcome seen rarely or never is
    not answered "0 +- 0" but with an error about `1.4 / trials`, so that the proportion +- 2
    standard errors holds the true chance about 95% of the time (more, for chances far below
    `1 / trials`).
    """
    probability = hits / trials
    shrunk = (hits + ADDED) / (trials + 2 * ADDED)
    return Estimate(probability, sqrt(shrunk * (1 - shrunk) / (trials + 2 * ADDED)))
