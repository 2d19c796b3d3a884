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


class Moments:
    """Running sums of one quantity over trials, for its mean and standard error."""

    __slots__ = ("count", "squares", "total")

    def __init__(self) -> None:
        self.count = 0
        self.total = 0.0
        self.squares = 0.0

    def add(self, value: float) -> None:
        self.count += 1
        self.total += value
        self.squares += value * value

    def estimate(self) -> Estimate:
        """The mean, and the standard error of the mean (the sample variance over `count`)."""
        mean = self.total / self.count
        if self.count < 2:
            return Estimate(mean, 0.0)
        variance = max(self.squares - self.count * mean * mean, 0.0) / (self.count - 1)
        return Estimate(mean, sqrt(variance / self.count))
