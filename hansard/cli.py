"""The command line: parse arguments, call one core function, render its result. Nothing else.

argparse, not typer: editors shell out to ``hansard why`` once per file, and typer's import
alone costs ~280 ms here against ~35 ms for argparse. Every heavy module
is imported inside the command that needs it.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

from hansard import __version__
from hansard.errors import HansardError, InvalidArgument
from hansard.ingest.quickcheck import quick_sync
from hansard.terminal import json_bytes, json_text, say


def _store():
    from hansard.store import open_store

    return open_store()


def _reader_store():
    """A store to read from, even on a read-only disk (then without a sync first)."""
    from hansard.store import open_for_reading

    return open_for_reading()


def _team_fresh(store):
    """The store, its teammates' rows pulled first when they are stale (hansard.team.refresh:
    one stat and a read when no team is configured; psycopg is imported only by team code)."""
    from hansard.team import refresh

    refresh(store)
    return store


def _print_json(obj: Any) -> None:
    # stdlib json, not orjson: orjson's import pulls in dataclasses and uuid (~18 ms), and
    # this runs on every editor call of `hansard why`.
    import json

    sys.stdout.write(json_text(json.dumps(obj, indent=2, ensure_ascii=False, default=str)))
    sys.stdout.write("\n")


# -- commands -------------------------------------------------------------------------


def cmd_index(a: argparse.Namespace) -> int:
    import os
    from pathlib import Path

    from hansard.ingest.run import index
    from hansard.ingest.scanner import stderr_progress
    from hansard.render import answers as render

    missing = [p for p in a.paths if not os.path.exists(p)]
    if missing:
        from hansard.errors import NotFound

        raise NotFound(f"no such file or folder: {missing[0]}")
    if a.watch:
        from hansard.ingest.watch import serve

        return serve(_store(), [Path(p) for p in a.paths] or None, quiet=a.quiet)
    store = _store()
    summary = index(store, [Path(p) for p in a.paths] or None, wait=not a.no_wait,
                    progress=None if a.quiet else stderr_progress())
    if summary is None:
        say("hansard: another `hansard index` is running; not waiting (--no-wait)", file=sys.stderr)
        return 13
    from hansard.answers.notices import no_sessions, no_sessions_text

    notice = no_sessions(store)
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

    summary = rebuild(_store(), progress=None if a.quiet else stderr_progress())
    if a.json:
        _print_json(summary.as_dict())
    else:
        say(render.index_summary(summary.as_dict(), verb="Reindexed from the archive"))
    return 0


def cmd_status(a: argparse.Namespace) -> int:
    from hansard.answers.agents_status import agent_status
    from hansard.config import store_path
    from hansard.render import answers as render

    store = _reader_store()
    data = store.sessions.status()
    data["agents"] = agent_status(store)
    data["store"] = str(store_path())
    if a.json:
        _print_json(data)
    else:
        say(render.status(data))
    return 0


def cmd_sessions(a: argparse.Namespace) -> int:
    from hansard.answers.search.filters import resolve_repo
    from hansard.render import answers as render
    from hansard.timebounds import since_text

    if a.repo:
        _inside_git(a.repo)
    store = _reader_store()
    since = since_text(a.since, "since")
    from hansard import agents

    # Web chats (and SpecStory copies) only when asked for: by --include-web-chats, or by naming
    # one with --provider.
    hidden = agents.unsearched_names()
    hide = () if a.include_web_chats or agents.resolve(a.provider) in hidden else hidden
    repo_ids = resolve_repo(store, a.repo)
    from hansard.answers import teammates

    if a.include_team_sessions or a.team:
        _team_fresh(store)
    with_team, notice = teammates.wanted(store, a.include_team_sessions, a.team)
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

    summary = import_export(_store(), a.path)
    if a.json:
        _print_json(summary.as_dict())
    else:
        say(render.index_summary(summary.as_dict(), verb="Imported"))
    return 0


def _inside_git(repo: str) -> None:
    """A ``--repo`` that names an existing folder or file must be inside a git repository
    (exit 5 otherwise); any other word is matched against known repositories' names."""
    import os

    from hansard.errors import NotARepository
    from hansard.git.identity import find_toplevel

    p = os.path.abspath(os.path.expanduser(repo))
    if os.path.exists(p) and find_toplevel(p if os.path.isdir(p) else os.path.dirname(p)) is None:
        raise NotARepository(f"{repo} is not inside a git repository")


def cmd_show(a: argparse.Namespace) -> int:
    from hansard.answers.transcript import get_past_session
    from hansard.errors import NotFound
    from hansard.render.recall import transcript

    store = _store()
    kw = dict(around=a.around, roles=a.roles, limit=a.limit, next=a.next, group_revisions=a.group_revisions,
              max_message_chars=a.max_message_chars, content_offset=a.content_offset, max_chars=a.max_chars, raw=a.raw,
              details=True)
    try:
        data = get_past_session(store, a.session, **kw)
    except NotFound:
        # Not a session this store holds: a teammate's, pulled just now when the team's rows
        # were stale (only then is the server asked).
        from hansard.team import refresh

        if not refresh(store):
            raise
        data = get_past_session(store, a.session, **kw)
    if a.all:
        # Every page, following the cursor: the whole (filtered) session.
        pages = [data]
        while pages[-1]["next"]:
            pages.append(get_past_session(store, a.session, **{**kw, "around": None, "content_offset": None,
                                                           "next": pages[-1]["next"]}))
        data = {**data, "messages": [m for p in pages for m in p["messages"]], "next": None,
                "returned": sum(p["returned"] for p in pages)}
    if a.json:
        _print_json(data)
    else:
        import os

        say(transcript(data, raw=a.raw, colour=sys.stdout.isatty() and not os.environ.get("NO_COLOR")))
    return 0


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
    from hansard.jobs import start_embed
    from hansard.render.recall import history, notes

    store = _store()
    if not a.no_sync:
        quick_sync(store)
    data = search_past_sessions(
        _team_fresh(store) if a.include_team_sessions or a.team else store, " ".join(a.query), repo=a.repo,
        provider=a.provider, since=a.since, until=a.until, roles=a.roles,
        tool=a.tool, command=a.command_filter, file=a.file, commit=a.commit, include_subagents=a.include_subagents,
        include_web_chats=a.include_web_chats, include_team_sessions=a.include_team_sessions, team=a.team,
        hits_per_session=a.hits_per_session, group_revisions=not a.no_group_revisions, mode=a.mode, limit=a.limit,
        exclude_session_id=_caller_session(a), start_build=start_embed,
    )
    if a.json:
        _print_json(data)
    else:
        for note in notes(data):
            say(note, file=sys.stderr)
        say(history(data))
    return 0


def cmd_memory(a: argparse.Namespace) -> int:
    import os

    from hansard.answers import memories
    from hansard.ingest.memory_files import scan_memories
    from hansard.render.recall import memory, memory_hits

    store = _store()
    if a.memory_cmd == "show":
        if a.memory_id.startswith("team-"):  # a teammate's project memory (hansard team)
            store = _team_fresh(store)
        data = memories.get_memory(store, a.memory_id, line=a.line, offset=a.offset)
        if a.json:
            _print_json(data)
        else:
            say(memory(data))
        return 0
    scan_memories(store, cwd=os.getcwd(), force=a.memory_cmd == "scan")
    if a.memory_cmd == "scan":
        say(f"{memories.memory_count(store)} memory files indexed")
        return 0
    if a.include_team_sessions or a.team:
        _team_fresh(store)
    data = memories.search_memories(store, " ".join(a.query), repo=a.repo, provider=a.provider, source=a.source,
                                    full=a.json, include_team_sessions=a.include_team_sessions, team=a.team)
    notice = data.get("notice")
    if a.json:
        _print_json(data)
    else:
        if notice:
            say(f"hansard: note: {notice}", file=sys.stderr)
        say(memory_hits(data))
    return 0


def cmd_embed(a: argparse.Namespace) -> int:
    """Build meaning-search vectors for new messages (what the background builder runs)."""
    import os

    from hansard.answers.search import meaning

    emb, why = meaning.load_embedder()
    if emb is None:
        from hansard.errors import NotInstalled

        raise NotInstalled(why or "no embedding model")
    fd = meaning.take_embed_lock()
    if fd is None:
        if not a.quiet:
            say("another `hansard embed` is running", file=sys.stderr)
        return 0
    try:
        counts = meaning.build_vectors(_store().search, emb, max_seconds=a.max_seconds)
        from hansard.answers.search.intent import build_intent_vectors, load_intent_encoder

        enc = load_intent_encoder()[0]
        if enc is not None:  # the sessions' intent texts, after every passage: a search uses both
            counts["intents"] = build_intent_vectors(_store().search, enc, max_seconds=a.max_seconds)["embedded"]
    finally:
        os.close(fd)
    if a.json:
        _print_json(counts)
    elif not a.quiet:
        say(f"embedded {counts['embedded']} texts for {counts['messages']} messages ({counts['reused']} reused)")
    return 0


def cmd_config(a: argparse.Namespace) -> int:
    from hansard.link.repos import add_path_map

    store = _store()
    if a.config_cmd == "map":
        add_path_map(store, a.old, a.new)
        say(f"mapped {a.old} -> {a.new}; run `hansard index` to re-link sessions")
    else:
        for old, new in store.repos.path_maps():
            say(f"{old} -> {new}")
    return 0


def _read_contents(path: str) -> bytes:
    """``why --contents FILE``: a regular file's bytes (a FIFO would block, a folder has none)."""
    from hansard import safeopen
    from hansard.errors import NotAFile

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


def _commit_facts_upkeep(store: Any) -> Any:
    from hansard.link.commit_facts import upkeep

    return upkeep(store)


def cmd_why(a: argparse.Namespace) -> int:
    from hansard.answers.why import explain, explain_json, parse_target

    store = _reader_store()
    # The quick index runs inside the answer, while git blames (or after a cached answer is
    # found, which is served only if that index found nothing new).
    sync = None if a.no_sync else (lambda: quick_sync(store))
    upkeep = _commit_facts_upkeep(store)
    contents = None
    if a.contents == "-":
        contents = sys.stdin.buffer.read()
    elif a.contents:
        contents = _read_contents(a.contents)
    if a.json:
        # the document as bytes: a cached answer is printed as stored, never decoded
        doc = explain_json(_team_fresh(store), a.target, rev=a.rev, contents=contents, cache=not a.no_cache, sync=sync,
                           upkeep=upkeep)
        sys.stdout.flush()
        sys.stdout.buffer.write(json_bytes(doc) + b"\n")
        sys.stdout.buffer.flush()
        return 0
    ans = explain(_team_fresh(store), a.target, rev=a.rev, contents=contents, cache=not a.no_cache, sync=sync,
                  upkeep=upkeep)
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

    store = _store()
    if not a.no_sync:
        quick_sync(store)
    result = code_history(_team_fresh(store), a.target, symbol=a.symbol, repo=a.repo, until=a.until, token_budget=a.budget,
                          render=lambda r: code_history_tree(r, notice=False))
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
    from hansard.ingest.scanner import stderr_progress

    store = _reader_store()
    if not a.no_sync:
        quick_sync(store)
    by = tuple(a.by or ("agent", "dir"))
    result = repo_stats(_team_fresh(store), a.paths, rev=a.rev, since=a.since, until=a.until, by=by,
                        cache=not a.no_cache, upkeep=_commit_facts_upkeep(store),
                        progress=None if a.json else stderr_progress(), depth=a.depth)
    if a.json:
        _print_json(result)
    else:
        from hansard.render.stats import stats_text

        if result.get("notice"):
            from hansard.answers.notices import no_sessions_text

            say(no_sessions_text(result["notice"]), file=sys.stderr)

        say(stats_text(result, by, a.depth))
    return 0


def cmd_context(a: argparse.Namespace) -> int:
    from hansard.answers.work_context import work_context
    from hansard.render.trees import work_context_tree

    store = _store()
    if not a.no_sync:
        quick_sync(store)
    result = work_context(_team_fresh(store), a.session, repo=a.repo, until=a.until, token_budget=a.budget,
                          render=work_context_tree)
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
                        memories=not a.no_memories, audit_queries=a.audit_queries)
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
    rows = _reader_store().audit.recent(a.limit)
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
    from hansard.team.commands import run

    data, text = run(a, _store)
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

        summary = import_traces(_store(), a.paths).as_dict()
        if a.json:
            _print_json(summary)
        else:
            say(render.imported(summary))
        return 0
    import json
    import os

    from hansard.trace.export import export

    if a.commit and a.rev_range:
        raise InvalidArgument("give --commit C or a REV_RANGE, not both")
    store = _reader_store()
    quick_sync(store)
    done = export(_team_fresh(store), os.getcwd(), commit=a.commit, rev_range=a.rev_range,
                  upkeep=_commit_facts_upkeep(store), cache=not a.no_cache)
    written: dict[str, str] = {}
    if a.out:
        from hansard.privfile import write_file

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
    """argparse's formatter, given a width so that it does not import shutil (~15 ms) just to
    ask for the terminal size on every run."""

    def __init__(self, prog: str) -> None:
        import os

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


class _Skipped:
    """Stands in for the parser of a command that is not being run: adding its arguments
    costs nothing (editors call `hansard why` once per file; every millisecond counts)."""

    def __getattr__(self, name: str) -> Any:
        return lambda *a, **k: self


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The whole CLI, or, with ``only``, just the command about to run (same behaviour, less
    start-up work). An ``only`` that names no command gives the whole CLI, so argparse can
    list the real choices."""
    p = _Parser(
        prog="hansard",
        description="Code history and blame for code that coding agents write.",
    )
    p.add_argument("-V", "--version", action="version", version=f"hansard {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    from hansard import agents

    built: list[str] = []

    def names() -> str:
        return ", ".join(a.name for a in agents.agents())

    def add(name: str, fn: Callable[[argparse.Namespace], int], help: str | Callable[[], str]
            ) -> argparse.ArgumentParser:
        if only is not None and name != only:
            return _Skipped()  # type: ignore[return-value]
        built.append(name)
        if callable(help):
            help = help()
        sp = sub.add_parser(name, help=help, description=help)
        sp.set_defaults(fn=fn)
        return sp

    def real(sp: argparse.ArgumentParser) -> bool:
        # An argument's choices or help that need the agent registry (every agent's package)
        # are computed only for a parser that is built: `why`'s needs no agent names.
        return not isinstance(sp, _Skipped)

    sp = add("index", cmd_index, "Archive and index agent transcripts (default homes, or the given paths)")
    sp.add_argument("paths", nargs="*", help="transcript files or folders (default: the agents' homes)")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--no-wait", action="store_true", help="exit at once if another indexer is running")
    sp.add_argument("--quiet", action="store_true", help="no progress line (it is shown only on a terminal anyway)")
    sp.add_argument("--watch", action="store_true",
                    help="keep running: index new transcript lines as they are written, until SIGTERM")

    sp = add("reindex", cmd_reindex, "Rebuild every derived table from the archive alone")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--quiet", action="store_true", help="no progress line (it is shown only on a terminal anyway)")

    sp = add("status", cmd_status, "What is indexed: sources, counts, freshness, last run")
    sp.add_argument("--json", action="store_true")

    sp = add("sessions", cmd_sessions, "List sessions, newest first")
    sp.add_argument("--repo", help="only sessions in this repository (a path inside it)")
    sp.add_argument("--provider", choices=[a.name for a in agents.agents()] if real(sp) else None)
    sp.add_argument("--since", help="ISO date or date-time")
    sp.add_argument("--limit", type=integer, default=20)
    sp.add_argument("--include-web-chats", action="store_true", help="also list imported claude.ai / ChatGPT chats")
    sp.add_argument("--include-team-sessions", action="store_true", help="also list teammates' sessions (hansard team)")
    sp.add_argument("--team", help="also list the sessions of this team (hansard team)")
    sp.add_argument("--json", action="store_true")

    sp = add("import", cmd_import, "Import a claude.ai or ChatGPT data export (the zip or its conversations.json)")
    sp.add_argument("path", help="the export zip, or the conversations.json inside it")
    sp.add_argument("--json", action="store_true")

    sp = add("show", cmd_show, "Show one session's messages, a window at a time")
    sp.add_argument("session", help="session id or a unique prefix")
    sp.add_argument("--around", type=integer, help="centre the window on this message_index")
    sp.add_argument("--roles", help="only these roles, comma-separated (user,assistant,tool,system)")
    sp.add_argument("--limit", type=integer, help="messages per page (default 20)")
    sp.add_argument("--next", help="continue a read from the cursor a previous page printed")
    sp.add_argument("--group-revisions", action="store_true", help="fold earlier near-copies into their latest revision")
    sp.add_argument("--max-message-chars", type=integer, help="cut tool output at this many characters (default 1500)")
    sp.add_argument("--content-offset", type=integer, help="start the first message (or --around's) at this character")
    sp.add_argument("--max-chars", type=integer, help="character budget of the page (default 24000)")
    sp.add_argument("--all", action="store_true", help="follow the cursor to the end of the session")
    sp.add_argument("--raw", action="store_true", help="include the archived raw record (may contain secrets)")
    sp.add_argument("--json", action="store_true")

    sp = add("history", cmd_history, "Search past sessions by keyword, meaning, or both")
    sp.add_argument("query", nargs="*", help='words, "a phrase", a or b, -excluded')
    sp.add_argument("--repo", help="a path inside the repository, or its folder name")
    sp.add_argument("--provider", help=names() if real(sp) else None)
    sp.add_argument("--since", help="YYYY-MM-DD (whole local day) or a date-time with a UTC offset")
    sp.add_argument("--until", help="YYYY-MM-DD (whole local day) or a date-time with a UTC offset")
    sp.add_argument("--roles", help="only these roles, comma-separated (user = the person's own messages)")
    sp.add_argument("--tool", help="only messages of this tool's calls (or shell, edit, read, search, web)")
    sp.add_argument("--command", dest="command_filter", help="only shell calls whose command contains this text")
    sp.add_argument("--file", help="only sessions that edited or read this path")
    sp.add_argument("--commit", help="only sessions tied to this commit")
    sp.add_argument("--include-subagents", action="store_true")
    sp.add_argument("--include-web-chats", action="store_true")
    sp.add_argument("--include-team-sessions", action="store_true")
    sp.add_argument("--team")
    sp.add_argument("--hits-per-session", type=integer, help="1-5 (default 1); the rest go to more_hits")
    sp.add_argument("--no-group-revisions", action="store_true", help="do not fold near-identical copies")
    sp.add_argument("--mode", choices=["keyword", "meaning", "hybrid"], default="keyword")
    sp.add_argument("--limit", type=integer, help="hits, default 5, at most 20")
    sp.add_argument("--exclude-session", help="leave this session out (default: the calling agent's, from the environment)")
    sp.add_argument("--include-current", action="store_true", help="do not leave the calling session out")
    sp.add_argument("--no-sync", action="store_true", help="do not run the incremental index first")
    sp.add_argument("--json", action="store_true")

    sp = add("memory", cmd_memory, lambda: "Search and read agent memory files ("
             + ", ".join(dict.fromkeys(n for _, m in agents.memory_files() for n in m.project_names)) + ")")
    msub = sp.add_subparsers(dest="memory_cmd", required=True)
    m = msub.add_parser("search", help="memories matching a query")
    m.add_argument("query", nargs="*")
    m.add_argument("--repo", help="rank this project's guidance with global and unkeyed memories")
    m.add_argument("--provider", help=names() if real(m) else None)
    m.add_argument("--source", help="a provider or a kind (claude_md, claude_auto_memory, agents_md, ...)")
    m.add_argument("--include-team-sessions", action="store_true", help="also teammates' project memories (hansard team)")
    m.add_argument("--team", help="also the project memories of this team (hansard team)")
    m.add_argument("--json", action="store_true")
    m = msub.add_parser("show", help="a window of one memory")
    m.add_argument("memory_id")
    m.add_argument("--line", type=integer, help="centre the window on this line")
    m.add_argument("--offset", type=integer, help="start at this character (wins over --line)")
    m.add_argument("--json", action="store_true")
    m = msub.add_parser("scan", help="look for memory files now")
    m.add_argument("--json", action="store_true")

    sp = add("embed", cmd_embed, "Build meaning-search vectors for new messages (needs the semantic extra)")
    sp.add_argument("--max-seconds", type=float, help="stop after about this long; the next run goes on")
    sp.add_argument("--quiet", action="store_true")
    sp.add_argument("--json", action="store_true")

    sp = add("config", cmd_config, "Settings: path prefix maps for sessions recorded elsewhere")
    csub = sp.add_subparsers(dest="config_cmd", required=True)
    m = csub.add_parser("map", help="map a recorded path prefix to where it lives now")
    m.add_argument("old")
    m.add_argument("new")
    csub.add_parser("maps", help="list path maps")

    sp = add("why", cmd_why, "Which agent session, message and tool call wrote these lines, and why")
    sp.add_argument("target", help="PATH, PATH:LINE or PATH:START-END")
    sp.add_argument("--rev", help="answer for the file at this revision instead of the working tree")
    sp.add_argument("--contents", metavar="FILE|-", help="blame these contents (an unsaved editor buffer; - for stdin)")
    sp.add_argument("--json", action="store_true", help="the stable JSON contract, for editors")
    sp.add_argument("--no-sync", action="store_true", help="do not run the incremental index first")
    sp.add_argument("--no-cache", action="store_true", help="answer afresh: neither read nor remember a cached answer")

    sp = add("stats", cmd_stats, "How much of the repository agents wrote: lines by kind, agent, folder and month")
    sp.add_argument("paths", nargs="*", metavar="PATH", help="files or folders (default: the whole repository)")
    sp.add_argument("--rev", help="count the files at this revision (default HEAD)")
    sp.add_argument("--since", help="only lines whose commit was made from this date or date-time")
    sp.add_argument("--until", help="only lines whose commit was made up to this date or date-time")
    sp.add_argument("--by", action="append", choices=["agent", "model", "session", "member", "source", "dir", "month"],
                    help="a breakdown to show (repeatable; default agent and dir)")
    sp.add_argument("--depth", type=integer, metavar="N",
                    help="open every folder N levels below each PATH (default: the largest first, in about 40 rows)")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--no-sync", action="store_true", help="do not run the incremental index first")
    sp.add_argument("--no-cache", action="store_true", help="answer every file afresh: neither read nor keep summaries")

    sp = add("log", cmd_log, "code_history: the conversations that changed a file, a line or a symbol, newest first")
    sp.add_argument("target", help="PATH or PATH:LINE (relative to the repository)")
    sp.add_argument("--symbol", help="narrow to one function, class or method (e.g. Class.method)")
    sp.add_argument("--repo", help="the repository (a path inside it); default: the current folder")
    sp.add_argument("--until", help="hide evidence newer than this ISO date or date-time")
    sp.add_argument("--budget", type=integer, default=4000, help="token budget of the answer (4 characters a token)")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--no-sync", action="store_true", help="do not run the incremental index first")

    sp = add("context", cmd_context, "work_context: a task's conversations, steps, tests and commits")
    sp.add_argument("session", nargs="?", help="session id or prefix (default: the live session in this repository)")
    sp.add_argument("--repo", help="the repository (a path inside it); default: the current folder")
    sp.add_argument("--until", help="hide evidence newer than this ISO date or date-time")
    sp.add_argument("--budget", type=integer, default=4000, help="token budget of the answer (4 characters a token)")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--no-sync", action="store_true", help="do not run the incremental index first")

    sp = add("mcp", cmd_mcp, "The MCP server for agents: serve it over stdio, or install it into an agent")
    msub = sp.add_subparsers(dest="mcp_cmd", required=True)
    m = msub.add_parser("serve", help="run the stdio MCP server")
    m.add_argument("--scope", choices=["all", "repo"], default="all", help="repo: only the current repository")
    m.add_argument("--no-memories", action="store_true", help="leave out search_memories and get_memory")
    m.add_argument("--session", help="the calling session's id (default: $HANSARD_SESSION_ID)")
    m.add_argument("--audit-queries", action="store_true", help="keep query text in the audit rows")
    m.add_argument("--status", action="store_true", help="print what the server would offer, then exit")
    m = msub.add_parser("install", help="print (or --write) the agent's MCP configuration for hansard")
    m.add_argument("agent", choices=agents.install_names() if real(m) else None)
    m.add_argument("--write", action="store_true", help="add it to the agent's config file (after a backup)")
    m.add_argument("--json", action="store_true")

    sp = add("audit", cmd_audit, "MCP calls: tool, caller, outcome, duration, result count")
    sp.add_argument("--limit", type=integer, default=50)
    sp.add_argument("--json", action="store_true")

    sp = add("doctor", cmd_doctor, "Check the store; with --rebuild, rebuild a damaged store from its archive")
    sp.add_argument("--rebuild", action="store_true", help="salvage the archive into a new store and reindex it")
    sp.add_argument("--json", action="store_true")

    sp = add("demo", cmd_demo, "Build a small repository and agent transcripts in a folder, index them, explain, "
                               "and print next steps to try there")
    sp.add_argument("folder", nargs="?", metavar="DIR", help="where to build it (default ./hansard-demo; kept)")
    sp.add_argument("--keep", action="store_true", help=argparse.SUPPRESS)  # the folder is always kept now

    sp = add("ui", cmd_ui, "A local, read-only web page: stats, files beside their conversations, sessions, search")
    sp.add_argument("target", nargs="?", help="open this file (PATH or PATH:LINE) with that line's conversation")
    sp.add_argument("--port", type=integer, default=0, help="port on 127.0.0.1 (default: a free one)")
    sp.add_argument("--open", action="store_true", help="open the page in the browser")
    sp.add_argument("--repo", help="the repository to serve (a path inside it); default: the current folder")

    sp = add("team", cmd_team, "Share sessions of opted-in repositories with a team through PostgreSQL")
    if not isinstance(sp, _Skipped):
        from hansard.team.commands import add_arguments

        add_arguments(sp)

    sp = add("trace", cmd_trace, "Agent Trace records: export hansard's answers, import other tools' records")
    tsub = sp.add_subparsers(dest="trace_cmd", required=True)
    m = tsub.add_parser("export", help="write the Agent Trace record of a commit (default HEAD) or of each commit of a range")
    m.add_argument("rev_range", nargs="?", help="A..B: every commit of the range (a single revision: that commit)")
    m.add_argument("--commit", help="this commit")
    m.add_argument("--out", help="write <commit>.json files into this folder")
    m.add_argument("--json", action="store_true", help="print the records, one JSON object a line")
    m.add_argument("--no-cache", action="store_true", help="answer every file again (not from the why-result cache)")
    m = tsub.add_parser("import", help="read Agent Trace records (files or folders) as recorded evidence for why")
    m.add_argument("paths", nargs="+", help="record files (.json, .jsonl) or folders of them")
    m.add_argument("--json", action="store_true")

    sp = add("completion", cmd_completion, "Print a shell completion script (bash, zsh or fish)")
    sp.add_argument("shell", choices=["bash", "zsh", "fish"],
                    help="bash: eval \"$(hansard completion bash)\" in ~/.bashrc; zsh: hansard completion zsh > "
                         "a folder on $fpath as _hansard; fish: hansard completion fish > "
                         "~/.config/fish/completions/hansard.fish")

    sp = add("lsp", cmd_lsp, "The language server for editors (stdio): hover, inlay hints, code lens, conversations")
    sp.add_argument("--stdio", action="store_true", help="talk over stdin/stdout (the default and only transport)")
    if only is not None and not built:
        return build_parser(None)
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    first = next((a for a in args if not a.startswith("-")), None)
    parser = build_parser(first)
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
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as exc:
        import os

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


def entry() -> None:
    sys.exit(main())


__all__ = ["main", "InvalidArgument"]
