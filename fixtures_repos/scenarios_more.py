"""Attribution scenarios for the agents added after the first three (Cursor, OpenCode, Aider,
Copilot CLI) and for code pasted from a web chat, registered in ``SCENARIOS`` beside the others
and written the same way (``fixtures_repos.scenarios``: real repositories, transcripts in the
real formats, exact expectations for every line).

``pasted`` lines: a person committed, with no agent's edit behind them, a run of at least three
consecutive non-trivial lines equal (whitespace aside, in order) to lines of one code block of
an assistant message of an imported web chat, sent before the commit; such lines name the chat
and no tool call.
"""

from __future__ import annotations

from pathlib import Path

from fixtures_repos.scenarios import Build, Scenario, Seg, scenario, src
from fixtures_repos.writers import det_uuid4
from fixtures_repos.writers_more import AiderWriter, ChatGPTExport, CopilotWriter, CursorWriter, OpenCodeWriter

AIDER = ("Dana Developer (aider)", "dana@example.com")


def home(b: Build, var: str, rel: str) -> Path:
    """An agent home for this scenario, indexed through its environment variable."""
    p = b.base / "home" / rel
    p.mkdir(parents=True, exist_ok=True)
    b.homes[var] = p
    return p


def cursor(b: Build, title: str, *, wait: float = 30) -> CursorWriter:
    """A Cursor conversation in this scenario's editor folder (its homes made), ``wait`` seconds on."""
    user = home(b, "CURSOR_CONFIG_DIR", "cursor-user")
    home(b, "CURSOR_HOME", ".cursor")
    b.later(wait)
    return CursorWriter(user, det_uuid4(b.name, "cursor", 1), b.clock, ledger=b.ledger, title=title)


def pasted(session_id: str, commit: str, n: int = 1) -> Seg:
    return [("pasted", session_id, None, commit)] * n


CART = src('''
    def cart_total(prices):
        total = 0
        for price in prices:
            total += price
        return total


    def item_count(cart):
        return sum(cart.values())
''')


@scenario
def cursor_edit(b: Build) -> Scenario:
    """Cursor's editor agent (state.vscdb) edits a human's file twice; the user rejects a third
    edit, then types one of its lines himself."""
    r = b.init()
    r.write("src/cart.py", CART)
    c0 = b.commit(r, "Cart helpers")
    cu = cursor(b, "Round cart totals")
    cu.prompt("round the cart total to cents and reject negative prices")
    path = r.path / "src/cart.py"
    cu.say("I'll validate prices and round the total.")
    t1 = cu.search_replace(path, "        total += price\n",
                           "        if price < 0:\n            raise ValueError(f\"negative price: {price}\")\n"
                           "        total += price\n")
    t2 = cu.search_replace(path, "    return total\n", "    return round(total, 2)\n")
    cu.search_replace(path, "    return sum(cart.values())\n",
                      "    return sum(qty for qty in cart.values() if qty > 0)\n", reject=True)
    cu.say("Done: prices are validated and the total is rounded.")
    b.later(20)
    r.replace("src/cart.py", "    return sum(cart.values())\n", "    return sum(qty for qty in cart.values() if qty > 0)\n")
    c1 = b.commit(r, "Validate prices, round totals, count positive quantities")
    return b.scenario(r, {
        "src/cart.py": b.expect(r, "src/cart.py", b.human(c0, 3), b.agent(t1, c1, 2), b.human(c0),
                                b.agent(t2, c1), b.human(c0, 3), b.human(c1)),
    }, notes="The rejected search_replace proposed item_count's new line; the person typed it: human.")


@scenario
def opencode_edit(b: Build) -> Scenario:
    """OpenCode (storage/ JSON files) edits a human's file; a person adds a line after it."""
    r = b.init()
    r.write("src/cart.py", CART)
    c0 = b.commit(r, "Cart helpers")
    data = home(b, "OPENCODE_DATA_DIR", "opencode-data")
    b.later(30)
    oc = OpenCodeWriter(data, r.path, b.clock, b.name, ledger=b.ledger)
    oc.prompt("item_count should ignore zero and negative quantities")
    t1 = oc.edit(r.path / "src/cart.py", "    return sum(cart.values())\n",
                 "    counted = [qty for qty in cart.values() if qty > 0]\n    return sum(counted)\n")
    oc.say("item_count now skips quantities below one.")
    b.later(20)
    r.replace("src/cart.py", "def cart_total(prices):\n", "def cart_total(prices):\n    \"\"\"Sum of prices.\"\"\"\n")
    c1 = b.commit(r, "Count positive quantities only")
    return b.scenario(r, {
        "src/cart.py": b.expect(r, "src/cart.py", b.human(c0), b.human(c1), b.human(c0, 7), b.agent(t1, c1, 2)),
    })


@scenario
def copilot_edit(b: Build) -> Scenario:
    """GitHub Copilot CLI (events.jsonl) edits a human's file."""
    r = b.init()
    r.write("src/cart.py", CART)
    c0 = b.commit(r, "Cart helpers")
    gh = home(b, "COPILOT_HOME", ".copilot")
    b.later(30)
    cp = CopilotWriter(gh, r.path, det_uuid4(b.name, "copilot", 1), b.clock, ledger=b.ledger)
    cp.prompt("cart_total should start from a Decimal zero")
    t1 = cp.edit(r.path / "src/cart.py", "def cart_total(prices):\n    total = 0\n",
                 "def cart_total(prices):\n    total = Decimal(\"0\")\n")
    t2 = cp.edit(r.path / "src/cart.py", "def cart_total", "from decimal import Decimal\n\n\ndef cart_total")
    cp.say("cart_total now sums Decimals.")
    c1 = b.commit(r, "Decimal totals")
    return b.scenario(r, {
        "src/cart.py": b.expect(r, "src/cart.py", b.agent(t2, c1, 3), b.human(c0), b.agent(t1, c1), b.human(c0, 7)),
    }, notes="The two blank lines after the import inherit from t2, which added them with it.")


@scenario
def aider_own_commits(b: Build) -> Scenario:
    """Aider edits and commits its own edits; a person had committed one of the same lines
    during the session, before aider wrote it. Aider's log dates every item by the session's
    start, so only its own commits show that the person's line came first."""
    r = b.init()
    r.write(".gitignore", ".aider*\n")
    r.write("src/client.py", src('''
        import requests


        def get_user(session, user_id):
            response = session.get(f"/users/{user_id}")
            return response.json()
    '''))
    c0 = b.commit(r, "Users client")
    ai = AiderWriter(r.path, b.clock, ledger=b.ledger)
    b.homes["AIDER_CHAT_HISTORY_FILE"] = ai.transcript
    ai.prompt("add get_team like get_user, and raise for HTTP errors in both")
    b.later(20)
    # meanwhile, in the editor: the person adds the check to get_user and commits it
    r.replace("src/client.py", "    return response.json()\n", "    response.raise_for_status()\n    return response.json()\n")
    c1 = b.commit(r, "Raise for HTTP errors in get_user")
    b.later(20)
    path = r.path / "src/client.py"
    [t1] = ai.reply("I'll add get_team with the same error check.", (
        path, "    response.raise_for_status()\n    return response.json()\n",
        "    response.raise_for_status()\n    return response.json()\n\n\n"
        "def get_team(session, team_id):\n    response = session.get(f\"/teams/{team_id}\")\n"
        "    response.raise_for_status()\n    return response.json()\n"))
    c2 = b.commit(r, "feat: Add get_team", author=AIDER)
    ai.committed(c2, "feat: Add get_team")
    b.later(60)
    ai.prompt("also add get_project")
    [t2] = ai.reply("Adding get_project.", (
        path, "def get_team(session, team_id):\n",
        "def get_project(session, project_id):\n    response = session.get(f\"/projects/{project_id}\")\n"
        "    response.raise_for_status()\n    return response.json()\n\n\ndef get_team(session, team_id):\n"))
    c3 = b.commit(r, "feat: Add get_project", author=AIDER)
    ai.committed(c3, "feat: Add get_project")
    return b.scenario(r, {
        "src/client.py": b.expect(r, "src/client.py", b.human(c0, 5), b.human(c1), b.human(c0), b.human(c2, 2),
                                  b.agent(t2, c3, 2), b.human(c1), b.human(c0), b.agent(t1, c2, 4), b.human(c1),
                                  b.human(c0)),
    }, notes="""
        `response.raise_for_status()` is c1's, a person's: both aider edits also added that text,
        and aider's log dates them by the session's start (before c1), but aider committed them
        as c2 and c3, after c1, so they came later. git blame -M traces the copies in get_team
        and get_project to c1 (and `return response.json()` to c0): those are the person's too.
        The blank lines before get_project came with c2 in a run with no agent line: human.
    """)


@scenario
def webchat_pasted(b: Build) -> Scenario:
    """A person pastes a function from a ChatGPT answer (imported with `hansard import`) and
    commits it; a lone common line the chat also showed stays human."""
    r = b.init()
    r.write("src/text.py", src('''
        import re


        def words(text):
            return re.findall(r"[a-z0-9]+", text.lower())
    '''))
    c0 = b.commit(r, "Words")
    b.later(60)
    chats = ChatGPTExport(b.clock, seed=b.name)
    answer = src('''
        Here is a slug function:

        ```python
        import re


        def slugify(title: str, max_len: int = 60) -> str:
            words = re.findall(r"[a-z0-9]+", title.lower())
            slug = "-".join(words)
            if len(slug) > max_len:
                slug = slug[:max_len].rsplit("-", 1)[0]
            return slug
        ```

        It keeps ASCII letters and digits only.
    ''')
    cid, _ = chats.conversation("Slugs from titles", [("write a python slugify for blog titles", answer)],
                                regenerated="```python\ndef slugify(t):\n    return t.lower().replace(' ', '-')\n```\n")
    export = chats.write(b.base / "exports" / "conversations.json")
    b.later(120)
    r.write("src/text.py", r.read("src/text.py") + "\n\n" + src('''
        def slugify(title: str, max_len: int = 60) -> str:
            words = re.findall(r"[a-z0-9]+", title.lower())
            slug = "-".join(words)
            if len(slug) > max_len:
                slug = slug[:max_len].rsplit("-", 1)[0]
            return slug
    '''))
    c1 = b.commit(r, "Slugs")
    here = b.claude(r.path)  # an agent session of this repository that wrote nothing: the rest is a person's
    here.prompt("Where is slugify used?")
    here.read(r.path / "src/text.py")
    scn = b.scenario(r, {
        "src/text.py": b.expect(r, "src/text.py", b.human(c0, 5), b.human(c1, 2),
                                pasted(f"chatgpt:{cid}", c1, 6)),
    }, notes="""
        `import re` is in the chat's block too, but a lone line is never a match (and it is c0's).
        The blank lines before slugify are outside the run (a run starts and ends with a match).
    """)
    scn.imports.append(export)
    return scn


@scenario
def webchat_block_an_agent_wrote(b: Build) -> Scenario:
    """A chat showed a function, and then an agent wrote the same function: the agent's edit is
    the evidence, and pasted is only ever for lines no agent wrote."""
    r = b.init()
    r.write("src/text.py", "import re\n")
    c0 = b.commit(r, "Text helpers")
    chats = ChatGPTExport(b.clock, seed=b.name)
    body = src('''
        def words(text: str) -> list[str]:
            found = re.findall(r"[a-z0-9]+", text.lower())
            return [w for w in found if len(w) > 1]
    ''')
    cid, _ = chats.conversation("Words", [("split text into words", f"```python\n{body}```\n")])
    export = chats.write(b.base / "exports" / "conversations.json")
    cc = b.claude(r.path)
    cc.prompt("add words() to src/text.py")
    t1 = cc.edit(r.path / "src/text.py", "import re\n", "import re\n\n\n" + body)
    c1 = b.commit(r, "words()")
    scn = b.scenario(r, {"src/text.py": b.expect(r, "src/text.py", b.human(c0), b.agent(t1, c1, 5))})
    scn.imports.append(export)
    return scn


__all__ = ["cursor_edit", "opencode_edit", "copilot_edit", "aider_own_commits", "webchat_pasted",
           "webchat_block_an_agent_wrote"]
