"""The Codex rollout provider (hansard.agents.codex.rollout)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from hansard.agents.codex.rollout import PROVIDER
from hansard.ingest.reader import iter_jsonl
from hansard.values.models import (
    EditItem,
    Item,
    MessageItem,
    RawRecord,
    SessionInfo,
    Skip,
    StepsItem,
    ToolCallItem,
    ToolResultItem,
)

SID = "019dbcc1-3812-72e1-9caa-f97edd88215b"


def parse_file(path: Path) -> list[Item]:
    parser = PROVIDER.new_parser(str(path))
    items: list[Item] = []
    for rec in iter_jsonl(str(path)):
        items += parser.feed(rec)
    return items + parser.finish()


def feed_all(objs: list[Any], state: dict[str, Any] | None = None) -> tuple[list[Item], dict[str, Any]]:
    parser = PROVIDER.new_parser("mem.jsonl", state)
    items: list[Item] = []
    offset = 0
    for o in objs:
        data = o if isinstance(o, bytes) else orjson.dumps(o)
        items += parser.feed(RawRecord("mem.jsonl", offset, data))
        offset += len(data) + 1
    return items, parser.state()


def of(items: list[Item], cls: type) -> list[Any]:
    return [i for i in items if isinstance(i, cls)]


def summary(items: list[Item]) -> dict[str, Any]:
    msgs = of(items, MessageItem)
    edits = of(items, EditItem)
    return {
        "sessions": len({i.session_id for i in items if not isinstance(i, Skip)}),
        "roles": dict(Counter(m.role for m in msgs)),
        "kinds": dict(Counter(m.kind for m in msgs)),
        "tool_calls": len(of(items, ToolCallItem)),
        "results": len(of(items, ToolResultItem)),
        "applied": sum(e.status == "applied" for e in edits),
        "not_applied": sum(e.status != "applied" for e in edits),
        "steps": len(of(items, StepsItem)),
        "skips": len(of(items, Skip)),
    }


# ---- the real samples ---------------------------------------------------------------------------
# Counts were checked with a throwaway script that tallies payload types per file
# (response_item message roles, function_call/custom_tool_call names, *_output records,
# event_msg user_message/agent_message, patch_apply_end changes, update_plan calls), then
# by eye against the lines themselves.

EXPECTED = {
    "entire_codex_0.121/full.jsonl": {
        "sessions": 1,
        # user: 18 prompts (= 18 event user_message) + AGENTS.md/<environment_context> + <turn_aborted> (meta);
        # assistant: 76 output_text messages (each also an agent_message event, deduped) + 163 tool_use;
        # system: 1 developer message; tool: 163 outputs (144 function + 19 custom).
        "roles": {"user": 20, "assistant": 239, "system": 1, "tool": 163},
        "kinds": {"text": 94, "meta": 3, "tool_use": 163, "tool_result": 163},
        "tool_calls": 163,  # 124 exec_command + 15 write_stdin + 5 update_plan + 19 apply_patch
        "results": 163,
        "applied": 30,  # 17 patch_apply_end events, 30 files in their `changes`
        "not_applied": 8,  # 2 failed apply_patch calls without patch_apply_end: 2 + 6 files named
        "steps": 5,  # update_plan calls
        "skips": 0,
    },
    "entire_codex_0.123_a/full.jsonl": {
        "sessions": 1,
        "roles": {"user": 2, "assistant": 71, "system": 1, "tool": 61},  # 1 prompt + 1 AGENTS.md; 10 text + 61 calls
        "kinds": {"text": 11, "meta": 2, "tool_use": 61, "tool_result": 61},
        "tool_calls": 61,  # 55 exec_command + 2 write_stdin + 2 update_plan + 2 apply_patch
        "results": 61,
        "applied": 9,  # patch_apply_end changes: 8 + 1
        "not_applied": 0,
        "steps": 2,
        "skips": 0,
    },
    "entire_codex_0.123_b/full.jsonl": {
        "sessions": 1,
        "roles": {"user": 3, "assistant": 100, "system": 1, "tool": 83},  # a's prefix + "fix the linter errors"
        "kinds": {"text": 19, "meta": 2, "tool_use": 83, "tool_result": 83},
        "tool_calls": 83,  # 75 exec_command + 3 write_stdin + 2 update_plan + 3 apply_patch
        "results": 83,
        "applied": 10,  # 8 + 1 + 1
        "not_applied": 0,
        "steps": 2,
        "skips": 0,
    },
    "entire_codex_0.125/full.jsonl": {
        "sessions": 1,
        "roles": {"user": 2, "assistant": 72, "system": 1, "tool": 64},
        "kinds": {"text": 9, "meta": 2, "tool_use": 64, "tool_result": 64},
        "tool_calls": 64,  # 58 exec_command + 2 MCP (_fetch_pr, _fetch_pr_patch) + 4 apply_patch
        "results": 64,
        "applied": 13,  # 10 + 1 + 1 + 1
        "not_applied": 0,
        "steps": 0,
        "skips": 0,
    },
    # git-ai's synthetic fixtures: apply_patch as a JSON function tool with {"patch": …} and no
    # output record, so nothing proves the edit happened: the call stays pending, no EditItem.
    "gitai_codex-session-simple.jsonl": {
        "sessions": 1, "roles": {"user": 1, "assistant": 2}, "kinds": {"text": 2, "tool_use": 1},
        "tool_calls": 1, "results": 0, "applied": 0, "not_applied": 0, "steps": 0, "skips": 0,
    },
    "gitai_codex-session-updated.jsonl": {
        "sessions": 1, "roles": {"user": 1, "assistant": 3}, "kinds": {"text": 2, "tool_use": 2},
        "tool_calls": 2, "results": 0, "applied": 0, "not_applied": 0, "steps": 0, "skips": 0,
    },
}


def _sample_files(samples: Path) -> list[Path]:
    return sorted(p for p in (samples / "codex").rglob("*.jsonl"))


def test_every_sample_is_covered(samples: Path) -> None:
    assert {str(p.relative_to(samples / "codex")) for p in _sample_files(samples)} == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_sample_counts(samples: Path, name: str) -> None:
    assert summary(parse_file(samples / "codex" / name)) == EXPECTED[name]


def test_sample_0123a_fields(samples: Path) -> None:
    items = parse_file(samples / "codex/entire_codex_0.123_a/full.jsonl")
    info = items[0]
    assert isinstance(info, SessionInfo)
    assert info.session_id == SID and info.version == "0.123.0"
    assert info.started_at == "2026-04-23T23:51:12.663Z"
    assert info.cwd == "/Users/ninawork/entire/external-agents/agents/entire-agent-kiro"
    assert info.git_branch == "add-support-compact-transcripts"
    assert info.git_commit == "f187947a4e16545dec8321a6c5dec998124d0fbd"
    assert info.git_remote == "https://github.com/entireio/external-agents.git"
    assert info.extra == {"originator": "codex-tui", "model_provider": "openai", "source": "cli"}
    titles = [i.title for i in of(items, SessionInfo) if i.title]
    assert titles == ["Following the guidelines in https://github.com/entireio/cli/blob/main/docs/architecture/external-ag…"]

    prompt = next(m for m in of(items, MessageItem) if m.role == "user" and m.kind == "text")
    assert prompt.text.startswith("Following the guidelines") and prompt.timestamp == "2026-04-23T23:51:47.058Z"

    edits = [e for e in of(items, EditItem) if e.call_id == "call_mGuQOkjxI4g2ALJbMfRS9U4C"]
    assert [e.seq for e in edits] == list(range(8))
    first = edits[0]  # ordered like the patch, not like the event's map
    assert first.path.endswith("/internal/protocol/types.go") and first.kind == "update"
    assert [(h.new_start, h.new_lines) for h in first.hunks] == [(11, 3), (79, 13)]
    assert first.added[0] == "\tCompactTranscript      bool `json:\"compact_transcript\"`"
    assert first.cwd == "/Users/ninawork/entire/external-agents/agents/entire-agent-kiro"
    assert first.message_key == "call_mGuQOkjxI4g2ALJbMfRS9U4C" and first.tool == "apply_patch"
    created = [e for e in edits if e.kind == "create"]
    assert [e.path.rsplit("/", 1)[1] for e in created] == ["compact.go", "compact_test.go"]
    assert created[0].after is not None and created[0].after.startswith("package kiro")
    assert created[0].hunks[0].new_start == 1 and len(created[0].added) == created[0].hunks[0].new_lines

    plan = of(items, StepsItem)[0]
    assert plan.snapshot and len(plan.steps) == 5 and plan.timestamp == "2026-04-23T23:53:23.526Z"
    assert [s["status"] for s in plan.steps[:3]] == ["completed", "in_progress", "pending"]
    assert plan.steps[1]["text"] == "Add protocol surface for compact-transcript and advertise capability"

    calls = {c.call_id: c for c in of(items, ToolCallItem)}
    assert calls["call_espuDCCARl4JV304lBQZMKq2"].input["cmd"] == "pwd"
    results = {r.call_id: r for r in of(items, ToolResultItem)}
    assert results["call_CygtM88IyUIhcBJtp4fn9Wa8"].exit_code == 2
    assert results["call_CygtM88IyUIhcBJtp4fn9Wa8"].status == "error"
    assert results["call_kfXI5rAH7apJABYLNTrom8IZ"].exit_code is None  # "Process running with session ID"


def test_sample_0121_failed_patches(samples: Path) -> None:
    items = parse_file(samples / "codex/entire_codex_0.121/full.jsonl")
    failed = [e for e in of(items, EditItem) if e.status == "failed"]
    # Codex rejected this patch as invalid: no patch_apply_end; files from the headers.
    bad = [e for e in failed if e.call_id == "call_ziNEzzoQ93bip0LxIAcjzbJx"]
    assert [e.path.rsplit("/", 1)[1] for e in bad] == ["run-agent-task.sh", "ci.yml"]
    assert all(e.added == () and e.hunks == () for e in bad)
    # "Failed to find expected lines": parsed patch, lines kept, no line numbers.
    miss = [e for e in failed if e.call_id == "call_X5RlP3k0wvq31tLUqsuVtH2J"]
    assert len(miss) == 6 and miss[-1].kind == "create" and miss[0].path.endswith("/mise.toml")
    assert "tmux = \"latest\"" in miss[0].added and all(h.new_start is None for h in miss[0].hunks)
    results = {r.call_id: r for r in of(items, ToolResultItem)}
    assert results["call_ziNEzzoQ93bip0LxIAcjzbJx"].status == "error"
    meta = [m.text for m in of(items, MessageItem) if m.kind == "meta" and m.role == "user"]
    assert len(meta) == 2 and meta[1].startswith("<turn_aborted>")


def test_continued_copy_has_the_same_keys(samples: Path) -> None:
    """entire_codex_0.123_b continues 0.123_a: the shared prefix yields identical keys."""
    a = parse_file(samples / "codex/entire_codex_0.123_a/full.jsonl")
    b = parse_file(samples / "codex/entire_codex_0.123_b/full.jsonl")
    keys_a = {m.key for m in of(a, MessageItem)}
    keys_b = {m.key for m in of(b, MessageItem)}
    assert keys_a < keys_b and len(keys_a) == 135 and len(keys_b) == 187
    assert len(keys_a) == len(of(a, MessageItem))  # no key emitted twice within a file
    edits_a = {(e.call_id, e.seq): e for e in of(a, EditItem)}
    edits_b = {(e.call_id, e.seq): e for e in of(b, EditItem)}
    assert set(edits_a) < set(edits_b)
    assert all(edits_a[k] == edits_b[k] for k in edits_a)
    assert {c.call_id for c in of(a, ToolCallItem)} < {c.call_id for c in of(b, ToolCallItem)}


# ---- resume from state ----------------------------------------------------------------------------


def _roundtrip(state: dict[str, Any]) -> dict[str, Any]:
    return orjson.loads(orjson.dumps(state))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_resume_at_every_boundary(samples: Path, name: str) -> None:
    """At every record boundary, a parser rebuilt from the JSON-roundtripped state emits the
    same items for the next record and ends in the same state; by induction, feeding 0..k,
    saving, then k+1..n gives the same items as one pass."""
    path = str(samples / "codex" / name)
    parser = PROVIDER.new_parser(path)
    for rec in iter_jsonl(path):
        resumed = PROVIDER.new_parser(path, _roundtrip(parser.state()))
        assert resumed.feed(rec) == parser.feed(rec)
        assert resumed.state() == parser.state()
    assert len(orjson.dumps(parser.state())) < 4096  # small: no history kept


@pytest.mark.parametrize("name", ["entire_codex_0.121/full.jsonl", "entire_codex_0.123_b/full.jsonl"])
def test_resume_split_runs(samples: Path, name: str) -> None:
    path = str(samples / "codex" / name)
    records = list(iter_jsonl(path))
    whole = parse_file(Path(path))
    for k in (1, 5, 218, 219, 220, 261, 262, 345, 536, len(records) - 1):
        k = min(k, len(records) - 1)
        first = PROVIDER.new_parser(path)
        items = [i for r in records[:k] for i in first.feed(r)]
        second = PROVIDER.new_parser(path, _roundtrip(first.state()))
        items += [i for r in records[k:] for i in second.feed(r)]
        assert items == whole, k


# ---- sniffing ---------------------------------------------------------------------------------------


def test_sniff(samples: Path) -> None:
    mine = set(_sample_files(samples))
    for path in sorted(p for p in samples.rglob("*") if p.is_file()):
        head = path.read_bytes()[: 64 * 1024]
        assert PROVIDER.sniff(path, head) == (path in mine), path


def test_sniff_huge_first_line_and_legacy() -> None:
    meta = {"timestamp": "2026-01-01T00:00:00Z", "type": "session_meta",
            "payload": {"id": SID, "base_instructions": {"text": "x" * 100_000}}}
    head = orjson.dumps(meta)[: 64 * 1024]  # the first line does not fit in the head
    assert PROVIDER.sniff(Path("x"), head)
    legacy = orjson.dumps({"id": SID, "timestamp": "2025-06-01T10:00:00.000Z", "instructions": None}) + b"\n" + \
        orjson.dumps({"record_type": "state"}) + b"\n"
    assert PROVIDER.sniff(Path("x"), legacy)
    assert not PROVIDER.sniff(Path("x"), b'{"sessionId":"a","messages":[]}\n')
    assert not PROVIDER.sniff(Path("x"), b"")


# ---- synthetic records --------------------------------------------------------------------------------

TS = "2026-05-01T10:00:00.000Z"
PATCH = "*** Begin Patch\n*** Update File: src/a.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch\n"


def w(kind: str, payload: dict[str, Any], ts: str = TS) -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def meta(sid: str = SID, **extra: Any) -> dict[str, Any]:
    return w("session_meta", {"id": sid, "timestamp": TS, "cwd": "/repo", "originator": "codex_cli_rs",
                              "cli_version": "0.130.0", "base_instructions": {"text": "You are Codex" * 1000}, **extra})


def turn(cwd: str = "/repo", model: str = "gpt-5.5") -> dict[str, Any]:
    return w("turn_context", {"turn_id": "t1", "cwd": cwd, "model": model, "user_instructions": "AGENTS"})


def ri(payload: dict[str, Any]) -> dict[str, Any]:
    return w("response_item", payload)


def ev(payload: dict[str, Any]) -> dict[str, Any]:
    return w("event_msg", payload)


def fcall(name: str, args: Any, call_id: str) -> dict[str, Any]:
    return ri({"type": "function_call", "name": name, "arguments": args if isinstance(args, str) else
               orjson.dumps(args).decode(), "call_id": call_id})


def fout(call_id: str, output: Any, custom: bool = False) -> dict[str, Any]:
    return ri({"type": "custom_tool_call_output" if custom else "function_call_output", "call_id": call_id,
               "output": output})


SUCCESS = orjson.dumps({"output": "Success. Updated the following files:\nM src/a.py\n",
                        "metadata": {"exit_code": 0, "duration_seconds": 0.1}}).decode()
PAE = ev({"type": "patch_apply_end", "call_id": "c1", "success": True, "stdout": "Success.", "stderr": "",
          "changes": {"/repo/src/a.py": {"type": "update", "move_path": None,
                                         "unified_diff": "@@ -7,3 +7,3 @@\n def f():\n-    return 1\n+    return 2\n"}}})


def test_session_meta_identity_and_subagent() -> None:
    sub = {"subagent": {"thread_spawn": {"parent_thread_id": "parent-1", "depth": 1, "agent_nickname": "Ada",
                                          "spawn_call_id": "call_spawn"}}}
    items, state = feed_all([meta(source=sub, model_provider="openai"), meta(sid="other-thread"),
                             meta(), turn("/repo/sub")])
    first, fork = of(items, SessionInfo)
    assert first.session_id == SID and first.parent_session_id == "parent-1"
    assert first.spawn_call_id == "call_spawn" and first.agent_id == "Ada" and first.version == "0.130.0"
    assert first.extra == {"originator": "codex_cli_rs", "model_provider": "openai", "source": "subagent",
                           "subagent": {"depth": 1, "agent_nickname": "Ada"}}
    assert "You are Codex" not in orjson.dumps(items, default=repr).decode()
    # a later session_meta is a fact about this session, not a new identity
    assert fork == SessionInfo(SID, "codex", resumed_from="other-thread")
    assert state["sid"] == SID and state["cwd"] == "/repo/sub"


def test_messages_dedupe_and_meta() -> None:
    objs = [
        meta(), turn(),
        ri({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "<permissions instructions>x"}]}),
        ri({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>"},
            {"type": "input_text", "text": "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"}]}),
        ri({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "yes"}]}),
        ev({"type": "user_message", "message": "yes", "images": []}),
        ev({"type": "agent_message", "message": "Working on it."}),
        ri({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Working on it."}]}),
        ri({"type": "reasoning", "summary": [], "content": None, "encrypted_content": "xyz"}),
        ri({"type": "reasoning", "summary": [{"type": "summary_text", "text": "**Planning** the change"}]}),
        turn(),
        ri({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "yes"}]}),
        ev({"type": "user_message", "message": "yes"}),
        ev({"type": "agent_message", "message": "Only in the event stream."}),
        w("compacted", {"message": "Summary of the work so far", "replacement_history": []}),
        ev({"type": "error", "message": "stream disconnected"}),
    ]
    items, _ = feed_all(objs)
    msgs = [(m.role, m.kind, m.text) for m in of(items, MessageItem)]
    assert msgs == [
        ("system", "meta", "<permissions instructions>x"),
        ("user", "meta", "# AGENTS.md instructions for /repo\n\n<INSTRUCTIONS>\nbe nice\n</INSTRUCTIONS>\n\n"
                         "<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>"),
        ("user", "text", "yes"),
        ("assistant", "text", "Working on it."),
        ("assistant", "thinking", "**Planning** the change"),
        ("user", "text", "yes"),  # the same words in a later turn are a new message
        ("assistant", "text", "Only in the event stream."),
        ("user", "compaction_summary", "Summary of the work so far"),
        ("system", "error", "stream disconnected"),
    ]
    model = {m.text: m.model for m in of(items, MessageItem)}
    assert model["Working on it."] == "gpt-5.5" and model["yes"] is None
    # the kept copy is whichever came first: the response_item for the prompt, the event for the reply
    keys = [m.key for m in of(items, MessageItem) if m.text in ("yes", "Working on it.")]
    assert keys[0] == feed_key(objs[4]) and keys[1] == feed_key(objs[6])
    # resuming between the two copies still yields one message
    for cut in range(2, len(objs)):
        head, state = feed_all(objs[:cut])
        tail, _ = feed_all(objs[cut:], _roundtrip(state))
        assert head + tail == items


def feed_key(obj: dict[str, Any]) -> str:
    from hansard.agents.base import record_key
    return record_key(RawRecord("x", 0, orjson.dumps(obj)))


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (ri({"type": "custom_tool_call", "status": "completed", "call_id": "c1", "name": "apply_patch",
             "input": PATCH}), "custom"),
        (fcall("apply_patch", {"input": PATCH}, "c1"), "json input"),
        (fcall("apply_patch", {"patch": PATCH}, "c1"), "json patch (git-ai)"),
        (fcall("shell", {"command": ["apply_patch", PATCH], "workdir": "/repo"}, "c1"), "shell argv"),
        (fcall("shell", {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{PATCH}EOF\n"]}, "c1"), "shell heredoc"),
        (fcall("exec_command", {"cmd": f"apply_patch <<\"PATCH\"\n{PATCH}PATCH", "workdir": "/repo"}, "c1"),
         "exec heredoc"),
        (fcall("shell_command", {"command": f"apply_patch <<EOF\n{PATCH}EOF"}, "c1"), "shell_command heredoc"),
        (ri({"type": "local_shell_call", "call_id": "c1", "status": "completed",
             "action": {"type": "exec", "command": ["apply_patch", PATCH], "working_directory": "/repo"}}),
         "local_shell"),
    ],
)
def test_apply_patch_shapes_decided_by_output(call: dict[str, Any], name: str) -> None:
    items, state = feed_all([meta(), turn(), call, fout("c1", SUCCESS)])
    (msg,) = [m for m in of(items, MessageItem) if m.kind == "tool_use"]
    assert msg.text == "apply_patch: Update src/a.py", name
    (edit,) = of(items, EditItem)
    assert (edit.path, edit.cwd, edit.kind, edit.status, edit.seq) == ("src/a.py", "/repo", "update", "applied", 0)
    assert edit.added == ("    return 2",) and edit.removed == ("    return 1",)
    assert edit.hunks[0].new_start is None and edit.message_key == "c1"
    (result,) = of(items, ToolResultItem)
    assert result.status == "ok" and result.exit_code == 0
    assert state["pending"] == {} and state["done"] == ["c1"]
    # a patch_apply_end arriving after the output has decided is ignored (one EditItem per file)
    late, _ = feed_all([PAE], state)
    assert late == []


def test_patch_apply_end_first_decides() -> None:
    call = ri({"type": "custom_tool_call", "call_id": "c1", "name": "apply_patch", "input": PATCH})
    items, state = feed_all([meta(), turn(), call, PAE, fout("c1", SUCCESS, custom=True)])
    (edit,) = of(items, EditItem)
    assert edit.path == "/repo/src/a.py" and edit.status == "applied"
    assert [(h.new_start, h.new_lines) for h in edit.hunks] == [(7, 3)]
    assert state["pending"] == {}
    # a repeated event does not add a second edit
    again, _ = feed_all([call, PAE, PAE, fout("c1", SUCCESS, custom=True)], {**state, "done": []})
    assert len(of(again, EditItem)) == 1


def test_patch_apply_end_failure_move_delete_and_unknown_call() -> None:
    pae = ev({"type": "patch_apply_end", "call_id": "c9", "success": False, "changes": {
        "/r/old.py": {"type": "update", "unified_diff": "@@ -1 +1 @@\n-a\n+b\n", "move_path": "/r/new.py"},
        "/r/gone.txt": {"type": "delete", "content": "x\ny\n"},
        "/r/bad": "not an object"}})
    items, state = feed_all([meta(), pae])
    edits = of(items, EditItem)
    assert [(e.path, e.kind, e.status, e.move_to) for e in edits] == [
        ("/r/old.py", "move", "failed", "/r/new.py"), ("/r/gone.txt", "delete", "failed", None)]
    assert edits[1].removed == ("x", "y") and edits[1].before == "x\ny\n"
    assert edits[0].message_key is None  # the call itself was never seen
    assert [s.reason for s in of(items, Skip)] == ["bad_field"]
    assert state["done"] == ["c9"]


def test_failed_patch_and_unparseable_success() -> None:
    bad_patch = "*** Begin Patch\n*** Update File: /r/a.sh\n@@\n*** Update File: /r/b.yml\n@@\n-x\n*** End Patch"
    items, _ = feed_all([
        meta(),
        ri({"type": "custom_tool_call", "call_id": "f1", "name": "apply_patch", "input": PATCH}),
        fout("f1", "apply_patch verification failed: Failed to find expected lines in src/a.py", custom=True),
        ri({"type": "custom_tool_call", "call_id": "f2", "name": "apply_patch", "input": bad_patch}),
        fout("f2", "apply_patch verification failed: invalid hunk at line 4", custom=True),
        ri({"type": "custom_tool_call", "call_id": "f3", "name": "apply_patch", "input": bad_patch}),
        fout("f3", "Success. Updated the following files:\nM /r/a.sh\n", custom=True),
        fcall("shell", {"command": ["apply_patch", PATCH]}, "f4"),
        fout("f4", orjson.dumps({"output": "error: hunk failed", "metadata": {"exit_code": 1}}).decode()),
    ])
    got = [(e.call_id, e.path, e.status, e.added) for e in of(items, EditItem)]
    assert got == [
        ("f1", "src/a.py", "failed", ("    return 2",)),
        ("f2", "/r/a.sh", "failed", ()), ("f2", "/r/b.yml", "failed", ()),
        ("f3", "/r/a.sh", "applied", ()), ("f3", "/r/b.yml", "applied", ()),
        ("f4", "src/a.py", "failed", ("    return 2",)),
    ]
    assert [s.reason for s in of(items, Skip)] == ["bad_patch"]  # Codex applied what we cannot parse
    statuses = {r.call_id: (r.status, r.exit_code) for r in of(items, ToolResultItem)}
    assert statuses == {"f1": ("error", None), "f2": ("error", None), "f3": ("ok", None), "f4": ("error", 1)}


def test_turn_aborted_interrupts_pending_calls() -> None:
    items, state = feed_all([
        meta(),
        fcall("exec_command", {"cmd": "sleep 100"}, "x1"),
        ri({"type": "custom_tool_call", "call_id": "x2", "name": "apply_patch", "input": PATCH}),
        ev({"type": "turn_aborted", "turn_id": "t", "reason": "interrupted"}),
        fout("x1", "aborted by user"),
    ])
    results = of(items, ToolResultItem)
    assert [(r.call_id, r.status) for r in results] == [("x1", "interrupted"), ("x2", "interrupted"), ("x1", "ok")]
    (edit,) = of(items, EditItem)
    assert edit.status == "failed" and edit.call_id == "x2"
    assert state["pending"] == {} and set(state["closed"]) == {"x1", "x2"}


def test_cwd_tool_names_plan_and_outputs() -> None:
    items, _ = feed_all([
        meta(), turn("/repo"),
        fcall("exec_command", {"cmd": "ls", "workdir": "sub"}, "e1"),
        fout("e1", "Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 3\nOriginal token count: 1\nOutput:\nno\n"),
        fcall("shell", {"command": ["bash", "-lc", "cd /x && pwd"], "workdir": "/abs"}, "e2"),
        fout("e2", orjson.dumps({"output": "/x\n", "metadata": {"exit_code": 0}}).decode()),
        fcall("update_plan", {"explanation": "go", "plan": [{"step": "A", "status": "completed"},
                                                              {"step": "B", "status": "weird"}, "junk"]}, "p1"),
        fout("p1", "Plan updated"),
        ri({"type": "function_call", "name": "_fetch_pr", "namespace": "mcp__github", "arguments": "{\"n\":1}",
            "call_id": "m1"}),
        fcall("spawn_agent", {"message": "review this"}, "s1"),
        fcall("write_stdin", "not json {", "w1"),
        fout("w1", [{"type": "input_text", "text": "partial"}, {"type": "input_image", "image_url": "data:"}]),
    ])
    calls = {c.call_id: c for c in of(items, ToolCallItem)}
    assert calls["e1"].cwd == "/repo/sub" and calls["e2"].cwd == "/abs"
    assert calls["m1"].name == "mcp__github_fetch_pr" and calls["s1"].name == "spawn_agent"
    assert calls["w1"].input == {"raw": "not json {"}
    texts = {m.key: m.text for m in of(items, MessageItem)}
    assert texts["e1"] == "ls" and texts["e2"] == "cd /x && pwd"
    assert texts["p1"] == "update_plan: [completed] A; [pending] B"
    assert texts["e2#result"] == "/x\n" and texts["w1#result"] == "partial\n[image]"
    results = {r.call_id: (r.status, r.exit_code) for r in of(items, ToolResultItem)}
    assert results == {"e1": ("error", 3), "e2": ("ok", 0), "p1": ("ok", None), "w1": ("ok", None)}
    (steps,) = of(items, StepsItem)
    assert steps.steps == ({"text": "A", "status": "completed"}, {"text": "B", "status": "pending"})


def test_legacy_format() -> None:
    objs = [
        {"id": SID, "timestamp": "2025-06-01T10:00:00.000Z", "instructions": "long instructions",
         "git": {"commit_hash": "abc123", "branch": "main", "repository_url": "git@github.com:o/r.git"}},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<environment_context>\n  <cwd>/legacy/repo</cwd>\n</environment_context>"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the bug"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "thinking hard"}]},
        {"type": "function_call", "id": "fc_1", "name": "shell", "call_id": "call_1",
         "arguments": orjson.dumps({"command": ["apply_patch", PATCH], "workdir": "/legacy/repo"}).decode()},
        {"record_type": "state"},
        {"type": "function_call_output", "call_id": "call_1",
         "output": orjson.dumps({"output": "Done!", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}).decode()},
        {"type": "local_shell_call", "id": "lsc_1", "call_id": "call_2", "status": "completed",
         "action": {"type": "exec", "command": ["bash", "-lc", "pytest"]}},
        {"type": "function_call_output", "call_id": "call_2",
         "output": "{\"output\":\"1 failed\",\"metadata\":{\"exit_code\":1}}"},
        {"type": "message", "id": "msg_9", "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]},
    ]
    items, state = feed_all(objs)
    info = of(items, SessionInfo)[0]
    assert (info.session_id, info.started_at, info.git_commit, info.git_branch, info.git_remote) == (
        SID, "2025-06-01T10:00:00.000Z", "abc123", "main", "git@github.com:o/r.git")
    assert state["fmt"] == "legacy" and state["cwd"] == "/legacy/repo"
    msgs = [(m.key, m.role, m.kind, m.timestamp) for m in of(items, MessageItem) if m.kind in ("thinking", "text")]
    assert msgs[1:] == [("rs_1", "assistant", "thinking", None), ("msg_9", "assistant", "text", None)]
    (edit,) = of(items, EditItem)
    assert (edit.status, edit.cwd, edit.path) == ("applied", "/legacy/repo", "src/a.py")
    assert {r.call_id: r.status for r in of(items, ToolResultItem)} == {"call_1": "ok", "call_2": "error"}
    assert of(items, ToolCallItem)[1].name == "local_shell"
    assert of(items, Skip) == []


def test_output_arriving_later_decides_a_pending_call(samples: Path) -> None:
    """The git-ai fixture's apply_patch has no output yet; the file may grow: once the
    output is appended, the edit is decided."""
    path = samples / "codex/gitai_codex-session-simple.jsonl"
    parser = PROVIDER.new_parser(str(path))
    for rec in iter_jsonl(str(path)):
        parser.feed(rec)
    state = _roundtrip(parser.state())
    assert list(state["pending"]) == ["call_abc123"] and state["pending"]["call_abc123"]["ap"] == 1
    items, _ = feed_all([fout("call_abc123", "Success. Updated the following files:\nM src/main.rs\n")], state)
    (edit,) = of(items, EditItem)
    assert (edit.path, edit.status, edit.cwd) == ("src/main.rs", "applied", "/Users/test/projects/git-ai")
    assert edit.added == ('fn greet() { println!("hello"); }', "fn main() { greet(); }")


# ---- bad input ---------------------------------------------------------------------------------------


def test_bad_input_never_crashes() -> None:
    good = ri({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "still parsed"}]})
    objs: list[Any] = [
        b'{"timestamp":"x","type":"session_meta","payload":{"id":"' + SID.encode(),  # truncated before meta
        meta(),
        b'{"timestamp":"x","type":"response_item","payload":{"type":"mess',  # truncated
        b'{"type":"event_msg","payload":{"type":"user_message","message":"\xff\xfe"}}',  # invalid UTF-8
        b"[1, 2, 3]",
        b"42",
        b"{}",
        b"   ",
        w("response_item", []),  # payload of the wrong type
        ri({"type": "message", "role": 7, "content": "x"}),
        ri({"type": "message", "role": "user", "content": 12}),
        ri({"type": "function_call", "name": "exec_command", "arguments": 5, "call_id": "n1"}),
        ri({"type": "function_call", "name": None, "arguments": "{}", "call_id": "n2"}),
        ri({"type": "function_call_output", "call_id": None, "output": "x"}),
        ri({"type": "custom_tool_call", "call_id": "n3", "name": "apply_patch", "input": {"not": "a string"}}),
        ev({"type": "patch_apply_end", "call_id": "n4", "changes": "nope"}),
        ev({"type": 3}),
        w("turn_context", {"cwd": 5, "model": ["x"]}),
        w("brand_new_item", {"x": 1}),
        ri({"type": "brand_new_response", "x": 1}),
        w("world_state", {"x": 1}),
        ri({"type": "ghost_snapshot", "ghost_commit": {}}),
        ri({"type": "web_search_call", "status": "completed", "action": {}}),
        ev({"type": "token_count", "info": None}),
        ev({"type": "brand_new_event"}),
        ri({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "y" * 5_000_000}]}),
        good,
    ]
    items, state = feed_all(objs)
    reasons = [s.reason for s in of(items, Skip)]
    assert reasons == [
        "malformed_json", "malformed_json", "invalid_utf8", "not_object", "not_object", "unknown_type",
        "blank_line", "bad_field", "bad_field", "bad_field", "bad_field", "bad_field", "bad_field",
        "unknown_type", "unknown_type",
    ]
    texts = [m.text for m in of(items, MessageItem)]
    assert texts[-1] == "still parsed" and len(texts[-2]) == 5_000_000
    assert of(items, SessionInfo)[0].session_id == SID
    assert state["cwd"] == "/repo"
    assert len(orjson.dumps(state)) < 4096


def test_records_before_session_meta_are_skipped() -> None:
    items, state = feed_all([ri({"type": "message", "role": "user", "content": "early"}), meta(),
                             ri({"type": "message", "role": "user", "content": "late"})])
    assert isinstance(items[0], Skip) and items[0].reason == "no_session_id"
    assert [m.text for m in of(items, MessageItem)] == ["late"]


def test_parser_error_is_a_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    import hansard.agents.codex.rollout as codex

    def boom(*a: Any, **k: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(codex, "_content_texts", boom)
    items, state = feed_all([meta(), ri({"type": "message", "role": "user", "content": "x"}),
                             fcall("exec_command", {"cmd": "ls"}, "k1")])
    assert [s.reason for s in of(items, Skip)] == ["parser_error"]
    assert len(of(items, ToolCallItem)) == 1 and state["sid"] == SID


def test_injected_context_detection() -> None:
    items, _ = feed_all([
        meta(),
        ri({"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<b>bold?</b>"}]}),
        ri({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<user_instructions>\nbe brief\n</user_instructions>"},
            {"type": "input_text", "text": "rename foo to bar"}, {"type": "input_image", "image_url": "data:"}]}),
        ri({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "<some_new_block>\nstate\n</some_new_block>"}]}),
    ])
    got = [(m.kind, m.text) for m in of(items, MessageItem)]
    assert got == [("text", "<b>bold?</b>"), ("text", "rename foo to bar\n\n[image]"),
                   ("meta", "<some_new_block>\nstate\n</some_new_block>")]


def test_a_message_between_agents_is_kept_as_meta() -> None:
    """Codex 0.160 writes the task a parent hands its subagent as a response_item of type
    agent_message, its payload encrypted: the plain header stays readable, never the person's ask."""
    task = ri({"type": "agent_message", "author": "/root", "recipient": "/root/audio_review", "content": [
        {"type": "input_text", "text": "Message Type: NEW_TASK\nTask name: /root/audio_review\nSender: /root\nPayload:\n"},
        {"type": "encrypted_content", "encrypted_content": "gAAAAB..."}]})
    items, _ = feed_all([meta(), turn(), task, ri({"type": "agent_message", "content": [
        {"type": "encrypted_content", "encrypted_content": "gAAAAB..."}]})])
    (msg,) = of(items, MessageItem)
    assert (msg.role, msg.kind) == ("user", "meta")
    assert msg.text.startswith("[/root -> /root/audio_review]\nMessage Type: NEW_TASK") and "gAAAAB" not in msg.text
    assert not of(items, Skip)
