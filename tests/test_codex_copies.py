"""Codex rollouts that hold a copy of another thread's history (hansard.agents.codex.rollout).

The rollouts here are built the way openai/codex writes them (see the module docstring of
``hansard.agents.codex.rollout`` for the source files):

* paginated rollouts number every line (``"ordinal"``, from 0, after ``"timestamp"``);
* a forked subagent's rollout starts with its own ``session_meta`` (``source.subagent.thread_spawn``,
  ``forked_from_id`` = ``parent_thread_id`` = the parent), then the parent's history as
  ``keep_forked_rollout_item`` keeps it (the parent's ``session_meta``, turn contexts, user and
  developer messages, final answers, every ``event_msg`` — ``patch_apply_end`` included — but no
  tool call or output), and its own history from ``subagent_history_start_ordinal`` on;
* a paginated fork by reference holds no copy: ``history_base`` names where the source ends
  and the fork's own lines are numbered from ``end_ordinal_exclusive``.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import orjson

from hansard.agents.codex.rollout import PROVIDER
from hansard.values.models import EditItem, Item, MessageItem, RawRecord, SessionInfo, Skip

PARENT = "019e0000-0000-7000-8000-00000000000a"
CHILD = "019e0000-0000-7000-8000-00000000000b"
FORK = "019e0000-0000-7000-8000-00000000000c"
TS = "2026-09-01T10:00:00.000Z"
PARENT_PROMPT = "make f return 2 in src/a.py"
CHILD_TASK = "now make g return 3 in src/b.py"

PARENT_PATCH = "*** Begin Patch\n*** Update File: /repo/src/a.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n"
CHILD_PATCH = "*** Begin Patch\n*** Update File: /repo/src/b.py\n@@ def g():\n-    return 1\n+    return 3\n*** End Patch\n"
SUCCESS = orjson.dumps({"output": "Success. Updated the following files:\nM /repo/src/a.py\n",
                        "metadata": {"exit_code": 0, "duration_seconds": 0.1}}).decode()


def line(kind: str, payload: dict[str, Any], ordinal: int | None, **top: Any) -> dict[str, Any]:
    """One RolloutLine as codex-rs/history serializes it: timestamp, ordinal (paginated only), type, payload."""
    out: dict[str, Any] = {"timestamp": TS}
    if ordinal is not None:
        out["ordinal"] = ordinal
    out.update({"type": kind, "payload": payload, **top})
    return out


def meta_payload(sid: str, **extra: Any) -> dict[str, Any]:
    return {"id": sid, "session_id": PARENT, "timestamp": TS, "cwd": "/repo", "originator": "codex-tui",
            "cli_version": "0.170.0", "source": "cli", "thread_source": "user", "model_provider": "openai",
            "history_mode": "paginated", "base_instructions": {"text": "You are Codex" * 500}, **extra}


def user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}


def final(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "assistant", "phase": "final_answer",
            "content": [{"type": "output_text", "text": text}]}


def patch_call(call_id: str, patch: str) -> dict[str, Any]:
    return {"type": "custom_tool_call", "status": "completed", "call_id": call_id, "name": "apply_patch",
            "input": patch}


def patch_end(call_id: str, path: str, new: str) -> dict[str, Any]:
    return {"type": "patch_apply_end", "call_id": call_id, "turn_id": "t", "stdout": "Success.", "stderr": "",
            "success": True, "changes": {path: {"type": "update", "move_path": None,
                                               "unified_diff": f"@@ -1,2 +1,2 @@\n def x():\n-    return 1\n+    {new}\n"}}}


def turn_context() -> dict[str, Any]:
    return {"turn_id": "t", "cwd": "/repo", "model": "gpt-5.5", "approval_policy": "on-request"}


def parent_items() -> list[tuple[str, dict[str, Any]]]:
    """The parent's history, in order (without its session_meta)."""
    return [
        ("turn_context", turn_context()),
        ("event_msg", {"type": "user_message", "message": PARENT_PROMPT}),
        ("response_item", user(PARENT_PROMPT)),
        ("response_item", patch_call("call_parent_patch", PARENT_PATCH)),
        ("event_msg", patch_end("call_parent_patch", "/repo/src/a.py", "return 2")),
        ("response_item", {"type": "custom_tool_call_output", "call_id": "call_parent_patch", "output": SUCCESS}),
        ("event_msg", {"type": "agent_message", "message": "f now returns 2"}),
        ("response_item", final("f now returns 2")),
        ("response_item", {"type": "function_call", "name": "spawn_agent", "call_id": "call_spawn",
                           "arguments": orjson.dumps({"task_name": "child", "fork_turns": "all",
                                                      "message": CHILD_TASK}).decode()}),
        ("response_item", {"type": "function_call_output", "call_id": "call_spawn", "output": "{\"agent\":\"/root/child\"}"}),
    ]


def kept_by_fork(kind: str, payload: dict[str, Any]) -> bool:
    """codex-rs/core/src/agent/control/spawn.rs ``keep_forked_rollout_item`` (full history)."""
    if kind == "response_item":
        if payload.get("type") != "message":
            return False
        return payload.get("role") in ("system", "developer", "user") or payload.get("phase") == "final_answer"
    return True


def parent_rollout(ordinals: bool = True) -> list[dict[str, Any]]:
    items = [("session_meta", meta_payload(PARENT))] + parent_items()
    return [line(k, p, i if ordinals else None) for i, (k, p) in enumerate(items)]


def child_rollout(ordinals: bool = True) -> list[dict[str, Any]]:
    copied = [("session_meta", meta_payload(PARENT))] + [(k, p) for k, p in parent_items() if kept_by_fork(k, p)]
    start = 1 + len(copied)
    spawn = {"subagent": {"thread_spawn": {"parent_thread_id": PARENT, "depth": 1, "agent_path": "/root/child",
                                           "agent_nickname": None, "agent_role": None}}}
    own_meta = meta_payload(CHILD, source=spawn, thread_source="subagent", parent_thread_id=PARENT,
                            forked_from_id=PARENT, **({"subagent_history_start_ordinal": start} if ordinals else {}))
    if not ordinals:
        own_meta["history_mode"] = "legacy"
    own = [
        ("turn_context", turn_context()),
        ("event_msg", {"type": "user_message", "message": CHILD_TASK}),
        ("response_item", user(CHILD_TASK)),
        ("response_item", patch_call("call_child_patch", CHILD_PATCH)),
        ("event_msg", patch_end("call_child_patch", "/repo/src/b.py", "return 3")),
        ("response_item", {"type": "custom_tool_call_output", "call_id": "call_child_patch", "output": SUCCESS}),
        ("response_item", final("g now returns 3")),
    ]
    items = [("session_meta", own_meta)] + copied + own
    return [line(k, p, i if ordinals else None) for i, (k, p) in enumerate(items)]


def feed(objs: list[dict[str, Any]], split: int | None = None) -> list[Item]:
    parser = PROVIDER.new_parser("mem.jsonl")
    out: list[Item] = []
    offset = 0
    for n, o in enumerate(objs):
        if split is not None and n == split:
            parser = PROVIDER.new_parser("mem.jsonl", orjson.loads(orjson.dumps(parser.state())))
        data = orjson.dumps(o)
        out += parser.feed(RawRecord("mem.jsonl", offset, data))
        offset += len(data) + 1
    return out


def of(items: list[Item], cls: type) -> list[Any]:
    return [i for i in items if isinstance(i, cls)]


# ---- the parser ---------------------------------------------------------------------------------


def test_copied_parent_history_is_skipped_by_ordinal() -> None:
    child = child_rollout()
    items = feed(child)
    start = child[0]["payload"]["subagent_history_start_ordinal"]
    skips = of(items, Skip)
    assert [s.reason for s in skips] == ["copied_history"] * (start - 1)  # every line below it but the owner's meta
    assert [e.call_id for e in of(items, EditItem)] == ["call_child_patch"]
    texts = " ".join(m.text for m in of(items, MessageItem))
    assert CHILD_TASK in texts and PARENT_PROMPT not in texts and "f now returns 2" not in texts
    assert {i.session_id for i in items if not isinstance(i, Skip)} == {CHILD}
    first = of(items, SessionInfo)[0]
    assert first.parent_session_id == PARENT and first.resumed_from == PARENT
    assert first.extra["thread_source"] == "subagent" and first.extra["history_mode"] == "paginated"
    assert first.extra["subagent_history_start_ordinal"] == start
    # the copied parent session_meta names no second parent: it is a skip
    assert [s.resumed_from for s in of(items, SessionInfo) if s.resumed_from] == [PARENT]


def test_boundary_survives_a_resumed_parser() -> None:
    child = child_rollout()
    whole = feed(child)
    for split in range(1, len(child)):
        assert feed(child, split) == whole, split


def test_parent_rollout_is_unchanged_by_ordinals() -> None:
    with_ordinals, without = feed(parent_rollout()), feed(parent_rollout(ordinals=False))
    assert not of(with_ordinals, Skip)
    # keys hashed from a line (no payload id) differ, since the line now holds its ordinal
    def strip(items: list[Item]) -> list[Any]:
        return [(m.role, m.kind, m.text) if isinstance(m, MessageItem) else m
                for m in items if not isinstance(m, SessionInfo)]

    assert strip(with_ordinals) == strip(without)
    assert [e.call_id for e in of(with_ordinals, EditItem)] == ["call_parent_patch"]


def test_unnumbered_copy_drops_the_parents_patch_event() -> None:
    """Legacy (unnumbered) subagent forks have no boundary: the copied messages stay (nothing
    says where the copy ends), but a copied patch_apply_end, whose call the copy never holds,
    is not this thread's edit."""
    items = feed(child_rollout(ordinals=False))
    assert [e.call_id for e in of(items, EditItem)] == ["call_child_patch"]
    assert [s.reason for s in of(items, Skip)] == ["copied_history"]
    assert of(items, SessionInfo)[1].resumed_from == PARENT  # the copied session_meta, as before


def test_fork_by_reference_holds_no_copy() -> None:
    """history_base: the fork's own lines are numbered from end_ordinal_exclusive; none is skipped."""
    n = 11
    meta = meta_payload(FORK, forked_from_id=PARENT, forked_from_ordinal_exclusive=n,
                        history_base={"thread_id": PARENT, "end_ordinal_exclusive": n, "end_byte_offset": 4096})
    objs = [line("session_meta", meta, n), line("turn_context", turn_context(), n + 1),
            line("response_item", user("fork prompt"), n + 2),
            line("response_item", patch_call("call_fork", CHILD_PATCH), n + 3),
            line("event_msg", patch_end("call_fork", "/repo/src/b.py", "return 3"), n + 4)]
    items = feed(objs)
    assert not of(items, Skip)
    assert [e.call_id for e in of(items, EditItem)] == ["call_fork"]
    info = of(items, SessionInfo)[0]
    assert info.resumed_from == PARENT and info.parent_session_id is None
    assert info.extra["history_base"] == {"thread_id": PARENT, "end_ordinal_exclusive": n}
    assert info.extra["forked_from_ordinal_exclusive"] == n


def test_inherited_message_marker_and_new_item_types() -> None:
    objs = [line("session_meta", meta_payload(CHILD), 0),
            line("response_item", user(PARENT_PROMPT), 1, metadata={"inherited_user_message": True}),
            line("response_item", user(CHILD_TASK), 2, metadata={"client_authored": False}),
            *[line(t, {"x": 1}, 3 + i) for i, t in enumerate((
                "world_state", "inter_agent_communication", "inter_agent_communication_metadata",
                "token_usage_record", "retained_context", "security_risk_score", "realtime_item"))]]
    items = feed(objs)
    assert [(s.reason, s.offset > 0) for s in of(items, Skip)] == [("copied_history", True)]
    assert [m.text for m in of(items, MessageItem)] == [CHILD_TASK]


def test_sniff_numbered_rollout_with_huge_first_line() -> None:
    head = orjson.dumps(line("session_meta", meta_payload(CHILD), 0))[:4096]
    assert head.startswith(b'{"timestamp":"2026-09-01T10:00:00.000Z","ordinal":0,"type":"session_meta"')
    assert PROVIDER.sniff(Path("x"), head)


# ---- the store: the copied edit belongs to the parent only --------------------------------------------


def _write(path: Path, objs: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(o) + b"\n" for o in objs))


def _index_and_read(codex_home: Path) -> dict[str, Any]:
    from hansard.ingest.run import index
    from hansard.store import open_store

    store = open_store()
    try:
        index(store)
        db = store.path
    finally:
        store.close()
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        edits = con.execute("SELECT s.session_id, e.call_id FROM edits e JOIN sessions s ON s.id = e.session_id "
                            "ORDER BY e.call_id").fetchall()
        sessions = {r[0]: r[1:] for r in con.execute(
            "SELECT session_id, parent_session_id, resumed_from FROM sessions")}
        texts = {}
        for sid, text in con.execute("SELECT s.session_id, m.text FROM messages m JOIN sessions s "
                                     "ON s.id = m.session_id"):
            texts.setdefault(sid, []).append(text)
    finally:
        con.close()
    return {"edits": edits, "sessions": sessions, "texts": texts}


def test_store_attributes_the_copied_edit_to_the_parent_only(_isolated_env: Path) -> None:
    import os

    home = Path(os.environ["CODEX_HOME"])
    day = home / "sessions" / "2026" / "09" / "01"
    _write(day / f"rollout-2026-09-01T10-00-00-{PARENT}.jsonl", parent_rollout())
    _write(day / f"rollout-2026-09-01T10-05-00-{CHILD}.jsonl", child_rollout())
    got = _index_and_read(home)
    assert got["edits"] == [(CHILD, "call_child_patch"), (PARENT, "call_parent_patch")]
    assert got["sessions"][CHILD] == (PARENT, PARENT)
    child_texts = " ".join(got["texts"][CHILD])
    assert CHILD_TASK in child_texts and PARENT_PROMPT not in child_texts
    assert PARENT_PROMPT in " ".join(got["texts"][PARENT])


def test_store_unnumbered_child_keeps_the_edit_with_the_parent(_isolated_env: Path) -> None:
    import os

    home = Path(os.environ["CODEX_HOME"])
    day = home / "sessions" / "2026" / "09" / "01"
    _write(day / f"rollout-2026-09-01T10-00-00-{PARENT}.jsonl", parent_rollout(ordinals=False))
    _write(day / f"rollout-2026-09-01T10-05-00-{CHILD}.jsonl", child_rollout(ordinals=False))
    got = _index_and_read(home)
    assert got["edits"] == [(CHILD, "call_child_patch"), (PARENT, "call_parent_patch")]
