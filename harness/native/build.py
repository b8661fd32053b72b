"""`python -m harness.native.build`: compile the smart bot and the view builder with mypyc (paths.COMPILED) into
harness/native/compiled/.

mypyc (part of mypy, which the dev extra installs) and a C compiler do the work in a temporary copy of the package,
so nothing but compiled/ is written. The build record goes in last, naming every harness source the compiled modules
import (found by the standard library's modulefinder) with its sha256: a later change to any of them and the Python
source is used again until the next build; the compiled files' own digests are kept too, so a damaged one is never
loaded. Exit 0 with one line when done; 2 with one line naming the fix when mypyc or the compiler is missing, a file
cannot be copied or the build fails; 1 when the build cannot be written; 130 on Ctrl-C.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import shutil
import subprocess
import sys
import tempfile
import time
from modulefinder import ModuleFinder
from pathlib import Path

from harness.native.paths import COMPILED, FOLDER, RECORD, ROOT
from harness.native.record import BuildRecord, check_record, source_digest


class BuildFailed(Exception):
    """The build could not run or failed: the message is the one line to print."""


def source_of(module: str, root: Path) -> Path:
    return root.joinpath(*module.split(".")).with_suffix(".py")


def sources_imported(root: Path) -> dict[str, str]:
    """Every harness source file that COMPILED import, directly or not, relative to `root`, with its sha256; but not
    harness/native itself, the loader, which the compiled code does not depend on."""
    finder = ModuleFinder(path=[str(root)])
    for module in COMPILED:
        finder.run_script(str(source_of(module, root)))
    loader = str(__package__)  # harness.native
    files = {
        Path(file)
        for name, entry in finder.modules.items()
        if name.startswith("harness") and name != loader and not name.startswith(f"{loader}.")
        and (file := getattr(entry, "__file__", None))
    }
    files.update(source_of(module, root) for module in COMPILED)
    return {file.relative_to(root).as_posix(): source_digest(file) for file in sorted(files) if file.is_file()}


def compiled_name(file: Path, copy: Path) -> str:
    """The module a compiled file of the copy holds (its path without the extension suffix)."""
    relative = file.relative_to(copy).as_posix()
    suffix = next(s for s in importlib.machinery.EXTENSION_SUFFIXES if relative.endswith(s))
    return relative.removesuffix(suffix).replace("/", ".")


def compile_copy(copy: Path) -> tuple[dict[str, Path], str]:
    """Run mypyc on COMPILED inside `copy` (a copy of the package): the compiled files by module name, and mypy's
    version."""
    try:
        import mypy.version
    except ImportError:
        raise BuildFailed("mypyc is not installed: pip install mypy (in the dev extra), then run this again") from None
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        raise BuildFailed("no C compiler found: install one (Debian: apt-get install gcc), then run this again")
    done = subprocess.run(
        [sys.executable, "-m", "mypyc", *(str(source_of(m, Path())) for m in COMPILED)],
        cwd=copy,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        last = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["no output"]
        raise BuildFailed(f"mypyc {mypy.version.__version__} failed: {last[0]}")
    files: dict[str, Path] = {}
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        for file in copy.glob(f"**/*{suffix}"):
            if "build" not in file.relative_to(copy).parts:
                files[compiled_name(file, copy)] = file
    if not set(COMPILED) <= set(files):
        raise BuildFailed(f"mypyc made no module for {', '.join(sorted(set(COMPILED) - set(files)))}")
    return files, mypy.version.__version__


def build() -> BuildRecord:
    """Compile COMPILED and put the result in FOLDER, the record last (a build stopped half way is not used)."""
    with tempfile.TemporaryDirectory(prefix="hanabi-eval-native-") as temporary:
        copy = Path(temporary)
        try:
            shutil.copytree(
                ROOT / "harness", copy / "harness", ignore=shutil.ignore_patterns("__pycache__", "compiled")
            )
        except shutil.Error as error:  # one entry per file that could not be copied: name the first
            source, _, why = error.args[0][0]
            raise BuildFailed(f"cannot copy {source} to compile the package: {why}") from None
        sources = sources_imported(copy)  # what was compiled, hashed
        files, version = compile_copy(copy)
        shutil.rmtree(FOLDER, ignore_errors=True)
        FOLDER.mkdir()
        names = {module: module + file.name[file.name.index(".") :] for module, file in sorted(files.items())}
        for module, file in files.items():
            shutil.copyfile(file, FOLDER / names[module])
    digests = {name: source_digest(FOLDER / name) for name in names.values()}
    record = BuildRecord(
        cache_tag=str(sys.implementation.cache_tag), mypy=version, files=names, digests=digests, sources=sources
    )
    partial = RECORD.with_suffix(".part")
    partial.write_text(record.model_dump_json(indent=2) + "\n")
    partial.replace(RECORD)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m harness.native.build",
        description="Compile the smart bot and the view builder with mypyc (same moves and values, faster rollouts).",
    )
    parser.parse_args(argv)
    started = time.monotonic()
    try:
        record = build()
    except BuildFailed as error:
        print(f"harness.native.build: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        where = f": {error.filename}" if error.filename else ""
        print(f"harness.native.build: cannot write the build: {error.strerror or error}{where}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        kept = check_record()[1].active  # stopped before the old build was removed, or after the new one was done
        now = "the build from before stays in use" if kept else "the Python source is used until a build completes"
        print(f"harness.native.build: stopped; {now}", file=sys.stderr)
        return 130
    modules = ", ".join(name for name in record.files if name in COMPILED)
    print(f"compiled {modules} with mypyc {record.mypy} in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
