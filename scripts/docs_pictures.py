"""Make the docs' pictures from real offline runs: the report's plots and screenshots of the game viewer.

It plays games with the built-in players (`local/smart` and `local/cautious`, Watson, 2-5 players, seeds 1-3 of the
standard set: no key, no network), writes their report and the viewer's static site with the harness's own commands,
and has Debian's chromium (through Playwright, as the browser tests drive it) take the screenshots. The pictures go
to docs/assets/, with docs/assets/pictures.json naming each file's SHA-256 and the command that made it:
tests/project/test_docs.py refuses a picture in the docs that this script did not make.

    .venv/bin/python scripts/docs_pictures.py            # remake docs/assets/ (a few minutes on two cores)
    .venv/bin/python scripts/docs_pictures.py --quick    # a game per model, into a temporary folder: the whole path
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "docs" / "assets"
MANIFEST = "pictures.json"
CHROMIUM = Path(os.environ.get("HANABI_EVAL_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]
# the report's plots the docs show, under the names the report gives them
PLOTS = ("scores_fireworks.png", "distributions.png", "heatmap.png")
SHOTS = ("viewer-run.png", "viewer-game.png")


TURN = 45  # the move the game page's screenshot shows; moves from it on get engine values


def hanabi_eval(work: Path, *args: str) -> None:
    """A command run in `work` with relative paths, as a user would type it (the pages show the paths given)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "harness.cli", *args]
    subprocess.run(command, cwd=work, env=env, check=True, stdout=subprocess.DEVNULL)


def play(work: Path, quick: bool) -> None:
    models = ["local/smart", "local/cautious"]  # two models: the heatmap compares at least two cells
    players = ["3"] if quick else ["2", "3", "4", "5"]
    seeds = "1" if quick else "1,2,3"
    for model in models:
        hanabi_eval(work, "run", "--model", model, "--scaffold", "watson", "--players", *players, "--seeds", seeds,
                    "--out", "results", "--no-progress", "--concurrency", "4")
    if not quick:  # engine values of the smart run's later moves: the viewer's regret, the report's calibration
        (smart,) = (work / "results").glob("local-smart-*")
        hanabi_eval(work, "values", f"results/{smart.name}", "--rollouts", "2", "--from-turn", str(TURN),
                    "--workers", "2", "--no-progress")


def screenshots(site: Path, out: Path) -> list[str]:
    from playwright.sync_api import sync_playwright

    (run_page,) = [p for p in site.rglob("index.html") if p.parent != site][:1] or [site / "index.html"]
    games = sorted(site.rglob("games/*.html"))
    # a 3-player game of the smart run, whose later moves have engine values (the quick run has one game)
    game = next((g for g in games if "3p-" in g.name and "local-smart" in str(g)), games[0])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(run_page.as_uri())
        page.screenshot(path=str(out / SHOTS[0]))
        page.goto(game.as_uri() + f"#t{TURN}")
        page.wait_for_load_state("load")
        page.screenshot(path=str(out / SHOTS[1]))
        browser.close()
    return [f"{SHOTS[0]}: {run_page.relative_to(site)}", f"{SHOTS[1]}: {game.relative_to(site)}#t{TURN}"]


def make(out: Path, quick: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        reports = work / "reports"
        play(work, quick)
        hanabi_eval(work, "view", "results", "--out", "reports/viewer")  # first, so that the report links into it
        hanabi_eval(work, "report", "results", "--out", "reports/all")
        out.mkdir(parents=True, exist_ok=True)
        for name in PLOTS:
            shutil.copyfile(reports / "all" / "figures" / name, out / name)
        pages = screenshots(reports / "viewer", out)
    files = {name: hashlib.sha256((out / name).read_bytes()).hexdigest() for name in (*PLOTS, *SHOTS)}
    manifest = {
        "made_by": "scripts/docs_pictures.py" + (" --quick" if quick else ""),
        "runs": "local/smart and local/cautious, watson, 2-5 players, seeds 1,2,3" if not quick else "one game each",
        "screenshots_of": pages,
        "sha256": files,
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="one game, written to --out (a temporary folder)")
    parser.add_argument("--out", type=Path, help=f"where the pictures go (default: {ASSETS.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    if not CHROMIUM.is_file():
        parser.exit(2, f"docs_pictures.py: no chromium at {CHROMIUM}: apt-get install -y chromium\n")
    out = args.out or (Path(tempfile.mkdtemp()) if args.quick else ASSETS)
    manifest = make(out, args.quick)
    print(f"wrote {len(manifest['sha256'])} pictures and {MANIFEST} to {out}")  # type: ignore[arg-type]
    return 0


if __name__ == "__main__":
    sys.exit(main())
