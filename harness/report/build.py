"""Writes a report folder: report.html (self-contained), report.md, the figures as CSV and JSON tables, each
plot under figures/, and report_manifest.json; whole, then renamed into place, as an export is
(harness/export/writer.py)."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from pathlib import Path

from harness import __version__
from harness.export.writer import check_folder, check_place, check_replaceable, listed_files, write_folder
from harness.report.calibration import flat_calibration
from harness.report.content import ReportContent, build_content
from harness.report.export import write_table
from harness.report.load import load
from harness.report.quality import GameQuality
from harness.report.reliability import flat_reliability
from harness.report.render import render_html, render_markdown
from harness.report.site_links import site_links
from harness.report.wide import flat_wide
from harness.run.store import check_each_game_once, find_runs
from harness.schema.errors import Refused

HTML, MARKDOWN = "report.html", "report.md"
REPORT_MANIFEST = "report_manifest.json"  # what makes a folder a report: the runs, --by and the files written
FIGURES = "figures"
_PNG_URI = "data:image/png;base64,"


def _game_table(content: ReportContent) -> list[dict[str, object]]:
    quality = {
        (q.run_id, q.game_id): q.model_dump(exclude={"run_id", "game_id"}) for q in content.quality_games
    }
    unjudged = dict.fromkeys(k for k in GameQuality.model_fields if k not in ("run_id", "game_id"))
    return [  # every game gets every error kind's column (0 where it had none), so CSV and JSON agree
        {
            **row.model_dump(mode="json"),
            "error_kinds": {kind: row.error_kinds.get(kind, 0) for kind in content.error_kinds},
            **quality.get((row.run_id, row.game_id), unjudged),
        }
        for row in content.games
    ]


def write_tables(content: ReportContent, out: Path) -> list[Path]:
    spent = content.spending
    tables: dict[str, Sequence[object]] = {
        "main_table": flat_wide(content.wide),
        "games": _game_table(content),
        "summary": content.groups,
        "summary_by_players": content.by_players,
        "paired": content.paired.comparisons,
        "paired_by_players": content.paired.by_players,
        "spending": [
            {"level": level, **item.model_dump(), "pricing": item.pricing}
            for level, items in (("run", spent.runs), ("group", spent.groups), ("total", [spent.total]))
            for item in items
        ],
        "reliability": flat_reliability(content.reliability),
        "quality": content.quality,
        "tracking": content.tracking,
        "tracking_by_turn": content.tracking_turns,
        "scaffold_model": content.heat,
        "runs": content.runs,
        "references": content.references,
    }
    optional: dict[str, Sequence[object]] = {
        "crossplay": content.crossplay.by_players if content.crossplay else [],
        "crossplay_matrix": content.crossplay.pooled if content.crossplay else [],
        "best_of_k": content.best_of_k,
        "judge": content.judge,
        "calibration": flat_calibration(content.calibration) if content.calibration_decisions else [],
        "calibration_decisions": content.calibration_decisions,
        "skipped_logs": content.skipped,
    }
    tables.update({name: rows for name, rows in optional.items() if rows})
    written: list[Path] = []
    for name, rows in tables.items():
        written.extend(write_table(out, name, rows))  # type: ignore[arg-type]
    return written


def write_figures(content: ReportContent, out: Path) -> list[Path]:
    """Each plot of the report as figures/<name>.png, the same image the HTML embeds."""
    written = []
    for name, uri in content.plots.model_dump().items():
        if not uri or not uri.startswith(_PNG_URI):
            continue
        folder = out / FIGURES
        folder.mkdir(exist_ok=True)
        path = folder / f"{name}.png"
        path.write_bytes(base64.b64decode(uri[len(_PNG_URI) :]))
        written.append(path)
    return written


def is_report(folder: Path) -> bool:
    """Whether a folder holds a report: its manifest, or both pages of a report written before it had one."""
    return (folder / REPORT_MANIFEST).is_file() or all((folder / name).is_file() for name in (HTML, MARKDOWN))


def check_report_out(out: Path, force: bool, paths: Sequence[Path]) -> list[Path]:
    """Refuse an --out that would overwrite something, before any log is read or anything written: a path through a
    file, one inside or around a run read, a folder of other files, or an earlier report without --force (or with
    files it did not write) (Refused). Returns the run folders `paths` name, each game in only one of them."""
    check_place(out, "report")
    runs = find_runs(paths)
    check_each_game_once(runs)
    if check_folder(out, runs, "report", is_report):
        if not force:
            raise Refused(f"--out {out} already holds a report; pass --force to replace it")
        check_replaceable(out, listed_files(out, REPORT_MANIFEST), "report")
    return runs


def build_report(
    paths: Sequence[Path], out: Path, by: Sequence[str], force: bool = False
) -> tuple[ReportContent, list[Path]]:
    """Read the runs, write the report folder whole (nothing of an earlier report stays beside it); return the
    content and the files written."""
    if len(set(by)) != len(by):
        raise Refused("--by repeats a dimension; list each one once")
    runs = check_report_out(out, force, paths)
    dataset = load(runs, by)
    if not dataset.rows:
        names = ", ".join(r.name for r in dataset.runs)
        if dataset.skipped:
            first = dataset.skipped[0]
            raise Refused(
                f"no readable game log in {names}: {len(dataset.skipped)} could not be read "
                f"(first: {first.path}: {first.problem}); fix or remove them"
            )
        raise Refused(f"no game logs in {names}; nothing to report yet")
    content = build_content(dataset, list(by))

    def fill(folder: Path) -> list[str]:
        (folder / HTML).write_text(render_html(content, site_links(out, content.runs)), encoding="utf-8")
        (folder / MARKDOWN).write_text(render_markdown(content), encoding="utf-8")
        files = [folder / HTML, folder / MARKDOWN, *write_tables(content, folder), *write_figures(content, folder)]
        names = [path.relative_to(folder).as_posix() for path in files]
        manifest = {
            "kind": "hanabi-eval report",
            "harness_version": __version__,
            "runs": [str(path) for path in paths],
            "by": list(by),
            "files": names,
        }
        (folder / REPORT_MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
        return names

    return content, [out / name for name in write_folder(out, fill)]
