"""`hansard why`'s start-up beside a baseline source tree, in fresh processes taking turns.

1. ``import hansard.cli`` + ``build_parser('why')`` + parsing a `why` command line (timed
   inside the process, so the interpreter's own start is left out).
2. The whole `hansard why app/retry.py:10 --json` on the demo's store: answered from the
   why-result cache, and with ``--no-cache`` (each tree answers the same question of the same
   repository, from a store of its own built by that tree).

The baseline is a source tree such as ``git archive main | tar -x -C DIR``; its ``hansard/`` is
imported through PYTHONPATH, with this checkout's interpreter and packages. Printed, never
asserted.

    python scripts/bench_startup.py --baseline DIR [--runs 30]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PARSE = ("import time; t = time.perf_counter(); import hansard.cli as c; "
         "c.build_parser('why').parse_args(['why', 'a.py:10', '--json']); print((time.perf_counter() - t) * 1e3)")


def _demo(tree: str, where: Path) -> dict[str, str]:
    """The demo built and indexed by ``tree`` under ``where``: the environment that points at it."""
    code = ("import os, sys, json; from pathlib import Path; import hansard.demo as d; d.build(Path(sys.argv[1])); "
            "from hansard.cli import main; assert main(['index', '--quiet']) == 0; print(json.dumps(dict(os.environ)))")
    env = {**os.environ, "PYTHONPATH": tree, "HANSARD_NO_BACKGROUND": "1"}
    out = subprocess.run([sys.executable, "-c", code, str(where)], env=env, capture_output=True, text=True, check=True,
                         cwd="/")
    import json

    return {**json.loads(out.stdout.strip().splitlines()[-1]), "PYTHONPATH": tree}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", required=True, help="a source tree to compare with")
    ap.add_argument("--runs", type=int, default=30)
    a = ap.parse_args()
    trees = {"baseline": a.baseline, "this tree": str(ROOT)}
    for tree in trees.values():  # bytecode written, as an installed hansard has it
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(Path(tree) / "hansard")], check=True)
    parse: dict[str, list[float]] = {k: [] for k in trees}
    for _ in range(a.runs):
        for label, tree in trees.items():
            r = subprocess.run([sys.executable, "-c", PARSE], capture_output=True, text=True, cwd="/",
                               env={**os.environ, "PYTHONPATH": tree}, check=True)
            parse[label].append(float(r.stdout))
    tmp = Path(tempfile.mkdtemp(prefix="hansard-startup-"))
    try:
        envs = {label: _demo(tree, tmp / label.replace(" ", "-")) for label, tree in trees.items()}
        repos = {label: tmp / label.replace(" ", "-") / "upload-service" for label in trees}
        runs: dict[str, dict[str, list[float]]] = {k: {label: [] for label in trees} for k in ("cached", "--no-cache")}
        for label in trees:  # the first answer fills the cache
            subprocess.run([sys.executable, "-m", "hansard", "why", "app/retry.py:10", "--json"], cwd=repos[label],
                           env=envs[label], capture_output=True, check=True)
        for _ in range(a.runs):
            for kind, extra in (("cached", []), ("--no-cache", ["--no-cache"])):
                for label in trees:
                    t = time.perf_counter()
                    subprocess.run([sys.executable, "-m", "hansard", "why", "app/retry.py:10", "--json", *extra],
                                   cwd=repos[label], env=envs[label], capture_output=True, check=True)
                    runs[kind][label].append((time.perf_counter() - t) * 1e3)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load = os.getloadavg()
    print(f"{a.runs} runs each, the trees taking turns; load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")

    def line(title: str, times: dict[str, list[float]]) -> None:
        base = statistics.median(times["baseline"])
        print(title)
        for label, ts in times.items():
            m = statistics.median(ts)
            print(f"  {label:10} median {m:7.2f} ms, min {min(ts):7.2f} ms ({m - base:+.2f} ms, {m / base:.3f}x)")

    line("import hansard.cli + build_parser('why') + parse (in-process):", parse)
    line("hansard why app/retry.py:10 --json, from the cache (whole process):", runs["cached"])
    line("hansard why app/retry.py:10 --json --no-cache (whole process):", runs["--no-cache"])


if __name__ == "__main__":
    main()
