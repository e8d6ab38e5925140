"""claude.ai and ChatGPT exports, and the pasted-block rule."""

from __future__ import annotations

import zipfile

from agent_helpers import AGENT_SAMPLES, parse_records

from hansard.agents.webchat import exports as webchat
from hansard.values.models import EditItem, MessageItem, SessionInfo

CHATGPT = AGENT_SAMPLES / "chatgpt_conversations.json"
CLAUDE = AGENT_SAMPLES / "claude_web_conversations.json"


def test_chatgpt_zip_current_branch(tmp_path):
    z = tmp_path / "export.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.write(CHATGPT, "conversations.json")
        zf.writestr("user.json", "{}")
    assert webchat.sniff_export(str(z)) == "chatgpt"
    recs, _ = webchat.records(str(z))
    items, _ = parse_records(webchat.PROVIDER_CHATGPT, str(z), recs)
    assert not [i for i in items if isinstance(i, EditItem)]
    [info] = [i for i in items if isinstance(i, SessionInfo)]
    assert (info.session_id, info.provider, info.title) == \
        ("chatgpt:6a1f0c2e-1111-4a2b-8c3d-0e1f2a3b4c5d", "chatgpt", "Slugify helper")
    msgs = [(m.key, m.kind) for m in items if isinstance(m, MessageItem)]
    assert msgs == [("n1", "text"), ("n3", "text"), ("n4", "text"), ("n2", "revision")]


def test_claude_web_json():
    assert webchat.sniff_export(str(CLAUDE)) == "claude_web"
    recs, _ = webchat.records(str(CLAUDE))
    items, _ = parse_records(webchat.PROVIDER_CLAUDE_WEB, str(CLAUDE), recs)
    msgs = [m for m in items if isinstance(m, MessageItem)]
    assert [m.role for m in msgs] == ["user", "assistant"]
    assert msgs[1].text.startswith("Use a regular expression")  # empty `text`, content blocks used
    [block] = webchat.code_blocks(msgs[1].text)
    assert block[0].startswith("DURATION = re.compile")


def test_pasted_rule():
    block = webchat.code_blocks(CHATGPT.read_text().split('"A sturdier version:')[1].split('It keeps')[0]
                                .encode().decode("unicode_escape"))[0]
    file_lines = ["import re", "", "", "def slugify(title):", '    words = re.findall(r"[a-z0-9]+", title.lower())',
                  '    joined = "-".join(words)', '    return joined[:60].rstrip("-")', "", "print(slugify('A b'))"]
    assert webchat.match_pasted(file_lines, block) == {3, 4, 5, 6}
    # a lone common line never matches, nor two lines
    assert webchat.match_pasted(["def slugify(title):", "x = 1"], block) == set()
    assert webchat.match_pasted(["def slugify(title):", '    joined = "-".join(words)'], block) == set()
    # out of order is not a run
    assert webchat.match_pasted(file_lines[6:2:-1], block) == set()
    # whitespace differences do not matter
    assert webchat.match_pasted(["  " + x.strip() for x in file_lines[3:7]], block) == {0, 1, 2, 3}


def test_not_an_export(tmp_path):
    f = tmp_path / "conversations.json"
    f.write_text('{"a": 1}')
    assert webchat.sniff_export(str(f)) is None and webchat.records(str(f)) is None
