"""The `why` JSON contract (README, DESIGN.md): the document built from the engine's line
answers, and its encoding."""

from __future__ import annotations

from typing import TYPE_CHECKING

from hansard.agents.origin import source_of
from hansard.git.blame import ZERO

if TYPE_CHECKING:
    from typing import Any

    from hansard.answers.why.line import LineAnswer
    from hansard.answers.why.target import Target
    from hansard.git.blame import Blame
    from hansard.store.interfaces import Store


# From this many lines, orjson's encoder saves more than its import costs (it brings
# dataclasses and uuid, which nothing else on `why`'s path imports; the crossing is measured on
# entireio/cli's answers in docs/performance.md). Both write the same bytes: compact, no
# indentation (a machine reads it; indenting cost more than all the rest of the encoding).
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
    """The whole file's document: every line's answer, the sessions they name (each with what was
    asked for each of its edits the lines name, ``_asked``) and every blamed commit."""
    from hansard.git.refs import resolve_commit

    resolved = (resolve_commit(t.top, rev) or rev) if rev else None
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
                _conversation(store, a.session_id, row, s)
            first_edit[a.session_id] = a.message_index
    for sid, s in sessions.items():
        _asked(store, sid, s, edits[sid], first_edit[sid])
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


def _conversation(store: Store, session_id: str, row: Any, s: dict[str, Any]) -> None:
    """The sessions of the same conversation as ``session_id`` (``evidence.conversation``), when
    there are any: a reader (or a checkpoint naming a resumed copy) needs both ids to see that
    a call named under one is the other's too."""
    from hansard.answers.evidence import conversation

    resumes, resumed_in = conversation(store, session_id, row)
    if resumes:
        s["resumed_from"] = resumes
    if resumed_in:
        s["resumed_in"] = resumed_in


def slice_contract(doc: dict[str, Any], start: int, end: int) -> dict[str, Any]:
    """The answer for lines ``start``-``end``, cut from the whole file's document ``doc``: those
    lines as the file's answer gives them, the sessions and commits they name and nothing else.
    It is the document ``render_contract`` makes of those lines' answers: what a session was
    asked for an edit depends on that edit's message alone (``_asked``), so a session's entry
    keeps what it holds for the sliced lines' edits (``_narrowed``)."""
    lines = [ln for ln in doc["lines"] if start <= ln["line"] <= end]
    whole = doc.get("sessions") or {}
    edits: dict[str, set[int | None]] = {}
    first_edit: dict[str, int | None] = {}
    for ln in lines:
        sid = ln.get("session_id")
        if sid and sid in whole:
            edits.setdefault(sid, set()).add(ln.get("message_index"))
            first_edit.setdefault(sid, ln.get("message_index"))
    sessions = {sid: _narrowed(whole[sid], edits[sid], first_edit[sid]) for sid in edits}
    named = {ln.get(k) for ln in lines for k in ("commit", "original_commit", "restoring_commit")} - {None}
    commits = {sha: c for sha, c in (doc.get("commits") or {}).items() if sha in named}
    return {**doc, "lines": lines, "sessions": sessions, "commits": commits}


def _narrowed(s: dict[str, Any], indexes: set[int | None], first_edit: int | None) -> dict[str, Any]:
    """A session's entry of the whole file (``_asked`` filled it for every edit the file's lines
    name) as ``_asked`` fills it for the edits of messages ``indexes`` alone, the first line's
    being ``first_edit``: what was asked for each, the texts of those prompts and of the first
    request, and the request behind the first line's edit as ``prompt``."""
    asked = {k: v for k, v in (s.get("asked") or {}).items() if k in {str(i) for i in indexes if i is not None}}
    first = s.get("first_request")
    named = ({first} | {x for a in asked.values() for x in (a.get("request"), a.get("turn"))}) - {None}
    texts = s.get("prompts") or {}
    request = asked[str(first_edit)]["request"] if first_edit is not None and str(first_edit) in asked else first
    return {**s, "asked": asked, "prompts": {k: v for k, v in texts.items() if int(k) in named},
            "prompt": texts.get(str(request)) if request is not None else None}
