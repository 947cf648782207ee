"""Setup discovery: storage the top inputs can write, and how to write it (pure).

A datapath that reads a table (a reciprocal ROM loaded at run time, a coefficient RAM, a
register file) or configuration registers behind an address decoder is only testable once
that storage holds something: driving the datapath over an all-zero table reaches little.
`find_write_ports(net, resets)` walks every clocked block of the elaborated hierarchy and
returns each assignment that stores input data

- into an unpacked array at an index the inputs choose (`mem[waddr] <= wdata`), or
- into a register under a condition that compares a multi-bit input with a constant
  (`if (we && addr == CTRL) ctrl <= wdata;` — an address decoder, APB/AXI-lite style),

together with input values that make its guarding conditions true and the values that
keep it untouched. A small three-valued evaluator solves the guards: internal state is
unknown, but continuous assigns and flags an `always @*` sets to 1 under input conditions
(an AXI-lite RAM's `mem_wr_en`) are looked through. `upstream_inputs` maps internal signals to the top inputs that feed them within a few
register hops (for steering toward expression-coverage operands that are registers).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from sim.analysis import ast_json as ast
from sim.analysis.ast_json import Node
from sim.analysis.netlist import Netlist, const_slice, edge_items, lhs_vars, simple_ref

MAX_DEPTH_WRITTEN = 256
"""Most entries of one array a write plan lists (spread over the array when it is larger)."""

MAX_SOLVE_COMBOS = 4096
"""Most input-value combinations the condition solver tries for one write."""

UPSTREAM_HOPS = 2
"""Register stages `upstream_inputs` looks back through."""


@dataclass(frozen=True)
class PathTerm:
    """One guard on the way to an assignment: an `if` condition or a case item."""

    node: Node
    """The if condition, or the case subject."""
    want: bool
    """If: whether the condition must be true (False: the assignment is in the else branch)."""
    items: tuple[Node, ...] | None = None
    """Case: the item's match expressions (None for an if; () for the default item)."""


@dataclass(frozen=True)
class GuardedAssign:
    """An assignment in an always block (clocked or combinational), with the guards that lead to it."""

    stmt: Node
    """The ASSIGN/ASSIGNDLY node."""
    path: tuple[PathTerm, ...]
    """Guards from the block's top to the assignment."""


@dataclass(frozen=True)
class WritePort:
    """Storage the inputs can write, and one way to write it."""

    storage: str
    """Hierarchical name below the top (`recip_table`, `u_regs.ctrl`)."""
    kind: str
    """`memory` (an unpacked array indexed by inputs) or `register` (behind an address decoder)."""
    file: str
    """Source file of the assignment."""
    line: int
    """Line of the assignment."""
    depth: int
    """Entries of the array (1 for a register)."""
    width: int
    """Bits of one entry."""
    enable: tuple[tuple[str, int], ...]
    """(input, value) that make the write's guards true (besides address and data)."""
    idle: tuple[tuple[str, int], ...]
    """(input, value) of the 1-bit enable inputs that leave the storage untouched."""
    address: str = ""
    """Input port that selects the entry ('' for a register with no address input)."""
    addresses: tuple[int, ...] = ()
    """Full values of `address` to write, one per entry (spread when the array is large)."""
    data: tuple[tuple[str, int, int], ...] = ()
    """(input, lsb, bits) slices of inputs the stored value comes from."""
    hold: int = 1
    """Cycles each write is held (2 when the guards also read internal state, such as a
    handshake that re-arms every other cycle)."""


# ----------------------------------------------------------------------------- walking


def clocked_assigns(net: Netlist) -> Iterator[GuardedAssign]:
    """Every assignment inside an edge-triggered always block of the hierarchy."""
    for module in net.module_order:
        for node in ast.walk(module):
            if node.get("type") == "ALWAYS" and edge_items(node):
                yield from _assigns_in(ast.kids(node, "stmtsp"), ())


def _assigns_in(stmts: Sequence[Node], path: tuple[PathTerm, ...]) -> Iterator[GuardedAssign]:
    for stmt in stmts:
        kind = stmt.get("type")
        if kind in ("ASSIGN", "ASSIGNDLY"):
            yield GuardedAssign(stmt, path)
        elif kind == "BEGIN":
            yield from _assigns_in(ast.kids(stmt, "stmtsp"), path)
        elif kind == "IF":
            cond = ast.first(stmt, "condp")
            if cond is None:
                continue
            yield from _assigns_in(ast.kids(stmt, "thensp"), (*path, PathTerm(cond, True)))
            yield from _assigns_in(ast.kids(stmt, "elsesp"), (*path, PathTerm(cond, False)))
        elif kind == "CASE":
            subject = ast.first(stmt, "exprp")
            if subject is None:
                continue
            for item in ast.kids(stmt, "itemsp"):
                conds = tuple(ast.kids(item, "condsp"))
                yield from _assigns_in(ast.kids(item, "stmtsp"), (*path, PathTerm(subject, True, conds)))
        elif kind == "LOOP":
            # A `for` over byte lanes (`if (wstrb[i]) mem[a][8*i +: 8] <= ...`): the body's guards apply.
            yield from _assigns_in(ast.kids(stmt, "stmtsp"), path)


def comb_assigns(net: Netlist) -> Iterator[GuardedAssign]:
    """Every assignment inside a combinational always block, with its guards."""
    for module in net.module_order:
        for node in ast.walk(module):
            if node.get("type") == "ALWAYS" and not edge_items(node):
                yield from _assigns_in(ast.kids(node, "stmtsp"), ())


@dataclass(frozen=True)
class Drivers:
    """Combinational drivers the solver looks through."""

    wires: Mapping[str, Node]
    """VAR addr -> the expression a continuous assign gives it."""
    set_when: Mapping[str, tuple[PathTerm, ...]]
    """1-bit VAR addr -> the guards under which a combinational block sets it to 1
    (`mem_wr_en = 1'b0; if (awvalid && wvalid && ...) mem_wr_en = 1'b1;`)."""


def find_drivers(net: Netlist) -> Drivers:
    """Continuous assigns and set-to-1 flags of the combinational logic."""
    wires: dict[str, Node] = {}
    for module in net.module_order:
        for node in ast.walk(module):
            if node.get("type") == "ASSIGNW":
                lhs, rhs = ast.strip_transparent(ast.first(node, "lhsp")), ast.first(node, "rhsp")
                if lhs is not None and lhs.get("type") == "VARREF" and rhs is not None:
                    wires.setdefault(str(lhs["varp"]), rhs)
    set_when: dict[str, tuple[PathTerm, ...]] = {}
    for write in comb_assigns(net):
        lhs = ast.strip_transparent(ast.first(write.stmt, "lhsp"))
        const = ast.const_of(ast.first(write.stmt, "rhsp"))
        if lhs is not None and lhs.get("type") == "VARREF" and const is not None and const.value == 1 and write.path:
            set_when.setdefault(str(lhs["varp"]), write.path)
    return Drivers(wires, set_when)


# ----------------------------------------------------------------------------- evaluation


def _width(node: Node, net: Netlist) -> int:
    return max(1, net.type_of(node).width)


def _port_value(var: str, values: Mapping[str, int], net: Netlist) -> int | None:
    """The value of a variable that is a (possibly inverted or sliced) top input, else None."""
    alias = net.alias.get(var)
    if alias is not None and alias[0] in values:
        value = values[alias[0]]
        return (value ^ 1) & 1 if alias[1] else value
    part = net.slices.get(var)
    if part is not None and part[0] in values:
        return values[part[0]] >> part[1]
    return None


def evaluate(node: Node | None, values: Mapping[str, int], net: Netlist, drivers: Drivers | None = None,
             _depth: int = 0) -> int | None:
    """Value of an expression given top-input values; None when it depends on anything else.

    With `drivers`, a wire is evaluated through its continuous assign.
    """
    if node is None or _depth > 32:
        return None
    kind = node.get("type", "")
    if kind in ast.TRANSPARENT_OPS:
        return evaluate(ast.strip_transparent(node), values, net, drivers, _depth + 1)
    if kind == "CONST":
        const = ast.parse_const(str(node.get("name", "")))
        return None if const is None or const.wildcard else const.value
    if kind == "VARREF":
        var = str(node.get("varp", ""))
        value = _port_value(var, values, net)
        if value is None and drivers is not None and var in drivers.wires:
            value = evaluate(drivers.wires[var], values, net, drivers, _depth + 1)
        return None if value is None else value & ((1 << _width(node, net)) - 1)
    if kind == "SEL":
        low = ast.const_of(ast.first(node, "lsbp"))
        base_node = ast.first(node, "fromp")
        base = evaluate(base_node, values, net, drivers, _depth + 1)
        width = int(node.get("widthConst") or _width(node, net))
        if base is not None and low is None and base_node is not None:
            # A select at a run-time index: known only when every bit agrees.
            if base == 0:
                return 0
            if base == (1 << _width(base_node, net)) - 1:
                return (1 << width) - 1
        return None if low is None or base is None else (base >> low.value) & ((1 << width) - 1)
    lhs, rhs = ast.first(node, "lhsp"), ast.first(node, "rhsp")
    if kind in ("LOGNOT", "NOT"):
        a = evaluate(lhs, values, net, drivers, _depth + 1)
        if a is None:
            return None
        return int(a == 0) if kind == "LOGNOT" else ~a & ((1 << _width(node, net)) - 1)
    if kind in ("REDOR", "REDAND"):
        a = evaluate(lhs, values, net, drivers, _depth + 1)
        if a is None:
            return None
        full = (1 << _width(lhs, net)) - 1 if lhs is not None else 1
        return int(a != 0) if kind == "REDOR" else int(a == full)
    if kind in ("LOGAND", "AND", "LOGOR", "OR"):
        a, b = evaluate(lhs, values, net, drivers, _depth + 1), evaluate(rhs, values, net, drivers, _depth + 1)
        if kind in ("LOGAND", "AND") and (a == 0 or b == 0):
            return 0  # false whatever the unknown side is
        if kind in ("LOGOR", "OR") and _width(node, net) == 1 and (a == 1 or b == 1):
            return 1
        if a is None or b is None:
            return None
        if kind == "LOGAND":
            return int(bool(a) and bool(b))
        if kind == "LOGOR":
            return int(bool(a) or bool(b))
        return a & b if kind == "AND" else a | b
    if kind == "SHIFTR":
        a, b = evaluate(lhs, values, net, drivers, _depth + 1), evaluate(rhs, values, net, drivers, _depth + 1)
        return None if a is None or b is None else a >> b
    if kind in ("XOR", "EQ", "NEQ", "EQCASE", "NEQCASE", "LT", "LTE", "GT", "GTE"):
        a, b = evaluate(lhs, values, net, drivers, _depth + 1), evaluate(rhs, values, net, drivers, _depth + 1)
        if a is None or b is None:
            return None
        return {
            "XOR": a ^ b, "EQ": int(a == b), "EQCASE": int(a == b), "NEQ": int(a != b), "NEQCASE": int(a != b),
            "LT": int(a < b), "LTE": int(a <= b), "GT": int(a > b), "GTE": int(a >= b),
        }[kind]
    return None


def term_holds(term: PathTerm, values: Mapping[str, int], net: Netlist,
               drivers: Drivers | None = None) -> bool | None:
    """Whether a guard is satisfied (None: unknown)."""
    subject = evaluate(term.node, values, net, drivers)
    if term.items is None:
        return None if subject is None else bool(subject) == term.want
    if not term.items:
        return None  # a default item: depends on every other item
    if subject is None:
        return None
    matches = [evaluate(item, values, net, drivers) for item in term.items]
    if subject in matches:
        return True
    return None if any(m is None for m in matches) else False


def _inputs_of(node: Node | None, net: Netlist, drivers: Drivers | None = None, _depth: int = 0) -> set[str]:
    """Top inputs an expression reads directly (through pure wires, slices, continuous assigns)."""
    out: set[str] = set()
    for ref in ast.varrefs(node):
        var = str(ref.get("varp", ""))
        alias = net.alias.get(var)
        if alias is not None:
            out.add(alias[0])
        elif var in net.slices:
            out.add(net.slices[var][0])
        elif drivers is not None and var in drivers.wires and _depth < 8:
            out |= _inputs_of(drivers.wires[var], net, drivers, _depth + 1)
    return out


def expand(terms: Sequence[PathTerm], drivers: Drivers, _depth: int = 0) -> tuple[PathTerm, ...]:
    """Guards with true conjunctions split, and combinationally set flags replaced by their guards.

    `if (mem_wr_en && wstrb[i])` where an `always @*` sets `mem_wr_en = 1` under
    `awvalid && wvalid && ...` becomes the guards `awvalid && wvalid && ...` and `wstrb[i]`:
    what the inputs must do for the write to happen.
    """
    out: list[PathTerm] = []
    for term in terms:
        node = ast.strip_transparent(term.node)
        if term.items is None and term.want and node is not None and node.get("type") in ("AND", "LOGAND") \
                and _depth < 8:
            parts = [PathTerm(n, True) for k in ("lhsp", "rhsp") if (n := ast.first(node, k)) is not None]
            out += expand(parts, drivers, _depth + 1)
            continue
        if term.items is None and term.want and node is not None and node.get("type") == "VARREF":
            guards = drivers.set_when.get(str(node.get("varp", "")))
            if guards is not None and _depth < 8:
                out += expand(guards, drivers, _depth + 1)
                continue
        out.append(term)
    return tuple(out)


def _candidates(port: str, width: int, terms: Sequence[PathTerm]) -> list[int]:
    """Values worth trying for `port` while solving guards: 0, 1, all-ones and compared literals."""
    mask = (1 << width) - 1
    out = [0, 1 & mask, mask]
    for term in terms:
        for node in (term.node, *(term.items or ())):
            for n in ast.walk(node):
                if n.get("type") == "CONST":
                    const = ast.parse_const(str(n.get("name", "")))
                    if const is not None and not const.wildcard and const.value <= mask:
                        out.append(const.value)
    return list(dict.fromkeys(out))


def solve(terms: Sequence[PathTerm], net: Netlist, widths: Mapping[str, int],
          fixed: Mapping[str, int] | None = None, drivers: Drivers | None = None) -> dict[str, int] | None:
    """Input values that make every guard true (or at least not false); None when none found.

    Guards that read internal state stay unknown; an assignment where every decidable guard
    holds is preferred over one where some are only unknown.
    """
    fixed = dict(fixed or {})
    free = sorted(set().union(*(_inputs_of(t.node, net, drivers) for t in terms),
                              *(_inputs_of(i, net, drivers) for t in terms for i in (t.items or ())))
                  - set(fixed))
    choices = [_candidates(p, widths.get(p, 1), terms) for p in free]
    best: dict[str, int] | None = None
    best_known = -1
    for n, combo in enumerate(itertools.product(*choices)):
        if n >= MAX_SOLVE_COMBOS:
            break
        values = {**fixed, **dict(zip(free, combo, strict=True))}
        verdicts = [term_holds(t, values, net, drivers) for t in terms]
        if any(v is False for v in verdicts):
            continue
        known = sum(1 for v in verdicts if v)
        if known > best_known:
            best, best_known = values, known
            if known == len(terms):
                break
    return best


# ----------------------------------------------------------------------------- write ports


def _index_slice(index: Node | None, net: Netlist, drivers: Drivers | None = None,
                 _depth: int = 0) -> tuple[str, int, int] | None:
    """(input, lsb, bits) of the input bits an array index is made of (None otherwise).

    An input, a constant slice or right shift of one, or a wire assigned such an expression
    (`waddr_word = awaddr >> 2`).
    """
    node = ast.strip_transparent(index)
    if node is None or _depth > 8:
        return None
    ref = simple_ref(node)
    if ref is not None and not ref[1]:
        alias = net.alias.get(ref[0])
        if alias is not None and not alias[1]:
            return alias[0], 0, _width(node, net)
        part = net.slices.get(ref[0])
        if part is not None:
            return part[0], part[1], _width(node, net)
        if drivers is not None and ref[0] in drivers.wires:
            inner = _index_slice(drivers.wires[ref[0]], net, drivers, _depth + 1)
            return (inner[0], inner[1], min(inner[2], _width(node, net))) if inner else None
    sliced = const_slice(node)
    if sliced is not None:
        alias = net.alias.get(sliced[0])
        if alias is not None and not alias[1]:
            return alias[0], sliced[1], int(node.get("widthConst") or _width(node, net))
    if node.get("type") == "SHIFTR":
        amount = ast.const_of(ast.first(node, "rhsp"))
        inner = _index_slice(ast.first(node, "lhsp"), net, drivers, _depth + 1)
        if amount is not None and inner is not None and amount.value < inner[2]:
            return inner[0], inner[1] + amount.value, inner[2] - amount.value
    return None


def _data_slices(rhs: Node | None, net: Netlist, widths: Mapping[str, int]) -> tuple[tuple[str, int, int], ...]:
    """Input slices the stored value comes from: the exact slice when it is one, else every input read."""
    exact = _index_slice(rhs, net)
    if exact is not None:
        return (exact,)
    return tuple((p, 0, widths.get(p, 1)) for p in sorted(net.signals(rhs)))


def _spread(depth: int, bits: int) -> list[int]:
    """Entry indices to write: all of them, or an even spread (ends included) of a large array."""
    count = min(depth, 1 << bits) if bits < 30 else depth
    if count <= MAX_DEPTH_WRITTEN:
        return list(range(count))
    stride = count / MAX_DEPTH_WRITTEN
    return sorted({min(count - 1, round(i * stride)) for i in range(MAX_DEPTH_WRITTEN)} | {count - 1})


def _decodes_address(terms: Sequence[PathTerm], net: Netlist, widths: Mapping[str, int]) -> bool:
    """Whether some guard compares a multi-bit input with a literal (an address decoder)."""
    for term in terms:
        if term.items is not None:
            if term.items and any(widths.get(p, 1) > 1 for p in _inputs_of(term.node, net)):
                return True
            continue
        for n in ast.walk(term.node):
            if n.get("type") in ("EQ", "EQCASE"):
                sides = (ast.first(n, "lhsp"), ast.first(n, "rhsp"))
                if any(ast.const_of(s) is not None for s in sides) and \
                        any(widths.get(p, 1) > 1 for s in sides for p in _inputs_of(s, net)):
                    return True
    return False


def find_write_ports(net: Netlist, resets: Mapping[str, bool], clocks: Sequence[str] = ()) -> tuple[WritePort, ...]:
    """Every array entry or decoded register the inputs can write (see the module docstring).

    Args:
        net: the indexed design.
        resets: reset input -> active low (held inactive while solving the guards).
        clocks: clock inputs (never part of a write vector).
    """
    widths = {str(v["name"]): net.type_of(v).width for v in net.top_ports}
    inactive = {name: 1 if low else 0 for name, low in resets.items() if name in widths}
    drivers = find_drivers(net)
    ports: list[WritePort] = []
    seen: set[tuple[str, int, str]] = set()
    for write in clocked_assigns(net):
        lhs = ast.strip_transparent(ast.first(write.stmt, "lhsp"))
        rhs = ast.first(write.stmt, "rhsp")
        if lhs is None or not net.signals(rhs):
            continue  # a constant (reset value) or internal data: not a write the inputs make
        while lhs is not None and lhs.get("type") == "SEL":  # a byte lane of an entry: mem[a][8*i +: 8]
            lhs = ast.strip_transparent(ast.first(lhs, "fromp"))
        if lhs is None:
            continue
        guards = expand(write.path, drivers)
        index = None
        if lhs.get("type") == "ARRAYSEL":
            index = _index_slice(ast.first(lhs, "bitp"), net, drivers)
            if index is None:
                continue  # indexed by internal state (a FIFO pointer): not addressable from outside
        elif not _decodes_address(guards, net, widths):
            continue
        targets = lhs_vars(lhs)
        if not targets:
            continue
        var = targets[0]
        info = net.type_of(net.nodes[var]) if var in net.nodes else None
        if info is None:
            continue
        fixed = {**inactive, **({index[0]: 0} if index else {})}
        solved = solve(guards, net, widths, fixed, drivers)
        if solved is None:
            continue
        data = tuple(d for d in _data_slices(rhs, net, widths) if d[0] not in clocks)
        if not data:
            continue
        data_ports = {d[0] for d in data}
        address = index[0] if index else ""
        if index is not None:
            base = solved.get(index[0], 0) & ~(((1 << index[2]) - 1) << index[1])
            depth = info.unpacked[0] if info.unpacked else 1 << index[2]
            addresses = tuple(base | (k << index[1]) for k in _spread(depth, index[2]))
            addresses = tuple(a for a in addresses
                              if all(term_holds(t, {**solved, index[0]: a}, net, drivers) is not False for t in guards))
            kind, width = "memory", info.width
        else:
            decoded = [p for p in sorted(solved) if widths.get(p, 1) > 1 and p not in data_ports
                       and p not in inactive]
            address = decoded[0] if decoded else ""
            addresses = (solved[address],) if address else ()
            depth, kind, width = 1, "register", info.width
        if index is not None and not addresses:
            continue
        enable = tuple((p, v) for p, v in sorted(solved.items())
                       if p != address and p not in data_ports and p not in inactive and p not in clocks)
        idle = tuple((p, v ^ 1) for p, v in enable if widths.get(p, 1) == 1)
        # A guard that also reads internal state (a handshake re-arming, a busy flag) may
        # need a cycle between writes: hold each write two cycles then.
        hold = 1 if all(term_holds(t, solved, net, drivers) for t in guards) else 2
        file, line, _ = net.location(write.stmt)
        key = (net.hier_name(var), line, file)
        if key in seen:
            continue
        seen.add(key)
        ports.append(WritePort(storage=net.hier_name(var), kind=kind, file=file, line=line, depth=depth,
                               width=width, enable=enable, idle=idle, address=address, addresses=addresses,
                               data=data, hold=hold))
    # Tables first (they are what a datapath reads), then registers in address order.
    ports.sort(key=lambda p: (p.kind != "memory", p.addresses[:1], p.storage))
    return tuple(ports)


def upstream_inputs(net: Netlist, hops: int = UPSTREAM_HOPS) -> dict[str, tuple[str, ...]]:
    """Internal signal name -> top inputs that reach it within `hops` register stages.

    A register's sources are what its clocked assignments read (value and guards); a wire's
    are what its continuous or combinational assignments read (no stage). Keys are plain
    names (`recip2`), as coverage comments print them; names shared by several modules merge.
    """
    staged: dict[str, set[str]] = {}
    for write in clocked_assigns(net):
        reads = {str(r["varp"]) for r in ast.varrefs(ast.first(write.stmt, "rhsp"))}
        for term in write.path:
            reads |= {str(r["varp"]) for r in ast.varrefs(term.node)}
        for var in lhs_vars(ast.first(write.stmt, "lhsp")):
            staged.setdefault(var, set()).update(reads)
    wired: dict[str, set[str]] = {}
    for module in net.module_order:
        for node in ast.walk(module):
            kind = node.get("type")
            if kind == "ASSIGNW":
                assigns = [node]
            elif kind == "ALWAYS" and not edge_items(node):
                assigns = [n for n in ast.walk(node) if n.get("type") in ("ASSIGN", "ASSIGNDLY")]
            else:
                continue
            for assign in assigns:
                reads = {str(r["varp"]) for r in ast.varrefs(ast.first(assign, "rhsp"))}
                for var in lhs_vars(ast.first(assign, "lhsp")):
                    wired.setdefault(var, set()).update(reads)

    best: dict[str, int] = {}
    out: dict[str, set[str]] = {}
    for var, node in net.nodes.items():
        if node.get("type") != "VAR" or var not in net.var_module:
            continue
        found: set[str] = set()
        stack = [(var, hops)]
        best.clear()
        while stack:
            at, left = stack.pop()
            if best.get(at, -1) >= left:
                continue
            best[at] = left
            found |= net.deps.get(at, frozenset())
            stack.extend((src, left) for src in wired.get(at, ()))
            if left > 0:
                stack.extend((src, left - 1) for src in staged.get(at, ()))
        if found:
            out.setdefault(str(node.get("name", "")), set()).update(found)
    return {name: net.ordered(found) for name, found in sorted(out.items())}
