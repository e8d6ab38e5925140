"""A repository whose history the code_history and work_context tools must tell exactly.

Sessions, in order (all transcripts in the real formats, written by fixtures_repos.writers):

* S1 Claude Code: edits two functions of src/shop/cart.py (``add_item`` and ``total``), keeps a
  TodoWrite list that gains, completes and drops steps, runs pytest that fails, fixes the code,
  runs it again (passes), then commits through the shell (``git commit`` output with the SHA).
* S1b Claude Code (open at the same time): adds a test; S1's shell commit takes it too, so the
  two conversations share a commit. S1 also spawns a subagent that only reads.
* S2 Codex: renames ``total`` to ``cart_total`` with apply_patch, runs ``go test`` and ``cargo
  test`` style checks that fail then pass (real output formats), keeps an update_plan.
* S3 Claude Code: moves method ``Cart.clear`` to the top of the class, runs ``npm test`` (jest
  output) failing then passing; its commit is later reverted with ``git revert``.
* S4 Claude Code: undoes S1's edit to ``add_item`` (removes the lines S1 added) and commits it
  through the shell; a human then amends that commit, so the SHA the session printed is gone.
* src/shop/checkout.py imports cart (``from shop.cart import add_item``); tests/test_cart.py too.

The ``World`` records every id the tests assert: session ids, tool call ids, commit SHAs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fixtures_repos.gitrepo import GitRepo
from fixtures_repos.writers import ClaudeWriter, Clock, CodexWriter, Update, _dumps

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

CART_V0 = '''"""A shopping cart."""


def add_item(cart, sku, qty):
    cart.setdefault(sku, 0)
    cart[sku] += qty


def total(cart, prices):
    return sum(prices[s] * q for s, q in cart.items())


class Cart:
    def __init__(self):
        self.items = {}

    def add(self, sku, qty=1):
        add_item(self.items, sku, qty)

    def clear(self):
        self.items.clear()
'''

CHECKOUT = '''from shop.cart import add_item, total


def checkout(cart, prices):
    return total(cart, prices)
'''

PYTEST_FAIL = """============================= test session starts ==============================
platform linux -- Python 3.12.1, pytest-9.0.3, pluggy-1.6.0
rootdir: /repo
collected 3 items

tests/test_cart.py .F.                                                   [100%]

=================================== FAILURES ===================================
____________________________ test_add_item_rejects_zero ____________________________

    def test_add_item_rejects_zero():
>       with pytest.raises(ValueError):
E       Failed: DID NOT RAISE <class 'ValueError'>

tests/test_cart.py:14: Failed
=========================== short test summary info ============================
FAILED tests/test_cart.py::test_add_item_rejects_zero - Failed: DID NOT RAISE <class 'ValueError'>
========================= 1 failed, 2 passed in 0.04s ==========================
"""
PYTEST_PASS = """============================= test session starts ==============================
platform linux -- Python 3.12.1, pytest-9.0.3, pluggy-1.6.0
rootdir: /repo
collected 3 items

tests/test_cart.py ...                                                   [100%]

============================== 3 passed in 0.03s ===============================
"""
GO_FAIL = """--- FAIL: TestCartTotal (0.00s)
    cart_test.go:12: cart_total() = 3, want 4
FAIL
FAIL\texample.com/shop/cart\t0.004s
FAIL
"""
GO_PASS = "ok  \texample.com/shop/cart\t0.003s\n"
CARGO_FAIL = """
running 2 tests
test tests::totals_are_summed ... FAILED
test tests::empty_cart_is_zero ... ok

failures:

---- tests::totals_are_summed stdout ----
thread 'tests::totals_are_summed' panicked at src/lib.rs:20:9:
assertion `left == right` failed
  left: 3
 right: 4

failures:
    tests::totals_are_summed

test result: FAILED. 1 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
"""
CARGO_PASS = """
running 2 tests
test tests::totals_are_summed ... ok
test tests::empty_cart_is_zero ... ok

test result: ok. 2 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
"""
JEST_FAIL = """
> shop@1.0.0 test
> jest

FAIL src/cart.test.js
  Cart
    ✓ adds items (2 ms)
    ✕ clears items (3 ms)

  ● Cart › clears items

    expect(received).toEqual(expected) // deep equality

    Expected: {}
    Received: {"a": 1}

Test Suites: 1 failed, 1 total
Tests:       1 failed, 1 passed, 2 total
Snapshots:   0 total
Time:        0.412 s
Ran all test suites.
"""
JEST_PASS = """
> shop@1.0.0 test
> jest

PASS src/cart.test.js
  Cart
    ✓ adds items (2 ms)
    ✓ clears items (1 ms)

Test Suites: 1 passed, 1 total
Tests:       2 passed, 2 total
Snapshots:   0 total
Time:        0.388 s
Ran all test suites.
"""


@dataclass
class World:
    repo: Path
    homes: dict[str, Path]
    sessions: dict[str, str] = field(default_factory=dict)  # S1..S4 -> session id
    calls: dict[str, str] = field(default_factory=dict)  # name -> tool call id
    commits: dict[str, str] = field(default_factory=dict)  # name -> sha


def claude_todo(w: ClaudeWriter, todos: list[tuple[str, str]]) -> str:
    """TodoWrite as Claude Code writes it: input todos, result with old and new lists."""
    new = [{"content": c, "status": s, "activeForm": c} for c, s in todos]
    old = getattr(w, "_todos", [])
    w._todos = new  # type: ignore[attr-defined]

    def run(_tid: str) -> tuple[Any, Any, bool]:
        w._pending_ts = w._ts()
        return ({"oldTodos": old, "newTodos": new},
                "Todos have been modified successfully. Ensure that you continue to use the todo list to track your "
                "progress. Please proceed with the current tasks if applicable", False)

    return w._tool("TodoWrite", {"todos": new}, run)


def claude_bash(w: ClaudeWriter, command: str, output: str, exit_code: int, run: Any = None) -> str:
    """Bash as Claude Code records it: a failing command is an error result "Exit code N"."""
    def go(_tid: str) -> tuple[Any, Any, bool]:
        w._pending_ts = w._ts()
        if run is not None:
            run()
        if exit_code:
            text = f"Exit code {exit_code}\n{output}"
            return f"Error: {text}", text, True
        return {"stdout": output, "stderr": "", "interrupted": False, "isImage": False}, output, False

    return w._tool("Bash", {"command": command, "description": "Run " + command.split()[0]}, go)


def codex_plan(w: CodexWriter, plan: list[tuple[str, str]]) -> str:
    call_id = "call_" + w.ids.b62(24)
    w._emit("response_item", {"type": "function_call", "name": "update_plan", "arguments": _dumps(
        {"plan": [{"step": s, "status": st} for s, st in plan]}), "call_id": call_id}, w._ts())
    w._emit("response_item", {"type": "function_call_output", "call_id": call_id, "output": "Plan updated"}, w._ts())
    return call_id


def build(root: Path) -> World:
    repo = GitRepo.init(root / "shop")
    homes = {"CLAUDE_CONFIG_DIR": root / "home" / ".claude", "CODEX_HOME": root / "home" / ".codex",
             "GEMINI_CLI_HOME": root / "home" / "gemini"}
    w = World(repo.path, homes)
    clock = Clock(T0)
    cart = repo.abspath("src/shop/cart.py")
    repo.write("src/shop/__init__.py", "")
    repo.write("src/shop/cart.py", CART_V0)
    repo.write("src/shop/checkout.py", CHECKOUT)
    repo.write("tests/test_cart.py",
               "from shop.cart import Cart, add_item\n\n\ndef test_cart():\n    assert Cart().items == {}\n")
    w.commits["initial"] = repo.commit("Initial shop", clock.next_second())

    # S1: two functions, todos, failing then passing pytest, commit through the shell.
    s1 = ClaudeWriter(homes["CLAUDE_CONFIG_DIR"], repo.path, "51a1c0de-0000-4000-8000-000000000001", clock)
    w.sessions["S1"] = s1.session_id
    s1.prompt("reject zero quantities in add_item and round the total to cents")
    w.calls["S1.todo1"] = claude_todo(s1, [("Validate qty in add_item", "in_progress"), ("Round total", "pending"),
                                           ("Update the README", "pending")])
    w.calls["S1.add_item"] = s1.edit(cart, "    cart.setdefault(sku, 0)\n",
                                     "    if qty <= 0:\n        raise ValueError(\"quantity must be positive\")\n"
                                     "    cart.setdefault(sku, 0)\n")
    w.calls["S1.pytest_fail"] = claude_bash(s1, "python -m pytest -q tests/test_cart.py", PYTEST_FAIL, 1)
    w.calls["S1.total"] = s1.edit(cart, "    return sum(prices[s] * q for s, q in cart.items())\n",
                                  "    return round(sum(prices[s] * q for s, q in cart.items()), 2)\n")
    # S1b, a second conversation open at the same time, adds a test; S1's commit takes both.
    s1b = ClaudeWriter(homes["CLAUDE_CONFIG_DIR"], repo.path, "51b1c0de-0000-4000-8000-00000000001b", clock)
    w.sessions["S1b"] = s1b.session_id
    s1b.prompt("add a test that zero quantities are rejected")
    w.calls["S1b.test"] = s1b.edit(repo.abspath("tests/test_cart.py"), "from shop.cart import Cart, add_item\n",
                                   "import pytest\n\nfrom shop.cart import Cart, add_item\n\n\n"
                                   "def test_add_item_rejects_zero():\n    with pytest.raises(ValueError):\n"
                                   "        add_item({}, \"a\", 0)\n")
    with s1.task("Survey callers", "List every caller of add_item and total") as sub:
        w.sessions["S1.sub"] = sub.attributed_session
        sub.read(repo.abspath("src/shop/checkout.py"))
        sub.say("checkout.py calls add_item and total.")
    w.calls["S1.pytest_pass"] = claude_bash(s1, "python -m pytest -q tests/test_cart.py", PYTEST_PASS, 0)
    w.calls["S1.todo2"] = claude_todo(s1, [("Validate qty in add_item", "completed"), ("Round total", "completed")])

    def commit_s1() -> None:
        w.commits["S1"] = repo.commit("Validate quantities and round totals", clock.next_second())

    w.calls["S1.commit"] = claude_bash(s1, "git commit -am 'Validate quantities and round totals'", "", 0, commit_s1)
    # Rewrite the Bash result's output now that the SHA is known (git prints it on commit).
    _patch_last_output(s1.path, f"[main {w.commits['S1'][:7]}] Validate quantities and round totals\n"
                                " 1 file changed, 3 insertions(+), 1 deletion(-)\n")

    # S2: Codex renames total -> cart_total, go/cargo checks fail then pass, plan.
    clock.advance(600)
    s2 = CodexWriter(homes["CODEX_HOME"], repo.path, "019cf0a1-2b3c-7d4e-8f50-000000000002", clock,
                     git_commit=w.commits["S1"])
    w.sessions["S2"] = s2.session_id
    s2.prompt("rename total to cart_total everywhere")
    w.calls["S2.plan1"] = codex_plan(s2, [("Rename in cart.py", "in_progress"), ("Update callers", "pending"),
                                          ("Port the Go client", "pending")])
    w.calls["S2.rename"] = s2.apply_patch(
        Update(cart, ("def total(cart, prices):\n", "def cart_total(cart, prices):\n")),
        Update(repo.abspath("src/shop/checkout.py"), ("from shop.cart import add_item, total\n",
                                                      "from shop.cart import add_item, cart_total\n"),
               ("    return total(cart, prices)\n", "    return cart_total(cart, prices)\n")))
    w.calls["S2.go_fail"] = s2.exec("go test ./cart/...", output=GO_FAIL, exit_code=1)
    w.calls["S2.cargo_fail"] = s2.exec("cargo test", output=CARGO_FAIL, exit_code=101)
    w.calls["S2.go_pass"] = s2.exec("go test ./cart/...", output=GO_PASS, exit_code=0)
    w.calls["S2.cargo_pass"] = s2.exec("cargo test", output=CARGO_PASS, exit_code=0)
    w.calls["S2.plan2"] = codex_plan(s2, [("Rename in cart.py", "completed"), ("Update callers", "completed")])
    s2.end_turn("Renamed.")
    w.commits["S2"] = repo.commit("Rename total to cart_total", clock.next_second())

    # S3: moves Cart.clear above Cart.add; jest via npm test fails then passes; reverted later.
    clock.advance(600)
    s3 = ClaudeWriter(homes["CLAUDE_CONFIG_DIR"], repo.path, "53a3c0de-0000-4000-8000-000000000003", clock)
    w.sessions["S3"] = s3.session_id
    s3.prompt("put clear() first in Cart and make it reset to a new dict")
    w.calls["S3.move"] = s3.edit(
        cart,
        "    def add(self, sku, qty=1):\n        add_item(self.items, sku, qty)\n\n    def clear(self):\n"
        "        self.items.clear()\n",
        "    def clear(self):\n        self.items = {}  # a fresh dict, not a shared one\n\n"
        "    def add(self, sku, qty=1):\n        add_item(self.items, sku, qty)\n")
    w.calls["S3.jest_fail"] = claude_bash(s3, "npm test", JEST_FAIL, 1)
    w.calls["S3.jest_pass"] = claude_bash(s3, "npm test", JEST_PASS, 0)
    w.commits["S3"] = repo.commit("Clear carts with a fresh dict", clock.next_second())
    clock.advance(300)
    w.commits["revert_S3"] = repo.revert(w.commits["S3"], clock.next_second())

    # S4: undoes S1's validation in add_item.
    clock.advance(600)
    s4 = ClaudeWriter(homes["CLAUDE_CONFIG_DIR"], repo.path, "54a4c0de-0000-4000-8000-000000000004", clock)
    w.sessions["S4"] = s4.session_id
    s4.prompt("drop the quantity check again, callers validate")
    w.calls["S4.undo"] = s4.edit(cart, "    if qty <= 0:\n        raise ValueError(\"quantity must be positive\")\n", "")

    def commit_s4() -> None:
        w.commits["S4_printed"] = repo.commit("Let callers validate quantities", clock.next_second())

    w.calls["S4.commit"] = claude_bash(s4, "git commit -am 'Let callers validate quantities'", "", 0, commit_s4)
    _patch_last_output(s4.path, f"[main {w.commits['S4_printed'][:7]}] Let callers validate quantities\n"
                                " 1 file changed, 2 deletions(-)\n")
    # The human rewrites that commit afterwards: the SHA the session printed is no longer on any branch.
    w.commits["S4"] = repo.amend(clock.next_second(), message="Let callers validate quantities (reviewed)")
    return w


def _patch_last_output(path: Path, output: str) -> None:
    """Set the stdout of the last Bash result in a Claude transcript (written before the
    commit existed, like the real tool, which learns the SHA only from git's output)."""
    import json

    lines = path.read_text().splitlines()
    for i in range(len(lines) - 1, -1, -1):
        rec = json.loads(lines[i])
        tur = rec.get("toolUseResult")
        if isinstance(tur, dict) and "stdout" in tur:
            tur["stdout"] = output
            rec["message"]["content"][0]["content"] = output
            lines[i] = _dumps(rec)
            break
    path.write_text("\n".join(lines) + "\n")


