"""``get_past_session``: read one conversation in windows, with a cursor.

Always true of a read:

- messages come in transcript order and keep their ``message_index``, whatever ``roles``
  leaves out;
- following ``next`` from the first page to the last returns every message the filters let
  through exactly once; a message split by the ``max_chars`` budget continues, in the next
  page, from the character where the previous page stopped;
- tool output (and other non-conversation records: tool calls, thinking, injected meta) is
  cut at ``max_message_chars`` (default 1,500). A cut message carries ``truncated``,
  ``content_chars`` (its full length), ``content_start`` and ``content_offset`` (where to go
  on). To read it all: ``around=<its index>, limit=1, content_offset=<content_offset>``;
  such a single-message read may use the whole ``max_chars`` budget;
- every message has ``timestamp_local`` (local clock, with offset) and ``source``: the
  archived file, its 1-based ``line`` (counted over the archived records) and byte ``offset``;
  a teammate's session (``hansard team``) has ``source`` null (its archive stays on their
  machine) and its ``session`` names the ``member``.

The cursor is opaque (base64 JSON); it carries the session, the position and the filters.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, cast

import orjson

from hansard.agents.origin import source_of
from hansard.answers.search import text as textmod
from hansard.answers.search.filters import clamp, parse_roles
from hansard.errors import InvalidCursor
from hansard.values.timebounds import local_time

if TYPE_CHECKING:
    from hansard.answers.results import Transcript
    from hansard.store.interfaces import Store

DEFAULT_LIMIT = 20
MAX_LIMIT = 200
DEFAULT_MESSAGE_CHARS = 1500
DEFAULT_MAX_CHARS = 24_000
MAX_MAX_CHARS = 200_000
# A page does not start a budget-cut message with less room than this: it goes to the next page.
MIN_SLICE = 200
CONVERSATION = {("user", "text"), ("assistant", "text")}


def encode_cursor(d: dict[str, Any]) -> str:
    return base64.urlsafe_b64encode(orjson.dumps(d)).decode().rstrip("=")


def decode_cursor(cursor: str) -> dict[str, Any]:
    try:
        pad = "=" * (-len(cursor) % 4)
        d = orjson.loads(base64.urlsafe_b64decode(cursor.strip() + pad))
        if not isinstance(d, dict) or d.get("v") != 1 or not isinstance(d.get("i"), int):
            raise ValueError
        return d
    except (ValueError, TypeError, orjson.JSONDecodeError, base64.binascii.Error):  # type: ignore[attr-defined]
        raise InvalidCursor("this `next` cursor is not one hansard handed out; start the read again") from None


def get_past_session(
    store: Store,
    session_id: str,
    around: int | None = None,
    roles: str | Sequence[str] | None = None,
    limit: int | None = None,
    next: str | None = None,  # contract name
    group_revisions: bool = False,
    max_message_chars: int | None = None,
    content_offset: int | None = None,
    max_chars: int | None = None,
    *,
    raw: bool = False,
    details: bool = False,
) -> Transcript:
    """One window of a session. ``details`` (`hansard show`) adds to each tool call the edits
    it made (``edits``: path, kind, status, hunks) and, for a test command, what its run said
    (``test_run``: runner, passed, failed, errors, skipped, failing, exit_code, ok)."""
    q = store.sessions
    s = q.find(session_id)
    limit = clamp(limit, DEFAULT_LIMIT, 1, MAX_LIMIT, "limit")
    max_chars = clamp(max_chars, DEFAULT_MAX_CHARS, 100, MAX_MAX_CHARS, "max_chars")
    start_offset = clamp(content_offset, 0, 0, 1 << 40, "content_offset")
    cur = decode_cursor(next) if next else None
    if cur is not None:
        if cur.get("s") != s["session_id"]:
            raise InvalidCursor("this `next` cursor belongs to another session")
        roles = cur.get("r")
        group_revisions = bool(cur.get("g"))
        max_message_chars = cur.get("m")
    role_set = parse_roles(roles)
    per_msg = clamp(max_message_chars, DEFAULT_MESSAGE_CHARS, 1, MAX_MAX_CHARS, "max_message_chars")
    hidden, revisions = _revisions(q, s["id"]) if group_revisions else (set(), {})

    # Where the read starts, and which message gets content_offset.
    offset_at: int | None = None
    if cur is not None:
        first = cur["i"]
        offset_at, start_offset = first, int(cur.get("o") or 0)
    elif around is not None:
        around = int(around)
        before = (limit - 1) // 2
        prev = [i for i in q.indexes_before(s["id"], around, role_set, before + len(hidden)) if i not in hidden][:before]
        first = prev[-1] if prev else around
        offset_at = around
    else:
        first = 0
        offset_at = 0

    single = limit == 1
    msgs: list[dict[str, Any]] = []
    used = 0
    next_cursor: dict[str, Any] | None = None
    pos = first
    done = False
    while not done:
        rows = q.messages_from(s["id"], pos, role_set, limit + 1 + len(hidden))
        if not rows:
            break
        for m in rows:
            idx = m["message_index"]
            pos = idx + 1
            if idx in hidden:
                continue
            if len(msgs) >= limit:
                next_cursor = {"i": idx, "o": 0}
                done = True
                break
            text = m["text"]
            n = len(text)
            off = min(start_offset, n) if offset_at is not None and idx >= offset_at and offset_at >= 0 else 0
            if offset_at is not None and idx >= offset_at:
                offset_at = -1  # the offset applies once
            # Tool output and other records are cut at max_message_chars; conversation
            # text (and a single-message read) only by the page budget.
            msg_capped = not single and (m["role"], m["kind"]) not in CONVERSATION
            room = max_chars - used
            rest = n - off
            if msgs and rest > room and ((msg_capped and per_msg > room) or (not msg_capped and room < min(MIN_SLICE, rest))):
                next_cursor = {"i": idx, "o": off}
                done = True
                break
            take = min(rest, per_msg if msg_capped else rest, room)
            d = _message(m, text[off:off + take])
            if take < rest or off > 0:
                d.update(truncated=take < rest, content_chars=n, content_start=off, content_offset=off + take)
            if idx in revisions:
                d["revisions"] = revisions[idx]
                d["latest_revision"] = idx
            msgs.append(d)
            used += take
            if take < rest and not (msg_capped and per_msg <= room):
                next_cursor = {"i": idx, "o": off + take}  # the budget ran out inside this message
                done = True
                break
        else:
            if len(rows) < limit + 1 + len(hidden):
                break
    _attach_calls(q, s["id"], msgs)
    if details:
        _attach_details(q, s["id"], msgs)
    _attach_lines(q, msgs)
    if raw:
        _attach_raw(q, msgs)
    for d in msgs:
        d.pop("_source_id", None)
        d.pop("_generation", None)
    out: dict[str, Any] = {"session": _session_info(q, s), "messages": msgs}
    if next_cursor is not None:
        next_cursor.update(v=1, s=s["session_id"], r=list(role_set) if role_set else None, g=bool(group_revisions),
                           m=per_msg)
        out["next"] = encode_cursor(next_cursor)
    else:
        out["next"] = None
    out["returned"] = len(msgs)
    out["chars"] = used
    out["max_chars"] = max_chars
    if role_set:
        out["roles"] = list(role_set)
    if group_revisions:
        out["group_revisions"] = True
    return cast("Transcript", out)


def _message(m: Any, text: str) -> dict[str, Any]:
    d: dict[str, Any] = {
        "message_index": m["message_index"],
        "role": m["role"],
        "kind": m["kind"],
        "text": text,
        "timestamp": m["timestamp"],
        "timestamp_local": local_time(m["timestamp"]),
    }
    if m["model"]:
        d["model"] = m["model"]
    if m["cwd"]:
        d["cwd"] = m["cwd"]
    d["source"] = {"path": m["source_path"], "offset": m["offset"]} if m["source_path"] is not None else None
    d["_source_id"] = m["source_id"]
    d["_generation"] = m["generation"]
    return d


def _session_info(q: Any, s: Any) -> dict[str, Any]:
    info = {k: s[k] for k in ("session_id", "provider", "title", "cwd", "started_at", "last_at", "parent_session_id",
                              "git_branch", "version", "resumed_from", "message_count")}
    info["started_at_local"] = local_time(s["started_at"])
    info["repo"] = q.repo_path(s["repo_id"])
    info["extra"] = orjson.loads(s["extra"]) if s["extra"] else {}
    if s["member"]:  # a teammate's session
        info["member"], info["member_name"] = s["member"], s["member_name"]
    info["source"] = source_of(s)  # where it was read: this machine, a repository, a teammate
    subagents = q.subagents(s["session_id"])
    if subagents:
        info["subagents"] = subagents
    return info


def _revisions(q: Any, sid: int) -> tuple[set[int], dict[int, list[int]]]:
    """Earlier near-copies to hide, and for each latest copy the indexes of all copies."""
    groups: dict[str, list[int]] = {}
    for r in q.message_heads(sid, textmod.REVISION_PREFIX):
        key = textmod.revision_key(r["role"], r["kind"], r["t"], r["n"])
        if key is not None:
            groups.setdefault(key, []).append(r["message_index"])
    hidden: set[int] = set()
    revisions: dict[int, list[int]] = {}
    for idxs in groups.values():
        if len(idxs) > 1:
            hidden.update(idxs[:-1])
            revisions[idxs[-1]] = idxs
    return hidden, revisions


def _attach_calls(q: Any, sid: int, msgs: list[dict[str, Any]]) -> None:
    if not msgs:
        return
    idx = {d["message_index"]: d for d in msgs}
    for c in q.tool_calls_between(sid, min(idx), max(idx)):
        if c["message_index"] in idx:
            idx[c["message_index"]].setdefault("tool_calls", []).append(
                {"call_id": c["call_id"], "name": c["name"], "status": c["status"], "exit_code": c["exit_code"]})


def _attach_details(q: Any, sid: int, msgs: list[dict[str, Any]]) -> None:
    """What each tool call changed (its edits' hunks) and, for a test command, its run's
    summary."""
    calls = [c for d in msgs for c in d.get("tool_calls", [])]
    if not calls:
        return
    import json

    from hansard.facts.shell import shell_command
    from hansard.facts.test_outcomes import parse_run

    found = q.call_details(sid, [c["call_id"] for c in calls])
    for c in calls:
        got = found.get(c["call_id"])
        if not got:
            continue
        if got["edits"]:
            c["edits"] = [{"path": e["path"], "kind": e["kind"], "status": e["status"], "move_to": e["move_to"],
                           "hunks": e["hunks"] if e["hunks"] is not None else _text_hunks(e)} for e in got["edits"]]
        try:
            inp = json.loads(got.get("input") or "{}")
        except ValueError:
            continue
        cmd = shell_command(inp) if isinstance(inp, dict) else None
        run = parse_run(cmd, got.get("output"), c["exit_code"]) if cmd else None
        if run is not None:
            c["test_run"] = {"runner": run.runner, "passed": run.passed, "failed": run.failed, "errors": run.errors,
                             "skipped": run.skipped, "failing": list(run.failing_ids), "exit_code": run.exit_code,
                             "ok": False if run.failed or run.errors or run.failing_ids else run.ok}


def _text_hunks(edit: dict[str, Any]) -> list[Any]:
    """Hunks (as in ``edits.hunks``) between an edit's whole-file texts, when only those were kept."""
    import difflib

    before, after = (edit["before_text"] or "").splitlines(), (edit["after_text"] or "").splitlines()
    if edit["after_text"] is None:
        return []
    hunks = []
    for group in difflib.SequenceMatcher(None, before, after, autojunk=False).get_grouped_opcodes(3):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        lines: list[str] = []
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                lines += [" " + ln for ln in before[a1:a2]]
                continue
            lines += ["-" + ln for ln in before[a1:a2]] + ["+" + ln for ln in after[b1:b2]]
        hunks.append([i1 + 1 if i2 > i1 else i1, i2 - i1, j1 + 1 if j2 > j1 else j1, j2 - j1, lines])
    return hunks


def _attach_lines(q: Any, msgs: list[dict[str, Any]]) -> None:
    """1-based line of each record in its archived file: records before it, plus one."""
    by_src: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for d in msgs:
        if d["source"] is not None:
            by_src.setdefault((d["_source_id"], d["_generation"]), []).append(d)
    for (src, gen), ds in by_src.items():
        ds.sort(key=lambda d: d["source"]["offset"])
        line, prev = 1, 0
        for d in ds:
            off = d["source"]["offset"]
            line += q.records_between(src, gen, prev, off)
            prev = off
            d["source"]["line"] = line


def _attach_raw(q: Any, msgs: list[dict[str, Any]]) -> None:
    for d in msgs:
        d["raw"] = q.raw_record(d["_source_id"], d["source"]["offset"]) if d["source"] else None
