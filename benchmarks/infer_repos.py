"""Can Benchwright open real repositories as cloned? Inference with no flags, then with `--top`.

    python benchmarks/infer_repos.py REPO... [--manifest ../shared/benchmarks/real/real.toml]
        [--top REPO=TOP ...] [--out out/infer_repos]

Each repository folder is inferred the way `benchwright init REPO` does (no flags) and
classified: **opens** (a top was found: from a filelist, a FuseSoC core, or the only
uninstantiated module), **needs --top** (several candidates), or **fails** (why, from the
error). Where a top is given (`--top REPO=TOP`, or the tops a manifest names for its
repositories) it is also inferred as `benchwright init REPO --top TOP`. The repository's
own testbench, when one is found, is named. Writes infer_repos.json and infer_repos.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]


def attempt(repo: Path, top: str) -> dict[str, Any]:
    """One inference; a row of the result (status opens/ambiguous/fails)."""
    from sim.errors import SimError
    from sim.project.discover import gather_folder, infer
    from sim.project.infer import AmbiguousTopError

    start = time.monotonic()
    row: dict[str, Any] = {"top_given": top}
    try:
        inferred = infer(gather_folder(repo, top), top)
    except AmbiguousTopError as exc:
        row.update(status="needs --top", candidates=[u.name for u in exc.candidates],
                   why=f"{len(exc.candidates)} candidates")
    except SimError as exc:
        row.update(status="fails", why=" ".join(str(exc).split())[:240])
    else:
        d = inferred.design
        human = d.human_test
        row.update(status="opens", top=d.top, files=len(d.rtl), origin=inferred.sources.origin,
                   reason=inferred.choice.reason, dropped=len(inferred.dropped),
                   testbench=f"{human.top} ({human.note})" if human else "")
    row["seconds"] = round(time.monotonic() - start, 1)
    return row


def markdown(rows: list[dict[str, Any]]) -> str:
    """The table and the counts."""
    lines = ["| repository | no flags | with --top | top | from | own testbench |", "|---|---|---|---|---|---|"]
    for r in rows:
        plain, given = r["plain"], r.get("given")
        detail = plain.get("why", "") if plain["status"] != "opens" else ""
        shown = given if given is not None else plain
        with_top = "-" if given is None else (given["status"] if given["status"] != "fails" else
                                              f"fails: {given['why'][:90]}")
        lines.append(f"| {r['repo']} | {plain['status']}{f' ({detail[:90]})' if detail else ''} | {with_top} | "
                     f"{shown.get('top', '')} | {shown.get('origin', '')} | {shown.get('testbench', '')} |")
    n = len(rows)
    opens = sum(r["plain"]["status"] == "opens" for r in rows)
    needs = sum(r["plain"]["status"] == "needs --top" for r in rows)
    fails = sum(r["plain"]["status"] == "fails" for r in rows)
    top_ok = sum(1 for r in rows if r["plain"]["status"] != "opens" and (r.get("given") or {}).get("status") == "opens")
    lines += ["", f"{n} repositories: {opens} open with no flags, {needs} need --top, {fails} fail with no flags; "
                  f"of the {n - opens} that do not open alone, {top_ok} open with --top."]
    return "\n".join(lines) + "\n"


def main() -> int:
    """Run the measurement; print the table."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("repos", nargs="*", type=Path)
    p.add_argument("--manifest", type=Path, help="a real.toml: its repositories and tops are added")
    p.add_argument("--top", action="append", default=[], help="REPO=TOP (REPO is the folder name)")
    p.add_argument("--out", type=Path, default=Path("benchwright-out/infer_repos"))
    args = p.parse_args()
    sys.path.insert(0, str(REPO))
    from sim.project.manifest import read_manifest

    tops: dict[str, str] = dict(t.split("=", 1) for t in args.top)
    repos = [r.resolve() for r in args.repos]
    if args.manifest is not None:
        for entry in read_manifest(args.manifest):
            if entry.repo.resolve() not in repos:
                repos.append(entry.repo.resolve())
            tops.setdefault(entry.repo.name, entry.top)
    rows = []
    for repo in repos:
        row: dict[str, Any] = {"repo": repo.name, "plain": attempt(repo, "")}
        top = tops.get(repo.name, "")
        if top:
            row["given"] = attempt(repo, top)
        rows.append(row)
        plain = row["plain"]
        sys.stderr.write(f"{repo.name:16} {plain['status']:12} {plain.get('top') or plain.get('why', '')[:80]}"
                         f"{' | --top ' + top + ': ' + row['given']['status'] if top else ''}\n")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "infer_repos.json").write_text(json.dumps(rows, indent=1))
    text = markdown(rows)
    (args.out / "infer_repos.md").write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
