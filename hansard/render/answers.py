"""Text renderers shared by the CLI (and, for text content, the MCP server). They take the
plain dicts the core returns and never query anything themselves."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hansard import agents
from hansard.render import provenance, source_label, whose
from hansard.render.asked import asked_text


def short(text: str | None, n: int = 80) -> str:
    t = " ".join((text or "").split())
    return t if len(t) <= n else t[: n - 1] + "…"


def n(count: int, word: str) -> str:
    """``count`` and ``word``, plural unless it is one ("1 session", "2 sessions", "3 repositories")."""
    if count == 1:
        return f"{count} {word}"
    return f"{count} {word[:-1]}ies" if word.endswith("y") and word[-2:-1] not in "aeiou" else f"{count} {word}s"


def index_summary(s: dict[str, Any], verb: str = "Indexed") -> str:
    lines = [
        f"{verb} {n(s['files'], 'file')} ({s.get('changed', s['files'])} changed, {n(s['records'], 'new record')},"
        f" {s['bytes'] / 1e6:.1f} MB): {n(s['sessions'], 'session')} touched, {n(s['messages'], 'message')},"
        f" {n(s['edits'], 'edit')}"
    ]
    if s.get("redactions"):
        lines.append(f"redacted {n(s['redactions'], 'secret')} (kept only in the raw archive)")
    if s["skipped"]:
        total = sum(s["skipped"].values())
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(s["skipped"].items(), key=lambda kv: -kv[1]))
        lines.append(f"skipped {total}: {reasons}")
    return "\n".join(lines)


def status(d: Mapping[str, Any]) -> str:
    c = d["counts"]
    out = [f"store        {d['store']}"]
    for a in d.get("agents", ()):
        where = ", ".join(a["homes"]) or "-"
        found = "found" if a["found"] else "not found"
        out.append(f"agent        {a['display']} ({a['name']}): {n(a['sessions'], 'session')}, "
                   f"{n(a['messages'], 'message')}, {n(a['edits'], 'edit')}; {where} {found}")
    for s in d["sources"]:
        missing = f" ({s['missing']} no longer on disk, kept in the archive)" if s["missing"] else ""
        out.append(f"source       {s['provider']}: {n(s['files'], 'file')}{missing}")
    out.append(
        f"indexed      {n(c['sessions'], 'session')}, {n(c['messages'], 'message')}, {n(c['tool_calls'], 'tool call')},"
        f" {n(c['edits'], 'edit')} ({c['applied_edits']} applied), {n(c['repos'], 'repository')}"
    )
    out.append(f"covers       {d['indexed_from'] or '-'} .. {d['indexed_through'] or '-'}")
    if c.get("redactions"):
        out.append(f"redacted     {n(c['redactions'], 'secret')} withheld (the raw archive keeps them: `hansard show --raw`)")
    r = d["last_run"]
    if r:
        reasons = r.get("skip_reasons") or {}
        skipped = f"; skipped {r['skipped']}: " + ", ".join(f"{k} {v}" for k, v in sorted(
            reasons.items(), key=lambda kv: -kv[1])) if reasons else f"; skipped {r['skipped']}" if r.get("skipped") \
            else ""
        out.append(f"last run     {r['finished_at']} ({n(r['files'], 'file')}, {n(r['records'], 'record')}{skipped})")
    if d["skipped"]:
        out.append("records kept out (all runs): " + ", ".join(f"{k} {v}" for k, v in d["skipped"].items()))
    return "\n".join(out)


def sessions(rows: list[dict[str, Any]], total: int | None = None) -> str:
    """One row a session; ``total``: how many the listing chose from (said when more than shown)."""
    if not rows:
        return "no sessions"
    out = []
    for r in rows:
        title = r["title"] or short(r["first_prompt"], 60) or "(untitled)"
        where = r["repo"] or r["cwd"] or ""
        label = source_label(r.get("source"))
        out.append(
            f"{(r['last_at'] or '')[:16]:16}  {r['provider']:11}  {r['session_id'][:13]:13}  {r['message_count']:>4} msgs"
            f"  {short(title, 50):50}  {where}" + (f"  [{label}]" if label else "")
        )
    if total is not None and total > len(rows):
        out.append(f"(showing the {len(rows)} most recent of {total} sessions; --limit N shows more)")
    return "\n".join(out)


PROVIDER_NAMES = {a.name: a.display for a in agents.agents()}


def _when(ts: int, tz: str) -> str:
    import datetime as dt

    sign = -1 if tz.startswith("-") else 1
    off = dt.timedelta(hours=int(tz[1:3]), minutes=int(tz[3:5])) * sign
    return dt.datetime.fromtimestamp(ts, dt.timezone(off)).strftime("%Y-%m-%d")


def _redacted(text: str) -> str:
    """Git's text that the `why` answer serves as git gives it (a commit's author), redacted.
    The file's lines and the commit summaries come redacted in the answer
    (hansard.answers.why.contract), cached ones too: they are not redacted again here."""
    from hansard.ingest.secret_screen import redact

    return redact(text)[0]


def why_line(ans: Mapping[str, Any], ln: Mapping[str, Any]) -> str:
    """The full explanation of one line, readable at a glance."""
    out = [f"{ans['path']}:{ln['line']}  {ln['content'].strip()}"]
    commit = ans["commits"].get(ln["commit"] or "", None)
    committed = (
        f"{ln['commit'][:7]} \"{short(commit['summary'], 60)}\" ({_redacted(commit['author'])}, "
        f"{_when(commit['author_time'], commit['author_tz'])})" if commit else None
    )
    sid = ln.get("session_id")
    if sid:
        s = ans["sessions"][sid]
        who = whose(s) + PROVIDER_NAMES.get(s["provider"] or "", s["provider"] or "agent")
        title = f" \"{short(s['title'], 50)}\"" if s.get("title") else ""
        label = {"agent": "written by", "uncommitted": "written by", "agent_modified": "written by",
                 "pasted": "pasted from"}.get(ln["kind"], "written by")
        what = "chat" if ln["kind"] == "pasted" else "session"
        out.append(f"  {label:12} {who} {what} {sid[:13]}{title} ({(s['started_at'] or '')[:16].replace('T', ' ')})")
        src = provenance(s.get("source"))
        if src:
            out.append(f"  {'read from':12} {src}")
        if s.get("parent_session_id"):
            out.append(f"  {'subagent of':12} {s['parent_session_id']}")
        if s.get("resumed_from"):
            out.append(f"  {'resumes':12} {s['resumed_from']}")
        if s.get("resumed_in"):
            out.append(f"  {'resumed in':12} " + ", ".join(s["resumed_in"]))
        if ln["kind"] == "pasted":
            out.append(f"  {'message ' + str(ln['message_index']):12} code block {ln.get('block', 0)} of the reply")
        else:
            tool, edited = ln.get("tool") or "edit", ln.get("edit_path") or ans["path"]
            out.append(f"  {'message ' + str(ln['message_index']):12} {tool} {edited} (tool call {ln['tool_call_id']})")
        out += asked_lines(s, ln["message_index"])
    if committed:
        out.append(f"  {'committed':12} {committed}")
    elif ln["kind"] == "uncommitted":
        out.append(f"  {'committed':12} not yet (working tree)")
    out.append(f"  {'evidence':12} {why_evidence(ln)}")
    if ln.get("later_sessions"):
        out.append(f"  {'later':12} also touched by " + ", ".join(x[:13] for x in ln["later_sessions"]))
    return "\n".join(out)


def asked_lines(session: Mapping[str, Any], message_index: int | None) -> list[str]:
    """`asked` (the request behind the edit); `then`, when the person's last turn before it was
    another message (a "yes", a menu choice); `first asked`, the session's first request, when
    the session has no title and that request is another one."""
    a = asked_text(session, message_index)
    out = []
    if a.request:
        where = " (the session's title)" if a.fallback == "title" else \
            f" (message {a.request_index})" if a.then is not None and a.request_index is not None else ""
        out.append(f"  {'asked':12} \"{short(a.request, 100)}\"{where}")
    if a.then is not None:
        out.append(f"  {'then':12} \"{short(a.then, 60)}\" (message {a.then_index})")
    if a.first is not None:
        out.append(f"  {'first asked':12} \"{short(a.first, 100)}\" (message {a.first_index})")
    return out


def why_range(ans: Mapping[str, Any]) -> str:
    """A range of lines: one header per run of lines that one edit (or, for lines no edit
    wrote, one kind of evidence in one commit) accounts for, then the run's lines with their
    numbers. The header's evidence is that of the run's first line not merely inherited."""

    def key(ln: dict[str, Any]) -> tuple[Any, ...]:
        if ln.get("tool_call_id"):
            return (ln["kind"], ln.get("session_id"), ln["tool_call_id"], ln["commit"])
        return (ln["kind"], ln["rule"], ln.get("session_id"), ln["commit"])

    runs: list[list[dict[str, Any]]] = []
    for ln in ans["lines"]:
        if runs and key(runs[-1][0]) == key(ln) and runs[-1][-1]["line"] + 1 == ln["line"]:
            runs[-1].append(ln)
        else:
            runs.append([ln])
    out = []
    for run in runs:
        a, b = run[0]["line"], run[-1]["line"]
        lead = next((ln for ln in run if ln["rule"] != "inherited"), run[0])
        details = why_line(ans, lead).split("\n")[1:]
        width = len(str(b))
        body = [f"  {ln['line']:>{width}}  {ln['content']}" for ln in run]
        out.append("\n".join([f"{ans['path']}:{a}" + (f"-{b}" if b != a else ""), *details, *body]))
    return "\n\n".join(out)


def why_evidence(ln: Mapping[str, Any]) -> str:
    rule, kind = ln.get("rule"), ln["kind"]
    landed = f"; it landed in {ln['commit'][:7]}" if ln.get("commit") else ""
    if kind in ("agent", "uncommitted") and ln.get("session_id"):
        if ln.get("edit_path"):  # written under another name: the file's before a rename, or one its commit moved
            landed = f" (to {ln['edit_path']})" + landed
        return {
            "wrote": "wrote: the session's edit added this exact line",
            "formatted": "formatted: the session's edit added this line; whitespace changed since (a formatter?)",
            "inherited": "inherited: a trivial line inside a block the same edit wrote",
        }.get(rule or "", rule or "") + landed
    if kind == "agent_modified":
        return (f"modified: an agent's edit wrote this line and it was changed later "
                f"(similarity {ln.get('similarity', 0):.2f}){landed}")
    if kind == "human":
        return "no archived session wrote this line" + landed
    if kind == "pasted":
        return ("pasted: no agent wrote it; it is in a run of lines that match a code block of this web chat,"
                " sent before the commit" + landed)
    if kind == "uncommitted":
        return "not committed, and no live session wrote it"
    return {
        "other_path": "unknown: an agent wrote this text, but into another file",
        "trivial": "unknown: too short to be evidence on its own",
        "untimed": "unknown: an agent's edit with no recorded time (a Cursor agent transcript) added this line;"
                   " it cannot be placed before the commit",
        "shell_command": "unknown: a session ran shell commands on this file (invisible to edit records)",
        "unlinked_session": "unknown: a session wrote this line into a file of this name whose repository is not known"
                            " here (a removed worktree, or another machine: see `hansard config map`)",
        "no_sessions": "unknown: no archived session ran in this repository, so nothing tells an agent's line"
                       " from a person's",
        "unreadable_edit": ("unknown: an agent's edit of this file, whose text was not recorded, could have written"
                            " it (" + ", ".join(x[:13] for x in ln.get("alternatives") or ()) + ")"),
        "changed_later": ("unknown: " + ", ".join(x[:13] for x in ln.get("alternatives") or ())
                          + " wrote an earlier version of this line; a later commit changed it, whose author"
                          " (a person, or an agent whose edits are not here) is not known"),
        "common_line": ("unknown: the file has this line more than once; "
                        + ", ".join(x[:13] for x in ln.get("alternatives") or ())
                        + " wrote it, but none of the lines around it"),
        "other_branch": ("unknown: " + ", ".join(x[:13] for x in ln.get("alternatives") or ())
                         + " wrote this text, but on a version of the file this commit did not grow from"
                         " (another branch or worktree)"),
        "stale_edit": ("unknown: " + ", ".join(x[:13] for x in ln.get("alternatives") or ())
                       + " wrote this text before the file's previous commit, which did not take it; here it"
                       " stands alone and short or common, came more than a month later, or with little else"
                       " of that edit"),
        "readded": ("unknown: the commit wrote this line again (after a commit removed it, among new text of its"
                    " own or days later; or as one more copy of a line the file had); "
                    + ", ".join(x[:13] for x in ln.get("alternatives") or ()) + " wrote it for an earlier commit"),
        "not_the_commits_session": ("unknown: the commit's own record names other sessions; "
                                    + ", ".join(x[:13] for x in ln.get("alternatives") or ())
                                    + " wrote this text, but the file has it more than once or only likeness links it"),
    }.get(rule or "", "unknown: no usable evidence")


def why_file(ans: Mapping[str, Any]) -> str:
    """One row per line: kind, session and message, then the code."""
    rows = []
    width = len(str(ans["lines"][-1]["line"])) if ans["lines"] else 1
    for ln in ans["lines"]:  # the lines' text comes redacted in the answer (see _redacted)
        who = ""
        if ln.get("session_id"):
            who = f"{ln['session_id'][:8]}#{ln['message_index']}"
        rows.append(f"{ln['line']:>{width}} {ln['kind'][:14]:14} {who:14} {ln['content']}")
    return "\n".join(rows)
