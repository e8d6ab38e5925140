"""The short text trees of code_history and work_context (their answers' ``tree``, and what
``hansard log`` and ``hansard context`` print): plain dicts in, strings out; they never query.
The answers call them through the ``render`` argument the adapters pass, because the tree
counts toward the answer's token budget (hansard/answers/budget.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hansard.answers.code_history import OTHER_REPOSITORY, first_line
from hansard.render import whose
from hansard.render.answers import short

# How the session was chosen, and how each commit is tied to it, in words (the JSON keeps the codes).
SELECTED_BY = {"argument": "the session asked for", "live_in_repo": "the live session in this repository",
               "newest_in_repo": "the newest session in this repository; pass a session id for another"}
def _title(row: dict[str, Any], n: int) -> str:
    """A session's title quoted on one line (a title is often its first prompt, newlines and
    all); a session with none is said to have none, or to have no transcript here."""
    if row.get("title"):
        return f'"{short(row["title"], n)}"'
    return "(no transcript of it here)" if row.get("message_count") == 0 else "(untitled)"


HOW = {"made_by_session": "its shell made the commit", "edits_landed": "its edits landed in the commit",
       "made_by_session+edits_landed": "its shell made the commit, with its edits"}


def code_history_tree(result: Mapping[str, Any], notice: bool = True) -> str:
    """code_history's tree: the target, then one entry a few lines each, newest first; and,
    with ``notice``, the answer's notice as a last line (the CLI puts it on standard error)."""
    t = result["target"]
    head = t["path"] + (f":{t['line']}" if t.get("line") else "") + (f" ({t['symbol']})" if t.get("symbol") else "")
    if t.get("formerly"):
        head += " formerly " + ", ".join(t["formerly"])
    lines = [head]
    entries = result["entries"]
    for i, e in enumerate(entries):
        last = i == len(entries) - 1
        lead, cont = ("└─ ", "   ") if last else ("├─ ", "│  ")
        if e["kind"] == "session":
            live = " [live]" if e.get("live") else ""
            idx = ", ".join(str(x) for x in [x["message_index"] for x in e["edits"] if x["message_index"] is not None]
                            or e.get("messages") or [])
            now = f"; {e['lines']} line{'' if e['lines'] == 1 else 's'} here now" if "lines" in e else ""
            when = (e["last_edit_at"] or e.get("started_at") or "")[:10]
            if e["session_id"] is None:
                lines.append(f"{lead}{when} {OTHER_REPOSITORY}{now}")
            else:
                lines.append(f"{lead}{when} {whose(e)}{e['provider']} {e['session_id'][:13]} "
                             f"{_title(e, 60)}{live}")
                lines.append(f"{cont}messages {idx}{now}")
            for c in e["commits"]:
                lines.append(f"{cont}commit {c['sha'][:7]} \"{c['summary'][:60]}\"")
            for u in e.get("undoes", []):
                lines.append(f"{cont}undoes {OTHER_REPOSITORY}" if u["session_id"] is None
                             else f"{cont}undoes {u['session_id'][:13]} message {u['message_index']}")
            for sha in e.get("reverted_by", []):
                lines.append(f"{cont}reverted by {sha[:7]}")
            tests = e.get("tests")
            if tests:
                for f in tests["failed_then_fixed"]:
                    lines.append(f"{cont}test {f['test']} failed, then fixed")
                for f in tests["still_failing"]:
                    lines.append(f"{cont}test {f} still failing")
        elif e["kind"] == "revert":
            what = ", ".join(u["commit"][:7] for u in e["undoes"]) or "an earlier change"
            lines.append(f"{lead}{e['committed_at'][:10]} revert {e['commit'][:7]} \"{e['summary'][:60]}\" undoes {what}")
        else:
            lines.extend(_line_entry(e, lead, cont))
    if result.get("imported_by"):
        lines.append("imported by: " + ", ".join(x["path"] for x in result["imported_by"]))
    if result.get("truncated"):
        lines.append(f"({result['truncated']} older entries left out to fit the token budget)")
    if notice and result.get("notice"):
        lines.append(f"note: {result['notice']['message']}")
    return "\n".join(lines)


def _line_entry(e: dict[str, Any], lead: str, cont: str) -> list[str]:
    """One line's answer (`log PATH:LINE`): its code, who wrote it in which message, what was
    asked, the commit, the rule, and how to open the conversation."""
    out = [f"{lead}line {e['line']}  {(e.get('content') or '').strip()}"]
    if e.get("session_id"):
        title = f" {_title(e, 60)}" if e.get("title") else ""
        tool = f" ({e['tool']})" if e.get("tool") else ""
        out.append(f"{cont}{e['attribution']}: {whose(e)}{e.get('provider') or ''} session {e['session_id'][:13]}{title}, "
                   f"message {e['message_index']}{tool}")
        if e.get("prompt"):
            out.append(f"{cont}asked \"{first_line(e['prompt'])}\"")
    elif e.get("session"):
        out.append(f"{cont}{e['attribution']}: {e['session']}")
    else:
        out.append(f"{cont}{e['attribution']}: " + ("no archived session's edit wrote this line" if e["attribution"] == "human"
                                                    else "no session can be named for this line"))
    if e.get("commit"):
        summary = f" \"{e['commit_summary'][:60]}\"" if e.get("commit_summary") else ""
        out.append(f"{cont}commit {e['commit'][:7]}{summary}")
    out.append(f"{cont}rule {e['rule']}" if e.get("rule") else f"{cont}rule -")
    if e.get("session_id") and e.get("message_index") is not None:
        out.append(f"{cont}open: hansard show {e['session_id'][:13]} --around {e['message_index']}")
    return out


def work_context_tree(result: Mapping[str, Any]) -> str:
    """work_context's tree: the session, its conversations, steps, tests and commits."""
    s = result["session"]
    own: dict[str, Any] = next((c for c in result["entries"] if c["session_id"] == s["session_id"]), {})
    chosen = SELECTED_BY.get(s["selected_by"], s["selected_by"])
    lines = [f"{whose(own)}{s['provider']} session {s['session_id']} {_title(s, 70)} ({chosen})"]
    lines.append("conversations")
    for c in result["entries"]:
        lines.append(f"  {c['relation']:13} {whose(c)}{c['session_id'][:13]} {_title(c, 50)} — {c['evidence']}")
    steps = result["steps"]
    for state in ("open", "done", "dropped"):
        items = steps.get(state, [])
        if items:
            lines.append(f"steps {state}")
            lines.extend(f"  - {short(x['text'], 90)}" for x in items)
    t = result["tests"]
    if t["failed_then_fixed"] or t["still_failing"]:
        lines.append("tests")
        lines.extend(f"  fixed   {f['test']}" for f in t["failed_then_fixed"])
        lines.extend(f"  failing {x}" for x in t["still_failing"])
    if result["commits"]:
        lines.append("commits")
        for c in result["commits"]:
            gone = "" if c["reachable"] else (" (rewritten: on no branch)" if c["in_repository"]
                                              else " (not in this repository)")
            lines.append(f"  {c['sha'][:7]} \"{c['summary'][:60]}\": {HOW.get(c['how'], c['how'])}{gone}")
    if result.get("truncated"):
        lines.append(f"({result['truncated']} conversations left out to fit the token budget)")
    return "\n".join(lines)
