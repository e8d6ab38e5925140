"""Known-item retrieval: can search find the conversation a person remembers?

    python scripts/eval_search.py [--samples ../shared/samples] [--generated 300]

Two sets, each printed as R@1 and R@10 (is the target session the first result / among the
first ten distinct sessions) for keyword, meaning and hybrid:

1. the shared samples: every user request of 30+ characters is a target; its query is 3-5
   of its rarest words (by document frequency in the store), the way someone recalls a
   conversation by a few distinctive words;
2. a generated corpus of N sessions, each about a distinct (component, problem) pair, with
   distractor sessions sharing either half; the query is a *paraphrase* ("panics" for
   "crashes", "slow" for "high latency") plus the component, which keyword search can only
   half-match and meaning search should help with.

For comparison: episodic-memory reaches R@1 53% and R@10 75% on 17k real exchanges.
Meaning and hybrid need the semantic extra; without it they are reported as skipped.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

COMPONENTS = ["upload retry", "invoice exporter", "websocket gateway", "thumbnail worker", "search indexer",
              "oauth callback", "billing webhook", "session cache", "csv importer", "pdf renderer", "rate limiter",
              "feature flag loader", "email digest", "audit logger", "geo lookup", "push notifier", "report scheduler",
              "image resizer", "token refresher", "config reloader"]
PROBLEMS = [
    ("crashes on empty input", "panics when the input is blank"),
    ("leaks memory under load", "memory keeps growing when busy"),
    ("times out after thirty seconds", "hangs and never answers in time"),
    ("returns stale data", "shows outdated results"),
    ("charges customers twice", "bills people double"),
    ("drops messages on reconnect", "loses events after the connection comes back"),
    ("is slow on large files", "takes forever with big documents"),
    ("fails in the nightly build", "breaks in the overnight pipeline"),
    ("logs secrets in plain text", "writes passwords into the logs"),
    ("ignores the timezone", "uses the wrong local time"),
]
FILLER = ("let me look at the code first", "running the tests now", "that change is in place", "I checked the logs",
          "the fix is small", "here is what I found", "I will refactor this part", "done, all green")


def build_generated(folder: Path, n: int, rng: random.Random) -> list[tuple[str, str]]:
    from fixtures_repos.writers import Transcript

    targets = []
    pairs = rng.sample([(c, p) for c in COMPONENTS for p in PROBLEMS], min(n, len(COMPONENTS) * len(PROBLEMS)))
    for i, (comp, (prob, para)) in enumerate(pairs):
        t = Transcript(f"gen-{i:05d}", cwd=f"/gen/repo{i % 7}", start=f"2026-0{1 + i % 9}-1{i % 10}T10:00:00")
        t.user(f"the {comp} {prob}, can you find out why and fix it")
        for _ in range(rng.randint(2, 5)):
            t.assistant(rng.choice(FILLER) + f" for the {comp}.")
        t.tool("Bash", {"command": "pytest -q"}, rng.choice(["4 passed", "1 failed, 3 passed", "ok"]))
        t.assistant(f"Fixed: the {comp} no longer {prob.split(' ', 1)[1] if ' ' in prob else prob}.")
        t.write(folder)
        targets.append((t.session_id, f"{comp} {para}"))
    return targets


def sample_targets(store, rng: random.Random, k: int = 150) -> list[tuple[str, str]]:
    """Known-item queries: the rarest words of people's prompts (read straight from the SQLite
    store: an evaluation harness, not answer code)."""
    db = store.db
    rows = db.execute(
        "SELECT s.session_id, m.text FROM messages m JOIN sessions s ON s.id=m.session_id"
        " WHERE m.role='user' AND m.kind='text' AND length(m.text) >= 30 AND s.parent_session_id IS NULL"
    ).fetchall()
    docs = [set(re.findall(r"[a-z][a-z0-9]{2,}", r[0].lower())) for r in db.execute("SELECT text FROM messages")]
    df = Counter(w for d in docs for w in d)
    n = len(docs)
    out = []
    for sid, text in rows:
        words = list(dict.fromkeys(re.findall(r"[a-z][a-z0-9]{2,}", text.lower())))
        if len(words) < 4:
            continue
        rare = sorted(words, key=lambda w: (df.get(w, 0), w))[: rng.randint(3, 5)]
        if all(math.log(n / max(df.get(w, 1), 1)) < 1.0 for w in rare):
            continue
        out.append((sid, " ".join(rare)))
    rng.shuffle(out)
    return out[:k]


def recall(store, targets: list[tuple[str, str]], mode: str, embedder=None) -> tuple[float, float, str]:
    from hansard.answers.search.sessions import search_past_sessions

    r1 = r10 = 0
    ran = mode
    for sid, q in targets:
        ans = search_past_sessions(store, q, mode=mode, limit=10, embedder=embedder, include_subagents=True)
        ran = ans["mode"]
        got = [h["session_id"] for h in ans["results"]]
        r1 += bool(got) and got[0] == sid
        r10 += sid in got[:10]
    n = max(len(targets), 1)
    return r1 / n, r10 / n, ran


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=Path, default=ROOT.parent / "shared" / "samples")
    ap.add_argument("--generated", type=int, default=200, help="sessions, one per distinct (component, problem); max 200")
    args = ap.parse_args()
    home = Path(tempfile.mkdtemp(prefix="hansard-eval-"))
    for var, sub in {"HOME": "", "HANSARD_HOME": "store", "CLAUDE_CONFIG_DIR": ".claude", "CODEX_HOME": ".codex",
                     "GEMINI_CLI_HOME": ".gemini"}.items():
        os.environ[var] = str(home / sub) if sub else str(home)
    os.environ["HANSARD_NO_BACKGROUND"] = "1"
    from hansard.ingest.run import index
    from hansard.answers.search import meaning
    from hansard.store import open_store

    emb, why = meaning.load_embedder()
    rng = random.Random(5)
    sets = {}
    os.environ["HANSARD_HOME"] = str(home / "samples-store")
    db1 = open_store()
    index(db1, [args.samples])
    sets["shared samples"] = (db1, sample_targets(db1, rng))
    os.environ["HANSARD_HOME"] = str(home / "generated-store")
    db2 = open_store()
    targets = build_generated(home / "generated", args.generated, rng)
    index(db2, [home / "generated"])
    sets[f"generated ({args.generated} sessions, paraphrased queries)"] = (db2, rng.sample(targets, min(150, len(targets))))
    if emb is not None:
        for db, _ in sets.values():
            meaning.build_vectors(db.search, emb)
    print(f"embedder: {emb.id if emb else 'none (' + str(why) + ')'}")
    print("anchor: episodic-memory R@1 53%, R@10 75% (17k real exchanges)")
    for name, (db, tg) in sets.items():
        print(f"\n{name}: {len(tg)} known-item queries")
        for mode in ("keyword", "meaning", "hybrid"):
            if mode != "keyword" and emb is None:
                print(f"  {mode:8} skipped: {why}")
                continue
            r1, r10, ran = recall(db, tg, mode, embedder=emb)
            print(f"  {mode:8} R@1 {r1:6.1%}   R@10 {r10:6.1%}" + ("" if ran == mode else f"  (ran {ran})"))


if __name__ == "__main__":
    main()
