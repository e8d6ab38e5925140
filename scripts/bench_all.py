"""Run every scripts/bench_*.py and print one markdown table: benchmark, target, measured,
baseline, ratio, PASS/MISS, with the date and the machine above it.

    python scripts/bench_all.py [--quick] [--markdown FILE] [--only bench_why,bench_mcp] [--timeout S]

Each module's ``run(quick)`` is imported and called in this process (its stdout is sent to
stderr so that only the table reaches stdout; os.environ and the working directory are
restored after each). A module without ``run`` is started as a subprocess (``--quick`` passed
through when the script knows it, or the smaller sizes in QUICK_ARGS) and each line it prints
becomes a row. A failing module becomes an ERROR row: this script never crashes on one.
The table is what docs/performance.md should show, as measured.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

SCRIPTS = Path(__file__).resolve().parent
ORDER = ["bench_index", "bench_why", "bench_search", "bench_history", "bench_mcp"]
# Smaller sizes for scripts that have no --quick of their own.
QUICK_ARGS = {"bench_search": ["--messages", "20000", "--vectors", "5000", "--queries", "30"]}
# Scripts that keep what they build unless told where: given a temporary folder, removed after.
WORK_DIR_ARG = {"bench_search": lambda d: ["--store", os.path.join(d, "store")]}


def log(*a: Any) -> None:
    print(*a, file=sys.stderr, flush=True)


def modules(only: list[str] | None) -> list[str]:
    found = sorted(p.stem for p in SCRIPTS.glob("bench_*.py") if p.stem != "bench_all")
    names = [n for n in ORDER if n in found] + [n for n in found if n not in ORDER]
    return [n for n in names if not only or n in only]


# -- machine --------------------------------------------------------------------------------


def _read(path: str) -> str:
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:
        return ""


def _cmd(*cmd: str) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=10, cwd=SCRIPTS).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def machine() -> dict[str, str]:
    cpu = next((ln.split(":", 1)[1].strip() for ln in _read("/proc/cpuinfo").splitlines()
                if ln.startswith("model name")), platform.processor() or platform.machine())
    mem = next((ln.split()[1] for ln in _read("/proc/meminfo").splitlines() if ln.startswith("MemTotal:")), "")
    ram = f"{int(mem) / 1024 / 1024:.1f} GiB" if mem else "?"
    try:
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "?"
    try:
        from hansard import __version__ as hv
    except Exception:
        hv = "?"
    sha = _cmd("git", "rev-parse", "--short", "HEAD")
    dirty = " (with uncommitted changes)" if _cmd("git", "status", "--porcelain", "--untracked-files=no") else ""
    return {
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "nproc": _cmd("nproc") or str(os.cpu_count()),
        "cpu": cpu,
        "ram": ram,
        "python": platform.python_version(),
        "git": _cmd("git", "--version").removeprefix("git version ") or "?",
        "os": f"{platform.system()} {platform.release()}",
        "load": load,
        "hansard": f"{hv} at {sha or '?'}{dirty}",
    }


# -- running ------------------------------------------------------------------------------------


def load(name: str) -> Any:
    if str(SCRIPTS) not in sys.path:
        sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = mod
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def has_run(name: str) -> bool:
    """Whether the script defines a top-level run() (read from its source, without importing it)."""
    try:
        tree = ast.parse((SCRIPTS / f"{name}.py").read_text())
    except (OSError, SyntaxError, ValueError):
        return True  # let the import report the problem
    return any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == "run" for n in tree.body)


def run_module(name: str, quick: bool, timeout: float) -> list[dict[str, Any]]:
    t = time.perf_counter()
    env, cwd = dict(os.environ), os.getcwd()
    try:
        if not has_run(name):  # not even imported: a script without a main guard would run on import
            return run_printed(name, quick, timeout)
        try:
            mod = load(name)
        except BaseException as exc:  # an import error is a row, not a crash
            if isinstance(exc, KeyboardInterrupt):
                raise
            return [error_row(name, f"import failed: {type(exc).__name__}: {exc}")]
        fn = getattr(mod, "run", None)
        if not callable(fn):
            return run_printed(name, quick, timeout)
        try:
            with contextlib.redirect_stdout(sys.stderr):
                rows = fn(quick)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            log(traceback.format_exc())
            return [error_row(name, f"run failed: {type(exc).__name__}: {exc}")]
        if not isinstance(rows, list) or not rows:
            return [error_row(name, f"run returned {type(rows).__name__} {str(rows)[:80]}, not rows")]
        return [normalise(name, r) for r in rows]
    finally:
        os.environ.clear()
        os.environ.update(env)
        os.chdir(cwd)
        log(f"== {name} done in {time.perf_counter() - t:.0f}s")


def run_printed(name: str, quick: bool, timeout: float) -> list[dict[str, Any]]:
    """A script without run(): start it and turn each printed line into a row."""
    args: list[str] = []
    if quick:
        src = (SCRIPTS / f"{name}.py").read_text()
        args = ["--quick"] if '"--quick"' in src else list(QUICK_ARGS.get(name, []))
    work = tempfile.mkdtemp(prefix=f"hansard-{name}-") if name in WORK_DIR_ARG else None
    if work:
        args += WORK_DIR_ARG[name](work)
    log(f"== {name} has no run(); running it as a process {args}")
    try:
        p = subprocess.run([sys.executable, str(SCRIPTS / f"{name}.py"), *args], capture_output=True, text=True,
                           timeout=timeout, cwd=SCRIPTS.parent)
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else exc.stdout or ""
        return [printed_row(name, ln) for ln in out.splitlines() if ln.strip()] + [
            error_row(name, f"timed out after {timeout:.0f}s")]
    except OSError as exc:
        return [error_row(name, f"could not start: {exc}")]
    finally:
        if work:
            shutil.rmtree(work, ignore_errors=True)
    sys.stderr.write(p.stderr[-4000:])
    rows = [printed_row(name, ln) for ln in p.stdout.splitlines() if ln.strip() and not ln.startswith("  slowest")]
    if p.returncode != 0:
        rows.append(error_row(name, f"exit {p.returncode}: {(p.stderr.strip().splitlines() or [''])[-1][:200]}"))
    return rows or [error_row(name, "printed nothing")]


def printed_row(name: str, line: str) -> dict[str, Any]:
    what, sep, value = line.partition(": ")
    return {"benchmark": name, "target": what.strip() if sep else "", "measured": value.strip() if sep else line.strip(),
            "baseline": "", "ratio": "", "verdict": "printed"}


def error_row(name: str, msg: str) -> dict[str, Any]:
    return {"benchmark": name, "target": "", "measured": msg, "baseline": "", "ratio": "", "verdict": "ERROR"}


def fmt_ms(v: float) -> str:
    if v >= 10_000:
        return f"{v / 1000:.1f} s"
    return f"{v:.0f} ms" if v >= 100 else f"{v:.1f} ms" if v >= 1 else f"{v:.2f} ms"


def fmt_val(v: Any, unit: str = "") -> str:
    if v is None or v == "":
        return "-"
    if isinstance(v, float):
        v = f"{v:.3g}" if abs(v) < 100 else f"{v:.0f}"
    return f"{v} {unit}".strip()


def normalise(name: str, r: dict[str, Any]) -> dict[str, Any]:
    """Rows come as {target, measured_ms, baseline_ms, ratio, pass} (bench_why style) or as
    {name, target, measured, unit, baseline, baseline_name, ratio, pass} (bench_index style)."""
    try:
        target = str(r.get("target") or "")
        if r.get("name"):
            target = f"{r['name']}: {target}" if target and target != "-" else str(r["name"])
        if r.get("measured_ms") is not None:
            measured = fmt_ms(float(r["measured_ms"]))
        elif "measured_ms" in r and r.get("measured") is None:
            measured = "-"
        else:
            measured = fmt_val(r.get("measured"), r.get("unit", ""))
        if r.get("baseline_ms") is not None:
            baseline = fmt_ms(float(r["baseline_ms"]))
        else:
            baseline = fmt_val(r.get("baseline"), r.get("unit", "") if r.get("baseline") is not None else "")
        if baseline != "-" and r.get("baseline_name"):
            baseline += f" ({r['baseline_name']})"
        ratio = r.get("ratio")
        ratio_s = f"{float(ratio):.2f}x" if isinstance(ratio, (int, float)) else (str(ratio) if ratio else "-")
        ok = r.get("pass")
        verdict = "PASS" if ok is True else "MISS" if ok is False else "info"
        return {"benchmark": name, "target": target, "measured": measured, "baseline": baseline, "ratio": ratio_s,
                "verdict": verdict, "detail": r.get("detail", "")}
    except Exception as exc:
        return error_row(name, f"unreadable row {str(r)[:100]}: {exc}")


# -- output ----------------------------------------------------------------------------------


def cell(s: Any) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def table(rows: list[dict[str, Any]], info: dict[str, str], quick: bool) -> str:
    head = [
        f"Measured {info['date']}{' (--quick sizes: a smoke run, not the targets)' if quick else ''} on"
        f" {info['nproc']} CPUs ({info['cpu']}), {info['ram']} RAM, {info['os']}; Python {info['python']},"
        f" git {info['git']}; hansard {info['hansard']}; load average at start {info['load']}.",
        "",
        "| benchmark | target | measured | baseline | ratio | PASS/MISS |",
        "|---|---|---|---|---|---|",
    ]
    body = [f"| {cell(r['benchmark'])} | {cell(r['target'])} | {cell(r['measured'])} | {cell(r['baseline'])} |"
            f" {cell(r['ratio'])} | {cell(r['verdict'])} |" for r in rows]
    return "\n".join(head + body) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="pass --quick to every benchmark")
    ap.add_argument("--markdown", metavar="FILE", help="also write the table to FILE")
    ap.add_argument("--only", help="comma-separated module names, e.g. bench_why,bench_mcp")
    ap.add_argument("--timeout", type=float, help="seconds for a benchmark run as a process (default 3600, quick 900)")
    ap.add_argument("--json", metavar="FILE", help="also write the rows (with details) as JSON")
    a = ap.parse_args()
    info = machine()
    timeout = a.timeout or (900.0 if a.quick else 3600.0)
    rows: list[dict[str, Any]] = []
    for name in modules(a.only.split(",") if a.only else None):
        log(f"== {name}{' --quick' if a.quick else ''}")
        rows += run_module(name, a.quick, timeout)
    text = table(rows, info, a.quick)
    print(text, end="")
    if a.markdown:
        try:
            Path(a.markdown).write_text(text)
        except OSError as exc:
            log(f"could not write {a.markdown}: {exc}")
    if a.json:
        try:
            Path(a.json).write_text(json.dumps({"machine": info, "quick": a.quick, "rows": rows}, indent=2, default=str))
        except OSError as exc:
            log(f"could not write {a.json}: {exc}")
    details = [f"{r['benchmark']}: {r['target']}: {r['detail']}" for r in rows if r.get("detail")]
    if details:
        log("\n== details\n" + "\n".join(details))
    return 0


if __name__ == "__main__":
    sys.exit(main())
