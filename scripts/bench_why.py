"""Benchmark `hansard why` against `git blame -w -M -C --porcelain` (the blame `why` runs) on
the same repository and file, side by side.

Two corpora, built with git fast-import (or reused with --dir):

  * ``--corpus gots`` (default): shaped like real Go/TypeScript work. Six files of 1,000-4,000
    lines full of common lines (``}``, ``return nil``, ``if err != nil {``, ``});``), 1,500
    commits, 320 Claude Code sessions whose Edit calls wrote most of them; some commits a
    person made alone, some where a person changed the agent's line before committing.
  * ``--corpus big``: one 1,000-line file rewritten by 4,000 commits (600 with --quick), 1,000
    (200) sessions that each wrote a whole version of it.

Then, per file, in alternation so machine noise hits both equally:

  * one line:    `hansard why FILE:N --json --no-cache`  vs  `git blame -w -M -C -L N,N --porcelain`
  * whole file:  `hansard why FILE --json --no-cache`    vs  `git blame -w -M -C --porcelain FILE`
  * re-opened:   `hansard why FILE --json` a second time (the why-result cache)

Targets (issue 14): whole file, median over the files, <= 1.5x (blame + 60 ms); one line <=
1.3x blame -L + 60 ms; re-opened <= 80 ms. Bytecode is written (as an installed hansard has
it), whatever PYTHONDONTWRITEBYTECODE says. Prints medians, ratios and PASS/MISS. Never run
in CI.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LINES = 1000
T0 = 1_780_000_000  # 2026-05-28, fixed so the corpus is the same every run


def words(rng: random.Random, n: int) -> str:
    vocab = ["alpha", "beta", "gamma", "delta", "retry", "upload", "cache", "value", "index", "result", "total",
             "count", "items", "payload", "config", "session", "token", "buffer", "offset", "limit"]
    return "_".join(rng.choice(vocab) for _ in range(n))


def new_line(rng: random.Random, i: int) -> str:
    return f"    {words(rng, 2)}_{i} = compute_{words(rng, 1)}({words(rng, 1)}, {rng.randint(0, 10**6)})"


def build(root: Path, commits: int, sessions: int, seed: int) -> tuple[Path, Path]:
    """The ``big`` corpus."""
    rng = random.Random(seed)
    repo = root / "repo"
    home = root / "home"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    lines = [new_line(rng, i) for i in range(LINES)]
    session_every = max(1, commits // sessions)
    stream: list[bytes] = []
    edits: list[tuple[int, str, list[str], list[str], list[dict]]] = []  # (time, sid, before, after, patch)
    for c in range(commits):
        before = list(lines)
        for _ in range(3):
            k = rng.randrange(LINES)
            lines[k] = new_line(rng, k)
        other = f"{words(rng, 3)} {c}\n"
        t = T0 + c * 600
        data = ("def big():\n" + "\n".join(lines) + "\n").encode()
        msg = f"change {c}\n".encode()
        stream.append(b"commit refs/heads/main\n")
        stream.append(f"mark :{c + 1}\n".encode())
        stream.append(f"author Bench <bench@example.com> {t} +0000\ncommitter Bench <bench@example.com> {t} +0000\n".encode())
        stream.append(f"data {len(msg)}\n".encode() + msg)
        if c:
            stream.append(f"from :{c}\n".encode())
        stream.append(f"M 100644 inline src/big.py\ndata {len(data)}\n".encode() + data + b"\n")
        stream.append(f"M 100644 inline notes/n{c % 50}.txt\ndata {len(other)}\n{other}\n".encode())
        if c % session_every == 0 and len(edits) < sessions:
            edits.append((t - 120, f"{seed:04d}{len(edits):04d}-0000-4000-8000-{c:012d}", before, list(lines), []))
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)
    subprocess.run(["git", "commit-graph", "write", "--reachable"], cwd=repo, check=True, capture_output=True)
    write_sessions(home, repo, edits)
    return repo, home


def write_sessions(home: Path, repo: Path, edits: list) -> None:
    import difflib

    folder = home / ".claude" / "projects" / str(repo).replace("/", "-")
    folder.mkdir(parents=True)
    path = str(repo / "src" / "big.py")
    for t, sid, before, after, _ in edits:
        a = ["def big():", *before]
        b = ["def big():", *after]
        hunks = []
        for g in difflib.SequenceMatcher(None, a, b, autojunk=False).get_grouped_opcodes(3):
            i1, i2, j1, j2 = g[0][1], g[-1][2], g[0][3], g[-1][4]
            hl: list[str] = []
            for tag, x1, x2, y1, y2 in g:
                hl += [" " + x for x in a[x1:x2]] if tag == "equal" else ["-" + x for x in a[x1:x2]] + ["+" + y for y in b[y1:y2]]
            hunks.append({"oldStart": i1 + 1, "oldLines": i2 - i1, "newStart": j1 + 1, "newLines": j2 - j1, "lines": hl})
        ts = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t))
        base = {"isSidechain": False, "userType": "external", "cwd": str(repo), "sessionId": sid, "version": "2.1.119"}
        recs = [
            {**base, "parentUuid": None, "type": "user", "uuid": sid + "-u", "timestamp": ts,
             "message": {"role": "user", "content": "update the computations in big()"}},
            {**base, "parentUuid": sid + "-u", "type": "assistant", "uuid": sid + "-a", "timestamp": ts,
             "message": {"id": "msg_" + sid, "role": "assistant", "content": [{"type": "tool_use", "id": "toolu_" + sid,
                         "name": "Write", "input": {"file_path": path, "content": "\n".join(b) + "\n"}}]}},
            {**base, "parentUuid": sid + "-a", "type": "user", "uuid": sid + "-r", "timestamp": ts,
             "message": {"role": "user", "content": [{"tool_use_id": "toolu_" + sid, "type": "tool_result", "content": "ok"}]},
             "toolUseResult": {"type": "update", "filePath": path, "content": "\n".join(b) + "\n", "structuredPatch": hunks,
                               "originalFile": "\n".join(a) + "\n"}},
        ]
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


# -- the Go/TypeScript-shaped corpus -----------------------------------------------------------

GOTS_FILES = {  # path -> (language, lines to grow to)
    "server/handlers.go": ("go", 3500), "server/store.go": ("go", 2200), "internal/jobs/worker.go": ("go", 1200),
    "web/src/api/client.ts": ("ts", 4000), "web/src/components/Table.tsx": ("ts", 1600),
    "web/src/lib/format.ts": ("ts", 1000),
}
ENTITIES = ["User", "Order", "Invoice", "Project", "Team", "Token", "Upload", "Report", "Webhook", "Session",
            "Payment", "Account", "Invite", "Comment", "Label", "Build"]
VERBS = ["Get", "List", "Create", "Update", "Delete", "Sync", "Archive", "Restore", "Export", "Validate"]
FIELDS = ["ID", "Name", "Email", "Status", "CreatedAt", "UpdatedAt", "OwnerID", "Total", "Count", "Limit", "Offset"]


def _go_block(rng: random.Random, n: int) -> list[str]:
    ent, verb = rng.choice(ENTITIES), rng.choice(VERBS)
    var = ent[0].lower() + ent[1:]
    out = [f"func (s *Server) handle{verb}{ent}{n}(w http.ResponseWriter, r *http.Request) {{",
           "\tctx := r.Context()",
           f"\t{var}, err := s.store.{verb}{ent}(ctx, chi.URLParam(r, \"{var}ID\"))",
           "\tif err != nil {",
           "\t\thttp.Error(w, err.Error(), http.StatusInternalServerError)",
           "\t\treturn",
           "\t}"]
    for _ in range(rng.randint(2, 12)):
        f = rng.choice(FIELDS)
        out += rng.choice([
            [f"\tif {var}.{f} == \"\" {{", "\t\treturn", "\t}"],
            [f"\t{var}.{f} = strings.TrimSpace(r.FormValue(\"{f.lower()}_{rng.randint(0, 99)}\"))"],
            ["\tif err := s.audit.Record(ctx, \"%s.%s\", %s.ID); err != nil {" % (var, verb.lower(), var),
             "\t\treturn", "\t}"],
            [f"\tlog.Printf(\"{verb.lower()} {var} %s: {f.lower()}={rng.randint(0, 9999)}\", {var}.ID)"],
            ["\tdefer cancel()"],
        ])
    out += [f"\twriteJSON(w, http.StatusOK, {var})", "}", ""]
    return out


def _ts_block(rng: random.Random, n: int) -> list[str]:
    ent, verb = rng.choice(ENTITIES), rng.choice(VERBS)
    out = [f"export async function {verb.lower()}{ent}{n}(id: string): Promise<{ent}> {{",
           f"  const res = await fetch(`/api/{ent.lower()}s/${{id}}?v={rng.randint(0, 999)}`);",
           "  if (!res.ok) {",
           "    throw new Error(res.statusText);",
           "  }",
           "  const data = await res.json();"]
    for _ in range(rng.randint(2, 12)):
        f = rng.choice(FIELDS)
        out += rng.choice([
            [f"  if (!data.{f[0].lower() + f[1:]}) {{", "    return data;", "  }"],
            [f"  data.{f[0].lower() + f[1:]} = normalize{f}(data.{f[0].lower() + f[1:]}, {rng.randint(0, 99)});"],
            ["  items.forEach((item) => {", f"    item.{f[0].lower() + f[1:]} = data.id;", "  });"],
            [f"  console.debug('{verb.lower()} {ent.lower()}', id, {rng.randint(0, 9999)});"],
            ["  return data;"],
        ])
    out += [f"  return data as {ent};", "}", ""]
    return out


def _block(rng: random.Random, lang: str, n: int) -> list[str]:
    return _go_block(rng, n) if lang == "go" else _ts_block(rng, n)


def _header(lang: str) -> list[str]:
    if lang == "go":
        return ["package server", "", "import (", "\t\"log\"", "\t\"net/http\"", "\t\"strings\"", "", "\t\"github.com/go-chi/chi/v5\"",
                ")", ""]
    return ["import { normalizeID, normalizeName } from '../lib/normalize';", "import type { User } from './types';", ""]


def _tweak(rng: random.Random, line: str) -> str:
    """A person's small change to a line (a renamed value, a number): similar, not equal."""
    if any(c.isdigit() for c in line):
        return "".join(str(rng.randint(0, 9)) if c.isdigit() else c for c in line)
    return line.replace("err", "e", 1) if "err" in line else line + " // checked"


def build_gots(root: Path, seed: int, commits: int = 1500, sessions: int = 320) -> tuple[Path, Path]:
    rng = random.Random(seed)
    repo, home = root / "repo", root / "home"
    repo.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True)
    files: dict[str, list[str]] = {}
    n = 0
    for path, (lang, size) in GOTS_FILES.items():
        lines = _header(lang)
        while len(lines) < size * 0.6:
            n += 1
            lines += _block(rng, lang, n)
        files[path] = lines
    stream: list[bytes] = []
    # (session id, [(time, path, hunk dict, old text, new text, user_modified)])
    work: list[tuple[str, list[tuple[int, str, dict, str, str]]]] = []
    agent_commits = commits * 2 // 3
    per_session = max(1, agent_commits // sessions)
    paths = list(GOTS_FILES)

    def emit(c: int, t: int, msg: str, changed: dict[str, list[str]]) -> None:
        stream.append(f"commit refs/heads/main\nmark :{c + 1}\n".encode())
        stream.append(f"author Dev <dev@example.com> {t} +0000\ncommitter Dev <dev@example.com> {t} +0000\n".encode())
        m = msg.encode()
        stream.append(f"data {len(m)}\n".encode() + m + b"\n")
        if c:
            stream.append(f"from :{c}\n".encode())
        for p, lines in changed.items():
            data = ("\n".join(lines) + "\n").encode()
            stream.append(f"M 100644 inline {p}\ndata {len(data)}\n".encode() + data + b"\n")

    emit(0, T0, "initial import", files)
    session_i = -1
    agent_done = 0
    for c in range(1, commits):
        t = T0 + c * 300
        path = rng.choice(paths)
        lang, size = GOTS_FILES[path]
        lines = files[path]
        before = list(lines)
        # one contiguous change: grow until the file reaches its size, then mostly rewrite
        op = rng.random()
        if len(lines) < size and op < 0.6:
            at = rng.randrange(len(_header(lang)), len(lines))
            while at < len(lines) and lines[at - 1] != "":
                at += 1
            n += 1
            a, b, new = at, at, _block(rng, lang, n)
        elif op < 0.85 or len(lines) <= size * 0.8:
            a = rng.randrange(len(_header(lang)), len(lines) - 6)
            b = a + rng.randint(1, 4)
            new = [_tweak(rng, x) if x.strip() not in ("}", "", "});") else x for x in lines[a:b]]
            if new == lines[a:b]:
                new = new[:-1] + [new[-1] + "  // TODO"]
        else:
            a = rng.randrange(len(_header(lang)), len(lines) - 30)
            b = a + rng.randint(8, 25)
            new = []
        by_agent = agent_done < agent_commits and rng.random() < 0.68
        if by_agent:
            if session_i < 0 or len(work[session_i][1]) >= per_session and len(work) < sessions:
                session_i = len(work)
                work.append((f"{seed:04x}{session_i:04x}-6a1e-4c0d-9e2f-{c:012x}", []))
            agent_done += 1
            ctx_a, ctx_b = max(0, a - 3), min(len(lines), b + 3)
            hl = ([" " + x for x in lines[ctx_a:a]] + ["-" + x for x in lines[a:b]] + ["+" + x for x in new]
                  + [" " + x for x in lines[b:ctx_b]])
            hunk = {"oldStart": ctx_a + 1, "oldLines": ctx_b - ctx_a, "newStart": ctx_a + 1,
                    "newLines": ctx_b - ctx_a - (b - a) + len(new), "lines": hl}
            old_s, new_s = "\n".join(lines[ctx_a:ctx_b]), "\n".join(lines[ctx_a:a] + new + lines[b:ctx_b])
            work[session_i][1].append((t - 90, path, hunk, old_s, new_s))
        lines[a:b] = new
        if by_agent and new and rng.random() < 0.15:  # a person changes one of the agent's lines
            k = a + rng.randrange(len(new))
            if lines[k].strip() not in ("}", "", "});"):
                lines[k] = _tweak(rng, lines[k])
        if lines == before:
            lines.append("")
        emit(c, t, f"{'agent' if by_agent else 'dev'}: change {c} in {path}", {path: lines})
    subprocess.run(["git", "fast-import", "--quiet"], cwd=repo, input=b"".join(stream), check=True)
    subprocess.run(["git", "checkout", "-q", "main"], cwd=repo, check=True)
    subprocess.run(["git", "commit-graph", "write", "--reachable"], cwd=repo, check=True, capture_output=True)
    _write_edit_sessions(home, repo, work)
    return repo, home


def _write_edit_sessions(home: Path, repo: Path, work: list) -> None:
    folder = home / ".claude" / "projects" / str(repo).replace("/", "-")
    folder.mkdir(parents=True)
    for sid, edits in work:
        base = {"isSidechain": False, "userType": "external", "cwd": str(repo), "sessionId": sid, "version": "2.1.119"}
        ts0 = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(edits[0][0] - 30))
        recs = [{**base, "parentUuid": None, "type": "user", "uuid": sid + "-u", "timestamp": ts0,
                 "message": {"role": "user", "content": "implement the handlers and the client calls for the new endpoints"}}]
        parent = sid + "-u"
        for k, (t, rel, hunk, old_s, new_s) in enumerate(edits):
            ts = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(t))
            path, tid, a_uuid, r_uuid = str(repo / rel), f"toolu_{sid}_{k}", f"{sid}-a{k}", f"{sid}-r{k}"
            recs.append({**base, "parentUuid": parent, "type": "assistant", "uuid": a_uuid, "timestamp": ts,
                         "message": {"id": f"msg_{sid}_{k}", "role": "assistant", "content": [
                             {"type": "tool_use", "id": tid, "name": "Edit",
                              "input": {"file_path": path, "old_string": old_s, "new_string": new_s}}]}})
            recs.append({**base, "parentUuid": a_uuid, "type": "user", "uuid": r_uuid, "timestamp": ts,
                         "message": {"role": "user", "content": [{"tool_use_id": tid, "type": "tool_result",
                                                                  "content": "The file has been updated."}]},
                         "toolUseResult": {"filePath": path, "oldString": old_s, "newString": new_s,
                                           "structuredPatch": [hunk], "userModified": False, "replaceAll": False}})
            parent = r_uuid
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


# -- measuring -------------------------------------------------------------------------------------


def timed(cmd: list[str], cwd: Path, env: dict[str, str]) -> float:
    t = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


BLAME = ["git", "blame", "-w", "-M", "-C", "--porcelain"]


def measure(repo: Path, env: dict[str, str], rel: str, line: int, rounds: int) -> dict:
    hansard = [sys.executable, "-m", "hansard"]
    one = [*hansard, "why", f"{rel}:{line}", "--json", "--no-cache"]
    whole = [*hansard, "why", rel, "--json", "--no-cache"]
    again = [*hansard, "why", rel, "--json"]
    for cmd in (one, whole, again, [*BLAME, "-L", f"{line},{line}", rel], [*BLAME, rel]):  # warm both
        timed(cmd, repo, env)
    r: dict[str, list[float]] = {k: [] for k in ("one", "one_git", "whole", "whole_git", "again")}
    for _ in range(rounds):
        r["one"].append(timed(one, repo, env))
        r["one_git"].append(timed([*BLAME, "-L", f"{line},{line}", rel], repo, env))
        r["whole"].append(timed(whole, repo, env))
        r["whole_git"].append(timed([*BLAME, rel], repo, env))
        r["again"].append(timed(again, repo, env))
    out = {k: statistics.median(v) * 1e3 for k, v in r.items()}
    doc = json.loads(subprocess.run(again, cwd=repo, env=env, check=True, capture_output=True).stdout)
    out["lines"] = len(doc["lines"])
    out["kinds"] = dict(sorted(((k, sum(1 for x in doc["lines"] if x["kind"] == k))
                                for k in {x["kind"] for x in doc["lines"]})))
    return out


def run(quick: bool = False, directory: str | None = None, rounds: int = 15, seed: int = 7,
        corpus: str = "gots") -> list[dict]:
    root = Path(directory or tempfile.mkdtemp(prefix="hansard-bench-why-"))
    if not (root / "repo").exists():
        t = time.perf_counter()
        if corpus == "gots":
            build_gots(root, seed, *((500, 120) if quick else (1500, 320)))
        else:
            build(root, *((600, 200) if quick else (4000, 1000)), seed)
        print(f"built the {corpus} corpus in {time.perf_counter() - t:.1f}s at {root}", file=sys.stderr)
    repo, home = root / "repo", root / "home"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    # An editable install never writes hansard's bytecode while PYTHONDONTWRITEBYTECODE is set
    # (each process would compile every module again): write it once, as an installed wheel has it.
    import importlib.util

    package = os.path.dirname(importlib.util.find_spec("hansard").origin)  # the one `-m hansard` runs
    subprocess.run([sys.executable, "-m", "compileall", "-q", package], env=env, check=True, capture_output=True)
    env.update(HANSARD_HOME=str(root / "store"), CLAUDE_CONFIG_DIR=str(home / ".claude"),
               CODEX_HOME=str(home / ".codex"), GEMINI_CLI_HOME=str(home))
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "hansard", "index"], cwd=repo, env=env, check=True, capture_output=True)
    print(f"indexed in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    files = list(GOTS_FILES) if corpus == "gots" else ["src/big.py"]
    per_file = []
    for rel in files:
        n = sum(1 for _ in open(repo / rel, encoding="utf-8"))
        m = measure(repo, env, rel, n // 2, rounds)
        m["file"] = rel
        per_file.append(m)
        print(f"{rel} ({m['lines']} lines, {m['kinds']}): one line {m['one']:.0f} ms vs blame -L {m['one_git']:.0f}; "
              f"whole {m['whole']:.0f} ms vs blame {m['whole_git']:.0f}; re-opened {m['again']:.0f} ms", file=sys.stderr)
    med = statistics.median
    whole_ratio = med(m["whole"] / (m["whole_git"] + 60) for m in per_file)
    one_ratio = med((m["one"] - 60) / m["one_git"] for m in per_file)
    again = med(m["again"] for m in per_file)
    rows = [
        {"target": "why whole file <= 1.5x (git blame -w -M -C + 60 ms), median over files",
         "measured_ms": med(m["whole"] for m in per_file), "baseline_ms": med(m["whole_git"] for m in per_file),
         "ratio": whole_ratio, "pass": whole_ratio <= 1.5},
        {"target": "why one line <= 1.3x git blame -w -M -C -L + 60 ms, median over files",
         "measured_ms": med(m["one"] for m in per_file), "baseline_ms": med(m["one_git"] for m in per_file),
         "ratio": one_ratio, "pass": one_ratio <= 1.3},
        {"target": "why --json of an unchanged file again (cache) <= 80 ms", "measured_ms": again,
         "baseline_ms": med(m["whole_git"] for m in per_file), "ratio": again / 80, "pass": again <= 80},
    ]
    if not directory:
        shutil.rmtree(root, ignore_errors=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", choices=["gots", "big"], default="gots")
    ap.add_argument("--quick", action="store_true", help="a smaller corpus")
    ap.add_argument("--dir", help="reuse (or build into) this folder")
    ap.add_argument("--rounds", type=int, default=15)
    a = ap.parse_args()
    for r in run(a.quick, a.dir, a.rounds, corpus=a.corpus):
        print(f"{r['target']}: hansard {r['measured_ms']:.0f} ms, git {r['baseline_ms']:.0f} ms, ratio "
              f"{r['ratio']:.2f}  {'PASS' if r['pass'] else 'MISS'}")


if __name__ == "__main__":
    main()
