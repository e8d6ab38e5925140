"""The command line: parse arguments, call one core function, render its result. Nothing else.

argparse, not typer: editors shell out to ``hansard why`` once per file, and typer's import
alone costs ~280 ms here (see shared/STACK.md) against ~35 ms for argparse. Every heavy module
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


def _db():
    from hansard.store.db import connect

    return connect()


def _print_json(obj: Any) -> None:
    # stdlib json, not orjson: orjson's import pulls in dataclasses and uuid (~18 ms), and
    # this runs on every editor call of `hansard why`.
    import json

    sys.stdout.write(json.dumps(obj, indent=2, ensure_ascii=False, default=str))
    sys.stdout.write("\n")


# -- commands -------------------------------------------------------------------------


def cmd_index(a: argparse.Namespace) -> int:
    from pathlib import Path

    from hansard import render
    from hansard.ingest.run import index
    from hansard.ingest.scanner import stderr_progress

    db = _db()
    summary = index(db, [Path(p) for p in a.paths] or None, wait=not a.no_wait, progress=stderr_progress())
    if summary is None:
        print("hansard: another `hansard index` is running; not waiting (--no-wait)", file=sys.stderr)
        return 13
    if a.json:
        _print_json(summary.as_dict())
    else:
        print(render.index_summary(summary.as_dict()))
    return 0


def cmd_reindex(a: argparse.Namespace) -> int:
    from hansard import render
    from hansard.ingest.run import rebuild

    summary = rebuild(_db())
    if a.json:
        _print_json(summary.as_dict())
    else:
        print(render.index_summary(summary.as_dict(), verb="Reindexed from the archive"))
    return 0


def cmd_status(a: argparse.Namespace) -> int:
    from hansard import render
    from hansard.config import store_path
    from hansard.store.queries import status

    data = status(_db())
    data["store"] = str(store_path())
    if a.json:
        _print_json(data)
    else:
        print(render.status(data))
    return 0


def cmd_sessions(a: argparse.Namespace) -> int:
    from hansard import render
    from hansard.store.queries import list_sessions

    db = _db()
    repo_id = _repo_id(db, a.repo) if a.repo else None
    rows = list_sessions(db, repo_id=repo_id, provider=a.provider, since=a.since, limit=a.limit)
    if a.json:
        _print_json({"sessions": rows})
    else:
        print(render.sessions(rows))
    return 0


def _repo_id(db, repo: str) -> int:
    from pathlib import Path

    from hansard.errors import NotARepository
    from hansard.git.identity import find_toplevel
    from hansard.store.resolve import Resolver

    tops = find_toplevel(str(Path(repo).resolve()) + "/.")
    if tops is None:
        raise NotARepository(f"{repo} is not inside a git repository")
    return Resolver(db).repo_id(tops[1])


def cmd_show(a: argparse.Namespace) -> int:
    from hansard import render
    from hansard.store.queries import session_messages

    data = session_messages(_db(), a.session, around=a.around, limit=a.limit, raw=a.raw)
    if a.json:
        _print_json(data)
    else:
        print(render.session(data, raw=a.raw))
    return 0


def cmd_config(a: argparse.Namespace) -> int:
    from hansard.store.db import transaction
    from hansard.store.resolve import add_path_map

    db = _db()
    if a.config_cmd == "map":
        with transaction(db):
            add_path_map(db, a.old, a.new)
        print(f"mapped {a.old} -> {a.new}; run `hansard index` to re-link sessions")
    else:
        for r in db.execute("SELECT old_prefix, new_prefix FROM path_maps ORDER BY old_prefix"):
            print(f"{r[0]} -> {r[1]}")
    return 0


def cmd_why(a: argparse.Namespace) -> int:
    from hansard.attribution.why import explain

    db = _db()
    if not a.no_sync:
        _quick_sync(db)
    from pathlib import Path

    contents = None
    if a.contents == "-":
        contents = sys.stdin.buffer.read()
    elif a.contents:
        contents = Path(a.contents).read_bytes()
    ans = explain(db, a.target, rev=a.rev, contents=contents)
    if a.json:
        _print_json(ans)
        return 0
    from hansard import render

    if len(ans["lines"]) == 1 or (len(ans["lines"]) <= 5 and ":" in a.target):
        print("\n\n".join(render.why_line(ans, ln) for ln in ans["lines"]))
    else:
        print(render.why_file(ans))
    return 0


def _quick_sync(db) -> None:
    """The cheap incremental index before answering; skipped if another indexer runs."""
    from hansard.config import default_source_dirs
    from hansard.ingest.quickcheck import anything_changed

    if not anything_changed(db, default_source_dirs()):
        return
    from hansard.ingest.run import index

    index(db, wait=False)


def cmd_log(a: argparse.Namespace) -> int:
    from hansard.history.code_history import code_history

    db = _db()
    if not a.no_sync:
        _quick_sync(db)
    result = code_history(db, a.target, symbol=a.symbol, repo=a.repo, until=a.until, token_budget=a.budget)
    if a.json:
        _print_json(result)
    else:
        print(result["tree"])
    return 0


def cmd_demo(a: argparse.Namespace) -> int:
    from hansard.demo import run_demo

    return run_demo(keep=a.keep)


# -- parser ---------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="hansard",
        description="Code history and blame for code that coding agents write.",
    )
    p.add_argument("--version", action="version", version=f"hansard {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, fn: Callable[[argparse.Namespace], int], help: str) -> argparse.ArgumentParser:
        sp = sub.add_parser(name, help=help, description=help)
        sp.set_defaults(fn=fn)
        return sp

    sp = add("index", cmd_index, "Archive and index agent transcripts (default homes, or the given paths)")
    sp.add_argument("paths", nargs="*", help="transcript files or folders (default: the agents' homes)")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--no-wait", action="store_true", help="exit at once if another indexer is running")

    sp = add("reindex", cmd_reindex, "Rebuild every derived table from the archive alone")
    sp.add_argument("--json", action="store_true")

    sp = add("status", cmd_status, "What is indexed: sources, counts, freshness, last run")
    sp.add_argument("--json", action="store_true")

    sp = add("sessions", cmd_sessions, "List sessions, newest first")
    sp.add_argument("--repo", help="only sessions in this repository (a path inside it)")
    sp.add_argument("--provider", choices=["claude_code", "codex", "gemini"])
    sp.add_argument("--since", help="ISO date or date-time")
    sp.add_argument("--limit", type=int, default=20)
    sp.add_argument("--json", action="store_true")

    sp = add("show", cmd_show, "Show one session's messages")
    sp.add_argument("session", help="session id or a unique prefix")
    sp.add_argument("--around", type=int, help="centre the window on this message_index")
    sp.add_argument("--limit", type=int)
    sp.add_argument("--raw", action="store_true", help="include the archived raw record (may contain secrets)")
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

    sp = add("log", cmd_log, "code_history: the conversations that changed a file, a line or a symbol, newest first")
    sp.add_argument("target", help="PATH or PATH:LINE (relative to the repository)")
    sp.add_argument("--symbol", help="narrow to one function, class or method (e.g. Class.method)")
    sp.add_argument("--repo", help="the repository (a path inside it); default: the current folder")
    sp.add_argument("--until", help="hide evidence newer than this ISO date or date-time")
    sp.add_argument("--budget", type=int, default=4000, help="token budget of the answer (4 characters a token)")
    sp.add_argument("--json", action="store_true")
    sp.add_argument("--no-sync", action="store_true", help="do not run the incremental index first")

    sp = add("demo", cmd_demo, "Build a small repository and transcripts in a temporary folder, index them, explain")
    sp.add_argument("--keep", action="store_true", help="keep the temporary folder and print where it is")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    ns = parser.parse_args(args)
    if not getattr(ns, "fn", None):
        parser.print_help()
        return 2
    try:
        return ns.fn(ns)
    except HansardError as exc:
        if getattr(ns, "json", False):
            _print_json({"error": exc.to_dict()})
        print(f"hansard: {exc.message} [{exc.code}]", file=sys.stderr)
        return exc.exit_code
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


def entry() -> None:
    sys.exit(main())


__all__ = ["main", "InvalidArgument"]
