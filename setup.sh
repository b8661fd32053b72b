#!/usr/bin/env bash
# One command on a fresh machine: create .venv, install hanabi-eval and everything it needs, play the offline demo.
#   ./setup.sh            set up, then play the demo (40 games, offline, no keys)
#   ./setup.sh --no-demo  set up only
set -euo pipefail
cd "$(dirname "$0")"

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "setup.sh: hanabi-eval needs Python 3.11 or newer; set PYTHON=/path/to/python3.11 and run again" >&2
  exit 2
fi
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv

# hanabi-learning-environment 0.0.4 ships a CMakeLists that CMake 4 rejects without this policy floor.
export CMAKE_POLICY_VERSION_MINIMUM=3.5
.venv/bin/python -m pip install --quiet --upgrade pip
# setuptools prints a general notice on every editable install (folders named like the package may shadow it);
# the project's own layout is checked by tests/test_packaging.py, so that one notice is not shown.
# Editable, so an edit runs at once: this install compiles nothing, and the smart bot runs as Python source, with the
# same moves and values as the compiled build that `pip install .` makes (setup.py; README, "The compiled bot").
PYTHONWARNINGS="ignore::UserWarning:setuptools.command.editable_wheel" \
  .venv/bin/python -m pip install --quiet -e ".[dev]"
# What setup.sh compiled before the package build did (harness/native/compiled): gone, so that nothing shadows a source.
rm -rf harness/native/compiled harness/native/__pycache__ && { rmdir harness/native 2>/dev/null || true; }

# Debian's chromium for the game viewer's browser tests: installed with apt-get as root or through password-less sudo,
# else the tests skip and this says how to install it in one line (never a failure: the harness does not need it).
scripts/chromium.sh

if [ "${1:-}" != "--no-demo" ]; then
  .venv/bin/hanabi-eval run --model local/smart --scaffold watson --players 2 3 4 5 --seeds standard --out results
fi
