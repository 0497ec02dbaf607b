#include "shoal/engine/table_constraints.h"

#include <string>
#include <utility>

#include <fmt/format.h>

#include "shoal/columnar/pretty_print.h"
#include "shoal/exec/array_ops.h"
#include "shoal/exec/row_key/grouper.h"

namespace shoal::engine {
namespace {

using columnar::ArrayPtr;
using columnar::DataType;
using columnar::RecordBatch;
using columnar::RecordBatchPtr;
using columnar::TypeId;

class UniqueKeyState final : public sql::IndexState {
 public:
  std::mutex mutex;
  std::unique_ptr<exec::Grouper> keys;  // null: to be built from the table's rows
};

UniqueKeyState* StateOf(const sql::IndexEntry& index) {
  return dynamic_cast<UniqueKeyState*>(index.state.get());
}

/// "(a, b)=(1, x)": the key of row `row` as PostgreSQL's DETAIL spells it.
std::string KeyText(const sql::IndexEntry& index, const std::vector<ArrayPtr>& keys, int64_t row) {
  std::string names;
  std::string values;
  for (size_t i = 0; i < keys.size(); ++i) {
    names += (i > 0 ? ", " : "") + index.columns[i];
    values += i > 0 ? ", " : "";
    values += keys[i]->IsNull(row) ? "null" : columnar::FormatValue(*keys[i], row);
  }
  return fmt::format("({})=({})", names, values);
}

/// Consumes the keys of `batch` into `grouper`; `*duplicate` is set to the text of the first
/// key that was already there (or earlier in the batch).
Status ConsumeKeys(const sql::IndexEntry& index, const std::vector<int>& columns,
                   const RecordBatch& batch, exec::Grouper* grouper, std::string* duplicate) {
  const auto& pool = DefaultMemoryPool();
  std::vector<ArrayPtr> keys;
  for (int c : columns) {
    ArrayPtr a = batch.column(c);
    if (a->type_id() == TypeId::kDictionary) {
      SHOAL_ASSIGN_OR_RETURN(a, exec::DecodeDictionary(a, pool));
    }
    keys.push_back(std::move(a));
  }
  int64_t n = batch.num_rows();
  if (index.nulls_distinct) {
    // A key with a NULL part equals no other key: those rows are not consumed.
    exec::SelectionVector rows;
    bool any_null = false;
    for (const auto& k : keys)
      any_null = any_null || k->null_count() > 0;
    if (any_null) {
      for (int64_t r = 0; r < n; ++r) {
        bool valid = true;
        for (const auto& k : keys)
          valid = valid && k->IsValid(r);
        if (valid)
          rows.push_back(static_cast<int32_t>(r));
      }
      for (auto& k : keys) {
        SHOAL_ASSIGN_OR_RETURN(
            k, exec::Take(*k, rows.data(), static_cast<int64_t>(rows.size()), pool));
      }
      n = static_cast<int64_t>(rows.size());
    }
  }
  if (n == 0)
    return Status::OK();
  std::vector<uint32_t> ids;
  auto next_new = static_cast<uint32_t>(grouper->num_groups());
  SHOAL_RETURN_IF_ERROR(grouper->Consume(keys, n, &ids));
  for (int64_t r = 0; r < n; ++r) {
    if (ids[static_cast<size_t>(r)] == next_new) {
      ++next_new;
      continue;
    }
    *duplicate = KeyText(index, keys, r);
    return Status::OK();
  }
  return Status::OK();
}

Result<std::vector<int>> KeyColumns(const sql::IndexEntry& index, const columnar::Schema& schema) {
  std::vector<int> columns;
  for (const auto& name : index.columns) {
    auto i = schema.FieldIndex(name);
    if (!i)
      return Status::Internal("unique index {}: table has no column {}", index.name, name);
    columns.push_back(*i);
  }
  return columns;
}

Result<std::unique_ptr<exec::Grouper>> MakeGrouper(const std::vector<int>& columns,
                                                   const columnar::Schema& schema) {
  std::vector<DataType> types;
  for (int c : columns) {
    const DataType& t = schema.field(c).type;
    types.push_back(t.id() == TypeId::kDictionary ? t.value_type() : t);
  }
  return exec::Grouper::Make(types);
}

/// The keys of every row `table` has, into a fresh grouper; `*duplicate` as in ConsumeKeys.
Status Rebuild(const sql::IndexEntry& index, const io::TableStorage& table, UniqueKeyState* state,
               std::string* duplicate) {
  const columnar::SchemaPtr schema = table.schema();
  SHOAL_ASSIGN_OR_RETURN(auto columns, KeyColumns(index, *schema));
  SHOAL_ASSIGN_OR_RETURN(state->keys, MakeGrouper(columns, *schema));
  SHOAL_ASSIGN_OR_RETURN(auto rows, io::ReadAllRows(*table.Snapshot()));
  for (const RecordBatchPtr& b : rows) {
    SHOAL_RETURN_IF_ERROR(ConsumeKeys(index, columns, *b, state->keys.get(), duplicate));
    if (!duplicate->empty())
      break;
  }
  return Status::OK();
}

}  // namespace

std::shared_ptr<sql::IndexState> MakeUniqueKeyState() {
  return std::make_shared<UniqueKeyState>();
}

Status BuildUniqueIndex(const sql::IndexEntry& index, const io::TableStorage& table) {
  UniqueKeyState* state = StateOf(index);
  if (state == nullptr)
    return Status::Internal("unique index {} has no key state", index.name);
  std::lock_guard<std::mutex> lock(state->mutex);
  std::string duplicate;
  SHOAL_RETURN_IF_ERROR(Rebuild(index, table, state, &duplicate));
  if (!duplicate.empty()) {
    state->keys.reset();
    return Status::InvalidArgument("could not create unique index \"{}\"", index.name)
        .WithSqlState("23505")
        .WithHint(fmt::format("Key {} is duplicated.", duplicate));
  }
  return Status::OK();
}

Status CheckNotNullRows(const std::string& name, const columnar::Schema& schema,
                        const RecordBatch& batch) {
  for (int c = 0; c < schema.num_fields(); ++c) {
    if (schema.field(c).nullable || batch.column(c)->null_count() == 0)
      continue;
    return Status::InvalidArgument(
               "null value in column \"{}\" of relation \"{}\" violates not-null constraint",
               schema.field(c).name, name)
        .WithSqlState("23502");
  }
  return Status::OK();
}

namespace {

Status CheckNotNull(const std::string& name, const columnar::Schema& schema,
                    const std::vector<RecordBatchPtr>& batches) {
  for (const RecordBatchPtr& b : batches)
    SHOAL_RETURN_IF_ERROR(CheckNotNullRows(name, schema, *b));
  return Status::OK();
}

std::vector<const sql::IndexEntry*> UniqueIndexes(const std::vector<sql::IndexEntry>& indexes) {
  std::vector<const sql::IndexEntry*> unique;
  for (const auto& index : indexes) {
    if (index.unique && StateOf(index) != nullptr)
      unique.push_back(&index);
  }
  return unique;
}

}  // namespace

Status ReplaceChecked(const std::string& name, const std::vector<sql::IndexEntry>& indexes,
                      io::TableStorage* table, std::vector<RecordBatchPtr> batches,
                      const columnar::SchemaPtr& new_schema) {
  const columnar::SchemaPtr schema = new_schema != nullptr ? new_schema : table->schema();
  SHOAL_RETURN_IF_ERROR(CheckNotNull(name, *schema, batches));
  std::vector<const sql::IndexEntry*> unique = UniqueIndexes(indexes);
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(unique.size());
  for (const auto* index : unique)
    locks.emplace_back(StateOf(*index)->mutex);
  // Fresh sets over the new rows alone; they become the indexes' sets if the rows are committed.
  std::vector<std::unique_ptr<exec::Grouper>> fresh;
  for (const auto* index : unique) {
    SHOAL_ASSIGN_OR_RETURN(auto columns, KeyColumns(*index, *schema));
    SHOAL_ASSIGN_OR_RETURN(auto grouper, MakeGrouper(columns, *schema));
    std::string duplicate;
    for (const RecordBatchPtr& b : batches) {
      SHOAL_RETURN_IF_ERROR(ConsumeKeys(*index, columns, *b, grouper.get(), &duplicate));
      if (!duplicate.empty())
        return Status::InvalidArgument("duplicate key value violates unique constraint \"{}\"",
                                       index->name)
            .WithSqlState("23505")
            .WithHint(fmt::format("Key {} already exists.", duplicate));
    }
    fresh.push_back(std::move(grouper));
  }
  Status replaced = table->Replace(std::move(batches), new_schema);
  for (size_t i = 0; i < unique.size(); ++i) {
    if (replaced.ok())
      StateOf(*unique[i])->keys = std::move(fresh[i]);
    else
      StateOf(*unique[i])->keys.reset();
  }
  return replaced;
}

Status CommitRewriteChecked(const std::vector<sql::IndexEntry>& indexes,
                            const columnar::Schema& schema, io::TableRewrite* rewrite) {
  std::vector<const sql::IndexEntry*> unique = UniqueIndexes(indexes);
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(unique.size());
  for (const auto* index : unique)
    locks.emplace_back(StateOf(*index)->mutex);
  // Fresh sets over the rows the table will have, read batch by batch; they become the indexes'
  // sets if the rewrite commits.
  std::vector<std::unique_ptr<exec::Grouper>> fresh;
  if (!unique.empty()) {
    SHOAL_ASSIGN_OR_RETURN(io::TableProviderPtr rows, rewrite->NewRows());
    for (const auto* index : unique) {
      SHOAL_ASSIGN_OR_RETURN(auto columns, KeyColumns(*index, schema));
      SHOAL_ASSIGN_OR_RETURN(auto grouper, MakeGrouper(columns, schema));
      std::string duplicate;
      SHOAL_RETURN_IF_ERROR(io::ForEachBatch(*rows, [&](const RecordBatchPtr& b) {
        return duplicate.empty() ? ConsumeKeys(*index, columns, *b, grouper.get(), &duplicate)
                                 : Status::OK();
      }));
      if (!duplicate.empty())
        return Status::InvalidArgument("duplicate key value violates unique constraint \"{}\"",
                                       index->name)
            .WithSqlState("23505")
            .WithHint(fmt::format("Key {} already exists.", duplicate));
      fresh.push_back(std::move(grouper));
    }
  }
  Status committed = rewrite->Commit();
  for (size_t i = 0; i < unique.size(); ++i) {
    if (committed.ok())
      StateOf(*unique[i])->keys = std::move(fresh[i]);
    else
      StateOf(*unique[i])->keys.reset();
  }
  return committed;
}

Status AppendChecked(const std::string& name, const std::vector<sql::IndexEntry>& indexes,
                     io::TableStorage* table, std::vector<RecordBatchPtr> batches) {
  const columnar::SchemaPtr table_schema = table->schema();
  SHOAL_RETURN_IF_ERROR(CheckNotNull(name, *table_schema, batches));
  std::vector<const sql::IndexEntry*> unique;
  for (const auto& index : indexes) {
    if (index.unique && StateOf(index) != nullptr)
      unique.push_back(&index);
  }
  std::vector<std::unique_lock<std::mutex>> locks;
  locks.reserve(unique.size());
  for (const auto* index : unique)
    locks.emplace_back(StateOf(*index)->mutex);
  // On any failure every grouper this INSERT touched may hold keys that were never appended.
  auto forget = [&]() {
    for (const auto* index : unique)
      StateOf(*index)->keys.reset();
  };
  for (const auto* index : unique) {
    UniqueKeyState* state = StateOf(*index);
    std::string duplicate;
    if (!state->keys) {
      Status built = Rebuild(*index, *table, state, &duplicate);
      if (!built.ok() || !duplicate.empty()) {
        forget();
        return built.ok() ? Status::Internal("unique index {} holds a duplicate {}", index->name,
                                             duplicate)
                          : built;
      }
    }
    auto columns = KeyColumns(*index, *table_schema);
    if (!columns.ok()) {
      forget();
      return columns.status();
    }
    for (const RecordBatchPtr& b : batches) {
      Status consumed = ConsumeKeys(*index, *columns, *b, state->keys.get(), &duplicate);
      if (!consumed.ok() || !duplicate.empty()) {
        forget();
        if (!consumed.ok())
          return consumed;
        return Status::InvalidArgument("duplicate key value violates unique constraint \"{}\"",
                                       index->name)
            .WithSqlState("23505")
            .WithHint(fmt::format("Key {} already exists.", duplicate));
      }
    }
  }
  Status appended = table->Append(std::move(batches));
  if (!appended.ok())
    forget();
  return appended;
}

}  // namespace shoal::engine
