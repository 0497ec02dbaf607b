-- Shared subplans: four scalar subqueries over lineitem, each with its own WHERE and aggregate.
-- Shoal reads lineitem once for all four (each aggregate under its WHERE as a FILTER).
select
    (select count(*) from lineitem where l_quantity < 5) as few,
    (select sum(l_extendedprice) from lineitem where l_quantity > 45) as many_revenue,
    (select avg(l_discount) from lineitem where l_returnflag = 'R') as returned_discount,
    (select max(l_shipdate) from lineitem where l_shipmode = 'AIR') as last_air;
