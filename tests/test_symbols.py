"""Symbols and imports per language, the query files, and the blob-keyed cache."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hansard.code import symbols as sym
from hansard.code import treesitter
from hansard.code.symbols import Import, Symbol, enclosing, find, imports, language_for, symbols


def spans(source: str, lang: str) -> list[tuple[str, str, int, int]]:
    return [(s.name, s.kind, s.start_line, s.end_line) for s in symbols(source.encode(), lang)]


# -- query files ---------------------------------------------------------------------------


@pytest.mark.parametrize("lang", sorted(treesitter.GRAMMARS))
@pytest.mark.parametrize("kind", treesitter.QUERY_KINDS)
def test_every_query_compiles(lang: str, kind: str) -> None:
    # Grammar drift (a renamed node type) breaks a query at load time; catch it here.
    assert treesitter.compile_query(lang, kind) is not None


def test_every_language_has_both_query_files_and_an_extension() -> None:
    for lang in treesitter.GRAMMARS:
        for kind in treesitter.QUERY_KINDS:
            assert Path(treesitter.query_path(lang, kind)).is_file()
        assert lang in sym.EXTENSIONS.values()


def test_queries_found_in_installed_package_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    installed = tmp_path / "hansard" / "analyzers" / "queries"
    installed.mkdir(parents=True)
    (installed / "python-tags.scm").write_text(
        "(class_definition name: (identifier) @name.definition.class) @definition.class\n")
    checkout = tmp_path / "analyzers" / "queries"
    monkeypatch.setattr(treesitter, "queries_dirs", lambda: [str(installed), str(checkout)])
    assert treesitter.query_path("python", "tags") == str(installed / "python-tags.scm")
    with pytest.raises(treesitter.AnalyzerError):
        treesitter.query_path("python", "imports")


def test_default_query_dirs_are_package_then_checkout() -> None:
    pkg_dir, repo_dir = treesitter.queries_dirs()
    root = Path(__file__).resolve().parents[1]
    assert Path(pkg_dir) == root / "hansard" / "analyzers" / "queries"
    assert Path(repo_dir) == root / "analyzers" / "queries"


def test_wheel_ships_analyzers_inside_the_package() -> None:
    import tomllib

    root = Path(__file__).resolve().parents[1]
    conf = tomllib.loads((root / "pyproject.toml").read_text())
    wheel = conf["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["force-include"]["analyzers"] == "hansard/analyzers"  # never a top-level `analyzers` package
    assert wheel["packages"] == ["hansard"]


def test_tsx_inherits_typescript() -> None:
    text = treesitter.query_source("tsx", "tags")
    assert "interface_declaration" in text
    src = (b"export function App(): JSX.Element {\n  return <div className='x'>hi</div>;\n}\n"
           b"interface Props { a: number }\n")
    assert [(s.name, s.kind, s.start_line, s.end_line) for s in symbols(src, "tsx")] == [
        ("App", "function", 1, 3), ("Props", "interface", 4, 4)]


def test_importing_symbols_does_not_import_tree_sitter() -> None:
    code = ("import sys; import hansard.code.symbols, hansard.code.imports, hansard.facts.test_outcomes, "
            "hansard.facts.steps; print('tree_sitter' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


# -- language_for ----------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "lang"), [
    ("a/b.py", "python"), ("x.pyi", "python"), ("web/app.js", "javascript"), ("m.mjs", "javascript"),
    ("c.jsx", "javascript"), ("s.ts", "typescript"), ("s.d.ts", "typescript"), ("v.tsx", "tsx"),
    ("main.go", "go"), ("src/lib.rs", "rust"), ("README.md", None), ("Makefile", None), ("dir.d/file", None),
    ("UPPER.PY", "python"),
])
def test_language_for(path: str, lang: str | None) -> None:
    assert language_for(path) == lang


# -- Python -------------------------------------------------------------------------------

PY = '''\
import os
from pathlib import Path


@dataclass(frozen=True)
@other
class Repo:
    """A repository."""

    name: str

    @property
    def root(self) -> Path:
        return Path(self.name)

    async def fetch(self, url):
        def parse(body):
            return body
        return parse(url)

    class Meta:
        ordering = ["name"]


def top(a, b):
    def inner():
        return a

    return inner() + b


@cache
def helper():
    pass
'''


def test_python_symbols() -> None:
    assert spans(PY, "python") == [
        ("Repo", "class", 5, 22),
        ("Repo.root", "method", 12, 14),
        ("Repo.fetch", "method", 16, 19),
        ("Repo.fetch.parse", "function", 17, 18),
        ("Repo.Meta", "class", 21, 22),
        ("top", "function", 25, 29),
        ("top.inner", "function", 26, 27),
        ("helper", "function", 32, 34),
    ]
    got = symbols(PY.encode(), "python")
    assert got[1] == Symbol("Repo.root", "method", 12, 14, "root", "Repo")
    assert got[3].parent == "Repo.fetch"


def test_python_enclosing_is_innermost() -> None:
    syms = symbols(PY.encode(), "python")
    assert enclosing(syms, 18).name == "Repo.fetch.parse"
    assert enclosing(syms, 19).name == "Repo.fetch"
    assert enclosing(syms, 5).name == "Repo"  # a decorator line belongs to the class
    assert enclosing(syms, 12).name == "Repo.root"
    assert enclosing(syms, 10).name == "Repo"
    assert enclosing(syms, 1) is None
    assert enclosing(syms, 23) is None
    assert enclosing([], 3) is None


def test_find_by_qualified_suffix_or_bare_name() -> None:
    syms = symbols(PY.encode(), "python")
    assert [s.name for s in find(syms, "Repo.fetch")] == ["Repo.fetch"]
    assert [s.name for s in find(syms, "fetch.parse")] == ["Repo.fetch.parse"]
    assert [s.name for s in find(syms, "inner")] == ["top.inner"]
    assert find(syms, "nope") == []


def test_python_imports() -> None:
    src = b"""import os, sys as system
import a.b.c
from . import sibling
from ..pkg.mod import name as alias, other
from x import *
from __future__ import annotations

def f():
    import json
"""
    assert imports(src, "python") == [
        Import("os", 1), Import("sys", 1), Import("a.b.c", 2),
        Import(".", 3, ("sibling",)),
        Import("..pkg.mod", 4, ("name", "other")),
        Import("x", 5, ("*",)),
        Import("json", 9),
    ]


def test_python_syntax_errors_do_not_crash() -> None:
    src = b"def ok():\n    return 1\n\ndef broken(:\n    pass\n"
    names = [s.name for s in symbols(src, "python")]
    assert "ok" in names


# -- JavaScript / TypeScript ------------------------------------------------------------------

JS = """\
import def, { a, b as c } from "./mod.js";
const { helper } = require("../lib/helper");

export function load(path) {
  return fetch(path);
}

export const twice = (x) => x * 2;

class Cache {
  size = 0;
  onEvict = () => {
    this.size--;
  };

  get(key) {
    return this.map.get(key);
  }

  static create() {
    return new Cache();
  }
}

function* ids() {
  yield 1;
}
"""


def test_javascript_symbols() -> None:
    assert spans(JS, "javascript") == [
        ("load", "function", 4, 6),
        ("twice", "function", 8, 8),
        ("Cache", "class", 10, 23),
        ("Cache.onEvict", "method", 12, 14),
        ("Cache.get", "method", 16, 18),
        ("Cache.create", "method", 20, 22),
        ("ids", "function", 25, 27),
    ]


def test_javascript_imports() -> None:
    src = b"""import def, { a, b as c } from "./mod.js";
import * as ns from "lodash";
import "./side-effect";
export { x } from "./reexport";
export * from "./all";
const { helper } = require("../lib/helper");
const lazy = () => import("./lazy");
notRequire("./no");
"""
    assert imports(src, "javascript") == [
        Import("./mod.js", 1, ("def", "a", "b")),
        Import("lodash", 2),
        Import("./side-effect", 3),
        Import("./reexport", 4, ("x",)),
        Import("./all", 5),
        Import("../lib/helper", 6),
        Import("./lazy", 7),
    ]


TS = """\
import type { Shape } from "./shape";
import fs = require("fs");

export interface Area {
  area(): number;
  name: string;
}

export type Id = string | number;

export enum Color {
  Red,
  Green,
}

@Component({ selector: "x" })
export class Circle implements Area {
  name = "circle";

  @Input()
  @Other()
  radius(): number {
    return 1;
  }

  area(): number {
    return Math.PI;
  }
}

export abstract class Base {
  abstract run(): void;
}

namespace Geometry {
  export function origin() {
    return 0;
  }
}
"""


def test_typescript_symbols() -> None:
    assert spans(TS, "typescript") == [
        ("Area", "interface", 4, 7),
        ("Area.area", "method", 5, 5),
        ("Id", "type", 9, 9),
        ("Color", "enum", 11, 14),
        ("Circle", "class", 16, 29),  # the class decorator belongs to the span
        ("Circle.radius", "method", 20, 24),  # so do member decorators
        ("Circle.area", "method", 26, 28),
        ("Base", "class", 31, 33),
        ("Base.run", "method", 32, 32),
        ("Geometry", "module", 35, 39),
        ("Geometry.origin", "function", 36, 38),
    ]


def test_typescript_imports() -> None:
    assert imports(TS.encode(), "typescript") == [Import("./shape", 1, ("Shape",)), Import("fs", 2, ("fs",))]


# -- Go -------------------------------------------------------------------------------------

GO = """\
package server

import (
	"fmt"
	db "example.com/app/internal/db"
	_ "example.com/app/drivers"
)

type Server struct {
	addr string
}

type Handler interface {
	Serve() error
}

type ID int

func (s *Server) Start() error {
	fmt.Println(s.addr)
	return nil
}

func (s Server) Addr() string { return s.addr }

func (p *Pair[T]) First() T {
	return p.a
}

func New(addr string) *Server {
	return &Server{addr: addr}
}
"""


def test_go_symbols() -> None:
    assert spans(GO, "go") == [
        ("Server", "struct", 9, 11),
        ("Handler", "interface", 13, 15),
        ("Handler.Serve", "method", 14, 14),
        ("ID", "type", 17, 17),
        ("Server.Start", "method", 19, 22),  # the receiver type qualifies the method
        ("Server.Addr", "method", 24, 24),
        ("Pair.First", "method", 26, 28),
        ("New", "function", 30, 32),
    ]
    start = symbols(GO.encode(), "go")[4]
    assert (start.short_name, start.parent) == ("Start", None)


def test_go_imports() -> None:
    assert imports(GO.encode(), "go") == [
        Import("fmt", 4), Import("example.com/app/internal/db", 5, ("db",)),
        Import("example.com/app/drivers", 6, ("_",)),
    ]


# -- Rust ------------------------------------------------------------------------------------

RS = """\
mod util;
pub mod net {
    pub fn ping() {}
}
use crate::store::{Cache, db::Conn};
use super::config;
use std::collections::HashMap as Map;

#[derive(Debug, Clone)]
pub struct Point {
    x: i32,
}

pub enum Shape {
    Circle,
}

pub trait Area {
    fn area(&self) -> f64;
    fn describe(&self) -> String {
        String::new()
    }
}

impl Point {
    pub fn new() -> Self {
        Point { x: 0 }
    }
}

impl<T> Stack<T> {
    fn push(&mut self, v: T) {}
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        Ok(())
    }
}

#[test]
fn it_works() {
    assert!(true);
}
"""


def test_rust_symbols() -> None:
    assert spans(RS, "rust") == [
        ("net", "module", 2, 4),
        ("net::ping", "function", 3, 3),
        ("Point", "struct", 9, 12),  # attributes belong to the span
        ("Shape", "enum", 14, 16),
        ("Area", "trait", 18, 23),
        ("Area::area", "method", 19, 19),
        ("Area::describe", "method", 20, 22),
        ("Point", "impl", 25, 29),
        ("Point::new", "method", 26, 28),
        ("Stack", "impl", 31, 33),
        ("Stack::push", "method", 32, 32),
        ("Point", "impl", 35, 39),
        ("Point::fmt", "method", 36, 38),
        ("it_works", "function", 41, 44),
    ]
    syms = symbols(RS.encode(), "rust")
    assert enclosing(syms, 27).name == "Point::new"
    assert [s.name for s in find(syms, "Point.new")] == ["Point::new"]


def test_rust_imports() -> None:
    assert imports(RS.encode(), "rust") == [
        Import("util", 1, (), "mod"),
        Import("crate::store", 5, ("Cache", "db::Conn"), "use"),
        Import("super", 6, ("config",), "use"),
        Import("std::collections", 7, ("HashMap",), "use"),
    ]


# -- errors ------------------------------------------------------------------------------------


def test_unsupported_language_raises_analyzer_error() -> None:
    with pytest.raises(treesitter.AnalyzerError):
        symbols(b"x", "cobol")
    with pytest.raises(treesitter.AnalyzerError):
        imports(b"x", "cobol")


def test_too_large_source_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sym, "MAX_SOURCE_BYTES", 10)
    assert symbols(b"def f():\n    pass\n", "python") == []
    assert sym.analyze(b"def f():\n    pass\n", "python").reason == "too_large"


# -- cache -------------------------------------------------------------------------------------


@pytest.fixture
def store():
    from hansard.store import open_store

    st = open_store()
    yield st
    st.close()


def test_blob_id_matches_git_hash_object(tmp_path: Path) -> None:
    data = b"print('hi')\n"
    f = tmp_path / "x.py"
    f.write_bytes(data)
    want = subprocess.run(["git", "hash-object", str(f)], capture_output=True, text=True, check=True).stdout.strip()
    assert sym.blob_id(data) == want


def test_cache_roundtrip_and_version_key(store, monkeypatch: pytest.MonkeyPatch) -> None:
    src = PY.encode()
    blob = sym.blob_id(src)
    calls = []
    real = sym.analyze
    monkeypatch.setattr(sym, "analyze", lambda s, lang: calls.append(lang) or real(s, lang))

    from hansard.app.house import Hansard

    with Hansard().request() as rq:
        first = sym.cached_symbols(rq.store, blob, "python", src)
        assert first == symbols(src, "python")
        assert calls == ["python"]
        # Asked again in the same request: what it worked out, no parse.
        assert sym.cached_symbols(rq.store, blob, "python", src) == first
    # ... and kept by the request: a later one reads the table, identical values.
    with Hansard().request() as rq:
        assert sym.cached_symbols(rq.store, blob, "python", src) == first
        assert sym.cached_imports(rq.store, blob, "python", src) == imports(src, "python")
    assert calls == ["python"]
    row = store.db.execute("SELECT lang, analyzer_version FROM symbol_cache WHERE blob_id=?", (blob,)).fetchall()
    assert [tuple(r) for r in row] == [("python", sym.ANALYZER_VERSION)]
    # An answer asked on its own (no request listening) keeps nothing.
    other = b"def g():\n    return 2\n"
    sym.cached_symbols(store, sym.blob_id(other), "python", other)
    assert store.db.execute("SELECT COUNT(*) FROM symbol_cache WHERE blob_id=?", (sym.blob_id(other),)).fetchone()[0] == 0

    # A new analyzer version never reads the old rows.
    monkeypatch.setattr(sym, "ANALYZER_VERSION", sym.ANALYZER_VERSION + 1)
    calls.clear()
    assert sym.cached_symbols(store, blob, "python", src) == first
    assert calls == ["python"]
    assert store.symbols.prune(sym.ANALYZER_VERSION) == 1


def test_cache_degrades_without_raising(store, monkeypatch: pytest.MonkeyPatch) -> None:
    assert sym.cached_analysis(store, "b" * 40, None, b"x").reason == "unsupported_language"
    assert sym.cached_analysis(store, "b" * 40, "cobol", b"x").reason == "unsupported_language"

    def broken(_s: bytes, lang: str) -> sym.Analysis:
        raise treesitter.AnalyzerError("python-tags.scm does not compile")

    monkeypatch.setattr(sym, "analyze", broken)
    res = sym.cached_analysis(store, "c" * 40, "python", b"def f(): pass\n")
    assert res.symbols == () and res.reason.startswith("analyzer_error")
    # Failures are not cached: fixing the install fixes the answer.
    assert store.db.execute("SELECT COUNT(*) FROM symbol_cache").fetchone()[0] == 0


def test_cache_works_on_a_store_without_the_table() -> None:
    import sqlite3

    from hansard.store.sqlite.store import SqliteStore

    bare = SqliteStore(sqlite3.connect(":memory:"), ":memory:")
    src = b"class A:\n    def m(self):\n        pass\n"
    assert [s.name for s in sym.cached_symbols(bare, sym.blob_id(src), "python", src)] == ["A", "A.m"]


def test_migration_creates_symbol_cache(store) -> None:
    db = store.db
    cols = [r[1] for r in db.execute("PRAGMA table_info(symbol_cache)")]
    assert cols == ["blob_id", "lang", "analyzer_version", "symbols", "imports", "reason"]
    names = [r[0] for r in db.execute("SELECT name FROM _migrations ORDER BY rowid")]
    assert "m010_symbol_cache" in names
