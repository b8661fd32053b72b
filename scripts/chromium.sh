#!/usr/bin/env bash
# Debian's chromium for the game viewer's browser tests (Playwright drives it; no browser is ever downloaded).
#   scripts/chromium.sh             install it with apt-get when it is missing (as root, or through sudo without a
#                                   password); when it cannot, say how in one line and go on (exit 0)
#   scripts/chromium.sh --required  the same, but exit 1 after that line (CI: the browser tests must run)
set -uo pipefail
CHROMIUM="${HANABI_EVAL_CHROMIUM:-/usr/bin/chromium}"
REQUIRED=0
case "${1:-}" in
  "") ;;
  --required) REQUIRED=1 ;;
  *) echo "scripts/chromium.sh: unknown option ${1}; give --required or nothing" >&2; exit 2 ;;
esac
[ -x "$CHROMIUM" ] && exit 0

fail() {
  echo "scripts/chromium.sh: no chromium at $CHROMIUM ($1); install it with: sudo apt-get install -y chromium, or set HANABI_EVAL_CHROMIUM" >&2
  [ "$REQUIRED" = 1 ] && exit 1
  exit 0
}

command -v apt-get >/dev/null || fail "apt-get is not here: not a Debian-like system"
if [ "$(id -u)" = 0 ]; then
  AS_ROOT=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  AS_ROOT=(sudo -n)
else
  fail "not root, and sudo cannot run without a password"
fi
echo "Installing Debian's chromium for the viewer's browser tests (apt-get) ..."
LOG="$(mktemp)"
if "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq >"$LOG" 2>&1 \
  && "${AS_ROOT[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >>"$LOG" 2>&1; then
  rm -f "$LOG"
  [ -x "$CHROMIUM" ] && exit 0
  fail "apt-get installed chromium, but not at that path"
fi
LAST="$(grep -v '^[[:space:]]*$' "$LOG" | tail -n 1)"
rm -f "$LOG"
fail "apt-get could not install it: ${LAST:-no output}"
