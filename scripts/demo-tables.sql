-- The TPC-H tables of scripts/demo.sh's data (build/demo-data/sf0.1, `.tbl` files) as external
-- tables, for a `shoal server` started in the repository's root (the README's third block):
--   shoal sql --host 127.0.0.1 --port 5433 -f scripts/demo-tables.sql
-- The same columns as scripts/demo.sh declares for its `shoal sql` run.
CREATE EXTERNAL TABLE region (r_regionkey BIGINT, r_name VARCHAR, r_comment VARCHAR)
  STORED AS TBL LOCATION 'build/demo-data/sf0.1/region.tbl';
CREATE EXTERNAL TABLE nation (n_nationkey BIGINT, n_name VARCHAR, n_regionkey BIGINT,
  n_comment VARCHAR)
  STORED AS TBL LOCATION 'build/demo-data/sf0.1/nation.tbl';
CREATE EXTERNAL TABLE supplier (s_suppkey BIGINT, s_name VARCHAR, s_address VARCHAR,
  s_nationkey BIGINT, s_phone VARCHAR, s_acctbal DECIMAL(15,2), s_comment VARCHAR)
  STORED AS TBL LOCATION 'build/demo-data/sf0.1/supplier.tbl';
CREATE EXTERNAL TABLE customer (c_custkey BIGINT, c_name VARCHAR, c_address VARCHAR,
  c_nationkey BIGINT, c_phone VARCHAR, c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR,
  c_comment VARCHAR)
  STORED AS TBL LOCATION 'build/demo-data/sf0.1/customer.tbl';
CREATE EXTERNAL TABLE part (p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR,
  p_type VARCHAR, p_size INTEGER, p_container VARCHAR, p_retailprice DECIMAL(15,2),
  p_comment VARCHAR)
  STORED AS TBL LOCATION 'build/demo-data/sf0.1/part.tbl';
CREATE EXTERNAL TABLE partsupp (ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty INTEGER,
  ps_supplycost DECIMAL(15,2), ps_comment VARCHAR)
  STORED AS TBL LOCATION 'build/demo-data/sf0.1/partsupp.tbl';
CREATE EXTERNAL TABLE orders (o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus VARCHAR,
  o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR,
  o_shippriority INTEGER, o_comment VARCHAR)
  STORED AS TBL LOCATION 'build/demo-data/sf0.1/orders.tbl';
CREATE EXTERNAL TABLE lineitem (l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT,
  l_linenumber INTEGER, l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2),
  l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR,
  l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR,
  l_shipmode VARCHAR, l_comment VARCHAR)
  STORED AS TBL LOCATION 'build/demo-data/sf0.1/lineitem.tbl';
