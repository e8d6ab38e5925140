"""Count what docs/design/house3.md plans to shrink, so its build can show each number before
and after: line counts of the adapters, the store contract and the team code; the store
protocols and their methods; every class that implements a facet, by engine; the store probes
(``hasattr``/``getattr`` of a facet or a team attribute); each adapter's calls of the request
sequence (open, quick sync, team wrap, facts upkeep, team close) with file:line; the callables
answers take from their callers; the functions that return ``dict[str, Any]``; and the
import-direction test's allowed pairs.

Read with ``ast`` only (nothing of hansard is imported but the test's two tables). Printed,
never asserted.

    python scripts/house_census.py [--where]     # --where: every file:line, not just counts
"""

from __future__ import annotations

import argparse
import ast
import collections
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "hansard"

GROUPS = {
    "adapters": ["cli.py", "mcp", "lsp", "web"],
    "app": ["app"],
    "store contract": ["store/interfaces.py", "store/absent.py", "store/types.py", "store/__init__.py"],
    "team code": ["team", "store/postgres", "store/sqlite/team_copy.py", "store/sqlite/team_export.py",
                  "store/sqlite/team.py"],
    "answers": ["answers", "trace"],
}
# Calls that make up a request's life outside an application layer.
SEQUENCE = {
    "open": {"open_store", "open_for_reading", "_store", "_reader_store", "open_writer", "as_store"},
    "quick sync": {"quick_sync", "sync"},
    "team wrap": {"wrap", "_with_team", "_team", "with_team_memories"},
    "facts upkeep": {"upkeep", "_commit_facts_upkeep"},
    "team close": {"close_team", "_close_team"},
}
ADAPTERS = ("cli.py", "mcp", "lsp", "web")
CALLABLE_PARAMS = {"sync", "upkeep", "render", "start_build", "progress"}
PROBED = {"close_team", "team_roots", "call_details", "agent_traces"}


def _files(parts: list[str]) -> list[Path]:
    out: list[Path] = []
    for part in parts:
        p = PKG / part
        out += sorted(p.rglob("*.py")) if p.is_dir() else [p] if p.exists() else []
    return out


def _lines(paths: list[Path]) -> int:
    return sum(len(p.read_text().splitlines()) for p in paths)


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def _trees() -> dict[Path, ast.Module]:
    return {p: ast.parse(p.read_text(), str(p)) for p in sorted(PKG.rglob("*.py"))}


def _name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def protocols(trees: dict[Path, ast.Module]) -> tuple[dict[str, int], set[str]]:
    """Protocol class -> methods, and the Store's facet names."""
    tree = trees[PKG / "store" / "interfaces.py"]
    out: dict[str, int] = {}
    facets: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(ast.unparse(b).endswith("Protocol") for b in node.bases):
            defs = [d for d in node.body if isinstance(d, ast.FunctionDef)]
            out[node.name] = len(defs)
            if node.name == "Store":
                facets = {d.name for d in defs if any(ast.unparse(x) == "property" for x in d.decorator_list)}
    return out, facets


def implementations(trees: dict[Path, ast.Module]) -> dict[str, list[tuple[str, int, int]]]:
    """Engine -> (class, methods, lines) of the classes that implement store facets."""
    where = {"sqlite": "store/sqlite", "postgres": "store/postgres", "team view": "team/view.py",
             "absent": "store/absent.py"}
    out: dict[str, list[tuple[str, int, int]]] = {}
    for engine, part in where.items():
        for p in _files([part]):
            if p.name in ("migrations.py", "doctor.py", "roles.py", "__init__.py"):
                continue
            for node in trees[p].body:
                if isinstance(node, ast.ClassDef):
                    defs = [d for d in node.body if isinstance(d, ast.FunctionDef) and not d.name.startswith("__")]
                    end = node.end_lineno or node.lineno
                    out.setdefault(engine, []).append((f"{p.name}:{node.name}", len(defs), end - node.lineno + 1))
    return out


def probes(trees: dict[Path, ast.Module], facets: set[str]) -> list[str]:
    """file:line of each hasattr/getattr whose attribute is a store facet or a team attribute
    (one entry a line: ``getattr(s, "x") if hasattr(type(s), "x")`` is one probe)."""
    out: dict[str, str] = {}
    for p, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _name(node) in ("hasattr", "getattr") and len(node.args) >= 2:
                a = node.args[1]
                if isinstance(a, ast.Constant) and a.value in facets | PROBED:
                    out.setdefault(f"{_rel(p)}:{node.lineno}", f"{_name(node)}(..., {a.value!r})")
    return [f"{k} {v}" for k, v in sorted(out.items())]


def sequence(trees: dict[Path, ast.Module]) -> dict[str, dict[str, list[str]]]:
    """Adapter -> step -> file:line of each call of that step (definitions not counted)."""
    out: dict[str, dict[str, list[str]]] = {}
    for p, tree in trees.items():
        rel = str(p.relative_to(PKG))
        adapter = next((a for a in ADAPTERS if rel == a or rel.startswith(a + "/")), None)
        if adapter is None:
            continue
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = _name(node)
            if name == "getattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
                name = node.args[1].value
            for step, names in SEQUENCE.items():
                if name in names:
                    out.setdefault(adapter, {}).setdefault(step, []).append(f"{_rel(p)}:{node.lineno}")
    return out


def callables(trees: dict[Path, ast.Module]) -> list[str]:
    """file:line function(param) of each answer function taking a caller's callable."""
    out = []
    for p in _files(GROUPS["answers"]):
        for node in ast.walk(trees[p]):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args.args + node.args.kwonlyargs
                for a in args:
                    if a.arg in CALLABLE_PARAMS:
                        out.append(f"{_rel(p)}:{node.lineno} {node.name}({a.arg})")
    return out


def any_dicts(trees: dict[Path, ast.Module]) -> tuple[collections.Counter[str], collections.Counter[str]]:
    """Per top folder: functions returning exactly ``dict[str, Any]``, and any return
    annotation that holds it (``list[dict[str, Any]]``, ``tuple[dict[str, Any], ...]``)."""
    exact: collections.Counter[str] = collections.Counter()
    holds: collections.Counter[str] = collections.Counter()
    for p, tree in trees.items():
        top = str(p.relative_to(PKG)).split("/")[0].removesuffix(".py")
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
                s = ast.unparse(node.returns).strip("'\"")
                if s == "dict[str, Any]":
                    exact[top] += 1
                if "dict[str, Any]" in s:
                    holds[top] += 1
    return exact, holds


def allowed() -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    sys.path.insert(0, str(ROOT))
    from tests.test_import_direction import ALLOWED, ENGINE_ALLOWED

    return ALLOWED, ENGINE_ALLOWED


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--where", action="store_true", help="every file:line, not just counts")
    a = ap.parse_args()
    trees = _trees()
    print("lines:")
    for group, parts in GROUPS.items():
        fs = _files(parts)
        print(f"  {group:15} {_lines(fs):6} in {len(fs)} files")
        if a.where:
            for f in fs:
                print(f"      {len(f.read_text().splitlines()):5} {_rel(f)}")
    protos, facets = protocols(trees)
    print(f"store protocols: {len(protos)}, methods {sum(protos.values())}; Store facets {len(facets)}")
    if a.where:
        print("  " + ", ".join(f"{k} {v}" for k, v in protos.items()))
    for engine, classes in implementations(trees).items():
        print(f"  {engine:10} {len(classes):3} classes, {sum(c[1] for c in classes):4} methods,"
              f" {sum(c[2] for c in classes):5} lines")
        if a.where:
            print("      " + ", ".join(f"{c} {m}" for c, m, _ in classes))
    pr = probes(trees, facets)
    print(f"store probes (hasattr/getattr of a facet or team attribute): {len(pr)}")
    for x in pr if a.where else []:
        print("  " + x)
    print("request sequence in the adapters (calls):")
    for adapter, steps in sorted(sequence(trees).items()):
        print(f"  {adapter:7} " + ", ".join(f"{step} {len(w)}" for step, w in steps.items()))
        for step, w in steps.items() if a.where else []:
            print(f"      {step}: {' '.join(w)}")
    cs = callables(trees)
    print(f"callables answers take from callers: {len(cs)}")
    for x in cs if a.where else []:
        print("  " + x)
    exact, holds = any_dicts(trees)
    print(f"functions returning dict[str, Any]: {sum(exact.values())} exactly, {sum(holds.values())} holding it;"
          f" answers+trace {exact['answers'] + exact['trace']} / {holds['answers'] + holds['trace']}")
    if a.where:
        print("  " + ", ".join(f"{k} {v}/{holds[k]}" for k, v in exact.most_common()))
    al, eng = allowed()
    print(f"import-direction allowed pairs: {len(al)} against the flow, {len(eng)} naming an engine")
    if a.where:
        for (x, y), why in {**al, **eng}.items():
            print(f"  {x} -> {y}: {why[:90]}")
    root = sorted(p.name for p in PKG.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    print(f"modules at the package's root (not in a room): {len(root)}")
    if a.where:
        print("  " + " ".join(root))


if __name__ == "__main__":
    main()
