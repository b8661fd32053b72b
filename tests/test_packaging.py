"""An installed (non-editable) hanabi-eval has every module, template, scaffold and seed set: pyproject.toml names
every package and its package-data globs cover every data file."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def setuptools_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def test_every_python_package_is_listed() -> None:
    listed = set(setuptools_config()["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "harness").rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_every_data_file_is_shipped() -> None:
    globs = setuptools_config()["package-data"]["harness.data"]
    for folder, pattern in (
        ("prompts", "*.j2"),
        ("scaffolds", "*.toml"),
        ("seeds", "*.jsonl"),
        ("sweeps", "*.toml"),
    ):
        for path in (ROOT / folder).rglob(pattern):
            relative = path.relative_to(ROOT)
            assert any(relative.match(g) for g in globs), f"{relative} matches no package-data glob"
    report_globs = setuptools_config()["package-data"]["harness.report"]
    for path in (ROOT / "harness" / "report").glob("*.toml"):
        assert any(path.name == g or Path(path.name).match(g) for g in report_globs)
