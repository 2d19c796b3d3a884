"""Odds of every contest (docs/rules.md#odds): exact where the state space allows, else Monte Carlo.

Pure functions over the rules' own functions (`app.rules.gurps.judge_success`,
`app.rules.arm_wrestling.push`, …): the odds are computed from the same rules the resolutions
play, never from a second copy of them. Probabilities are `fractions.Fraction`s; every exact
distribution sums to exactly 1. Monte Carlo estimates play the rules with seeded dice
(`app.rules.dice.SeededRng`) under a counted budget of work, never a clock.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import MAX_EMAX, MIN_EMIN, Context, Decimal
from fractions import Fraction
from math import gcd
from typing import Final

#: An exact distribution: value -> probability.
Distribution = Mapping[int, Fraction]

#: Fractions whose numerator or denominator has more digits are written as their decimal
#: instead (Python refuses to print integers past 4300 digits, and nobody reads them).
MAX_EXACT_DIGITS: Final = 4000
#: The significant digits of that decimal: a double's full precision (any double is told
#: apart from its neighbours by 17 digits).
DECIMAL_DIGITS: Final = 17
_DECIMAL: Final = Context(prec=DECIMAL_DIGITS, Emin=MIN_EMIN, Emax=MAX_EMAX)
#: `10**MAX_EXACT_DIGITS`, computed once (about 25 us each time: it was a third of a quick
#: contest's odds).
_TOO_LONG: Final = 10**MAX_EXACT_DIGITS


def fraction_text(probability: Fraction) -> str:
    """`"29715/46656"`; past `MAX_EXACT_DIGITS` digits, the fraction's decimal to a double's
    full precision, rounded from the exact fraction (`"0.49942821647633267"`, `"1.2E-5000"`)."""
    if abs(probability.numerator) >= _TOO_LONG or probability.denominator >= _TOO_LONG:
        quotient = _DECIMAL.divide(Decimal(probability.numerator), Decimal(probability.denominator))
        return str(quotient)
    return str(probability)


def ratio_text(count: int, total: int) -> str:
    """`count / total` written as `fraction_text` writes the Fraction (`"29715/46656"`, `"0"`,
    `"1"`), with no Fraction made: for small integer counts, as a quick contest's."""
    common = gcd(count, total)
    numerator, denominator = count // common, total // common
    return str(numerator) if denominator == 1 else f"{numerator}/{denominator}"


def normalised(counts: Mapping[int, int], total: int) -> dict[int, Fraction]:
    """Counts out of `total` as a distribution sorted by value (zero counts left out)."""
    return {value: Fraction(count, total) for value, count in sorted(counts.items()) if count}
