"""Memories: the guidance files agents read (CLAUDE.md, AGENTS.md, GEMINI.md, Claude's auto
memory), as mirrored in the store by :mod:`hansard.ingest.memory_files`: search over their
current text and windows of any version. Read-only: nothing here writes to the store or to a
memory file.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, cast

from hansard import agents
from hansard.answers.search.filters import resolve_repo
from hansard.answers.search.query import parse
from hansard.answers.search.text import excerpt, mark
from hansard.errors import NotFound

if TYPE_CHECKING:
    from hansard.answers.results import Memory, MemoryHits
    from hansard.store.interfaces import Store

WINDOW_CHARS = 6000
# What a person may type for a memory's kind (hansard.agents: ``MemoryFile.aliases``).
KIND_ALIASES = {alias: mf.kind for _, mf in agents.memory_files() for alias in mf.aliases}


# -- search ---------------------------------------------------------------------------


def _record(r: dict[str, Any], full: bool = False) -> dict[str, Any]:
    d = {
        "memory_id": r["memory_id"], "kind": r["kind"], "source": r["source"], "scope": r["scope"],
        "title": r["title"], "path": r["path"], "repo": r["repo_path"], "rel_path": r["rel_path"],
        "updated_at": r["last_seen"], "missing": bool(r["missing"]) if full else (bool(r["missing"]) or None),
    }
    if r.get("member"):  # a teammate's project memory (hansard team)
        d["member"], d["member_name"] = r["member"], r.get("member_name")
    return d if full else {k: v for k, v in d.items() if v not in (None, "", [], {})}


def memory_count(store: Store) -> int:
    """Memory files present on disk at the last scan."""
    return store.memories.count()


def search_memories(store: Store, query: str | None, repo: str | None = None, provider: str | None = None,
                    source: str | None = None, *, limit: int = 10, full: bool = False,
                    include_team_sessions: bool = False, team: str | None = None) -> MemoryHits:
    """Memories whose current text matches ``query``. With ``repo``, that project's guidance
    ranks together with global and unkeyed memories (other projects' are left out). With
    ``include_team_sessions`` or ``team`` (as for sessions: hansard.answers.teammates),
    teammates' project memories too, each with ``member`` and ``member_name``.
    ``provider``: an agent's name or alias (hansard.agents). ``source``: an agent or a memory
    kind (its record's ``MemoryFile.kind``) or a kind's alias.

    A hit names the lines that matched as ``lineStart``/``lineEnd`` (1-based, inclusive: the
    names ``get_memory`` reports and takes back as ``line``), at most ``MAX_HIT_LINES`` lines
    around the line that matches the most query words, and an ``excerpt`` of them. Empty fields
    are omitted; ``full`` (``hansard memory search --json``) keeps every field of the record,
    empty ones as null."""
    from hansard.answers import teammates

    with_team, notice = teammates.wanted(store, include_team_sessions, team)
    q = parse(query)
    project = None
    if repo:
        from hansard.git.identity import find_toplevel

        p = os.path.abspath(os.path.expanduser(repo))
        tops = find_toplevel(os.path.join(p, ".")) if os.path.exists(p) else None
        project = (resolve_repo(store, repo) or [], tops[1] if tops else None)
    sources = [name for v in (provider, source) if v and (name := agents.resolve(KIND_ALIASES.get(v.lower(), v.lower())))]
    rows = store.memories.current(q, project=project, sources=sources, include_team=with_team)
    words = q.highlight_words()
    groups = [[w.casefold() for t in g for w in ([t.text] if t.identifier else t.words)] for g in q.groups]
    results = []
    for r in rows:
        text = r["text"]
        low = text.casefold()
        cover = sum(1 for g in groups if any(w in low for w in g))
        rel = r["relevance"]
        boost = 0.05 if r["scope"] == "project" and repo else 0.0
        score = (cover / len(groups) if groups else 0.0) + rel / (len(groups) + 1 if groups else 2) + boost
        d = _record(r, full)
        if words:
            start, end = _line_range(text, words)
            d["lineStart"], d["lineEnd"] = start, end
            lines = text.splitlines()
            ex = excerpt("\n".join(lines[start - 1:end]), words) if lines else ""
            if ex or full:
                d["excerpt"] = ex
        d["score"] = round(score, 4)
        results.append(d)
    results.sort(key=lambda d: (-d["score"], d["path"]))
    total = len(results)
    results = results[:limit]
    out = cast("MemoryHits", {"query": query or "", "results": results, "total": total, "returned": len(results)})
    if notice:
        out["notice"] = notice
    return out


MAX_HIT_LINES = 8


def _line_range(text: str, words: list[str]) -> tuple[int, int]:
    """1-based first and last line of the matching lines around the best one: the line with
    the most distinct query words (the first such), widened over directly adjacent matching
    lines only while that adds a query word it lacks, never beyond MAX_HIT_LINES lines."""
    lines = text.splitlines()
    found = [{w for w in words if w in ln.casefold()} for ln in lines]
    if not any(found):
        return 1, 1
    best = max(range(len(lines)), key=lambda i: (len(found[i]), -i))
    lo = hi = best
    have = set(found[best])
    while hi - lo + 1 < MAX_HIT_LINES:
        up = found[lo - 1] - have if lo > 0 else set()
        down = found[hi + 1] - have if hi + 1 < len(lines) else set()
        if not up and not down:
            break
        if len(down) >= len(up):
            hi += 1
            have |= found[hi]
        else:
            lo -= 1
            have |= found[lo]
    return lo + 1, hi + 1


# -- reading --------------------------------------------------------------------------


def get_memory(store: Store, memory_id: str, line: int | None = None, offset: int | None = None) -> Memory:
    """A window of a memory's current text (or of an earlier version: ``<memory_id>@<n>``,
    n counting from 1 = the first text seen). ``offset`` (characters) takes precedence over
    ``line``; the window starts at a complete line. Reports ``contentLineStart``,
    ``contentLineEnd`` and, when there is more, ``nextOffset``."""
    mid, _, ver = (memory_id or "").strip().partition("@")
    r = store.memories.get(mid)
    if r is None:
        raise NotFound(f"no memory {memory_id!r}; find ids with search_memories")
    versions = store.memories.versions(r["id"])
    if ver:
        if not ver.isdigit() or not 1 <= int(ver) <= len(versions):
            raise NotFound(f"memory {mid} has versions 1..{len(versions)}, not {ver!r}")
        v = versions[int(ver) - 1]
    else:
        v = next((x for x in versions if x["id"] == r["version_id"]), versions[-1])
    text = v["text"]
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    if starts[-1] == len(text) and len(starts) > 1:
        starts.pop()  # a final newline does not start a line
    nlines = len(starts)
    if offset is not None:
        off = max(0, min(int(offset), len(text)))
        first = max(0, _line_at(starts, off))
    elif line is not None:
        target = max(1, min(int(line), nlines)) - 1
        first = target
        while first > 0 and starts[target] - starts[first - 1] <= WINDOW_CHARS // 2:
            first -= 1
    else:
        first = 0
    start = starts[first] if text else 0
    line_end = starts[first + 1] if first + 1 < nlines else len(text)
    if offset is not None and off > start and line_end - start > WINDOW_CHARS:
        start = off  # inside one very long line: continue where the last window stopped
    last = first
    while last + 1 < nlines and starts[last + 1] - start < WINDOW_CHARS:
        last += 1
    end = starts[last + 1] if last + 1 < nlines else len(text)
    if end - start > WINDOW_CHARS and last == first:
        end = start + WINDOW_CHARS  # one very long line: cut it; nextOffset resumes inside
    d = _record(r)
    d["version"] = versions.index(v) + 1
    d["versions"] = [{"version": i + 1, "sha256": x["sha256"], "seen_at": x["seen_at"]} for i, x in enumerate(versions)]
    d["content"] = text[start:end]
    d["contentLineStart"] = first + 1 if text else 0
    d["contentLineEnd"] = (last + 1) if text else 0
    d["totalLines"] = nlines if text else 0
    d["contentChars"] = len(text)
    if end < len(text):
        d["nextOffset"] = end
    return cast("Memory", d)


def _line_at(starts: list[int], off: int) -> int:
    import bisect

    return bisect.bisect_right(starts, off) - 1


__all__ = ["search_memories", "get_memory", "memory_count", "mark"]
