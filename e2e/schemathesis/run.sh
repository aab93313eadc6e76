#!/usr/bin/env bash
# A bounded schemathesis pass over every operation of the running stack
# (`make up`), as a hostile but well-informed client: generated from
# /openapi.json, checking that no answer is a server error and that status
# codes, content types, headers and bodies match the document. The explicit
# examples and the coverage phase run once (they do not depend on the
# seed); fuzzing and the stateful phase (chains of calls, their ids taken
# from earlier answers) run for several seeds: the fixed one, then random
# ones, each printed so a failure can be replayed with SCHEMATHESIS_SEEDS.
# Every run is cut off at SCHEMATHESIS_MAX_TIME seconds, which counts as a
# failure. Exits non-zero on any failure.
#
# The run gets an organisation and a key of its own, with one published
# event to sell from. Every receiver it registers is a live one on loopback
# (hooks.py points generated https addresses there), so `500
# test_event_failed`, the documented answer for a receiver that is down,
# cannot arise, and the server-error check stays on for every operation.
#
#   e2e/schemathesis/run.sh [max examples per operation, default 10]
#   SCHEMATHESIS_SEEDS="20261018 123"   the seeds (default: 20261018 and two random ones)
#   SCHEMATHESIS_MAX_TIME=240           seconds any one run may take
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE="$ROOT/e2e/schemathesis"
VENV="$ROOT/.data/venv"
MAX_EXAMPLES=${1:-10}
SEEDS=${SCHEMATHESIS_SEEDS:-"20261018 $RANDOM$RANDOM $RANDOM$RANDOM"}
MAX_TIME=${SCHEMATHESIS_MAX_TIME:-240}
set -a; . "$ROOT/.data/infra.env"; . "$ROOT/.data/demo.env"; set +a
cli() { node "$ROOT/services/cli/dist/main.js" "$@"; }
json_field() { python3 -c "import json,sys; print(json.load(sys.stdin)$1)"; }

suffix=$(date +%s)-$RANDOM
org=$(cli org create --name "Schemathesis $suffix" --slug "schemathesis-$suffix" | json_field "['id']")
key=$(cli key issue --org "$org" --name schemathesis --mode live --rate-limit 1000000 | json_field "['secret']")
[[ -n "$key" ]] || { echo "could not issue the run's key" >&2; exit 1; }
# A venue of its own: a database that has seen other runs need not hold venue 1.
venue=$(cli venue create --org "$org" --name "Schemathesis Hall $suffix" --slug "schemathesis-hall-$suffix" \
  --line1 "1 Test Street" --locality Melbourne --state VIC --postal-code 3000 --country AU | json_field "['id']")
event="schemathesis-$suffix"
cli event create --org "$org" --slug "$event" --title "Schemathesis Live" --starts-at 2030-03-14T09:00:00Z \
  --timezone Australia/Melbourne --venue-id "$venue" >/dev/null
pool=$(cli pool create --org "$org" --event "$event" --name "General Admission" --capacity 100000 | json_field "['id']")
cli ticket-type create --org "$org" --event "$event" --name GA --price 10.00 --booking-fee 1.00 --pool-ids "$pool" >/dev/null
cli event publish "$event" --org "$org" >/dev/null

receiver_log=$(mktemp)
python3 "$HERE/receiver.py" 0 >"$receiver_log" &
receiver=$!
trap 'kill $receiver 2>/dev/null || true; rm -f "$receiver_log"' EXIT
for _ in $(seq 50); do [[ -s "$receiver_log" ]] && break; sleep 0.1; done
receiver_url="http://127.0.0.1:$(head -n 1 "$receiver_log")/hooks"

export SCHEMATHESIS_RECEIVER_URL="$receiver_url" SCHEMATHESIS_HOOKS=hooks PYTHONPATH="$HERE"
failed=()
run() {
  local seed=$1 phases=$2
  echo "== schemathesis $phases, seed $seed (replay: SCHEMATHESIS_SEEDS=$seed $0 $MAX_EXAMPLES)"
  timeout "$MAX_TIME" "$VENV/bin/schemathesis" run "$BASE_URL/openapi.json" \
    --url "$BASE_URL" \
    --header "Authorization: Bearer $key" \
    --checks not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance \
    --phases "$phases" \
    --max-examples "$MAX_EXAMPLES" \
    --seed "$seed" \
    --request-timeout 20 \
    --no-color || failed+=("$seed $phases")
}
# The explicit examples and the coverage phase do not depend on the seed: once. Fuzzing and the stateful phase per seed.
first=1
for seed in $SEEDS; do
  if ((first)); then run "$seed" examples,coverage; first=0; fi
  run "$seed" fuzzing,stateful
done
if ((${#failed[@]})); then
  echo "schemathesis failed: ${failed[*]} (a run cut off at ${MAX_TIME}s counts as failed)" >&2
  exit 1
fi
echo "schemathesis: every seed passed ($SEEDS)"
