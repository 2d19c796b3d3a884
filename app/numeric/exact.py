"""GMP's integers (gmpy2) for the exact arm-wrestle walk (`app.rules.odds.arm_wrestling`,
docs/rules.md#odds), which the service passes to its `arm_wrestle_odds`: the same walk, the
same fractions, in about half the time of Python's own integers for the same budget of work
(docs/performance.md#odds), so that the service's exact answers and the refusals past the
budget both take about half a second at most.

The rules core stays the standard library: it takes the integer type as a parameter
(`Integers`), and this module makes GMP's. gmpy2 is light to import (no NumPy), so the
server answers its short matches inline with it too.
"""

from __future__ import annotations

from typing import cast

from gmpy2 import mpz


def gmp(value: int) -> int:
    """`value` as GMP's integer, which has every operator of `int` the walk uses."""
    return cast(int, mpz(value))
