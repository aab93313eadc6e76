"""
Supplies what a real client would, where a static document cannot:

- Every webhook receiver the run registers is live. A generated `https://`
  receiver address (the document's example `https://hooks.example.com/...`,
  or anything else the API would accept) is pointed at the run's loopback
  receiver before it is sent, so a later test send reaches a receiver and
  `500 test_event_failed` (the documented answer for one that is down) never
  arises. Malformed and refused addresses are sent as generated: the API
  must still answer them with its 400.
- Every write carries a fresh `Idempotency-Key` (a generated key that the
  document allows is replaced by a new uuid): a client never reuses a key
  for another request, and a reused one is `422 idempotency_key_reused`
  whatever the request. Keys the document forbids are sent as generated.
- A list is never asked for with an invented `cursor`: cursors are opaque,
  only ever one the API returned, and any other is `400 parameter_invalid`.
"""
import os
import uuid

import schemathesis

LIVE_RECEIVER = os.environ["SCHEMATHESIS_RECEIVER_URL"]
RECEIVER_WRITES = {("POST", "/webhook_endpoints"), ("PATCH", "/webhook_endpoints/{id}")}


@schemathesis.hook
def before_call(ctx, case, kwargs):
    # Every phase's cases pass here, explicit examples included (they skip the map_* hooks).
    # Headers are a case-insensitive mapping, not a dict.
    key = case.headers.get("Idempotency-Key") if case.headers is not None else None
    if isinstance(key, str) and 1 <= len(key) <= 255:
        case.headers["Idempotency-Key"] = str(uuid.uuid4())
    if isinstance(case.query, dict):
        case.query.pop("cursor", None)
    if (case.operation.method.upper(), case.operation.path) not in RECEIVER_WRITES:
        return
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("url"), str) and body["url"].lower().startswith("https://"):
        body["url"] = LIVE_RECEIVER
