// The interface between the SQL logic test runner and whatever executes SQL: the local engine, a
// cluster, or a scripted fake in the runner's own tests. The runner knows nothing about SQL; it
// sends each statement's text and renders the record batches (or matches the Status) it gets back.
//
// Every .slt file runs in a fresh engine made by an SltEngineFactory, so tables created by one file
// never leak into another.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/columnar/record_batch.h"
#include "shoal/common/result.h"

namespace shoal::slt {

/// What one statement produced. Statements without a result set (DDL, INSERT) may leave `schema`
/// null; the runner then treats the result as zero columns and zero rows.
struct QueryResult {
  columnar::SchemaPtr schema;
  std::vector<columnar::RecordBatchPtr> batches;
};

class SltEngine {
 public:
  virtual ~SltEngine() = default;

  /// Runs one statement. Errors carry the code, SQLSTATE and message that `statement error` /
  /// `query error` patterns are matched against.
  virtual Result<QueryResult> Execute(std::string_view sql) = 0;

  /// For `require <feature>`: a file whose feature is missing is skipped from that line on.
  virtual bool HasFeature(std::string_view feature) const {
    (void)feature;
    return false;
  }

  /// The configuration this engine runs as ("local", "cluster-3", ...), shown in reports.
  virtual std::string ConfigName() const = 0;

  /// For `skipif <label>` / `onlyif <label>`. An engine may answer to several labels (a cluster
  /// config can be both "cluster-3" and "distributed"); by default only its config name.
  virtual bool MatchesCondition(std::string_view label) const { return label == ConfigName(); }
};

/// Makes a fresh engine session for one file. May fail (e.g. a cluster that does not start); the
/// file then counts as one failure.
using SltEngineFactory = std::function<Result<std::unique_ptr<SltEngine>>()>;

}  // namespace shoal::slt
