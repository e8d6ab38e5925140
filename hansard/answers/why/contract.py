"""The `why` JSON contract (README, DESIGN.md): the document built from the engine's line
answers, and its encoding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hansard.answers import evidence
from hansard.errors import GitError
from hansard.git.blame import ZERO

if TYPE_CHECKING:
    from typing import Any

    from hansard.answers.why.line import LineAnswer
    from hansard.answers.why.target import Target
    from hansard.git.blame import Blame
    from hansard.store.interfaces import Store


# From this many lines, orjson's encoder saves more than its import costs (~9 ms, with
# dataclasses and uuid, which nothing else on `why`'s path imports): on entireio/cli's answers,
# json 1.7 ms and orjson 9.2 ms (import included) at 388 lines, 13.7 and 11.1 ms at 1,586,
# 22.0 and 10.3 ms at 2,973. Both write the same bytes: compact, no indentation (a machine
# reads it; indenting cost more than all the rest of the encoding).
ORJSON_LINES = 1500


def to_json(doc: dict[str, Any]) -> bytes:
    if len(doc["lines"]) >= ORJSON_LINES:
        import orjson

        return orjson.dumps(doc, default=str)
    import json

    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8", "surrogateescape")


def redact_contents(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with its lines' text redacted as one text (a key may span lines): the file's
    own lines can hold a committed secret, which hansard serves to no one (README: secrets)."""
    from hansard.ingest.secret_screen import redact_lines

    texts = [ln["content"] for ln in doc["lines"]]
    red, n = redact_lines(texts)
    if not n:
        return doc
    return {**doc, "lines": [{**ln, "content": x} for ln, x in zip(doc["lines"], red, strict=True)]}


def redact(text: str) -> tuple[str, int]:
    """A commit summary as served: redacted (``add stripe key sk_live_…``)."""
    from hansard.ingest.secret_screen import redact as _redact

    return _redact(text)


def render_contract(store: Store, t: Target, rev: str | None, bl: Blame, answers: list[LineAnswer]
                    ) -> dict[str, Any]:
    """The whole file's document: every line's answer, the sessions they name (each with the
    prompt before each of its lines' messages, and the first of them) and every blamed commit."""
    from hansard.git.run import git_text

    resolved = None
    if rev:
        try:
            resolved = git_text(["rev-parse", "--verify", f"{rev}^{{commit}}"], t.top).strip()
        except GitError:
            resolved = rev
    sessions: dict[str, dict[str, Any]] = {}
    prompts: dict[tuple[str, int | None], tuple[int, str] | None] = {}  # lines of one call share its prompt
    for a in answers:
        if a.session_id is None:
            continue
        s = sessions.get(a.session_id)
        if s is None:
            row = store.evidence.session(a.session_id)
            s = sessions[a.session_id] = {
                "title": row["title"] if row else None,
                "started_at": row["started_at"] if row else None,
                "provider": row["provider"] if row else a.provider,
                "parent_session_id": row["parent_session_id"] if row else None,
                "prompt": None,
                "prompts": {},
            }
            if row is not None and "member" in row.keys():  # a teammate's session (hansard.team)
                s["member"], s["member_name"] = row["member"], row["member_name"]
        key = (a.session_id, a.message_index)
        p = prompts[key] if key in prompts else prompts.setdefault(key, evidence.prompt_for(store, *key))
        if p is not None:
            s["prompts"][str(p[0])] = p[1]
            if s["prompt"] is None:
                s["prompt"] = p[1]
    commits = {
        sha: {"summary": redact(c.summary)[0], "author": c.author, "author_time": c.author_time, "author_tz": c.author_tz,
              "committer_time": c.committer_time}
        for sha, c in bl.commits.items() if sha != ZERO
    }
    return {
        "path": t.rel,
        "rev": resolved,
        "lines": [a.as_dict() for a in answers],
        "sessions": sessions,
        "commits": commits,
    }


def slice_contract(doc: dict[str, Any], start: int, end: int) -> dict[str, Any]:
    """The answer for lines ``start``-``end``, cut from the whole file's document ``doc``: those
    lines as the file's answer gives them, the sessions and commits they name and nothing else.
    It is the document ``render_contract`` makes of those lines' answers: a session's ``prompts``
    are those before its sliced lines' messages (the prompt before a message is the newest of the
    session's prompts at or before it, and the file's document holds every line's) and its
    ``prompt`` is the first sliced line's."""
    lines = [ln for ln in doc["lines"] if start <= ln["line"] <= end]
    sessions: dict[str, dict[str, Any]] = {}
    for ln in lines:
        sid = ln.get("session_id")
        whole = (doc.get("sessions") or {}).get(sid) if sid else None
        if whole is None:
            continue
        s = sessions.get(sid)
        if s is None:
            s = sessions[sid] = {**whole, "prompt": None, "prompts": {}}
        mi = ln.get("message_index")
        before = [int(k) for k in whole.get("prompts") or {} if mi is not None and int(k) <= mi]
        if before:
            key = str(max(before))
            s["prompts"][key] = whole["prompts"][key]
            if s["prompt"] is None:
                s["prompt"] = whole["prompts"][key]
    named = {ln.get(k) for ln in lines for k in ("commit", "original_commit", "restoring_commit")} - {None}
    commits = {sha: c for sha, c in (doc.get("commits") or {}).items() if sha in named}
    return {**doc, "lines": lines, "sessions": sessions, "commits": commits}
