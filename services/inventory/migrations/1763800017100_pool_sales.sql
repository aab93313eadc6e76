-- Up Migration
-- Sales are appended, one row per sold hold and pool, instead of adding to
-- pools.sold on every sale (that row was the one every sale of a hot pool
-- queued on). Sold = pools.sold (sales before this table, and seeds) + the
-- sum of these rows; giving a comp batch back deletes its rows.
CREATE TABLE pool_sales (
  hold_id   text NOT NULL REFERENCES holds (id),
  pool_id   bigint NOT NULL REFERENCES pools (id),
  quantity  integer NOT NULL CHECK (quantity > 0),
  PRIMARY KEY (hold_id, pool_id)
);
CREATE INDEX pool_sales_pool_idx ON pool_sales (pool_id) INCLUDE (quantity);

-- Down Migration
UPDATE pools p SET sold = p.sold + s.total FROM (SELECT pool_id, sum(quantity) AS total FROM pool_sales GROUP BY pool_id) s WHERE s.pool_id = p.id;
DROP TABLE pool_sales;
