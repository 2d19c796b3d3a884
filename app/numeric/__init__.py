"""Numeric walks for the odds the exact walks cannot answer within their budget
(docs/rules.md#odds): NumPy arrays of doubles with every rounding error bounded.

The rules core (`app.rules`) stays pure Python; this package is used by the odds worker only,
for questions too long for an exact answer, and reads the rules through the core's own
functions (`app.rules.arm_wrestling`, `app.rules.odds.arm_wrestling`).
"""
