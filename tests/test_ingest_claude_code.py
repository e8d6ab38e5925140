"""Claude Code provider: every sample parsed with counts checked by hand, resumability,
sniffing, bad input, and synthetic records for the format corners the samples lack."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from hansard.agents.claude_code.transcript import PROVIDER
from hansard.values.models import (
    EditItem,
    LeafTitle,
    MessageItem,
    RawRecord,
    SessionInfo,
    Skip,
    StepsItem,
    ToolCallItem,
    ToolResultItem,
)

CC = "claude-code"


def records(path: Path) -> list[RawRecord]:
    """Every non-blank line as a record, the last one too: the Entire samples end without a
    newline (reader.iter_jsonl rightly holds such a line back as possibly unfinished)."""
    data = path.read_bytes()
    out, pos = [], 0
    for line in data.split(b"\n"):
        if line.strip():
            out.append(RawRecord(str(path), pos, line))
        pos += len(line) + 1
    return out


def parse(path: Path, recs: list[RawRecord] | None = None) -> list[Any]:
    p = PROVIDER.new_parser(str(path))
    items: list[Any] = []
    for r in recs if recs is not None else records(path):
        items += p.feed(r)
    return items + p.finish()


def feed_lines(lines: list[Any], path: str = "/tmp/x/0000-session.jsonl", state: dict | None = None) -> tuple[list[Any], Any]:
    p = PROVIDER.new_parser(path, state)
    items: list[Any] = []
    off = 0
    for ln in lines:
        data = ln if isinstance(ln, bytes) else orjson.dumps(ln)
        items += p.feed(RawRecord(path, off, data))
        off += len(data) + 1
    return items, p


def of(items: list[Any], cls: type) -> list[Any]:
    return [i for i in items if isinstance(i, cls)]


def summary(items: list[Any]) -> dict[str, Any]:
    msgs = of(items, MessageItem)
    edits = of(items, EditItem)
    roles = Counter(m.role for m in msgs)
    return {
        "sessions": len({i.session_id for i in items if isinstance(i, (SessionInfo, MessageItem))}),
        "user": roles["user"], "assistant": roles["assistant"], "tool": roles["tool"], "system": roles["system"],
        "calls": len(of(items, ToolCallItem)),
        "applied": sum(e.status == "applied" for e in edits),
        "not_applied": sum(e.status in ("failed", "rejected") for e in edits),
        "steps": len(of(items, StepsItem)),
        "skips": len(of(items, Skip)),
        "leaf_titles": len(of(items, LeafTitle)),
    }


# How each count was checked: a throwaway script listed every line of the sample (type,
# content block types, tool names, is_error, toolUseResult keys) and the lines were then
# read by eye. "user" = user records with typed text or meta text (not tool results);
# "assistant" = non-empty text/thinking blocks + tool_use blocks; "tool" = tool_result
# blocks; empty thinking ("" in >= 2.1.7x) and whitespace-only text blocks give nothing.
SAMPLES = {
    # 2 lines: 1 user prompt, 1 assistant text; synthetic 2.1.x subagent with a .meta.json sidecar.
    "claude-code-log_subagent_layout/55550000-0000-4000-8000-000000000001/subagents/agent-showcol1.jsonl":
        dict(sessions=1, user=1, assistant=1, tool=0, system=0, calls=0, applied=0, not_applied=0, steps=0, skips=0,
             leaf_titles=0),
    # 61 lines: 1 prompt, 14 tool results; 25 assistant lines = 7 empty thinking + 4 text + 14 tool_use
    # (Read 2, Bash 10, Edit 2); both Edits succeed. permission-mode/last-prompt/attachment lines ignored.
    "entire_cc_2.1.119_b/full.jsonl":
        dict(sessions=1, user=1, assistant=18, tool=14, system=0, calls=14, applied=2, not_applied=0, steps=0,
             skips=0, leaf_titles=0),
    # 22 lines: 1 prompt, 2 results; 5 assistant lines = 2 empty thinking + Read + Write + 1 text.
    "entire_cc_2.1.119_permission_mode/full.jsonl":
        dict(sessions=1, user=1, assistant=3, tool=2, system=0, calls=2, applied=1, not_applied=0, steps=0,
             skips=0, leaf_titles=0),
    # 46 lines: 1 prompt, 8 results; 13 assistant lines = 1 empty thinking + 4 text + 8 tool_use (4 Edit ok).
    "entire_cc_2.1.80_custom_title/full.jsonl":
        dict(sessions=1, user=1, assistant=12, tool=8, system=0, calls=8, applied=4, not_applied=0, steps=0,
             skips=0, leaf_titles=0),
    # 54 lines: user = 2 prompts + 3 meta (Caveat isMeta, <command-name>/exit, <local-command-stdout>);
    # 32 assistant lines = 10 text + 12 thinking + 10 tool_use (3 Edit ok); system = compact_boundary
    # + the isCompactSummary record; the 2 stop_hook_summary records give nothing.
    "entire_compaction/full.jsonl":
        dict(sessions=1, user=5, assistant=32, tool=10, system=2, calls=10, applied=3, not_applied=0, steps=0,
             skips=0, leaf_titles=0),
    # 23 lines: 1 prompt, 3 results; 9 assistant lines = 4 thinking + 2 text + Glob/Read/Edit.
    "entire_edit_small/full.jsonl":
        dict(sessions=1, user=1, assistant=9, tool=3, system=0, calls=3, applied=1, not_applied=0, steps=0,
             skips=0, leaf_titles=0),
    # 40 lines: 4 Edit tool_uses, the first 2 fail ("File has not been read yet"), the last 2 apply.
    "entire_edits4/full.jsonl":
        dict(sessions=1, user=1, assistant=18, tool=10, system=0, calls=10, applied=2, not_applied=2, steps=0,
             skips=0, leaf_titles=0),
    # 51 lines: user = 3 prompts ("fix tests" x2, "fix the test...") + "Operation stopped by hook" +
    # "[Request interrupted by user for tool use]"; 20 assistant lines = 8 thinking + 5 text + 7 tool_use;
    # 3 Edits: 1 rejected ("User rejected tool use"), 2 applied.
    "entire_linked_commit/full.jsonl":
        dict(sessions=1, user=5, assistant=20, tool=7, system=0, calls=7, applied=2, not_applied=1, steps=0,
             skips=0, leaf_titles=0),
    # 60 lines: 1 prompt, 16 results; 28 assistant lines = 10 text (one is "\n\n") + 2 thinking + 16 tool_use;
    # Edit #1 rejected by the user, Edit #2 and the Write (create) applied.
    "entire_rejected_edit/full.jsonl":
        dict(sessions=1, user=1, assistant=27, tool=16, system=0, calls=16, applied=2, not_applied=1, steps=0,
             skips=0, leaf_titles=0),
    # 67 lines: 16 summary records; 3 prompts, 7 results; 24 assistant lines = 10 thinking + 7 text + 7 tool_use.
    "entire_summaries/full.jsonl":
        dict(sessions=1, user=3, assistant=24, tool=7, system=0, calls=7, applied=1, not_applied=0, steps=0,
             skips=0, leaf_titles=16),
    # 12 lines: 1 prompt, 1 Write result; assistant = "\n\n" (dropped) + thinking + Write + text.
    "entire_write_small/full.jsonl":
        dict(sessions=1, user=1, assistant=3, tool=1, system=0, calls=1, applied=1, not_applied=0, steps=0,
             skips=0, leaf_titles=0),
    # 3 lines: prompt, Bash tool_use, its result; subagent known only from the file name.
    "gitai_agent-a1b2c3d4e5f6.jsonl":
        dict(sessions=1, user=1, assistant=1, tool=1, system=0, calls=1, applied=0, not_applied=0, steps=0,
             skips=0, leaf_titles=0),
    # 10 lines: 1 summary, 1 prompt, 3 text + 3 tool_use; Write/Edit results carry no toolUseResult and
    # the last Edit has no result: no EditItem at all.
    "gitai_claude-code-with-plan.jsonl":
        dict(sessions=1, user=1, assistant=6, tool=2, system=0, calls=3, applied=0, not_applied=0, steps=0,
             skips=0, leaf_titles=1),
    # 6 lines, no sessionId/uuid anywhere (session = file stem); the Task result names agentId test-sub-1,
    # which makes a second (linked) session; the Edit result has no toolUseResult: no EditItem.
    "gitai_claude-code-with-subagents.jsonl":
        dict(sessions=2, user=1, assistant=5, tool=2, system=0, calls=2, applied=0, not_applied=0, steps=0,
             skips=0, leaf_titles=0),
    # 4 lines: prompt, text + Glob, result, text.
    "gitai_claude-code-with-subagents/subagents/agent-test-sub-1.jsonl":
        dict(sessions=1, user=1, assistant=3, tool=1, system=0, calls=1, applied=0, not_applied=0, steps=0,
             skips=0, leaf_titles=0),
    # 10 lines: summary, 2 snapshots, 1 prompt, 1 result; 5 assistant lines = 2 thinking + 2 text + Edit.
    "gitai_claude-code-with-thinking.jsonl":
        dict(sessions=1, user=1, assistant=5, tool=1, system=0, calls=1, applied=1, not_applied=0, steps=0,
             skips=0, leaf_titles=1),
    # 38 lines: 1 prompt + "[Request interrupted by user]"; 23 assistant lines = 10 text + 13 tool_use
    # (Glob 2, Read 4, Edit 2, MultiEdit 1, Grep 2, TodoWrite 2); 3 edits applied, 2 TodoWrite snapshots.
    "gitai_example-claude-code.jsonl":
        dict(sessions=1, user=2, assistant=23, tool=13, system=0, calls=13, applied=3, not_applied=0, steps=2,
             skips=0, leaf_titles=0),
}


def test_every_sample_is_listed(samples: Path) -> None:
    found = {str(p.relative_to(samples / CC)) for p in (samples / CC).rglob("*.jsonl")}
    assert found == set(SAMPLES)


@pytest.mark.parametrize("rel", sorted(SAMPLES))
def test_sample_counts(samples: Path, rel: str) -> None:
    items = parse(samples / CC / rel)
    assert summary(items) == SAMPLES[rel]
    for it in of(items, MessageItem):  # only tool output may be empty (a silent Bash)
        assert it.key and (it.text.strip() or it.kind == "tool_result")


@pytest.mark.parametrize("rel", sorted(SAMPLES))
def test_resume_from_state_at_every_boundary(samples: Path, rel: str) -> None:
    path = samples / CC / rel
    recs = records(path)
    whole = parse(path, recs)
    for k in range(len(recs) + 1):
        p1 = PROVIDER.new_parser(str(path))
        items = []
        for r in recs[:k]:
            items += p1.feed(r)
        state = json.loads(json.dumps(p1.state()))
        assert len(json.dumps(state)) < 64 * 1024
        p2 = PROVIDER.new_parser(str(path), state)
        for r in recs[k:]:
            items += p2.feed(r)
        items += p2.finish()
        assert items == whole, f"split at {k}"


# -- concrete values ----------------------------------------------------------------------


def test_rejected_edit_sample(samples: Path) -> None:
    items = parse(samples / CC / "entire_rejected_edit/full.jsonl")
    rejected, applied, write = of(items, EditItem)
    assert rejected.status == "rejected" and rejected.tool == "Edit"
    assert rejected.path == "/Users/alex/workspace/cli/.worktrees/2/cmd/entire/cli/session/phase_test.go"
    assert rejected.hunks == () and rejected.before is None and len(rejected.added) == 12
    assert rejected.cwd == "/Users/alex/workspace/cli/.worktrees/2"
    assert applied.status == "applied" and applied.path == rejected.path
    assert [h.new_start for h in applied.hunks] == [442] and len(applied.added) == 5
    assert applied.before is not None and applied.after is not None
    assert any("\t" in ln for h in applied.hunks for ln in h.lines)  # tabs restored from the file text
    assert write.kind == "create" and write.status == "applied" and write.before is None
    assert write.path.endswith("/docs/generated/.gitignore")
    assert write.after is not None and write.added == tuple(write.after.splitlines())
    assert write.hunks[0].new_start == 1 and len(write.added) == 3
    # timestamps: the tool_result record's, message_key: the tool_use line's uuid
    assert applied.timestamp == "2026-02-07T00:26:36.939Z"
    assert applied.message_key == "1d556ab6-9cfc-4b90-854f-7636a611d140"
    res = {r.call_id: r for r in of(items, ToolResultItem)}
    assert res[rejected.call_id].status == "rejected"


def test_edits4_failed_then_applied(samples: Path) -> None:
    items = parse(samples / CC / "entire_edits4/full.jsonl")
    edits = of(items, EditItem)
    assert [(e.status, e.path.rsplit("/", 1)[1]) for e in edits] == [
        ("failed", "mise.toml"), ("failed", "go.mod"), ("applied", "mise.toml"), ("applied", "go.mod")]
    assert edits[3].added == ("go 1.25.6",) and edits[3].removed == ("go 1.25.5",)
    assert edits[3].hunks[0].new_start == 1
    assert [r.status for r in of(items, ToolResultItem)].count("error") == 2


def test_cwd_changes_mid_session(samples: Path) -> None:
    items = parse(samples / CC / "entire_cc_2.1.119_b/full.jsonl")
    edits = of(items, EditItem)
    assert {e.cwd for e in edits} == {"/Users/ninawork/entire/external-agents"}
    calls = of(items, ToolCallItem)
    assert calls[-1].name == "Bash"
    assert calls[-1].cwd == "/Users/ninawork/entire/external-agents/agents/entire-agent-pi"
    infos = of(items, SessionInfo)
    assert [i.cwd for i in infos if i.cwd] == ["/Users/ninawork/entire/external-agents"]  # the first cwd only
    assert infos[-1].version == "2.1.119" and infos[-1].git_branch == "compact-transcript-pi"
    # First Edit: originalFile known, after replayed and verified, patch text restored to tabs.
    first, replace_all = edits
    assert first.hunks[0].new_start == 15 and first.after is not None
    assert first.added == ('\tcontentTypeText             = "text"',)
    # replace_all Edit without originalFile: no before/after; added lines mapped back to new_string.
    assert replace_all.before is None and replace_all.after is None
    assert [h.new_start for h in replace_all.hunks] == [334, 371]
    assert replace_all.added == ('\t\t\tif item.Type == contentTypeText && item.Text != "" {',) * 2
    bash = [r for r in of(items, ToolResultItem) if r.exit_code is not None]
    assert sorted(r.exit_code for r in bash) == [0] * 8 + [1, 1]


def test_compaction(samples: Path) -> None:
    items = parse(samples / CC / "entire_compaction/full.jsonl")
    msgs = {m.key: m for m in of(items, MessageItem)}
    boundary = msgs["2698f93f-93a5-40da-819d-287f5b38e7c1"]
    assert (boundary.role, boundary.kind) == ("system", "meta") and "auto" in boundary.text
    summ = msgs["8373cdaf-79c9-4b53-87f9-6618ecbefff1"]
    assert summ.kind == "compaction_summary" and summ.text.startswith("This session is being continued")
    kinds = Counter(m.kind for m in msgs.values() if m.role == "user")
    assert kinds == {"text": 2, "meta": 3}
    assert len({m.session_id for m in msgs.values()}) == 1


def test_summaries_become_leaf_titles(samples: Path) -> None:
    items = parse(samples / CC / "entire_summaries/full.jsonl")
    titles = of(items, LeafTitle)
    assert len(titles) == 16
    assert titles[0].title == "GoReleaser Homebrew Tap Automation Setup"
    assert titles[0].leaf_uuid.startswith("67b0f356")
    # the two system records before them already named the session
    assert {t.session_id for t in titles} == {"48f428f9-72d8-40b2-9594-953019809473"}
    assert of(items, EditItem)[0].hunks[0].new_start == 45
    assert not any(i.title for i in of(items, SessionInfo))  # no title invented from the prompt


def test_summary_before_any_session(samples: Path) -> None:
    items = parse(samples / CC / "gitai_claude-code-with-plan.jsonl")
    (title,) = of(items, LeafTitle)
    assert title.session_id is None and title.title == "Implement user authentication"
    assert of(items, EditItem) == []  # results without toolUseResult prove nothing


def test_custom_title(samples: Path) -> None:
    items = parse(samples / CC / "entire_cc_2.1.80_custom_title/full.jsonl")
    titled = [i for i in of(items, SessionInfo) if i.title]
    assert [(i.title, i.title_rank) for i in titled] == [("simplify-install-instructions", 3)]
    assert {e.path.rsplit("/", 1)[1] for e in of(items, EditItem)} == {"README.md", "INSTALL.md"}


def test_multiedit_and_todos(samples: Path) -> None:
    items = parse(samples / CC / "gitai_example-claude-code.jsonl")
    multi = next(e for e in of(items, EditItem) if e.tool == "MultiEdit")
    assert multi.before is not None and multi.before.startswith("@tailwind base;")
    assert multi.after is not None and ".stripe-green-yellow {" in multi.after
    assert [h.new_start for h in multi.hunks] == [34, 92] and len(multi.added) == 21
    steps = of(items, StepsItem)
    assert all(s.snapshot for s in steps) and [len(s.steps) for s in steps] == [6, 6]
    assert steps[0].steps[1] == {"text": "Update HistoryLog.tsx to use new player colors", "status": "in_progress"}
    last = of(items, MessageItem)[-1]
    assert (last.role, last.kind, last.text) == ("user", "meta", "[Request interrupted by user]")


def test_redaction_damaged_patch_falls_back_to_text_diff(samples: Path) -> None:
    # Entire replaced the whole "+STRIPE..." patch line by "REDACTED", marker included.
    (edit,) = of(parse(samples / CC / "entire_edit_small/full.jsonl"), EditItem)
    assert edit.added == ("REDACTED",) and edit.hunks[0].new_start == 5
    assert edit.after == edit.before + "REDACTED\n"


def test_write_update(samples: Path) -> None:
    (edit,) = of(parse(samples / CC / "entire_cc_2.1.119_permission_mode/full.jsonl"), EditItem)
    assert (edit.tool, edit.kind, edit.status) == ("Write", "update", "applied")
    assert edit.added == ("this is a test",) and len(edit.removed) == 108
    assert edit.before.startswith("# External Agents") and edit.after == "this is a test\n"


def test_linked_commit_rejection_and_meta(samples: Path) -> None:
    items = parse(samples / CC / "entire_linked_commit/full.jsonl")
    assert [e.status for e in of(items, EditItem)] == ["rejected", "applied", "applied"]
    meta = [m.text for m in of(items, MessageItem) if m.kind == "meta"]
    assert meta[0].startswith("Operation stopped by hook") and meta[1] == "[Request interrupted by user for tool use]"
    assert of(items, ToolResultItem)[0].exit_code == 1


def test_subagent_pair(samples: Path) -> None:
    main = parse(samples / CC / "gitai_claude-code-with-subagents.jsonl")
    link = [i for i in of(main, SessionInfo) if i.agent_id]
    assert [(i.session_id, i.agent_id, i.spawn_call_id) for i in link] == [("agent-test-sub-1", "test-sub-1", "toolu_01ABC")]
    assert link[0].parent_session_id == "gitai_claude-code-with-subagents"  # no sessionId: the file stem
    sub = parse(samples / CC / "gitai_claude-code-with-subagents/subagents/agent-test-sub-1.jsonl")
    first = of(sub, SessionInfo)[0]
    assert (first.session_id, first.parent_session_id, first.agent_id) == ("agent-test-sub-1", "main-session", "test-sub-1")
    assert {m.session_id for m in of(sub, MessageItem)} == {"agent-test-sub-1"}


def test_subagent_sidecar(samples: Path) -> None:
    rel = "claude-code-log_subagent_layout/55550000-0000-4000-8000-000000000001/subagents/agent-showcol1.jsonl"
    info = of(parse(samples / CC / rel), SessionInfo)[0]
    assert info.session_id == "agent-showcol1" and info.agent_id == "showcol1"
    assert info.parent_session_id == "55550000-0000-4000-8000-000000000001"
    assert info.spawn_call_id == "toolu_sc_showcol1"
    assert info.extra == {"agentType": "general-purpose", "description": "Survey the web module"}


def test_subagent_from_file_name(samples: Path) -> None:
    items = parse(samples / CC / "gitai_agent-a1b2c3d4e5f6.jsonl")
    info = of(items, SessionInfo)[0]
    assert (info.session_id, info.parent_session_id) == ("agent-a1b2c3d4e5f6", "sess-parent-abc")
    assert of(items, ToolResultItem)[0].exit_code == 0


# -- sniffing ------------------------------------------------------------------------------


def test_sniff_every_sample(samples: Path) -> None:
    for p in sorted(samples.rglob("*")):
        if not p.is_file():
            continue
        mine = p.suffix == ".jsonl" and p.relative_to(samples).parts[0] == CC
        assert PROVIDER.sniff(p, p.read_bytes()[:65536]) is mine, p


def test_sniff_huge_first_line() -> None:
    line = orjson.dumps({"parentUuid": None, "isSidechain": False, "type": "user",
                         "message": {"role": "user", "content": "x" * 200_000}, "sessionId": "s"})
    assert PROVIDER.sniff(Path("a.jsonl"), (line + b"\n")[:65536])
    assert not PROVIDER.sniff(Path("a.jsonl"), b'{"timestamp":"t","type":"session_meta","payload":{"x":"' + b"y" * 70000)
    assert not PROVIDER.sniff(Path("a.jsonl"), b"")
    assert not PROVIDER.sniff(Path("a.jsonl"), b"\x00\x01\xff" * 100)


# -- bad input -----------------------------------------------------------------------------

USER = {"type": "user", "uuid": "u-ok", "sessionId": "s1", "timestamp": "2026-01-01T00:00:00Z", "cwd": "/w",
        "message": {"role": "user", "content": "still parsed"}}


def test_bad_input_never_raises() -> None:
    bad = [
        b'{"type":"user","uuid":"u1","sessionId":"s1","message":{"role":"us',  # truncated
        b'{"type":"user","message":"\xff\xfe"}',  # invalid UTF-8
        orjson.dumps({"type": "user", "uuid": "u2", "sessionId": "s1", "message": "not an object"}),
        orjson.dumps({"type": "assistant", "uuid": "u3", "sessionId": "s1", "message": {"content": 5}}),
        orjson.dumps({"type": "assistant", "uuid": "u4", "sessionId": ["s"], "message": {"content": [5, None, {"type": 7}]}}),
        orjson.dumps({"type": "brand-new-thing", "sessionId": "s1"}),
        b"[1, 2, 3]",
        b"42",
        b"{}",
        b'{"type": 5}',
        b"[" * 5000 + b"]" * 5000,
        orjson.dumps({"type": "user", "uuid": "u5", "sessionId": "s1", "message": {"content": "y" * 5_000_000}}),
        orjson.dumps({"type": "user", "uuid": "u6", "sessionId": "s1",
                      "message": {"content": [{"type": "tool_result", "tool_use_id": 9, "content": {"a": [1]}}]},
                      "toolUseResult": [1, 2]}),
        orjson.dumps({"type": "summary", "summary": 3}),
        orjson.dumps({"type": "custom-title", "customTitle": None}),
        orjson.dumps({"type": "system", "subtype": "compact_boundary", "compactMetadata": "x", "sessionId": "s1"}),
        USER,
    ]
    items, parser = feed_lines(bad)
    skips = [s.reason for s in of(items, Skip)]
    assert skips == ["malformed_json", "invalid_utf8", "bad_field", "bad_field", "unknown_type", "not_object",
                     "not_object", "empty_object", "no_type", "malformed_json", "bad_field", "bad_field"]
    msgs = of(items, MessageItem)
    assert msgs[-1].key == "u-ok" and msgs[-1].text == "still parsed"
    assert any(m.key == "u5" and len(m.text) == 5_000_000 for m in msgs)
    assert json.dumps(parser.state())


def test_parser_bug_becomes_skip(monkeypatch: pytest.MonkeyPatch) -> None:
    p = PROVIDER.new_parser("/tmp/s.jsonl")
    monkeypatch.setattr(p, "_user", lambda *a: 1 / 0)
    out = p.feed(RawRecord("/tmp/s.jsonl", 7, orjson.dumps(USER)))
    assert out[0].reason == "parser_error" and out[0].offset == 7


def test_known_types_are_ignored_not_skipped() -> None:
    lines = [{"type": t, "sessionId": "s1"} for t in
             ("permission-mode", "last-prompt", "agent-name", "queue-operation", "file-history-snapshot", "mode")]
    lines += [{"type": "progress", "uuid": "p", "sessionId": "s1", "data": {"type": "hook_progress"}},
              {"type": "system", "subtype": "turn_duration", "uuid": "t", "sessionId": "s1", "durationMs": 5},
              {"type": "attachment", "uuid": "a", "sessionId": "s1", "attachment": {"type": "skill_listing"}}]
    items, _ = feed_lines(lines)
    assert of(items, Skip) == [] and of(items, MessageItem) == []
    assert {i.session_id for i in of(items, SessionInfo)} == {"s1"}


# -- synthetic corners the samples lack ---------------------------------------------------------


def asst(uuid: str, sid: str, *blocks: dict, **kw: Any) -> dict:
    return {"type": "assistant", "uuid": uuid, "sessionId": sid, "timestamp": "2026-01-01T00:00:01Z", "cwd": "/w",
            "message": {"id": "msg_" + uuid, "model": "m", "content": list(blocks)}, **kw}


def result(uuid: str, sid: str, call: str, content: Any, tur: Any = None, is_error: bool | None = None, **kw: Any) -> dict:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call, "content": content}
    if is_error is not None:
        block["is_error"] = is_error
    rec = {"type": "user", "uuid": uuid, "sessionId": sid, "timestamp": "2026-01-01T00:00:02Z", "cwd": "/w",
           "message": {"role": "user", "content": [block]}, **kw}
    if tur is not None:
        rec["toolUseResult"] = tur
    return rec


def tool(call: str, name: str, **inp: Any) -> dict:
    return {"type": "tool_use", "id": call, "name": name, "input": inp}


def test_resumed_session_in_one_file() -> None:
    lines = [
        {"type": "user", "uuid": "a1", "parentUuid": None, "sessionId": "old", "message": {"content": "first"}},
        asst("a2", "old", {"type": "text", "text": "hi"}, parentUuid="a1"),
        {"type": "permission-mode", "sessionId": "new"},
        {"type": "user", "uuid": "b1", "parentUuid": "a2", "sessionId": "new", "message": {"content": "again"}},
    ]
    items, _ = feed_lines(lines)
    infos = of(items, SessionInfo)
    assert [i.session_id for i in infos] == ["old", "old", "new", "new"]  # 2nd: cwd + start time of "old"
    assert infos[-1].resumed_from == "old"
    assert [(m.session_id, m.key) for m in of(items, MessageItem)] == [("old", "a1"), ("old", "a2"), ("new", "b1")]


def test_inline_sidechain_and_ai_title() -> None:
    lines = [
        {"type": "user", "uuid": "m1", "sessionId": "main", "message": {"content": "go"}},
        asst("m2", "main", tool("toolu_T", "Task", description="look", prompt="p", subagent_type="x")),
        {"type": "user", "uuid": "s1", "sessionId": "main", "isSidechain": True, "agentId": "ab12",
         "message": {"content": "p"}},
        asst("s2", "main", {"type": "text", "text": "found"}, isSidechain=True, agentId="ab12"),
        result("m3", "main", "toolu_T", "found", tur={"agentId": "ab12", "content": []}),
        {"type": "ai-title", "aiTitle": "Looking around", "sessionId": "main"},
    ]
    items, _ = feed_lines(lines)
    by_session = Counter(m.session_id for m in of(items, MessageItem))
    assert by_session == {"main": 3, "agent-ab12": 2}
    agent_infos = [i for i in of(items, SessionInfo) if i.session_id == "agent-ab12"]
    assert agent_infos[0].parent_session_id == "main" and agent_infos[-1].spawn_call_id == "toolu_T"
    assert [(i.title, i.title_rank) for i in of(items, SessionInfo) if i.title] == [("Looking around", 1)]


def test_notebook_and_task_tools() -> None:
    lines = [
        asst("a1", "s", tool("n1", "NotebookEdit", notebook_path="/w/a.ipynb", new_source="x = 1\ny = 2",
                             edit_mode="insert")),
        result("r1", "s", "n1", "Inserted cell", tur={"new_source": "x = 1\ny = 2", "edit_mode": "insert"}),
        asst("a2", "s", tool("t1", "TaskCreate", subject="Fix bug", description="d")),
        result("r2", "s", "t1", "Task #3 created successfully: Fix bug", tur={"task": {"id": "3", "subject": "Fix bug"}}),
        asst("a3", "s", tool("t2", "TaskUpdate", taskId="3", status="completed")),
        result("r3", "s", "t2", "Updated task #3 status", tur={"success": True, "taskId": "3"}),
        asst("a4", "s", tool("t3", "TaskUpdate", taskId="3", status="deleted")),
        result("r4", "s", "t3", "Updated", tur={"success": True}),
    ]
    items, _ = feed_lines(lines)
    (nb,) = of(items, EditItem)
    assert (nb.path, nb.status, nb.added, nb.tool) == ("/w/a.ipynb", "applied", ("x = 1", "y = 2"), "NotebookEdit")
    steps = of(items, StepsItem)
    assert [s.snapshot for s in steps] == [False, False, False]
    assert [s.steps[0] for s in steps] == [
        {"text": "Fix bug", "status": "pending", "id": "3"},
        {"text": "", "status": "completed", "id": "3"},
        {"text": "", "status": "cancelled", "id": "3"},
    ]


def test_edit_without_patch_and_user_modified() -> None:
    before = "a\nb\nc\n"
    lines = [
        asst("a1", "s", tool("e1", "Edit", file_path="/w/f.txt", old_string="b", new_string="B1\nB2")),
        result("r1", "s", "e1", "ok", tur={"filePath": "/w/f.txt", "oldString": "b", "newString": "B1\nB2",
                                           "originalFile": before, "structuredPatch": [], "userModified": False}),
        asst("a2", "s", tool("e2", "Edit", file_path="/w/g.txt", old_string="c", new_string="C")),
        result("r2", "s", "e2", "ok", tur={"filePath": "/w/g.txt", "oldString": "c", "newString": "C",
                                           "originalFile": before, "userModified": True,
                                           "structuredPatch": [{"oldStart": 2, "oldLines": 2, "newStart": 2,
                                                                "newLines": 2, "lines": [" b", "-c", "+D"]}]}),
        asst("a3", "s", tool("w1", "Write", file_path="/w/h.txt", content="x\n")),
        result("r3", "s", "w1", "ok", tur={"type": "update", "filePath": "/w/h.txt", "content": "x\n",
                                           "originalFile": "y\n", "structuredPatch": []}),
    ]
    items, _ = feed_lines(lines)
    e1, e2, w = of(items, EditItem)
    assert e1.after == "a\nB1\nB2\nc\n" and e1.added == ("B1", "B2") and e1.removed == ("b",)
    assert e1.hunks[0].new_start == 2
    # the user changed the text: the patch is the truth, the replayed after disagrees with it
    assert e2.user_modified and e2.added == ("D",) and e2.after is None and e2.before == before
    assert (w.kind, w.added, w.removed, w.after) == ("update", ("x",), ("y",), "x\n")


def test_edit_with_strings_alone_adds_its_own_diff() -> None:
    """A result with the strings but neither the file's text nor a patch (older versions,
    sessions rebuilt from git-ai's notes): the lines on both sides of a replacement are context,
    not written; a MultiEdit's pairs are diffed one by one."""
    held = "def test_a():\n    assert a() == 1\n"
    lines = [
        asst("a1", "s", tool("e1", "Edit", file_path="/w/t.py", old_string=held,
                             new_string=held + "\n\ndef test_b():\n    assert b() == 2\n")),
        result("r1", "s", "e1", "ok", tur={"filePath": "/w/t.py", "oldString": held, "replaceAll": False,
                                           "newString": held + "\n\ndef test_b():\n    assert b() == 2\n"}),
        asst("a2", "s", tool("e2", "MultiEdit", file_path="/w/u.py", edits=[
            {"old_string": "x = 1\ny = 2", "new_string": "x = 1\ny = 3"},
            {"old_string": "z = 0", "new_string": "z = 0\nw = 4"}])),
        result("r2", "s", "e2", "ok", tur={"filePath": "/w/u.py", "edits": [
            {"old_string": "x = 1\ny = 2", "new_string": "x = 1\ny = 3"},
            {"old_string": "z = 0", "new_string": "z = 0\nw = 4"}]}),
    ]
    items, _ = feed_lines(lines)
    e1, e2 = of(items, EditItem)
    assert e1.added == ("", "", "def test_b():", "    assert b() == 2") and e1.removed == ()
    assert all(h.new_start is None for h in e1.hunks)  # relative to the strings: no line numbers
    assert (e2.added, e2.removed) == (("y = 3", "w = 4"), ("y = 2",))


def test_edit_whose_text_is_not_kept_is_unreadable() -> None:
    """An applied edit whose record keeps no text (the input cut to the path, a result with the
    path alone) is an edit of that file all the same, of kind unreadable, and a counted skip."""
    lines = [
        asst("a1", "s", tool("e1", "Edit", file_path="/w/f.txt")),
        result("r1", "s", "e1", "The file /w/f.txt has been updated successfully.", tur={"filePath": "/w/f.txt"}),
        asst("a2", "s", tool("e2", "Write", file_path="/w/g.txt")),
        result("r2", "s", "e2", "ok", tur={"filePath": "/w/g.txt", "type": "update"}),
    ]
    items, _ = feed_lines(lines)
    edits = of(items, EditItem)
    assert [(e.path, e.kind, e.status, e.added, e.removed) for e in edits] == [
        ("/w/f.txt", "unreadable", "applied", (), ()), ("/w/g.txt", "unreadable", "applied", (), ())]
    assert [s.reason for s in of(items, Skip)] == ["unreadable_edit", "unreadable_edit"]


def test_orphan_result_and_interrupted_tool() -> None:
    tur = {"filePath": "/w/f.txt", "oldString": "b", "newString": "c", "originalFile": "b\n",
           "structuredPatch": [{"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1, "lines": ["-b", "+c"]}]}
    lines = [
        result("r1", "s", "gone", "ok", tur=tur, sourceToolAssistantUUID="a0"),
        asst("a2", "s", tool("e2", "Edit", file_path="/w/g.txt", old_string="x", new_string="y")),
        {"type": "user", "uuid": "u3", "sessionId": "s", "message": {"content": "[Request interrupted by user]"}},
        asst("a4", "s", tool("e4", "Write", file_path="/w/n.txt", content="n")),
        result("r4", "s", "e4", "[Request interrupted by user for tool use]", is_error=True),
    ]
    items, parser = feed_lines(lines)
    orphan, interrupted = of(items, EditItem)
    assert (orphan.tool, orphan.status, orphan.message_key, orphan.added) == ("Edit", "applied", "a0", ("c",))
    assert (interrupted.path, interrupted.status) == ("/w/n.txt", "rejected")
    assert [r.status for r in of(items, ToolResultItem)] == ["ok", "interrupted"]
    assert list(parser.state()["pending"]) == ["e2"]  # the Edit with no result stays pending, no EditItem


def test_queued_command_attachment_and_meta_tags() -> None:
    lines = [
        {"type": "attachment", "uuid": "q1", "sessionId": "s",
         "attachment": {"type": "queued_command", "prompt": "also fix the README"}},
        {"type": "user", "uuid": "u1", "sessionId": "s", "message": {"content": "<bash-input>ls</bash-input>"}},
        {"type": "user", "uuid": "u2", "sessionId": "s", "origin": {"kind": "task-notification"},
         "message": {"content": "<task-notification>done</task-notification>"}},
        {"type": "user", "uuid": "u3", "sessionId": "s", "message": {"content": "<div>html I pasted</div>"}},
        {"type": "user", "uuid": "u4", "sessionId": "s",
         "message": {"content": [{"type": "text", "text": "look"}, {"type": "image", "source": {"data": "AAAA"}}]}},
        # turnOrigin alone (2.1.2xx): another session's message and a harness notice are not the
        # person's; a prompt sent through the SDK or a scheduled one is
        {"type": "user", "uuid": "u5", "sessionId": "s", "turnOrigin": "peer", "promptSource": "system",
         "message": {"content": "Another Claude session sent a message:\nthe build is green"}},
        {"type": "user", "uuid": "u6", "sessionId": "s", "turnOrigin": "system",
         "message": {"content": "[Cross-session idle notice] nothing to do"}},
        {"type": "user", "uuid": "u7", "sessionId": "s", "turnOrigin": "sdk", "message": {"content": "fix the flaky test"}},
        {"type": "user", "uuid": "u8", "sessionId": "s", "turnOrigin": "scheduled",
         "message": {"content": "run the nightly check"}},
    ]
    items, _ = feed_lines(lines)
    assert [(m.key, m.kind) for m in of(items, MessageItem)] == [
        ("q1", "text"), ("u1", "meta"), ("u2", "meta"), ("u3", "text"), ("u4", "text"), ("u5", "meta"), ("u6", "meta"),
        ("u7", "text"), ("u8", "text")]
    assert of(items, MessageItem)[4].text == "look\n[image]"


def test_several_blocks_in_one_record_get_suffixed_keys() -> None:
    lines = [asst("a1", "s", {"type": "thinking", "thinking": "hmm"}, {"type": "text", "text": "ok"},
                  tool("c1", "Bash", command="ls"), tool("c2", "Read", file_path="/w/x"))]
    items, _ = feed_lines(lines)
    assert [(m.key, m.kind, m.text) for m in of(items, MessageItem)] == [
        ("a1", "thinking", "hmm"), ("a1#1", "text", "ok"), ("a1#2", "tool_use", "ls"), ("a1#3", "tool_use", "Read /w/x")]
    assert [(c.call_id, c.message_key) for c in of(items, ToolCallItem)] == [("c1", "a1#2"), ("c2", "a1#3")]


def test_records_without_uuid_get_byte_hash_keys() -> None:
    line = orjson.dumps({"type": "user", "sessionId": "s", "message": {"content": "hello"}})
    a, _ = feed_lines([line])
    b, _ = feed_lines([b"", line], path="/elsewhere/other.jsonl")
    ka = of(a, MessageItem)[0].key
    assert ka.startswith("h:") and ka == of(b, MessageItem)[0].key


def test_sidecar_written_after_the_transcript(tmp_path: Path) -> None:
    path = tmp_path / "agent-late1.jsonl"
    line = orjson.dumps({"type": "user", "uuid": "x1", "sessionId": "parent", "isSidechain": True,
                         "agentId": "late1", "message": {"content": "go"}})
    path.write_bytes(line + b"\n")
    p1 = PROVIDER.new_parser(str(path))
    first = p1.feed(RawRecord(str(path), 0, line)) + p1.finish()
    assert of(first, SessionInfo)[0].spawn_call_id is None
    (tmp_path / "agent-late1.meta.json").write_text('{"agentType":"Explore","toolUseId":"toolu_L"}')
    p2 = PROVIDER.new_parser(str(path), json.loads(json.dumps(p1.state())))
    later = p2.finish()
    assert [(i.session_id, i.spawn_call_id, i.extra) for i in later] == [("agent-late1", "toolu_L", {"agentType": "Explore"})]
    assert p2.finish() == []


def test_a_shell_commands_reported_file_changes_are_its_edits() -> None:
    """2.1.288: a Bash result's toolUseResult.bashEditDiff lists the files the command changed,
    with hunks (the shape of a real python-heredoc edit of two Swift files)."""
    diff = {"files": [
        {"filePath": "/Users/m1/marvin/App.swift", "hunks": [{"oldStart": 1041, "oldLines": 3, "newStart": 1041,
                                                              "newLines": 3, "lines": [" a", "-let dirt = 1", "+let dirt = 2"]}]},
        {"filePath": "/Users/m1/marvin/DirtWorld.swift", "hunks": [{"oldStart": 220, "oldLines": 1, "newStart": 220,
                                                                    "newLines": 2, "lines": [" x", "+y"]}]},
        {"filePath": "/Users/m1/marvin/empty.txt", "hunks": []}, "junk"],
        "moreFiles": 0, "changedFiles": ["/Users/m1/marvin/App.swift", "/Users/m1/marvin/DirtWorld.swift"]}
    out = {"stdout": "", "stderr": "", "interrupted": False, "isImage": False, "noOutputExpected": True}
    items, _ = feed_lines([
        asst("a1", "s", tool("toolu_01GWocQtLP4mg8VEnuCZh82o", "Bash", command="python3 - <<'EOF'\n...\nEOF")),
        result("r1", "s", "toolu_01GWocQtLP4mg8VEnuCZh82o", "(No output)", {**out, "bashEditDiff": diff}),
        asst("a2", "s", tool("toolu_02", "Bash", command="ls")),
        result("r2", "s", "toolu_02", "a.txt", out),
    ])
    edits = of(items, EditItem)
    assert [(e.call_id, e.tool, e.path, e.status, e.kind, e.seq) for e in edits] == [
        ("toolu_01GWocQtLP4mg8VEnuCZh82o", "Bash", "/Users/m1/marvin/App.swift", "applied", "update", 0),
        ("toolu_01GWocQtLP4mg8VEnuCZh82o", "Bash", "/Users/m1/marvin/DirtWorld.swift", "applied", "update", 1)]
    assert edits[0].added == ("let dirt = 2",) and edits[0].removed == ("let dirt = 1",)
    assert edits[0].hunks[0].new_start == 1041 and edits[0].message_key == "a1"
    assert not of(items, Skip)


def test_two_records_glued_on_one_line_are_both_read() -> None:
    """A copy of a transcript (Entire's, of entireio/cli: 7 such lines) can hold two records on
    one line, ``…}{"type":"summary"…``: each is read, at the offset of its own first byte."""
    sid = "3f2a1b0c-9d8e-4f7a-8b6c-5d4e3f2a1b0c"
    user = {"type": "user", "sessionId": sid, "uuid": "u1", "parentUuid": None, "timestamp": "2026-01-05T10:00:00.000Z",
            "cwd": "/tmp/x", "message": {"role": "user", "content": "add a retry"}}
    reply = {"type": "assistant", "sessionId": sid, "uuid": "a1", "parentUuid": "u1",
             "timestamp": "2026-01-05T10:00:05.000Z", "cwd": "/tmp/x",
             "message": {"id": "msg_1", "role": "assistant", "content": [{"type": "text", "text": "Done."}]}}
    summ = {"type": "summary", "summary": "Retry for uploads", "leafUuid": "a1"}
    glued = orjson.dumps(reply) + orjson.dumps(summ)
    items, _ = feed_lines([user, glued])
    assert not [s for s in of(items, Skip) if s.reason == "malformed_json"]
    assert [m.text for m in of(items, MessageItem)] == ["add a retry", "Done."]
    assert [t.title for t in of(items, LeafTitle)] == ["Retry for uploads"]
    # not JSON objects all the way: still one malformed line, never a crash
    bad, _ = feed_lines([orjson.dumps(reply) + b'{"type": "summ'])
    assert [s.reason for s in of(bad, Skip)] == ["malformed_json"]
