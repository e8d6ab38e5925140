"""`hansard trace export`: Agent Trace records written from hansard's own `why` answers.

One record per commit C: for each file C added or changed (against its first parent), the
whole-file `why` answer at C, and of it the lines blamed to C itself (the specification reads a
line through the revision that last touched it, its section 6.5). A merge's own lines are few
(a conflict's resolution): its record holds what the merge changed against its first parent,
the lines blamed to C or to a commit it brought in (``git rev-list P..C``), and says so in
``metadata``. Those lines, grouped into conversations and runs of consecutive lines:

- ``agent`` lines are ``ai``, one conversation per session (and model), its url
  ``hansard://session/<id>`` and, in ``related``, each message that wrote lines of it
  (``hansard://session/<id>#message-<index>``, the index `hansard show` takes);
- ``agent_modified`` lines (an agent's, changed by a person) and ``pasted`` lines (a web chat's
  code, pasted) are ``mixed``, with their session;
- ``human`` lines are ``human``; ``unknown`` lines stay ``unknown`` (hansard fails closed: a line
  is ``ai`` only where an edit is evidence of it).

Always true of a record written: it is valid against the vendored schema (checked before it is
returned), every string in it was redacted, nothing was written to the repository or its refs,
and its ``id`` is a UUID derived from its revision and content, so the same answers give the
same id (and `hansard trace import` of it again changes nothing).
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hansard.errors import HansardError

if TYPE_CHECKING:

    from hansard.answers.why.many import Ask
    from hansard.ingest.pipeline import Progress
    from hansard.store.interfaces import Store

MAX_COMMITS = 1000  # commits in one export
MAX_RELATED = 50  # message links of one conversation
NAMESPACE = uuid.UUID("6f1d8a52-3c1e-4c59-9a57-0e8a4c7b2d10")  # hansard's record ids (uuid5)
TYPE_OF_KIND = {"agent": "ai", "agent_modified": "mixed", "pasted": "mixed", "human": "human", "unknown": "unknown"}
# models.dev's provider names, by the start of a model's own name (a model named with its
# provider already, "openai/gpt-5", is kept as it is).
PROVIDERS = (("claude", "anthropic"), ("gpt", "openai"), ("o1", "openai"), ("o3", "openai"), ("o4", "openai"),
             ("codex", "openai"), ("gemini", "google"), ("qwen", "alibaba"), ("grok", "xai"),
             ("deepseek", "deepseek"), ("mistral", "mistral"))


@dataclass
class Exported:
    commit: str
    record: dict[str, Any]
    lines: dict[str, int] = field(default_factory=dict)  # contributor type -> lines
    skipped: dict[str, str] = field(default_factory=dict)  # path -> why it has no answer
    merged: int | None = None  # a merge: the commits it brought in against its first parent
    note: str | None = None  # why the record holds no file, when it holds none


def model_id(model: str | None) -> str | None:
    """A model as models.dev names it: ``provider/model``, where the provider is known."""
    if not model:
        return None
    if "/" in model:
        return model[:250]
    low = model.lower()
    for prefix, provider in PROVIDERS:
        if low.startswith(prefix):
            return f"{provider}/{model}"[:250]
    return model[:250]


def commits(top: str, commit: str | None, rev_range: str | None) -> list[str]:
    """The commits to export, oldest first: ``commit``, a range's (``A..B``, ``A...B``; a single
    revision names one commit), or HEAD."""
    from hansard.errors import InputTooLarge, UnknownRevision
    from hansard.git.run import git_text

    spec = commit or rev_range or "HEAD"
    if commit is None and rev_range is not None and ".." in rev_range:
        try:
            shas = git_text(["rev-list", "--reverse", f"--max-count={MAX_COMMITS + 1}", rev_range, "--"], top).split()
        except HansardError as exc:
            raise UnknownRevision(f"not a revision range of this repository: {rev_range}") from exc
        if len(shas) > MAX_COMMITS:
            raise InputTooLarge(f"{rev_range} holds more than {MAX_COMMITS} commits; export a narrower range",
                                bound="MAX_COMMITS", limit=MAX_COMMITS)
        return shas
    from hansard.git.refs import resolve_commit

    sha = resolve_commit(top, spec)
    if sha is None:
        raise UnknownRevision(f"not a commit of this repository: {spec}")
    return [sha]


def parents(top: str, sha: str) -> list[str]:
    from hansard.git.run import git

    return git(["rev-list", "--parents", "-n", "1", sha], top).decode().split()[1:]


def touched(top: str, sha: str, first_parent: str | None = None) -> list[str]:
    """The paths the commit added or changed against its first parent (renames followed)."""
    from hansard.git.run import git

    if first_parent is None:
        first = parents(top, sha)
        first_parent = first[0] if first else None
    return _paths(git([*_TOUCHED, *_against(first_parent, sha)], top))


# (``touched`` and ``brought_in`` as git's arguments and the reading of its output, which
# ``plans`` also asks of many commits at once)
_TOUCHED = ["diff-tree", "-r", "-z", "--no-commit-id", "--name-only", "-M", "--diff-filter=AMRTC"]


def _against(first_parent: str | None, sha: str) -> list[str]:
    return [first_parent, sha] if first_parent else ["--root", sha]


def _paths(out: bytes) -> list[str]:
    return sorted({p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p})


def _since(first_parent: str, sha: str) -> list[str]:
    return [f"{first_parent}..{sha}", "--"]


def _ids(out: bytes) -> set[str]:
    return set(out.decode().split())


def brought_in(top: str, sha: str, first_parent: str) -> set[str]:
    """The commits a merge brought in against its first parent, itself included."""
    from hansard.git.run import git

    return _ids(git(["rev-list", *_since(first_parent, sha)], top))


def _runs(nums: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for n in sorted(nums):
        if out and n == out[-1][1] + 1:
            out[-1] = (out[-1][0], n)
        else:
            out.append((n, n))
    return out


def conversations(doc: Mapping[str, Any], own: set[str], models: dict[tuple[str, int], str]
                  ) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """A file's conversations, from its why answer's lines blamed to a commit of ``own`` (the
    commit exported; a merge's, the commits it brought in); and its lines by type."""
    groups: dict[tuple[str, str | None, str | None], list[dict[str, Any]]] = {}
    for ln in doc["lines"]:
        if ln.get("commit") not in own:
            continue
        t = TYPE_OF_KIND.get(ln["kind"], "unknown")
        sid = ln.get("session_id") if t != "human" else None
        idx = ln.get("message_index")
        model = model_id(models.get((sid, idx))) if sid and isinstance(idx, int) else None
        groups.setdefault((t, sid, model), []).append(ln)
    counts: dict[str, int] = {}
    out = []
    order = {"ai": 0, "mixed": 1, "human": 2, "unknown": 3}
    for (t, sid, model), lns in sorted(groups.items(), key=lambda kv: (order[kv[0][0]], kv[0][1] or "", kv[0][2] or "")):
        counts[t] = counts.get(t, 0) + len(lns)
        text = {ln["line"]: ln["content"] for ln in lns}
        ranges = []
        for a, b in _runs(list(text)):
            h = hashlib.sha256("\n".join(text[n] for n in range(a, b + 1)).encode("utf-8", "surrogateescape"))
            ranges.append({"start_line": a, "end_line": b, "content_hash": "sha256:" + h.hexdigest()[:16]})
        contributor: dict[str, Any] = {"type": t}
        if model:
            contributor["model_id"] = model
        conv: dict[str, Any] = {}
        if sid:
            from hansard.trace import session_url

            conv["url"] = session_url(sid)
        conv["contributor"] = contributor
        conv["ranges"] = ranges
        msgs = sorted({ln["message_index"] for ln in lns if isinstance(ln.get("message_index"), int)})
        if sid and msgs:
            from hansard.trace import session_url

            conv["related"] = [{"type": "message", "url": session_url(sid, m)} for m in msgs[:MAX_RELATED]]
        out.append(conv)
    return out, counts


@dataclass
class Plan:
    """What one commit's record is made of: its parents, the commits whose lines are its own,
    and the files it added or changed against its first parent."""

    sha: str
    parents: list[str]
    own: set[str]
    paths: list[str]


def plan(top: str, sha: str) -> Plan:
    ps = parents(top, sha)
    own = brought_in(top, sha, ps[0]) if len(ps) > 1 else {sha}
    return Plan(sha, ps, own, touched(top, sha, ps[0] if ps else None))


def plans(top: str, shas: list[str]) -> list[Plan]:
    """``plan`` of each commit of ``shas`` (full ids git listed), asking git what each asks
    alone: every commit's parents in one `git rev-list --no-walk`, then each commit's
    ``touched`` and each merge's ``brought_in`` run in turn by one helper
    (``hansard.git.serial.outputs``)."""
    from hansard.git.run import git
    from hansard.git.serial import outputs

    if len(shas) < 2:
        return [plan(top, sha) for sha in shas]
    listed = git(["rev-list", "--no-walk", "--parents", *shas, "--"], top).decode().splitlines()
    by_sha = {line.split()[0]: line.split()[1:] for line in listed if line.strip()}
    if set(by_sha) != set(shas):  # git named commits otherwise than it listed them: each alone
        return [plan(top, sha) for sha in shas]
    ps_of = [by_sha[sha] for sha in shas]
    diffs = outputs(top, _TOUCHED, [_against(ps[0] if ps else None, sha) for sha, ps in zip(shas, ps_of, strict=True)])
    merges = [(sha, ps) for sha, ps in zip(shas, ps_of, strict=True) if len(ps) > 1]
    ins = dict(zip([sha for sha, _ in merges], outputs(top, ["rev-list"], [_since(ps[0], sha) for sha, ps in merges]),
                   strict=True))
    return [Plan(sha, ps, _ids(ins[sha]) if sha in ins else {sha}, _paths(out))
            for sha, ps, out in zip(shas, ps_of, diffs, strict=True)]


def export_commit(store: Store, top: str, sha: str, *, now: str | None = None, cache: bool = True,
                  planned: Plan | None = None, answered: Iterator[Any] | None = None) -> Exported:
    """The Agent Trace record of one commit (see the module docstring). ``answered``: the
    whole-file answers of its paths at it, in order, already asked (``hansard.answers.why.many``)."""
    from hansard import __version__
    from hansard.answers.why import many
    from hansard.answers.why.engine import RULES_VERSION
    from hansard.ingest.redact import redact_value

    ex = Exported(commit=sha, record={})
    files = []
    p = planned or plan(top, sha)
    ps, own, paths = p.parents, p.own, p.paths
    if len(ps) > 1:
        ex.merged = len(own) - 1
    if answered is None:
        answered = many.one_by_one(store, top, [(sha, path) for path in paths], many.document, cache)
    for path in paths:
        doc = next(answered)
        if isinstance(doc, many.Failed):  # a binary file, one git cannot blame: no answer, said why
            ex.skipped[path] = doc.code
            continue
        pairs = {(sid, mi) for ln in doc["lines"]
                 if ln.get("commit") in own and (sid := ln["session_id"]) and isinstance(mi := ln["message_index"], int)}
        models = store.stats.models(pairs) if pairs else {}
        convs, counts = conversations(doc, own, models)
        if convs:
            files.append({"path": path, "conversations": convs})
        for t, n in counts.items():
            ex.lines[t] = ex.lines.get(t, 0) + n
    if not files:
        ex.note = _why_empty(ex, paths, ps)
    meta: dict[str, Any] = {"rules_version": RULES_VERSION, "lines": ex.lines}
    if ex.skipped:
        meta["skipped_files"] = ex.skipped
    if ex.merged is not None:
        meta["merge"] = {"first_parent": ps[0], "commits_brought_in": ex.merged}
    if ex.note:
        meta["note"] = ex.note
    body: dict[str, Any] = {
        "version": _spec_version(),
        "vcs": {"type": "git", "revision": sha},
        "tool": {"name": "hansard", "version": __version__},
        "files": files,
        "metadata": {"dev.hansard": meta},
    }
    body, _ = redact_value(body)
    import json

    digest = hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogateescape"))
    record = {"version": body["version"], "id": str(uuid.uuid5(NAMESPACE, f"{sha}:{digest.hexdigest()}")),
              "timestamp": now or _now(), **{k: v for k, v in body.items() if k != "version"}}
    from hansard.trace.validate import problems

    bad = problems(record)
    if bad:  # hansard wrote it: a bug, never a record handed on
        from hansard.errors import InternalError

        raise InternalError(f"an exported Agent Trace record is not valid: {'; '.join(bad)}", commit=sha)
    ex.record = record
    return ex


def _why_empty(ex: Exported, paths: list[str], ps: list[str]) -> str:
    """Why a commit's record holds no file, in words."""
    against = "its first parent" if len(ps) > 1 else "its parent" if ps else "nothing (a root commit)"
    if not paths:
        return (f"a merge that changed no file against {against}" if ex.merged is not None
                else f"it added or changed no file against {against} (only deletions or mode changes)")
    if ex.skipped and len(ex.skipped) == len(paths):
        return f"none of the {len(paths)} file(s) it changed could be answered (binary, or git could not blame them)"
    return f"none of the lines of the {len(paths)} file(s) it changed is its own: git blames them to earlier commits"


def _spec_version() -> str:
    from hansard.trace import SPEC_VERSION

    return SPEC_VERSION


def _now() -> str:
    from datetime import UTC, datetime

    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def export(store: Store, cwd: str, *, commit: str | None = None, rev_range: str | None = None,
           cache: bool = True, progress: Progress | None = None, ask: Ask | None = None) -> list[Exported]:
    """Agent Trace records of ``commit``, of the commits of ``rev_range``, or of HEAD, in the
    repository around ``cwd``, oldest first. ``progress`` is told each file as it is answered
    (a count of files, hansard.ingest.pipeline.Progress); ``ask``: how the files' answers are
    asked (the application's workers; default one at a time)."""
    from hansard.errors import NotARepository
    from hansard.git.identity import find_toplevel

    found = find_toplevel(cwd)
    if found is None:
        raise NotARepository(f"{cwd} is not inside a git repository")
    top = found[0]
    now = _now()
    from hansard.answers.why import many
    from hansard.git.refs import named_commits

    planned = plans(top, commits(top, commit, rev_range))
    named_commits(top, [p.sha for p in planned])
    pairs = [(p.sha, path) for p in planned for path in p.paths]
    # every file of every commit asked at once: a range's answers are worked out side by side
    answered = (ask or many.one_by_one)(store, top, pairs, many.document, cache)
    if progress is not None:
        progress.start(len(pairs), len(pairs))
        answered = _told(answered, pairs, progress)
    try:
        return [export_commit(store, top, p.sha, now=now, cache=cache, planned=p, answered=answered) for p in planned]
    finally:
        if progress is not None:
            progress.done()


def _told(answered: Iterator[Any], pairs: list[tuple[str, str]], progress: Progress) -> Iterator[Any]:
    for (sha, path), doc in zip(pairs, answered, strict=False):
        progress.file(f"{sha[:10]} {path}")
        progress.advance(1)
        yield doc
