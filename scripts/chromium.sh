#!/usr/bin/env bash
# Debian's chromium for the game viewer's browser tests (Playwright drives it; no browser is ever downloaded).
#   scripts/chromium.sh             install it with apt-get when it is missing and we are root; otherwise say how
#   scripts/chromium.sh --required  the same, but fail when it cannot be had (CI: the browser tests must run)
set -uo pipefail
CHROMIUM="${HANABI_EVAL_CHROMIUM:-/usr/bin/chromium}"
[ -x "$CHROMIUM" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium for the viewer's browser tests (apt-get) ..."
  export DEBIAN_FRONTEND=noninteractive
  if apt-get update -qq && apt-get install -y -qq chromium >/dev/null; then
    exit 0
  fi
fi
echo "No chromium at $CHROMIUM: the viewer's browser tests will skip. Install it with: sudo apt-get install -y chromium" >&2
[ "${1:-}" = "--required" ] && exit 1
exit 0
