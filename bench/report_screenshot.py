"""Look at a run's report in a real browser: headless Chromium screenshots of report.html, and the
tool graphs' pictures, with a check that nothing runs off a 1,280-px page.

    python bench/report_screenshot.py RUN_DIR/report.html [--graph ENV_DIR ...] [--out /tmp/report-shots]

Writes OUT/report-top.png (1280 x 2000, the first screen), OUT/report-full.png (the whole page
as it opens), OUT/report-transcripts.png (every transcript unfolded) and OUT/graph-<env>.png per
``--graph``. Chromium is found as
``$CHROMIUM``, ``chromium``, ``chromium-browser`` or ``google-chrome``; without one the script
stops with an error saying how to install it (Debian: ``apt-get install -y chromium``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from PIL import Image

from envfactory.ir.env import EnvSpec
from envfactory.tasks.graph import tool_graph
from envfactory.tasks.graph_picture import draw

WIDTH = 1280
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--hide-scrollbars"]  # fmt: skip


def chromium() -> str:
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name) if name else None
        if found:
            return found
    sys.exit("no Chromium found ($CHROMIUM, chromium, chromium-browser, google-chrome): install it "
             "(Debian: apt-get install -y chromium) or point $CHROMIUM at one")  # fmt: skip


def screenshot(browser: str, page: Path, out: Path, height: int) -> Path:
    with tempfile.TemporaryDirectory() as profile:
        done = subprocess.run(
            [browser, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={out}", f"--window-size={WIDTH},{height}",
             page.resolve().as_uri()],
            capture_output=True, text=True, timeout=180,
        )  # fmt: skip
    if done.returncode != 0 or not out.is_file():
        sys.exit(f"chromium failed on {page} ({done.returncode}): {done.stderr.strip()[-600:]}")
    return out


def content_box(png: Path) -> tuple[int, int]:
    """(rightmost, lowest) pixel that is not the page's white background."""
    image = Image.open(png).convert("L")
    box = Image.eval(image, lambda v: 255 if v < 250 else 0).getbbox()
    return (box[2], box[3]) if box else (0, 0)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("report", type=Path)
    parser.add_argument("--graph", type=Path, action="append", default=[], help="an environment folder")
    parser.add_argument("--out", type=Path, default=Path("/tmp/report-shots"))
    parser.add_argument("--full-height", type=int, default=9000)
    args = parser.parse_args()
    if not args.report.is_file():
        sys.exit(f"{args.report}: no such report (run `envfactory demo` or `envfactory report RUN_DIR`)")
    args.out.mkdir(parents=True, exist_ok=True)
    browser = chromium()
    top = screenshot(browser, args.report, args.out / "report-top.png", 2000)
    full = screenshot(browser, args.report, args.out / "report-full.png", args.full_height)
    unfolded = args.out / "report-unfolded.html"  # every transcript and long output open
    unfolded.write_text(args.report.read_text(encoding="utf-8").replace("<details", "<details open"), "utf-8")
    opened = screenshot(browser, unfolded, args.out / "report-transcripts.png", args.full_height * 2)
    (right, bottom), (right_opened, bottom_opened) = content_box(full), content_box(opened)
    right = max(right, right_opened)
    print(f"{top}\n{full}\n{opened} (transcripts unfolded): content {right} px wide of {WIDTH}, {bottom} px tall")
    if bottom >= args.full_height - 1 or bottom_opened >= 2 * args.full_height - 1:
        print("  a page is taller than its screenshot: pass a larger --full-height to see all of it")
    for env_dir in args.graph:
        spec = EnvSpec.load(env_dir)
        graph = tool_graph(spec)
        picture = draw(graph, args.out / f"graph-{spec.name}.png")
        with Image.open(picture) as image:
            print(f"{picture}: {graph.number_of_edges()} edges, {image.width} x {image.height} px")
    if right >= WIDTH - 8:  # the body keeps a margin: content reaching the edge ran off the page
        print(f"FAIL: the report's content reaches the right edge of a {WIDTH}-px page")
        return 1
    print(f"ok: everything fits a {WIDTH}-px page")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
