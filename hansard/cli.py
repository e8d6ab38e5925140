"""The command line: parse arguments, call one core function, render its result. Nothing else.

argparse, not typer: editors shell out to ``hansard why`` once per file, and typer's import
alone costs several times argparse's. Every heavy module is imported inside the command that
needs it.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

from hansard import __version__
from hansard.errors import HansardError, InvalidArgument
from hansard.text.terminal import json_bytes, json_text, say

if TYPE_CHECKING:
    from hansard.app.house import Request


def _request(a: argparse.Namespace, *, write: bool = False) -> Request:
    """The command's request (``hansard.app.house``): its store, opened writable when the
    command writes (else readable on a read-only disk too), synced unless --no-sync, its cached
    answers used unless --no-cache."""
    from hansard.app.house import Hansard

    return Hansard(sync=not getattr(a, "no_sync", False), cache=not getattr(a, "no_cache", False)).request(write=write)


# From this many bytes of compact JSON, orjson indents a document faster than its import costs
# (stdlib json indents in Python, not in C).
ORJSON_BYTES = 100_000


def _print_json(obj: Any) -> None:
    # stdlib json for small documents: orjson's import pulls in dataclasses and uuid, and this
    # runs on every editor call of `hansard why`.
    import json

    sys.stdout.write(json_text(_indented(obj) or json.dumps(obj, indent=2, ensure_ascii=False, default=str)))
    sys.stdout.write("\n")


def _indented(obj: Any) -> str | None:
    """``json.dumps(obj, indent=2, ensure_ascii=False, default=str)`` written by orjson, for a
    large document whose compact forms the two libraries write alike (then the indented ones are
    alike too: both put the same whitespace between the same tokens); None otherwise (a float
    the two spell differently, NaN, a lone surrogate, a key that is not a string)."""
    import json

    compact = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
    if len(compact) < ORJSON_BYTES:
        return None
    import orjson

    try:
        if orjson.dumps(obj, default=str) != compact.encode("utf-8"):
            return None
        return orjson.dumps(obj, option=orjson.OPT_INDENT_2, default=str).decode("utf-8")
    except (TypeError, ValueError):  # orjson.JSONEncodeError is a TypeError; encoding a lone surrogate, a ValueError
        return None


# -- commands -------------------------------------------------------------------------


def cmd_index(a: argparse.Namespace) -> int:
    from pathlib import Path

    from hansard.ingest.run import index
    from hansard.ingest.scanner import stderr_progress
    from hansard.render import answers as render

    missing = [p for p in a.paths if not os.path.exists(p)]
    if missing:
        from hansard.errors import NotFound

        raise NotFound(f"no such file or folder: {missing[0]}")
    with _request(a, write=True) as rq:
        if a.watch:
            from hansard.ingest.watch import serve

            return serve(rq.store, [Path(p) for p in a.paths] or None, quiet=a.quiet)
        summary = index(rq.store, [Path(p) for p in a.paths] or None, wait=not a.no_wait,
                        progress=None if a.quiet else stderr_progress())
        if summary is None:
            say("hansard: another `hansard index` is running; not waiting (--no-wait)", file=sys.stderr)
            return 13
        from hansard.answers.notices import no_sessions, no_sessions_text

        notice = no_sessions(rq.store)
    found = any(h["sessions"] for h in notice["searched"])  # nothing found anywhere: say where it looked
    if a.json:
        _print_json({**summary.as_dict(), **({} if found else {"notice": notice})})
    else:
        say(render.index_summary(summary.as_dict()))
        if not found:
            say(no_sessions_text(notice), file=sys.stderr)
    return 0


def cmd_reindex(a: argparse.Namespace) -> int:
    from hansard.ingest.run import rebuild
    from hansard.ingest.scanner import stderr_progress
    from hansard.render import answers as render

    with _request(a, write=True) as rq:
        summary = rebuild(rq.store, progress=None if a.quiet else stderr_progress())
    if a.json:
        _print_json(summary.as_dict())
    else:
        say(render.index_summary(summary.as_dict(), verb="Reindexed from the archive"))
    return 0


def cmd_sessions(a: argparse.Namespace) -> int:
    from hansard.answers.search.filters import resolve_repo
    from hansard.render import answers as render
    from hansard.values.timebounds import since_text

    if a.repo:
        _inside_git(a.repo)
    since = since_text(a.since, "since")
    from hansard import agents

    # Web chats (and SpecStory copies) only when asked for: by --include-web-chats, or by naming
    # one with --provider.
    hidden = agents.unsearched_names()
    hide = () if a.include_web_chats or agents.resolve(a.provider) in hidden else hidden
    from hansard.answers import teammates

    with _request(a) as rq:
        store = rq.store
        if a.include_team_sessions or a.team:
            rq.team()
        with_team, notice = teammates.wanted(store, a.include_team_sessions, a.team)
        repo_ids = resolve_repo(store, a.repo)
        rows = store.sessions.list(repo_ids=repo_ids, provider=a.provider, since=since, limit=a.limit,
                                   exclude_providers=hide, include_team=with_team)
        total = len(rows) if len(rows) < a.limit else \
            store.sessions.list_count(repo_ids=repo_ids, provider=a.provider, since=since, exclude_providers=hide,
                                      include_team=with_team)
    if a.json:
        _print_json({"sessions": rows, "total": total, **({"notice": notice} if notice else {})})
    else:
        if notice:
            say(f"hansard: {notice}", file=sys.stderr)
        say(render.sessions(rows, total))
    return 0


def cmd_import(a: argparse.Namespace) -> int:
    from hansard.ingest.webchat_import import import_export
    from hansard.render import answers as render

    with _request(a, write=True) as rq:
        summary = import_export(rq.store, a.path)
    if a.json:
        _print_json(summary.as_dict())
    else:
        say(render.index_summary(summary.as_dict(), verb="Imported"))
    return 0


def _inside_git(repo: str) -> None:
    """A ``--repo`` that names an existing folder or file must be inside a git repository
    (exit 5 otherwise); any other word is matched against known repositories' names."""
    from hansard.errors import NotARepository
    from hansard.git.identity import find_toplevel

    p = os.path.abspath(os.path.expanduser(repo))
    if os.path.exists(p) and find_toplevel(p if os.path.isdir(p) else os.path.dirname(p)) is None:
        raise NotARepository(f"{repo} is not inside a git repository")


def cmd_show(a: argparse.Namespace) -> int:
    from hansard.answers.transcript import get_past_session
    from hansard.errors import NotFound
    from hansard.render.recall import transcript

    kw = _arguments("show", a)
    every = kw.pop("all")
    with _request(a) as rq:
        store = rq.store
        try:
            data = get_past_session(store, **kw, details=True)
        except NotFound:
            # Not a session this store holds: a teammate's, pulled just now when the team's rows
            # were stale (only then is the server asked).
            if not rq.team():
                raise
            data = get_past_session(store, **kw, details=True)
        if every:
            # Every page, following the cursor: the whole (filtered) session.
            pages = [data]
            while pages[-1]["next"]:
                pages.append(get_past_session(store, **{**kw, "around": None, "content_offset": None,
                                                        "next": pages[-1]["next"]}, details=True))
            data = {**data, "messages": [m for p in pages for m in p["messages"]], "next": None,
                    "returned": sum(p["returned"] for p in pages)}
    if a.json:
        _print_json(data)
    else:
        say(transcript(data, raw=a.raw, colour=sys.stdout.isatty() and not os.environ.get("NO_COLOR")))
    return 0


def _arguments(name: str, a: argparse.Namespace) -> dict[str, Any]:
    """The declared parameters of command ``name`` as the command line gave them."""
    from hansard.app import commands, declare

    return declare.arguments(commands.COMMANDS[name], a)


def _caller_session(a: argparse.Namespace) -> str | None:
    """The conversation running this command, left out of search results. --exclude-session
    wins; else HANSARD_SESSION_ID, then what the agents expose (hansard.agents.caller)."""
    if getattr(a, "include_current", False):
        return None
    if a.exclude_session:
        return a.exclude_session
    from hansard.agents.caller import caller_session

    return caller_session()


def cmd_history(a: argparse.Namespace) -> int:
    from hansard.answers.search.sessions import search_past_sessions
    from hansard.render.recall import history, notes

    kw = _arguments("history", a)
    del kw["exclude_session"], kw["include_current"]
    with _request(a) as rq:
        rq.sync()
        if a.include_team_sessions or a.team:
            rq.team()
        data = search_past_sessions(rq.store, **kw,
                                    exclude_session_id=_caller_session(a), start_build=lambda: rq.app.later("embed"))
    if a.json:
        _print_json(data)
    else:
        for note in notes(data):
            say(note, file=sys.stderr)
        say(history(data))
    return 0


def cmd_memory(a: argparse.Namespace) -> int:
    from hansard.answers import memories
    from hansard.ingest.memory_files import scan_memories
    from hansard.render.recall import memory, memory_hits

    with _request(a, write=a.memory_cmd != "show") as rq:
        if a.memory_cmd == "show":
            if a.memory_id.startswith("team-"):  # a teammate's project memory (hansard team)
                rq.team()
            data = memories.get_memory(rq.store, a.memory_id, line=a.line, offset=a.offset)
            if a.json:
                _print_json(data)
            else:
                say(memory(data))
            return 0
        scan_memories(rq.store, cwd=os.getcwd(), force=a.memory_cmd == "scan")
        if a.memory_cmd == "scan":
            say(f"{memories.memory_count(rq.store)} memory files indexed")
            return 0
        if a.include_team_sessions or a.team:
            rq.team()
        hits = memories.search_memories(rq.store, " ".join(a.query), repo=a.repo, provider=a.provider,
                                        source=a.source, full=a.json, include_team_sessions=a.include_team_sessions,
                                        team=a.team)
    notice = hits.get("notice")
    if a.json:
        _print_json(hits)
    else:
        if notice:
            say(f"hansard: note: {notice}", file=sys.stderr)
        say(memory_hits(hits))
    return 0


def cmd_embed(a: argparse.Namespace) -> int:
    """Build meaning-search vectors for new messages (what the background builder runs)."""
    with _request(a, write=True) as rq:
        counts = rq.embed(max_seconds=a.max_seconds)
    if counts is None:
        if not a.quiet:
            say("another `hansard embed` is running", file=sys.stderr)
        return 0
    if a.json:
        _print_json(counts)
    elif not a.quiet:
        say(f"embedded {counts['embedded']} texts for {counts['messages']} messages ({counts['reused']} reused)")
    return 0


def cmd_config(a: argparse.Namespace) -> int:
    from hansard.link.repos import add_path_map

    with _request(a, write=True) as rq:
        if a.config_cmd == "map":
            add_path_map(rq.store, a.old, a.new)
            say(f"mapped {a.old} -> {a.new}; run `hansard index` to re-link sessions")
        else:
            for old, new in rq.store.repos.path_maps():
                say(f"{old} -> {new}")
    return 0


def _read_contents(path: str) -> bytes:
    """``why --contents FILE``: a regular file's bytes (a FIFO would block, a folder has none)."""
    from hansard.errors import NotAFile
    from hansard.files import safeopen

    try:
        return safeopen.read_bytes(path, follow=True)  # without blocking, then fstat: no swap
    except safeopen.NotRegularFile:
        raise NotAFile(f"--contents {path} is not a regular file") from None
    except OSError as exc:
        raise NotAFile(f"--contents {path}: {exc.strerror}") from None


def integer(text: str) -> int:
    """An integer option: counts, indexes and offsets fit in 32 bits (SQLite and the
    windowing code never see a number they cannot hold)."""
    n = int(text)
    if not -(2**31) <= n <= 2**31 - 1:
        raise argparse.ArgumentTypeError(f"{text} is out of range (at most {2**31 - 1})")
    return n


def cmd_why(a: argparse.Namespace) -> int:
    from hansard.answers.why import parse_target

    contents = None
    if a.contents == "-":
        contents = sys.stdin.buffer.read()
    elif a.contents:
        contents = _read_contents(a.contents)
    with _request(a) as rq:
        if a.json:
            # the document as bytes: a cached answer is printed as stored, never decoded
            doc = rq.why(a.target, rev=a.rev, contents=contents)
            sys.stdout.flush()
            sys.stdout.buffer.write(json_bytes(doc) + b"\n")
            sys.stdout.buffer.flush()
            return 0
        ans = rq.why_answer(a.target, rev=a.rev, contents=contents)
    if ans.get("notice"):
        from hansard.answers.notices import no_sessions_text

        say(no_sessions_text(ans["notice"]), file=sys.stderr)
    if ans.get("indexing"):
        say("warning: an index of this store is still running; sessions it has not read or linked yet "
              "are missing from this answer", file=sys.stderr)
    from hansard.render import answers as render

    if len(ans["lines"]) == 1:
        say(render.why_line(ans, ans["lines"][0]))
    elif parse_target(a.target)[1] is not None:  # PATH:A-B
        say(render.why_range(ans))
    else:
        say(render.why_file(ans))
    return 0


def cmd_log(a: argparse.Namespace) -> int:
    from hansard.answers.code_history import code_history
    from hansard.render.trees import code_history_tree

    with _request(a) as rq:
        rq.fresh(a.repo or os.getcwd())
        result = code_history(rq.store, **_arguments("log", a), render=lambda r: code_history_tree(r, notice=False))
    if a.json:
        _print_json(result)
    else:
        if result.get("notice"):
            from hansard.answers.notices import no_sessions_text

            say(no_sessions_text(result["notice"]), file=sys.stderr)
        say(result["tree"])
    return 0


def cmd_stats(a: argparse.Namespace) -> int:
    from hansard.answers.stats import repo_stats
    from hansard.app import workers
    from hansard.ingest.scanner import stderr_progress

    by = tuple(a.by or ("agent", "dir"))
    with _request(a) as rq:
        rq.fresh(os.getcwd())
        result = repo_stats(rq.store, a.paths, rev=a.rev, since=a.since, until=a.until, by=by,
                            cache=rq.app.cache, progress=None if a.json else stderr_progress(),
                            depth=a.depth, ask=workers.answers)
    if a.json:
        _print_json(result)
    else:
        from hansard.render.stats import stats_text

        if result.get("notice"):
            from hansard.answers.notices import no_sessions_text

            say(no_sessions_text(result["notice"]), file=sys.stderr)

        say(stats_text(result, by, a.depth))
        _final_line(f"stats: {result['cache']['answered']} files answered, {result['cache']['remembered']} remembered, "
                    f"in {result['seconds']:.1f} s")
    return 0


def _final_line(text: str) -> None:
    """What a long command did, said once at its end on a stderr that is not a terminal (a
    terminal had the progress line)."""
    from hansard.ingest.progress import is_terminal

    if not is_terminal():
        say(text, file=sys.stderr)


def cmd_context(a: argparse.Namespace) -> int:
    from hansard.answers.work_context import work_context
    from hansard.render.trees import work_context_tree

    with _request(a) as rq:
        rq.fresh(a.repo or os.getcwd())
        result = work_context(rq.store, **_arguments("context", a), render=work_context_tree)
    if a.json:
        _print_json(result)
    else:
        say(result["tree"])
    return 0


def cmd_mcp(a: argparse.Namespace) -> int:
    if a.mcp_cmd == "install":
        from hansard.mcp.install import install

        out = install(a.agent, a.write)
        if a.json:
            _print_json(out)
        elif out["written"]:
            say(f"added hansard to {out['config_file']}" + (f" (backup: {out['backup']})" if out["backup"] else ""))
        elif out.get("already_installed"):
            say(f"hansard is already configured in {out['config_file']}")
        else:
            say(f"# add to {out['config_file']} (or run with --write):\n{out['snippet']}", end="")
        return 0
    from hansard.agents.caller import caller_session
    from hansard.mcp.server import ServeOptions

    opts = ServeOptions(scope=a.scope, caller_session=a.session or caller_session(),
                        memories=a.memories, audit_queries=a.audit_queries)
    if a.status:
        from hansard.mcp.server import status

        _print_json(status(opts))
        return 0
    from hansard.mcp.server import serve

    _say_if_terminal("hansard mcp serve: the MCP server, speaking JSON-RPC over stdin and stdout to the agent that "
                     "starts it; add it to an agent with `hansard mcp install claude-code|codex|gemini|cursor` "
                     "(`hansard mcp serve --status` shows what it offers). Waiting for JSON-RPC; Ctrl-D or Ctrl-C stops it.")
    serve(opts)
    return 0


def _say_if_terminal(line: str) -> None:
    """One line on stderr when a stdio server is started by hand in a terminal (stdin is a
    TTY), so it does not sit silent; an agent or editor starting it sees nothing."""
    try:
        tty = sys.stdin.isatty()
    except (AttributeError, ValueError):
        tty = False
    if tty:
        say(line, file=sys.stderr, flush=True)


def cmd_audit(a: argparse.Namespace) -> int:
    with _request(a) as rq:
        rows = rq.store.audit.recent(a.limit)
    if a.json:
        _print_json({"calls": rows})
        return 0
    if not rows:
        say("no MCP calls recorded yet: `hansard mcp serve` records one row per tool call an agent makes")
        return 0
    for r in rows:
        err = f" {r['error_code']}" if r["error_code"] else ""
        n = r["result_count"]
        count = f"  {n} result{'' if n == 1 else 's'}" if n is not None else ""
        caller = f"  caller {r['caller']}" if r["caller"] else ""
        say(f"{r['at']}  {r['tool']:26} {r['outcome']}{err}  {r['duration_ms']:.0f} ms{count}{caller}")
    return 0


def cmd_doctor(a: argparse.Namespace) -> int:
    from hansard.ingest.run import repair
    from hansard.store.sqlite.doctor import check

    report = repair() if a.rebuild else check()
    if a.json:
        _print_json(report)
    else:
        for item in report["checks"]:
            say(f"{'ok ' if item['ok'] else 'BAD'}  {item['name']}: {item['detail']}")
        if report.get("advice"):
            say("\n" + report["advice"])
    if report["ok"]:
        return 0
    from hansard.errors import StoreCorrupt, StoreHomeUnusable

    return StoreHomeUnusable.exit_code if report.get("code") == StoreHomeUnusable.code else StoreCorrupt.exit_code


def cmd_demo(a: argparse.Namespace) -> int:
    from hansard.demo import run_demo

    return run_demo(a.folder)


def cmd_ui(a: argparse.Namespace) -> int:
    from hansard.web.cli import run  # Starlette and uvicorn load here only

    return run(a)


def cmd_team(a: argparse.Namespace) -> int:
    # psycopg loads only inside the team commands.
    from contextlib import ExitStack

    from hansard.team.commands import run

    with ExitStack() as held:  # a store is opened only for the commands that read one (push)
        data, text = run(a, lambda: held.enter_context(_request(a, write=True)).store)
    if a.json:
        _print_json(data)
    else:
        say(text)
    return 0


def cmd_trace(a: argparse.Namespace) -> int:
    """Agent Trace: records written from hansard's answers, or read from other tools' files."""
    from hansard.render import trace as render

    if a.trace_cmd == "import":
        from hansard.trace.read import import_traces

        with _request(a, write=True) as rq:
            summary = import_traces(rq.store, a.paths).as_dict()
        if a.json:
            _print_json(summary)
        else:
            say(render.imported(summary))
        return 0
    import json
    import time

    from hansard.app import workers
    from hansard.ingest.progress import terminal_progress
    from hansard.trace.export import export

    if a.commit and a.rev_range:
        raise InvalidArgument("give --commit C or a REV_RANGE, not both")
    t0 = time.monotonic()
    with _request(a) as rq:
        rq.fresh(os.getcwd())
        done = export(rq.store, os.getcwd(), commit=a.commit, rev_range=a.rev_range, cache=rq.app.cache,
                      progress=terminal_progress(unit="files"), ask=workers.answers)
    written: dict[str, str] = {}
    if a.out:
        from hansard.files.privfile import write_file

        os.makedirs(a.out, exist_ok=True)
        for ex in done:
            # (a folder the person named, maybe inside the repository: never written through a
            # link planted there)
            path = os.path.join(a.out, f"{ex.commit}.json")
            write_file(path, (json.dumps(ex.record, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "surrogateescape"))
            written[ex.commit] = path
    if a.json and a.out:
        _print_json({"written": list(written.values())})
    elif a.json:  # JSON Lines: one record a line (one commit: one JSON object)
        for ex in done:
            sys.stdout.write(json_text(json.dumps(ex.record, ensure_ascii=False, separators=(",", ":"))) + "\n")
    else:
        for ex in done:
            say(render.exported(ex.commit, len(ex.record["files"]), ex.lines, ex.skipped, written.get(ex.commit),
                                  ex.merged, ex.note))
        _final_line(f"trace export: {len(done)} commits in {time.monotonic() - t0:.1f} s")
    return 0


def cmd_completion(a: argparse.Namespace) -> int:
    # shtab walks the whole argparse tree (every command's parser, built here in full); it is
    # imported only by this command, so start-up costs nothing.
    import shtab

    parser = build_parser(None)
    todo = [parser]
    while todo:  # the arguments that name files complete file names
        for action in todo.pop()._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
            elif action.dest in ("target", "paths", "path", "contents"):
                action.complete = shtab.FILE  # type: ignore[attr-defined]
    sys.stdout.write(shtab.complete(parser, shell=a.shell))
    sys.stdout.write("\n")
    return 0


def cmd_lsp(a: argparse.Namespace) -> int:
    # pygls and lsprotocol load here only, never on `hansard why`'s path.
    from hansard.lsp.server import run

    _say_if_terminal("hansard lsp: the language server, speaking LSP over stdin and stdout to the editor that starts "
                     "it; set it up in Neovim, VS Code or Helix (editors/ and the README's \"In the editor\"). "
                     "Waiting for LSP messages; Ctrl-D or Ctrl-C stops it.")
    return run()


# -- parser ---------------------------------------------------------------------------


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter, given a width so that it does not import shutil just to ask for
    the terminal size on every run."""

    def __init__(self, prog: str) -> None:
        try:
            width = int(os.environ.get("COLUMNS", "")) or os.get_terminal_size().columns
        except (ValueError, OSError):
            width = 80
        super().__init__(prog, width=max(width - 2, 40))


class _Parser(argparse.ArgumentParser):
    """Every parser and subparser uses ``_Formatter`` (subparsers are built with the root's class)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)


def cmd_answer(a: argparse.Namespace) -> int:
    """A declared answer the application asks on its own (``Command.answer``): its result as
    JSON with --json, as its ``markdown`` function writes it with --markdown, else as its
    ``text`` function writes it."""
    from hansard.app import commands, declare

    cmd = commands.COMMANDS[_command(a)]
    with _request(a) as rq:
        out = rq.ask(cmd, **declare.arguments(cmd, a))
    if getattr(a, "json", False) or cmd.text is None:
        _print_json(out)
    elif getattr(a, "markdown", False) and cmd.markdown is not None:
        sys.stdout.write(declare.resolve(cmd.markdown)(out))
    else:
        say(declare.resolve(cmd.text)(out))
    return 0


def _commands() -> dict[str, Callable[[argparse.Namespace], int]]:
    """The function that runs each command (a command with commands of its own: by its first word);
    a declared answer not named here is run by ``cmd_answer``."""
    return {"index": cmd_index, "reindex": cmd_reindex, "sessions": cmd_sessions,
            "import": cmd_import, "show": cmd_show, "history": cmd_history, "memory": cmd_memory, "embed": cmd_embed,
            "config": cmd_config, "why": cmd_why, "stats": cmd_stats, "log": cmd_log, "context": cmd_context,
            "mcp": cmd_mcp, "audit": cmd_audit, "doctor": cmd_doctor, "demo": cmd_demo, "ui": cmd_ui, "team": cmd_team,
            "trace": cmd_trace, "completion": cmd_completion, "lsp": cmd_lsp}


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole CLI from the commands' declarations (``hansard.app.commands``), or, with
    ``only``, just the command about to run (same behaviour, less start-up work: editors call
    `hansard why` once per file). An ``only`` that names no command gives the whole CLI, so
    argparse can list the real choices."""
    from hansard.app import commands, declare

    p = _Parser(
        prog="hansard",
        description="Code history and blame for code that coding agents write.",
    )
    p.add_argument("-V", "--version", action="version", version=f"hansard {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")
    run = _commands()
    groups: dict[str, Any] = {}
    for cmd in commands.COMMANDS.values():
        first, *rest = cmd.words
        if not cmd.cli or (only is not None and first != only):
            continue
        about = declare.text(cmd.help)
        if rest:
            if first not in groups:
                group = declare.text(commands.GROUPS[first])
                gp = sub.add_parser(first, help=group, description=group)
                gp.set_defaults(fn=run.get(first, cmd_answer))
                groups[first] = gp.add_subparsers(dest=f"{first}_cmd", required=True)
            sp = groups[first].add_parser(rest[0], help=about)
            if cmd.answer is not None and cmd.name not in run:
                sp.set_defaults(fn=cmd_answer)
        else:
            sp = sub.add_parser(first, help=about, description=about)
            sp.set_defaults(fn=run.get(first, cmd_answer))
        declare.add_arguments(sp, cmd, integer)
        if cmd is commands.TEAM:
            from hansard.team.commands import add_arguments

            add_arguments(sp)
    if only is not None and sub.choices == {}:
        return build_parser(None)
    return p


def _first_word(args: Sequence[str]) -> str | None:
    """The command's first word (``why``, ``mcp``), options before it passed over."""
    return next((a for a in args if not a.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_first_word(args))
    ns = parser.parse_args(args)
    if not getattr(ns, "fn", None):
        parser.print_help()
        return 2
    try:
        return ns.fn(ns)
    except HansardError as exc:
        return _fail(ns, exc)
    except BrokenPipeError:
        # The reader (`| head`) went away: stop quietly, as other CLI tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        from hansard.crash import home_error, report
        from hansard.store.errors import typed

        err = typed(exc) or home_error(exc)
        if err is None:
            if os.environ.get("HANSARD_DEBUG"):
                raise
            err = report(_command(ns), exc)
        return _fail(ns, err)


def _command(ns: argparse.Namespace) -> str:
    """The command that ran, as the person would name it (``mcp serve``, ``why``)."""
    words = [ns.command] + [getattr(ns, f"{ns.command}_cmd", None) or ""]
    return " ".join(w for w in words if w)


def _fail(ns: argparse.Namespace, exc: HansardError) -> int:
    if getattr(ns, "json", False):
        _print_json({"error": exc.to_dict()})
    say(f"hansard: {exc.message} [{exc.code}]", file=sys.stderr)
    return exc.exit_code


# Commands that, once their answer is written, hold nothing the interpreter's own teardown
# would save: their process ends without it (freeing every object one by one, a last full
# collection), which a `why` of a large file would otherwise wait for after its answer.
_ENDS_AT_ONCE = frozenset({"why"})


def entry() -> None:
    code = main()
    threads, processes = sys.modules.get("threading"), sys.modules.get("multiprocessing")
    if _first_word(sys.argv[1:]) in _ENDS_AT_ONCE and (threads is None or threads.active_count() == 1) \
            and (processes is None or not processes.active_children()):
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # the reader went away: the ordinary exit says nothing more either
            pass
        else:
            os._exit(code)
    sys.exit(code)


__all__ = ["main", "InvalidArgument"]
