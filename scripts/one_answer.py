"""One line, one answer, over real history: every file git renamed or copied and a seeded sample
of the rest, each sampled line asked alone, in ranges that hold it, in the whole file, from the
why-result cache, with the editor's bytes and through `log FILE:N`; each file's `log FILE` and
a few of its symbols' `log --symbol` must count the lines `why` gives each session
(hansard.answers.why.agreement). Beside it, how often `git blame -w -M -C -L N,N` names another
origin (commit, path, line) than the whole file's blame for the same line.

Corpora: ``real:NAME`` (scripts/real_corpus.py; its store is kept in ``--dir``/NAME/store,
indexed there first when missing) and ``clone:PATH`` (a work tree indexed as a user would;
``--clone-store`` names its store, which the check writes to: why's cache and commit facts).

    python scripts/one_answer.py --corpus real:cli,real:entire-graph,clone:/work/corpora/cli-clone \\
        --dir /tmp/one-answer --clone-store /tmp/cli-clone-store/hansard.db

Prints, per corpus, the files and lines asked, the questions of each way, the differences (the
first few in full) and blame's; exit status 1 when an answer differs. Never run in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

MAX_LINES = 4000  # a file larger than this is left out (every question about it blames it whole)


def git(top: str, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=top, check=True, capture_output=True, text=True,
                          errors="surrogateescape").stdout


def renamed_or_copied(top: str) -> set[str]:
    """Paths at HEAD that some commit of HEAD's history renamed or copied (git's detection)."""
    out = set()
    for line in git(top, "log", "--format=", "--name-status", "-M", "-C", "--diff-filter=RC", "HEAD").splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            out.add(parts[2])
    return out


def text_lines(top: str, rel: str) -> int | None:
    """The file's line count, None for a file not worth asking (missing, binary, too large)."""
    p = os.path.join(top, rel)
    if not os.path.isfile(p) or os.path.islink(p):
        return None
    data = Path(p).read_bytes()
    n = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    if b"\0" in data[:8000] or not 1 <= n <= MAX_LINES:
        return None
    return n


def pick_files(top: str, others: list[str], sample: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """(every renamed or copied file still here, ``sample`` of ``others`` besides them)."""
    moved = sorted(p for p in renamed_or_copied(top) if text_lines(top, p) is not None)
    rest = sorted(p for p in set(others) - set(moved) if text_lines(top, p) is not None)
    return moved, sorted(rng.sample(rest, min(sample, len(rest))))


def blame_agrees(top: str, rel: str, lines: list[int]) -> tuple[int, list[dict]]:
    """(lines compared, those whose `blame -L N,N` origin is not the whole file's)."""
    from hansard.git.blame import blame

    whole = {b.final_line: (b.sha, b.orig_path, b.orig_line) for b in blame(top, rel).lines}
    out = []
    for n in lines:
        one = blame(top, rel, start=n, end=n).lines
        got = (one[0].sha, one[0].orig_path, one[0].orig_line) if one else None
        if got != whole.get(n):
            out.append({"path": rel, "line": n, "whole": whole.get(n), "alone": got})
    return len(lines), out


def symbols_of(store, top: str, rel: str, rng: random.Random, k: int) -> list[str]:
    from hansard.code import symbols as sym

    lang = sym.language_for(rel)
    if lang is None:
        return []
    data = Path(top, rel).read_bytes()
    names = sorted({s.name for s in sym.cached_symbols(store, sym.blob_id(data), lang, data)})
    return sorted(rng.sample(names, min(k, len(names))))


def check_corpus(label: str, store_path: str, top: str, others: list[str], a: argparse.Namespace) -> dict:
    from hansard.answers.why.agreement import check_file
    from hansard.app.house import Hansard

    rng = random.Random(a.seed)
    os.environ["HANSARD_HOME"] = os.path.dirname(os.path.abspath(store_path))
    rq = Hansard(sync=False).request()  # as `why` asks: the repository registered, its facts kept, answers kept
    rq.repository(top)
    store = rq.store
    moved, sampled = pick_files(top, others, a.sample, rng)
    files = moved + sampled
    per_file = max(a.lines, -(-a.min_lines // max(1, len(files))))
    totals: dict = {"corpus": label, "files_renamed_or_copied": len(moved), "files_sampled": len(sampled),
                    "lines_asked": 0, "asked": {}, "answers": {}, "differences": [], "blame_lines": 0,
                    "blame_differences": []}
    t0 = time.perf_counter()
    for rel in files:
        n = text_lines(top, rel) or 0
        lines = sorted(rng.sample(range(1, n + 1), min(per_file, n)))
        ranges = [(max(1, x - rng.randint(0, 15)), min(n, x + rng.randint(0, 15))) for x in lines[::2]]
        report = check_file(store, top, rel, lines, ranges, symbols_of(store, top, rel, rng, a.symbols),
                            keep=rq.keep)
        totals["lines_asked"] += len(lines)
        for way, k in report.asked.items():
            totals["asked"][way] = totals["asked"].get(way, 0) + k
        for way, k in report.lines.items():
            totals["answers"][way] = totals["answers"].get(way, 0) + k
        totals["differences"] += report.differences
        compared, differ = blame_agrees(top, rel, lines)
        totals["blame_lines"] += compared
        totals["blame_differences"] += differ
        print(f"  {rel}: {len(lines)} lines, {len(report.differences)} differences, "
              f"blame -L differs on {len(differ)}", file=sys.stderr)
    totals["seconds"] = round(time.perf_counter() - t0, 1)
    rq.close()
    return totals


def real_corpus(name: str, a: argparse.Namespace) -> tuple[str, str, list[str]]:
    """(store, work tree, the files sessions touched) of ``real:NAME``, indexed when new."""
    import real_corpus as rc

    corpus = rc.ensure(name, None, a.cache, log=lambda s: print(s, file=sys.stderr))
    store = Path(a.dir) / name / "store"
    env = rc.env_for(corpus, store, dict(os.environ))
    if not (store / "hansard.db").exists():
        store.mkdir(parents=True, exist_ok=True)
        rc.configure(corpus, env)
        subprocess.run([sys.executable, "-m", "hansard", "index", *rc.index_args(corpus)], cwd=corpus / "repo",
                       env=env, check=True, capture_output=True)
    os.environ.update({k: v for k, v in env.items() if k != "PYTHONPATH"})
    return str(store / "hansard.db"), str(corpus / "repo"), [p for _, p, _ in rc.touched_files(corpus)]


def clone_corpus(path: str, a: argparse.Namespace) -> tuple[str, str, list[str]]:
    import real_corpus as rc

    if not a.clone_store:
        raise SystemExit("clone: needs --clone-store (a copy of its store: the check writes to it)")
    os.environ["HANSARD_HOME"] = os.path.dirname(os.path.abspath(a.clone_store))
    tracked = git(path, "ls-files", "-z").split("\0")
    return a.clone_store, path, [p for p in tracked if os.path.splitext(p)[1] in rc.SOURCE_EXT]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default="real:cli,real:entire-graph")
    ap.add_argument("--dir", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "hansard-one-answer"),
                    help="where real corpora's stores are kept (NAME/store)")
    ap.add_argument("--cache", help="where real corpora are kept (scripts/real_corpus.py)")
    ap.add_argument("--clone-store", help="the store (hansard.db) of a clone:PATH corpus")
    ap.add_argument("--sample", type=int, default=20, help="files sampled besides the renamed or copied ones")
    ap.add_argument("--lines", type=int, default=8, help="lines asked per file (more when needed for --min-lines)")
    ap.add_argument("--min-lines", type=int, default=500, help="lines asked per corpus, at least")
    ap.add_argument("--symbols", type=int, default=2, help="symbols per file asked through log --symbol")
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--json", help="write every result here")
    a = ap.parse_args()
    results = []
    for spec in a.corpus.split(","):
        kind, _, name = spec.partition(":")
        store, top, others = real_corpus(name, a) if kind == "real" else clone_corpus(name, a)
        print(f"{spec}: {store}", file=sys.stderr)
        results.append(check_corpus(spec, store, top, others, a))
    bad = False
    for r in results:
        diffs = r["differences"]
        by_way: dict[str, int] = {}
        for d in diffs:
            by_way[d["way"]] = by_way.get(d["way"], 0) + 1
        bad = bad or bool(diffs)
        print(f"== {r['corpus']}: {r['files_renamed_or_copied']} renamed or copied files + {r['files_sampled']} "
              f"sampled, {r['lines_asked']} lines asked, {r['seconds']} s")
        for way in sorted(r["asked"]):
            print(f"  {way}: {r['asked'][way]} questions, {r['answers'][way]} answers compared, "
                  f"{by_way.get(way, 0)} differ")
        print(f"  blame -L N,N against the whole file's blame: {len(r['blame_differences'])} of {r['blame_lines']} "
              f"lines name another (commit, path, line)")
        for d in diffs[:5]:
            print(f"    {d['way']} {d['asked']} line {d['line']}: expected {json.dumps(d['expected'])[:300]}; "
                  f"got {json.dumps(d['got'])[:300]}")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1, default=str) + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
