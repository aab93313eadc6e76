#!/usr/bin/env bash
# Debian's Chromium for the browser tests (Playwright drives it through
# playwright-core; no browser is downloaded by npm). Idempotent: instant when
# it is already installed. Prints the executable's path.
#   deploy/local/browser.sh
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

browser_path() { command -v chromium || command -v chromium-browser || true; }

if [[ -z "$(browser_path)" ]]; then
  mkdir -p "$LOGS"
  apt_install chromium
fi
path=$(browser_path)
[[ -n "$path" ]] || die "chromium is not on the PATH after installing it"
echo "$path"
