#include "shoal/io/tpch/tpch_memory_tables.h"

#include <memory>
#include <string>
#include <thread>
#include <utility>

#include <fmt/format.h>

#include "shoal/columnar/builder.h"
#include "shoal/columnar/record_batch.h"
#include "shoal/common/memory_pool.h"
#include "shoal/io/tpch/customer_generator.h"
#include "shoal/io/tpch/nation_generator.h"
#include "shoal/io/tpch/order_generator.h"
#include "shoal/io/tpch/part_generator.h"
#include "shoal/io/tpch/region_generator.h"
#include "shoal/io/tpch/rows.h"
#include "shoal/io/tpch/supplier_generator.h"
#include "shoal/io/tpch/text_pool.h"

namespace shoal::io::tpch {

namespace {

using columnar::DataType;
using columnar::Field;

DataType Key() {
  return DataType::Int64();
}
DataType Int() {
  return DataType::Int32();
}
DataType Money() {
  return DataType::Decimal(15, 2);
}
DataType Date() {
  return DataType::Date32();
}
DataType Text() {
  return DataType::Utf8();
}

std::vector<Field> TpchFields(TpchTable table) {
  switch (table) {
    case TpchTable::kRegion:
      return {Field("r_regionkey", Key(), false), Field("r_name", Text(), false),
              Field("r_comment", Text(), false)};
    case TpchTable::kNation:
      return {Field("n_nationkey", Key(), false), Field("n_name", Text(), false),
              Field("n_regionkey", Key(), false), Field("n_comment", Text(), false)};
    case TpchTable::kSupplier:
      return {Field("s_suppkey", Key(), false),  Field("s_name", Text(), false),
              Field("s_address", Text(), false), Field("s_nationkey", Key(), false),
              Field("s_phone", Text(), false),   Field("s_acctbal", Money(), false),
              Field("s_comment", Text(), false)};
    case TpchTable::kCustomer:
      return {Field("c_custkey", Key(), false),     Field("c_name", Text(), false),
              Field("c_address", Text(), false),    Field("c_nationkey", Key(), false),
              Field("c_phone", Text(), false),      Field("c_acctbal", Money(), false),
              Field("c_mktsegment", Text(), false), Field("c_comment", Text(), false)};
    case TpchTable::kPart:
      return {Field("p_partkey", Key(), false),    Field("p_name", Text(), false),
              Field("p_mfgr", Text(), false),      Field("p_brand", Text(), false),
              Field("p_type", Text(), false),      Field("p_size", Int(), false),
              Field("p_container", Text(), false), Field("p_retailprice", Money(), false),
              Field("p_comment", Text(), false)};
    case TpchTable::kPartSupp:
      return {Field("ps_partkey", Key(), false), Field("ps_suppkey", Key(), false),
              Field("ps_availqty", Int(), false), Field("ps_supplycost", Money(), false),
              Field("ps_comment", Text(), false)};
    case TpchTable::kOrders:
      return {Field("o_orderkey", Key(), false),     Field("o_custkey", Key(), false),
              Field("o_orderstatus", Text(), false), Field("o_totalprice", Money(), false),
              Field("o_orderdate", Date(), false),   Field("o_orderpriority", Text(), false),
              Field("o_clerk", Text(), false),       Field("o_shippriority", Int(), false),
              Field("o_comment", Text(), false)};
    case TpchTable::kLineItem:
      return {Field("l_orderkey", Key(), false),     Field("l_partkey", Key(), false),
              Field("l_suppkey", Key(), false),      Field("l_linenumber", Int(), false),
              Field("l_quantity", Money(), false),   Field("l_extendedprice", Money(), false),
              Field("l_discount", Money(), false),   Field("l_tax", Money(), false),
              Field("l_returnflag", Text(), false),  Field("l_linestatus", Text(), false),
              Field("l_shipdate", Date(), false),    Field("l_commitdate", Date(), false),
              Field("l_receiptdate", Date(), false), Field("l_shipinstruct", Text(), false),
              Field("l_shipmode", Text(), false),    Field("l_comment", Text(), false)};
  }
  return {};
}

std::string Phone(const PhoneNumber& phone) {
  return fmt::format("{:02}-{:03}-{:03}-{:04}", phone.country, phone.area, phone.exchange,
                     phone.number);
}

// Collects rows of one table column by column and cuts them into batches of kTpchBatchRows.
// Values are appended in column order through the typed setters; EndRow closes a row.
class BatchCollector {
 public:
  explicit BatchCollector(columnar::SchemaPtr schema) : schema_(std::move(schema)) { Reset(); }

  void Int64(int64_t v) { Next<columnar::Int64Builder>()->UnsafeAppend(v); }
  void Int32(int64_t v) { Next<columnar::Int32Builder>()->UnsafeAppend(static_cast<int32_t>(v)); }
  void Decimal(int64_t unscaled) { Next<columnar::Decimal64Builder>()->UnsafeAppend(unscaled); }
  void Date(int32_t days) { Next<columnar::Int32Builder>()->UnsafeAppend(days); }
  void Text(std::string_view v) {
    Status st = Next<columnar::BinaryBuilder>()->Append(v);
    if (status_.ok()) {
      status_ = std::move(st);
    }
  }
  void Char(char c) { Text(std::string_view(&c, 1)); }

  Status EndRow() {
    column_ = 0;
    if (++rows_ == kTpchBatchRows) {
      return Flush();
    }
    return status_;
  }

  Result<std::vector<columnar::RecordBatchPtr>> Finish() {
    SHOAL_RETURN_IF_ERROR(Flush());
    return std::move(batches_);
  }

 private:
  template <typename Builder>
  Builder* Next() {
    return static_cast<Builder*>(builders_[static_cast<size_t>(column_++)].get());
  }

  void Reset() {
    builders_.clear();
    for (int c = 0; c < schema_->num_fields(); ++c) {
      builders_.push_back(columnar::MakeBuilder(schema_->field(c).type, DefaultMemoryPool()));
      if (status_.ok()) {
        status_ = builders_.back()->Reserve(kTpchBatchRows);
      }
    }
    rows_ = 0;
  }

  Status Flush() {
    SHOAL_RETURN_IF_ERROR(status_);
    if (rows_ == 0) {
      return Status::OK();
    }
    std::vector<columnar::ArrayPtr> columns;
    for (auto& builder : builders_) {
      SHOAL_ASSIGN_OR_RETURN(columnar::ArrayPtr array, builder->Finish());
      columns.push_back(std::move(array));
    }
    batches_.push_back(columnar::RecordBatch::Make(schema_, rows_, std::move(columns)));
    Reset();
    return status_;
  }

  columnar::SchemaPtr schema_;
  std::vector<std::unique_ptr<columnar::ArrayBuilder>> builders_;
  std::vector<columnar::RecordBatchPtr> batches_;
  int column_ = 0;
  int64_t rows_ = 0;
  Status status_;
};

Result<std::vector<columnar::RecordBatchPtr>> Generate(const TpchScale& scale, const TextPool& text,
                                                       TpchTable table, int64_t begin,
                                                       int64_t end) {
  BatchCollector out(TpchSchema(table));
  switch (table) {
    case TpchTable::kRegion: {
      RegionGenerator gen(scale, text);
      RegionRow row;
      gen.Seek(begin);
      for (int64_t i = begin; i < end; ++i) {
        gen.Next(&row);
        out.Int64(row.region_key);
        out.Text(row.name);
        out.Text(row.comment);
        SHOAL_RETURN_IF_ERROR(out.EndRow());
      }
      break;
    }
    case TpchTable::kNation: {
      NationGenerator gen(scale, text);
      NationRow row;
      gen.Seek(begin);
      for (int64_t i = begin; i < end; ++i) {
        gen.Next(&row);
        out.Int64(row.nation_key);
        out.Text(row.name);
        out.Int64(row.region_key);
        out.Text(row.comment);
        SHOAL_RETURN_IF_ERROR(out.EndRow());
      }
      break;
    }
    case TpchTable::kSupplier: {
      SupplierGenerator gen(scale, text);
      SupplierRow row;
      gen.Seek(begin);
      for (int64_t i = begin; i < end; ++i) {
        gen.Next(&row);
        out.Int64(row.supp_key);
        out.Text(fmt::format("Supplier#{:09}", row.supp_key));
        out.Text(row.address());
        out.Int64(row.nation_key);
        out.Text(Phone(row.phone));
        out.Decimal(row.account_balance);
        out.Text(row.comment());
        SHOAL_RETURN_IF_ERROR(out.EndRow());
      }
      break;
    }
    case TpchTable::kCustomer: {
      CustomerGenerator gen(scale, text);
      CustomerRow row;
      gen.Seek(begin);
      for (int64_t i = begin; i < end; ++i) {
        gen.Next(&row);
        out.Int64(row.cust_key);
        out.Text(fmt::format("Customer#{:09}", row.cust_key));
        out.Text(row.address());
        out.Int64(row.nation_key);
        out.Text(Phone(row.phone));
        out.Decimal(row.account_balance);
        out.Text(row.market_segment);
        out.Text(row.comment);
        SHOAL_RETURN_IF_ERROR(out.EndRow());
      }
      break;
    }
    case TpchTable::kPart:
    case TpchTable::kPartSupp: {
      PartGenerator gen(scale, text);
      PartRow row;
      gen.Seek(begin);
      for (int64_t i = begin; i < end; ++i) {
        gen.Next(&row);
        if (table == TpchTable::kPart) {
          out.Int64(row.part_key);
          out.Text(row.name());
          out.Text(fmt::format("Manufacturer#{}", row.manufacturer));
          out.Text(fmt::format("Brand#{:02}", row.brand));
          out.Text(row.type);
          out.Int32(row.size);
          out.Text(row.container);
          out.Decimal(row.retail_price);
          out.Text(row.comment);
          SHOAL_RETURN_IF_ERROR(out.EndRow());
          continue;
        }
        for (const PartSuppRow& ps : row.suppliers) {
          out.Int64(ps.part_key);
          out.Int64(ps.supp_key);
          out.Int32(ps.available_quantity);
          out.Decimal(ps.supply_cost);
          out.Text(ps.comment);
          SHOAL_RETURN_IF_ERROR(out.EndRow());
        }
      }
      break;
    }
    case TpchTable::kOrders:
    case TpchTable::kLineItem: {
      OrderGenerator gen(scale, text);
      OrderRow row;
      gen.Seek(begin);
      for (int64_t i = begin; i < end; ++i) {
        gen.Next(&row);
        if (table == TpchTable::kOrders) {
          out.Int64(row.order_key);
          out.Int64(row.cust_key);
          out.Char(row.order_status);
          out.Decimal(row.total_price);
          out.Date(row.order_date);
          out.Text(row.order_priority);
          out.Text(fmt::format("Clerk#{:09}", row.clerk));
          out.Int32(row.ship_priority);
          out.Text(row.comment);
          SHOAL_RETURN_IF_ERROR(out.EndRow());
          continue;
        }
        for (int l = 0; l < row.line_count; ++l) {
          const LineItemRow& line = row.lines[l];
          out.Int64(line.order_key);
          out.Int64(line.part_key);
          out.Int64(line.supp_key);
          out.Int32(line.line_number);
          out.Decimal(line.quantity * 100);
          out.Decimal(line.extended_price);
          out.Decimal(line.discount);
          out.Decimal(line.tax);
          out.Char(line.return_flag);
          out.Char(line.line_status);
          out.Date(line.ship_date);
          out.Date(line.commit_date);
          out.Date(line.receipt_date);
          out.Text(line.ship_instruct);
          out.Text(line.ship_mode);
          out.Text(line.comment);
          SHOAL_RETURN_IF_ERROR(out.EndRow());
        }
      }
      break;
    }
  }
  return out.Finish();
}

}  // namespace

columnar::SchemaPtr TpchSchema(TpchTable table) {
  return std::make_shared<const columnar::Schema>(TpchFields(table));
}

int64_t TpchParentRows(const TpchScale& scale, TpchTable table) {
  switch (table) {
    case TpchTable::kPartSupp: return scale.part_count();
    case TpchTable::kLineItem: return scale.order_count();
    default: return scale.RowCount(table);
  }
}

Result<std::vector<columnar::RecordBatchPtr>> GenerateTpchBatches(const TpchScale& scale,
                                                                  const TextPool& text,
                                                                  TpchTable table, int64_t begin,
                                                                  int64_t end) {
  return Generate(scale, text, table, begin, end);
}

Result<std::shared_ptr<MemoryTable>> MakeTpchTable(const TpchScale& scale, TpchTable table) {
  SHOAL_ASSIGN_OR_RETURN(std::shared_ptr<const TextPool> text, TextPool::Build(1));
  SHOAL_ASSIGN_OR_RETURN(auto batches,
                         Generate(scale, *text, table, 0, TpchParentRows(scale, table)));
  return MemoryTable::Make(TpchSchema(table), std::move(batches));
}

Result<std::vector<NamedTpchTable>> MakeTpchTables(const TpchScale& scale) {
  int threads = static_cast<int>(std::thread::hardware_concurrency());
  SHOAL_ASSIGN_OR_RETURN(std::shared_ptr<const TextPool> text,
                         TextPool::Build(threads < 1 ? 1 : threads));
  std::vector<NamedTpchTable> tables;
  for (TpchTable table : kAllTpchTables) {
    SHOAL_ASSIGN_OR_RETURN(auto batches,
                           Generate(scale, *text, table, 0, TpchParentRows(scale, table)));
    SHOAL_ASSIGN_OR_RETURN(std::shared_ptr<MemoryTable> provider,
                           MemoryTable::Make(TpchSchema(table), std::move(batches)));
    tables.push_back({std::string(TpchTableName(table)), std::move(provider)});
  }
  return tables;
}

}  // namespace shoal::io::tpch
