"""The store against the protocols of hansard/store/interfaces.py: every facet of ``Store`` has
every method of its protocol, with the same parameter names, kinds and defaults, and every
attribute. mypy holds the types (``open_store`` returns a ``Store``); this test holds the shape
at run time, and that each protocol has one implementation."""

from __future__ import annotations

import inspect
import typing
from typing import Any

import pytest

from hansard.store import interfaces
from hansard.store.interfaces import ItemWriter, Redactor, Store


def _store_facets() -> dict[str, type]:
    """Store's facet name -> its protocol, from the protocol's own property annotations."""
    out = {}
    for name, member in vars(Store).items():
        if isinstance(member, property):
            hint = typing.get_type_hints(member.fget, vars(interfaces))["return"]
            if isinstance(hint, type) and getattr(hint, "_is_protocol", False):
                out[name] = hint
    return out


FACETS = _store_facets()


def _methods(proto: type) -> dict[str, Any]:
    return {n: m for n, m in vars(proto).items() if inspect.isfunction(m) and not n.startswith("_")}


def _attributes(proto: type) -> list[str]:
    return [n for n in getattr(proto, "__annotations__", {}) if not n.startswith("_")]


def _shape(fn: Any, *, drop_self: bool) -> list[tuple[str, Any, Any]]:
    params = list(inspect.signature(fn).parameters.values())
    if drop_self:
        params = params[1:]
    return [(p.name, p.kind, p.default) for p in params]


def problems(impl: Any, proto: type) -> list[str]:
    """What ``impl`` (an instance, a class or a module) lacks of ``proto``: missing methods and
    attributes, and methods whose parameters differ in name, kind or default."""
    out = []
    for name, fn in _methods(proto).items():
        got = getattr(impl, name, None)
        if got is None or not callable(got):
            out.append(f"{name}: missing")
            continue
        want = _shape(fn, drop_self=True)
        have = _shape(got, drop_self=inspect.isclass(impl))
        if have != want:
            out.append(f"{name}: {[(n, k.name, d) for n, k, d in have]} != {[(n, k.name, d) for n, k, d in want]}")
    for name in _attributes(proto):
        if not hasattr(impl, name):
            out.append(f"{name}: attribute missing")
    return out


def test_the_store_protocol_lists_its_facets() -> None:
    assert len(FACETS) == 18, FACETS
    assert {"agent_traces", "team"} <= set(FACETS)
    assert {"archive", "items", "evidence", "repos", "sessions", "search"} <= set(FACETS)


@pytest.fixture
def sqlite_store(tmp_path: Any) -> Any:
    from hansard.store.sqlite.store import SqliteStore

    store = SqliteStore.open(tmp_path / "store.db")
    yield store
    store.close()


@pytest.mark.parametrize("facet", sorted(FACETS))
def test_sqlite_store_facet_satisfies_its_protocol(sqlite_store: Any, facet: str) -> None:
    assert problems(getattr(sqlite_store, facet), FACETS[facet]) == []


def test_sqlite_store_has_every_store_member(sqlite_store: Any) -> None:
    assert problems(sqlite_store, Store) == []
    assert isinstance(sqlite_store.readonly, bool)


def test_sqlite_item_writer_and_the_redactor(sqlite_store: Any) -> None:
    """The item sink's writer (``items.writer(...)``) is an ``ItemWriter``, and the redaction
    module handed to it is a ``Redactor``."""
    from hansard.ingest import redact

    assert problems(redact, Redactor) == []
    assert problems(sqlite_store.items.writer(0, "claude_code", redact), ItemWriter) == []


# --- one implementation of each question ------------------------------------------------------


def _classes() -> list[tuple[str, type]]:
    """Every class defined in hansard (its modules imported), by module."""
    import importlib
    import pathlib

    root = pathlib.Path(__file__).resolve().parents[1]
    out = []
    for path in sorted((root / "hansard").rglob("*.py")):
        mod = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        if any(part in mod for part in ("hansard.web", "hansard.lsp", "hansard.mcp", "hansard.__main__")):
            continue  # adapters, which import servers' libraries and never implement a store
        try:
            m = importlib.import_module(mod)
        except ImportError:
            continue  # an optional extra that is not installed here
        out += [(mod, c) for c in vars(m).values() if inspect.isclass(c) and c.__module__ == mod]
    return out


def test_each_store_question_has_one_implementation() -> None:
    """A facet's protocol is implemented once, by the SQLite store: the team's rows are rows of
    its tables (hansard.store.sqlite.team), not a second store that answers the same questions."""
    protocols = set(FACETS.values()) | {Store}
    for proto in protocols:
        names = set(_methods(proto)) | ({n for n in FACETS} if proto is Store else set())
        found = [f"{mod}.{c.__name__}" for mod, c in _classes() if c is not proto and not getattr(c, "_is_protocol", False)
                 and names and names <= {n for n in dir(c) if not n.startswith("_")}]
        assert len(found) == 1 and found[0].startswith("hansard.store.sqlite."), (proto.__name__, found)
