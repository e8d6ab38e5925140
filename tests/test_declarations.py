"""Each declared command (hansard.app.commands) is the one source of its CLI options, its MCP
tool's input schema, bounds and result type, and its table in docs/commands.md."""

from __future__ import annotations

import asyncio
import inspect
from pathlib import Path
from typing import Any

import pytest

from hansard.app import commands, declare
from hansard.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
CLI = [c for c in commands.COMMANDS.values() if c.cli]


def test_docs_commands_md_is_the_declarations() -> None:
    text = (ROOT / "docs" / "commands.md").read_text()
    assert text == declare.document(list(commands.COMMANDS.values())), \
        "docs/commands.md is not the declarations': run python scripts/commands_doc.py"


def _subparser(cmd: declare.Command) -> Any:
    parser = build_parser(cmd.words[0])
    sp = next(a for a in parser._actions if a.dest == "command").choices[cmd.words[0]]  # type: ignore[attr-defined]
    for word in cmd.words[1:]:
        sp = next(a for a in sp._actions if a.dest == f"{cmd.words[0]}_cmd").choices[word]
    return sp


@pytest.mark.parametrize("name", [c.name for c in CLI])
def test_the_cli_offers_the_declared_parameters_and_no_other(name: str) -> None:
    cmd = commands.COMMANDS[name]
    sp = _subparser(cmd)
    dests = {a.dest for a in sp._actions} - {"help"}
    if cmd is commands.TEAM:  # its commands are its own (hansard/team/commands.py, docs/team.md)
        dests -= {"team_cmd"}
    declared = {p.name for p in cmd.of("cli")} | {cmd.option(o)[0].removeprefix("--").replace("-", "_")
                                                  for o in cmd.options}
    assert dests == declared


def test_only_the_command_run_is_built_and_a_typo_gets_the_whole_list() -> None:
    parser = build_parser("why")
    assert set(next(a for a in parser._actions if a.dest == "command").choices) == {"why"}  # type: ignore[attr-defined]
    whole = build_parser("wyh")
    assert {c.words[0] for c in CLI} == set(next(a for a in whole._actions
                                                 if a.dest == "command").choices)  # type: ignore[attr-defined]


def test_parsed_arguments_are_the_answers_keywords() -> None:
    ns = build_parser("log").parse_args(["log", "app.py:3", "--budget", "500", "--symbol", "f"])
    assert declare.arguments(commands.LOG, ns) == {"path": "app.py:3", "symbol": "f", "repo": None, "until": None,
                                                   "token_budget": 500}
    ns = build_parser("context").parse_args(["context"])
    assert declare.arguments(commands.CONTEXT, ns)["session_id"] is None
    ns = build_parser("history").parse_args(["history", "retry", "loop", "--roles", "user,assistant",
                                             "--no-group-revisions", "--command", "pytest"])
    got = declare.arguments(commands.HISTORY, ns)
    assert (got["query"], got["roles"], got["group_revisions"], got["command"]) == \
        ("retry loop", ["user", "assistant"], False, "pytest")
    ns = build_parser("stats").parse_args(["stats", "src", "--by", "agent", "--by", "month"])
    assert declare.arguments(commands.STATS, ns)["by"] == ["agent", "month"]
    ns = build_parser("why").parse_args(["why", "a.py:1", "--no-cache", "--json"])
    assert (ns.target, ns.rev, ns.no_cache, ns.json, ns.no_sync) == ("a.py:1", None, True, True, False)


def _answers() -> dict[str, Any]:
    from hansard.answers.code_history import code_history
    from hansard.answers.memories import get_memory, search_memories
    from hansard.answers.search.sessions import search_past_sessions
    from hansard.answers.stats import repo_stats
    from hansard.answers.transcript import get_past_session
    from hansard.answers.work_context import work_context

    return {"search_past_sessions": search_past_sessions, "get_past_session": get_past_session,
            "code_history": code_history, "repo_stats": repo_stats, "work_context": work_context,
            "search_memories": search_memories, "get_memory": get_memory}


# Parameters the request uses before its answer runs, with why.
BEFORE_THE_ANSWER = {
    ("repo_stats", "repo"): "the repository a call may read is the scope's to check; the answer runs in it (cwd)",
}


@pytest.mark.parametrize("tool", sorted(_answers()))
def test_an_mcp_tool_s_parameters_are_its_answer_s_keywords(tool: str) -> None:
    keywords = set(inspect.signature(_answers()[tool]).parameters)
    assert {p.name for p in commands.TOOLS[tool].of("mcp")} - keywords == \
        {name for t, name in BEFORE_THE_ANSWER if t == tool}


def test_the_mcp_tools_take_the_declared_schema_and_bounds() -> None:
    from hansard.mcp.server import build_server

    tools = {t.name: t for t in asyncio.run(build_server().list_tools())}
    assert set(tools) == set(commands.TOOLS)
    for name, cmd in commands.TOOLS.items():
        schema = tools[name].input_schema
        declared = cmd.of("mcp")
        assert list(schema["properties"]) == [p.name for p in declared]
        assert schema.get("required", []) == [p.name for p in declared if p.required]
        assert tools[name].description == declare.text(cmd.about)
        for p in declared:
            prop = schema["properties"][p.name]
            assert prop.get("description") == (declare.text(p.help) or None), (name, p.name)
            assert prop.get("default", declare.REQUIRED) == p.default
            alts = prop.get("anyOf", [prop])
            strings = [a for a in alts if a.get("type") == "string"] + \
                      [a["items"] for a in alts if a.get("type") == "array" and a["items"].get("type") == "string"]
            assert {a.get("maxLength") for a in strings if "enum" not in a} <= {p.max_chars}, (name, p.name)
            if p.bounds is not None:
                assert (prop["minimum"], prop["maximum"]) == p.bounds
        out = tools[name].output_schema  # the SDK checks every result against it
        assert cmd.result is not None and out is not None and out["title"] == declare.resolve(cmd.result).__name__


# -- an answer added the way docs/architecture.md says: one declaration, one function ------------


def session_files(store: Any, session_id: str, *, repo_only: str | None = None) -> dict[str, Any]:
    """The files a session's applied edits changed: one function over one store query."""
    row = store.sessions.find(session_id)
    return {"session_id": row["session_id"],
            "files": sorted({str(e["rel_path"]) for e in store.evidence.session_edits(row["id"])})}


FILES = declare.Command(
    "files", "The files a session's edits changed", (
        declare.Param("session_id", str, help="session id or a unique prefix", positional=True, max_chars=200,
                      kind="session"),
    ), answer="tests.test_declarations:session_files", tool="session_files",
    about="The files a past coding-agent session's edits changed.", options=("json",), local=True)


@pytest.fixture
def declared(monkeypatch: pytest.MonkeyPatch) -> declare.Command:
    monkeypatch.setitem(commands.COMMANDS, FILES.name, FILES)
    monkeypatch.setitem(commands.TOOLS, "session_files", FILES)
    return FILES


def test_an_answer_declared_once_is_served_by_the_cli_the_mcp_server_and_the_docs(
        declared: declare.Command, tmp_path: Any, samples: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    import anyio
    from mcp import Client

    from hansard.cli import main
    from hansard.demo import build
    from hansard.ingest.run import index
    from hansard.mcp.server import ServeOptions, build_server
    from hansard.store import open_store

    demo = build(tmp_path / "demo")
    store = open_store()
    index(store)
    index(store, [samples / "claude-code"])  # sessions of other repositories
    elsewhere = next(r["session_id"] for r in store.sessions.list(limit=50) if r["repo"] != str(demo.repo))
    store.close()
    sid = "4f0f2c6e"  # the demo's Claude Code session, by a prefix
    assert main(["files", sid, "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert cli == {"session_id": "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11", "files": ["app/retry.py"]}

    async def call(scope: str, session: str) -> Any:
        async with Client(build_server(ServeOptions(cwd=str(demo.repo), scope=scope))) as c:  # type: ignore[arg-type]
            tools = {t.name: t for t in (await c.list_tools()).tools}
            assert tools["session_files"].input_schema["properties"]["session_id"]["maxLength"] == 200
            return await c.call_tool("session_files", {"session_id": session})

    assert anyio.run(call, "all", sid).structured_content == cli
    assert anyio.run(call, "repo", sid).structured_content == cli  # the demo's own session, under --scope repo
    refused = anyio.run(call, "repo", elsewhere)  # the scope holds by what the parameter names (kind="session")
    assert refused.is_error and refused.structured_content["refused"] is True
    assert anyio.run(call, "all", elsewhere).structured_content["session_id"] == elsewhere
    assert "### `hansard files` (MCP `session_files`)" in declare.table(FILES)
