"""Write docs/commands.md from the commands' declarations (hansard/app/commands.py).

    python scripts/commands_doc.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main() -> None:
    from hansard.app import commands, declare

    (ROOT / "docs" / "commands.md").write_text(declare.document(list(commands.COMMANDS.values())))


if __name__ == "__main__":
    main()
