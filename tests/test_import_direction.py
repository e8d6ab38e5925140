"""Imports follow the stages: a module may import its own stage folder and the stages
before it, never one after it. Every import counts, a function's lazy import and a type-only
one (under TYPE_CHECKING) alike: both tie the module to the later stage.

The order, from shared/DESIGN.md's data flow (agent homes -> archive -> parse -> link -> answer
-> render) and from what each folder is for:

- foundation: value types, settings and file access every stage shares (values, errors, config,
  files, text, ...);
- git: the only code that runs git (over foundation alone): an agent's sessions may be kept in
  git (Entire's checkpoint refs), so even a reader may use it;
- agents: one parser per agent, records in, items out, nothing stored;
- recorders: what tools other than agents record in git about commits (notes, Agent Trace), read
  beside the agents;
- store: the only code that speaks SQL; ingest, link and the answers all go through it;
- facts: what transcripts say beyond edits (pure);
- ingest: scan -> archive -> parse -> redact -> write;
- link: repositories and landing commits, over the store, git and facts;
- code: tree-sitter symbols and imports;
- answers: read-only over a store; render: text; team: a store shared by a team, over answers;
- app: the application layer, what every adapter shares about a request (its store, freshness,
  the team attached, caching, background jobs, each command's one declaration);
- adapters: the CLI, the MCP and language servers and the demo, which call all of the above.

``ALLOWED`` lists each import against the flow that exists today and why; an entry whose import
has gone must leave the list. ``ENGINE_ALLOWED`` does the same for code outside hansard/store
that names a store engine (SQLite or PostgreSQL) instead of the protocols.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

ORDER: list[tuple[str, set[str]]] = [
    ("foundation", {"hansard", "values", "errors", "text", "files", "config", "crash", "install"}),
    ("git", {"git"}),
    ("agents", {"agents"}),
    ("recorders", {"recorders"}),
    ("store", {"store"}),
    ("facts", {"facts"}),
    ("ingest", {"ingest"}),
    ("link", {"link"}),
    ("code", {"code"}),
    ("answers", {"answers", "trace"}),  # trace: Agent Trace records read as recorded evidence and written from answers
    ("render", {"render"}),
    ("team", {"team"}),
    ("app", {"app"}),
    ("adapters", {"cli", "mcp", "lsp", "web", "demo", "__main__"}),
]
RANK = {name: i for i, (_, names) in enumerate(ORDER) for name in names}

# (importing module, imported module) -> why the import runs against the flow.
ALLOWED: dict[tuple[str, str], str] = {
    ("hansard.ingest.run", "hansard.link.commits.kept"):
        "an index run links what it wrote (the one pipeline ends with the link step); until an adapter"
        " runs the pipeline's steps in order, ingest.run calls link",
    ("hansard.ingest.run", "hansard.link.repos"):
        "as above: resolve_pending links the sessions and edits an index run wrote",
    ("hansard.ingest.run", "hansard.link.commits.ahead"):
        "as above: the link's commit diffs are worked out beside the scan, told of each commit",
}


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    p = ROOT / name.replace(".", "/")
    return p.with_suffix(".py").exists() or (p / "__init__.py").exists()


def _imports(path: Path) -> Iterator[tuple[int, str]]:
    """(line, imported hansard module) of every import in ``path``; ``from a import b`` names
    ``a.b`` when b is a module, else ``a``."""
    mod = _module(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1] + ([node.module] if node.module else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield node.lineno, full if _is_module(full) else base


def _folder(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _files() -> list[Path]:
    return sorted((ROOT / "hansard").rglob("*.py"))


def against_the_flow() -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for path in _files():
        src = _module(path)
        for line, target in _imports(path):
            if target != "hansard" and not target.startswith("hansard."):
                continue
            a, b = _folder(src), _folder(target)
            if a != b and RANK[b] > RANK[a]:
                out.setdefault((src, target), []).append(f"{path.relative_to(ROOT)}:{line}")
    return out


def test_every_stage_folder_and_top_module_has_a_place_in_the_order() -> None:
    names = {p.stem if p.is_file() else p.name for p in (ROOT / "hansard").iterdir()
             if (p.is_dir() and (p / "__init__.py").exists()) or (p.suffix == ".py" and p.stem != "__init__")}
    assert names - set(RANK) == set(), "place the new folder or module in ORDER"


def test_imports_follow_the_stages() -> None:
    found = against_the_flow()
    new = {pair: where for pair, where in found.items() if pair not in ALLOWED}
    assert new == {}, "an import against ingest -> store -> link -> answers -> render -> adapters"


def test_the_allow_list_holds_only_imports_that_exist() -> None:
    found = against_the_flow()
    assert [pair for pair in ALLOWED if pair not in found] == [], "the import is gone: drop its entry"
    assert all(len(why) > 20 for why in ALLOWED.values())


def test_the_checker_sees_a_backward_import(tmp_path: Path) -> None:
    """The scan resolves absolute, relative and ``from package import module`` imports."""
    global ROOT
    (tmp_path / "hansard" / "store").mkdir(parents=True)
    (tmp_path / "hansard" / "answers").mkdir()
    for p in ("hansard", "hansard/store", "hansard/answers"):
        (tmp_path / p / "__init__.py").write_text("")
    (tmp_path / "hansard" / "answers" / "q.py").write_text("X = 1\n")
    (tmp_path / "hansard" / "store" / "s.py").write_text(
        "from hansard.answers import q\nfrom ..answers.q import X\nimport hansard.answers.q\n")
    saved, ROOT = ROOT, tmp_path
    try:
        assert against_the_flow() == {("hansard.store.s", "hansard.answers.q"): [
            "hansard/store/s.py:1", "hansard/store/s.py:2", "hansard/store/s.py:3"]}
    finally:
        ROOT = saved


# Outside hansard/store, who may name an engine (hansard.store.sqlite / hansard.store.postgres)
# rather than the protocols: (importing module, imported module) -> why.
ENGINE_ALLOWED: dict[tuple[str, str], str] = {
    ("hansard.cli", "hansard.store.sqlite.doctor"):
        "`hansard doctor` checks the SQLite file itself (integrity, WAL, permissions): an engine's own tool",
    ("hansard.ingest.run", "hansard.store.sqlite.doctor"):
        "`hansard doctor --rebuild` salvages a damaged SQLite file's archive before reindexing it",
    ("hansard.team", "hansard.store.postgres.store"):
        "the team server is opened here: the exchange a push writes and a pull reads, not a store questions read",
    ("hansard.team.commands", "hansard.store.postgres.store"): "a push hashes sessions as the server does",
}


def engine_imports() -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for path in _files():
        src = _module(path)
        if src.startswith("hansard.store"):
            continue
        for line, target in _imports(path):
            if target.startswith(("hansard.store.sqlite", "hansard.store.postgres")):
                out.setdefault((src, target), []).append(f"{path.relative_to(ROOT)}:{line}")
    return out


def test_only_the_store_names_an_engine() -> None:
    """Ingest, link and the answers work through hansard.store.interfaces; a store is opened by
    hansard.store.open_store. Naming an engine outside the store needs an entry and a reason."""
    found = engine_imports()
    assert {pair: where for pair, where in found.items() if pair not in ENGINE_ALLOWED} == {}
    assert [pair for pair in ENGINE_ALLOWED if pair not in found] == [], "the import is gone: drop its entry"
