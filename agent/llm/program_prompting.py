"""Program-mode prompts: the model writes a stimulus program, the testbench around it is ours.

LLM4Cov's memoryless format with a program in place of the testbench: the system turn,
then a user turn whose head is the same every round (the RTL fitted to the context and an
interface summary: fields and widths, clocks and resets, recognised protocols, write ports,
mined constants, and the operations this design supports) and whose tail is the round
(the current program and its coverage holes, or the first request). Templates are
agent/llm/prompts/program_*.j2, rendered by the renderer SFT data uses too.
"""

from __future__ import annotations

from typing import Any

from agent.llm.prompting import (
    PromptLimits,
    instruction_for,
    render_template,
    result_view,
    rtl_files,
)
from agent.policy import State
from agent.program.interfaces import Iface
from agent.program.ops import Arg, OpSpec, Program
from agent.program.sv_read import parse_testbench
from agent.program.target import Target
from agent.program.text import format_program, value_text
from sim.suite import Design

MAX_PALETTE_SHOWN = 8
"""Interesting values listed per input."""

MAX_ADDRESSES_SHOWN = 8
"""Addresses listed per bus."""

PROTOCOLS = {
    "wishbone": "a Wishbone bus the design serves",
    "axil": "an AXI4-Lite bus the design serves",
    "apb": "an APB bus the design serves",
    "ahb": "an AHB-Lite bus the design serves",
    "avalon": "an Avalon-MM bus the design serves",
    "mem": "memory requests the design makes (answer them with `respond`)",
    "reqack": "requests the design makes (answer them with `respond`)",
    "split": "memory requests the design makes, answered later with their tags (answer them with `respond`)",
    "axi_master": "an AXI master port of the design (answer it with `respond`)",
    "wb_master": "a Wishbone master port of the design (answer it with `respond`)",
    "ahb_master": "an AHB-Lite manager port of the design (answer it with `respond`)",
    "i2c": "the I2C lines of a controller (a target device answers with `respond`)",
    "spi_flash": "the SPI lines of a controller (a serial NOR flash answers with `respond`)",
    "sd": "the SPI lines of an SD-card controller (a card answers with `respond`)",
    "stream": "a valid/ready stream into the design (`send`)",
    "sink": "a valid/ready stream out of the design (`sink` drives its ready)",
    "serial": "a serial (UART) input (`serial` sends frames)",
}
"""What each recognised interface kind is, in one phrase."""

def _is_corner(value: int, bits: int) -> bool:
    """0, 1, all ones, one-hot, one-cold and the signed extremes: values `corners` drives anyway."""
    mask = (1 << bits) - 1
    return value in (0, 1, mask, mask >> 1, 1 << (bits - 1)) or (value & (value - 1)) == 0 \
        or ((mask ^ value) & ((mask ^ value) - 1)) == 0


def _arg_text(arg: Arg, positional: bool) -> str:
    """`ADDR`, `[CYCLES]` (positional with a default) or `[pal=40]`."""
    if positional:
        return arg.name.upper() if arg.required else f"[{arg.name.upper()}]"
    default = "" if arg.default is None or arg.default == () else value_text(arg.default, arg.hex)
    return f"[{arg.name}={default or '...'}]"


def _names_for(arg: Arg, target: Target) -> tuple[str, ...]:
    """The design's names an argument of kind `name:<kind>` may take (none for fields and outputs)."""
    kind = arg.kind.split(":", 1)[1] if ":" in arg.kind else ""
    if not arg.kind.startswith("name:") or kind in ("field", "output"):
        return ()
    return tuple(target.scope.names.get(kind, ()))


def op_line(spec: OpSpec, target: Target, docs: bool = True) -> str:
    """One operation's syntax and meaning, with the design's names for its name arguments.

    `docs=False`: the syntax and the names only (to fit a small context).
    """
    if spec.assigns:
        syntax = f"{spec.name} INPUT=VALUE ..."
    else:
        parts = [_arg_text(a, k < spec.n_positional) for k, a in enumerate(spec.args)]
        syntax = " ".join([spec.name, *parts]) + (" { ... }" if spec.block else "")
    names = [f"{a.name.upper()}: {', '.join(n)}" for a in spec.args if (n := _names_for(a, target))]
    what = f": {spec.doc}" if docs else ""
    return f"`{syntax}`{what}" + (f" ({'; '.join(names)})" if names else "")


def _iface_line(iface: Iface) -> str:
    what = PROTOCOLS.get(iface.kind, iface.kind)
    sizes = []
    if iface.addr_bits:
        sizes.append(f"address {iface.addr_bits} bits")
    if iface.data_bits:
        sizes.append(f"data {iface.data_bits} bits")
    if iface.addresses:
        shown = ", ".join(hex(a) for a in iface.addresses[:MAX_ADDRESSES_SHOWN])
        sizes.append(f"addresses {shown}{', ...' if len(iface.addresses) > MAX_ADDRESSES_SHOWN else ''}")
    if iface.periods:
        sizes.append("bit periods to try " + ", ".join(str(p) for p in iface.periods[:4]))
    if iface.partner:
        sizes.append(f"`loopback` connects it to {iface.partner}")
    return f"`{iface.name}`: {what}" + (f" ({'; '.join(sizes)})" if sizes else "")


def _capped(items: list[str], most: int) -> list[str]:
    """The first `most` items, and a line saying how many were left out."""
    return items if len(items) <= most else [*items[:most], f"... {len(items) - most} more left out to fit"]


def interface_view(target: Target, most: int = 200, op_docs: bool = True) -> dict[str, Any]:
    """Plain data for program_context.j2: inputs, outputs, clocks, interfaces, write ports, constants.

    `most`: items of each list (inputs, outputs, write ports, constants) kept to fit a context;
    `op_docs=False` lists the operations' syntax without their meanings.
    """
    inputs = []
    for f in target.fields:
        note = ""
        if f.reset:
            note = f", reset, active {'low' if f.active_low else 'high'}"
        elif f.dims:
            note = f", array {'x'.join(str(d) for d in f.dims)} of {f.width} bits"
        inputs.append(f"{f.name} ({f.bits} bit{'s' if f.bits != 1 else ''}{note})")
    outputs = [f"{name} ({bits})" for name, bits in target.outputs()]
    ifaces = [_iface_line(i) for i in target.interfaces.all()]
    ports = []
    for name, wp in target.interfaces.ports:
        how = ", ".join(f"{n}={v}" for n, v in wp.enable)
        where = f"{wp.depth} entries of {wp.width} bits" if wp.kind == "memory" else f"a {wp.width}-bit register"
        addr = f", address {wp.address}" if wp.address else ""
        ports.append(f"`{name}`: {where} ({wp.storage}), written with {how or 'no enable'}{addr}")
    constants = []
    for f in target.fields:
        values = [v for v in target.palettes.get(f.name, ()) if f.bits > 1 and not _is_corner(v, f.bits)]
        if values:
            shown = ", ".join(value_text(v) for v in values[:MAX_PALETTE_SHOWN])
            constants.append(f"{f.name}: {shown}{', ...' if len(values) > MAX_PALETTE_SHOWN else ''}")
    ops = [op_line(s, target, op_docs) for s in target.scope.available()]
    return {"inputs": _capped(inputs, most), "outputs": _capped(outputs, most),
            "clocks": [c.name for c in target.layout.clocks],
            "interfaces": ifaces, "ports": _capped(ports, most), "constants": _capped(constants, most), "ops": ops,
            "example": example_program(target)}


def example_program(target: Target) -> str:
    """A short program in the design's own names that shows the syntax (not a good test by itself)."""
    lines = ["reset"]
    data = [f for f in target.fields if not f.reset and not f.dims]
    if data:
        f = data[0]
        lines += [f"set {f.name}={value_text(min(f.mask, 1))}", "hold 4"]
    lines.append("random 100 0x2a")
    return "\n".join(lines)


def current_program(state: State, target: Target) -> Program | None:
    """The program of the state's testbench (None at s_0 or for a testbench we did not render)."""
    if state.testbench is None:
        return None
    return parse_testbench(state.testbench, target)


class ProgramPrompts:
    """The program format's prompts for one design (its Target names the interface)."""

    name = "program"
    """Format name."""

    def __init__(self, target: Target) -> None:
        self.target = target
        """The design as programs see it."""

    def system(self) -> str:
        """The system message (the same for every design and round)."""
        return render_template("program_system.j2").strip()

    def context(self, design: Design, limits: PromptLimits) -> str:
        """RTL (fitted), interface summary, operations, reply format."""
        spec = design.spec_text(limits.max_spec_chars).strip()
        return render_template("program_context.j2", top=design.top, description=design.description,
                               files=rtl_files(design, limits.max_rtl_chars), spec=spec,
                               fence="```", **interface_view(self.target, limits.max_view_items, limits.op_docs))

    def round(self, state: State, limits: PromptLimits) -> str:
        """The first request, or the current program with its coverage holes."""
        design = state.design
        target = f"{design.target:g}"
        if state.testbench is None and state.result is None and not state.format_error:
            return render_template("program_initial.j2", top=design.top, target=target)
        program = current_program(state, self.target)
        text = format_program(program).rstrip("\n") if program is not None else None
        if text is not None and len(text) > limits.max_testbench_chars:
            text = "\n".join(text[: limits.max_testbench_chars].splitlines()[:-1] or [""])
        return render_template(
            "program_refine.j2", top=design.top, target=target, instruction=instruction_for(state).value,
            program=text, external=state.testbench is not None and program is None,
            format_error=state.format_error, fence="```",
            result=result_view(state.result, design, limits) if state.result else None)

