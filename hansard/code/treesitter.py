"""The only module that touches the tree-sitter API.

Invariant: callers get plain values, never tree-sitter objects. A query run returns, per
match, the pattern index and ``{capture name: [Capture]}``, where a Capture carries the
node type, byte range, text and 1-based inclusive lines. When py-tree-sitter changes its
API again (0.22 changed ``Language``, 0.25 moved ``captures``/``matches`` to
``QueryCursor``), this file is the one to change.

Language knowledge is data: ``analyzers/queries/<lang>-<kind>.scm``. A query file whose
first line is ``; inherits: <lang>`` is that language's file plus its own patterns (tsx
reuses typescript's). Query files are found first inside the installed package
(``hansard/analyzers``, put there by the wheel's force-include) and then in the source
checkout (``<repo>/analyzers``, for editable installs).

``tree_sitter`` and the grammar wheels are imported on first use, never at import time,
to keep CLI start-up lean.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hansard.errors import HansardError

# language -> (grammar module, function returning the language pointer). Adding a language
# means one entry here, its two query files, and the grammar wheel in pyproject.toml.
GRAMMARS: dict[str, tuple[str, str]] = {
    "python": ("tree_sitter_python", "language"),
    "javascript": ("tree_sitter_javascript", "language"),
    "typescript": ("tree_sitter_typescript", "language_typescript"),
    "tsx": ("tree_sitter_typescript", "language_tsx"),
    "go": ("tree_sitter_go", "language"),
    "rust": ("tree_sitter_rust", "language"),
}
QUERY_KINDS = ("tags", "imports")
_INHERITS = "; inherits:"


class AnalyzerError(HansardError):
    """A grammar or query file is missing or does not compile (grammar drift)."""

    code = "analyzer_error"


@dataclass(frozen=True, slots=True)
class Capture:
    """One captured node. Lines are 1-based and inclusive; a node that ends at column 0
    (it swallowed a trailing newline) ends on the line before."""

    type: str
    start_byte: int
    end_byte: int
    start_line: int
    end_line: int
    text: str


Match = tuple[int, dict[str, list[Capture]]]


def queries_dirs() -> list[str]:
    """Folders that may hold query files, in search order: installed wheel, then checkout."""
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../hansard
    return [os.path.join(pkg, "analyzers", "queries"), os.path.join(os.path.dirname(pkg), "analyzers", "queries")]


def query_path(lang: str, kind: str) -> str:
    """The query file for ``lang``/``kind``, from the first folder that has it."""
    name = f"{lang}-{kind}.scm"
    for d in queries_dirs():
        p = os.path.join(d, name)
        if os.path.isfile(p):
            return p
    raise AnalyzerError(f"no query file {name} (looked in {', '.join(queries_dirs())})", lang=lang, kind=kind)


@functools.lru_cache(maxsize=64)
def query_source(lang: str, kind: str) -> str:
    """The query text, with any ``; inherits: other`` file prepended."""
    with open(query_path(lang, kind), encoding="utf-8") as f:
        text = f.read()
    first = text.split("\n", 1)[0].strip()
    if first.startswith(_INHERITS):
        parents = [p.strip() for p in first[len(_INHERITS):].split(",") if p.strip()]
        text = "\n".join([*(query_source(p, kind) for p in parents), text])
    return text


def supported(lang: str | None) -> bool:
    return lang in GRAMMARS


@functools.lru_cache(maxsize=16)
def language(lang: str) -> Any:
    """The tree-sitter ``Language`` for ``lang`` (imports the grammar wheel on first use)."""
    if lang not in GRAMMARS:
        raise AnalyzerError(f"unsupported language {lang!r}", lang=lang)
    mod_name, fn_name = GRAMMARS[lang]
    try:
        from tree_sitter import Language

        mod = importlib.import_module(mod_name)
        return Language(getattr(mod, fn_name)())
    except (ImportError, AttributeError) as exc:
        raise AnalyzerError(f"grammar for {lang} unavailable: {exc}", lang=lang) from exc


@functools.lru_cache(maxsize=64)
def compile_query(lang: str, kind: str) -> Any:
    """The compiled ``Query``. Raises AnalyzerError when the file does not compile against
    the installed grammar (node names drift between grammar releases)."""
    from tree_sitter import Query

    try:
        return Query(language(lang), query_source(lang, kind))
    except AnalyzerError:
        raise
    except Exception as exc:  # QueryError and friends: the grammar no longer has a node name
        raise AnalyzerError(f"{lang}-{kind}.scm does not compile: {exc}", lang=lang, kind=kind) from exc


def _capture(node: Any, source: bytes) -> Capture:
    start_row = node.start_point[0]
    end_row, end_col = node.end_point
    end_line = end_row if end_col == 0 and end_row > start_row else end_row + 1
    sb, eb = node.start_byte, node.end_byte
    return Capture(node.type, sb, eb, start_row + 1, end_line, source[sb:eb].decode("utf-8", "replace"))


def run_queries(source: bytes, lang: str, kinds: Sequence[str] = QUERY_KINDS) -> dict[str, list[Match]]:
    """Parse ``source`` once and run each query kind over it. Captures whose name starts
    with ``_`` are helpers for predicates (``#eq? @_fn "require"``) and are dropped."""
    from tree_sitter import Parser, QueryCursor

    queries = {k: compile_query(lang, k) for k in kinds}
    tree = Parser(language(lang)).parse(source)
    out: dict[str, list[Match]] = {}
    for kind, q in queries.items():
        matches: list[Match] = []
        for pattern, caps in QueryCursor(q).matches(tree.root_node):
            matches.append((pattern, {
                name: [_capture(n, source) for n in nodes]
                for name, nodes in caps.items() if not name.startswith("_")
            }))
        out[kind] = matches
    return out
