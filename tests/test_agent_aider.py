"""Aider chat history: the written sample, the real sample, incremental reads."""

from __future__ import annotations

import shutil

from agent_helpers import AGENT_SAMPLES, edits, parse_lines, skips

from hansard.agents.aider import history as aider
from hansard.values.models import MessageItem, SessionInfo, ToolResultItem

SAMPLE = AGENT_SAMPLES / "aider.chat.history.md"


def test_sniff_by_content(tmp_path):
    assert aider.PROVIDER.sniff(SAMPLE, SAMPLE.read_bytes()[:65536])
    other = tmp_path / "x.md"
    other.write_text("# notes\n\n#### not aider\n")
    assert not aider.PROVIDER.sniff(other, other.read_bytes())


def test_written_sample():
    items, _ = parse_lines(aider.PROVIDER, SAMPLE)
    sessions = {i.session_id for i in items if isinstance(i, SessionInfo)}
    assert len(sessions) == 1
    info = next(i for i in items if isinstance(i, SessionInfo) and i.started_at)
    assert info.started_at == "2026-03-02T10:15:00" and info.cwd == str(AGENT_SAMPLES)
    titles = [i.title for i in items if isinstance(i, SessionInfo) and i.title]
    assert titles == ["add a retry helper with capped exponential backoff to net/retry.py"]
    applied = edits(items, "applied")
    assert [(e.path, e.kind) for e in applied] == [("net/retry.py", "create")]
    assert "            time.sleep(min(cap, base * 2 ** attempt))" in applied[0].added
    # net/client.py got no "Applied edit" line: it did not land
    failed = edits(items, "failed")
    assert [(e.path, e.added, e.removed) for e in failed] == [
        ("net/client.py", ("    return retry(lambda: session.get(url))",), ("    return session.get(url)",))]
    # blank lines inside the block were restored from the offset gaps
    assert applied[0].added[1] == "" and applied[0].added[2] == ""
    commits = [i for i in items if isinstance(i, ToolResultItem) and i.call_id.endswith(":commit")]
    assert [c.output for c in commits] == ["[aider 1a2b3c4] feat: add retry helper with capped backoff"]
    msgs = {}
    for i in items:
        if isinstance(i, MessageItem):
            msgs[i.key] = i  # replace=True: the last copy wins
    roles = [(m.role, m.kind) for m in msgs.values() if m.kind != "tool_use"]
    assert roles == [("user", "text"), ("assistant", "text"), ("user", "meta"), ("user", "text"), ("assistant", "text")] or \
        ("user", "meta") in roles
    assert not skips(items)


def test_incremental_equals_whole(tmp_path):
    data = SAMPLE.read_bytes()
    cut = data.index(b"> Applied edit")
    f = tmp_path / ".aider.chat.history.md"
    f.write_bytes(data[:cut])
    first, state = parse_lines(aider.PROVIDER, f)
    end = len(data[:cut])
    f.write_bytes(data)
    second, _ = parse_lines(aider.PROVIDER, f, state, end)
    whole, _ = parse_lines(aider.PROVIDER, f)
    assert [(e.path, e.status, e.added) for e in edits(first + second)] == [(e.path, e.status, e.added) for e in edits(whole)]


def test_real_sample(samples, tmp_path):
    src = samples / "aider" / "simple-calculator.aider.chat.history.md"
    assert aider.PROVIDER.sniff(src, src.read_bytes()[:65536])
    f = tmp_path / ".aider.chat.history.md"
    shutil.copyfile(src, f)
    items, _ = parse_lines(aider.PROVIDER, f)
    applied = edits(items, "applied")
    # 17 "Applied edit to" lines name a file whose blocks are in the reply; one names prose.
    assert len({(e.call_id) for e in applied}) == 17
    assert skips(items) == {"edit_without_blocks": 1}
    paths = {e.path for e in applied}
    assert {"src/App.js", "src/styles.css", "src/components/ButtonsContainer.jsx"} <= paths
    first = applied[0]
    assert first.added == ('import React, { useState, useEffect } from "react";',)
    commits = [i.output for i in items if isinstance(i, ToolResultItem) and i.call_id.endswith(":commit")]
    assert commits[0] == "[aider c339495] aider: the latest updates with a proper commit mesage"
