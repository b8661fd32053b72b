"""The docs cannot rot: every command and option of the command line is on its page and every option the docs
name exists, every `hanabi-eval` command in a shell block parses, the generated pages (each scaffold's prompts, the
export columns, the log's fields) are what the code makes now, the report page names every table and plot, and every
picture was made by scripts/docs_pictures.py. (test_docs_site.py builds the site and opens it in chromium.)"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from harness.cli.main import build_parser
from tests.helpers import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"
# Every Markdown file of the manual: the README, the pages, and the files the pages include.
INCLUDED = [ROOT / "DESIGN.md", ROOT / "BENCHMARKS.md"]
MAX_README_LINES = 200

# Each command's page: every option of the command's --help must be named there.
COMMAND_PAGES = {
    "run": "running.md",
    "play": "play.md",
    "resume": "reliability.md",
    "runs": "reliability.md",
    "scaffolds": "scaffolds/index.md",
    "export": "exports.md",
    "report": "report.md",
    "judge": "judge.md",
    "values": "values.md",
    "view": "viewer.md",
    "import-inspect": "inspect.md",
}
# Options the docs name that belong to other programs than hanabi-eval, by program. The options of the scripts in
# bench/, scripts/ and examples/ are read from their source instead.
OTHER_PROGRAMS = {
    "setup.sh": {"--no-demo"},
    "scripts/chromium.sh": {"--required"},
    "pip": {"--no-deps", "--upgrade", "--quiet"},
    "mkdocs": {"--strict"},
    "ray start": {"--head", "--port", "--address", "--num-cpus"},
    "inspect eval": {
        "--model", "--max-connections", "--max-retries", "--timeout", "--attempt-timeout", "--max-tokens",
        "--temperature", "--cache", "--epochs", "--max-samples", "--fail-on-error", "--retry-on-error",
        "--model-base-url",
    },
    "hanabi-eval": {"--version", "--help"},
    "perf record": {"--call-graph"},
    "pytest": {"--durations"},
}
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*")


def pages() -> list[Path]:
    """The hand-written pages (the generated scaffold pages hold prompts, whose text is the templates')."""
    generated = {p for p in (DOCS / "scaffolds").glob("*.md") if p.name != "index.md"}
    return [p for p in sorted(DOCS.rglob("*.md")) if p not in generated]


def manual() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in [README, *pages(), *INCLUDED]}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(sub.choices)


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings if s.startswith("--") and s != "--help"}


def script_options() -> set[str]:
    """The options the repository's own scripts define (bench/, scripts/, examples/)."""
    found: set[str] = set()
    for path in [*ROOT.glob("bench/*.py"), *ROOT.glob("scripts/*.py"), *ROOT.glob("examples/*.py")]:
        found |= set(re.findall(r"add_argument\(\s*\"(--[a-z0-9-]+)\"", path.read_text(encoding="utf-8")))
    return found


# ---- the README ---------------------------------------------------------------------------------------------------
def test_the_readme_is_short_and_keeps_the_quick_start() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_README_LINES
    assert "./setup.sh                       # creates .venv" in text  # the quick start's two commands, as CI runs
    assert "\n.venv/bin/python -m pytest       # runs the test suite\n" in text
    assert ".venv/bin/mkdocs serve" in text  # where the docs are


def test_the_readme_names_every_command_with_a_link_to_its_page() -> None:
    text = README.read_text(encoding="utf-8")
    for command, page in COMMAND_PAGES.items():
        (row,) = [line for line in text.splitlines() if line.startswith(f"| `hanabi-eval {command}` |")]
        assert f"(docs/{page}" in row, f"the README's line for {command} does not link to docs/{page}"


# ---- commands and options -----------------------------------------------------------------------------------------
def test_every_command_and_every_option_of_its_help_is_on_its_page() -> None:
    commands = subcommands()
    assert set(commands) == set(COMMAND_PAGES), "a command was added or removed: give it a page in COMMAND_PAGES"
    missing = []
    for command, parser in commands.items():
        text = (DOCS / COMMAND_PAGES[command]).read_text(encoding="utf-8")
        if f"hanabi-eval {command}" not in text:
            missing.append(f"docs/{COMMAND_PAGES[command]} never shows `hanabi-eval {command}`")
        named = set(OPTION.findall(text))
        missing += [
            f"docs/{COMMAND_PAGES[command]} does not name {option} of `hanabi-eval {command}`"
            for option in sorted(options_of(parser) - named)
        ]
    assert not missing, "\n".join(missing)


def test_every_options_value_in_help_is_a_word_not_a_field_path() -> None:
    """`--provider-retries N`, not `--provider-retries RETRY.PROVIDER_RETRIES`."""
    shown = {
        f"hanabi-eval {command} {option} {value}"
        for command, parser in subcommands().items()
        for option, value in re.findall(r"(--[a-z0-9-]+) ([A-Z][A-Z0-9_.]*)\b", parser.format_help())
        if "." in value or value.endswith("_S")
    }
    assert not shown, shown


def test_every_option_the_docs_name_exists() -> None:
    known = set().union(*map(options_of, subcommands().values()), *OTHER_PROGRAMS.values(), script_options())
    unknown = [
        f"{path.relative_to(ROOT)}: {option}"
        for path, text in manual().items()
        for option in sorted(set(OPTION.findall(text)) - known)
    ]
    assert not unknown, "options that no command has (renamed? removed?):\n" + "\n".join(unknown)


def test_the_inspect_page_lists_every_task_option_and_no_other() -> None:
    from harness.inspect.options import OPTION_NAMES

    text = (DOCS / "inspect.md").read_text(encoding="utf-8")
    table = text[text.index("| task option (`-T`) |") :].split("\n\n")[0]
    assert set(re.findall(r"^\| `(\w+)` \|", table, re.MULTILINE)) == set(OPTION_NAMES)


def shell_commands(text: str) -> Iterator[list[str]]:
    """The hanabi-eval commands of a text's shell blocks, as argument lists (comments, pipes and continuations
    handled as a shell would)."""
    for block in re.findall(r"^ *```(?:bash|sh|shell|console)\n(.*?)^ *```", text, re.DOTALL | re.MULTILINE):
        for line in block.replace("\\\n", " ").splitlines():
            # a shell variable ($k in a loop) stands for a value the parser takes: a number fits every option here
            words = [re.sub(r"^\$\{?\w+\}?$", "1", w) for w in shlex.split(line, comments=True)]
            for start, word in enumerate(words):
                if word.endswith("hanabi-eval") and (start == 0 or words[start - 1] in {"&&", ";", "|"}):
                    end = next((i for i in range(start, len(words)) if words[i] in {"|", "&&", ";"}), len(words))
                    yield words[start + 1 : end]


def test_every_hanabi_eval_command_in_a_shell_block_parses(capsys: pytest.CaptureFixture[str]) -> None:
    parser = build_parser()
    seen, failed = 0, []
    for path, text in manual().items():
        for argv in shell_commands(text):
            seen += 1
            if argv == ["--version"]:
                continue
            try:
                parser.parse_args(argv)
            except SystemExit:
                error = capsys.readouterr().err.strip().splitlines()[-1:]
                failed.append(f"{path.relative_to(ROOT)}: hanabi-eval {shlex.join(argv)}: {error}")
    assert not failed, "\n".join(failed)
    assert seen > 40  # the blocks were found


# ---- generated pages and pictures ---------------------------------------------------------------------------------
def generator() -> Any:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import docs_generate
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    return docs_generate


def test_the_generated_pages_are_what_the_templates_and_schemas_make_now() -> None:
    """Each scaffold's page (every message of one real turn, rendered from its templates) and the export columns:
    a template, a scaffold or a column changed without its page fails here."""
    stale = generator().stale_files()
    assert not stale, "out of date (run .venv/bin/python scripts/docs_generate.py):\n" + "\n".join(stale)


def test_every_scaffold_has_its_page_in_the_navigation() -> None:
    from harness.strategies.scaffold import scaffold_names

    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    listed = re.findall(r"^ +- scaffolds/([\w-]+)\.md$", nav, re.MULTILINE)
    assert set(listed) == {"index", *scaffold_names()}
    overview = (DOCS / "scaffolds" / "index.md").read_text(encoding="utf-8")
    assert [name for name in scaffold_names() if f"`{name}`" not in overview] == []


def test_the_report_page_names_every_table_and_every_plot_the_report_writes() -> None:
    import ast
    import inspect

    from harness.report import build
    from harness.report.content import Plots

    source = ast.parse(inspect.getsource(build.write_tables))
    tables = {  # the keys of the dicts assigned in write_tables: `tables` (always) and `optional`
        key.value
        for node in ast.walk(source)
        if isinstance(node, ast.AnnAssign | ast.Assign) and isinstance(node.value, ast.Dict)
        for key in node.value.keys
        if isinstance(key, ast.Constant)
    }
    text = (DOCS / "report.md").read_text(encoding="utf-8")
    assert {"main_table", "calibration_decisions"} <= tables  # the tables were found
    assert sorted(name for name in tables if f"`{name}`" not in text) == []
    assert sorted(name for name in Plots.model_fields if f"`figures/{name}.png`" not in text) == []


def test_every_picture_in_the_docs_was_made_by_the_pictures_script() -> None:
    manifest = json.loads((DOCS / "assets" / "pictures.json").read_text(encoding="utf-8"))
    assert manifest["made_by"] == "scripts/docs_pictures.py"  # the full run, not --quick
    shown = set()
    for path, text in manual().items():
        for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", text):
            picture = (path.parent / target).resolve()
            assert picture.is_file(), f"{path.relative_to(ROOT)} shows {target}, which does not exist"
            shown.add(picture.name)
    for name in shown:
        digest = hashlib.sha256((DOCS / "assets" / name).read_bytes()).hexdigest()
        assert manifest["sha256"].get(name) == digest, f"{name} was not made by scripts/docs_pictures.py"


@pytest.mark.bench
def test_the_pictures_script_makes_every_picture_from_a_real_run(tmp_path: Path) -> None:
    """Its --quick mode (one offline game per model, chromium): CI runs it in the `pytest -m "bench or build"` step."""
    done = subprocess.run(
        [sys.executable, "scripts/docs_pictures.py", "--quick", "--out", str(tmp_path)],
        cwd=ROOT, capture_output=True, text=True,
    )
    if done.returncode == 2 and "no chromium" in done.stderr and not os.environ.get("CI"):
        pytest.skip(done.stderr.strip())
    assert done.returncode == 0, done.stderr
    made = json.loads((tmp_path / "pictures.json").read_text())["sha256"]
    committed = json.loads((DOCS / "assets" / "pictures.json").read_text())["sha256"]
    assert set(made) == set(committed)
