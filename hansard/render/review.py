"""`hansard review` for people: terminal text and Markdown for a pull-request comment.

Always true of ``review_markdown``: every string that came from a transcript, a commit or the
repository (paths, titles, requests, summaries, commands) is escaped (``markdown.escape``: one
line, no link, image, HTML or emphasis can come of it) or shown as a code span only when it is
made of plain id characters (``markdown.code``); the comment is at most ``LIMIT`` characters
(GitHub's limit on a comment): files are shown shortest first, each collapsible, and whatever
does not fit is left out with a note that says how much. The texts were redacted by the
answer. Nothing here reads a store.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hansard.render import provenance, whose
from hansard.render.answers import PROVIDER_NAMES, n, short
from hansard.render.markdown import code, escape

LIMIT = 65_536
KIND_WORDS = {"agent": "agent", "agent_modified": "agent, changed since", "pasted": "pasted from a chat",
              "human": "a person", "unknown": "no session explains it", "uncommitted": "not committed"}
TESTED_WORDS = {"passed": "its last test run after its last edit passed",
                "failed": "its last test run after its last edit FAILED",
                "none": "it ran no test after its last edit", "unknown": "not in this store"}


def _agent(provider: str | None) -> str:
    return PROVIDER_NAMES.get(provider or "", provider or "agent")


def _lines(a: int, b: int) -> str:
    return f"{a}" if a == b else f"{a}-{b}"


def _who(run: Mapping[str, Any], sessions: Mapping[str, Mapping[str, Any]]) -> str:
    sid = run.get("session_id")
    if not sid:
        return KIND_WORDS.get(run["kind"], run["kind"])
    s = sessions.get(sid, {})
    return f"{KIND_WORDS.get(run['kind'], run['kind'])}: {whose(s)}{_agent(run.get('provider'))} {sid[:13]}"


def _counts(d: Mapping[str, int], names: Mapping[str, str] | None = None) -> str:
    parts = [f"{(names or {}).get(k, k)} {v}" for k, v in d.items() if v]
    return ", ".join(parts) or "none"


# -- terminal text -------------------------------------------------------------------------------


def review_text(r: Mapping[str, Any]) -> str:
    """The review for a terminal (the CLI prints it through the terminal sanitiser)."""
    rng, tot = r["range"], r["totals"]
    sessions = {s["session_id"]: s for s in r["sessions"]}
    out = [f"review {rng['spec']} ({n(rng['commits'], 'commit')}, {rng['base'][:7] if rng['base'] else 'root'}.."
           f"{rng['head'][:7]}): {n(tot['lines'], 'line')} added in {n(tot['files'], 'file')}",
           f"  by kind      {_counts(tot['by_kind'])}",
           f"  by agent     {_counts(tot['by_agent'], PROVIDER_NAMES)}"]
    if r.get("indexing"):
        out.append("  note         an index run is still building what this answer needs")
    if r.get("notice"):
        out.append(f"  note         {r['notice']['message']}")
    out += ["", "for the reviewer"]
    flags = r["flags"]
    for key, word in (("unexplained", "no session explains"), ("changed", "agent lines changed since"),
                      ("redacted_lines", "redacted")):
        for x in flags[key]:
            out.append(f"  {word:26} {x['path']}:{_lines(x['start'], x['end'])} ({x['rule']})"
                       + (f" earlier: {', '.join(a[:13] for a in x['alternatives'])}" if x.get("alternatives") else "")
                       + (f" session {x['session_id'][:13]}" if x.get("session_id") else ""))
    for sid in flags["tests_failed"]:
        out.append(f"  {'tests failed':26} session {sid[:13]}: {TESTED_WORDS['failed']}")
    for sid in flags["untested"]:
        out.append(f"  {'untested':26} session {sid[:13]}: {TESTED_WORDS['none']}")
    for sid in flags["redacted_sessions"]:
        out.append(f"  {'redactions':26} session {sid[:13]}: {sessions[sid]['redactions']} secret(s) redacted")
    if out[-1] == "for the reviewer":
        out.append("  nothing to flag")
    for s in r["sessions"]:
        out += ["", _session_head(s)] + [f"  {label:12} {text}" for label, text in _session_facts(s, 100)]
    for f in sorted(r["files"], key=lambda f: f["added"]):
        out += ["", f"{f['path']}  +{f['added']} -{f['removed']}" + (f" (from {f['old_path']})" if f["old_path"] else "")
                + (f"  no answer: {f['skipped']}" if f.get("skipped") else "")]
        for h in f["hunks"]:
            for run in h["runs"]:
                asked = f"  asked \"{short(run['asked'], 60)}\"" if run.get("asked") else ""
                commit = f"  {run['commit'][:7]}" if run.get("commit") else ""
                out.append(f"  {_lines(run['start'], run['end']):>9}  {_who(run, sessions)}{commit}{asked}")
    if r.get("truncated"):
        out += ["", "cut to the token budget: " + ", ".join(f"{v} {k}" for k, v in r["truncated"].items())]
    return "\n".join(out)


def _session_head(s: Mapping[str, Any]) -> str:
    title = f" \"{short(s['title'], 60)}\"" if s.get("title") else ""
    return (f"{whose(s)}{_agent(s['provider'])} session {s['session_id']}{title}: {n(s['lines'], 'line')} in "
            f"{n(len(s['files']), 'file')}")


def _tally(t: Mapping[str, Any]) -> str:
    parts = [f"{t[k]} {k}" for k in ("passed", "failed") if t.get(k) is not None]
    return f" ({', '.join(parts)})" if parts else ""


def _session_facts(s: Mapping[str, Any], width: int) -> list[tuple[str, str]]:
    """What the review says of a session, as (label, plain text) rows: where it was read, what
    it was asked, its files, its tests and commands after its last edit, what it said last and
    how to open it."""
    out = []
    src = provenance(s.get("source"))
    if src:
        out.append(("read from", src))
    for q in s["requests"]:
        where = f" (message {q['index']})" if q["index"] is not None else " (the session's title)"
        out.append(("asked", f"\"{short(q['text'], width)}\"{where}, {n(q['lines'], 'line')}"))
    out.append(("files", ", ".join(s["files"])))
    for t in s["tests_after_last_edit"][-3:]:
        out.append(("test", f"{short(t['command'], 60)}: {t['outcome']}{_tally(t)} (message {t['message_index']})"))
    out.append(("tested", TESTED_WORDS[s["tested"]]))
    for c in s["commands_after_last_edit"][-3:]:
        out.append(("ran", f"{short(c['command'], 60)} (exit {c['exit_code']})"))
    if s["summary"]:
        out.append(("said last", f"\"{short(s['summary'], 2 * width)}\""))
    out.append(("open", s["open"]))
    return out


# -- Markdown ------------------------------------------------------------------------------------


def review_markdown(r: Mapping[str, Any], limit: int = LIMIT) -> str:
    """The review as a pull-request comment, at most ``limit`` characters."""
    rng, tot = r["range"], r["totals"]
    sessions = {s["session_id"]: s for s in r["sessions"]}
    head = [f"## hansard review of {code(rng['spec'])}", "",
            f"{n(tot['lines'], 'line')} added in {n(tot['files'], 'file')} over {n(rng['commits'], 'commit')} "
            f"({code(rng['base'][:12]) if rng['base'] else 'the root'}..{code(rng['head'][:12])}).", "",
            f"**By kind:** {escape(_counts(tot['by_kind']))}  ",
            f"**By agent:** {escape(_counts(tot['by_agent'], PROVIDER_NAMES))}"]
    if r.get("indexing"):
        head += ["", "> An index run was still building what this answer needs: some lines may read human or unknown."]
    if r.get("notice"):
        head += ["", f"> {escape(r['notice']['message'])}"]
    src = r["sources"]
    head += ["", f"**Read from:** {escape(', '.join(src['read']) or 'nothing')}"
             + (f". **Could not read:** {escape(', '.join(src['unread']))}" if src["unread"] else "")]
    head += ["", "### For the reviewer", ""] + (_flags_md(r["flags"], sessions) or ["Nothing to flag."])
    blocks = [_session_md(s) for s in r["sessions"]]
    files = [_file_md(f, sessions) for f in sorted(r["files"], key=lambda f: (f["added"], f["path"]))]
    return _fit("\n".join(head) + "\n", blocks, files, limit, truncated=r.get("truncated"))


def _flags_md(flags: Mapping[str, Any], sessions: Mapping[str, Mapping[str, Any]]) -> list[str]:
    out = []
    for key, word in (("unexplained", "No session explains"), ("changed", "Agent lines changed since"),
                      ("redacted_lines", "Redacted")):
        for x in flags[key]:
            alt = f" (earlier: {', '.join(code(a[:13]) for a in x['alternatives'])})" if x.get("alternatives") else ""
            sid = f", session {code(x['session_id'][:13])}" if x.get("session_id") else ""
            out.append(f"- **{word}:** {escape(x['path'])} lines {_lines(x['start'], x['end'])} "
                       f"({escape(x['rule'])}{sid}){alt}")
    for sid in flags["tests_failed"]:
        out.append(f"- **Tests failed:** session {code(sid[:13])}: {TESTED_WORDS['failed']}")
    for sid in flags["untested"]:
        out.append(f"- **Untested:** session {code(sid[:13])}: {TESTED_WORDS['none']}")
    for sid in flags["redacted_sessions"]:
        out.append(f"- **Redactions:** session {code(sid[:13])}: {sessions[sid]['redactions']} secret(s) redacted "
                   "from its transcript")
    return out


def _session_md(s: Mapping[str, Any]) -> str:
    title = f" “{escape(short(s['title'], 80))}”" if s.get("title") else ""
    out = [f"#### {escape(whose(s) + _agent(s['provider']))} session {code(s['session_id'])}{title}", ""]
    out += [f"- **{label.capitalize()}:** {code(text) if label == 'open' else escape(text)}"
            for label, text in _session_facts(s, 200)]
    return "\n".join(out) + "\n"


def _file_md(f: Mapping[str, Any], sessions: Mapping[str, Mapping[str, Any]]) -> str:
    kinds: dict[str, int] = {}
    for h in f["hunks"]:
        for run in h["runs"]:
            kinds[run["kind"]] = kinds.get(run["kind"], 0) + run["end"] - run["start"] + 1
    moved = f" (from {escape(f['old_path'])})" if f["old_path"] else ""
    out = [f"<details><summary>{escape(f['path'])}{moved} +{f['added']} −{f['removed']}: "
           f"{escape(_counts(kinds, KIND_WORDS))}</summary>", ""]
    if f.get("skipped"):
        out.append(f"No answer: {escape(f['skipped'])}.")
    rows = [(run, h) for h in f["hunks"] for run in h["runs"]]
    if rows:
        out += ["| lines | who | asked | commit |", "|---|---|---|---|"]
        for run, _ in rows:
            asked = f"“{escape(short(run['asked'], 120))}”" if run.get("asked") else ""
            commit = code(run["commit"][:10]) if run.get("commit") else ""
            out.append(f"| {_lines(run['start'], run['end'])} | {escape(_who(run, sessions))} | {asked} | {commit} |")
    out += ["", "</details>"]
    return "\n".join(out) + "\n"


def _fit(head: str, sessions: list[str], files: list[str], limit: int, truncated: Any = None) -> str:
    """The comment: the head, then sessions and files while they fit, with a note of what did
    not (room for the note is kept)."""
    reserve = 400
    body = head
    left_sessions = left_files = 0
    parts = ["\n### Sessions\n\n"] if sessions else []
    for b in sessions:
        if len(body) + sum(map(len, parts)) + len(b) + 1 > limit - reserve:
            left_sessions += 1
            continue
        parts.append(b + "\n")
    parts.append("\n### Files, shortest first\n\n")
    for b in files:
        if len(body) + sum(map(len, parts)) + len(b) + 1 > limit - reserve:
            left_files += 1
            continue
        parts.append(b + "\n")
    body += "".join(parts)
    notes = []
    if left_sessions or left_files:
        notes.append(f"Cut to fit a comment's {limit:,} characters: {n(left_sessions, 'session')} and "
                     f"{n(left_files, 'file')} left out (the longest); `hansard review` shows them all.")
    if truncated:
        notes.append("The answer was cut to its token budget: " + ", ".join(f"{v} {k}" for k, v in truncated.items())
                     + ".")
    if notes:
        body += "\n---\n" + "\n\n".join(f"_{x}_" for x in notes) + "\n"
    return body
