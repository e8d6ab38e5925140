"""Steps from TodoWrite, update_plan, write_todos and TaskCreate/TaskUpdate, as open/done/dropped."""

from __future__ import annotations

import json
import sqlite3

from hansard.facts.steps import Step, by_state, classify_steps
from hansard.values.models import StepsItem


def snap(call: str, ts: str, *steps: dict) -> StepsItem:
    return StepsItem("s1", call, True, tuple(steps), ts)


def task(call: str, ts: str, **step) -> StepsItem:
    return StepsItem("s1", call, False, (step,), ts)


def test_todowrite_gains_completes_and_drops_steps() -> None:
    rows = [
        snap("toolu_1", "t1",
             {"text": "Read the retry code", "status": "in_progress"},
             {"text": "Add capped backoff", "status": "pending"},
             {"text": "Write a changelog entry", "status": "pending"}),
        snap("toolu_2", "t2",
             {"text": "Read the retry code", "status": "completed"},
             {"text": "Add capped backoff", "status": "in_progress"},
             {"text": "Write a changelog entry", "status": "pending"},
             {"text": "Run the tests", "status": "pending"}),  # gained
        snap("toolu_3", "t3",
             {"text": "read the  retry code", "status": "completed"},  # same step: case and spaces ignored
             {"text": "Add capped backoff", "status": "completed"},
             {"text": "Run the tests", "status": "in_progress"}),  # the changelog step vanished: dropped
    ]
    assert classify_steps(rows) == [
        Step("read the  retry code", "done", "completed", None, "t1", "toolu_1", "t3", "toolu_3", "t2", "toolu_2"),
        Step("Add capped backoff", "done", "completed", None, "t1", "toolu_1", "t3", "toolu_3", "t3", "toolu_3"),
        Step("Write a changelog entry", "dropped", "pending", None, "t1", "toolu_1", "t2", "toolu_2", "t3", "toolu_3"),
        Step("Run the tests", "open", "in_progress", None, "t2", "toolu_2", "t3", "toolu_3"),
    ]


def test_cleared_list_keeps_done_steps_and_drops_open_ones() -> None:
    rows = [
        snap("c1", "t1", {"text": "A", "status": "completed"}, {"text": "B", "status": "pending"}),
        snap("c2", "t2"),  # an empty list
    ]
    got = {s.text: (s.state, s.closed_call_id) for s in classify_steps(rows)}
    assert got == {"A": ("done", "c1"), "B": ("dropped", "c2")}


def test_dropped_step_that_returns_is_open_again() -> None:
    rows = [
        snap("c1", "t1", {"text": "A", "status": "pending"}, {"text": "B", "status": "pending"}),
        snap("c2", "t2", {"text": "A", "status": "pending"}),
        snap("c3", "t3", {"text": "A", "status": "pending"}, {"text": "B", "status": "in_progress"}),
    ]
    b = classify_steps(rows)[1]
    assert (b.text, b.state, b.status, b.closed_at, b.last_call_id) == ("B", "open", "in_progress", None, "c3")


def test_cancelled_status_is_dropped_and_ids_match_across_rewording() -> None:
    rows = [
        snap("c1", "t1", {"id": "1", "content": "Fix flaky upload", "status": "pending"},
             {"id": "2", "content": "Refactor client", "status": "pending"}),
        snap("c2", "t2", {"id": "1", "content": "Fix flaky upload retry", "status": "completed"},
             {"id": "2", "content": "Refactor client", "status": "cancelled"}),
    ]
    got = [(s.id, s.text, s.state, s.closed_call_id) for s in classify_steps(rows)]
    assert got == [("1", "Fix flaky upload retry", "done", "c2"), ("2", "Refactor client", "dropped", "c2")]


def test_codex_update_plan_shape() -> None:
    # update_plan arguments: {"plan": [{"step": ..., "status": ...}], "explanation": ...}
    rows = [
        {"call_id": "call_a", "timestamp": "2026-02-01T09:00:00Z", "snapshot": True, "steps": [
            {"step": "Inspect failing test", "status": "in_progress"},
            {"step": "Patch parser", "status": "pending"},
            {"step": "Update docs", "status": "pending"},
        ]},
        {"call_id": "call_b", "timestamp": "2026-02-01T09:10:00Z", "snapshot": True, "steps": [
            {"step": "Inspect failing test", "status": "completed"},
            {"step": "Patch parser", "status": "completed"},
        ]},
    ]
    got = by_state(classify_steps(rows))
    assert [s.text for s in got["done"]] == ["Inspect failing test", "Patch parser"]
    assert [(s.text, s.closed_at, s.closed_call_id) for s in got["dropped"]] == [
        ("Update docs", "2026-02-01T09:10:00Z", "call_b")]
    assert got["open"] == []


def test_gemini_write_todos_shape() -> None:
    rows = [
        {"call_id": "g1", "timestamp": "t1", "snapshot": True, "steps": [
            {"description": "Find the config loader", "status": "completed"},
            {"description": "Add the env override", "status": "in_progress"},
            {"description": "Try a YAML rewrite", "status": "cancelled"},
        ]},
    ]
    assert [(s.text, s.state) for s in classify_steps(rows)] == [
        ("Find the config loader", "done"), ("Add the env override", "open"), ("Try a YAML rewrite", "dropped")]


def test_task_create_and_update() -> None:
    rows = [
        task("toolu_c1", "t1", id="1", text="Write migration", status="pending"),
        task("toolu_c2", "t2", id="2", text="Backfill data", status="pending"),
        task("toolu_c3", "t3", id="3", text="Remove old column", status="pending"),
        task("toolu_u1", "t4", id="1", text="", status="in_progress"),
        task("toolu_u2", "t5", id="1", text="", status="completed"),
        task("toolu_u3", "t6", id="3", text="", status="cancelled"),  # TaskUpdate status "deleted" arrives as cancelled
        task("toolu_u4", "t7", id="9", text="", status="in_progress"),  # created before this transcript
        task("toolu_u5", "t8", id="2", text="Backfill data in batches", status=None),  # subject change only
    ]
    assert classify_steps(rows) == [
        Step("Write migration", "done", "completed", "1", "t1", "toolu_c1", "t5", "toolu_u2", "t5", "toolu_u2", "task"),
        Step("Backfill data in batches", "open", "pending", "2", "t2", "toolu_c2", "t8", "toolu_u5", None, None,
             "task"),
        Step("Remove old column", "dropped", "cancelled", "3", "t3", "toolu_c3", "t6", "toolu_u3", "t6", "toolu_u3",
             "task"),
        Step("(task 9)", "open", "in_progress", "9", "t7", "toolu_u4", "t7", "toolu_u4", None, None, "task"),
    ]


def test_tasks_never_disappear_because_of_a_snapshot() -> None:
    rows = [
        task("c1", "t1", id="1", text="Task one", status="pending"),
        snap("c2", "t2", {"text": "Todo one", "status": "pending"}),
        snap("c3", "t3"),
    ]
    assert [(s.text, s.state) for s in classify_steps(rows)] == [("Task one", "open"), ("Todo one", "dropped")]


def test_duplicate_texts_in_one_snapshot_are_separate_steps() -> None:
    rows = [
        snap("c1", "t1", {"text": "Run tests", "status": "completed"}, {"text": "Run tests", "status": "pending"}),
        snap("c2", "t2", {"text": "Run tests", "status": "completed"}, {"text": "Run tests", "status": "completed"}),
    ]
    assert [(s.text, s.state, s.closed_call_id) for s in classify_steps(rows)] == [
        ("Run tests", "done", "c1"), ("Run tests", "done", "c2")]


def test_reads_rows_of_the_steps_table() -> None:
    db = sqlite3.connect(":memory:")
    db.row_factory = sqlite3.Row
    db.execute("CREATE TABLE steps (call_id TEXT, snapshot INTEGER, steps TEXT, timestamp TEXT)")
    db.executemany("INSERT INTO steps VALUES (?,?,?,?)", [
        ("c1", 1, json.dumps([{"text": "A", "status": "pending"}, {"text": "B", "status": "pending"}]), "t1"),
        ("c2", 1, json.dumps([{"text": "A", "status": "completed"}]), "t2"),
        ("c3", 1, "not json", "t3"),  # unreadable: ignored, not read as an empty list that drops everything
    ])
    rows = db.execute("SELECT * FROM steps ORDER BY rowid").fetchall()
    assert [(s.text, s.state, s.closed_call_id) for s in classify_steps(rows)] == [
        ("A", "done", "c2"), ("B", "dropped", "c2")]
    # Unknown statuses read as pending; steps without text or id are ignored.
    odd = [{"snapshot": True, "call_id": "x", "timestamp": None,
            "steps": [{"text": "C", "status": "weird"}, {"status": "pending"}, "not a dict"]}]
    assert [(s.text, s.status, s.state) for s in classify_steps(odd)] == [("C", "pending", "open")]
