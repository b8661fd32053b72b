"""An installed hanabi-eval, editable or not, has every module, template, scaffold, seed set and sweep, and installing
it prints no setuptools warnings: pyproject.toml names every package and its package data covers every data file.
Neither install here compiles (tests/test_native.py installs the compiled build), and each says so in one line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SETUPTOOLS_NOISE = re.compile(r"Warning:|Warning\)|deprecated|is absent from the `packages`")
DATA = {"prompts": "*.j2", "scaffolds": "*.toml", "seeds": "*.jsonl", "sweeps": "*.toml"}


def setuptools_config() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def data_files() -> list[Path]:
    """Every shipped data file, relative to the repository root."""
    return sorted(p.relative_to(ROOT) for folder, glob in DATA.items() for p in (ROOT / folder).rglob(glob))


def test_every_python_package_is_listed() -> None:
    listed = set(setuptools_config()["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "harness").rglob("__init__.py")}
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"


def test_every_data_file_is_shipped() -> None:
    config = setuptools_config()
    for relative in data_files():
        package = "harness.data." + ".".join(relative.parent.parts)
        assert package in config["packages"], f"add {package} to [tool.setuptools] packages"
        assert any(relative.match(g) for g in config["package-data"][package]), f"{relative}: no package-data"
    # data beside the code (the report's and the export's templates, the baselines): its package must ship it
    for path in (ROOT / "harness").rglob("*"):
        if not path.is_file() or path.suffix in {".py", ".pyc"} or "__pycache__" in path.parts:
            continue
        package = ".".join(path.parent.relative_to(ROOT).parts)
        assert package in config["packages"], f"add {package} to [tool.setuptools] packages"
        globs = config["package-data"].get(package, [])
        assert any(Path(path.name).match(g) for g in globs), f"{path.relative_to(ROOT)}: add it to package-data"


@pytest.mark.parametrize("editable", [False, True], ids=["pip install .", "pip install -e ."])
def test_an_install_in_a_fresh_venv_is_quiet_and_ships_the_data(tmp_path: Path, editable: bool) -> None:
    # A venv without pip of its own: this pip installs into it (--python), which saves bootstrapping pip (ensurepip,
    # about 4 s of CPU) for every install
    venv.create(tmp_path / "venv", with_pip=False)
    python = tmp_path / "venv" / "bin" / "python"
    target = ["-e", str(ROOT)] if editable else [str(ROOT)]
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    # setup.sh hides setuptools' one general notice on every editable install (folders named like the package may
    # shadow it); this install hides it the same way, and any other warning still fails the test. The plain install
    # is built as Python source, as where no C compiler is found (compiling it is tests/test_native.py's).
    quiet = {
        **os.environ,
        "PYTHONWARNINGS": "ignore::UserWarning:setuptools.command.editable_wheel",
        "HANABI_EVAL_COMPILE": "0",
    }
    install = subprocess.run(
        # -v shows the build backend's output, where setuptools' warnings go (about 320 lines of them, once)
        [*pip, "install", "-v", "--no-deps", "--disable-pip-version-check", *target],
        env=quiet,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    if install.returncode != 0 and "Could not find a version that satisfies the requirement setuptools" in (
        install.stdout + install.stderr
    ):
        pytest.skip("no package index reachable for the build backend")
    assert install.returncode == 0, install.stderr
    output = (install.stdout + install.stderr).splitlines()
    noise = [line for line in output if SETUPTOOLS_NOISE.search(line)]
    assert noise == []
    source = "the smart bot, the views it reads and the rollouts' game run as Python source: the same moves, slower"
    said = [line.strip() for line in output if line.strip().startswith("hanabi-eval:")]
    if editable:  # an edit always runs: nothing is compiled beside the source
        assert said == [
            f"hanabi-eval: an editable install is not compiled, so that every edit runs: {source} "
            "(`pip install .` compiles them)"
        ]
    else:
        assert said == [f"hanabi-eval: not compiled (HANABI_EVAL_COMPILE=0): {source}"]
    code = "import harness, harness.schema.paths as p; print(p.data_root(), harness.compiled_modules())"
    listing = subprocess.run(
        [str(python), "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=True,
    )
    data, compiled = listing.stdout.strip().rsplit(" ", 1)
    root = Path(data)
    assert compiled == "[]"  # nothing compiled beside the source: in the checkout (editable), or in site-packages
    if not editable:
        assert "site-packages" in root.parts  # the wheel's own copy, not the checkout
    missing = [str(p) for p in data_files() if not (root / p).is_file()]
    assert missing == []
    if not editable:  # the templates beside the report's and the export's code ship with them
        beside = [p.relative_to(ROOT / "harness") for p in (ROOT / "harness").rglob("templates/*.j2")]
        assert beside and all((root.parent / p).is_file() for p in beside)  # root: the installed harness/data
