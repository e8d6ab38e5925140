"""What an editor shows, computed from one `why` answer (the JSON contract) and nothing else.

Always true:

- a *block* is a maximal run of consecutive lines with the same kind and the same edit
  (session, message, tool call); `human` lines and uncommitted lines nobody's session wrote
  get no block, so they carry no mark;
- every other line lies in exactly one block, and the block's mark sits on its first line;
- marks are one short line: ``Claude Code · 4f0f2c6e · "add capped backoff"`` for agent lines
  (with ``· modified`` / ``· uncommitted`` when so), ``? unknown · <rule>`` for unknown ones;
- hover text is Markdown built from the same answer, in the order `hansard why` prints it.

No pygls, no store and no git here: the functions are cheap and pure, so the server, the
tests and the bench call them directly. Every transcript, git or team string in the hover goes
through hansard.render.markdown, so none of it becomes a link, markup or HTML.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, NamedTuple

from hansard.render.markdown import code
from hansard.render.markdown import escape as esc

SHOW_CONVERSATION = "hansard.showConversation"
WHY = "hansard.why"
# A line's tuple in the compact answer: (kind, session_id, message_index, tool_call_id, rule).
_KEY_FIELDS = ("kind", "session_id", "message_index", "tool_call_id")


class Block(NamedTuple):
    first: int  # 0-based line of the mark
    last: int  # 0-based, inclusive
    label: str
    kind: str
    session_id: str | None
    message_index: int | None


def short(text: str | None, n: int) -> str:
    t = " ".join((text or "").split())
    return t if len(t) <= n else t[: n - 1] + "…"


def prompt_for(ans: dict[str, Any], ln: dict[str, Any]) -> str | None:
    """The user prompt that asked for the line's edit: the last prompt at or before its message."""
    s = ans["sessions"].get(ln.get("session_id") or "")
    if not s:
        return None
    best: tuple[int, str] | None = None
    mi = ln.get("message_index")
    for idx, text in (s.get("prompts") or {}).items():
        i = int(idx)
        if mi is not None and i <= mi and (best is None or i > best[0]):
            best = (i, text)
    return best[1] if best else s.get("prompt")


def _marked(ln: dict[str, Any]) -> bool:
    if ln["kind"] == "human":
        return False
    if ln["kind"] == "uncommitted" and not ln.get("session_id"):
        return False  # typed by the person, not yet committed
    return True


def label(ans: dict[str, Any], ln: dict[str, Any], provider_name: Callable[[str | None], str]) -> str:
    if ln["kind"] == "unknown":
        return f"? unknown · {ln.get('rule') or 'no evidence'}"
    sid = ln.get("session_id")
    if sid:
        out = f"{provider_name(ln.get('provider'))} · {sid[:8]}"
        p = prompt_for(ans, ln)
        if p:
            out += f' · "{short(p, 40)}"'
    else:  # a session the answer does not name (another repository's), said as the answer says it
        out = str(ln.get("session") or "an unnamed session")
    if ln["kind"] == "agent_modified":
        out += " · modified"
    elif ln["kind"] == "uncommitted":
        out += " · uncommitted"
    elif ln["kind"] == "pasted":
        out += " · pasted from a web chat"
    return out


def blocks(ans: dict[str, Any], provider_name: Callable[[str | None], str]) -> list[Block]:
    out: list[Block] = []
    prev_key = None
    for ln in ans["lines"]:
        i = ln["line"] - 1
        if not _marked(ln):
            prev_key = None
            continue
        key = tuple(ln.get(f) for f in _KEY_FIELDS)
        if key == prev_key and out and out[-1].last == i - 1:
            out[-1] = out[-1]._replace(last=i)
            continue
        out.append(Block(i, i, label(ans, ln, provider_name), ln["kind"], ln.get("session_id"), ln.get("message_index")))
        prev_key = key
    return out


def _date(iso: str | None) -> str:
    if not iso:
        return ""
    try:
        t = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return esc(iso[:16])  # not a time hansard formatted: the transcript's text
    return t.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _commit_date(c: dict[str, Any]) -> str:
    tz = c.get("author_tz") or "+0000"
    try:
        sign = -1 if tz[0] == "-" else 1
        off = timezone(sign * timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])))
    except (ValueError, IndexError):
        off = UTC
    return datetime.fromtimestamp(c["author_time"], off).strftime("%Y-%m-%d")


def conversation_args(ln: dict[str, Any]) -> list[Any]:
    return [ln["session_id"], ln.get("message_index")]


def hover_markdown(ans: dict[str, Any], ln: dict[str, Any], provider_name: Callable[[str | None], str],
                   evidence: Callable[[dict[str, Any]], str]) -> str:
    """The `why` answer of one line: who, which session, what was asked, which message and
    tool, which commit, which rule; and a link that opens the conversation. Every string that
    came from a transcript, git or a teammate goes through hansard.render.markdown (``esc``,
    ``code``): the only link is hansard's own, built here."""
    import json
    from urllib.parse import quote

    kind = ln["kind"]
    parts: list[str] = []
    sid = ln.get("session_id")
    if sid:
        s = ans["sessions"].get(sid, {})
        who = provider_name(ln.get("provider") or s.get("provider"))
        head = f"**{esc(who)}** · {code(kind)} · session {code(str(sid)[:13])}"
        if s.get("title"):
            head += f" *{esc(short(s['title'], 60))}*"
        if s.get("started_at"):
            head += f" · {_date(s['started_at'])}"
        member = ln.get("member") or s.get("member")
        if member:
            head += f" · member {esc(member)}"
        parts.append(head)
        if s.get("parent_session_id"):
            parts.append(f"subagent of {code(str(s['parent_session_id'])[:13])}")
        p = prompt_for(ans, ln)
        if p:
            parts.append("> " + esc(short(p, 300)))
        tool = ln.get("tool") or "edit"
        parts.append(f"message {esc(ln.get('message_index'))} · {esc(tool)} · tool call {code(ln.get('tool_call_id'))}")
    else:
        parts.append(f"**{'unknown' if kind == 'unknown' else esc(kind)}**")
    sha = ln.get("commit")
    c = ans["commits"].get(sha or "")
    if c:
        parts.append(f"commit {code(str(sha)[:7])} \"{esc(short(c['summary'], 70))}\" ({esc(c['author'])}, "
                     f"{_commit_date(c)})")
    elif kind == "uncommitted":
        parts.append("not committed yet (working tree)")
    parts.append("evidence: " + esc(evidence(ln)))
    if ln.get("later_sessions"):
        parts.append("later also written by " + ", ".join(code(str(x)[:13]) for x in ln["later_sessions"]))
    if sid:
        args = quote(json.dumps(conversation_args(ln)), safe="")
        show = f"hansard show {str(sid)[:13]} --around {ln.get('message_index')}"
        parts.append(f"[Open the conversation](command:{SHOW_CONVERSATION}?{args}) · {code(show)}")
    notice = ans.get("notice")
    if notice:  # no session of this repository: where hansard looked, and how to point it elsewhere
        parts.append("*" + esc(notice["message"]) + "* (set " + ", ".join(code(v) for v in notice["env"][:6]) + ", …)")
    return "\n\n".join(parts)
