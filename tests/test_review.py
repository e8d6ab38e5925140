"""`hansard review`: a branch written by a Claude Code and a Codex session, a person's change to
an agent's line before committing it, a block pasted from a web chat, a line no session
explains, a test that failed and then passed in one session and a session that ran no test
after its last edit. The review must say all of it, in text, JSON (valid against its schema)
and Markdown, and every added line must carry exactly the answer `why` gives it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fixtures_repos.check import env_for
from fixtures_repos.scenarios import Build, Scenario, src
from fixtures_repos.writers_more import ChatGPTExport
from tests.helpers import cli_json, run_cli

SCHEMA = Path(__file__).resolve().parents[1] / "docs" / "review.schema.json"


def branch(base: Path) -> tuple[Scenario, dict[str, str]]:
    """The repository (on branch ``feature``, ``main`` its default branch) and the ids the test
    names: the two sessions, and the chat."""
    b = Build("review_branch", base)
    r = b.init()
    r.write("README.md", "# words\n")
    r.write("src/text.py", src('''
        import re


        def words(text):
            return re.findall(r"[a-z0-9]+", text.lower())
    '''))
    b.commit(r, "Initial commit")
    r.checkout("feature", create=True)

    cc = b.claude(r.path, branch="feature")
    cc.prompt("Add a slugify helper for blog titles, with a test")
    cc.write(r.path / "src/slug.py", src('''
        import re


        def slugify(title: str, max_len: int = 60) -> str:
            parts = re.findall(r"[a-z0-9]+", title.lower())
            slug = "-".join(parts)
            return slug[:max_len].rstrip("-")
    '''))
    cc.write(r.path / "tests/test_slug.py", src('''
        from src.slug import slugify


        def test_slugify_joins_words_with_dashes():
            assert slugify("Hello, World!") == "hello-world"


        def test_slugify_cuts_at_a_dash():
            assert slugify("a" * 30 + " " + "b" * 40, max_len=40) == "a" * 30
    '''))
    cc.bash("env | grep AWS", stdout="AWS_ACCESS_KEY_ID=" + "AKIA" + "Q7ZP3MW9XK2T5RVB\n")  # redacted when indexed
    cc.bash("python -m pytest -q tests/test_slug.py",
            stdout="F.\n1 failed, 1 passed in 0.03s\nFAILED tests/test_slug.py::test_slugify_cuts_at_a_dash\n")
    cc.prompt("yes, fix it")
    cc.edit(r.path / "src/slug.py", '    return slug[:max_len].rstrip("-")\n',
            '    if len(slug) > max_len:\n        slug = slug[:max_len].rsplit("-", 1)[0]\n    return slug\n')
    cc.bash("python -m pytest -q tests/test_slug.py", stdout="..\n2 passed in 0.02s\n")
    cc.say("slugify is in src/slug.py; both tests pass.")
    # a person changes one of the agent's lines before committing
    r.replace("src/slug.py", "def slugify(title: str, max_len: int = 60) -> str:",
              "def slugify(title: str, max_len: int = 64) -> str:")
    b.commit(r, "Slugs for blog titles")

    cx = b.codex(r.path, branch="feature")
    cx.prompt("Add a function that counts the words of a text, in src/count.py")
    cx.exec("python -m pytest -q", output="2 passed in 0.02s\n")
    from fixtures_repos.writers import Add

    cx.apply_patch(Add(r.path / "src/count.py", src('''
        from collections import Counter

        from src.text import words


        def word_counts(text: str) -> Counter[str]:
            """How often each word occurs in ``text``."""
            return Counter(words(text))
    ''')))
    cx.end_turn("Added word_counts in src/count.py.")
    b.commit(r, "Word counts")

    b.later(60)
    chats = ChatGPTExport(b.clock, seed=b.name)
    answer = src('''
        Here is one:

        ```python
        def title_case(text: str) -> str:
            small = {"a", "an", "the", "of", "in", "on"}
            out = [w if i and w in small else w.capitalize() for i, w in enumerate(text.split())]
            return " ".join(out)
        ```
    ''')
    cid, _ = chats.conversation("Title case", [("a python title_case that keeps small words lower", answer)])
    export = chats.write(b.base / "exports" / "conversations.json")
    b.later(120)
    r.write("src/text.py", r.read("src/text.py") + "\n\n" + src('''
        def title_case(text: str) -> str:
            small = {"a", "an", "the", "of", "in", "on"}
            out = [w if i and w in small else w.capitalize() for i, w in enumerate(text.split())]
            return " ".join(out)
    '''))
    b.commit(r, "Title case")
    # a later commit by a person changes a line the Codex session wrote and committed
    r.replace("src/count.py", '    """How often each word occurs in ``text``."""',
              '    """How often each word occurs in ``text`` (case folded)."""')
    b.commit(r, "Say that counts fold case")
    scn = b.scenario(r, {})
    scn.imports.append(export)
    return scn, {"claude": cc.session_id, "codex": cx.session_id, "chat": f"chatgpt:{cid}"}


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The branch indexed (the chat imported) into its own store: (scenario, ids, environment)."""
    from hansard.app.house import Hansard
    from hansard.ingest.run import index
    from hansard.ingest.webchat_import import import_export

    base = tmp_path_factory.mktemp("review")
    scn, ids = branch(base / "build")
    env = {**env_for(scn, base / "store"), "HANSARD_NO_BACKGROUND": "1"}
    mp = pytest.MonkeyPatch()
    for var, value in env.items():
        mp.setenv(var, value)
    with Hansard(sync=False).request(write=True) as rq:
        index(rq.store)
        for e in scn.imports:
            import_export(rq.store, e)
    mp.undo()
    return scn, ids, env


@pytest.fixture
def built(indexed: Any, monkeypatch: pytest.MonkeyPatch) -> tuple[Scenario, dict[str, str]]:
    """In the branch's repository, with its store and agent homes."""
    scn, ids, env = indexed
    for var, value in env.items():
        monkeypatch.setenv(var, value)
    monkeypatch.chdir(scn.repo)
    return scn, ids


def _why(repo: Path, rel: str, rev: str) -> dict[int, dict[str, Any]]:
    doc = cli_json("why", rel, "--rev", rev, "--json")
    return {ln["line"]: ln for ln in doc["lines"]}


def test_the_review_tells_the_branchs_story(built: Any) -> None:
    scn, ids = built
    r = cli_json("review", "--json")  # default: the branch against the default branch (main)
    assert r["schema"] == "hansard.review/1"
    assert r["range"]["how"] == "default_branch" and r["range"]["spec"] == "main...HEAD"
    assert r["range"]["commits"] == 4
    files = {f["path"]: f for f in r["files"]}
    assert set(files) == {"src/slug.py", "tests/test_slug.py", "src/count.py", "src/text.py"}
    kinds = r["totals"]["by_kind"]
    assert kinds["agent"] > 0 and kinds["agent_modified"] >= 1 and kinds["pasted"] == 4 and kinds["unknown"] >= 1
    assert r["totals"]["lines"] == sum(f["added"] for f in r["files"]) == sum(kinds.values())
    assert set(r["totals"]["by_agent"]) == {"claude_code", "codex", "chatgpt"}

    sessions = {s["session_id"]: s for s in r["sessions"]}
    claude, codex = sessions[ids["claude"]], sessions[ids["codex"]]
    # the request, not the acknowledgement that let the agent go on
    assert [q["text"] for q in claude["requests"]] == ["Add a slugify helper for blog titles, with a test"]
    assert claude["files"] == ["src/slug.py", "tests/test_slug.py"]
    assert [t["outcome"] for t in claude["tests_after_last_edit"]] == ["passed"] and claude["tested"] == "passed"
    assert claude["summary"] == "slugify is in src/slug.py; both tests pass."
    assert claude["open"].startswith(f"hansard show {ids['claude']} --around ")
    assert claude["source"] == {"kind": "local"}
    assert codex["tested"] == "none" and codex["tests_after_last_edit"] == []
    assert codex["summary"] == "Added word_counts in src/count.py."
    assert codex["requests"][0]["text"] == "Add a function that counts the words of a text, in src/count.py"

    flags = r["flags"]
    assert ids["codex"] in flags["untested"] and ids["claude"] not in flags["untested"]
    assert flags["tests_failed"] == []
    changed = {(x["path"], x["kind"], x["rule"]) for x in flags["changed"]}
    assert ("src/slug.py", "agent_modified", "modified") in changed  # changed before it was committed
    assert ("src/count.py", "unknown", "changed_later") in changed  # changed by a later commit
    later = next(x for x in flags["changed"] if x["rule"] == "changed_later")
    assert later["alternatives"] == [ids["codex"]]
    assert any(x["path"] == "src/count.py" for x in flags["unexplained"])
    assert flags["redacted_sessions"] == [ids["claude"]] and claude["redactions"] == 1 and codex["redactions"] == 0
    assert "AKIA" not in json.dumps(r)

    # every added line carries why's answer at the head, line for line
    head = r["range"]["head"]
    for f in r["files"]:
        why = _why(scn.repo, f["path"], head)
        assert [ln["line"] for ln in f["lines"]] == [n for h in f["hunks"]
                                                     for n in range(h["new_start"], h["new_start"] + h["new_lines"])]
        for ln in f["lines"]:
            assert ln == why[ln["line"]], (f["path"], ln["line"])
        runs = [(n, run) for h in f["hunks"] for run in h["runs"] for n in range(run["start"], run["end"] + 1)]
        assert [n for n, _ in runs] == [ln["line"] for ln in f["lines"]]
        for n, run in runs:
            assert (run["kind"], run["session_id"], run["commit"]) == \
                   (why[n]["kind"], why[n]["session_id"], why[n]["commit"])


def test_the_json_validates_against_its_schema(built: Any) -> None:
    import jsonschema

    from hansard.app import commands

    r = cli_json("review", "main..feature", "--json")
    schema = json.loads(SCHEMA.read_text())
    assert schema["$id"] == r["schema"] == commands.REVIEW.schema
    jsonschema.validate(r, schema)
    broken = {**r, "files": [{**r["files"][0], "hunks": "none"}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


def test_the_markdown_names_both_sessions_beside_their_hunks_and_flags_the_reviewers_lines(built: Any) -> None:
    scn, ids = built
    code, md, err = run_cli("review", "main..feature", "--markdown")
    assert code == 0, err
    assert len(md) <= 65_536
    assert md.count("<details>") == 4 and md.count("</details>") == 4
    sessions_part, files_part = md.split("### Files, shortest first")
    assert f"`{ids['claude']}`" in sessions_part and f"`{ids['codex']}`" in sessions_part
    assert "Add a slugify helper for blog titles, with a test" in sessions_part
    assert "its last test run after its last edit passed" in sessions_part
    assert f"**Untested:** session `{ids['codex'][:13]}`" in md
    assert "**Agent lines changed since:** src/slug\\.py" in md
    assert "**No session explains:** src/count\\.py" in md
    # beside their hunks: each file's table names the session that wrote its runs, and its request
    slug = files_part[files_part.index("src/slug\\.py"):]
    slug = slug[:slug.index("</details>")]
    assert ids["claude"][:13].replace("-", "\\-") in slug and "Add a slugify helper" in slug
    count = files_part[files_part.index("src/count\\.py"):]
    count = count[:count.index("</details>")]
    assert ids["codex"][:13].replace("-", "\\-") in count and "counts the words of a text" in count
    # shortest first
    order = [files_part.index(p) for p in ("src/text\\.py", "src/count\\.py", "src/slug\\.py")]
    assert order == sorted(order)


def test_the_text_and_the_page_agree_with_why_line_for_line(built: Any) -> None:
    """Every added line, read back from the terminal text (its file's runs: lines, who) and
    from the review page (each row's kind and session), is what `why` answers for it."""
    import html
    import re

    from hansard.app.house import Hansard
    from hansard.render.review import KIND_WORDS
    from hansard.web import core, pages
    from hansard.web.highlight import lines_html
    from hansard.web.html import Links

    scn, ids = built
    code, text, err = run_cli("review", "main..feature")
    assert code == 0, err
    head = cli_json("review", "main..feature", "--json")["range"]["head"]
    why = {rel: _why(scn.repo, rel, head) for rel in ("src/slug.py", "tests/test_slug.py", "src/count.py",
                                                      "src/text.py")}
    words = {v: k for k, v in KIND_WORDS.items()}
    seen: dict[str, set[int]] = {}
    for block in text.split("\n\n"):
        first, *rows = block.splitlines()
        rel = first.split("  ")[0]
        if rel not in why:
            continue
        for row in rows:
            m = re.match(r"\s+(\d+)(?:-(\d+))?  ([^:]+?)(?::| {2}|$)", row)
            assert m, row
            a, b = int(m[1]), int(m[2] or m[1])
            for n in range(a, b + 1):
                assert words[m[3]] == why[rel][n]["kind"], (rel, n, row)
                sid = why[rel][n]["session_id"]
                assert sid is None or sid[:13] in row, (rel, n, row)
                seen.setdefault(rel, set()).add(n)
    with Hansard(sync=False).request() as rq:
        r = core.review(rq, str(scn.repo), "main..feature", None)
        page = str(pages.review_page(Links("t"), str(scn.repo), r, {
            f["path"]: lines_html(f["path"], [ln["content"] for ln in f["lines"]]) for f in r["files"]}))
    rows = re.findall(r'<tr id="F([^"]+):(\d+)" class="[^"]*" data-kind="([^"]*)" data-session="([^"]*)"', page)
    assert {(html.unescape(p), int(n)) for p, n, _, _ in rows} == {(rel, n) for rel, ns in seen.items() for n in ns}
    for p, n, kind, sid in rows:
        expected = why[html.unescape(p)][int(n)]
        named = expected["session_id"] if expected["session_id"] != ids["chat"] else None  # a chat: no repository's
        assert (kind, sid) == (expected["kind"], named or ""), (p, n)
    assert f"session {ids['codex'][:13]}: it ran no test after its last edit" in text


def test_markdown_is_cut_to_its_limit_with_a_note_and_escapes_what_it_shows() -> None:
    from hansard.render.review import review_markdown

    hostile = "[x](javascript:alert(1)) <img src=x onerror=alert(1)> **b** `c` </details>"
    run = {"start": 1, "end": 3, "kind": "agent", "session_id": "s1", "provider": "claude_code", "message_index": 2,
           "tool_call_id": "t", "commit": "a" * 40, "asked": hostile, "asked_index": 1}
    files = [{"path": f"src/{hostile}{i}.py", "old_path": None, "status": "added", "added": 3 + i, "removed": 0,
              "hunks": [{"old_start": 0, "old_lines": 0, "new_start": 1, "new_lines": 3, "runs": [run] * 20}],
              "lines": []} for i in range(200)]
    session = {"session_id": "s1", "provider": "claude_code", "title": hostile, "started_at": None,
               "source": {"kind": "local"}, "requests": [{"index": 1, "text": hostile, "lines": 3}],
               "files": [f["path"] for f in files[:3]], "lines": 3, "last_edit_index": 2,
               "tests_after_last_edit": [], "tested": "none", "still_failing": [],
               "commands_after_last_edit": [{"command": hostile, "message_index": 3, "exit_code": 0}],
               "summary": hostile, "summary_index": 4, "redactions": 0, "open": "hansard show s1 --around 1"}
    r = {"schema": "hansard.review/1", "repo": "/r", "range": {"spec": hostile, "how": "range", "base": None,
                                                               "head": "b" * 40, "commits": 1},
         "files": files, "sessions": [session], "commits": {},
         "flags": {"unexplained": [], "changed": [], "tests_failed": [], "untested": ["s1"], "redacted_lines": [],
                   "redacted_sessions": []},
         "totals": {"lines": 600, "files": 200, "by_kind": {"agent": 600}, "by_agent": {"claude_code": 600},
                    "by_session": {"s1": 600}}, "sources": {"read": [], "unread": []}}
    md = review_markdown(r, limit=20_000)
    assert len(md) <= 20_000
    assert "files left out (the longest)" in md
    import re

    for active in ("<img", "](", "**b**", "</details> ", "`c`"):  # only ever escaped
        assert not re.search(r"(?<!\\)" + re.escape(active), md), active
    assert md.count("<details>") == md.count("</details>")
    shown = [int(line.split("+")[1].split(" ")[0]) for line in md.splitlines() if line.startswith("<details>")]
    assert shown == sorted(shown) and shown[0] == 3


def test_a_range_git_cannot_read_is_a_clear_error(built: Any) -> None:
    code, out, err = run_cli("review", "nosuch..feature", "--json")
    assert code == 25 and json.loads(out)["error"]["code"] == "unknown_revision"
    code, out, err = run_cli("review", "--commit=--upload-pack=x", "--json")
    assert code == 25


def test_review_change_over_stdio_is_held_to_its_repository_and_its_budget(built: Any, tmp_path: Path) -> None:
    """A real MCP client over stdio: under --scope repo the tool reviews this repository and
    refuses another; a small token budget cuts the answer and says what went."""
    import os
    import subprocess
    import sys

    import anyio
    from mcp import Client, StdioServerParameters

    scn, ids = built
    other = tmp_path / "other"
    subprocess.run(["git", "init", "-q", str(other)], check=True)
    keep = {k: os.environ[k] for k in ("PYTHONPATH", "HANSARD_HOME", "HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME",
                                       "GEMINI_CLI_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL",
                                       "GIT_CONFIG_NOSYSTEM", "TZ") if k in os.environ}
    params = StdioServerParameters(command=sys.executable, args=["-m", "hansard", "mcp", "serve", "--scope", "repo"],
                                   env={**keep, "HANSARD_NO_BACKGROUND": "1"}, cwd=str(scn.repo))

    async def go() -> tuple[Any, Any, Any, Any]:
        async with Client(params, mode="legacy") as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert tools["review_change"].output_schema["title"] == "Review"
            whole = await c.call_tool("review_change", {"range": "main..feature", "token_budget": 200_000})
            small = await c.call_tool("review_change", {"range": "main..feature", "token_budget": 1000})
            refused = await c.call_tool("review_change", {"repo": str(other)})
            bad = await c.call_tool("review_change", {"range": "x" * 600})
            return whole, small, refused, bad

    whole, small, refused, bad = anyio.run(go)
    cli = cli_json("review", "main..feature", "--json")
    got = whole.structured_content
    assert not whole.is_error and got["range"] == cli["range"] and got["flags"] == cli["flags"]
    assert [s for s in got["sessions"]] == [s for s in cli["sessions"] if s["session_id"] != ids["chat"]]
    # a web chat belongs to no repository: under --scope repo it is not named, as code_history does not
    assert ids["chat"] not in json.dumps(got) and ids["chat"] in json.dumps(cli)
    assert not small.is_error and small.structured_content["truncated"]["lines"] > 0
    assert len(json.dumps(small.structured_content)) // 4 <= 1000
    assert refused.is_error and refused.structured_content["refused"] is True
    assert bad.is_error


def test_under_a_deadline_the_files_left_are_said_out_of_time_not_answered(built: Any) -> None:
    """The MCP server's deadline: with less than the reserve left, review answers no file and
    says so, rather than running past the call's time."""
    import time

    from hansard.answers.review import RESERVE_S, review
    from hansard.app.house import Hansard
    from hansard.git.run import DEADLINE

    token = DEADLINE.set(time.monotonic() + RESERVE_S / 2)
    try:
        with Hansard(sync=False).request() as rq:
            r = review(rq.store, "main..feature")
    finally:
        DEADLINE.reset(token)
    assert [f["skipped"] for f in r["files"]] == ["out_of_time"] * 4 and r["truncated"] == {"files_out_of_time": 4}
    assert r["totals"]["lines"] == 0 and all(f["lines"] == [] for f in r["files"])
