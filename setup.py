"""The package build beside pyproject.toml (which configures everything else): it compiles the modules a rollout
spends its time in, pyproject.toml's [tool.hanabi-eval] `compiled`, with mypyc into C extensions that every wheel
and `pip install .` ships beside their source. Python imports an extension before the source beside it.

The same modules run as Python source instead (the same moves and values, about 2x slower per rollout step), and
the build says so and why in one line, in an editable install (`pip install -e`: no compiled module ever hides an
edit of its source), with HANABI_EVAL_COMPILE=0, or without mypyc or a C compiler that builds Python extensions;
the install succeeds either way. pip shows a build's output with -v.

Each wheel is built in a temporary folder, its metadata included, not in ./build and ./*.egg-info: no file of an
earlier build (a compiled module of an older source) can reach it, and builds at once from one checkout (the tests')
do not share files.
"""

from __future__ import annotations

import atexit
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CCompilerError, ExecError, PlatformError

COMPILED: list[str] = tomllib.loads(Path(__file__).with_name("pyproject.toml").read_text())["tool"]["hanabi-eval"][
    "compiled"
]
SOURCE = "the smart bot, the views it reads and the rollouts' game run as Python source: the same moves, slower"


def say(line: str) -> None:
    print(f"hanabi-eval: {line}", file=sys.stderr, flush=True)


def compiler_problem() -> str | None:
    """Why the C compiler Python builds extensions with cannot build one here, or None if it can."""
    command = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "")
    if not command:  # (Windows: the build finds its compiler itself, and a failure there is caught below)
        return None
    with tempfile.TemporaryDirectory() as folder:
        probe = Path(folder, "probe.c")
        probe.write_text("#include <Python.h>\n")
        include = sysconfig.get_paths()["include"]
        try:
            done = subprocess.run(
                [*command, f"-I{include}", "-c", str(probe), "-o", str(probe.with_suffix(".o"))],
                capture_output=True,
                text=True,
                check=False,
            )
        except OSError as error:
            return f"no C compiler: {command[0]}: {error.strerror}; Debian: apt-get install gcc python3-dev"
    if done.returncode != 0:
        lines = [line.removeprefix(str(probe)).lstrip(":0123456789 ") for line in done.stderr.splitlines()]
        why = next((line for line in lines if "error" in line), lines[-1] if lines else "no output")
        return f"the C compiler cannot build a Python extension: {why}; Debian: apt-get install python3-dev"
    return None


def not_compiled_because() -> str | None:
    setting = os.environ.get("HANABI_EVAL_COMPILE", "")
    if setting.strip().lower() in ("0", "false", "no", "off"):
        return f"HANABI_EVAL_COMPILE={setting}"
    try:
        import mypyc.build  # noqa: F401
    except ImportError:
        return "mypyc is not installed (it ships with mypy)"
    return compiler_problem()


class BuildOrFallBack(build_ext):
    """build_ext, saying what it compiled; a C build that fails leaves the wheel pure Python, in one line."""

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, ExecError, PlatformError) as error:
            for extension in self.extensions:  # none half made: a module whose library is missing would not import
                Path(self.get_ext_fullpath(extension.name)).unlink(missing_ok=True)
            say(f"not compiled (the C build failed, {type(error).__name__}: its output is above): {SOURCE}")
        else:
            from mypy.version import __version__ as mypy_version

            say(f"compiled {', '.join(COMPILED)} with mypyc {mypy_version}")


def extensions(build_base: str) -> list[Extension]:
    """mypyc's extensions of COMPILED, or none and one line saying why."""
    why = not_compiled_because()
    if why is None:
        from mypyc.build import mypycify

        try:
            return mypycify(
                ["--cache-dir", os.path.join(build_base, "mypy"), *COMPILED],
                target_dir=os.path.join(build_base, "mypyc"),
            )
        except SystemExit:  # mypyc found errors in the source, and printed them
            why = "mypyc refused the source, above"
    say(f"not compiled ({why}): {SOURCE}")
    return []


if "editable_wheel" in sys.argv:
    say(f"an editable install is not compiled, so that every edit runs: {SOURCE} (`pip install .` compiles them)")
    setup()
elif {"bdist_wheel", "build", "build_ext"} & set(sys.argv):
    build_base = tempfile.mkdtemp(prefix="hanabi-eval-build-")
    atexit.register(shutil.rmtree, build_base, ignore_errors=True)
    setup(
        ext_modules=extensions(build_base),
        cmdclass={"build_ext": BuildOrFallBack},
        options={"build": {"build_base": build_base}, "egg_info": {"egg_base": build_base}},
    )
else:  # metadata or an sdist: nothing to compile
    setup()
