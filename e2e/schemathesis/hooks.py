"""
Keeps every webhook receiver the run registers live. A generated `https://`
receiver address (the document's example `https://hooks.example.com/...`,
or anything else the API would accept) is pointed at the run's loopback
receiver before it is sent, so a later test send reaches a receiver and
`500 test_event_failed` (the documented answer for one that is down) never
arises. Malformed and refused addresses are sent as generated: the API must
still answer them with its 400.
"""
import os

import schemathesis

LIVE_RECEIVER = os.environ["SCHEMATHESIS_RECEIVER_URL"]
RECEIVER_WRITES = {("POST", "/webhook_endpoints"), ("PATCH", "/webhook_endpoints/{id}")}


@schemathesis.hook
def before_call(ctx, case, kwargs):
    # Every phase's cases pass here, explicit examples included (they skip the map_* hooks).
    if (case.operation.method.upper(), case.operation.path) not in RECEIVER_WRITES:
        return
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("url"), str) and body["url"].startswith("https://"):
        body["url"] = LIVE_RECEIVER
