"""Every public answer's signature is typed without ``Any``: its parameters, and its result, a
type of hansard.answers.results followed all the way down (TypedDict fields, lists, unions)."""

from __future__ import annotations

import collections.abc
import importlib
import typing
from typing import Any

import pytest
import typing_extensions as te

ANSWERS = [
    "hansard.answers.why.question:explain",
    "hansard.answers.why.question:explain_json",
    "hansard.answers.code_history:code_history",
    "hansard.answers.work_context:work_context",
    "hansard.answers.stats:repo_stats",
    "hansard.answers.search.sessions:search_past_sessions",
    "hansard.answers.transcript:get_past_session",
    "hansard.answers.memories:search_memories",
    "hansard.answers.memories:get_memory",
    "hansard.answers.notices:no_sessions",
    "hansard.answers.agents_status:agent_status",
    "hansard.answers.index_state:index_state",
]


def _namespace() -> dict[str, Any]:
    """What the answers' annotations name under TYPE_CHECKING."""
    from hansard.answers import results
    from hansard.answers.budget import Render
    from hansard.answers.why.many import Ask
    from hansard.ingest.embed import Embedder
    from hansard.ingest.pipeline import Progress
    from hansard.store.interfaces import Store

    return {**vars(typing), **vars(collections.abc), **vars(results), "Store": Store, "Render": Render,
            "Embedder": Embedder, "Progress": Progress, "Ask": Ask}


def _holds_any(tp: Any, seen: set[int]) -> list[str]:
    if tp is Any:
        return ["Any"]
    if id(tp) in seen:
        return []
    seen.add(id(tp))
    if isinstance(tp, te.TypeAliasType):
        value = tp.__value__
        return _holds_any(eval(value, _namespace()) if isinstance(value, str) else value, seen)
    if te.is_typeddict(tp):
        return [f"{tp.__name__}.{k}: {x}" for k, v in typing.get_type_hints(tp).items() for x in _holds_any(v, seen)]
    return [x for a in typing.get_args(tp) if not isinstance(a, (str, int, bool)) and a is not Ellipsis
            for x in _holds_any(a, seen)]


@pytest.mark.parametrize("ref", ANSWERS)
def test_an_answer_s_signature_holds_no_any(ref: str) -> None:
    module, _, name = ref.partition(":")
    fn = getattr(importlib.import_module(module), name)
    hints = typing.get_type_hints(fn, globalns={**fn.__globals__, **_namespace()})
    found = {param: where for param, tp in hints.items() if (where := _holds_any(tp, set()))}
    assert found == {}


@pytest.mark.parametrize("ref", ANSWERS)
def test_an_answer_returns_a_declared_result_type(ref: str) -> None:
    from hansard.answers import results

    module, _, name = ref.partition(":")
    fn = getattr(importlib.import_module(module), name)
    ret = typing.get_type_hints(fn, globalns={**fn.__globals__, **_namespace()})["return"]
    inner = typing.get_args(ret)[0] if typing.get_origin(ret) is list else ret
    assert inner is bytes or (te.is_typeddict(inner) and getattr(results, inner.__name__) is inner)


def test_the_checker_sees_any() -> None:
    class Loose(te.TypedDict):
        rows: list[dict[str, Any]]

    assert _holds_any(Loose, set()) == ["Loose.rows: Any"]


def test_no_answer_starts_a_thread_or_a_process() -> None:
    """Answers only read: git runs through hansard.git (a blame started beside the answer's own
    work is a process of git's room, read when the answer needs it), and background work is the
    application's (hansard.app)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "hansard"
    found = [str(p.relative_to(root)) for d in ("answers", "trace") for p in sorted((root / d).rglob("*.py"))
             if any(w in p.read_text(encoding="utf-8") for w in ("import threading", "Thread(", "import subprocess"))]
    assert found == []
