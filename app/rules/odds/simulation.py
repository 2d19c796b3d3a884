"""What every Monte Carlo estimate reports (docs/rules.md#odds): a proportion and its standard
error."""

from __future__ import annotations

from dataclasses import dataclass
from math import sqrt


@dataclass(frozen=True, slots=True)
class Estimate:
    """A probability estimated from `hits` of `trials`, with its standard error."""

    probability: float
    standard_error: float


def estimate(hits: int, trials: int) -> Estimate:
    """The proportion `hits / trials` and its binomial standard error."""
    probability = hits / trials
    return Estimate(probability, sqrt(probability * (1 - probability) / trials))
