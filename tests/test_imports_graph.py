"""Import resolution per language, and importers_of over a small repository."""

from __future__ import annotations

from hansard.code.imports import (
    Importer,
    ResolvedImport,
    go_module_name,
    importers_of,
    resolve_imports,
)
from hansard.code.symbols import Import, imports


def resolve(files: set[str], path: str, source: str, lang: str, **kw) -> list[tuple[str, tuple[str, ...]]]:
    return [(r.module, r.paths) for r in resolve_imports(files, path, imports(source.encode(), lang), lang, **kw)]


# -- Python ------------------------------------------------------------------------------------

PY_FILES = {
    "app/__init__.py", "app/core.py", "app/util/__init__.py", "app/util/text.py", "app/util/net.py",
    "app/cli.py", "src/lib/__init__.py", "src/lib/store.py", "tests/conftest.py", "tests/helpers.py",
    "tests/test_core.py", "services/api/pyproject.toml", "services/api/src/api/__init__.py",
    "services/api/src/api/routes.py", "stubs/typed.pyi",
}


def test_python_absolute_imports() -> None:
    src = """import os
import app.core
import app.util
from app.util import text, helper_fn
from app.util.net import fetch
from lib.store import Store
from api.routes import router
import requests
"""
    assert resolve(PY_FILES, "app/cli.py", src, "python") == [
        ("os", ()),
        ("app.core", ("app/core.py",)),
        ("app.util", ("app/util/__init__.py",)),
        ("app.util", ("app/util/text.py", "app/util/__init__.py")),  # submodule first, then the package
        ("app.util.net", ("app/util/net.py",)),
        ("lib.store", ("src/lib/store.py",)),  # src/ layout
        ("api.routes", ("services/api/src/api/routes.py",)),  # a project folder's src/ layout
        ("requests", ()),  # external: kept, not dropped
    ]


def test_python_relative_imports() -> None:
    src = """from . import net
from .text import slug
from .. import core
from ..core import run
from ...outside import x
"""
    assert resolve(PY_FILES, "app/util/text.py", src, "python") == [
        (".", ("app/util/net.py", "app/util/__init__.py")),
        (".text", ()),  # the file itself is not an import of itself
        ("..", ("app/core.py", "app/__init__.py")),
        ("..core", ("app/core.py",)),
        ("...outside", ()),
    ]


def test_python_script_folder_and_stub_imports() -> None:
    # tests/ is not a package: pytest puts it on sys.path, so `import helpers` is tests/helpers.py
    src = "import helpers\nfrom conftest import fixture\nimport typed\n"
    assert resolve(PY_FILES, "tests/test_core.py", src, "python") == [
        ("helpers", ("tests/helpers.py",)), ("conftest", ("tests/conftest.py",)), ("typed", ()),
    ]
    assert resolve(PY_FILES, "stubs/other.py", "import typed\n", "python") == [("typed", ("stubs/typed.pyi",))]


def test_resolved_import_fields() -> None:
    out = resolve_imports(PY_FILES, "app/cli.py", [Import("app.core", 3, ("run",))], "python")
    assert out == [ResolvedImport("app.core", 3, ("run",), "import", ("app/core.py",))]
    assert not out[0].external
    assert resolve_imports(PY_FILES, "app/cli.py", [Import("numpy", 1)], "python")[0].external


# -- JavaScript / TypeScript ------------------------------------------------------------------

JS_FILES = {
    "src/app.ts", "src/util.ts", "src/view.tsx", "src/legacy.js", "src/components/index.ts",
    "src/components/Button.tsx", "src/esm.ts", "src/types.d.ts", "src/data.json", "lib/index.js",
    "lib/helper.js", "lib/helper.ts", "src/deep/nested/leaf.ts",
}


def test_typescript_relative_resolution() -> None:
    src = """import { a } from "./util";
import View from "./view";
import { Button } from "./components";
import { B } from "./components/Button";
import { e } from "./esm.js";
import type { T } from "./types";
import data from "./data.json";
import lib from "../lib";
import { h } from "../lib/helper";
import { leaf } from "./deep/nested/leaf";
import React from "react";
import { alias } from "@/util";
import { missing } from "./missing";
"""
    assert resolve(JS_FILES, "src/app.ts", src, "typescript") == [
        ("./util", ("src/util.ts",)),
        ("./view", ("src/view.tsx",)),
        ("./components", ("src/components/index.ts",)),  # folder index
        ("./components/Button", ("src/components/Button.tsx",)),
        ("./esm.js", ("src/esm.ts",)),  # TypeScript's ESM convention: .js names the .ts source
        ("./types", ("src/types.d.ts",)),
        ("./data.json", ("src/data.json",)),
        ("../lib", ("lib/index.js",)),
        ("../lib/helper", ("lib/helper.ts",)),  # TypeScript importers prefer .ts
        ("./deep/nested/leaf", ("src/deep/nested/leaf.ts",)),
        ("react", ()),
        ("@/util", ()),  # path aliases need tsconfig: external
        ("./missing", ()),
    ]


def test_javascript_prefers_js_and_handles_require() -> None:
    src = 'const h = require("../lib/helper");\nimport x from "./legacy";\nconst up = require("../../outside");\n'
    assert resolve(JS_FILES, "src/main.js", src, "javascript") == [
        ("../lib/helper", ("lib/helper.js",)), ("./legacy", ("src/legacy.js",)), ("../../outside", ()),
    ]
    assert resolve(JS_FILES, "src/deep/nested/x.js", 'import s from "..";\nimport t from "../..";\n', "javascript") == [
        ("..", ()), ("../..", ()),
    ]


# -- Go ------------------------------------------------------------------------------------

GO_FILES = {
    "go.mod", "cmd/server/main.go", "internal/db/db.go", "internal/db/conn.go", "internal/db/db_test.go",
    "internal/db/sub/x.go", "pkg/api/api.go",
}


def test_go_module_name() -> None:
    assert go_module_name("// comment\nmodule example.com/app\n\ngo 1.22\n") == "example.com/app"
    assert go_module_name(b'module "example.com/quoted"\n') == "example.com/quoted"
    assert go_module_name("go 1.22\n") is None


def test_go_packages_within_module() -> None:
    src = """package main

import (
	"fmt"
	"example.com/app/internal/db"
	api "example.com/app/pkg/api"
	"example.com/app/missing"
	"example.com/application/other"
	"github.com/x/y"
)
"""
    assert resolve(GO_FILES, "cmd/server/main.go", src, "go", go_module="example.com/app") == [
        ("fmt", ()),
        ("example.com/app/internal/db", ("internal/db/conn.go", "internal/db/db.go")),  # no _test.go, no subfolders
        ("example.com/app/pkg/api", ("pkg/api/api.go",)),
        ("example.com/app/missing", ()),
        ("example.com/application/other", ()),  # a prefix of the name, not of the path
        ("github.com/x/y", ()),
    ]
    # Without a module name every import is external.
    assert all(not p for _, p in resolve(GO_FILES, "cmd/server/main.go", src, "go"))


def test_go_module_in_a_subfolder() -> None:
    files = {"backend/go.mod", "backend/main.go", "backend/store/store.go"}
    src = 'package main\nimport "example.com/be/store"\n'
    assert resolve(files, "backend/main.go", src, "go", go_module="example.com/be", go_root="backend") == [
        ("example.com/be/store", ("backend/store/store.go",)),
    ]


# -- Rust ------------------------------------------------------------------------------------

RS_FILES = {
    "Cargo.toml", "src/lib.rs", "src/store.rs", "src/store/db.rs", "src/store/cache/mod.rs", "src/net/mod.rs",
    "src/net/http.rs", "src/config.rs",
}


def test_rust_mod_declarations() -> None:
    assert resolve(RS_FILES, "src/lib.rs", "mod store;\npub mod net;\nmod config;\nmod gone;\n", "rust") == [
        ("store", ("src/store.rs",)), ("net", ("src/net/mod.rs",)), ("config", ("src/config.rs",)), ("gone", ()),
    ]
    # A non-mod.rs file declares its children in the folder named after it.
    assert resolve(RS_FILES, "src/store.rs", "mod db;\nmod cache;\n", "rust") == [
        ("db", ("src/store/db.rs",)), ("cache", ("src/store/cache/mod.rs",)),
    ]
    assert resolve(RS_FILES, "src/net/mod.rs", "mod http;\n", "rust") == [("http", ("src/net/http.rs",))]


def test_rust_use_within_the_crate() -> None:
    src = """use crate::store::db::Conn;
use crate::store::{cache::Cache, db};
use crate::config;
use crate::Thing;
use super::config::Settings;
use self::http::get;
use std::collections::HashMap;
use serde::Serialize;
"""
    assert resolve(RS_FILES, "src/net/mod.rs", src, "rust") == [
        ("crate::store::db", ("src/store/db.rs",)),
        ("crate::store", ("src/store/cache/mod.rs", "src/store/db.rs")),
        ("crate", ("src/config.rs",)),
        ("crate", ("src/lib.rs",)),  # an item of the crate root
        ("super::config", ("src/config.rs",)),
        ("self::http", ("src/net/http.rs",)),
        ("std::collections", ()),
        ("serde", ()),
    ]


def test_rust_2018_paths_and_explicit_crate_root() -> None:
    src = "use store::db::Conn;\nuse net::http;\n"
    assert resolve(RS_FILES, "src/lib.rs", src, "rust") == [
        ("store::db", ("src/store/db.rs",)), ("net", ("src/net/http.rs",)),
    ]
    files = {"crates/core/src/lib.rs", "crates/core/src/a.rs", "crates/core/src/a/b.rs"}
    assert resolve(files, "crates/core/src/a.rs", "use crate::a::b::f;\nuse super::super::x;\n", "rust",
                   rust_crate_root="crates/core/src/lib.rs") == [("crate::a::b", ("crates/core/src/a/b.rs",)),
                                                                 ("super::super", ())]


# -- importers_of ------------------------------------------------------------------------------


def test_importers_of_python() -> None:
    files = {
        "app/__init__.py", "app/retry.py", "app/client.py", "app/cli.py", "app/unrelated.py",
        "tests/test_retry.py", "README.md",
    }
    sources = {
        "app/__init__.py": "",
        "app/retry.py": "import time\n",
        "app/client.py": "import os\n\nfrom .retry import backoff\n",
        "app/cli.py": "from app import retry\n",
        "app/unrelated.py": "retry = 3  # mentions the word only\n",
        "tests/test_retry.py": "import pytest\nfrom app.retry import backoff\n",
        "README.md": "from app.retry import x",
    }
    reads: list[str] = []

    def read(p: str) -> bytes | None:
        reads.append(p)
        return sources[p].encode()

    assert importers_of(files, "app/retry.py", read) == [
        Importer("app/cli.py", 1, "app"), Importer("app/client.py", 3, ".retry"),
        Importer("tests/test_retry.py", 2, "app.retry"),
    ]
    assert "README.md" not in reads  # only files of the target's language family are read


def test_importers_of_typescript_and_go_and_missing_files() -> None:
    files = {"src/util.ts", "src/a.ts", "src/b.js", "src/c.ts", "src/d.tsx"}
    sources = {
        "src/a.ts": 'import { u } from "./util";\n',
        "src/b.js": 'const u = require("./util.js");\n',
        "src/c.ts": 'import { u } from "./utility";\n',
    }
    got = importers_of(files, "src/util.ts", lambda p: sources.get(p))  # src/d.tsx is unreadable: skipped
    assert [i.path for i in got] == ["src/a.ts", "src/b.js"]

    gofiles = {"go.mod", "main.go", "store/store.go", "store/kv.go", "web/web.go"}
    gosrc = {
        "go.mod": "module example.com/app\n",
        "main.go": 'package main\n\nimport "example.com/app/store"\n',
        "web/web.go": 'package web\n\nimport (\n\t"fmt"\n\t"example.com/app/store"\n)\n',
        "store/store.go": "package store\n",
        "store/kv.go": "package store\n",
    }
    got = importers_of(gofiles, "store/kv.go", lambda p: gosrc[p])
    assert got == [Importer("main.go", 3, "example.com/app/store"), Importer("web/web.go", 5, "example.com/app/store")]
    rootpkg = {"go.mod": "module example.com/lib\n", "lib.go": "package lib\n",
               "cmd/tool/main.go": 'package main\n\nimport "example.com/lib"\n'}
    assert importers_of(set(rootpkg), "lib.go", lambda p: rootpkg[p]) == [
        Importer("cmd/tool/main.go", 3, "example.com/lib")]


def test_importers_of_rust_and_unsupported_target() -> None:
    files = {"src/main.rs", "src/net.rs", "src/net/http.rs", "src/cli.rs"}
    sources = {
        "src/main.rs": "mod net;\nmod cli;\n",
        "src/net.rs": "pub mod http;\n",
        "src/cli.rs": "use crate::net::http::get;\n",
        "src/net/http.rs": "",
    }
    got = importers_of(files, "src/net/http.rs", lambda p: sources[p])
    assert [i.path for i in got] == ["src/cli.rs", "src/net.rs"]
    assert importers_of(files, "README.md", lambda p: "") == []


def test_importers_of_uses_supplied_imports() -> None:
    files = {"a.py", "b.py"}
    seen = []

    def cached(path: str, source: bytes, lang: str) -> list[Import]:
        seen.append(path)
        return [Import("b", 7)]

    assert importers_of(files, "b.py", lambda p: "import b\n", imports_of=cached) == [Importer("a.py", 7, "b")]
    assert seen == ["a.py"]
