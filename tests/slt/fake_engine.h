// A scripted SltEngine for the runner's own tests: it answers exact SQL strings with prepared
// results or errors and logs what it was asked, so every runner behaviour can be checked without a
// SQL engine. Unknown SQL is an error, so a test cannot pass by accident.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/slt/engine.h"
#include "tests/support/batch_builder.h"

namespace shoal::slt {

/// The script shared by every session a factory makes.
struct FakeScript {
  std::map<std::string, Result<QueryResult>> answers;
  std::set<std::string> features;
  std::set<std::string> labels;  // extra labels MatchesCondition accepts
  std::string config = "fake";
  std::vector<std::string> log;  // every SQL executed, in order
  int sessions = 0;

  void On(const std::string& sql, QueryResult result) {
    answers.insert_or_assign(sql, std::move(result));
  }

  void OnError(const std::string& sql, Status status) {
    answers.insert_or_assign(sql, std::move(status));
  }

  SltEngineFactory Factory();
};

class FakeEngine : public SltEngine {
 public:
  explicit FakeEngine(FakeScript* script) : script_(script) {}

  Result<QueryResult> Execute(std::string_view sql) override {
    script_->log.emplace_back(sql);
    auto it = script_->answers.find(std::string(sql));
    if (it == script_->answers.end())
      return Status::NotImplemented("fake engine has no answer for: {}", sql);
    return it->second;
  }

  bool HasFeature(std::string_view feature) const override {
    return script_->features.count(std::string(feature)) > 0;
  }

  std::string ConfigName() const override { return script_->config; }

  bool MatchesCondition(std::string_view label) const override {
    return SltEngine::MatchesCondition(label) || script_->labels.count(std::string(label)) > 0;
  }

 private:
  FakeScript* script_;
};

inline SltEngineFactory FakeScript::Factory() {
  return [this]() -> Result<std::unique_ptr<SltEngine>> {
    ++sessions;
    return std::unique_ptr<SltEngine>(std::make_unique<FakeEngine>(this));
  };
}

/// A result of one batch built from text rows (tests/support/batch_builder.h spelling).
inline QueryResult MakeResult(const std::vector<columnar::Field>& fields,
                              const std::vector<testing::TextRow>& rows) {
  QueryResult result;
  result.schema = std::make_shared<columnar::Schema>(fields);
  result.batches.push_back(testing::MakeBatch(fields, rows));
  return result;
}

/// A one-column int64 result.
inline QueryResult Ints(const std::vector<std::string>& values) {
  std::vector<testing::TextRow> rows;
  for (const std::string& v : values)
    rows.push_back({v});
  return MakeResult({{"x", columnar::DataType::Int64()}}, rows);
}

}  // namespace shoal::slt
