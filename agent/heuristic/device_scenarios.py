"""Scenarios for devices on a design's lines (I2C, SPI flash, SD card); pure.

The search's openings again with each device answering, long sessions for slow transfers, and
sessions in which the other I2C controller addresses a design configured over its bus (a seeded
`random.Random` in, programs out).
"""

from __future__ import annotations

import random

from agent.heuristic.moves import seed, trim
from agent.heuristic.sd_sessions import block_size_sessions, sd_command_sessions
from agent.program.i2c import addresses_host
from agent.program.iface import DEVICE_KINDS, Iface
from agent.program.ops import Op, Program, op
from agent.program.target import Target

DEVICE_SESSION = 6000
"""Cycles each random command waits for a device on the lines to answer it (a block of an SD
card over SPI at a quarter of the clock takes about 17,000)."""

DEVICE_SESSIONS = 6
"""Random commands per device session scenario."""

def with_devices(rng: random.Random, t: Target, programs: list[tuple[str, Program]]) -> list[tuple[str, Program]]:
    """Every scenario again with each device on the lines answering after the first reset.

    Alternately a clean device (every transfer acknowledged, no clock stretching) and a rough
    one (latency 2: stretching and refusals). Then per device two session scenarios (clean,
    rough): random commands on the other inputs, each held `DEVICE_SESSION` cycles.
    """
    out = []
    for d in (r for r in t.interfaces.responders if r.kind in DEVICE_KINDS):
        for k, (name, p) in enumerate(programs):
            first = next((i for i, o in enumerate(p.ops) if o.name == "reset"), -1) + 1
            device = op("respond", d.name, fill="random", seed=seed(rng), latency=2 * (k % 2))
            out.append((f"{name} with the {d.name} device", Program((*p.ops[:first], device, *p.ops[first:]))))
        for latency in (0, 2):
            # Sessions: a device transfer (an SD card's initialisation, a 512-byte block) takes
            # thousands of cycles, so each random command on the other inputs is held that long.
            ops = [op("reset"), op("respond", d.name, fill="random", seed=seed(rng), latency=latency),
                   op("hold", DEVICE_SESSION // 2)]
            for _ in range(DEVICE_SESSIONS):
                ops += [op("random", 1, seed(rng), pal=50, keep=0), op("hold", DEVICE_SESSION)]
            out.append((f"{d.name} device sessions, latency {latency}", Program(tuple(ops))))
        out += _addressed_sessions(rng, t, d)
        out += sd_command_sessions(t, d)
        out += block_size_sessions(t, d)
    return out


def _addressed_sessions(rng: random.Random, t: Target, d: Iface) -> list[tuple[str, Program]]:
    """Sessions in which the other controller on an I2C bus addresses a design configured over its bus.

    A controller with a slave mode answers only once its registers enable it (an enable and a
    slave-enable bit) and its lines are sampled fast enough (a small prescaler): per register,
    every register is written 0 (dividers at their fastest, the own address at the general
    call) and that one all ones (every mode bit on), then random commands are held for sessions
    on a rough bus while the other controller addresses the design.
    """
    if d.kind != "i2c" or not addresses_host(d):
        return []
    out = []
    for bus in t.interfaces.buses:
        for reg in bus.addresses[:8]:
            ops = _enabled(rng, d, bus, reg)
            for _ in range(DEVICE_SESSIONS // 2):
                ops += [op("random", 1, seed(rng), pal=50, keep=0), op("hold", DEVICE_SESSION)]
            out.append((f"{d.name} addressed with {bus.name} register {reg:#x} all ones", trim(t, Program(tuple(ops)))))
        out += _serviced_sessions(rng, t, d, bus)
    return out


def _enabled(rng: random.Random, d: Iface, bus: Iface, reg: int) -> list[Op]:
    """A session's opening: the device on a rough bus, every register 0, `reg` all ones, a wait."""
    ones = (1 << bus.register_bits) - 1
    return [op("reset"), op("respond", d.name, fill="random", seed=seed(rng), latency=2),
            *(op("bus_write", bus.name, a, 0) for a in bus.addresses[:8]), op("bus_write", bus.name, reg, ones),
            op("hold", DEVICE_SESSION)]


SERVICE_WORD = 0x03
"""What software writes to go on after a slave-mode event: the low bits of a command register
(OpenCores I2C: bit 0 acknowledges the interrupt, bit 1 releases the clock it stretches)."""

SERVICE_ROUNDS = 80
"""Service rounds per serviced session (each: the registers after the enabling one written, then
a pause): about 50,000 cycles, in which the other controller addresses the design several times."""

SERVICE_PAUSE = 600
"""Cycles between service rounds: well inside the other controller's patience (`sv_i2c.HOST_WAIT`)."""


def _serviced_sessions(rng: random.Random, t: Target, d: Iface, bus: Iface) -> list[tuple[str, Program]]:
    """Addressed sessions in which software answers each slave-mode event, as a driver's interrupt handler does.

    A controller addressed by another one stretches SCL after each byte until software says
    go on (and, when read from, has loaded the byte to send): without that the other
    controller gives the transfer up. Per register enabled as in `_addressed_sessions`, each
    register after it is written `SERVICE_WORD` and then 0 again, round after round (0 again:
    an own-address register keeps the value the session set). On freecores' i2c_master_top
    this reaches the slave read and write paths that unserviced sessions never do.
    """
    out = []
    for reg in bus.addresses[:8]:
        # The registers after the enabling one (command, data, own address): a write to a divider
        # before it, even one undone at once, slows the design's line sampling for a while and
        # it then misreads START and STOP on the bus.
        others = [a for a in bus.addresses[:8] if a > reg]
        if not others:
            continue
        service = [o for a in others for o in (op("bus_write", bus.name, a, SERVICE_WORD), op("bus_write", bus.name, a, 0))]
        ops = [*_enabled(rng, d, bus, reg), Op("repeat", (("times", SERVICE_ROUNDS),), (*service, op("hold", SERVICE_PAUSE)))]
        out.append((f"{d.name} addressed and serviced with {bus.name} register {reg:#x} all ones",
                    trim(t, Program(tuple(ops)))))
    return out
