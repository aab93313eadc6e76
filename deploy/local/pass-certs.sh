#!/usr/bin/env bash
# A test signing pair for Apple Wallet passes, for local runs only: a
# stand-in for Apple's WWDR intermediate (a self-signed CA) and a pass type
# certificate it issued, under .data/passkit/. iPhones refuse passes signed by
# it (only Apple issues pass type certificates); deployments mount real ones
# (see docs/deploy.md). Idempotent: kept while the certificate has more than
# 30 days left. The orders service reads the directory as PASS_CERTIFICATES_DIR.
#   deploy/local/pass-certs.sh
set -euo pipefail
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

DIR="$DATA/passkit"
PASS_TYPE_ID=pass.local.partner-api.ticket
TEAM_ID=LOCALTEST1

complete() {
  [[ -s "$DIR/wwdr.pem" && -s "$DIR/signer-cert.pem" && -s "$DIR/signer-key.pem" ]] &&
    openssl x509 -in "$DIR/signer-cert.pem" -noout -checkend $((30 * 86400)) >/dev/null
}

if ! complete; then
  mkdir -p "$DIR"
  chmod 700 "$DIR"
  work=$(mktemp -d "$DIR/.new.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -sha256 \
    -subj "/CN=Local WWDR stand-in (not Apple)/O=Partner API local test/C=AU" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    -keyout "$work/wwdr-key.pem" -out "$work/wwdr.pem" 2>/dev/null
  openssl req -new -newkey rsa:2048 -nodes -sha256 \
    -subj "/UID=$PASS_TYPE_ID/CN=Pass Type ID: $PASS_TYPE_ID/OU=$TEAM_ID/O=Partner API local test/C=AU" \
    -keyout "$work/signer-key.pem" -out "$work/signer.csr" 2>/dev/null
  printf 'basicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=codeSigning,emailProtection\n' >"$work/signer.ext"
  openssl x509 -req -in "$work/signer.csr" -CA "$work/wwdr.pem" -CAkey "$work/wwdr-key.pem" -CAcreateserial \
    -days 825 -sha256 -extfile "$work/signer.ext" -out "$work/signer-cert.pem" 2>/dev/null
  chmod 600 "$work"/*.pem
  # The files appear together: a reader never sees a certificate without its key.
  for file in wwdr.pem wwdr-key.pem signer-key.pem signer-cert.pem; do mv "$work/$file" "$DIR/$file"; done
  say "pass signing test pair written to $DIR (passes signed by it do not open on an iPhone)"
fi
echo "$DIR"
