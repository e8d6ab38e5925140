"""The README's screenshots of `hansard ui` (docs/img/ui-*.png), taken by headless Chromium on
`hansard demo`: the repository page, a file with the conversation of an agent's line open beside
it (opened by a click, as a person would), and a session at the message that wrote that line.

    python scripts/ui_screenshots.py [--out docs/img] [--width 1280] [--height 800]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(ROOT / "docs" / "img"))
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=800)
    a = ap.parse_args()
    from tests import ui_server
    from tests.webdriver import Browser

    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("HANSARD_")}
        env.update(PYTHONPATH=str(ROOT), HOME=str(Path(tmp) / "outside"), TZ="UTC")
        demo = Path(tmp) / "hansard-demo"
        subprocess.run([sys.executable, "-m", "hansard", "demo", str(demo)], cwd=tmp, env=env, check=True,
                       capture_output=True)
        env.update(ui_server._wrapper_env(demo))
        s = ui_server.start(demo / "upload-service", env)
        b = Browser(a.width, a.height)
        try:
            b.get(s.url("/"))
            b.wait(lambda: b.find_all("#stats.loaded svg.chart"), "the charts")
            (out / "ui-repository.png").write_bytes(b.screenshot())
            b.get(s.url("/file/app/retry.py"))
            b.click(b.find("tr#L10 td.c"))
            b.wait(lambda: b.js("return document.getElementById('conv').getAttribute('data-line')") == "10",
                   "the conversation of line 10")
            (out / "ui-file.png").write_bytes(b.screenshot())
            b.get(s.url("/session/4f0f2c6e?around=3"))
            b.wait(lambda: b.find_all("#alive.loaded li"), "the session's lines alive")
            (out / "ui-session.png").write_bytes(b.screenshot())
        finally:
            b.quit()
            ui_server.stop(s)
    for name in ("ui-repository.png", "ui-file.png", "ui-session.png"):
        print(out / name)


if __name__ == "__main__":
    main()
