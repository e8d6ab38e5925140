"""Codex code mode: tool calls written as one JavaScript ``exec`` script (Codex 0.144 on).

The records follow a real Codex 0.147 rollout (entireio/entire-graph, a checkpoint
``full.jsonl``): a ``custom_tool_call`` named ``exec`` whose input binds the patch to a name
and calls ``tools.apply_patch(patch)``, an ``event_msg`` ``item_completed`` with a
``FileChange`` item under the nested call's id (``exec-<uuid>``) as the only report, and an
output of ``input_text`` blocks, "Script completed ..." then ``{}``. Public readers' fixtures
add the other spellings (a literal argument, an object argument, ``"namespace": "functions"``,
``patch_apply_end`` under the nested id).
"""

from __future__ import annotations

import orjson
import pytest

from hansard.agents.codex.code_mode import one_patch, tool_calls
from hansard.values.models import EditItem, MessageItem, Skip, ToolCallItem
from tests.test_ingest_codex import PATCH, ev, fcall, feed_all, fout, meta, of, ri, turn

PATCH_B = "*** Begin Patch\n*** Add File: docs/b.md\n+hello\n*** End Patch\n"


def script(call_id: str, js: str, **extra: str) -> dict:
    return ri({"type": "custom_tool_call", "call_id": call_id, "name": "exec", "input": js, **extra})


def printed(call_id: str, *texts: str) -> dict:
    return fout(call_id, [{"type": "input_text", "text": "Script completed\nWall time 0.1 seconds\nOutput:\n"},
                          *({"type": "input_text", "text": t} for t in texts)], custom=True)


def applied_event(call_id: str, path: str = "/repo/src/a.py") -> dict:
    return ev({"type": "patch_apply_end", "call_id": call_id, "success": True, "stdout": "Success.",
               "changes": {path: {"type": "update", "unified_diff": "@@ -7,3 +7,3 @@\n def f():\n-    return 1\n"
                                                                     "+    return 2\n"}}})


@pytest.mark.parametrize("js", [
    f"text(await tools.apply_patch({orjson.dumps(PATCH).decode()}));",
    f"const patch = {orjson.dumps(PATCH).decode()};\nconst r = await tools.apply_patch({{input: patch}});\ntext(r);",
    f"await tools.apply_patch({{ patch: {orjson.dumps(PATCH).decode()} }});",
    "await tools.apply_patch(`" + PATCH + "`);",
    "text(await tools.exec_command({cmd: " + orjson.dumps(f"apply_patch <<'EOF'\n{PATCH}EOF").decode()
    + ", workdir: \"/repo\"}));",
])
def test_a_scripts_patch_is_its_edit_decided_by_the_printed_result(js: str) -> None:
    items, state = feed_all([meta(), turn(), script("x1", js, namespace="functions"),
                             printed("x1", "Success. Updated the following files:\nM src/a.py\n")])
    (call,) = of(items, ToolCallItem)
    assert call.name == "exec"  # the built-in namespace is not glued onto the name
    (edit,) = of(items, EditItem)
    assert (edit.path, edit.cwd, edit.kind, edit.status, edit.message_key) == ("src/a.py", "/repo", "update",
                                                                               "applied", "x1")
    assert edit.added == ("    return 2",) and edit.removed == ("    return 1",)
    (use,) = [m for m in of(items, MessageItem) if m.kind == "tool_use"]
    assert use.text == "exec: apply_patch: Update src/a.py"
    assert state["pending"] == {}


def file_change(item_id: str, path: str = "/repo/src/a.py", status: str = "completed") -> dict:
    return ev({"type": "item_completed", "thread_id": "t", "turn_id": "t1", "item": {
        "type": "FileChange", "id": item_id, "status": status, "stderr": "",
        "stdout": f"Success. Updated the following files:\nM {path}\n",
        "changes": {path: {"type": "update", "move_path": None,
                           "unified_diff": "@@ -7,3 +7,3 @@\n def f():\n-    return 1\n+    return 2\n"}}},
        "started_at_ms": 1786846171813, "completed_at_ms": 1786846171815})


def test_a_real_code_mode_patch_is_decided_by_its_file_change_event() -> None:
    js = f"const patch = {orjson.dumps(PATCH).decode()};\ntext(await tools.apply_patch(patch));\n"
    call = script("call_mjErx1AFfhqTIN7XB3ikStTG", js, id="ctc_07c9", status="completed")
    items, state = feed_all([meta(), turn(), call, file_change("exec-79b991c5-fdb7-4e9b-81b2-f78d070886bc"),
                             printed("call_mjErx1AFfhqTIN7XB3ikStTG", "{}")])
    (edit,) = of(items, EditItem)
    assert (edit.path, edit.status, edit.message_key) == ("/repo/src/a.py", "applied", "call_mjErx1AFfhqTIN7XB3ikStTG")
    assert [(h.new_start, h.new_lines) for h in edit.hunks] == [(7, 3)]
    assert state["pending"] == {} and not of(items, Skip)
    # the same report twice, or also as a patch_apply_end under that id: one edit
    again, _ = feed_all([file_change("exec-79b991c5-fdb7-4e9b-81b2-f78d070886bc"),
                         applied_event("exec-79b991c5-fdb7-4e9b-81b2-f78d070886bc")], state)
    assert again == []
    # a failed or refused change, and other items, are read as such
    items, _ = feed_all([meta(), turn(), call, file_change("exec-1", status="failed")])
    assert [e.status for e in of(items, EditItem)] == ["failed"]
    items, _ = feed_all([meta(), turn(), call, file_change("exec-1", status="declined")])
    assert [e.status for e in of(items, EditItem)] == ["rejected"]
    other = ev({"type": "item_completed", "item": {"type": "CommandExecution", "id": "exec-2", "command": ["ls"]}})
    assert feed_all([meta(), other])[0] == [i for i in feed_all([meta()])[0]]


def test_a_script_still_running_keeps_its_patch_for_its_report() -> None:
    # real 0.147 output of a script sent to the background; its patch lands after the output
    js = f"await tools.exec_command({{cmd: 'pytest -q'}});\nawait tools.apply_patch({orjson.dumps(PATCH).decode()});"
    running = fout("x1", "Script running with cell ID 479\nWall time 11.0 seconds\nOutput:\n", custom=True)
    items, state = feed_all([meta(), turn(), script("x1", js), running])
    assert not of(items, EditItem) and "x1" in state["pending"]
    later, state = feed_all([file_change("exec-5"), fcall("wait", {"cell_id": "479"}, "w1"),
                             fout("w1", "Script completed\nOutput:\n{}")], state)
    (edit,) = of(later, EditItem)
    assert (edit.status, edit.message_key) == ("applied", "x1") and state["pending"] == {}


def test_a_nested_calls_patch_event_is_the_scripts_edit() -> None:
    js = (f"const a = await tools.exec_command({{cmd:\"rg -n f src\"}});\n"
          f"await tools.apply_patch({orjson.dumps(PATCH).decode()});\n"
          f"const b = await tools.exec_command({{cmd:\"pytest -q\", workdir:\"/repo\"}});\ntext(b.output);")
    items, state = feed_all([meta(), turn(), script("x1", js), applied_event("exec-9"), printed("x1", "3 passed")])
    (edit,) = of(items, EditItem)
    # the event decides, with its real line numbers, for the script that ran the patch
    assert (edit.path, edit.status, edit.message_key, edit.call_id) == ("/repo/src/a.py", "applied", "x1", "x1")
    assert [(h.new_start, h.new_lines) for h in edit.hunks] == [(7, 3)]
    (use,) = [m for m in of(items, MessageItem) if m.kind == "tool_use"]
    assert use.text == "exec: rg -n f src; apply_patch: Update src/a.py; pytest -q"
    assert state["pending"] == {} and not of(items, Skip)
    # the same event again adds nothing
    again, _ = feed_all([applied_event("exec-9")], state)
    assert again == []


def test_an_event_is_given_to_a_script_only_when_one_script_can_have_made_it() -> None:
    a = script("x1", f"await tools.apply_patch({orjson.dumps(PATCH).decode()});")
    b = script("x2", f"await tools.apply_patch({orjson.dumps(PATCH_B).decode()});")
    items, _ = feed_all([meta(), turn(), a, b, applied_event("n1", "/repo/docs/b.md")])
    (edit,) = of(items, EditItem)
    assert edit.message_key == "x2"  # only x2's patch names docs/b.md
    # two scripts whose patches cannot be read: the event is nobody's call
    unread = "let p = make(); await tools.apply_patch(p);"
    items, _ = feed_all([meta(), turn(), script("x1", unread), script("x2", unread), applied_event("n1")])
    (edit,) = of(items, EditItem)
    assert edit.message_key is None and edit.call_id == "n1"
    # one such script running: the event is its edit
    items, _ = feed_all([meta(), turn(), script("x1", unread), applied_event("n1")])
    (edit,) = of(items, EditItem)
    assert edit.message_key == "x1"


def test_a_script_that_patches_without_saying_so_leaves_its_edit_unapplied() -> None:
    # no event, and the script printed nothing of the patch's result: not known to have applied
    items, _ = feed_all([meta(), turn(), script("x1", f"await tools.apply_patch({orjson.dumps(PATCH).decode()});"),
                         printed("x1")])
    (edit,) = of(items, EditItem)
    assert edit.status == "failed"


def test_a_script_without_a_patch_is_a_plain_call() -> None:
    items, state = feed_all([meta(), turn(), script("x1", "text(await tools.exec_command({cmd: 'ls -la'}));"),
                             printed("x1", "total 0")])
    assert not of(items, EditItem)
    (use,) = [m for m in of(items, MessageItem) if m.kind == "tool_use"]
    assert use.text == "exec: ls -la"


def test_only_literal_arguments_are_read() -> None:
    p = orjson.dumps(PATCH).decode()
    assert tool_calls(f"await tools.apply_patch({p})") == [("apply_patch", PATCH)]
    assert tool_calls(f"const patch = {p}; await tools.apply_patch(patch)") == [("apply_patch", PATCH)]
    assert tool_calls("await tools.exec_command({ cmd: 'echo \"hi\" it\\'s', \"workdir\": '/r' })") == [
        ("exec_command", {"cmd": 'echo "hi" it\'s', "workdir": "/r"})]
    assert tool_calls("tools.exec_command({cmd: \"a\\u0041\\x42\\tb\"})") == [("exec_command", {"cmd": "aAB\tb"})]
    # computed, reassigned, extended, interpolated or bound twice: known to be called, not read
    for js in (f"let patch = {p}; patch = other; tools.apply_patch(patch)",
               f"let patch = {p}; patch += x; tools.apply_patch(patch)",
               "tools.apply_patch(`*** Begin Patch\n*** Add File: ${name}\n+x\n*** End Patch`)",
               f"tools.apply_patch({p} + more)",
               f"const a = {p}; const a = {p}; tools.apply_patch(a)",
               "tools.apply_patch(make())"):
        assert tool_calls(js) == [("apply_patch", None)], js
    assert tool_calls('text("no tools here")') == []
    assert tool_calls("tools.exec_command({cmd: '") == [("exec_command", {"cmd": None})]  # cut off


def test_several_patches_of_one_script_are_one_patch() -> None:
    both = one_patch([PATCH, PATCH_B])
    assert both.count("*** Begin Patch") == 1 and "*** Update File: src/a.py" in both and "*** Add File: docs/b.md" in both
    js = f"await tools.apply_patch({orjson.dumps(PATCH).decode()});\nawait tools.apply_patch({orjson.dumps(PATCH_B).decode()});"
    items, _ = feed_all([meta(), turn(), script("x1", js),
                         printed("x1", "Success. Updated the following files:\nM src/a.py\nA docs/b.md\n")])
    assert [(e.path, e.kind, e.status, e.seq) for e in of(items, EditItem)] == [
        ("src/a.py", "update", "applied", 0), ("docs/b.md", "create", "applied", 1)]
