"""What the trigram index (part-of-a-word search) holds: prose under 32 KiB, without tool
output (migration m022) and without the agents' own system instructions (m029), and that it
stays consistent when such a message is rewritten or rewound (its delete and update triggers
use the condition it was filled by: a 'delete' of a row FTS5 never had would damage it)."""

from __future__ import annotations

from hansard.ingest import redact
from hansard.store import as_store
from hansard.store.sqlite.db import connect
from hansard.values.models import MessageItem, Rewind

WORD = "frobnicate_widget_reset"


def _write(store, source: str, records: list[list]) -> None:
    with store.archive.transaction():
        sid = store.archive.add_source(source, "codex")
        w = store.items.writer(sid, "codex", redact)
        for offset, items in enumerate(records):
            w.apply(items, offset)
        store.items.index_text()


def _part_of_word(store) -> list[str]:
    """Keys of the messages the trigram index finds by a piece from inside the word."""
    return [r[0] for r in store.db.execute(
        "SELECT key FROM messages WHERE id IN (SELECT rowid FROM messages_tri WHERE text LIKE ?) ORDER BY id",
        ("%obnicate_widget_re%",))]


def _consistent(store) -> None:
    db = store.db
    db.execute("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)")
    db.execute("INSERT INTO messages_tri(messages_tri) VALUES ('integrity-check')")


def test_system_instructions_stay_out_and_a_compaction_summary_stays_in() -> None:
    store = as_store(connect())
    _write(store, "/t/a.jsonl", [[
        MessageItem("s1", "dev", "system", f"<permissions instructions> never call {WORD}", kind="meta"),
        MessageItem("s1", "summary", "system", f"Summary: we fixed {WORD}", kind="compaction_summary"),
        MessageItem("s1", "ask", "user", f"why does {WORD} fail?"),
        MessageItem("s1", "out", "tool", f"Traceback ... {WORD}", kind="tool_result"),
    ]])
    assert _part_of_word(store) == ["summary", "ask"]
    # Whole words still find all four.
    assert store.db.execute("SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH ?",
                            (f'"{WORD}"',)).fetchone()[0] == 4
    _consistent(store)


def test_rewriting_and_rewinding_an_instruction_keeps_the_index_consistent() -> None:
    store = as_store(connect())
    _write(store, "/t/a.jsonl", [[MessageItem("s1", "dev", "system", f"use {WORD}", kind="meta")],
                                 [MessageItem("s1", "next", "user", "go on")]])
    assert _part_of_word(store) == []
    # The same record read again as a user's text (a newer agent version): it enters the index.
    _write(store, "/t/a.jsonl.2", [[MessageItem("s1", "dev", "user", f"use {WORD} now", replace=True)]])
    assert _part_of_word(store) == ["dev"]
    _consistent(store)
    # ... and back to an instruction: it leaves it.
    _write(store, "/t/a.jsonl.3", [[MessageItem("s1", "dev", "system", f"use {WORD}", kind="meta", replace=True)]])
    assert _part_of_word(store) == []
    _consistent(store)
    # Rewound away, and its source removed: nothing left behind, nothing deleted twice.
    _write(store, "/t/a.jsonl.4", [[Rewind("s1", "dev")]])
    with store.archive.transaction():
        store.items.clear_source(1)
    assert store.db.execute("SELECT COUNT(*) FROM messages").fetchone()[0] == 0
    _consistent(store)
