-- Up Migration
-- When the key last authenticated a request, written by the gateways in
-- batches (decision D310): accurate to within KEY_USAGE_FLUSH_MS; null for a
-- key not used since the column was added.
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;

-- Down Migration
ALTER TABLE api_keys DROP COLUMN last_used_at;
