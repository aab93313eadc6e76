#!/usr/bin/env bash
# Generates a Python client from the running stack's /openapi.json with
# openapi-python-client, as a partner would, and runs its test against the
# stack (`make up` first). Exits non-zero when generation or a call fails.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV="$ROOT/.data/venv"
OUT="$ROOT/.data/python-client"
set -a; . "$ROOT/.data/demo.env"; set +a
rm -rf "$OUT" && mkdir -p "$OUT"
curl -sf "$BASE_URL/openapi.json" >"$OUT/openapi.json"
# No post hooks: formatting the generated code (ruff) is not what is tested.
printf 'project_name_override: partner-api-client\npackage_name_override: partner_api_client\npost_hooks: []\n' >"$OUT/config.yaml"
"$VENV/bin/openapi-python-client" generate --path "$OUT/openapi.json" --config "$OUT/config.yaml" \
  --meta none --output-path "$OUT/partner_api_client" >/dev/null
PYTHONPATH="$OUT" BASE_URL="$BASE_URL" "$VENV/bin/pytest" -q -p no:cacheprovider "$ROOT/e2e/python-client"
