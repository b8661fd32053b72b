"""`python -m harness.cli`: the hanabi-eval command line."""

import sys

from harness.cli.entry import main

sys.exit(main())
