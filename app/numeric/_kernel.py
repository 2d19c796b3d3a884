"""The compiled round of `app.numeric.arm_wrestling.Walk` (Numba, no Python objects inside).

Every operation is an IEEE double addition or multiplication of non-negative numbers, in a
fixed order (Numba compiles without `fastmath`: no reassociation), so the roundings counted in
`app.numeric.arm_wrestling` bound its error.
"""

from __future__ import annotations

import numpy as np
from numba import njit

SPREAD = 19
D20 = 20


@njit(cache=True, nogil=True)
def _window(x, count, out, scratch):  # type: ignore[no-untyped-def]
    """out[j] (count + 19 entries) = x[j - 19] + ... + x[j] (x[i] = 0 outside 0..count - 1),
    as a tree of adds 5 deep: pairs, fours, eights, sixteens, and a sixteen and a four."""
    padded = scratch[0]
    twos = scratch[1]
    fours = scratch[2]
    eights = scratch[3]
    sixteens = scratch[4]
    total = count + 2 * SPREAD
    for i in range(SPREAD):
        padded[i] = 0.0
        padded[SPREAD + count + i] = 0.0
    for i in range(count):
        padded[SPREAD + i] = x[i]
    for i in range(total - 1):
        twos[i] = padded[i] + padded[i + 1]
    for i in range(total - 3):
        fours[i] = twos[i] + twos[i + 2]
    for i in range(total - 7):
        eights[i] = fours[i] + fours[i + 4]
    for i in range(total - 15):
        sixteens[i] = eights[i] + eights[i + 8]
    for j in range(count + SPREAD):
        out[j] = sixteens[j] + fours[16 + j]


@njit(cache=True, nogil=True)
def _pairwise(x):  # type: ignore[no-untyped-def]
    """The sum of x by halving: ceil(log2(len(x))) roundings deep."""
    count = x.shape[0]
    if count == 0:
        return 0.0
    work = x.copy()
    while count > 1:
        half = count // 2
        for i in range(half):
            work[i] = work[2 * i] + work[2 * i + 1]
        if count % 2:
            work[half] = work[count - 1]
            count = half + 1
        else:
            count = half
    return work[0]


@njit(cache=True, nogil=True)
def _spread_row(row, out, offset, scratch):  # type: ignore[no-untyped-def]
    """out[offset + j] = sum over |k| <= 19 of (20 - |k|) * row[j - 19 + k], for the
    columns the row's support reaches."""
    count = row.shape[0]
    first = 0
    while first < count and row[first] == 0.0:
        first += 1
    if first == count:
        return
    last = count - 1
    while row[last] == 0.0:
        last -= 1
    width = last + 1 - first
    once = scratch[5]
    _window(row[first : last + 1], width, once, scratch)
    _window(once, width + SPREAD, out[offset + first :], scratch)


@njit(cache=True, nogil=True)
def play_round(lead_a, lead_b, level, shift, cut, prune, scale):  # type: ignore[no-untyped-def]
    """One round of Strength checks over the square windows `lead_a`, `lead_b` (rows `c`,
    columns `g`) and `level` (equal DS at `c`); the new windows are `2 * reach` wider (index
    `i` of the old is `i + reach` of the new). `cut`: the new columns at or below distance 0.

    Returns the new arrays, the weights reaching the target (a's, b's), the weights alive
    (a leading, b leading, level), the weight pruned, and the used index range."""
    reach = SPREAD + abs(shift)
    old = lead_a.shape[0]
    size = old + 2 * reach
    new_a = np.zeros((size, size))
    new_b = np.zeros((size, size))
    new_level = np.zeros(size)
    start_a = reach - shift - SPREAD
    start_b = reach + shift - SPREAD
    scratch = np.empty((6, old + 4 * SPREAD + 2))
    # Alive weights lie below the diagonal (g < c): row r's columns 0 .. r - 1.
    for r in range(old):
        _spread_row(lead_a[r, :r], new_a[r + reach], start_a, scratch)
        _spread_row(lead_b[r, :r], new_b[r + reach], start_b, scratch)
    for r in range(old):
        weight = level[r]
        if weight == 0.0:
            continue
        at = r + reach
        for k in range(-SPREAD, SPREAD + 1):
            moved = weight * (D20 - abs(k))
            x = shift + k
            if x > 0:
                new_a[at, at - x] += moved
            elif x < 0:
                new_b[at, at + x] += moved
            else:
                new_level[at] += moved
    for i in range(size):
        new_level[i] = (new_level[i] + new_a[i, i]) + new_b[i, i]
        new_a[i, i] = 0.0
        new_b[i, i] = 0.0
    # Targets reached: the columns below `cut`.
    reached_a_rows = np.zeros(size)
    reached_b_rows = np.zeros(size)
    if cut > 0:
        for i in range(size):
            reached_a_rows[i] = _pairwise(new_a[i, :cut])
            reached_b_rows[i] = _pairwise(new_b[i, :cut])
            new_a[i, :cut] = 0.0
            new_b[i, :cut] = 0.0
    reached_a = _pairwise(reached_a_rows) * scale
    reached_b = _pairwise(reached_b_rows) * scale
    # Crossings: g > c (within `reach` of the diagonal) to the other's transposed cell.
    for i in range(size):
        for j in range(i + 1, min(i + 2 * reach + 1, size)):
            up_a = new_a[i, j]
            up_b = new_b[i, j]
            if up_a != 0.0:
                new_a[i, j] = 0.0
                new_b[j, i] += up_a
            if up_b != 0.0:
                new_b[i, j] = 0.0
                new_a[j, i] += up_b
    # Scale, prune, read out.
    pruned = 0.0
    low = size
    high = -1
    sums_a = np.zeros(size)
    sums_b = np.zeros(size)
    first = max(cut, 0)
    for i in range(size):
        for grid in (new_a, new_b):
            row = grid[i]
            for j in range(first, i):
                value = row[j]
                if value != 0.0:
                    value *= scale
                    if value < prune:
                        pruned += value
                        value = 0.0
                    else:
                        if i < low:
                            low = i
                        if i > high:
                            high = i
                        if j < low:
                            low = j
                        if j > high:
                            high = j
                    row[j] = value
        if i > first:
            sums_a[i] = _pairwise(new_a[i, first:i])
            sums_b[i] = _pairwise(new_b[i, first:i])
        value = new_level[i] * scale
        if value != 0.0 and value < prune:
            pruned += value
            value = 0.0
        elif value != 0.0:
            if i < low:
                low = i
            if i > high:
                high = i
        new_level[i] = value
    alive_a = _pairwise(sums_a)
    alive_b = _pairwise(sums_b)
    alive_level = _pairwise(new_level)
    return (
        new_a,
        new_b,
        new_level,
        reached_a,
        reached_b,
        alive_a,
        alive_b,
        alive_level,
        pruned,
        low,
        high + 1,
    )
