"""Plain-text renderings of the search answers (the JSON is the dict itself)."""

from __future__ import annotations

from typing import Any

from hansard.render import whose
from hansard.render.answers import short as _short


def freshness(d: dict[str, Any]) -> str:
    through = d.get("indexed_through") or "nothing yet"
    tail = "" if d.get("backfill_complete") else "; first indexing not complete"
    if d.get("indexing_paused"):
        tail += "; indexing is paused"
    return f"(index holds {d.get('indexed_from') or '?'} .. {through}{tail})"


def history(d: dict[str, Any]) -> str:
    out: list[str] = []
    if d.get("mode_notice"):
        out.append(f"note: {d['mode_notice']}")
    if d.get("notice"):
        out.append(f"note: {d['notice']}")
    if not d["results"]:
        out.append("no matching messages " + freshness(d))
        return "\n".join(out)
    for h in d["results"]:
        when = (h.get("timestamp_local") or h.get("started_at_local") or "")[:16].replace("T", " ")
        title = _short(h.get("title"), 60)
        out.append(f"{h['session_id'][:13]}  #{h['message_index']:<4} {h['role']:9} {when}  {h['provider']}  {title}")
        out.append("    " + _short(h["excerpt"], 300))
        extra = []
        if h.get("revisions"):
            extra.append(f"{len(h['revisions'])} revisions, latest #{h['latest_revision']}")
        if h.get("more_hits"):
            extra.append("more: " + ", ".join(f"#{m['message_index']}" for m in h["more_hits"]))
        if extra:
            out.append("    (" + "; ".join(extra) + ")")
    shown = f"{d['returned']} of {d['total']}{'' if d.get('total_exact', True) else '+'} matches"
    out.append(f"\n{shown} [{d['mode']}] {freshness(d)}")
    return "\n".join(out)


def transcript(d: dict[str, Any], raw: bool = False) -> str:
    s = d["session"]
    head = [f"{s['provider']} session {s['session_id']}  {s['title'] or ''}".rstrip(),
            f"  started {s.get('started_at_local') or s['started_at']}  in {s['cwd']}  ({s['message_count']} messages)"]
    if s.get("member"):
        head.append(f"  {whose(s)}session ({s['member']}, hansard team)")
    if s.get("parent_session_id"):
        head.append(f"  subagent of {s['parent_session_id']}")
    if s.get("resumed_from"):
        head.append(f"  continues {s['resumed_from']}")
    if s.get("subagents"):
        head.append(f"  subagents: {', '.join(s['subagents'])}")
    out = head + [""]
    for m in d["messages"]:
        label = m["role"] if m["kind"] == "text" else f"{m['role']}/{m['kind']}"
        out.append(f"[{m['message_index']}] {label}  {m.get('timestamp_local') or ''}")
        out.extend("    " + ln for ln in m["text"].splitlines() or [""])
        if m.get("truncated"):
            out.append(f"    … [{m['content_chars']} chars; more from offset {m['content_offset']}]")
        if m.get("revisions"):
            out.append(f"    (also at {', '.join('#' + str(i) for i in m['revisions'][:-1])})")
        for c in m.get("tool_calls", []):
            status = c["status"] or "no result"
            out.append(f"    ↳ {c['name']} ({c['call_id']}): {status}")
        if raw and m.get("raw"):
            out.append("    raw: " + m["raw"][:2000])
    if d.get("next"):
        out.append(f"\nmore: hansard show {s['session_id']} --next {d['next']}")
    return "\n".join(out)


def memory_hits(d: dict[str, Any]) -> str:
    if not d["results"]:
        return "no matching memories"
    out = []
    for h in d["results"]:
        where = f"lines {h['lineStart']}-{h['lineEnd']}" if h.get("lineStart") else ""
        out.append(f"{h['memory_id']}  {h['kind']:18} {h.get('scope', ''):8} {_short(h.get('title'), 50)}  {where}")
        out.append(f"    {h.get('path', '')}")
        if h.get("excerpt"):
            out.append("    " + _short(h["excerpt"], 300))
    return "\n".join(out)


def memory(d: dict[str, Any]) -> str:
    head = f"{d['memory_id']}  {d['kind']}  {d.get('scope', '')}  {d.get('path', '')}"
    body = d.get("content", "")
    lines = body.splitlines()
    start = d.get("contentLineStart", 1)
    numbered = [f"{start + i:5}  {ln}" for i, ln in enumerate(lines)]
    tail = f"\n… more: --offset {d['nextOffset']}" if d.get("nextOffset") is not None else ""
    return head + "\n" + "\n".join(numbered) + tail
