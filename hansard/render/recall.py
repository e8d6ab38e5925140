"""Plain-text renderings of the search answers (the JSON is the dict itself)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hansard.render import whose
from hansard.render.answers import short as _short
from hansard.text.terminal import Painted, paint, painted_lines


def freshness(d: Mapping[str, Any]) -> str:
    through = d.get("indexed_through") or "nothing yet"
    tail = "" if d.get("backfill_complete") else "; first indexing not complete"
    if d.get("indexing_paused"):
        tail += "; indexing is paused"
    return f"(index holds {d.get('indexed_from') or '?'} .. {through}{tail})"


def notes(d: Mapping[str, Any]) -> list[str]:
    """A search's notices (a meaning search that ran as keyword, a filter that matched nothing),
    for standard error: the hits are the output, a notice is not."""
    return [f"hansard: note: {d[k]}" for k in ("mode_notice", "notice") if d.get(k)]


def history(d: Mapping[str, Any]) -> str:
    """The hits (``notes`` has the notices)."""
    out: list[str] = []
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


# Unified-diff lines of one tool call's edits shown at most; the rest is counted.
DIFF_LINES = 200


def _colour(line: str, on: bool) -> str:
    """A diff line indented under its tool call; coloured (``on``: a terminal) by its tag."""
    code = {"+": "32", "-": "31", "@": "36"}.get(line[:1]) if not line.startswith(("+++", "---")) else "1"
    return Painted("      " + paint(line, code)) if on and code else "      " + line


def _diff(edits: list[dict[str, Any]], colour: bool) -> list[str]:
    """The unified diff of a tool call's edits."""
    out: list[str] = []
    for e in edits:
        old = "/dev/null" if e.get("kind") == "create" else f"a/{e['path']}"
        new = "/dev/null" if e.get("kind") == "delete" else f"b/{e.get('move_to') or e['path']}"
        out += [f"--- {old}", f"+++ {new}"]
        if e.get("status") not in (None, "applied"):
            out.append(f"(not applied: {e['status']})")
        for h in e.get("hunks") or []:
            o_start, o_len, n_start, n_len, lines = h
            out.append(f"@@ -{o_start},{o_len} +{n_start},{n_len} @@")
            out += list(lines)
    if len(out) > DIFF_LINES:
        out = out[:DIFF_LINES] + [f"… {len(out) - DIFF_LINES} more diff lines (hansard show --json has every hunk)"]
    return [_colour(ln, colour) for ln in out]


def _test_summary(t: dict[str, Any]) -> str:
    counts = [f"{t[k]} {k}" for k in ("passed", "failed", "errors", "skipped") if t.get(k)]
    verdict = {True: "passed", False: "FAILED", None: "ran"}[t.get("ok")]
    text = f"{t['runner']} {verdict}" + (f": {', '.join(counts)}" if counts else "")
    if t.get("exit_code"):
        text += f" (exit {t['exit_code']})"
    failing = t.get("failing") or []
    if failing:
        text += "; failing: " + ", ".join(failing[:5]) + (f" and {len(failing) - 5} more" if len(failing) > 5 else "")
    return text


def transcript(d: Mapping[str, Any], raw: bool = False, colour: bool = False) -> str:
    """A session window as text; a tool call's edits as a unified diff (``colour`` on a
    terminal) and a test command's run as its pass/fail summary."""
    s = d["session"]
    head = [f"{s['provider']} session {s['session_id']}  {s['title'] or ''}".rstrip(),
            f"  started {s.get('started_at_local') or s['started_at']}  in {s['cwd']}  ({s['message_count']} messages)"]
    if s.get("member"):
        head.append(f"  {whose(s)}session (hansard team)")
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
            if c.get("test_run"):
                out.append(f"      tests: {_test_summary(c['test_run'])}")
            if c.get("edits"):
                out.extend(_diff(c["edits"], colour))
        if raw and m.get("raw"):
            out.append("    raw: " + m["raw"][:2000])
    if d.get("next"):
        out.append(f"\nmore: hansard show {s['session_id']} --next {d['next']}")
    return painted_lines(out) if colour else "\n".join(out)


def memory_hits(d: Mapping[str, Any]) -> str:
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


def memory(d: Mapping[str, Any]) -> str:
    head = f"{d['memory_id']}  {d['kind']}  {d.get('scope', '')}  {d.get('path', '')}"
    body = d.get("content", "")
    lines = body.splitlines()
    start = d.get("contentLineStart", 1)
    numbered = [f"{start + i:5}  {ln}" for i, ln in enumerate(lines)]
    tail = f"\n… more: --offset {d['nextOffset']}" if d.get("nextOffset") is not None else ""
    return head + "\n" + "\n".join(numbered) + tail
