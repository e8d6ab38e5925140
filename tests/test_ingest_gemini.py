"""Gemini CLI provider: both on-disk shapes, checked against the real samples and synthetic logs.

Counts on the real samples were verified by reading each file by hand (a throwaway script
listed every message, its thoughts and its toolCalls; the numbers below were then checked
against that listing by eye).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from hansard.agents.gemini import chats as gemini
from hansard.agents.gemini.chats import PROVIDER, PROVIDER_JSON
from hansard.ingest.reader import iter_jsonl, read_whole
from hansard.values.models import (
    EditItem,
    MessageItem,
    RawRecord,
    Rewind,
    SessionInfo,
    Skip,
    StepsItem,
    ToolCallItem,
    ToolResultItem,
)

GEMINI_JSON = ["entire_gemini_small/full.jsonl", "entire_gemini_write_file/full.jsonl", "gitai_gemini-session-simple.json"]
GEMINI_JSONL = ["gitai_gemini-session-simple.jsonl"]


# ---- helpers ------------------------------------------------------------------------------


def head_of(path: Path) -> bytes:
    with open(path, "rb") as fh:
        return fh.read(65536)


def parse_json(path: Path) -> list[Any]:
    parser = PROVIDER_JSON.new_parser(str(path))
    return parser.feed(read_whole(str(path))) + parser.finish()


def parse_jsonl(path: Path) -> list[Any]:
    parser = PROVIDER.new_parser(str(path))
    items: list[Any] = []
    for rec in iter_jsonl(str(path)):
        items += parser.feed(rec)
    return items + parser.finish()


def write_jsonl(path: Path, lines: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        for line in lines:
            fh.write(line if isinstance(line, bytes) else orjson.dumps(line))
            fh.write(b"\n")
    return path


def summary(items: list[Any]) -> Counter[str]:
    c: Counter[str] = Counter()
    for it in items:
        if isinstance(it, MessageItem):
            c[f"msg:{it.role}"] += 1
            c[f"kind:{it.kind}"] += 1
        elif isinstance(it, ToolCallItem):
            c["calls"] += 1
        elif isinstance(it, ToolResultItem):
            c[f"result:{it.status}"] += 1
        elif isinstance(it, EditItem):
            c["edits_applied" if it.status == "applied" else "edits_not_applied"] += 1
        elif isinstance(it, StepsItem):
            c["steps"] += 1
        elif isinstance(it, Skip):
            c["skips"] += 1
        elif isinstance(it, Rewind):
            c["rewinds"] += 1
    c["sessions"] = len({it.session_id for it in items if isinstance(it, SessionInfo)})
    return c


def of(items: list[Any], cls: type) -> list[Any]:
    return [it for it in items if isinstance(it, cls)]


def assert_resumes(path: Path, splits: list[int] | None = None) -> None:
    """Feeding 0..k, saving state (through JSON), then k+1..n to a fresh parser gives the
    same items as one parser fed 0..n."""
    records = list(iter_jsonl(str(path)))
    whole = parse_jsonl(path)
    for k in splits if splits is not None else range(len(records) + 1):
        first = PROVIDER.new_parser(str(path))
        items: list[Any] = []
        for rec in records[:k]:
            items += first.feed(rec)
        state = json.loads(json.dumps(first.state()))
        second = PROVIDER.new_parser(str(path), state)
        for rec in records[k:]:
            items += second.feed(rec)
        items += second.finish()
        assert items == whole, f"split at record {k}"


# ---- real samples: legacy single JSON documents -------------------------------------------


def test_entire_gemini_small(samples: Path) -> None:
    items = parse_json(samples / "gemini-cli/entire_gemini_small/full.jsonl")
    c = summary(items)
    assert c["sessions"] == 1  # one top-level sessionId
    assert c["msg:user"] == 1  # one "type":"user" message
    # 5 non-empty gemini contents + 5 non-empty thoughts lists + 4 toolCalls (write_file, 3 shell)
    # (5b9afa41 has content "" and thoughts [] and yields only its tool call)
    assert c["kind:text"] == 1 + 5
    assert c["kind:thinking"] == 5
    assert c["kind:tool_use"] == 4
    assert c["msg:assistant"] == 5 + 5 + 4
    assert c["msg:tool"] == 4  # every call has status success and a functionResponse
    assert c["msg:system"] == 1 and c["kind:meta"] == 1  # the "update available" info message
    assert c["calls"] == 4
    assert c["result:ok"] == 4
    assert c["edits_applied"] == 1  # write_file docs/blue.md, status success
    assert c["edits_not_applied"] == 0
    assert c["steps"] == 0 and c["skips"] == 0
    (edit,) = of(items, EditItem)
    assert edit.path == "docs/blue.md"  # relative, kept as written
    assert edit.kind == "create"  # "Successfully created and wrote to new file: …"
    assert edit.cwd is None  # no "directories" in the document
    assert edit.added[0] == "# Blue" and len(edit.added) == 3
    assert edit.after is not None and edit.after.startswith("# Blue\n")
    info = of(items, SessionInfo)[0]
    assert info.session_id == "f7633853-6663-4dbb-bbf4-6159afa29df8"
    assert info.started_at == "2026-01-15T20:51:48.582Z"
    assert info.extra["projectHash"].startswith("7e8989f7")
    exits = [r.exit_code for r in of(items, ToolResultItem)]
    assert exits == [None, 0, 0, 0]  # write_file, then three shell outputs with "Exit Code: 0"


def test_entire_gemini_write_file(samples: Path) -> None:
    items = parse_json(samples / "gemini-cli/entire_gemini_write_file/full.jsonl")
    c = summary(items)
    assert c["sessions"] == 1
    assert c["msg:user"] == 1
    # the small sample's 7 messages + 6 more gemini messages, each with content and thoughts;
    # 5 more toolCalls: read_file, shell echo >>, read_file, git status, git add.
    assert c["kind:text"] == 1 + 10
    assert c["kind:thinking"] == 10
    assert c["kind:tool_use"] == 9
    assert c["calls"] == 9
    assert c["result:ok"] == 9
    assert c["msg:tool"] == 9
    # only write_file is an edit tool; the `echo … >> docs/color.md` shell edit is invisible
    assert c["edits_applied"] == 1 and c["edits_not_applied"] == 0
    assert c["steps"] == 0 and c["skips"] == 0
    shell = [r for r in of(items, ToolResultItem) if r.exit_code is not None]
    assert len(shell) == 6  # six run_shell_command outputs, all "Exit Code: 0"
    calls = {t.call_id: t for t in of(items, ToolCallItem)}
    echo = calls["run_shell_command-1768510352712-ab6b7a9d05a97"]
    assert echo.input["command"].startswith("echo -e")
    uses = {m.key: m for m in of(items, MessageItem) if m.kind == "tool_use"}
    assert uses[echo.message_key].text == echo.input["command"]


def test_gitai_legacy_json(samples: Path) -> None:
    items = parse_json(samples / "gemini-cli/gitai_gemini-session-simple.json")
    c = summary(items)
    assert c["sessions"] == 1
    assert c["msg:user"] == 1
    assert c["kind:text"] == 1 + 6  # 6 gemini messages with content
    assert c["kind:thinking"] == 5  # the last gemini message has no thoughts
    assert c["calls"] == 5  # replace(error), read_file, replace(success), read_file, write_todos
    assert c["result:ok"] == 4 and c["result:error"] == 1
    assert c["edits_applied"] == 1 and c["edits_not_applied"] == 1
    assert c["steps"] == 1  # write_todos with one completed item
    assert c["skips"] == 0
    failed, applied = of(items, EditItem)
    assert failed.status == "failed" and failed.call_id == "replace-1765045557112-3d7f658619fd7"
    assert applied.status == "applied" and applied.kind == "update"
    assert applied.path == "/Users/svarlamov/projects/testing-git/index.ts"
    # old_string had 3 identical lines, new_string keeps one as context: only the new line is added
    assert applied.added == ("console.log('hello bob');",)
    assert applied.removed == ("console.log('hello world');", "console.log('hello world');")
    assert all(h.new_start is None for h in applied.hunks)  # no real file line numbers known
    (steps,) = of(items, StepsItem)
    assert steps.snapshot is True
    assert steps.steps == ({"text": "add another hello bob console log to @index.ts", "status": "completed"},)
    error = next(r for r in of(items, ToolResultItem) if r.status == "error")
    assert error.output.startswith("Failed to edit, Expected 1 occurrence but found 4")
    prompt = next(m for m in of(items, MessageItem) if m.role == "user")
    assert "--- Content from referenced files ---" in prompt.text  # full text kept
    titles = [i.title for i in of(items, SessionInfo) if i.title]
    assert titles == ["add another hello bob console log to @index.ts"]  # appendix cut off


def test_legacy_reparse_is_identical(samples: Path) -> None:
    """The scanner re-parses a rewritten document from scratch: same bytes, same items."""
    path = samples / "gemini-cli/gitai_gemini-session-simple.json"
    parser = PROVIDER_JSON.new_parser(str(path))
    rec = read_whole(str(path))
    first = parser.feed(rec)
    assert parser.state() == {}
    again = PROVIDER_JSON.new_parser(str(path), parser.state()).feed(rec)
    assert first == again == parser.feed(rec)


# ---- real samples: JSONL ------------------------------------------------------------------


def test_gitai_jsonl(samples: Path) -> None:
    path = samples / "gemini-cli/gitai_gemini-session-simple.jsonl"
    items = parse_jsonl(path)
    c = summary(items)
    # No metadata line and the only $set carries lastUpdated: the id is derived from the file name.
    assert c["sessions"] == 1
    assert of(items, SessionInfo)[0].session_id == "gemini:gitai_gemini-session-simple"
    assert c["msg:user"] == 1
    assert c["kind:text"] == 1 + 5  # 5 gemini lines, all with content, no thoughts
    assert c["kind:thinking"] == 0
    assert c["calls"] == 4  # replace-1, read_file-1, replace-2, read_file-2
    # the abridged calls carry no status and no result: nothing is final, so no result/edit
    assert c["result:ok"] == c["result:error"] == 0
    assert c["edits_applied"] == c["edits_not_applied"] == 0
    assert c["steps"] == 0 and c["skips"] == 0
    assert [t.call_id for t in of(items, ToolCallItem)] == ["replace-1", "read_file-1", "replace-2", "read_file-2"]


def test_gitai_jsonl_resumes_at_every_record(samples: Path) -> None:
    assert_resumes(samples / "gemini-cli/gitai_gemini-session-simple.jsonl")


# ---- sniffing -----------------------------------------------------------------------------


def test_sniff_every_sample(samples: Path) -> None:
    json_docs = {samples / "gemini-cli" / p for p in GEMINI_JSON}
    jsonl_logs = {samples / "gemini-cli" / p for p in GEMINI_JSONL}
    seen = 0
    for path in sorted(samples.rglob("*")):
        if not path.is_file():
            continue
        head = head_of(path)
        assert PROVIDER_JSON.sniff(path, head) == (path in json_docs), path
        assert PROVIDER.sniff(path, head) == (path in jsonl_logs), path
        seen += 1
    assert seen > 60  # claude-code/, codex/, cursor/, aider/, specstory/ all checked


def test_sniff_synthetic_shapes(tmp_path: Path) -> None:
    meta = {"sessionId": "s1", "projectHash": "ab" * 32, "startTime": "2026-01-01T00:00:00Z", "kind": "main"}
    log = write_jsonl(tmp_path / "a.jsonl", [meta, {"id": "m1", "timestamp": "t", "type": "user", "content": "hi"}])
    assert PROVIDER.sniff(log, head_of(log)) and not PROVIDER_JSON.sniff(log, head_of(log))
    # a one-line (minified) legacy document is the legacy provider's
    doc = {**meta, "lastUpdated": "t", "messages": [{"id": "m1", "timestamp": "t", "type": "user", "content": "hi"}]}
    one = write_jsonl(tmp_path / "b.json", [doc])
    assert PROVIDER_JSON.sniff(one, head_of(one)) and not PROVIDER.sniff(one, head_of(one))
    # a pretty-printed document bigger than the 64 KiB head
    big = tmp_path / "c.json"
    doc["messages"] = [{"id": f"m{i}", "timestamp": "t", "type": "user", "content": "x" * 1000} for i in range(100)]
    big.write_text(json.dumps(doc, indent=2))
    assert big.stat().st_size > 65536
    assert PROVIDER_JSON.sniff(big, head_of(big)) and not PROVIDER.sniff(big, head_of(big))
    # other agents' lines that share a key or two
    claude = write_jsonl(tmp_path / "d.jsonl", [{"type": "user", "uuid": "u", "sessionId": "s", "message": {}, "timestamp": "t"}])
    codex = write_jsonl(tmp_path / "e.jsonl", [{"timestamp": "t", "type": "session_meta", "payload": {"id": "x"}}])
    for p in (claude, codex):
        assert not PROVIDER.sniff(p, head_of(p)) and not PROVIDER_JSON.sniff(p, head_of(p))


# ---- synthetic JSONL: re-appends, FileDiff, rejections, rewind ---------------------------

FILE_DIFF = (
    "Index: app.py\n===================================================================\n"
    "--- app.py\tCurrent\n+++ app.py\tProposed\n@@ -3,3 +3,4 @@\n a = 1\n b = 2\n-c = 3\n+c = 30\n+d = 4\n e = 5\n"
)


def _call(call_id: str, name: str, args: dict[str, Any], status: str | None, output: str | None = None,
          **extra: Any) -> dict[str, Any]:
    tc: dict[str, Any] = {"id": call_id, "name": name, "args": args, "timestamp": f"ts-{call_id}"}
    if status is not None:
        tc["status"] = status
    if output is not None:
        key = "error" if status in ("error", "cancelled") else "output"
        tc["result"] = [{"functionResponse": {"id": call_id, "name": name, "response": {key: output}}}]
    tc.update(extra)
    return tc


def synthetic_log(tmp_path: Path, folder: str = "chats", kind: str = "main") -> Path:
    meta = {"sessionId": "sess-1", "projectHash": "ab" * 32, "startTime": "2026-02-01T10:00:00.000Z",
            "lastUpdated": "2026-02-01T10:00:00.000Z", "kind": kind, "directories": ["/home/u/proj"]}
    edit_args = {"file_path": "src/app.py", "old_string": "c = 3", "new_string": "c = 30\nd = 4"}
    display = {"fileDiff": FILE_DIFF, "fileName": "app.py", "filePath": "/home/u/proj/src/app.py",
               "originalContent": "a\n", "newContent": "b\n", "isNewFile": False}
    g1 = {"id": "g1", "timestamp": "2026-02-01T10:00:05.000Z", "type": "gemini", "content": "Editing.",
          "thoughts": [{"subject": "Plan", "description": "Change c.", "timestamp": "t"}], "model": "gemini-2.5-pro"}
    lines: list[Any] = [
        meta,
        {"id": "u1", "timestamp": "2026-02-01T10:00:01.000Z", "type": "user", "content": [{"text": "fix app.py"}]},
        {"$set": {"lastUpdated": "2026-02-01T10:00:02.000Z"}},
        # first copy: the call is still executing
        {**g1, "toolCalls": [_call("replace-1", "replace", edit_args, "executing")]},
        # re-append: the call finished; a second, rejected write_file joined the message
        {**g1, "content": "Editing app.py.", "toolCalls": [
            _call("replace-1", "replace", edit_args, "success",
                  "Successfully modified file: /home/u/proj/src/app.py (1 replacements).", resultDisplay=display),
            _call("write-1", "write_file", {"file_path": "notes.md", "content": "x\n"}, "cancelled",
                  "[Operation Cancelled] Reason: User did not allow tool call"),
        ]},
        # re-append again, unchanged calls: nothing may be emitted twice
        {**g1, "content": "Editing app.py.", "tokens": {"input": 1}, "toolCalls": [
            _call("replace-1", "replace", edit_args, "success",
                  "Successfully modified file: /home/u/proj/src/app.py (1 replacements).", resultDisplay=display),
            _call("write-1", "write_file", {"file_path": "notes.md", "content": "x\n"}, "cancelled",
                  "[Operation Cancelled] Reason: User did not allow tool call"),
        ]},
        {"id": "g2", "timestamp": "2026-02-01T10:00:09.000Z", "type": "gemini", "content": "", "thoughts": [], "toolCalls": [
            _call("sh-1", "run_shell_command", {"command": "pytest -q", "dir_path": "src"}, "success",
                  "Command: pytest -q\nDirectory: src\nOutput: 1 failed\nError: (none)\nExit Code: 1\nSignal: 0"),
            _call("todo-1", "write_todos", {"todos": [{"description": "fix c", "status": "completed"},
                                                      {"description": "run tests", "status": "in_progress"}]}, "success", "ok"),
            _call("write-2", "write_file", {"file_path": "/home/u/proj/NEW.md", "content": "one\ntwo\n"}, "success",
                  "Successfully created and wrote to new file: /home/u/proj/NEW.md."),
            _call("replace-2", "replace", {"file_path": "x.py", "old_string": "a", "new_string": "b"}, "cancelled",
                  "Request cancelled."),
            _call("replace-3", "replace", {"file_path": "y.py", "old_string": "a", "new_string": "b"}, "error",
                  "Failed to edit, 0 occurrences found"),
        ]},
        {"id": "w1", "timestamp": "2026-02-01T10:00:10.000Z", "type": "warning", "content": "Loop detected"},
        {"id": "e1", "timestamp": "2026-02-01T10:00:11.000Z", "type": "error", "content": "Quota exceeded"},
        {"$set": {"summary": "Fix the c constant", "lastUpdated": "t"}},
        {"$rewindTo": "g2"},
        {"id": "u2", "timestamp": "2026-02-01T10:01:00.000Z", "type": "user", "content": "try again"},
    ]
    return write_jsonl(tmp_path / folder / "session-2026-02-01T10-00-sess-1.jsonl", lines)


def test_synthetic_jsonl(tmp_path: Path) -> None:
    path = synthetic_log(tmp_path)
    assert PROVIDER.sniff(path, head_of(path))
    items = parse_jsonl(path)
    c = summary(items)
    assert c["sessions"] == 1 and c["skips"] == 0 and c["rewinds"] == 1
    assert c["calls"] == 7  # replace-1, write-1, sh-1, todo-1, write-2, replace-2, replace-3 — each once
    assert c["result:ok"] == 4 and c["result:rejected"] == 1 and c["result:interrupted"] == 1 and c["result:error"] == 1
    assert c["edits_applied"] == 2 and c["edits_not_applied"] == 3
    assert c["steps"] == 1
    # g1 was written three times: its text (and thinking) are upserts, last one wins
    g1 = [m for m in of(items, MessageItem) if m.key == "g1"]
    assert [m.text for m in g1] == ["Editing.", "Editing app.py.", "Editing app.py."]
    assert all(m.replace for m in of(items, MessageItem))
    assert {m.key for m in of(items, MessageItem) if m.kind == "thinking"} == {"g1#thinking"}
    assert not [m for m in of(items, MessageItem) if m.key == "g2"]  # empty content, no message

    infos = of(items, SessionInfo)
    assert infos[0].session_id == "sess-1" and infos[0].cwd == "/home/u/proj"
    assert infos[0].started_at == "2026-02-01T10:00:00.000Z" and infos[0].extra["kind"] == "main"
    assert infos[0].parent_session_id is None  # kind main
    assert [(i.title, i.title_rank) for i in infos if i.title] == [("fix app.py", 1), ("Fix the c constant", 2)]

    edits = {e.call_id: e for e in of(items, EditItem)}
    fd = edits["replace-1"]
    assert fd.status == "applied" and fd.kind == "update" and fd.path == "src/app.py" and fd.cwd == "/home/u/proj"
    assert fd.added == ("c = 30", "d = 4") and fd.removed == ("c = 3",)
    assert fd.hunks[0].new_start == 3 and fd.hunks[0].old_start == 3  # real numbers from the FileDiff
    assert (fd.before, fd.after) == ("a\n", "b\n")
    assert fd.message_key == "g1#replace-1"
    assert edits["write-1"].status == "rejected"
    assert edits["write-2"].status == "applied" and edits["write-2"].kind == "create"
    assert edits["write-2"].added == ("one", "two") and edits["write-2"].after == "one\ntwo\n"
    assert edits["replace-2"].status == "failed"  # cancelled, but not by a refusal
    assert edits["replace-3"].status == "failed"
    assert edits["replace-3"].added == ("b",) and edits["replace-3"].removed == ("a",)

    results = {r.call_id: r for r in of(items, ToolResultItem)}
    assert results["write-1"].status == "rejected"
    assert results["replace-2"].status == "interrupted"
    assert results["sh-1"].exit_code == 1
    sh = next(t for t in of(items, ToolCallItem) if t.call_id == "sh-1")
    assert sh.cwd == "src" and sh.name == "run_shell_command"
    assert next(m for m in of(items, MessageItem) if m.key == "g2#sh-1").text == "pytest -q"
    (steps,) = of(items, StepsItem)
    assert steps.steps == ({"text": "fix c", "status": "completed"}, {"text": "run tests", "status": "in_progress"})
    kinds = {m.key: (m.role, m.kind) for m in of(items, MessageItem)}
    assert kinds["w1"] == ("system", "meta") and kinds["e1"] == ("system", "error")
    assert kinds["u1"] == ("user", "text")
    (rewind,) = of(items, Rewind)
    assert rewind == Rewind("sess-1", "g2")
    # the rewind comes after everything it drops, and before the new prompt
    assert items.index(rewind) < next(i for i, m in enumerate(items) if isinstance(m, MessageItem) and m.key == "u2")


def test_synthetic_jsonl_resumes_at_every_record(tmp_path: Path) -> None:
    assert_resumes(synthetic_log(tmp_path))


def test_subagent_parent_from_folder(tmp_path: Path) -> None:
    path = synthetic_log(tmp_path, folder="chats/parent-session-9", kind="subagent")
    info = of(parse_jsonl(path), SessionInfo)[0]
    assert info.parent_session_id == "parent-session-9" and info.extra["kind"] == "subagent"


def test_pending_then_final_result_emitted_once(tmp_path: Path) -> None:
    """A call first seen unfinished gets its result and edit when a later copy is final."""
    msg = {"id": "g", "timestamp": "t", "type": "gemini", "content": "w"}
    args = {"file_path": "a.txt", "content": "hello\n"}
    path = write_jsonl(tmp_path / "s.jsonl", [
        {"sessionId": "s", "projectHash": "p"},
        {**msg, "toolCalls": [_call("w", "write_file", args, "awaiting_approval")]},
        {**msg, "toolCalls": [_call("w", "write_file", args, "success", "Successfully overwrote file: a.txt.")]},
        {**msg, "toolCalls": [_call("w", "write_file", args, "success", "Successfully overwrote file: a.txt.")]},
    ])
    items = parse_jsonl(path)
    assert len(of(items, ToolCallItem)) == 1 and len(of(items, ToolResultItem)) == 1
    (edit,) = of(items, EditItem)
    assert edit.kind == "update" and edit.status == "applied" and edit.added == ("hello",)
    assert_resumes(path)


# ---- bad input ----------------------------------------------------------------------------


def test_bad_jsonl_lines_never_crash(tmp_path: Path) -> None:
    good = {"id": "ok", "timestamp": "t", "type": "user", "content": "still parsed"}
    lines: list[Any] = [
        {"sessionId": "s", "projectHash": "p"},
        b'{"id": "trunc", "type": "user", "content": "hal',  # truncated line
        b'{"id": "bad\xff\xfe", "type": "user"}',  # invalid UTF-8
        {"id": 5, "type": "user", "content": "x"},  # wrong-typed id
        {"id": "m", "type": ["user"], "content": "x"},  # wrong-typed type
        {"$set": "not a dict"},
        {"$rewindTo": 7},
        {"id": "g", "timestamp": 3, "type": "gemini", "content": 42, "toolCalls": "nope", "thoughts": {"a": 1}},
        {"id": "g2", "type": "gemini", "content": "x",
         "toolCalls": [1, None, {"id": 3}, {"id": "c", "args": "str", "status": "success", "result": "s"}]},
        {"id": "z", "timestamp": "t", "type": "telepathy", "content": "?"},  # unknown message type
        {"what": "ever"},  # unknown record type
        [1, 2, 3],
        12345,
        {},
        {"id": "big", "timestamp": "t", "type": "user", "content": "y" * (5 * 1024 * 1024)},
        good,
    ]
    path = write_jsonl(tmp_path / "bad.jsonl", lines)
    items = parse_jsonl(path)
    skips = [s.reason for s in of(items, Skip)]
    assert skips == [
        "malformed_json", "invalid_utf8", "bad_field", "bad_field", "bad_field", "bad_field",
        "unknown_type", "unknown_type", "not_object", "not_object", "unknown_type",
    ]
    texts = {m.key: m.text for m in of(items, MessageItem)}
    assert texts["ok"] == "still parsed"
    assert len(texts["big"]) == 5 * 1024 * 1024
    assert texts["g"] == "42"  # odd content is flattened, not fatal
    # the call with a string "args" still parses, with empty input
    (call,) = of(items, ToolCallItem)
    assert call.call_id == "c" and call.input == {}
    assert_resumes(path, splits=[0, 3, 8, len(lines)])


def test_bad_legacy_documents(tmp_path: Path) -> None:
    def feed(data: bytes) -> list[Any]:
        return PROVIDER_JSON.new_parser(str(tmp_path / "s.json")).feed(RawRecord(str(tmp_path / "s.json"), 0, data))

    doc = {"sessionId": "s", "projectHash": "p", "messages": [{"id": "u", "timestamp": "t", "type": "user", "content": "hi"}]}
    whole = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    assert [s.reason for s in of(feed(whole[: len(whole) // 2]), Skip)] == ["malformed_json"]  # half-written
    assert [s.reason for s in of(feed(b"\xff\xfe{}"), Skip)] == ["malformed_json"]
    assert [s.reason for s in feed(b"[1, 2]")] == ["not_object"]
    assert [s.reason for s in feed(b"{}")] == ["no_session_id"]
    assert [s.reason for s in of(feed(orjson.dumps({"sessionId": "s", "messages": "x"})), Skip)] == ["bad_field"]
    mixed = {**doc, "messages": [7, {"id": "q", "type": "nope"}, *doc["messages"]]}
    items = feed(orjson.dumps(mixed))
    assert [s.reason for s in of(items, Skip)] == ["bad_field", "unknown_type"]
    assert [m.key for m in of(items, MessageItem)] == ["u"]


def test_parser_error_becomes_skip_and_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    msg = {"id": "g", "timestamp": "t", "type": "gemini", "content": "w",
           "toolCalls": [_call("a", "read_file", {"file_path": "x"}, "success", "ok"),
                         _call("b", "boom", {}, "success", "ok")]}
    path = write_jsonl(tmp_path / "s.jsonl", [{"sessionId": "s", "projectHash": "p"}, msg])
    real = gemini._summary

    def flaky(name: str, args: dict[str, Any]) -> str:
        if name == "boom":
            raise RuntimeError("bug")
        return real(name, args)

    monkeypatch.setattr(gemini, "_summary", flaky)
    parser = PROVIDER.new_parser(str(path))
    records = list(iter_jsonl(str(path)))
    parser.feed(records[0])
    out = parser.feed(records[1])
    assert [s.reason for s in out] == ["parser_error"] and "bug" in out[0].detail
    assert parser.state()["calls"] == {}  # call "a" was not half-recorded
    monkeypatch.setattr(gemini, "_summary", real)
    assert len(of(parser.feed(records[1]), ToolCallItem)) == 2
