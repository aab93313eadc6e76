-- Up Migration
-- A checkout session knows the channel it was started from, and the order
-- takes it over: `api` (a partner's POST /checkout_sessions), `embed` (the
-- embeddable checkout on a partner's site, channel_origin that site),
-- `storefront` (the organiser's storefront, channel_origin its address) and
-- `web` (the platform's own event page, no origin).
ALTER TABLE checkout_sessions ADD COLUMN sales_channel text NOT NULL DEFAULT 'api'
  CHECK (sales_channel IN ('api', 'embed', 'storefront', 'web'));
ALTER TABLE checkout_sessions ADD COLUMN channel_origin text;
ALTER TABLE checkout_sessions ADD CONSTRAINT checkout_sessions_channel_origin
  CHECK ((sales_channel IN ('embed', 'storefront')) = (channel_origin IS NOT NULL));

-- The sites (origins: scheme://host[:port]) allowed to embed an
-- organisation's checkout in a frame; written by `partnerctl channel origin`.
CREATE TABLE channel_origins (
  organisation_id  bigint NOT NULL,
  origin           text NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (organisation_id, origin)
);

-- Down Migration
DROP TABLE channel_origins;
ALTER TABLE checkout_sessions DROP CONSTRAINT checkout_sessions_channel_origin;
ALTER TABLE checkout_sessions DROP COLUMN channel_origin;
ALTER TABLE checkout_sessions DROP COLUMN sales_channel;
