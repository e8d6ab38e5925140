"""A field of an unexpected JSON type (an object or a list where a string belongs, output
nested deeper than a JSON writer goes) is a counted skip with a reason, never a parser error,
and never stops a sniffer from recognising the rest of the file. Seen by scripts/fuzz.py: 27
Codex records were `parser_error` (`unhashable type: 'dict'`), and Gemini output nested 300
deep lost its record."""

from __future__ import annotations

from pathlib import Path

import orjson

from hansard import agents
from hansard.agents.base import as_text
from hansard.agents.codex.rollout import PROVIDER as CODEX
from hansard.values.models import MessageItem, RawRecord, Skip


def _feed(provider, path: str, lines: list[bytes]) -> list:
    parser, items, off = provider.new_parser(path), [], 0
    for data in lines:
        items += parser.feed(RawRecord(path, off, data))
        off += len(data) + 1
    return items + parser.finish()


def test_codex_response_item_with_an_object_for_its_type_is_a_bad_field(samples: Path) -> None:
    lines = (samples / "codex/entire_codex_0.125/full.jsonl").read_bytes().splitlines()
    odd = [i for i, line in enumerate(lines) if b'"type":"response_item"' in line][3]
    obj = orjson.loads(lines[odd])
    for weird in ({"a": 1}, ["message"], 7):
        obj["payload"]["type"] = weird
        items = _feed(CODEX, "x.jsonl", [*lines[:odd], orjson.dumps(obj), *lines[odd + 1:]])
        skips = [i for i in items if isinstance(i, Skip)]
        assert not [s for s in skips if s.reason == "parser_error"], skips
        assert any(s.reason == "bad_field" and s.detail == "response_item.type" for s in skips)
        # Only that record is lost: the rest of the file reads as before.
        assert len([i for i in items if isinstance(i, MessageItem)]) >= len(
            [i for i in _feed(CODEX, "x.jsonl", lines) if isinstance(i, MessageItem)]) - 1


def test_sniffers_look_past_a_first_line_with_an_object_for_its_type(samples: Path, tmp_path: Path) -> None:
    for agent, sample in (("codex", "codex/entire_codex_0.125/full.jsonl"),
                          ("claude_code", "claude-code/entire_edit_small/full.jsonl")):
        lines = (samples / sample).read_bytes().splitlines()
        first = orjson.loads(lines[0])
        first["type"] = {"kind": "from a newer version"}
        path = tmp_path / agent / "s.jsonl"
        path.parent.mkdir()
        path.write_bytes(b"\n".join([orjson.dumps(first), *lines[1:]]) + b"\n")
        found = agents.sniff(path)
        assert found is not None and found.name == agent, (agent, found)


def test_output_nested_deeper_than_json_writes_still_gives_text() -> None:
    deep: object = {"x": 1}
    for _ in range(300):
        deep = {"inner": deep}
    assert as_text(deep) == "[output nested too deeply to show as text]"
    assert as_text({"inner": {"x": 1}}) == '{"inner":{"x":1}}'


def test_gemini_tool_call_with_an_object_for_its_status_keeps_its_record(samples: Path) -> None:
    from hansard.agents.gemini.chats import PROVIDER as GEMINI
    from hansard.values.models import ToolCallItem

    lines = (samples / "gemini-cli/gitai_gemini-session-simple.jsonl").read_bytes().splitlines()
    odd = next(i for i, line in enumerate(lines) if b'"toolCalls"' in line)
    obj = orjson.loads(lines[odd])
    for weird in ({"state": "success"}, ["success"]):
        obj["toolCalls"][0]["status"] = weird
        items = _feed(GEMINI, "x.jsonl", [*lines[:odd], orjson.dumps(obj), *lines[odd + 1:]])
        assert not [s for s in items if isinstance(s, Skip) and s.reason == "parser_error"], weird
        # The call is still read; with no status it has no result (yet).
        assert obj["toolCalls"][0]["id"] in {i.call_id for i in items if isinstance(i, ToolCallItem)}


def test_codex_reasoning_with_a_number_for_its_summary_keeps_its_record(samples: Path) -> None:
    lines = (samples / "codex/entire_codex_0.121/full.jsonl").read_bytes().splitlines()
    odd = next(i for i, line in enumerate(lines) if b'"type":"reasoning"' in line)
    obj = orjson.loads(lines[odd])
    for weird in (7, 1.5, True):
        obj["payload"]["summary"] = weird
        obj["payload"]["content"] = [{"type": "reasoning_text", "text": "check the retry cap first"}]
        items = _feed(CODEX, "x.jsonl", [*lines[:odd], orjson.dumps(obj), *lines[odd + 1:]])
        assert not [s for s in items if isinstance(s, Skip) and s.reason == "parser_error"], weird
        assert any(isinstance(i, MessageItem) and "retry cap" in i.text for i in items)
