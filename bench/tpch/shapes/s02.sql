-- Shared subplans: a join of lineitem with the parts of one brand and container, read by the
-- main query (by supplier) and by its HAVING subquery (an average); the references read other
-- columns of it. Shoal computes the join once.
with j as (
    select l_suppkey, l_extendedprice
    from lineitem, part
    where l_partkey = p_partkey and p_brand = 'Brand#23' and p_container = 'MED BOX'
)
select l_suppkey, sum(l_extendedprice) as revenue
from j
group by l_suppkey
having sum(l_extendedprice) > (select avg(l_extendedprice) * 3 from j)
order by revenue desc, l_suppkey
limit 10;
