create table customers (id integer primary key, name text not null, balance numeric(10,2), since date);
create table orders (id bigint, customer integer, total double precision, paid boolean, placed timestamp);
create index orders_customer_idx on orders (customer);
create unique index orders_id_key on orders (id);
create view big_orders as select id, total from orders where total > 100;
