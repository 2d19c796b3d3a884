"""The compiled round of `app.numeric.arm_wrestling.Walk` (Numba, no Python objects inside).

Every operation is an IEEE double addition or multiplication of non-negative numbers, in a
fixed order (Numba compiles without `fastmath`: no reassociation), so the roundings counted in
`app.numeric.arm_wrestling` bound its error. A round goes row by row (`c`), each row's checks
spread in just before a crossing may reach it and finished once none can: the rows it works
on stay in the processor's cache. Each row keeps a lower bound, the first column that may not
be zero: nothing under it is read or cleared (the rows' weights fill about two thirds of the
triangles' columns), so a round's memory traffic follows the weights, not the windows.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Compile-time constants for Numba: the exact walk's own.
from app.rules.odds.arm_wrestling import D20, SPREAD


@njit(cache=True, nogil=True)
def _box(padded, total, out, start, scratch):  # type: ignore[no-untyped-def]
    """out[start + j] = padded[j] + ... + padded[j + 19] for j < total - 19, as a tree of adds
    5 deep: pairs, fours, then five fours as (two pairs of fours) and one."""
    # Separate arrays (not rows of one): the compiler can tell they never overlap.
    twos, fours = scratch[1], scratch[2]
    for i in range(total - 1):
        twos[i] = padded[i] + padded[i + 1]
    for i in range(total - 3):
        fours[i] = twos[i] + twos[i + 2]
    for j in range(total - SPREAD):
        out[start + j] = ((fours[j] + fours[j + 4]) + (fours[j + 8] + fours[j + 12])) + fours[
            j + 16
        ]


@njit(cache=True, nogil=True)
def _pairwise(x, count, work):  # type: ignore[no-untyped-def]
    """The sum of x[:count] by halving (in `work`): ceil(log2(count)) roundings deep."""
    if count == 0:
        return 0.0
    for i in range(count):
        work[i] = x[i]
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
def _support(row, lo, count):  # type: ignore[no-untyped-def]
    """The first and last columns of row[lo:count] not zero (nothing under `lo` is read):
    (1, 0) for none."""
    first = lo
    while first < count and row[first] == 0.0:
        first += 1
    if first >= count:
        return 1, 0
    last = count - 1
    while row[last] == 0.0:
        last -= 1
    return first, last


@njit(cache=True, nogil=True)
def _spread_row(row, first, last, out, offset, scratch):  # type: ignore[no-untyped-def]
    """out[offset + j] = sum over |k| <= 19 of (20 - |k|) * row[j - 19 + k], the weights being
    row[first:last + 1] (zero elsewhere): columns offset + first .. offset + last + 38."""
    width = last + 1 - first
    # Two windows of 20: `row` padded with 19 zeros a side, then the first window's sums,
    # written straight into the second's padding.
    once, twice = scratch[0], scratch[3]
    for i in range(SPREAD):
        once[i] = 0.0
        once[SPREAD + width + i] = 0.0
        twice[i] = 0.0
        twice[2 * SPREAD + width + i] = 0.0
    for i in range(width):
        once[SPREAD + i] = row[first + i]
    _box(once, width + 2 * SPREAD, twice, SPREAD, scratch)
    _box(twice, width + 3 * SPREAD, out, offset + first, scratch)


@njit(cache=True, nogil=True)
def _finish_row(row, i, first, scale, prune):  # type: ignore[no-untyped-def]
    """Scale and prune row i's lower triangle (columns first .. i - 1): (its sum, added in
    order, at most `i` roundings deep; the weight pruned; the first column not zero, `i` for
    none)."""
    if i <= first:
        return 0.0, 0.0, i
    pruned = 0.0
    total = 0.0
    for j in range(first, i):
        value = row[j] * scale
        if value < prune and value != 0.0:
            pruned += value
            value = 0.0
        row[j] = value
        total += value
    low = i
    if total != 0.0:
        j = first
        while row[j] == 0.0:
            j += 1
        low = j
    return total, pruned, low


@njit(cache=True, nogil=True)
def _spread_into(lead, lo, r, new, row, start, band, top):  # type: ignore[no-untyped-def]
    """Row `row` of `new` made ready for the round: zero from the first column anything may
    be written to, up to `top`. Returns that first column (the row's lower bound until it is
    finished) and the support of the old row `r` of `lead` that the caller spreads in
    (`_support`; first > last for none, or no such row)."""
    floor = max(row - band + 1, 0)  # the equal-DS row's checks and the crossings land above
    first, last = (1, 0) if r < 0 or r >= lead.shape[0] else _support(lead[r], lo[r], r)
    if first <= last:
        floor = min(floor, start + first)
    new[row, floor:top] = 0.0
    return floor, first, last


@njit(cache=True, nogil=True)
def play_round(  # type: ignore[no-untyped-def]
    lead_a,
    lead_b,
    level,
    lo_a,
    lo_b,
    out_a,
    out_b,
    out_level,
    out_lo_a,
    out_lo_b,
    shift,
    cut,
    prune,
    scale,
    mirror,
):
    """One round of Strength checks over the square windows `lead_a`, `lead_b` (rows `c`,
    columns `g`, weights below the diagonal) and `level` (equal DS at `c`), into `out_*`
    (at least `2 * reach` wider: index `i` of the old is `i + reach` of the new). `lo_*`: per
    row, the first column that may not be zero (nothing under it is read, so it need not be
    cleared); `out_lo_*` get the new rows' (their first column not zero), in the window
    returned. `cut`: the new columns at or below distance 0. `mirror`: b's array is a's (an
    even match from equal DS stays its own mirror image), walked once.

    Returns the new arrays' size, the weights reaching the target (a's, b's), the weights
    alive (a leading, b leading, level), the weight pruned, and the used index range."""
    reach = SPREAD + abs(shift)
    old = lead_a.shape[0]
    size = old + 2 * reach
    band = 2 * reach + 1
    new_a = out_a[:size, :size]
    new_b = new_a if mirror else out_b[:size, :size]
    new_level = out_level[:size]
    new_level[:] = 0.0
    start_a = reach - shift - SPREAD
    start_b = reach + shift - SPREAD
    width = size + 4 * SPREAD + 2
    scratch = (np.empty(width), np.empty(width), np.empty(width), np.empty(width))
    work = np.empty(size + 1)
    rows_a = np.zeros(size)
    rows_b = np.zeros(size)
    sums_a = np.zeros(size)
    sums_b = sums_a if mirror else np.zeros(size)
    first = max(cut, 0)
    pruned = 0.0
    pruned_level = 0.0
    low = size
    high = 0
    ready = 0  # rows 0 .. ready - 1 have their Strength checks spread in
    for i in range(size):
        # Spread every row a crossing from row i may reach (rows up to i + band - 1).
        while ready < min(i + band, size):
            row = ready
            top = min(row + band, size)
            r = row - reach
            floor, used, last = _spread_into(lead_a, lo_a, r, new_a, row, start_a, band, top)
            out_lo_a[row] = floor
            if used <= last:
                _spread_row(lead_a[r], used, last, new_a[row], start_a, scratch)
            if not mirror:
                floor, used, last = _spread_into(lead_b, lo_b, r, new_b, row, start_b, band, top)
                out_lo_b[row] = floor
                if used <= last:
                    _spread_row(lead_b[r], used, last, new_b[row], start_b, scratch)
            if 0 <= r < old:
                weight = level[r]
                if weight != 0.0:
                    for k in range(-SPREAD, SPREAD + 1):
                        moved = weight * (D20 - abs(k))
                        x = shift + k
                        if x > 0:
                            new_a[row, row - x] += moved
                        elif x < 0:
                            if not mirror:
                                new_b[row, row + x] += moved
                        else:
                            new_level[row] += moved
            ready += 1
        # Row i: equal DS, targets reached, crossings out of it; then it is final.
        new_level[i] = (new_level[i] + new_a[i, i]) + new_b[i, i]
        new_a[i, i] = 0.0
        new_b[i, i] = 0.0
        if cut > 0:
            span = min(cut, size)
            floor = out_lo_a[i]
            if floor < span:
                rows_a[i] = _pairwise(new_a[i, floor:span], span - floor, work)
                new_a[i, floor:span] = 0.0
            floor = out_lo_b[i]
            if not mirror and floor < span:
                rows_b[i] = _pairwise(new_b[i, floor:span], span - floor, work)
                new_b[i, floor:span] = 0.0
        for j in range(i + 1, min(i + band, size)):
            up_a = new_a[i, j]
            if mirror:
                if up_a != 0.0:
                    new_a[i, j] = 0.0
                    new_a[j, i] += up_a
                continue
            up_b = new_b[i, j]
            if up_a != 0.0:
                new_a[i, j] = 0.0
                new_b[j, i] += up_a
            if up_b != 0.0:
                new_b[i, j] = 0.0
                new_a[j, i] += up_b
        total, dropped, least = _finish_row(new_a[i], i, max(first, out_lo_a[i]), scale, prune)
        out_lo_a[i] = least
        sums_a[i] = total
        pruned += dropped
        if total != 0.0:
            high = i + 1
            low = min(low, least)
        if not mirror:
            total, dropped, least = _finish_row(new_b[i], i, max(first, out_lo_b[i]), scale, prune)
            out_lo_b[i] = least
            sums_b[i] = total
            pruned += dropped
            if total != 0.0:
                high = i + 1
                low = min(low, least)
        value = new_level[i] * scale
        if value != 0.0 and value < prune:
            pruned_level += value
            value = 0.0
        elif value != 0.0:
            low = min(low, i)
            high = i + 1
        new_level[i] = value
    if mirror:
        pruned *= 2.0
    pruned += pruned_level
    reached_a = _pairwise(rows_a, size, work) * scale
    reached_b = reached_a if mirror else _pairwise(rows_b, size, work) * scale
    alive_a = _pairwise(sums_a, size, work)
    alive_b = alive_a if mirror else _pairwise(sums_b, size, work)
    alive_level = _pairwise(new_level, size, work)
    if high <= low:
        low, high = 0, 1
    # The rows' lower bounds in the window's columns (every row in it has its bound >= low).
    for i in range(low, high):
        out_lo_a[i] -= low
        if not mirror:
            out_lo_b[i] -= low
    return (
        size,
        reached_a,
        reached_b,
        alive_a,
        alive_b,
        alive_level,
        pruned,
        low,
        high,
    )
