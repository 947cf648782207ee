"""Edits of kept programs: one argument redrawn, an operation dropped, two programs spliced, learned rules.

Pure and seeded like `moves` (whose generators grow programs; these change them).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from agent.heuristic.moves import seed, trim
from agent.heuristic.stimulus import Hints
from agent.program.ops import Op, Program
from agent.program.target import Target


def _value(rng: random.Random, t: Target, name: str) -> int:
    """A value for field `name`: from its palette mostly, else random bits."""
    f = t.fields[t.index(name)]
    pal = t.palettes.get(name, ())
    if pal and rng.random() < 0.7:
        return rng.choice(pal) & f.mask
    return rng.getrandbits(f.bits)


def mutate(rng: random.Random, t: Target, h: Hints, parent: Program) -> Program:
    """One argument of one operation redrawn (a seed, a count, a value), or an operation dropped."""
    ops = list(parent.ops)
    if len(ops) <= 1:
        return parent
    k = rng.randrange(1, len(ops))
    target = ops[k]
    if rng.random() < 0.25:
        del ops[k]
        return Program(tuple(ops))
    ops[k] = _mutate_op(rng, t, target)
    return trim(t, Program(tuple(ops)))


def _mutate_op(rng: random.Random, t: Target, o: Op) -> Op:
    args = dict(o.args)
    if o.name in ("set", "avoid") and o.args:
        name, _ = rng.choice(list(o.args))
        return Op(
            o.name, tuple((k, _value(rng, t, k) if k == name else v) for k, v in o.args)
        )
    for key in (
        "seed",
        "cycles",
        "addr",
        "data",
        "beats",
        "pal",
        "keep",
        "latency",
        "ready",
        "timeout",
    ):
        if key in args or (
            key == "seed" and o.name in ("random", "send", "respond", "sink", "fill")
        ):
            if key == "seed":
                return o.with_arg("seed", seed(rng))
            value = args.get(key, o.get(key))
            if isinstance(value, int):
                scaled = (
                    max(1, int(value * rng.choice((0.5, 2.0))))
                    if key in ("cycles", "beats", "timeout")
                    else rng.getrandbits(max(1, value.bit_length() + 1))
                )
                if key in ("pal", "keep", "ready"):
                    scaled = rng.choice((0, 20, 50, 80, 100))
                if key == "latency":
                    scaled = rng.randint(0, 4)
                try:
                    return o.with_arg(
                        key,
                        min(scaled, 1 << 20)
                        if key in ("cycles", "timeout")
                        else scaled,
                    )
                except TypeError:
                    return o
    return o


def splice(rng: random.Random, t: Target, a: Program, b: Program) -> Program:
    """A prefix of `a` followed by a suffix of `b` (both keep their leading reset)."""
    if len(a.ops) < 2 or len(b.ops) < 2:
        return a
    cut_a = rng.randrange(1, len(a.ops))
    cut_b = rng.randrange(1, len(b.ops))
    return trim(t, Program(a.ops[:cut_a] + b.ops[cut_b:]))


def with_avoid(p: Program, avoid: Sequence[Op]) -> Program:
    """`p` with the learned `avoid` rules right after its first reset (duplicates dropped)."""
    rest = [o for o in p.ops[1:] if o.name != "avoid"]
    return replace(p, ops=(p.ops[0], *avoid, *rest)) if p.ops else p
