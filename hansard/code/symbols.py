"""Symbols and imports of one source file, from the tree-sitter queries in ``analyzers/``.

Invariants:
- A Symbol's lines are 1-based and inclusive, and cover the whole definition: Python
  decorators, TypeScript decorators and Rust attributes that precede it are part of it.
- ``name`` is qualified by the definitions that contain it (``Class.method``,
  ``outer.inner``; Rust ``Point::new``) or, where the query captures one, by a ``@scope``
  (Go receiver type: ``Server.Start``). ``short_name`` is the bare identifier.
- A function directly inside a class, struct, impl, trait, interface or enum is a method.
- Symbols come sorted by start line, outer before inner.
- No language knowledge lives here beyond file extensions and the qualifier separator; the
  rest is in the query files.

Results are cached by git blob id and ``ANALYZER_VERSION`` (``cached_analysis``). Bump the
version whenever a query file or the rules here change what comes out: old rows are then
never read again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from hansard.code import treesitter
from hansard.code.treesitter import AnalyzerError, Capture, Match

if TYPE_CHECKING:
    from hansard.store.interfaces import Store

ANALYZER_VERSION = 1
# Files larger than this are not parsed: generated bundles, vendored blobs.
MAX_SOURCE_BYTES = 4_000_000

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
}
SEPARATORS: dict[str, str] = {"rust": "::"}
CONTAINER_KINDS = frozenset({"class", "struct", "impl", "trait", "interface", "enum"})


@dataclass(frozen=True, slots=True)
class Symbol:
    name: str  # qualified: Class.method, outer.inner, Server.Start, Point::new
    kind: str  # function, method, class, interface, struct, enum, trait, impl, type, module, macro
    start_line: int
    end_line: int
    short_name: str
    parent: str | None = None  # qualified name of the containing symbol


@dataclass(frozen=True, slots=True)
class Import:
    module: str  # as written: "a.b", "..pkg", "./x", "example.com/m/p", "crate::store"
    line: int
    names: tuple[str, ...] = ()
    kind: str = "import"  # Rust: "use", "mod", "extern"


@dataclass(frozen=True, slots=True)
class Analysis:
    symbols: tuple[Symbol, ...]
    imports: tuple[Import, ...]
    reason: str | None = None  # why there is nothing: unsupported_language, too_large, analyzer_error


def language_for(path: str) -> str | None:
    """The analyzer language for a path, by extension; None when unsupported."""
    dot = path.rfind(".")
    if dot < 0 or "/" in path[dot:]:
        return None
    return EXTENSIONS.get(path[dot:].lower())


def blob_id(source: bytes) -> str:
    """The git blob id of ``source`` (what ``git hash-object`` prints), for working-tree
    files that have no blob in the repository yet."""
    return hashlib.sha1(b"blob %d\0" % len(source) + source).hexdigest()


# -- extraction ------------------------------------------------------------------------


def _definitions(matches: list[Match], lang: str) -> list[Symbol]:
    # name node -> (span node, kind, pattern, scope); the widest span wins, then the earlier pattern.
    best: dict[tuple[int, int], tuple[Capture, str, int, Capture, str | None]] = {}
    decorated: dict[tuple[int, int], int] = {}
    for pattern, caps in matches:
        if "decorates" in caps and "decorator" in caps:
            target = caps["decorates"][0]
            first = min(c.start_line for c in caps["decorator"])
            key = (target.start_byte, target.end_byte)
            decorated[key] = min(first, decorated.get(key, first))
            continue
        for cap_name, nodes in caps.items():
            if not cap_name.startswith("definition."):
                continue
            kind = cap_name[len("definition."):]
            names = caps.get("name.definition." + kind)
            if not names:
                continue
            span, name = nodes[0], names[0]
            scope = caps["scope"][0].text if caps.get("scope") else None
            key = (name.start_byte, name.end_byte)
            old = best.get(key)
            width = span.end_byte - span.start_byte
            if old is None or width > old[0].end_byte - old[0].start_byte or (
                width == old[0].end_byte - old[0].start_byte and pattern < old[2]
            ):
                best[key] = (span, kind, pattern, name, scope)

    sep = SEPARATORS.get(lang, ".")
    entries = sorted(best.values(), key=lambda e: (e[0].start_byte, -e[0].end_byte))
    out: list[Symbol] = []
    stack: list[tuple[Capture, Symbol]] = []  # open containers, by span
    for span, kind, _pattern, name, scope in entries:
        while stack and not (stack[-1][0].start_byte <= span.start_byte and span.end_byte <= stack[-1][0].end_byte):
            stack.pop()
        parent = stack[-1][1] if stack else None
        short = name.text
        if scope:
            qualified = f"{scope}{sep}{short}"
        elif parent is not None:
            qualified = f"{parent.name}{sep}{short}"
        else:
            qualified = short
        if kind == "function" and parent is not None and parent.kind in CONTAINER_KINDS:
            kind = "method"
        start = min(span.start_line, decorated.get((span.start_byte, span.end_byte), span.start_line))
        sym = Symbol(qualified, kind, start, span.end_line, short, parent.name if parent else None)
        out.append(sym)
        stack.append((span, sym))
    out.sort(key=lambda s: (s.start_line, -s.end_line))
    return out


def _imports(matches: list[Match]) -> list[Import]:
    grouped: dict[tuple[int, int, str], tuple[int, str, list[str]]] = {}
    for _pattern, caps in matches:
        stmt_name = next((n for n in caps if n == "import" or n.startswith("import.")), None)
        if stmt_name is None or not caps.get("module"):
            continue
        stmt = caps[stmt_name][0]
        module = caps["module"][0].text
        key = (stmt.start_byte, stmt.end_byte, module)
        kind = stmt_name.partition(".")[2] or "import"
        entry = grouped.setdefault(key, (stmt.start_line, kind, []))
        for n in caps.get("name", []):
            if n.text not in entry[2]:
                entry[2].append(n.text)
    return [
        Import(module, line, tuple(names), kind)
        for (_sb, _eb, module), (line, kind, names) in sorted(grouped.items(), key=lambda kv: kv[0][:2])
    ]


def analyze(source: bytes, lang: str) -> Analysis:
    """Symbols and imports of one file, from a single parse. Raises AnalyzerError for an
    unsupported language or a query that no longer compiles."""
    if not treesitter.supported(lang):
        raise AnalyzerError(f"unsupported language {lang!r}", lang=lang)
    if len(source) > MAX_SOURCE_BYTES:
        return Analysis((), (), "too_large")
    res = treesitter.run_queries(source, lang, ("tags", "imports"))
    return Analysis(tuple(_definitions(res["tags"], lang)), tuple(_imports(res["imports"])))


def symbols(source: bytes, lang: str) -> list[Symbol]:
    """The definitions in ``source``: kind, qualified name, 1-based inclusive lines."""
    if not treesitter.supported(lang):
        raise AnalyzerError(f"unsupported language {lang!r}", lang=lang)
    if len(source) > MAX_SOURCE_BYTES:
        return []
    return _definitions(treesitter.run_queries(source, lang, ("tags",))["tags"], lang)


def imports(source: bytes, lang: str) -> list[Import]:
    """The import statements in ``source``, one Import per (statement, module), in order."""
    if not treesitter.supported(lang):
        raise AnalyzerError(f"unsupported language {lang!r}", lang=lang)
    if len(source) > MAX_SOURCE_BYTES:
        return []
    return _imports(treesitter.run_queries(source, lang, ("imports",))["imports"])


def enclosing(syms: Iterable[Symbol], line: int) -> Symbol | None:
    """The innermost symbol whose span contains ``line``."""
    best: Symbol | None = None
    for s in syms:
        if s.start_line <= line <= s.end_line and (
            best is None or (s.end_line - s.start_line, -s.start_line) < (best.end_line - best.start_line,
                                                                        -best.start_line)
        ):
            best = s
    return best


def find(syms: Iterable[Symbol], name: str) -> list[Symbol]:
    """Symbols called ``name``: exact qualified matches if any, else qualified-name suffix
    matches (``method`` finds ``Class.method``), else bare-name matches. ``.`` and ``::``
    are interchangeable, so ``Point.new`` finds Rust's ``Point::new``."""
    syms = list(syms)
    want = name.replace("::", ".")

    def norm(s: Symbol) -> str:
        return s.name.replace("::", ".")

    exact = [s for s in syms if norm(s) == want]
    if exact:
        return exact
    suffix = [s for s in syms if norm(s).endswith("." + want)]
    if suffix:
        return suffix
    return [s for s in syms if s.short_name == want]


# -- cache -----------------------------------------------------------------------------


def _kept(store: Store, blob_id: str, lang: str) -> tuple[list[Any], list[Any], str | None] | None:
    """The blob's analysis from the store's symbol cache, or worked out earlier in this request."""
    from hansard.store import kept

    return store.symbols.get(blob_id, lang, ANALYZER_VERSION) or kept.symbols(blob_id, lang, ANALYZER_VERSION)


def is_cached(store: Store, blob_id: str, lang: str) -> bool:
    """Is the blob's analysis known without reading the blob?"""
    return _kept(store, blob_id, lang) is not None


def cached_analysis(store: Store, blob_id: str, lang: str | None,
                    source: bytes | Callable[[], bytes | None]) -> Analysis:
    """``analyze`` through the store's symbol cache, keyed by (blob id, language,
    ANALYZER_VERSION); an analysis worked out here is offered to the request to keep
    (``hansard.store.kept``), never written. Never raises for analysis problems: an unsupported
    language or a broken query gives an empty Analysis with ``reason``."""
    if lang is None or not treesitter.supported(lang):
        return Analysis((), (), "unsupported_language")
    hit = _kept(store, blob_id, lang)
    if hit is not None:
        syms, imps, reason = hit
        return Analysis(
            tuple(Symbol(*s) for s in syms),
            tuple(Import(i[0], i[1], tuple(i[2]), i[3]) for i in imps),
            reason,
        )
    data = source() if callable(source) else source  # read the blob only on a cache miss
    if data is None:
        return Analysis((), (), "unreadable")
    try:
        result = analyze(data, lang)
    except AnalyzerError as exc:
        # Not cached: a missing grammar or drifted query is fixed by reinstalling, not by a new blob.
        return Analysis((), (), f"analyzer_error: {exc.message}")
    from hansard.store import kept

    kept.offer_symbols(
        blob_id, lang, ANALYZER_VERSION,
        [[s.name, s.kind, s.start_line, s.end_line, s.short_name, s.parent] for s in result.symbols],
        [[i.module, i.line, list(i.names), i.kind] for i in result.imports],
        result.reason,
    )
    return result


def cached_symbols(store: Store, blob_id: str, lang: str | None,
                   source: bytes | Callable[[], bytes | None]) -> list[Symbol]:
    """``symbols`` through the cache (see ``cached_analysis``)."""
    return list(cached_analysis(store, blob_id, lang, source).symbols)


def cached_imports(store: Store, blob_id: str, lang: str | None, source: bytes) -> list[Import]:
    """``imports`` through the cache (see ``cached_analysis``)."""
    return list(cached_analysis(store, blob_id, lang, source).imports)
