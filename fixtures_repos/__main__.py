"""``python -m fixtures_repos <scenario> <dir>``: build one scenario into ``dir`` and print its
summary (paths, agent homes, transcripts, and the expected answer for every line).

``--list`` prints the scenario names. ``--why`` also indexes the scenario into a store under
``<dir>/store`` and prints `why`'s answers beside the expectations.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    from fixtures_repos.check import answer, compare, describe, env_for, scenario_env, table
    from fixtures_repos.scenarios import SCENARIOS

    ap = argparse.ArgumentParser(prog="python -m fixtures_repos", description=__doc__.split("\n\n")[0])
    ap.add_argument("scenario", nargs="?", help="scenario name (see --list)")
    ap.add_argument("dir", nargs="?", type=Path, help="folder to build into (created; should be empty)")
    ap.add_argument("--list", action="store_true", help="list the scenarios")
    ap.add_argument("--why", action="store_true", help="also index it and compare `why` with the expectations")
    a = ap.parse_args(argv)
    if a.list or not a.scenario:
        for name, build in SCENARIOS.items():
            print(f"{name:40s} {(build.__doc__ or '').strip().splitlines()[0]}")
        return 0
    if a.scenario not in SCENARIOS:
        ap.error(f"unknown scenario {a.scenario!r}; see --list")
    if a.dir is None:
        ap.error("give a folder to build into")
    if a.dir.exists() and any(a.dir.iterdir()):
        ap.error(f"{a.dir} is not empty")
    scn = SCENARIOS[a.scenario](a.dir.resolve())
    print(describe(scn))
    store = a.dir.resolve() / "store"
    print("\nto ask it yourself:")
    print("  " + " ".join(f"{k}={v!s}" for k, v in env_for(scn, store).items()))
    print(f"  cd {scn.repo} && hansard why <file> {'--rev ' + scn.rev if scn.rev else ''}".rstrip())
    if a.why:
        with scenario_env(scn, store):
            answers = answer(scn)
        bad = compare(scn, answers)
        for rel in scn.files:
            print("\n" + table(scn, rel, answers[rel]))
        print("\n" + ("all lines as expected" if not bad else f"differs: {bad}"))
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
