"""The import graph: which repository files an import statement refers to.

Invariants:
- Paths in and out are repository-relative POSIX paths; ``repo_files`` is the whole set of
  files in the tree being read (one commit or the working tree).
- Every Import gives exactly one ResolvedImport, in order. An import that names no file in
  the repository (the standard library, a third-party package, a path alias we cannot
  read, a relative path that points nowhere) is kept with ``paths=()`` and
  ``external=True``; it is never dropped.
- Resolution reads only ``repo_files`` and the arguments; ``importers_of`` is the one
  function that reads file contents, through the caller's ``read_file``.

Rules per language:
- Python: absolute imports against the repository root, ``src/``, the folder above the
  importing file's top package, any folder holding ``pyproject.toml``/``setup.py``/
  ``setup.cfg`` (and its ``src/``), and the importing file's own folder. ``a.b`` is
  ``a/b.py`` or ``a/b/__init__.py`` (``.pyi`` as a fallback). ``from a import x`` also
  resolves ``x`` when it is a submodule. Relative imports climb one package per extra dot.
- JavaScript/TypeScript: only relative specifiers (``./``, ``../``, ``.``). A specifier is
  tried as written, then with each extension, then as a folder's ``index`` file; a ``.js``
  specifier also finds the ``.ts`` source it compiles from (TypeScript's ESM convention).
  TypeScript importers try TypeScript extensions first. Bare specifiers are external.
- Go: an import path under the module named by ``go.mod`` is the folder below the module
  root; it resolves to that folder's ``.go`` files, without ``_test.go`` files (they are not
  part of the imported package).
- Rust: ``mod foo;`` is ``foo.rs`` or ``foo/mod.rs`` in the folder for the declaring
  module's children. ``use crate::a::b::C`` resolves to the deepest existing module file
  (``a/b.rs``, ``a/b/mod.rs``, ``a.rs``, ..., else the crate root file); ``self::`` and
  ``super::`` are relative to the current module; a path whose first segment is a child
  module of the current one resolves too (2018 paths). Everything else is external.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from hansard.code.symbols import Import, imports, language_for

# Language families: which importers can refer to a target file.
FAMILIES: dict[str, str] = {
    "python": "python", "javascript": "js", "typescript": "js", "tsx": "js", "go": "go", "rust": "rust",
}
_TS_EXTS = (".ts", ".tsx", ".d.ts", ".mts", ".cts")
_JS_EXTS = (".js", ".jsx", ".mjs", ".cjs")
_JS_TO_TS = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",), ".cjs": (".cts",)}
_PY_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
_RUST_EXTERNAL_ROOTS = frozenset({"std", "core", "alloc"})
_GO_MODULE = re.compile(r"^\s*module\s+(\"[^\"]+\"|\S+)", re.M)


@dataclass(frozen=True, slots=True)
class ResolvedImport:
    module: str
    line: int
    names: tuple[str, ...]
    kind: str
    paths: tuple[str, ...]  # repository files this import refers to, most direct first

    @property
    def external(self) -> bool:
        return not self.paths


@dataclass(frozen=True, slots=True)
class Importer:
    path: str  # the importing file
    line: int  # its first import of the target
    module: str  # the import as written


@dataclass
class _Index:
    files: frozenset[str]
    dirs: dict[str, list[str]] = field(default_factory=dict)  # folder -> files directly in it
    py_projects: list[str] = field(default_factory=list)  # folders holding pyproject.toml & co.

    @classmethod
    def of(cls, files: Iterable[str]) -> _Index:
        fs = frozenset(files)
        dirs: dict[str, list[str]] = {}
        projects: list[str] = []
        for f in sorted(fs):
            d = posixpath.dirname(f)
            dirs.setdefault(d, []).append(f)
            if posixpath.basename(f) in _PY_PROJECT_MARKERS and d not in projects:
                projects.append(d)
        return cls(fs, dirs, projects)


def _join(*parts: str) -> str:
    p = posixpath.normpath(posixpath.join(*[x for x in parts if x])) if any(parts) else ""
    return "" if p == "." else p


def _escapes(p: str) -> bool:
    return p == ".." or p.startswith("../") or p.startswith("/")


# -- Python ----------------------------------------------------------------------------


def _py_module_file(idx: _Index, base: str, dotted: str) -> str | None:
    p = _join(base, *dotted.split(".")) if dotted else base
    if _escapes(p):
        return None
    cands = (
        [p + ".py", _join(p, "__init__.py"), p + ".pyi", _join(p, "__init__.pyi")]
        if dotted else [_join(p, "__init__.py"), _join(p, "__init__.pyi")]
    )
    return next((c for c in cands if c in idx.files), None)


def _py_roots(idx: _Index, path: str) -> list[str]:
    here = posixpath.dirname(path)
    top = here
    while top and _join(top, "__init__.py") in idx.files:
        top = posixpath.dirname(top)
    roots = ["", "src", top]
    for d in idx.py_projects:
        roots += [d, _join(d, "src")]
    roots.append(here)
    seen: list[str] = []
    for r in roots:
        if r not in seen:
            seen.append(r)
    return seen


def _resolve_python(idx: _Index, path: str, imp: Import) -> tuple[str, ...]:
    module = imp.module
    level = len(module) - len(module.lstrip("."))
    dotted = module[level:]
    names = [n for n in imp.names if n != "*"]
    if level:
        base = posixpath.dirname(path)
        for _ in range(level - 1):
            if not base:
                return ()
            base = posixpath.dirname(base)
        bases = [base]
    else:
        bases = _py_roots(idx, path)
    for base in bases:
        found: list[str] = []
        pkg_dir = _join(base, *dotted.split(".")) if dotted else base
        for n in names:  # `from pkg import sub`: the submodule is the most direct target
            sub = _py_module_file(idx, pkg_dir, n)
            if sub and sub not in found:
                found.append(sub)
        mod_file = _py_module_file(idx, base, dotted)
        if mod_file and mod_file not in found:
            found.append(mod_file)
        if found:
            return tuple(found)
    return ()


# -- JavaScript / TypeScript -----------------------------------------------------------


def _resolve_js(idx: _Index, path: str, imp: Import, lang: str) -> tuple[str, ...]:
    spec = imp.module.split("?", 1)[0].split("#", 1)[0]
    if not (spec in (".", "..") or spec.startswith("./") or spec.startswith("../")):
        return ()
    p = _join(posixpath.dirname(path), spec)
    if _escapes(p):
        return ()
    exts = _TS_EXTS + _JS_EXTS if lang in ("typescript", "tsx") else _JS_EXTS + _TS_EXTS
    cands: list[str] = []
    if p:
        cands.append(p)
        stem, ext = posixpath.splitext(p)
        cands += [stem + alt for alt in _JS_TO_TS.get(ext, ())]
        cands += [p + e for e in exts]
    cands += [_join(p, "index" + e) for e in exts]
    hit = next((c for c in cands if c in idx.files), None)
    return (hit,) if hit else ()


# -- Go --------------------------------------------------------------------------------


def go_module_name(go_mod: str | bytes) -> str | None:
    """The module path declared by a go.mod file."""
    text = go_mod.decode("utf-8", "replace") if isinstance(go_mod, bytes) else go_mod
    m = _GO_MODULE.search(text)
    return m.group(1).strip('"') if m else None


def _resolve_go(idx: _Index, imp: Import, go_module: str | None, go_root: str) -> tuple[str, ...]:
    if not go_module or not (imp.module == go_module or imp.module.startswith(go_module + "/")):
        return ()
    d = _join(go_root, imp.module[len(go_module):].lstrip("/"))
    return tuple(sorted(
        f for f in idx.dirs.get(d, ()) if f.endswith(".go") and not f.endswith("_test.go")
    ))


# -- Rust ------------------------------------------------------------------------------


def _rust_root(idx: _Index, path: str, given: str | None) -> str | None:
    if given is not None:
        return posixpath.dirname(given) if given.endswith(".rs") else _join(given)
    d = posixpath.dirname(path)
    while True:
        if _join(d, "lib.rs") in idx.files or _join(d, "main.rs") in idx.files:
            return d
        if not d:
            return None
        d = posixpath.dirname(d)


def _rust_module_path(root: str, path: str) -> list[str]:
    rel = path[len(root) + 1:] if root else path
    parts = rel[:-3].split("/") if rel.endswith(".rs") else rel.split("/")
    if parts and parts[-1] == "mod":
        parts = parts[:-1]
    if len(parts) == 1 and parts[0] in ("lib", "main"):
        parts = []
    return parts


def _rust_module_file(idx: _Index, root: str, parts: list[str]) -> str | None:
    if not parts:
        return next((c for c in (_join(root, "lib.rs"), _join(root, "main.rs")) if c in idx.files), None)
    base = _join(root, *parts)
    return next((c for c in (base + ".rs", _join(base, "mod.rs")) if c in idx.files), None)


def _rust_use_paths(imp: Import) -> list[list[str]]:
    base = [s for s in imp.module.split("::") if s]
    if not imp.names:
        return [base]
    out = []
    for n in imp.names:
        n = n.split(" as ", 1)[0].strip()
        if n == "self":
            out.append(base)
            continue
        n = n.split("{", 1)[0].rstrip(":")  # nested use tree: a::{b, c} -> a
        out.append(base + [s for s in n.split("::") if s and s != "*"])
    return out


def _resolve_rust(idx: _Index, path: str, imp: Import, crate_root: str | None) -> tuple[str, ...]:
    root = _rust_root(idx, path, crate_root)
    if root is None:
        return ()
    if root and not (path == root or path.startswith(root + "/")):
        return ()
    current = _rust_module_path(root, path)
    if imp.kind == "mod":
        f = _rust_module_file(idx, root, current + [imp.module])
        return (f,) if f else ()
    if imp.kind != "use":
        return ()
    found: list[str] = []
    for segs in _rust_use_paths(imp):
        if not segs or segs[0] in _RUST_EXTERNAL_ROOTS:
            continue
        head = segs[0]
        if head == "crate":
            base: list[str] = []
            rest = segs[1:]
        elif head in ("self", "super"):
            base = list(current)
            i = 0
            while i < len(segs) and segs[i] in ("self", "super"):
                if segs[i] == "super":
                    if not base:
                        break
                    base.pop()
                i += 1
            if i < len(segs) and segs[i] == "super":
                continue  # climbs above the crate root
            rest = segs[i:]
        elif _rust_module_file(idx, root, current + [head]):
            base, rest = list(current), segs
        else:
            continue  # another crate
        hit = None
        for i in range(len(rest), 0, -1):
            hit = _rust_module_file(idx, root, base + rest[:i])
            if hit:
                break
        hit = hit or _rust_module_file(idx, root, base)
        if hit and hit not in found:
            found.append(hit)
    return tuple(found)


# -- public ----------------------------------------------------------------------------


def resolve_imports(
    repo_files: set[str] | frozenset[str],
    path: str,
    imports: Iterable[Import],
    lang: str | None,
    *,
    go_module: str | None = None,
    rust_crate_root: str | None = None,
    go_root: str = "",
) -> list[ResolvedImport]:
    """Resolve each of ``path``'s imports to repository files (see the module docstring
    for the rules). ``go_module`` is the module path from go.mod (``go_module_name``) and
    ``go_root`` the folder holding that go.mod. ``rust_crate_root`` is the crate's root
    folder or root file (``src`` or ``src/lib.rs``); by default the nearest folder above
    ``path`` holding ``lib.rs`` or ``main.rs``."""
    return _resolve(_Index.of(repo_files), path, imports, lang, go_module, go_root, rust_crate_root)


def _resolve(
    idx: _Index, path: str, imports: Iterable[Import], lang: str | None, go_module: str | None, go_root: str,
    rust_crate_root: str | None,
) -> list[ResolvedImport]:
    out: list[ResolvedImport] = []
    for imp in imports:
        paths: tuple[str, ...] = ()
        if lang == "python":
            paths = _resolve_python(idx, path, imp)
        elif lang in ("javascript", "typescript", "tsx"):
            paths = _resolve_js(idx, path, imp, lang)
        elif lang == "go":
            paths = _resolve_go(idx, imp, go_module, go_root)
        elif lang == "rust":
            paths = _resolve_rust(idx, path, imp, rust_crate_root)
        out.append(ResolvedImport(imp.module, imp.line, imp.names, imp.kind, tuple(p for p in paths if p != path)))
    return out


def _may_import(text: str, target: str, family: str) -> bool:
    """A cheap text test that ``text`` could import ``target``, run before parsing."""
    stem = posixpath.splitext(posixpath.basename(target))[0]
    folder = posixpath.basename(posixpath.dirname(target))
    if family == "go":  # a package at the module root is imported by the module path alone
        return not folder or folder in text
    if stem in ("__init__", "index", "mod", "lib", "main"):
        tokens = [folder] if folder else []
    else:
        tokens = [stem.split(".", 1)[0]]
    if any(t and t in text for t in tokens):
        return True
    if family == "python":
        return "from ." in text
    if family == "js":
        return any(q + d + q2 in text for q in "\"'" for d in (".", "..") for q2 in ("\"", "'", "/"))
    if family == "rust":
        return "crate::" in text or "super::" in text or "self::" in text
    return False


def importers_of(
    repo_files: set[str] | frozenset[str],
    target: str,
    read_file: Callable[[str], bytes | str | None],
    *,
    go_module: str | None = None,
    rust_crate_root: str | None = None,
    imports_of: Callable[[str, bytes, str], list[Import]] | None = None,
) -> list[Importer]:
    """The files that import ``target``, sorted by path, each with the line of its first
    import of it. ``read_file(path)`` returns a file's content (None if unreadable);
    ``imports_of(path, source, lang)`` may supply cached imports (default: parse). Go
    modules are read from the go.mod files in ``repo_files`` unless ``go_module`` is given
    (then it applies with its go.mod at the repository root)."""
    target_lang = language_for(target)
    family = FAMILIES.get(target_lang or "")
    if family is None:
        return []
    idx = _Index.of(repo_files)
    go_mods: dict[str, str] = {}
    if family == "go":
        if go_module:
            go_mods[""] = go_module
        else:
            for f in idx.files:
                if posixpath.basename(f) == "go.mod":
                    raw = read_file(f)
                    name = go_module_name(raw) if raw is not None else None
                    if name:
                        go_mods[posixpath.dirname(f)] = name
    out: list[Importer] = []
    for f in sorted(idx.files):
        lang = language_for(f)
        if f == target or lang is None or FAMILIES.get(lang) != family:
            continue
        raw = read_file(f)
        if raw is None:
            continue
        source = raw.encode("utf-8", "surrogateescape") if isinstance(raw, str) else raw
        if not _may_import(source.decode("utf-8", "replace"), target, family):
            continue
        imps = imports_of(f, source, lang) if imports_of else imports(source, lang)
        mod, root = None, ""
        if family == "go":
            d = posixpath.dirname(f)
            while True:
                if d in go_mods:
                    mod, root = go_mods[d], d
                    break
                if not d:
                    break
                d = posixpath.dirname(d)
        for r in _resolve(idx, f, imps, lang, mod, root, rust_crate_root):
            if target in r.paths:
                out.append(Importer(f, r.line, r.module))
                break
    return out
