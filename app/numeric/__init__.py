"""Numeric walks of the odds (docs/rules.md#odds): the exact arm-wrestle walk over GMP's
integers (`exact`, light, imported by the server too), and for the questions the exact walks
cannot answer within their budget NumPy arrays of doubles with every rounding error bounded
(`arm_wrestling`, the odds worker only).

The rules core (`app.rules`) stays pure Python; this package reads the rules through the
core's own functions (`app.rules.arm_wrestling`, `app.rules.odds.arm_wrestling`).
"""
