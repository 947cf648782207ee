"""Configuration words for register writes: mode bits on top, a divider or count below.

Pure (a seeded `random.Random` in, integers out). Control registers often keep mode bits in
the top byte and a divider or count at the bottom; the scenarios write such words so the
design keeps moving (the small low value) while its modes are tried (the top byte).
"""

from __future__ import annotations

import random


def structured_word(rng: random.Random, bits: int, low: int) -> int:
    """A configuration-like word: random bits in the top byte, a small value below, zeros between.

    Control registers often keep mode bits at the top and a divider or count at the bottom;
    random top bits try the modes while the small low value keeps the design moving.
    """
    if bits <= 8:
        return rng.getrandbits(bits)
    top = rng.getrandbits(8) << (bits - 8)
    return (top | (low & ((1 << (bits - 8)) - 1))) & ((1 << bits) - 1)


MODE_WORDS = 6
"""Words `mode_words` gives: rows of a covering array for eight binary mode bits."""


def _pair_columns() -> tuple[tuple[int, ...], ...]:
    """Ten 6-row columns, each pair of which shows 00, 01, 10 and 11 somewhere.

    Weight-3 vectors that start with 0: two of them share a 1 (3 + 3 ones in 5 rows), each has
    a 1 where the other has not (same weight, distinct) and both are 0 in row 0.
    """
    rows = MODE_WORDS
    out = []
    for bits in range(1 << rows):
        if bin(bits).count("1") == 3 and not bits & 1:
            out.append(tuple((bits >> r) & 1 for r in range(rows)))
    return tuple(out)


PAIR_COLUMNS = _pair_columns()


def mode_words(rng: random.Random, bits: int, low: int) -> tuple[int, ...]:
    """`MODE_WORDS` configuration words whose top byte takes every pair of mode bits both ways.

    Like `structured_word` (modes on top, `low` below), but a strength-2 covering array instead
    of random bytes: two 2-bit fields (a data width, a parity kind) then see all of their values
    within six writes, where three random bytes miss one combination about half the time.
    """
    if bits <= 8:
        return tuple(rng.getrandbits(bits) for _ in range(MODE_WORDS))
    columns = rng.sample(PAIR_COLUMNS, 8)
    low_part = low & ((1 << (bits - 8)) - 1)
    return tuple(
        (sum(col[row] << j for j, col in enumerate(columns)) << (bits - 8)) | low_part
        for row in range(MODE_WORDS)
    )


PARITY_BITS = 3
"""Mode bits `parity_code_words` takes every code of: a parity field is often three bits
(enable, fixed or stick, even or odd: wbuart32's setup bits 24-26), whose eight codes select
different rules; a strength-2 covering array holds only some of them."""


def parity_code_words(word: int, bits: int) -> tuple[int, ...]:
    """`word` with each code of the top byte's lowest `PARITY_BITS` bits (highest code first), the other mode bits clear.

    The low part (the period) is kept. None for registers of a byte or less (their mode bits
    are not above a period).
    """
    if bits <= 8:
        return ()
    shift = bits - 8
    low = word & ((1 << shift) - 1)
    # highest first: wbuart32's enable is the top bit of the three, and a program holds three passes
    return tuple(code << shift | low for code in reversed(range(1 << PARITY_BITS)))
