"""The `why` JSON contract (README, DESIGN.md): the document built from the engine's line
answers, and its encoding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hansard.agents.origin import source_of
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


def _asked(store: Store, session_id: str, s: dict[str, Any], indexes: set[int | None],
           first_edit: int | None) -> None:
    """The session's entry gets what was asked for each of its edits named (``asked``: message
    index -> request and last turn, ``hansard.answers.asked``), the index of its first request,
    the texts of those prompts (``prompts``: index -> text) and, as ``prompt``, the request
    behind the first line's edit. One read of the session's prompts, however many edits."""
    from hansard.answers.asked import asked, first_request, judged

    prompts = store.evidence.user_prompts(session_id)
    texts = dict(prompts)
    marks = judged(prompts)
    first = first_request(marks)
    s["first_request"] = first
    s["asked"] = {}
    named = set() if first is None else {first}
    for mi in sorted(i for i in indexes if i is not None):
        a = s["asked"][str(mi)] = asked(marks, mi, first)
        named |= {a["request"], a["turn"]} - {None}
    s["prompts"] = {str(i): texts[i] for i in sorted(named)}
    request = s["asked"][str(first_edit)]["request"] if first_edit is not None else first
    s["prompt"] = texts[request] if request is not None else None


def render_contract(store: Store, t: Target, rev: str | None, bl: Blame, answers: list[LineAnswer]
                    ) -> dict[str, Any]:
    from hansard.git.run import git_text

    resolved = None
    if rev:
        try:
            resolved = git_text(["rev-parse", "--verify", f"{rev}^{{commit}}"], t.top).strip()
        except GitError:
            resolved = rev
    sessions: dict[str, dict[str, Any]] = {}
    edits: dict[str, set[int | None]] = {}  # the message indexes of each session's edits named
    first_edit: dict[str, int | None] = {}  # of its first line: the session's ``prompt``
    for a in answers:
        if a.session_id is None:
            continue
        edits.setdefault(a.session_id, set()).add(a.message_index)
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
            if row is not None and row["member"]:  # a teammate's session (hansard.team)
                s["member"], s["member_name"] = row["member"], row["member_name"]
            if row is not None:  # where it was read: this machine, a repository's refs or files, a teammate
                s["source"] = source_of(row)
            first_edit[a.session_id] = a.message_index
    for sid, s in sessions.items():
        _asked(store, sid, s, edits[sid], first_edit[sid])
    named = {x for a in answers for x in (a.commit, a.original_commit, a.restoring_commit) if x}
    commits = {
        sha: {"summary": redact(c.summary)[0], "author": c.author, "author_time": c.author_time, "author_tz": c.author_tz,
              "committer_time": c.committer_time}
        for sha, c in bl.commits.items() if sha != ZERO and (t.start is None or sha in named)
    }
    return {
        "path": t.rel,
        "rev": resolved,
        "lines": [a.as_dict() for a in answers],
        "sessions": sessions,
        "commits": commits,
    }
