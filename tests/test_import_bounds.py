"""`hansard import` within bounds: a web-chat export streams in one
conversation at a time, and its size, one conversation's size, its depth and its count of
messages each stop the import with a typed error (exit code 23) before it takes the memory of
the machine. A zip bomb and a deep export are built in the test; the bounds are lowered so the
files stay small."""

from __future__ import annotations

import json
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from hansard.agents.webchat import exports
from tests.helpers import run_cli

SAMPLE = Path(__file__).resolve().parent / "agent_samples" / "claude_web_conversations.json"


def _conv(i: int, messages: int = 2, text: str = "hello") -> dict:
    return {"uuid": f"conv-{i}", "name": f"chat {i}", "created_at": "2026-03-04T08:00:00.000000Z",
            "chat_messages": [{"uuid": f"m-{i}-{j}", "text": text, "sender": "human" if j % 2 == 0 else "assistant",
                               "created_at": "2026-03-04T08:00:01.000000Z"} for j in range(messages)]}


def _imported(*args: str) -> tuple[int, dict, str]:
    code, out, err = run_cli("import", *args, "--json")
    return code, (json.loads(out) if out.strip() else {}), err


def _sessions() -> list:
    code, out, err = run_cli("sessions", "--include-web-chats", "--json")
    assert code == 0, err
    data = json.loads(out)
    return data["sessions"] if isinstance(data, dict) else data


def test_a_zip_bomb_stops_at_the_export_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exports, "MAX_EXPORT_BYTES", 8 << 20, raising=False)
    bomb = tmp_path / "export.zip"
    head = json.dumps([_conv(0)])[:-1] + ", "
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        with zf.open("conversations.json", "w", force_zip64=True) as w:
            w.write(head.encode())
            pad = b" " * (1 << 20)
            for _ in range(48):  # 48 MiB of whitespace inside the list: a few kB zipped
                w.write(pad)
            w.write(json.dumps(_conv(1)).encode() + b"]")
    assert bomb.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        code, out, err = _imported(str(bomb))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert code == 23 and out["error"]["code"] == "export_too_large", (code, out, err)
    assert "Traceback" not in err
    assert peak < 24 << 20, peak  # never the whole 48 MiB (twice, as bytes and parsed)
    assert _sessions() == []  # nothing written


def test_a_plain_file_past_the_bound_is_refused_while_streaming(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exports, "MAX_EXPORT_BYTES", 1 << 20, raising=False)
    f = tmp_path / "conversations.json"
    f.write_text(json.dumps([_conv(i, text="x" * 1000) for i in range(3000)]))  # ~3 MB
    code, out, err = _imported(str(f))
    assert code == 23 and out["error"]["code"] == "export_too_large", (code, out, err)


def test_one_conversation_past_its_bound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exports, "MAX_CONVERSATION_BYTES", 64 << 10, raising=False)
    f = tmp_path / "conversations.json"
    f.write_text(json.dumps([_conv(0), _conv(1, messages=200, text="y" * 1000)]))
    code, out, err = _imported(str(f))
    assert code == 23 and out["error"]["code"] == "export_entry_too_large", (code, out, err)
    assert out["error"]["details"]["limit"] == 64 << 10


def test_a_deep_export_is_a_typed_error_not_a_crash(tmp_path: Path) -> None:
    deep: object = "bottom"
    for _ in range(250):
        deep = {"nested": [deep]}
    conv = _conv(0)
    conv["chat_messages"][0]["attachments"] = [deep]
    f = tmp_path / "conversations.json"
    f.write_text(json.dumps([conv]))
    code, out, err = _imported(str(f))
    assert code == 23 and out["error"]["code"] == "export_too_deep", (code, out, err)
    assert "Traceback" not in err and "Recursion" not in err


def test_too_many_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exports, "MAX_MESSAGES", 10, raising=False)
    f = tmp_path / "conversations.json"
    f.write_text(json.dumps([_conv(i, messages=3) for i in range(4)]))  # 4 + 12
    code, out, err = _imported(str(f))
    assert code == 23 and out["error"]["code"] == "export_too_many_messages", (code, out, err)
    assert _sessions() == []


def test_within_the_bounds_an_export_imports_as_before(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(exports, "READ_BLOCK", 7, raising=False)  # elements cut across every block
    z = tmp_path / "export.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.write(SAMPLE, "data/conversations.json")
    code, out, err = _imported(str(z))
    assert code == 0, err
    assert [s["session_id"] for s in _sessions()] == ["claude_web:0c9e7d2a-2222-4b3c-9d4e-5f6a7b8c9d0e"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps([_conv(0)])[:-1] + ", {\"uuid\": ")
    code, out, err = _imported(str(broken))
    assert code == 2 and out["error"]["code"] == "invalid_argument", (code, out, err)
