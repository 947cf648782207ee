"""The testbench's random source, bit for bit in Python: xorshift32 and the value draws built on it.

The SV task library (`sv_common.py`) draws every random value with the same xorshift32
steps in the same order, so Python knows exactly which vector a program applied at any
step of a `random` operation (to blame a failing run on the values in force, and to
render the same stimulus as a cocotb test).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

MASK32 = 0xFFFF_FFFF
"""One 32-bit word."""

SPARSE_PERCENT = 15
"""Chance (percent) that a random value of a field wider than 4 bits has only 1-3 bits set."""


def xorshift32(state: int) -> int:
    """The next state of Marsaglia's xorshift32 (13, 17, 5); 0 stays 0, so seeds are never 0."""
    state ^= (state << 13) & MASK32
    state ^= state >> 17
    state ^= (state << 5) & MASK32
    return state & MASK32


class Rng:
    """A xorshift32 stream, as the testbench's `bw_rand()` runs it."""

    def __init__(self, seed: int) -> None:
        self.state = (seed & MASK32) or 1
        """Current state (the value the last draw returned)."""

    def next(self) -> int:
        """Advance and return the new state (what `bw_rand()` returns)."""
        self.state = xorshift32(self.state)
        return self.state


def random_bits(rng: Rng, width: int) -> int:
    """`bw_bits(w)`: sometimes 1-3 set bits (fields over 4 bits), else `width` uniform bits.

    Words fill bits [32k, 32k+32) for k = 0, 1, ..., so wide fields draw low words first.
    """
    if width > 4 and rng.next() % 100 < SPARSE_PERCENT:
        value = 0
        for _ in range(1 + rng.next() % 3):
            value |= 1 << (rng.next() % width)
        return value
    value = 0
    for k in range(0, width, 32):
        value |= rng.next() << k
    return value & ((1 << width) - 1)


@dataclass(frozen=True)
class DrawField:
    """What the random operation needs to know of one field."""

    bits: int
    """Flattened width."""
    palette: tuple[int, ...]
    """Interesting values (empty: uniform only)."""
    reset: bool = False
    """True for a reset input (never drawn; pulsed by `resets`)."""


def random_steps(fields: Sequence[DrawField], start: Sequence[int], *, cycles: int, seed: int, pal: int,
                 keep: int, maxhold: int, resets: int, only: Sequence[bool],
                 asserted: Sequence[int], idle: Sequence[int]) -> list[tuple[tuple[int, ...], int]]:
    """The (vector, cycles) steps `bw_random` applies, starting from the values `start`.

    Per step, each selected non-reset field draws `r = rand % 100`: below `keep` it keeps
    its value, below `keep + pal` it takes a palette value, else `random_bits`. With
    `resets` > 0 one more draw decides (per mille) whether the resets pulse this step. The
    step lasts `1 + rand % maxhold` cycles when `maxhold` > 1. (`avoid` rules are applied
    by the caller, as in the testbench.)
    """
    rng = Rng(seed)
    values = list(start)
    out: list[tuple[tuple[int, ...], int]] = []
    for _ in range(cycles):
        for i, f in enumerate(fields):
            if f.reset or not only[i]:
                continue
            r = rng.next() % 100
            if r < keep:
                continue
            if r < keep + pal and f.palette:
                values[i] = f.palette[rng.next() % len(f.palette)]
            else:
                values[i] = random_bits(rng, f.bits)
        if resets > 0 and any(f.reset for f in fields):  # the testbench draws only when there is a reset
            pulse = rng.next() % 1000 < resets
            for i, f in enumerate(fields):
                if f.reset:
                    values[i] = asserted[i] if pulse else idle[i]
        hold = 1 + rng.next() % maxhold if maxhold > 1 else 1
        out.append((tuple(values), hold))
    return out
