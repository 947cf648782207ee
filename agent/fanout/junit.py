"""bench.json as JUnit XML, the report format CI systems read (pure).

One `<testcase>` per design: an `<error>` when it has no results (could not be opened,
did not simulate, its worker was lost every time), a `<failure>` when its coverage is
below its target, nothing when it passed. Coverage numbers go in `<properties>`, retries in
`<system-out>`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Mapping
from typing import Any


def _case(row: Mapping[str, Any], classname: str) -> tuple[ET.Element, str]:
    """A design's testcase and its outcome (`error`, `failure` or `pass`)."""
    case = ET.Element("testcase", {"classname": classname, "name": str(row["name"]),
                                   "time": f"{float(row.get('wall_s', 0.0)):.3f}"})
    props = ET.SubElement(case, "properties")
    values: dict[str, Any] = {"overall": row.get("overall", 0.0), "target": row.get("target"),
                              "sim_calls": row.get("sim_calls", 0), "status": row.get("status", "")}
    values.update({f"coverage.{m}": v for m, v in (row.get("metrics") or {}).items()})
    for key, value in values.items():
        ET.SubElement(props, "property", {"name": key, "value": str(value)})
    status = str(row.get("status", ""))
    if not row.get("sim_pass"):
        reason = str(row.get("detail") or f"status {status}")
        ET.SubElement(case, "error", {"type": status or "error", "message": reason[:1000]}).text = reason
        outcome = "error"
    elif not row.get("cov_pass"):
        message = f"overall coverage {row['overall']:.2f} % is below the target {row['target']:g} %"
        ET.SubElement(case, "failure", {"type": "coverage", "message": message}).text = message
        outcome = "failure"
    else:
        outcome = "pass"
    retries = row.get("retries") or []
    if retries:
        lines = [f"attempt {r['attempt']} lost on {r['worker'] or 'a worker'}: {r['reason']}" for r in retries]
        lines.append(f"attempt {len(retries) + 1} finished on {row.get('worker', '')}".rstrip())
        ET.SubElement(case, "system-out").text = "\n".join(lines)
    return case, outcome


def junit_xml(bench: Mapping[str, Any], suite: str) -> str:
    """The JUnit XML document of a bench result (`suite`: the testsuite's name)."""
    policy = str(bench.get("policy", ""))
    rows = list(bench["designs"])
    cases = [_case(row, f"benchwright.{policy}") for row in rows]
    outcomes = [o for _, o in cases]
    attrs = {"name": suite, "tests": str(len(rows)), "failures": str(outcomes.count("failure")),
             "errors": str(outcomes.count("error")), "skipped": "0",
             "time": f"{float(bench['summary'].get('wall_s', 0.0)):.3f}"}
    root = ET.Element("testsuites", {k: v for k, v in attrs.items() if k != "name"})
    suite_el = ET.SubElement(root, "testsuite", attrs)
    for case, _ in cases:
        suite_el.append(case)
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
