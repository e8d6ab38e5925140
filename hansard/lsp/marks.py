"""What an editor shows, computed from one `why` answer (the JSON contract) and nothing else.

Always true:

- a *block* is a maximal run of consecutive lines with the same kind and the same edit
  (session, message, tool call); `human` lines and uncommitted lines nobody's session wrote
  get no block, so they carry no mark;
- every other line lies in exactly one block, and the block's mark sits on its first line;
- marks are one short line: ``Claude Code · 4f0f2c6e · "add capped backoff"`` for agent lines
  (with ``· modified`` / ``· uncommitted`` when so), ``? unknown · <rule>`` for unknown ones;
  the quote is the request behind the edit, never a "yes" that let the agent go ahead;
- a code lens is quieter than a mark: one per run of lines one session wrote (``lens_runs``),
  none for unknown lines;
- hover text is Markdown built from the same answer, in the order `hansard why` prints it.

No pygls, no store and no git here: the functions are cheap and pure, so the server, the
tests and the bench call them directly. Every transcript, git or team string in the hover goes
through hansard.render.markdown, so none of it becomes a link, markup or HTML.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta, timezone
from typing import Any, NamedTuple

from hansard.render import provenance
from hansard.render.asked import Asked, asked_text
from hansard.render.markdown import code, plain
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


def prompt_for(ans: Mapping[str, Any], ln: Mapping[str, Any]) -> Asked | None:
    """What was asked for the line's edit (``hansard.render.asked``): the request that carried
    the intent, not the "yes" that let the agent go ahead; None for a line no session wrote."""
    s = ans["sessions"].get(ln.get("session_id") or "")
    if not s:
        return None
    return asked_text(s, ln.get("message_index"))


def _marked(ln: Mapping[str, Any]) -> bool:
    if ln["kind"] == "human":
        return False
    if ln["kind"] == "uncommitted" and not ln.get("session_id"):
        return False  # typed by the person, not yet committed
    return True


def label(ans: Mapping[str, Any], ln: Mapping[str, Any], provider_name: Callable[[str | None], str]) -> str:
    if ln["kind"] == "unknown":
        return f"? unknown · {ln.get('rule') or 'no evidence'}"
    sid = ln.get("session_id")
    if sid:
        out = f"{provider_name(ln.get('provider'))} · {sid[:8]}"
        p = prompt_for(ans, ln)
        if p and p.request:
            out += f' · "{short(p.request, 40)}"'
    else:  # a session the answer does not name (another repository's), said as the answer says it
        out = str(ln.get("session") or "an unnamed session")
    if ln["kind"] == "agent_modified":
        out += " · modified"
    elif ln["kind"] == "uncommitted":
        out += " · uncommitted"
    elif ln["kind"] == "pasted":
        out += " · pasted from a web chat"
    return out


def blocks(ans: Mapping[str, Any], provider_name: Callable[[str | None], str]) -> list[Block]:
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


def lens_runs(ans: Mapping[str, Any], provider_name: Callable[[str | None], str]) -> list[Block]:
    """The code lenses: one per run of lines one session wrote (its edits, modified or not),
    a run going on over blank lines and ending at any other line; none for lines no session
    wrote (``human``, ``unknown``, a person's uncommitted line). A lens names the session and
    the request behind its run's first line (``label``); it sits on that line. Needs the
    lines' ``content`` (for the blank ones)."""
    out: list[Block] = []
    for ln in ans["lines"]:
        i = ln["line"] - 1
        sid = ln.get("session_id")
        if not (ln.get("content") or "").strip() and out:
            continue
        if not sid or not _marked(ln) or ln["kind"] == "unknown":
            out.append(Block(i, i, "", "", None, None))  # ends the run; dropped below
        elif out and out[-1].session_id == sid:
            out[-1] = out[-1]._replace(last=i)
        else:
            out.append(Block(i, i, label(ans, ln, provider_name), ln["kind"], sid, ln.get("message_index")))
    return [b for b in out if b.session_id]


def _date(iso: str | None, e: Callable[[object], str] = esc) -> str:
    if not iso:
        return ""
    try:
        t = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return e(iso[:16])  # not a time hansard formatted: the transcript's text
    return t.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _commit_date(c: Mapping[str, Any]) -> str:
    tz = c.get("author_tz") or "+0000"
    try:
        sign = -1 if tz[0] == "-" else 1
        off = timezone(sign * timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])))
    except (ValueError, IndexError):
        off = UTC
    return datetime.fromtimestamp(c["author_time"], off).strftime("%Y-%m-%d")


def conversation_args(ln: Mapping[str, Any]) -> list[Any]:
    return [ln["session_id"], ln.get("message_index")]


def hover_markdown(ans: Mapping[str, Any], ln: Mapping[str, Any], provider_name: Callable[[str | None], str],
                   evidence: Callable[[Mapping[str, Any]], str], *, markdown: bool = True, links: bool = True) -> str:
    """The `why` answer of one line: who, which session, what was asked, which message and
    tool, which commit, which rule; and a link that opens the conversation. Every string that
    came from a transcript, git or a teammate goes through hansard.render.markdown (``esc``,
    ``code``): the only link is hansard's own, built here.

    For a client that does not render Markdown the way CommonMark does (``markdown`` False:
    Neovim, Emacs), the same lines as plain text: no emphasis, no code spans, no backslash
    escapes, each string on one line with its control characters dropped (``plain``). Without
    ``links`` (any client but one that runs hansard's command from a link: VS Code with the
    extension), no link: `hansard show` says how to open the conversation."""
    import json
    from urllib.parse import quote

    e: Callable[[object], str] = esc if markdown else plain
    c: Callable[[object], str] = code if markdown else plain

    def strong(x: str) -> str:
        return f"**{x}**" if markdown else x

    kind = ln["kind"]
    parts: list[str] = []
    sid = ln.get("session_id")
    if sid:
        s = ans["sessions"].get(sid, {})
        who = provider_name(ln.get("provider") or s.get("provider"))
        head = f"{strong(e(who))} · {c(kind)} · session {c(str(sid)[:13])}"
        if s.get("title"):
            head += f" *{e(short(s['title'], 60))}*" if markdown else f' "{plain(short(s["title"], 60))}"'
        if s.get("started_at"):
            head += f" · {_date(s['started_at'], e)}"
        member = ln.get("member") or s.get("member")
        if member:
            head += f" · member {e(member)}"
        parts.append(head)
        src = provenance(s.get("source"))
        if src:  # not this machine's own record: say where it was read
            parts.append("read from " + e(src))
        if s.get("parent_session_id"):
            parts.append(f"subagent of {c(str(s['parent_session_id'])[:13])}")
        p = prompt_for(ans, ln)
        if p and p.request:
            parts.append(("> " + e(short(p.request, 300))) if markdown else f'asked "{plain(short(p.request, 300))}"')
        if p and p.then is not None:
            parts.append(f"then {e(short(p.then, 80))} (message {e(p.then_index)})")
        if p and p.first is not None:
            parts.append(f"first asked {e(short(p.first, 160))} (message {e(p.first_index)})")
        tool = ln.get("tool") or "edit"
        parts.append(f"message {e(ln.get('message_index'))} · {e(tool)} · tool call {c(ln.get('tool_call_id'))}")
    else:
        parts.append(strong("unknown" if kind == "unknown" else e(kind)))
    sha = ln.get("commit")
    commit = ans["commits"].get(sha or "")
    if commit:
        parts.append(f"commit {c(str(sha)[:7])} \"{e(short(commit['summary'], 70))}\" ({e(commit['author'])}, "
                     f"{_commit_date(commit)})")
    elif kind == "uncommitted":
        parts.append("not committed yet (working tree)")
    parts.append("evidence: " + e(evidence(ln)))
    if ln.get("later_sessions"):
        parts.append("later also written by " + ", ".join(c(str(x)[:13]) for x in ln["later_sessions"]))
    if sid:
        show = c(f"hansard show {str(sid)[:13]} --around {ln.get('message_index')}")
        if markdown and links:
            args = quote(json.dumps(conversation_args(ln)), safe="")
            parts.append(f"[Open the conversation](command:{SHOW_CONVERSATION}?{args}) · {show}")
        else:
            parts.append(f"the conversation: {show}")
    notice = ans.get("notice")
    if notice:  # no session of this repository: where hansard looked, and how to point it elsewhere
        says = e(notice["message"]) + " (set " + ", ".join(c(v) for v in notice["env"][:6]) + ", …)"
        parts.append(f"*{says}*" if markdown else says)
    return "\n\n".join(parts)
