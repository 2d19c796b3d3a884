"""The exact arm-wrestle walk (`app.rules.odds.arm_wrestling`, docs/rules.md#odds) over GMP's
integers (gmpy2): the same walk, the same fractions, in about half the time of Python's own
integers for the same budget of work (docs/performance.md#odds), so that the service's exact
answers and the refusals past the budget both take about half a second at most.

The rules core stays the standard library: it takes the integer type as a parameter
(`Integers`), and this module hands it GMP's. gmpy2 is light to import (no NumPy), so the
server answers its short matches inline with it too.
"""

from __future__ import annotations

from functools import lru_cache
from typing import cast

from gmpy2 import mpz

from app.rules import arm_wrestling as rules
from app.rules.odds import arm_wrestling as exact


def gmp(value: int) -> int:
    """`value` as GMP's integer, which has every operator of `int` the walk uses."""
    return cast(int, mpz(value))


@lru_cache(maxsize=256)
def arm_wrestle_odds(config: rules.Config, state: rules.State) -> exact.ArmWrestleOdds:
    """`exact.exact_odds` in GMP's integers, kept for the questions asked again; raises
    `exact.TooLarge` past its budget, as it does."""
    rules.check_config(config)
    return exact.exact_odds(config, state, integer=gmp)
