"""Benchmark `hansard mcp serve` as an agent sees it: a real MCP client over a stdio subprocess.

1. Start-up: the time from spawning the process to the answer of the first `tools/list`
   (initialize handshake included), for `python -m hansard mcp serve`, against a bare
   `MCPServer` hello-world with one trivial tool started the same way (same interpreter, env
   and cwd, `mode="legacy"` client), alternating the two. Target: <= 1.2x.
2. Warm call latency per tool: one server session against a store built from the demo story
   (hansard.demo.Story) plus the shared samples, a warm-up call per tool, then N calls each;
   the median beside the same core function called directly in this process (interleaved),
   so the ratio is the cost of the protocol and the adapter. The hello-world tool's call is
   the protocol floor.

    python scripts/bench_mcp.py [--quick] [--rounds N] [--calls N] [--dir DIR] [--importtime] [--profile]

--importtime prints the heaviest imports of both servers' start-up (`python -X importtime`, the
process reads EOF on stdin and exits); --profile a cProfile of hansard's start-up. Prints
medians, ratios and PASS/MISS; `run(quick)` returns the rows for bench_all.py.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET_RATIO = 1.2
SAMPLES = Path(os.environ.get("HANSARD_SAMPLES", Path(__file__).resolve().parents[2] / "shared" / "samples"))
HELLO = '''\
from mcp.server.mcpserver import MCPServer

mcp = MCPServer("hello", version="0.0.1")


@mcp.tool()
def hello(name: str) -> str:
    """Say hello."""
    return f"hello {name}"


if __name__ == "__main__":
    mcp.run()
'''
MEMORY_PROJECT = """# upload-service

- Run the tests with `pytest -q` before every commit.
- Uploads retry with exponential backoff; never retry a 4xx response.
- Keep app/retry.py free of network imports: the tests stub the clock, not the socket.
"""
MEMORY_GLOBAL = """# Preferences

- Prefer small commits with a test for each behaviour change.
- Use type hints everywhere; run the tests after each edit.
"""
# Known sessions of the demo story (tests/test_mcp.py uses the same ones).
CALLER = "4f0f2c6e-9d1b-4c7a-a35e-0c8f5b2d7e11"
CODEX = "019e7a44-5b20-7c31-8d2e-3f6a9b1c0d42"


def log(*a: Any) -> None:
    print(*a, file=sys.stderr, flush=True)


def build_world(root: Path) -> dict[str, Any]:
    """The demo repository and sessions plus every shared sample, indexed into one store
    (as tests/test_mcp.py does). Sets the agent homes and HANSARD_HOME in os.environ."""
    from hansard.demo import build, point_homes
    from hansard.ingest.run import index
    from hansard.store import open_store

    home = root / "demo" / "home"
    for var, sub in (("HOME", ""), ("XDG_DATA_HOME", ".local/share"), ("XDG_CONFIG_HOME", ".config")):
        os.environ[var] = str(home / sub) if sub else str(home)  # nothing reads the real home folders
    os.environ.update(GIT_CONFIG_GLOBAL=os.devnull, GIT_CONFIG_NOSYSTEM="1")
    repo = root / "demo" / "upload-service"
    if (repo / ".git").exists():
        point_homes(root / "demo")
    else:
        shutil.rmtree(root / "demo", ignore_errors=True)
        repo = build(root / "demo").repo
    # The story has no guidance files; give it a project CLAUDE.md and a global one, so that
    # search_memories has hits and get_memory something to open.
    if not (repo / "CLAUDE.md").exists():
        (repo / "CLAUDE.md").write_text(MEMORY_PROJECT)
        claude = Path(os.environ["CLAUDE_CONFIG_DIR"])
        claude.mkdir(parents=True, exist_ok=True)
        (claude / "CLAUDE.md").write_text(MEMORY_GLOBAL)
    store = open_store()
    index(store)
    extra = [SAMPLES / p for p in ("claude-code", "codex") if (SAMPLES / p).exists()]
    if extra:
        index(store, extra)
    counts = {k: store.sessions.status()["counts"][k] for k in ("sessions", "messages", "edits")}
    store.close()
    env = {k: os.environ[k] for k in ("HANSARD_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "HOME",
                                      "XDG_DATA_HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM")}
    env["PATH"] = os.environ.get("PATH", "")
    return {"repo": repo, "env": env, "counts": counts, "samples": bool(extra)}


def client(args: list[str], env: dict[str, str], cwd: Path, errlog: Any) -> Any:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(command=sys.executable, args=args, env=env, cwd=str(cwd))
    return Client(stdio_client(params, errlog=errlog), mode="legacy", cache=None)


async def time_start(args: list[str], env: dict[str, str], cwd: Path, errlog: Any) -> tuple[float, float, int]:
    """(seconds to the initialize answer, seconds to the first tools/list answer, tool count)."""
    t = time.perf_counter()
    async with client(args, env, cwd, errlog) as c:
        t_init = time.perf_counter() - t
        tools = (await c.list_tools()).tools
        t_list = time.perf_counter() - t
    return t_init, t_list, len(tools)


async def startup(world: dict[str, Any], hello: Path, rounds: int, errlog: Any) -> dict[str, Any]:
    cmds = {"hansard": ["-m", "hansard", "mcp", "serve"], "hello": [str(hello)]}
    res: dict[str, dict[str, list[float]]] = {k: {"init": [], "list": []} for k in cmds}
    ntools = {}
    for name in ("hello", "hansard"):  # one unmeasured start each: page cache, .pyc files
        await time_start(cmds[name], world["env"], world["repo"], errlog)
    for i in range(rounds):
        order = ("hello", "hansard") if i % 2 == 0 else ("hansard", "hello")
        for name in order:
            ti, tl, n = await time_start(cmds[name], world["env"], world["repo"], errlog)
            res[name]["init"].append(ti)
            res[name]["list"].append(tl)
            ntools[name] = n
    return {"res": res, "ntools": ntools}


def direct_calls(repo: Path, memory_id: str | None) -> dict[str, Any]:
    """The core function behind each tool, called in this process with the same arguments."""
    from hansard.answers.code_history import code_history
    from hansard.answers.memories import get_memory, search_memories
    from hansard.answers.search.sessions import search_past_sessions
    from hansard.answers.transcript import get_past_session
    from hansard.answers.work_context import work_context
    from hansard.ingest.capture import capture
    from hansard.render.trees import code_history_tree, work_context_tree

    r = str(repo)
    n = {"i": 0}

    def cap(db: Any) -> Any:
        n["i"] += 1
        return capture(db, CALLER, "result", "worker-1", "/root", f"direct capture {n['i']} {time.time()}")

    return {
        "search_past_sessions": lambda db: search_past_sessions(db, "backoff", exclude_session_id=CALLER),
        "get_past_session": lambda db: get_past_session(db, CODEX, limit=2),
        "code_history": lambda db: code_history(db, "app/retry.py", repo=r, render=code_history_tree),
        "code_history path:line": lambda db: code_history(db, "app/retry.py:10", repo=r, render=code_history_tree),
        "work_context": lambda db: work_context(db, CODEX, repo=r, render=work_context_tree),
        "search_memories": lambda db: search_memories(db, "test"),
        "get_memory": (lambda db: get_memory(db, memory_id)) if memory_id else None,
        "capture_subagent_messages": cap,
    }


def mcp_args(memory_id: str | None) -> dict[str, tuple[str, Any]]:
    n = {"i": 0}

    def cap() -> dict[str, Any]:
        n["i"] += 1
        return {"message_type": "result", "sender": "worker-1", "recipient_path": "/root",
                "text": f"mcp capture {n['i']} {time.time()}"}

    return {
        "search_past_sessions": ("search_past_sessions", lambda: {"query": "backoff"}),
        "get_past_session": ("get_past_session", lambda: {"session_id": CODEX, "limit": 2}),
        "code_history": ("code_history", lambda: {"path": "app/retry.py"}),
        "code_history path:line": ("code_history", lambda: {"path": "app/retry.py:10"}),
        "work_context": ("work_context", lambda: {"session_id": CODEX}),
        "search_memories": ("search_memories", lambda: {"query": "test"}),
        "get_memory": ("get_memory", lambda: {"memory_id": memory_id}),
        "capture_subagent_messages": ("capture_subagent_messages", cap),
    }


async def warm_calls(world: dict[str, Any], hello: Path, calls: int, errlog: Any) -> dict[str, Any]:
    from hansard.answers.memories import search_memories
    from hansard.store import open_store

    db = open_store()
    mem = search_memories(db, "test").get("results") or search_memories(db, "").get("results") or []
    memory_id = mem[0].get("memory_id") if mem else None
    direct = direct_calls(world["repo"], memory_id)
    specs = mcp_args(memory_id)
    out: dict[str, Any] = {}
    args = ["-m", "hansard", "mcp", "serve", "--session", CALLER]
    async with client(args, world["env"], world["repo"], errlog) as c:
        listed = {t.name for t in (await c.list_tools()).tools}
        await asyncio.sleep(1.0)  # let the start-up background index finish
        for label, (tool, mk) in specs.items():
            if tool not in listed or direct.get(label) is None:
                out[label] = {"skipped": f"{tool} not listed" if tool not in listed else "no memory in the store"}
                continue
            t = time.perf_counter()
            r = await c.call_tool(tool, mk())
            first = time.perf_counter() - t
            sc = r.structured_content or {}
            err = sc.get("error") if r.is_error else None
            count = next((len(sc[k]) for k in ("results", "entries", "messages", "hits") if isinstance(sc.get(k), list)),
                         None)
            direct[label](db)
            m_t, d_t = [], []
            for _ in range(calls):
                t = time.perf_counter()
                await c.call_tool(tool, mk())
                m_t.append(time.perf_counter() - t)
                t = time.perf_counter()
                direct[label](db)
                d_t.append(time.perf_counter() - t)
            out[label] = {"tool": tool, "mcp": m_t, "direct": d_t, "first": first, "count": count, "error": err}
        missing = listed - {t for t, _ in specs.values()}
        if missing:
            out["_unmeasured"] = sorted(missing)
    db.close()
    hello_args = [str(hello)]
    async with client(hello_args, world["env"], world["repo"], errlog) as c:
        await c.list_tools()
        await c.call_tool("hello", {"name": "x"})
        ht = []
        for _ in range(calls):
            t = time.perf_counter()
            await c.call_tool("hello", {"name": "x"})
            ht.append(time.perf_counter() - t)
    out["_hello"] = ht
    return out


def importtime(cmd: list[str], env: dict[str, str], cwd: Path, n: int = 15) -> tuple[float, list[tuple[float, str]]]:
    """Wall time of a start that reads EOF at once, and the heaviest imports (cumulative ms)."""
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-X", "importtime", *cmd], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                       capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - t
    rows = []
    for ln in p.stderr.splitlines():
        if ln.startswith("import time:") and "|" in ln:
            _, cum, name = ln[len("import time:"):].split("|")
            try:
                rows.append((int(cum) / 1000, name.rstrip()))
            except ValueError:
                pass
    # Only top-level packages and hansard's own modules.
    keep = [r for r in rows if not r[1].startswith("  ") or r[1].strip().startswith("hansard")]
    return wall, sorted(keep, reverse=True)[:n]


def profile_start(world: dict[str, Any], n: int = 30) -> None:
    import pstats

    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "serve.prof"
        subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "hansard", "mcp", "serve"],
                       env=world["env"], cwd=world["repo"], stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
        buf = io.StringIO()
        pstats.Stats(str(out), stream=buf).sort_stats("cumulative").print_stats(n)
        text = buf.getvalue()
        print(f"\n== cProfile of `hansard mcp serve` start-up (stdin at EOF): top {n} by cumulative ==")
        print(text[text.find("   ncalls"):])


def run(quick: bool = False, directory: str | None = None, rounds: int | None = None, calls: int | None = None,
        show_imports: bool = False, profile: bool = False) -> list[dict[str, Any]]:
    rounds = rounds or (3 if quick else 11)
    calls = calls or (5 if quick else 25)
    root = Path(directory or tempfile.mkdtemp(prefix="hansard-bench-mcp-"))
    root.mkdir(parents=True, exist_ok=True)
    saved_env = dict(os.environ)
    errlog = open(root / "servers.stderr.log", "w")  # the servers' stderr, kept out of the report
    try:
        t = time.perf_counter()
        world = build_world(root)
        log(f"store built in {time.perf_counter() - t:.1f}s: {world['counts']} (samples: {world['samples']})")
        hello = root / "hello_mcp.py"
        hello.write_text(HELLO)
        st = asyncio.run(startup(world, hello, rounds, errlog))
        warm = asyncio.run(warm_calls(world, hello, calls, errlog))
        if show_imports:
            for name, cmd in (("hansard mcp serve", ["-m", "hansard", "mcp", "serve"]), ("hello-world", [str(hello)])):
                wall, top = importtime(cmd, world["env"], world["repo"])
                print(f"\n== {name}: start to exit at EOF {wall * 1e3:.0f} ms; heaviest imports (cumulative ms) ==")
                for ms, mod in top:
                    print(f"  {ms:8.1f}  {mod}")
        if profile:
            profile_start(world)
    finally:
        errlog.close()
        os.environ.clear()
        os.environ.update(saved_env)
        if not directory:
            shutil.rmtree(root, ignore_errors=True)
    m = statistics.median
    res = st["res"]
    h, b = m(res["hansard"]["list"]), m(res["hello"]["list"])
    rows = [{
        "target": f"MCP start to first tools/list <= {TARGET_RATIO}x a bare MCPServer hello-world",
        "measured_ms": h * 1e3, "baseline_ms": b * 1e3, "baseline_name": "MCPServer hello-world, one tool",
        "ratio": h / b, "pass": h / b <= TARGET_RATIO,
        "detail": (f"median of {rounds} alternated starts; initialize answered at {m(res['hansard']['init']) * 1e3:.0f} ms"
                   f" vs {m(res['hello']['init']) * 1e3:.0f} ms; {st['ntools']['hansard']} tools listed;"
                   f" hansard runs {[round(x * 1e3) for x in sorted(res['hansard']['list'])]} ms,"
                   f" hello {[round(x * 1e3) for x in sorted(res['hello']['list'])]} ms"),
    }]
    hello_ms = m(warm["_hello"]) * 1e3
    rows.append({"target": "MCP warm call: hello-world tool (protocol floor)", "measured_ms": hello_ms,
                 "baseline_ms": None, "baseline_name": "", "ratio": None, "pass": None,
                 "detail": f"median of {len(warm['_hello'])} calls"})
    for label, r in warm.items():
        if label.startswith("_"):
            continue
        if "skipped" in r:
            rows.append({"target": f"MCP warm call: {label}", "measured_ms": None, "baseline_ms": None, "ratio": None,
                         "pass": None, "baseline_name": "", "detail": "skipped: " + r["skipped"]})
            continue
        mm, dd = m(r["mcp"]) * 1e3, m(r["direct"]) * 1e3
        p90 = sorted(r["mcp"])[int(0.9 * (len(r["mcp"]) - 1))] * 1e3
        rows.append({
            "target": f"MCP warm call: {label}", "measured_ms": mm, "baseline_ms": dd,
            "baseline_name": "the core function called in-process", "ratio": mm / dd if dd else None, "pass": None,
            "detail": (f"median of {len(r['mcp'])} calls over one session, p90 {p90:.1f} ms, first call"
                       f" {r['first'] * 1e3:.0f} ms; overhead {mm - dd:.1f} ms (floor {hello_ms:.1f});"
                       f" {r['count'] if r['count'] is not None else '-'} results"
                       + (f"; ERROR {r['error']}" if r["error"] else "")),
        })
    if warm.get("_unmeasured"):
        rows.append({"target": "MCP tools without a measurement", "measured_ms": None, "baseline_ms": None, "ratio": None,
                     "pass": False, "baseline_name": "", "detail": ", ".join(warm["_unmeasured"])})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--dir", help="build the demo store here (reused when it exists)")
    ap.add_argument("--rounds", type=int, help="alternated start-ups of each server (default 11, quick 3)")
    ap.add_argument("--calls", type=int, help="warm calls per tool (default 25, quick 5)")
    ap.add_argument("--importtime", action="store_true", help="print the heaviest imports of both start-ups")
    ap.add_argument("--profile", action="store_true", help="cProfile hansard's start-up")
    a = ap.parse_args()
    for r in run(a.quick, a.dir, a.rounds, a.calls, a.importtime, a.profile):
        verdict = "PASS" if r["pass"] else "info" if r["pass"] is None else "MISS"
        if r["measured_ms"] is None:
            print(f"{r['target']}: {r['detail']}  {verdict}")
            continue
        base = f" vs {r['baseline_name']} {r['baseline_ms']:.1f} ms = {r['ratio']:.2f}x" if r["baseline_ms"] else ""
        print(f"{r['target']}: {r['measured_ms']:.1f} ms{base}  {verdict}\n    {r['detail']}")


if __name__ == "__main__":
    main()
