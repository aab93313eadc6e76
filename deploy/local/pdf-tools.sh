#!/usr/bin/env bash
# Debian's poppler-utils and unzip for the ticket download tests (pdftoppm
# renders a PDF page to PNG so its QR code can be decoded; unzip opens a
# Wallet pass). Idempotent: instant when they are installed. Prints
# pdftoppm's path.
#   deploy/local/pdf-tools.sh
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

missing=()
command -v pdftoppm >/dev/null || missing+=(poppler-utils)
command -v unzip >/dev/null || missing+=(unzip)
if ((${#missing[@]})); then apt_install "${missing[@]}"; fi
path=$(command -v pdftoppm || true)
[[ -n "$path" ]] || die "pdftoppm is not on the PATH after installing poppler-utils"
echo "$path"
