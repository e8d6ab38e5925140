"""Nothing from a transcript becomes markup or a link: hansard.render.markdown
against an injection corpus, and the LSP hover built from an answer whose every string is hostile.
Where node and the VS Code extension's markdown-it are installed (CI), the escaped text is also
rendered by a real CommonMark renderer, with HTML and linkify on, and must come out as text."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from hansard.lsp import marks
from hansard.render.markdown import code, escape

ACTIVE = set("\\`*_{}[]<>()#+-.!|~&$@")

CORPUS = [
    "x` [Click](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%5Cn%22%7D) `",
    "```x``` [a](command:x)",
    "``````````",
    "`` ` ``",
    "[Click](command:workbench.action.terminal.sendSequence?{\"text\":\"id\\n\"})",
    "[a][ref]\n\n[ref]: command:evil",
    "![img](https://evil.example/pixel.png)",
    "<command:workbench.action.terminal.sendSequence>",
    "<https://evil.example>",
    "https://evil.example/x and www.evil.example and mail me@evil.example",
    "<img src=x onerror=alert(1)>",
    "<a href=\"command:x\">click</a>",
    "</p><script>alert(1)</script>",
    "line one\n# heading\n\n- list\n> quote\n===\n",
    "two\r\nlines\u2028and\u2029more\x85next\x0bvt",
    "*em* **strong** _u_ __uu__ ~~s~~ `c`",
    "&amp; &lt;b&gt; &#x3C;img&#x3E; &#60;",
    "$(terminal) $(alert~spin) icons",
    "a | table | row\n|---|---|",
    "\\[not a link\\](command:x)",
    "trailing backslash \\",
    "\u202eevil\u202c bidi \x00nul \x1bescape",
    "1. ordered\n2) also",
    "[![x](y)](command:z)",
    "[x](<command:y>) [x](javascript:alert(1))",
]


def _unescape(md: str) -> str:
    """The text a CommonMark renderer shows for ``md`` when it holds only backslash escapes of
    active characters and plain characters; fails on any active character left bare."""
    out, i = [], 0
    while i < len(md):
        ch = md[i]
        if ch == "\\":
            assert i + 1 < len(md) and (md[i + 1] in ACTIVE or md[i + 1] == ":"), md
            out.append(md[i + 1])
            i += 2
            continue
        assert ch not in ACTIVE, (ch, md)
        assert not (ch == ":" and md.startswith("//", i + 1)), md
        out.append(ch)
        i += 1
    return "".join(out)


@pytest.mark.parametrize("text", CORPUS)
def test_escape_leaves_one_line_of_plain_text(text: str) -> None:
    md = escape(text)
    assert "\n" not in md and "\r" not in md
    assert all(ch.isprintable() for ch in md)
    expected = "".join(ch for ch in " ".join(text.split()) if ch.isprintable())
    assert _unescape(md) == expected


@pytest.mark.parametrize("text", CORPUS)
def test_code_spans_only_plain_ids(text: str) -> None:
    c = code(text)
    assert c == escape(text)  # none of the corpus is a plain id
    assert code("toolu_014f0f2c0001Demo") == "`toolu_014f0f2c0001Demo`"
    assert code("4f0f2c6e-9d1b") == "`4f0f2c6e-9d1b`"


def _hostile_answer(evil: str) -> tuple[dict, dict]:
    sid = evil
    ln = {"line": 1, "kind": "agent", "session_id": sid, "provider": "claude_code", "message_index": evil,
          "tool_call_id": evil, "tool": evil, "commit": "c0ffee", "rule": "wrote", "member": evil,
          "later_sessions": [evil, evil]}
    ans = {"lines": [ln], "commits": {"c0ffee": {"summary": evil, "author": evil, "author_time": 0, "author_tz": "+0000"}},
           "sessions": {sid: {"title": evil, "started_at": evil, "prompt": evil, "parent_session_id": evil,
                              "member": evil}}}
    return ans, ln


def _links(md: str) -> list[str]:
    """Targets of inline links, left after removing escaped characters."""
    import re

    bare = re.sub(r"\\.", "", md)
    return re.findall(r"\]\(([^)]*)\)", bare)


@pytest.mark.parametrize("evil", CORPUS)
def test_hover_has_only_hansards_own_link(evil: str) -> None:
    ans, ln = _hostile_answer(evil)
    md = marks.hover_markdown(ans, ln, lambda p: evil, lambda line: evil)
    links = _links(md)
    assert len(links) == 1 and links[0].startswith("command:hansard.showConversation?"), md
    args = links[0].split("?", 1)[1]
    assert all(ch.isalnum() or ch in "%._-~" for ch in args), args  # percent-encoded: nothing breaks out
    from urllib.parse import unquote

    assert json.loads(unquote(args)) == [evil, evil]
    for para in md.split("\n\n"):
        assert "\n" not in para  # no line of the hover is a transcript's heading, list or quote
    # No backtick outside hansard's own code spans of plain ids.
    import re

    assert "`" not in re.sub(r"\\`|`[A-Za-z0-9._:/ -]+`", "", md), md


@pytest.mark.parametrize("evil", CORPUS)
def test_a_plain_text_hover_is_lines_of_text(evil: str) -> None:
    """For a client that takes plain text (Neovim), which shows it as it is (a transcript's
    "[x](command:...)" is those characters): hansard's own link is left out, and each paragraph
    is one line with no control character, whatever a transcript says."""
    ans, ln = _hostile_answer(evil)
    text = marks.hover_markdown(ans, ln, lambda p: evil, lambda line: evil, markdown=False, links=False)
    assert "[Open the conversation]" not in text and "command:hansard" not in text
    for para in text.split("\n\n"):
        assert "\n" not in para and all(ch.isprintable() for ch in para), repr(para)
    assert "the conversation: hansard show " in text


MARKDOWN_IT = Path(__file__).resolve().parents[1] / "editors" / "vscode" / "node_modules" / "markdown-it"


def test_a_real_renderer_shows_text_only() -> None:
    node = shutil.which("node")
    if node is None or not MARKDOWN_IT.is_dir():
        pytest.skip("node or editors/vscode/node_modules/markdown-it is not installed")
    script = (
        "const md = require(process.argv[1])({html: true, linkify: true});"
        "const items = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(items.map(s => md.render(s))));"
    )
    docs = [escape(t) for t in CORPUS]
    ans, ln = _hostile_answer(CORPUS[0])
    docs.append(marks.hover_markdown(ans, ln, lambda p: CORPUS[0], lambda line: CORPUS[0]))
    out = subprocess.run([node, "-e", script, str(MARKDOWN_IT)], input=json.dumps(docs), capture_output=True,
                         text=True, timeout=60, check=True)
    html = json.loads(out.stdout)
    for text, h in zip(docs[:-1], html[:-1], strict=True):
        assert "<a " not in h and "<img" not in h and "<script" not in h and "<h1" not in h, (text, h)
        assert "<em>" not in h and "<strong>" not in h and "<li>" not in h and "<blockquote>" not in h, (text, h)
    hover = html[-1]
    assert hover.count("<a ") == 1 and 'href="command:hansard.showConversation?' in hover, hover
    assert "<img" not in hover and "<code>" in hover, hover  # the session id is data of hansard's own link
