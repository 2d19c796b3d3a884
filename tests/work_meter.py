"""Counting the work dice notation does, for tests that bound it by counting, not timing."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import d20
import pytest

from app.rules.dice import Rng


class WorkMeter:
    """Counts the work d20 does, wherever it is asked to: evaluator steps (one per node) and
    the dice its selectors and minimum/maximum passes look at (each pass reads the whole set);
    with `count_draws`, also the dice a module's request RNG hands out.

    The counters sit on d20's own classes, below the guards of app.notation, so work that a
    guard failed to charge is counted all the same.
    """

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.monkeypatch = monkeypatch
        self.drawn = self.steps = self.looked_at = 0
        evaluate = d20.Roller._eval
        select = d20.SetSelector.select

        def counted_eval(roller: Any, node: Any) -> Any:
            self.steps += 1
            return evaluate(roller, node)

        def counted_select(selector: Any, target: Any, max_targets: int | None = None) -> Any:
            self.looked_at += len(target.set)
            return select(selector, target, max_targets)

        def counted_pass(original: Callable[[Any, Any], None]) -> Callable[[Any, Any], None]:
            def run(operator: Any, target: Any) -> None:
                self.looked_at += len(target.set)
                original(operator, target)

            return run

        monkeypatch.setattr(d20.Roller, "_eval", counted_eval)
        monkeypatch.setattr(d20.SetSelector, "select", counted_select)
        for name in ("minimum", "maximum"):
            monkeypatch.setattr(d20.SetOperator, name, counted_pass(getattr(d20.SetOperator, name)))

    def count_draws(self, module: ModuleType) -> None:
        """Count the dice drawn from the RNGs `module.request_rng` makes."""
        meter = self
        make = module.request_rng

        class CountingRng:
            def __init__(self, rng: Rng) -> None:
                self._rng = rng

            def die(self, sides: int) -> int:
                meter.drawn += 1
                return self._rng.die(sides)

        self.monkeypatch.setattr(module, "request_rng", lambda seed: CountingRng(make(seed)))

    def reset(self) -> None:
        self.drawn = self.steps = self.looked_at = 0
