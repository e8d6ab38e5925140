"""Write docs/commands.md, and the JSON Schema of each result a command publishes
(docs/<command>.schema.json), from the commands' declarations (hansard/app/commands.py).

    python scripts/commands_doc.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> None:
    import json

    from hansard.app import commands, declare

    (ROOT / "docs" / "commands.md").write_text(declare.document(list(commands.COMMANDS.values())))
    for cmd in commands.COMMANDS.values():
        if cmd.schema is not None:
            (ROOT / declare.schema_path(cmd)).write_text(json.dumps(declare.result_schema(cmd), indent=2) + "\n")


if __name__ == "__main__":
    main()
