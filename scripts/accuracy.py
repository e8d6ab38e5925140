#!/usr/bin/env python3
"""Attribution accuracy of `hansard why` over every scenario in fixtures_repos.

Each scenario is built into a temporary folder, indexed into a fresh store from its own agent
homes, and every expected file is explained (exactly as tests/test_why_scenarios.py does,
outside pytest). Then, per scenario and overall, at session level and at tool-call level:

  positives  lines whose expected kind is agent or agent_modified, or uncommitted with a session
  claim      a line for which `why` names a session (resp. a tool call)
  correct    a claim on a positive line that names the expected session (resp. tool call)
  precision  correct claims / claims           target: 100% everywhere
  recall     correct claims / positives        target: >= 98% at tool-call level overall

"exact" counts lines whose kind, session, tool call and commit all match the expectation.
Printed, never asserted; the exit status is 0 unless a scenario fails to build.

Usage
  python scripts/accuracy.py                    # every scenario
  python scripts/accuracy.py -k rewrite         # scenarios whose name contains "rewrite"
  python scripts/accuracy.py --keep /tmp/acc    # keep the built scenarios and stores there
  python scripts/accuracy.py --diff             # also print the expected-vs-actual tables
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fixtures_repos.check import Counts, answer, compare, scenario_env, score, table
from fixtures_repos.scenarios import SCENARIOS


def pct(num: int, den: int) -> str:
    return f"{100.0 * num / den:6.1f}%" if den else "     - "


def row(name: str, c: Counts) -> str:
    return (f"{name:40s} {c.lines:5d} {c.positives:5d}  {pct(c.session_correct, c.session_claims)} "
            f"{pct(c.session_correct, c.positives)}  {pct(c.tool_correct, c.tool_claims)} "
            f"{pct(c.tool_correct, c.positives)}  {c.exact:5d}/{c.lines:<5d}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", dest="match", default="", help="only scenarios whose name contains this")
    ap.add_argument("--keep", type=Path, help="build into this folder and keep it")
    ap.add_argument("--diff", action="store_true", help="print expected vs actual for files that differ")
    a = ap.parse_args(argv)

    names = [n for n in SCENARIOS if a.match in n]
    tmp = None if a.keep else tempfile.TemporaryDirectory(prefix="hansard-accuracy-")
    root = a.keep or Path(tmp.name)  # type: ignore[union-attr]
    total = Counts()
    tables: list[str] = []
    started = time.perf_counter()
    print(f"{'scenario':40s} {'lines':>5s} {'pos':>5s}  {'sess P':>7s} {'sess R':>7s}  {'tool P':>7s} {'tool R':>7s}  exact")
    try:
        for name in names:
            scn = SCENARIOS[name](root / name / "build")
            with scenario_env(scn, root / name / "store"):
                answers = answer(scn)
            c = score(scn, answers)
            total.add(c)
            bad = compare(scn, answers)
            print(row(name, c) + ("" if not bad else "  differs: " + ", ".join(f"{r} {v}" for r, v in bad.items())))
            if a.diff:
                tables += [table(scn, rel, answers[rel]) for rel in bad]
    finally:
        if tmp is not None:
            tmp.cleanup()
    print("-" * 110)
    print(row(f"overall ({len(names)} scenarios)", total))
    print(f"pasted from web chats: {total.pasted_correct} of {total.pasted_claims} claims name the expected chat")
    print(f"\ntargets: precision 100% everywhere; tool-call recall >= 98% overall "
          f"(now {pct(total.tool_correct, total.positives).strip()}); {time.perf_counter() - started:.1f} s")
    for t in tables:
        print("\n" + t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
