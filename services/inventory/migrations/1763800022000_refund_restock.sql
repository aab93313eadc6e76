-- Up Migration
-- A refund that returns tickets to sale undoes part of a sale: it appends a
-- negative row under its own hold id (`refund:<refund id>`), so sold =
-- pools.sold + sum(pool_sales) stays one sum and no row is rewritten.
ALTER TABLE pool_sales DROP CONSTRAINT pool_sales_quantity_check;
ALTER TABLE pool_sales ADD CONSTRAINT pool_sales_quantity_check CHECK (quantity <> 0);

-- Down Migration
UPDATE pools p SET sold = p.sold + s.total FROM (SELECT pool_id, sum(quantity) AS total FROM pool_sales WHERE quantity < 0 GROUP BY pool_id) s WHERE s.pool_id = p.id;
DELETE FROM pool_sales WHERE quantity < 0;
ALTER TABLE pool_sales DROP CONSTRAINT pool_sales_quantity_check;
ALTER TABLE pool_sales ADD CONSTRAINT pool_sales_quantity_check CHECK (quantity > 0);
