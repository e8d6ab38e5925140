"""Precision of `hansard why` graded by a second reference: git-ai's own repository, whose
authorship notes (``refs/notes/ai``, ``authorship/3.0.0``) were recorded by hooks at commit time.

    python scripts/bench_git_ai_notes.py [--snapshot GIT_DIR] [--cache DIR] [--rebuild]
                                         [--code DIR --label NAME ...] [--files N] [--jobs N]
                                         [--regrade RUN_DIR ...]

The snapshot is a bare clone of ``github.com/git-ai-project/git-ai`` with its notes
(``--snapshot``, else ``$HANSARD_REAL_SNAPSHOTS/git-ai-project+git-ai/repo``, default
``/work/.mirror``). A note names, per file of its commit, the lines each prompt's session
wrote (``  <hash> <ranges>`` under the path), and its metadata embeds many of those sessions'
conversations (``messages``: ``user``/``assistant`` texts and ``tool_use`` calls, with their
times where the agent kept them). What it gives:

  * Claude Code: every message timed; ``Edit`` keeps ``file_path``, ``old_string``,
    ``new_string``, ``replace_all``, ``Write`` its ``content``; no tool result, so no
    ``structuredPatch``.
  * Cursor (read by git-ai from the editor's ``state.vscdb``): texts mostly timed, tool calls
    never, and an edit call (``search_replace``, ``write``, ``apply_patch``, ``edit_file``,
    ``MultiEdit``) keeps **only its ``file_path``**: git-ai cleared the rest.
  * Codex: ``apply_patch`` with its patch text, ``exec_command``.

The corpus, built under ``<cache>/git-ai/<main commit[:12]>/`` (cache: ``--cache``, else
``$HANSARD_BENCH_CACHE``, else ``~/.cache/hansard-bench/real``), never inside the checkout:

  * ``repo/``: a clone of the default branch alone, **without the notes** (so they decide
    nothing: hansard reads git-ai's notes as recorded evidence when they are there);
  * ``home/``: each session's conversation, put together from every note that embeds it (a note
    carries the session as it was at its commit; copies are merged in order, a message kept once
    by its content and time), written where and how its agent keeps it: Claude Code
    ``.claude/projects/<cwd>/<id>.jsonl`` (an edit call gets the tool result a version without
    ``structuredPatch`` writes, ``{filePath, oldString, newString, replaceAll}``, since git-ai
    lists only calls that ran), Cursor ``cursor/globalStorage/state.vscdb`` (a composer and its
    bubbles; a tool bubble as git-ai left it: ``rawArgs`` with the path alone, no
    ``createdAt``, ``status: completed``), Codex ``.codex/sessions/…/rollout-….jsonl``
    (``apply_patch`` as a ``custom_tool_call`` with a successful output). The folders the
    sessions ran in (``/Users/…/git-ai``, worktrees) are found from the absolute paths their
    calls name whose tails are paths of the history; ``hansard config map`` maps each onto
    ``repo/``;
  * ``truth.json``: per commit of the default branch with a note: its parents, committer time
    and, per file, each session's line ranges; ``sessions.json``: each session's agent, first
    and last time and its readable edit calls (for the grading below); ``manifest.json`` last.

Same snapshot, same bytes (but the clone's own index file). Then, for each ``--code`` checkout
(default: this one; pass main's and this branch's to print before and after side by side), a
fresh store indexes ``home/`` and answers `hansard why FILE --json --no-cache` for every file at
HEAD that a note of the default branch names (text, at most 5,000 lines). Each line is graded
against the note of the commit that introduced it: blame at HEAD (``-w -M -C``, as why runs it)
gives the commit and the line's number in that commit's version of the file; only first-hand
lines count (the commit has a note and one parent: never a range a merge carried), and no blank
line (git-ai leaves them out of its ranges in some versions and not in others).

  * a claim is an ``agent`` or ``agent_modified`` line with a session; it is right when the note
    names that session for the line (or a session that shares its calls: a resumed or forked
    copy of the same conversation). An ``agent_modified`` line the note calls a person's is
    counted apart (``agent_modified`` says a person changed the session's line; the note says
    nothing of the version before the change);
  * a wrong claim is put in the first class that fits: ``note_after_commit`` (the note's session
    started after the commit: the conversation contradicts the note), ``note_contradicted`` (the
    note calls the line a person's, and the claimed session's own conversation shows it wrote it:
    one edit call of that session wrote, by its own diff, distinctive lines of this file and
    commit verbatim, each made before the commit, on the file the commit's parent has (for a file
    the commit creates: on a version whose replaced text the commit's file holds), and absent
    from that parent; three such lines or more, or fewer when the commit made the call's whole
    change (every line its diff added is new in the commit, every one it removed is gone); every
    line credited to that call there is set aside),
    ``shared_calls`` (the two sessions share an edit call to the millisecond), ``agent_modified``
    (the note names another session), ``not_in_parent`` (rule ``restored``: the history removed
    the edit's line and the commit brought it back), ``context`` (the credited edit's
    ``old_string`` already held the line), ``other_file`` (the credited edit wrote another file),
    ``outside_ancestry`` (the credited edit's ``old_string`` is not in the file at the commit's
    parent), ``no_note_session`` (the note names a session whose conversation no note embeds),
    ``single_line_written`` (the strict test of ``note_contradicted`` passes, for fewer lines),
    ``other``. The first two are notes the conversations contradict: the precision is printed
    with them and with them set aside;
  * recall: lines the note gives to a session one of whose readable edits, made before the
    commit, wrote that text (an added line of its own diff, ``old_string`` -> ``new_string``) into
    that file; right when `why` says ``agent`` and that session.

Prints, per checkout, precision (and with the contradicted notes set aside), recall, claims by
kind, wrong claims by class with examples, and the time the index and the answers took; a JSON
of each run goes in ``<corpus>/runs/``. Never run in CI; never asserts.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
for p in (ROOT, ROOT / "scripts"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

import real_corpus  # noqa: E402 - the scripts folder, put on the path above
from real_corpus import Blobs, git  # noqa: E402

from fixtures_repos.git_ai import (  # noqa: E402
    CLAUDE_EDITS,
    CURSOR_EDITS,
    claude_transcript,
    codex_rollout,
    digest,
    merge_copies,
    message_ids,
    when,
    write_vscdb,
)

BUILD_VERSION = 3
SOURCE = "git-ai-project/git-ai"
NOTES = "refs/notes/ai"
PATH_KEYS = ("file_path", "target_file", "notebook_path")
MAX_LINES = 5000
SLACK_S = 120  # hansard's own clock slack (hansard.values.timebounds.CLOCK_SLACK_S)
CLASSES = ("note_after_commit", "note_contradicted", "shared_calls", "agent_modified", "context", "other_file",
           "outside_ancestry", "not_in_parent", "no_note_session", "single_line_written", "other")


def find_snapshot(snapshot: str | None) -> Path:
    base = Path(os.environ.get("HANSARD_REAL_SNAPSHOTS", "/work/.mirror"))
    tries = [Path(snapshot)] if snapshot else [base / SOURCE.replace("/", "+") / "repo", base / "git-ai.git"]
    for p in tries:
        if (p / "objects").is_dir() or (p / ".git" / "objects").is_dir():
            return p
    raise SystemExit(f"no snapshot of {SOURCE} with its notes (looked at {', '.join(map(str, tries))}). Get one with\n"
                     f"  git clone --mirror https://github.com/{SOURCE} {tries[-1]}\n"
                     f"  git -C {tries[-1]} fetch origin '{NOTES}:{NOTES}'")


# -- reading the notes ------------------------------------------------------------------------------


def read_notes(snap: Path) -> dict[str, bytes]:
    """commit -> its note's bytes."""
    pairs = [x.split() for x in git(snap, "notes", f"--ref={NOTES}", "list").split("\n") if x.strip()]
    blobs = Blobs(snap)
    try:
        return {commit: blobs.get(blob) or b"" for blob, commit in pairs}
    finally:
        blobs.close()


def split_note(data: bytes) -> tuple[Any, dict]:
    """(hansard's parse of the attestation, the metadata object)."""
    from hansard.recorders.git_ai.notes import parse_note

    note = parse_note(data)
    text = data.decode("utf-8", "replace")
    _, sep, meta = text.partition("\n---\n")
    if not sep and text.startswith("---\n"):
        meta = text[4:]
    try:
        obj = json.loads(meta)
    except ValueError:
        obj = {}
    return note, obj if isinstance(obj, dict) else {}


# -- where the sessions ran ------------------------------------------------------------------------


def call_paths(tool: str, m: dict) -> list[str]:
    """Absolute file paths a tool call names."""
    inp = m.get("input")
    out = []
    if isinstance(inp, dict):
        for k in PATH_KEYS:
            if isinstance(inp.get(k), str) and inp[k].startswith("/"):
                out.append(inp[k])
        patch = inp.get("input") if isinstance(inp.get("input"), str) else None
    else:
        patch = inp if isinstance(inp, str) else None
    if patch:
        out += re.findall(r"^\*\*\* (?:Add|Update|Delete) File: (/\S.*?)\s*$", patch, re.M)
    return out


def choose_roots(tails: dict[str, set[str]]) -> list[str]:
    """The checkout folders among the candidates: one that only a single top-level file name
    supports (a ``README.md`` of another project) is not, nor is a folder inside another checkout
    (a file the history never had, whose tail only looks like one it had)."""
    kept = [r for r, ts in tails.items() if len(ts) >= 2 or any("/" in t for t in ts)]
    return sorted(r for r in kept if not any(r != o and r.startswith(o + "/") for o in kept))


def root_of(path: str, history: set[str]) -> tuple[str, str] | None:
    """(checkout folder, repository path) for an absolute path whose tail is a path of the
    history (the longest such tail)."""
    parts = path.split("/")
    for i in range(1, len(parts)):
        tail = "/".join(parts[i:])
        if tail in history:
            return "/".join(parts[:i]), tail
    return None


# -- writing the transcripts -----------------------------------------------------------------------


# -- the edits a session made, for grading ---------------------------------------------------------


def mapped(path: str, roots: list[str]) -> str | None:
    """The repository path of ``path`` under the longest of ``roots`` (as `config map` maps it)."""
    for r in sorted(roots, key=len, reverse=True):
        if path.startswith(r + "/"):
            return path[len(r) + 1:]
    return None


def touched(tool: str, msgs: list[dict], roots: list[str]) -> list[list[Any]]:
    """[repository path, time] of every edit call of the session, its text readable or not; an
    untimed call (Cursor's) takes the time of the last timed message before it, or None."""
    out = []
    last = None
    for m in msgs:
        last = m.get("timestamp") or last
        if m.get("type") != "tool_use":
            continue
        name = m.get("name")
        if not (tool == "claude" and name in CLAUDE_EDITS or tool == "cursor" and name in CURSOR_EDITS
                or tool == "codex" and name == "apply_patch"):
            continue
        for p in call_paths(tool, m):
            if (rel := mapped(p, roots)) is not None:
                out.append([rel, m.get("timestamp") or last])
    return out


def readable_edits(tool: str, msgs: list[dict], roots: list[str]) -> list[dict]:
    """The session's edit calls whose text is known: repository path, time, the text before and
    after (a Write: after only; a patch: its hunks' sides)."""
    out = []
    ids = message_ids(tool, msgs)
    for i, m in enumerate(msgs):
        if m.get("type") != "tool_use" or not m.get("timestamp"):
            continue
        name, inp = m.get("name"), m.get("input")
        call = ("toolu_" if tool == "claude" else "call_") + ids[i][:24]
        if tool == "claude" and name in CLAUDE_EDITS and isinstance(inp, dict):
            fp = inp.get("file_path")
            rel = mapped(fp, roots) if isinstance(fp, str) else None
            if name == "Edit":
                pairs = [(inp.get("old_string"), inp.get("new_string"))]
            elif name == "MultiEdit":
                pairs = [(e.get("old_string"), e.get("new_string")) for e in inp.get("edits") or [] if isinstance(e, dict)]
            else:
                pairs = [(None, inp.get("content"))]
            for old, new in pairs:
                if isinstance(new, str):
                    out.append({"i": i, "call": call, "name": name, "path": fp, "rel": rel, "ts": m["timestamp"],
                                "old": old if isinstance(old, str) else None, "new": new})
        elif tool == "codex" and name == "apply_patch" and isinstance(inp, str):
            from hansard.agents.edits import PatchError, parse_patch

            try:
                ops = parse_patch(inp)
            except PatchError:
                continue
            for op in ops:
                old = "\n".join(x for h in op.hunks for x in h.old_lines)
                new = "\n".join(x for h in op.hunks for x in h.new_lines)
                out.append({"i": i, "call": call, "name": name, "path": op.path, "rel": mapped(op.path, roots),
                            "ts": m["timestamp"], "old": old if op.op == "update" else None, "new": new})
    return out


# -- building --------------------------------------------------------------------------------------


def corpus_dir(snap: Path, cache: Path | None) -> tuple[Path, str, str]:
    head = git(snap, "symbolic-ref", "HEAD").strip()
    main = git(snap, "rev-parse", head).strip()
    return (cache or real_corpus.default_cache()) / "git-ai" / main[:12], head, main


def ensure(snapshot: str | None, cache: str | None, rebuild: bool, log=print) -> Path:
    snap = find_snapshot(snapshot)
    root, head, main = corpus_dir(snap, Path(cache) if cache else None)
    tip = git(snap, "rev-parse", "--verify", "-q", NOTES, check=False).strip()
    if not tip:
        raise SystemExit(f"{snap} has no {NOTES}: fetch the notes (git fetch origin '{NOTES}:{NOTES}')")
    marker = {"build_version": BUILD_VERSION, "source": SOURCE, "main": main, "notes_tip": tip}
    return real_corpus.built(root, marker, lambda out: build(snap, head, main, out, marker, log), rebuild, log,
                             "the git-ai notes corpus")


def clone(snap: Path, branch: str, repo: Path) -> int:
    """``repo``: the snapshot's ``branch`` alone (no notes, no other ref, no tag), origin set to
    the GitHub address, with the same commit ids. A blob the snapshot lacks (a fetched snapshot
    lacks blobs over 4 MiB: a screenshot here) is stood in for by a one-line placeholder
    through ``refs/replace/``, so no commit is written anew (the notes name commits by id).
    Returns how many blobs were replaced."""
    run = {"check": True, "capture_output": True}
    missing = sorted(x[1:] for x in git(snap, "rev-list", "--objects", "--missing=print", branch).split("\n")
                     if x.startswith("?"))
    if not missing:
        subprocess.run(["git", "clone", "-q", "--no-local", "--single-branch", "--no-tags", "--branch", branch,
                        str(snap), str(repo)], **run)
        subprocess.run(["git", "-C", str(repo), "remote", "set-url", "origin", f"https://github.com/{SOURCE}.git"], **run)
    else:
        subprocess.run(["git", "init", "-q", "-b", branch, str(repo)], **run)
        objs = git(snap, "rev-list", "--objects", "--missing=allow-any", branch, text=False)
        pack = subprocess.run(["git", "--git-dir", str(snap), "pack-objects", "--missing=allow-any", "--stdout", "-q"],
                              input=b"\n".join(x.split(b" ", 1)[0] for x in objs.split(b"\n") if x) + b"\n",
                              **run).stdout
        subprocess.run(["git", "-C", str(repo), "index-pack", "--stdin"], input=pack, **run)
        ph = subprocess.run(["git", "-C", str(repo), "hash-object", "-w", "--stdin"], input=real_corpus.PLACEHOLDER,
                            **run).stdout.decode().strip()
        for sha in missing:
            subprocess.run(["git", "-C", str(repo), "update-ref", f"refs/replace/{sha}", ph], **run)
        tip = git(snap, "rev-parse", branch).strip()
        subprocess.run(["git", "-C", str(repo), "update-ref", f"refs/heads/{branch}", tip], **run)
        subprocess.run(["git", "-C", str(repo), "reset", "-q", "--hard", branch], **run)
        subprocess.run(["git", "-C", str(repo), "remote", "add", "origin", f"https://github.com/{SOURCE}.git"], **run)
    subprocess.run(["git", "-C", str(repo), "commit-graph", "write", "--reachable"], **run)
    return len(missing)


def build(snap: Path, head: str, main: str, out: Path, marker: dict, log) -> None:
    branch = head.removeprefix("refs/heads/")
    repo = out / "repo"
    replaced = clone(snap, branch, repo)
    gd = repo / ".git"
    assert not git(gd, "for-each-ref", "refs/notes", "refs/tags").strip()
    parents = {x.split()[0]: x.split()[1:] for x in git(gd, "rev-list", "--parents", branch).split("\n") if x}
    ctime = {x.split()[0]: int(x.split()[1]) for x in git(gd, "log", "--format=%H %ct", branch).split("\n") if x}
    history = set(git(gd, "log", "--format=", "--name-only", branch).split("\n")) - {""}

    log("reading the notes")
    raw = read_notes(snap)
    copies: dict[tuple[str, str], list[list[dict]]] = collections.defaultdict(list)
    models: dict[tuple[str, str], str] = {}
    truth: dict[str, dict] = {}
    counts: collections.Counter[str] = collections.Counter()
    for commit in sorted(raw):
        note, meta = split_note(raw[commit])
        prompts = meta.get("prompts") if isinstance(meta.get("prompts"), dict) else {}
        for _h, p in sorted(prompts.items()):
            if not isinstance(p, dict):
                continue
            agent = p.get("agent_id") if isinstance(p.get("agent_id"), dict) else {}
            key = (str(agent.get("tool")), str(agent.get("id")))
            if isinstance(p.get("messages"), list) and p["messages"]:
                copies[key].append(p["messages"])
            if isinstance(agent.get("model"), str):
                models.setdefault(key, agent["model"])
        counts["notes"] += 1
        if commit not in parents or note is None:
            continue
        counts["notes on the default branch"] += 1
        keys = {h: f"{q.get('agent')}:{q.get('session_id')}" for h, q in note.prompts.items()}
        truth[commit] = {"parents": len(parents[commit]), "time": ctime[commit],
                         "files": {path: [[keys.get(h, f"unknown:{h}"), ranges] for h, ranges in entries]
                                   for path, entries in sorted(note.files.items())}}

    log(f"putting {len(copies)} conversations together")
    sessions: dict[str, dict] = {}
    root_votes: dict[tuple[str, str], collections.Counter[str]] = collections.defaultdict(collections.Counter)
    tails: dict[str, set[str]] = collections.defaultdict(set)
    merged: dict[tuple[str, str], list[dict]] = {}
    for key in sorted(copies):
        tool, sid = key
        if tool not in ("claude", "cursor", "codex"):
            counts[f"conversations of {tool} (not written: no reader of its format here)"] += 1
            continue
        msgs = merge_copies(copies[key])
        merged[key] = msgs
        for m in msgs:
            if m.get("type") == "tool_use":
                for path in call_paths(tool, m):
                    hit = root_of(path, history)
                    if hit:
                        root_votes[key][hit[0]] += 1
                        tails[hit[0]].add(hit[1])
    roots = choose_roots(tails)
    for votes in root_votes.values():
        for r in [r for r in votes if r not in roots]:
            del votes[r]

    home = out / "home"
    cursor: list[tuple[str, str | None, list[dict]]] = []
    shared: dict[tuple[str, str], set[str]] = collections.defaultdict(set)  # (time, call) -> sessions
    for key, msgs in merged.items():
        tool, sid = key
        votes = root_votes.get(key)
        cwd = max(votes, key=lambda r: (votes[r], r)) if votes else "/unknown/git-ai"
        times = [m["timestamp"] for m in msgs if m.get("timestamp")]
        edits = readable_edits(tool, msgs, roots)
        unreadable = sum(1 for m in msgs if m.get("type") == "tool_use" and tool == "cursor"
                         and m.get("name") in CURSOR_EDITS)
        sessions[f"{tool}:{sid}"] = {"tool": tool, "id": sid, "cwd": cwd, "messages": len(msgs), "copies": len(copies[key]),
                                     "first": min(times) if times else None, "last": max(times) if times else None,
                                     "edits": edits, "unreadable_edits": unreadable,
                                     "touched": touched(tool, msgs, roots)}
        for m in msgs:
            if m.get("type") == "tool_use" and m.get("timestamp") and m.get("name") in CLAUDE_EDITS:
                shared[(m["timestamp"], json.dumps(m.get("input"), sort_keys=True))].add(f"{tool}:{sid}")
        if tool == "claude":
            data = claude_transcript(sid, cwd, models.get(key), msgs)
            p = home / ".claude" / "projects" / re.sub(r"[^A-Za-z0-9]", "-", cwd) / f"{sid}.jsonl"
        elif tool == "codex":
            data, start = codex_rollout(sid, cwd, msgs)
            d = datetime.fromtimestamp(when(start) or 0, UTC)
            p = home / ".codex" / "sessions" / f"{d:%Y/%m/%d}" / f"rollout-{d:%Y-%m-%dT%H-%M-%S}-{sid}.jsonl"
        else:
            cursor.append((sid, models.get(key), msgs))
            counts["cursor edit calls with only a path"] += unreadable
            continue
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
        if times:
            t = when(max(times)) or 0
            os.utime(p, (t, t))
    write_vscdb(home / "cursor" / "globalStorage" / "state.vscdb", cursor)
    links = sorted({tuple(sorted(v)) for v in shared.values() if len(v) > 1})
    per_tool = collections.Counter(s["tool"] for s in sessions.values())
    manifest = {
        "build": marker, "branch": branch, "commits": len(parents), "notes": counts["notes"],
        "noted_commits_on_branch": counts["notes on the default branch"],
        "history_blobs_replaced": replaced,
        "noted_first_hand_commits": sum(1 for t in truth.values() if t["parents"] == 1),
        "conversations": dict(sorted(per_tool.items())),
        "claude_readable_edit_calls": sum(len(s["edits"]) for s in sessions.values() if s["tool"] == "claude"),
        "codex_readable_edit_calls": sum(len(s["edits"]) for s in sessions.values() if s["tool"] == "codex"),
        "notes_counts": {k: v for k, v in sorted(counts.items()) if k not in ("notes", "notes on the default branch")},
        "sessions_sharing_calls": [list(x) for x in links],
        "path_maps": roots,
    }
    (out / "truth.json").write_text(json.dumps(truth, sort_keys=True) + "\n")
    (out / "sessions.json").write_text(json.dumps(sessions, sort_keys=True) + "\n")
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    log(json.dumps({k: v for k, v in manifest.items() if k not in ("path_maps", "sessions_sharing_calls")}))


# -- measuring -------------------------------------------------------------------------------------


def env_for(corpus: Path, store: Path, code: Path) -> dict[str, str]:
    env = real_corpus.env_for(corpus, store)
    home = corpus / "home"
    env.update(CURSOR_CONFIG_DIR=str(home / "cursor"), CURSOR_HOME=str(home / ".cursor"))
    env["PYTHONPATH"] = str(code)
    return env


def files_to_answer(corpus: Path, truth: dict) -> list[str]:
    repo = corpus / "repo"
    named = {p for t in truth.values() for p in t["files"]}
    out = []
    for rel in sorted(named):
        p = repo / rel
        if not p.is_file() or p.is_symlink() or p.stat().st_size > 400_000:
            continue
        data = p.read_bytes()
        if b"\0" in data[:8000] or data.count(b"\n") > MAX_LINES:
            continue
        out.append(rel)
    return out


def blame(repo: Path, rel: str) -> list[tuple[str, str, int]]:
    """(commit, path in it, line number in it) of each line, as why blames it."""
    args = ["git", "-C", str(repo), "blame", "--porcelain", "-w", "-M", "-C"]
    if (repo / ".git-blame-ignore-revs").is_file():
        args += ["--ignore-revs-file", str(repo / ".git-blame-ignore-revs")]
    raw = subprocess.run([*args, "--", rel], capture_output=True, check=True).stdout.decode("utf-8", "replace")
    out = []
    names: dict[str, str] = {}
    cur = None
    for line in raw.split("\n"):
        if cur is None:
            parts = line.split()
            if len(parts) >= 3 and len(parts[0]) == 40:
                cur = [parts[0], int(parts[1])]
            continue
        if line.startswith("filename "):
            names[cur[0]] = line[9:]
        elif line.startswith("\t"):
            out.append((cur[0], names.get(cur[0], rel), cur[1]))
            cur = None
    return out


def answer_all(repo: Path, env: dict[str, str], files: list[str], jobs: int) -> dict[str, dict]:
    def one(rel: str) -> tuple[str, dict | None]:
        r = subprocess.run(["nice", sys.executable, "-m", "hansard", "why", rel, "--json", "--no-cache"], cwd=repo,
                           env=env, capture_output=True)
        try:
            return rel, json.loads(r.stdout) if r.returncode == 0 else None
        except ValueError:
            return rel, None

    with ThreadPoolExecutor(jobs) as pool:
        return dict(pool.map(one, files))


class Grader:
    def __init__(self, corpus: Path) -> None:
        from hansard.text import textnorm

        self.norm = textnorm
        self.repo = corpus / "repo"
        self.truth = json.loads((corpus / "truth.json").read_text())
        self.sessions = json.loads((corpus / "sessions.json").read_text())
        self.notes = {}
        manifest = json.loads((corpus / "manifest.json").read_text())
        self.linked: dict[str, set[str]] = collections.defaultdict(set)
        for group in manifest["sessions_sharing_calls"]:
            for a in group:
                self.linked[a.split(":", 1)[1]] |= {b.split(":", 1)[1] for b in group}
        self.by_id = {s["id"]: s for s in self.sessions.values()}
        self._added: dict[str, list[tuple[float, str | None, set[int], set[int], dict]]] = {}
        self.blobs = Blobs(self.repo / ".git")
        self._names: dict[tuple[str, str], set[str]] = {}

    def close(self) -> None:
        self.blobs.close()

    def text_at(self, rev: str, path: str) -> str | None:
        r = subprocess.run(["git", "-C", str(self.repo), "rev-parse", "--verify", "-q", f"{rev}:{path}"],
                           capture_output=True, text=True)
        if r.returncode:
            return None
        data = self.blobs.get(r.stdout.strip())
        return data.decode("utf-8", "replace") if data is not None else None

    def who(self, commit: str, path: str, line: int) -> str | None:
        for key, ranges in self.truth[commit]["files"].get(path, ()):
            if any(a <= line <= b for a, b in ranges):
                return key
        return None

    def edits_of(self, sid: str) -> list[tuple[float, str | None, set[int], set[int], dict]]:
        """(time, path, hashes its own diff added, hashes on both sides) of a session's readable edits."""
        out = self._added.get(sid)
        if out is None:
            from hansard.agents.edits import diff_texts

            out = []
            for e in (self.by_id.get(sid) or {}).get("edits", ()):
                added, removed, _ = diff_texts(e["old"], e["new"])
                hs = {self.norm.line_hash(x) for x in added}
                both = {self.norm.line_hash(x) for x in self.norm.split_lines(e["old"] or "")} & \
                       {self.norm.line_hash(x) for x in self.norm.split_lines(e["new"] or "")}
                out.append((when(e["ts"]) or 0.0, e["rel"], hs, both, e))
            self._added[sid] = out
        return out

    def same(self, a: str | None, b: str | None) -> bool:
        return a is not None and b is not None and (a == b or b in self.linked.get(a, ()))

    def grade(self, docs: dict[str, dict]) -> dict:
        res: dict[str, Any] = {"lines": 0, "graded": 0, "claims": collections.Counter(), "right": 0, "wrong": 0,
                               "by_class": collections.Counter(), "examples": collections.defaultdict(list),
                               "recall_lines": 0, "recall_right": 0, "recall_answers": collections.Counter(),
                               "kinds": collections.Counter(), "unanswered": sorted(r for r, d in docs.items() if d is None),
                               "wrong_claims": [], "cursor_lines": collections.Counter(), "by_rule": {},
                               "modified_by_the_notes_person": 0, "named_claims": 0, "named_wrong": 0,
                               "blank_lines": 0}
        wrong: list[dict] = []
        for rel, doc in sorted(docs.items()):
            if doc is None:
                continue
            bl = blame(self.repo, rel)
            if len(bl) != len(doc["lines"]):
                res["unanswered"].append(rel)
                continue
            for (sha, orig, oline), x in zip(bl, doc["lines"], strict=True):
                res["lines"] += 1
                t = self.truth.get(sha)
                if t is None or t["parents"] != 1:
                    continue
                if not x["content"].strip():
                    # git-ai leaves blank lines out of its ranges in some versions (not others):
                    # a blank line's note says nothing either way
                    res["blank_lines"] += 1
                    continue
                res["graded"] += 1
                res["kinds"][x["kind"]] += 1
                noted = self.who(sha, orig, oline)
                noted_id = noted.split(":", 1)[1] if noted else None
                h = self.norm.line_hash(x["content"])
                ctime = t["time"]
                # recall: a line the note's session's own readable edit wrote into this file before the commit
                if noted_id and not self.norm.is_trivial(x["content"]) and any(
                        h in added and path in (orig, rel) and ts <= ctime + SLACK_S
                        for ts, path, added, _, _ in self.edits_of(noted_id)):
                    res["recall_lines"] += 1
                    res["recall_answers"][f"{x['kind']}/{x.get('rule')}"] += 1
                    if x["kind"] == "agent" and self.same(noted_id, x.get("session_id")):
                        res["recall_right"] += 1
                if noted and noted.startswith("cursor:"):
                    res["cursor_lines"][x["kind"]] += 1
                if x["kind"] not in ("agent", "agent_modified") or not x.get("session_id"):
                    continue
                if x["kind"] == "agent_modified" and noted is None:
                    # "the session's line, changed by a person": the note's person made the
                    # change and says nothing of the version before it
                    res["modified_by_the_notes_person"] += 1
                    continue
                res["claims"][x["kind"]] += 1
                rule = x.get("rule") or "-"
                res["by_rule"].setdefault(rule, [0, 0])
                if noted is not None:
                    res["named_claims"] += 1
                if self.same(noted_id, x["session_id"]):
                    res["right"] += 1
                    res["by_rule"][rule][0] += 1
                    continue
                res["wrong"] += 1
                res["by_rule"][rule][1] += 1
                if noted is not None:
                    res["named_wrong"] += 1
                cls = self.classify(rel, sha, orig, x, noted, h, ctime)
                files = t["files"]
                wrong.append({"file": rel, "line": x["line"], "commit": sha[:10], "kind": x["kind"],
                              "rule": x.get("rule"), "says": x["session_id"][:8], "note": noted or "human", "class": cls,
                              "note_state": "empty" if not files else "names the file" if orig in files
                              else "names other files", "content": x["content"].strip()[:80],
                              "call": x.get("tool_call_id"), "trivial": self.norm.is_trivial(x["content"]),
                              "sha": sha, "orig": orig, "oline": oline, "x": x})
        for run in self._calls(wrong):
            # Lines one edit call of the session wrote verbatim into this file for this commit
            # (three distinctive lines or more, every one of them passing the strict test; or
            # fewer, when the commit made the call's whole change), that the note calls a
            # person's: the conversation contradicts the note for all the lines credited to that
            # call there, its short lines included.
            strict = sum(1 for w in run if w["class"] == "note_contradicted")
            if strict and all(w["class"] == "note_contradicted" or w["trivial"] for w in run) and (
                    strict >= 3 or self.whole_change(run[0]["sha"], run[0]["orig"], run[0]["x"])):
                for w in run:
                    w["class"] = "note_contradicted"
                continue
            for w in run:
                if w["class"] == "note_contradicted":
                    # fewer lines: set aside only one the note cuts out of the call's block, whose
                    # lines around it, above and below, it gives to the session
                    w["class"] = "note_contradicted" if self.cut_out(w) else "single_line_written"
        for item in wrong:
            for k in ("call", "trivial", "sha", "orig", "oline", "x"):
                item.pop(k, None)
            res["by_class"][item["class"]] += 1
            res["wrong_claims"].append(item)
            if len(res["examples"][item["class"]]) < 4:
                res["examples"][item["class"]].append(item)
        return res

    @staticmethod
    def _calls(wrong: list[dict]) -> list[list[dict]]:
        """Wrong claims by (file, commit, call credited), of lines the note calls a person's;
        every other wrong claim alone."""
        groups: dict[tuple, list[dict]] = {}
        for k, w in enumerate(wrong):
            key = (w["file"], w["commit"], w["call"]) if w["note"] == "human" and w["call"] else (k,)
            groups.setdefault(key, []).append(w)
        return list(groups.values())

    def classify(self, rel: str, sha: str, orig: str, x: dict, noted: str | None, h: int, ctime: int) -> str:
        noted_id = noted.split(":", 1)[1] if noted else None
        s = self.by_id.get(noted_id) if noted_id else None
        if s and s["first"] and (when(s["first"]) or 0) > ctime + SLACK_S:
            return "note_after_commit"
        if noted_id and x["session_id"] in self.linked.get(noted_id, ()):
            return "shared_calls"
        if self.contradicts(sha, orig, rel, x, noted_id, h, ctime):
            return "note_contradicted"
        if x["kind"] == "agent_modified" and noted_id:
            return "agent_modified"
        if x.get("rule") == "restored":
            return "not_in_parent"
        edit = self._credited(x)
        if edit is not None:
            ts, path, added, both, e = edit
            if h in both:
                return "context"
            if path not in self.names(sha, orig) | {rel}:
                return "other_file"
            if e["old"]:
                parent = self.text_at(f"{sha}^", orig)
                if parent is not None and e["old"] not in parent and self.norm.normalise(e["old"]) not in \
                        self.norm.normalise(parent):
                    return "outside_ancestry"
            parent = self.text_at(f"{sha}^", orig)
            if parent is not None and h not in {self.norm.line_hash(y) for y in self.norm.split_lines(parent)} \
                    and self._had_since(orig, h, ts, sha):
                return "not_in_parent"
        if noted and not s:
            return "no_note_session"
        return "other"

    def contradicts(self, sha: str, orig: str, rel: str, x: dict, noted_id: str | None, h: int, ctime: int) -> bool:
        """The claimed session's own conversation contradicts the note: an ``agent`` line, not
        trivial, that its credited edit (made before the commit, into this file, on the file the
        commit's parent has) added by its own diff, that the parent lacks, where the note calls
        it a person's."""
        if x["kind"] != "agent" or self.norm.is_trivial(x["content"]):
            return False
        edit = self._credited(x)
        if edit is None:
            return False
        ts, path, added, both, e = edit
        if h not in added or h in both or ts > ctime + SLACK_S or path not in self.names(sha, orig) | {rel}:
            return False
        parent = self.text_at(f"{sha}^", orig)
        lines = {self.norm.line_hash(y) for y in self.norm.split_lines(parent or "")}
        if h in lines:
            return False
        if e["old"]:
            earlier = {y for t2, p2, a2, _, e2 in self.edits_of(x["session_id"]) if p2 == path and t2 < ts for y in a2}
            base = {self.norm.line_hash(y) for y in self.norm.split_lines(e["old"]) if not self.norm.is_trivial(y)}
            # A file the commit creates has no version at the parent: the edit was made on one
            # the commit's own file descends from when that file holds the text it replaced.
            held = lines if parent is not None else self._lines_at(sha, orig)
            if not base <= held | earlier:
                return False
        # A note naming another session is not contradicted: that session may have written the
        # same text (its conversation, as git-ai keeps it, may lack the calls that did).
        return noted_id is None

    def _lines_at(self, rev: str, path: str) -> set[int]:
        return {self.norm.line_hash(y) for y in self.norm.split_lines(self.text_at(rev, path) or "")}

    def whole_change(self, sha: str, orig: str, x: dict) -> bool:
        """The commit made the credited edit's whole change to the file: every distinctive line
        the edit's own diff added is in the commit's version and not the parent's, and every one
        it removed is in the parent's and not the commit's."""
        edit = self._credited(x)
        if edit is None or not edit[4]["old"]:
            return False
        from hansard.agents.edits import diff_texts

        added, removed, _ = diff_texts(edit[4]["old"], edit[4]["new"])
        plus = {self.norm.line_hash(y) for y in added if not self.norm.is_trivial(y)}
        minus = {self.norm.line_hash(y) for y in removed if not self.norm.is_trivial(y)}
        then, before = self._lines_at(sha, orig), self._lines_at(f"{sha}^", orig)
        return bool(plus) and plus <= then - before and minus <= before - then

    def cut_out(self, w: dict) -> bool:
        """The note gives the claimed session a line the credited call's own diff added just
        above the claimed line (within 3 lines of the commit's version) and one just below it."""
        edit = self._credited(w["x"])
        text = self.text_at(w["sha"], w["orig"])
        if edit is None or text is None:
            return False
        lines = self.norm.split_lines(text)
        sid = w["x"]["session_id"]

        def side(step: int) -> bool:
            for n in range(w["oline"] + step, w["oline"] + 4 * step, step):
                if not 1 <= n <= len(lines) or self.norm.is_trivial(lines[n - 1]):
                    continue
                noted = self.who(w["sha"], w["orig"], n)
                if self.norm.line_hash(lines[n - 1]) in edit[2] and noted and self.same(noted.split(":", 1)[1], sid):
                    return True
            return False

        return side(-1) and side(1)

    def names(self, sha: str, path: str) -> set[str]:
        """The names ``path`` had up to commit ``sha`` (renames followed)."""
        key = (sha, path)
        if key not in self._names:
            out = subprocess.run(["git", "-C", str(self.repo), "log", "--follow", "--format=", "--name-only", sha, "--",
                                  path], capture_output=True, text=True).stdout.split("\n")
            self._names[key] = {x for x in out if x} | {path}
        return self._names[key]

    def _credited(self, x: dict) -> tuple | None:
        """The readable edit the answer credits (its tool call id names the message)."""
        sid, call = x.get("session_id"), x.get("tool_call_id") or ""
        s = self.by_id.get(sid)
        if not s:
            return None
        for e in self.edits_of(sid):
            if call == e[4]["call"]:
                return e
        for other in self.linked.get(sid, ()):  # the call of a copy of this conversation
            for e in self.edits_of(other):
                if call == e[4]["call"]:
                    return e
        return None

    def _had_since(self, path: str, h: int, ts: float, sha: str) -> bool:
        """Some commit between the edit and ``sha`` (exclusive) had the line in ``path``."""
        revs = subprocess.run(["git", "-C", str(self.repo), "rev-list", f"--since={int(ts)}", f"{sha}^", "--", path],
                              capture_output=True, text=True).stdout.split()
        for r in revs[:50]:
            text = self.text_at(r, path)
            if text is not None and h in {self.norm.line_hash(y) for y in self.norm.split_lines(text)}:
                return True
        return False


def measure(corpus: Path, code: Path, label: str, jobs: int, n_files: int | None, log) -> dict:
    manifest = json.loads((corpus / "manifest.json").read_text())
    truth = json.loads((corpus / "truth.json").read_text())
    rev = subprocess.run(["git", "-C", str(code), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                         text=True).stdout.strip() or digest(code)[:12]
    run_dir = corpus / "runs" / f"{label}-{rev}"
    shutil.rmtree(run_dir, ignore_errors=True)
    store = run_dir / "store"
    env = env_for(corpus, store, code)
    repo = corpus / "repo"
    for old in manifest["path_maps"]:
        subprocess.run([sys.executable, "-m", "hansard", "config", "map", old, str(repo)], cwd=repo, env=env,
                       check=True, capture_output=True)
    t = time.perf_counter()
    idx = subprocess.run([sys.executable, "-m", "hansard", "index"], cwd=repo, env=env, capture_output=True, text=True)
    index_s = time.perf_counter() - t
    if idx.returncode:
        raise SystemExit(f"{label}: hansard index failed:\n{idx.stderr[-3000:]}")
    files = files_to_answer(corpus, truth)
    if n_files:
        files = files[:: max(1, len(files) // n_files)][:n_files]
    log(f"{label} ({code}, {rev}): indexed in {index_s:.0f}s; answering {len(files)} files")
    t = time.perf_counter()
    docs = answer_all(repo, env, files, jobs)
    why_s = time.perf_counter() - t
    run_dir.mkdir(parents=True, exist_ok=True)
    with gzip.open(run_dir / "answers.json.gz", "wt") as fh:
        json.dump(docs, fh)
    g = Grader(corpus)
    try:
        res = g.grade(docs)
    finally:
        g.close()
    status = subprocess.run([sys.executable, "-m", "hansard", "status", "--json"], cwd=repo, env=env,
                            capture_output=True, text=True)
    res.update(label=label, code=str(code), rev=rev, index_s=round(index_s, 1), why_s=round(why_s, 1),
               files=len(files))
    try:
        res["status"] = json.loads(status.stdout)
    except ValueError:
        res["status"] = None
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "result.json").write_text(json.dumps(res, indent=1, sort_keys=True, default=list) + "\n")
    return res


def regrade(run_dir: Path) -> dict:
    """A run graded again from the answers it kept (the grading changed, not the answers)."""
    corpus = run_dir.parent.parent
    res = json.loads((run_dir / "result.json").read_text())
    with gzip.open(run_dir / "answers.json.gz", "rt") as fh:
        docs = json.load(fh)
    g = Grader(corpus)
    try:
        new = g.grade(docs)
    finally:
        g.close()
    keep = {k: res[k] for k in ("label", "code", "rev", "index_s", "why_s", "files", "status")}
    new.update(keep)
    (run_dir / "result.json").write_text(json.dumps(new, indent=1, sort_keys=True, default=list) + "\n")
    return new


def summary(r: dict) -> dict[str, str]:
    claims = r["right"] + r["wrong"]
    aside = r["by_class"].get("note_after_commit", 0) + r["by_class"].get("note_contradicted", 0)
    p = r["right"] / claims if claims else None
    p2 = r["right"] / (claims - aside) if claims - aside else None
    rec = r["recall_right"] / r["recall_lines"] if r["recall_lines"] else None

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f}%"

    out = {
        "files answered": f"{r['files'] - len(r['unanswered'])} of {r['files']}",
        "lines graded (first-hand, noted, not blank)": f"{r['graded']} of {r['lines']} ({r.get('blank_lines', 0)} blank)",
        "claims (agent, agent_modified)": f"{claims} ({r['claims'].get('agent', 0)}, {r['claims'].get('agent_modified', 0)})",
        "agent_modified lines the note calls a person's": str(r.get("modified_by_the_notes_person", 0)),
        "precision": f"{pct(p)} ({r['wrong']} wrong)",
        "precision, contradicted notes aside": f"{pct(p2)} ({r['wrong'] - aside} wrong; {aside} set aside)",
        "precision where the note names a session": (
            f"{pct(1 - r['named_wrong'] / r['named_claims']) if r.get('named_claims') else '-'} "
            f"({r.get('named_wrong', 0)} wrong of {r.get('named_claims', 0)})"),
        "recall of the sessions' own written lines": f"{pct(rec)} ({r['recall_right']} of {r['recall_lines']})",
        "lines a Cursor session wrote (note): unknown / human / other": " / ".join(str(v) for v in (
            r["cursor_lines"].get("unknown", 0), r["cursor_lines"].get("human", 0),
            sum(r["cursor_lines"].values()) - r["cursor_lines"].get("unknown", 0) - r["cursor_lines"].get("human", 0))),
        "kinds": ", ".join(f"{k} {v}" for k, v in sorted(r["kinds"].items())),
        "index / answers": f"{r['index_s']:.0f}s / {r['why_s']:.0f}s",
    }
    for c in CLASSES:
        out[f"wrong: {c}"] = str(r["by_class"].get(c, 0))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--snapshot", help="the bare git directory of git-ai's snapshot (with refs/notes/ai)")
    ap.add_argument("--cache", help="where corpora are kept (default $HANSARD_BENCH_CACHE or ~/.cache/hansard-bench/real)")
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--code", action="append", help="a hansard checkout to measure (repeat: before, after); "
                                                    "default this one")
    ap.add_argument("--label", action="append", help="a name for each --code (default before/after, or its folder)")
    ap.add_argument("--files", type=int, help="only this many of the files, spread evenly (default all)")
    ap.add_argument("--jobs", type=int, default=1, help="answers run side by side (default 1)")
    ap.add_argument("--build-only", action="store_true")
    ap.add_argument("--regrade", action="append", metavar="RUN_DIR",
                    help="grade again the answers a run kept (<corpus>/runs/<label>-<rev>), without answering")
    a = ap.parse_args()

    def log(s: str) -> None:
        print(s, file=sys.stderr, flush=True)

    if a.regrade:
        results = [regrade(Path(d)) for d in a.regrade]
    else:
        corpus = ensure(a.snapshot, a.cache, a.rebuild, log)
        print(corpus)
        if a.build_only:
            return
        codes = [Path(c).resolve() for c in (a.code or [str(ROOT)])]
        labels = a.label or (["before", "after"] if len(codes) == 2 else [c.name for c in codes])
        results = [measure(corpus, c, lab, a.jobs, a.files, log) for c, lab in zip(codes, labels, strict=True)]
    rows = [summary(r) for r in results]
    width = max(len(k) for k in rows[0])
    print(f"{'':{width}}  " + "  ".join(f"{r['label']} ({r['rev']})".ljust(28) for r in results))
    for k in rows[0]:
        print(f"{k:{width}}  " + "  ".join(row[k].ljust(28) for row in rows))
    for r in results:
        print(f"== {r['label']}: examples of wrong claims")
        for c in CLASSES:
            for e in r["examples"].get(c, []):
                print(f"  [{c}] {e['file']}:{e['line']} {e['commit']} {e['kind']}/{e['rule']} says {e['says']}, "
                      f"note {e['note'][:20]}: {e['content']}")


if __name__ == "__main__":
    main()
