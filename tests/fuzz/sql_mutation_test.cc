// Mutation test of the SQL front end and planner: the 22 TPC-H queries and every statement of the
// .slt files under tests/sql are cut into tokens and edited at random -- tokens deleted,
// duplicated, swapped, replaced or inserted from a vocabulary of SQL keywords, operators, edge
// literals and the corpus's own tokens, the text truncated -- and each mutant is run through the
// whole single-node pipeline: parse (libpg_query), bind, optimize, physical planning and
// execution. TPC-H tables exist with their schemas but no rows, so every mutant of a TPC-H query
// plans against real columns and executes in no time; an .slt statement runs after the
// statements its file ran before it (its tables, rows and settings).
//
// A mutant may fail, but only with a user-facing error: a Status whose code is kInternal (a bug
// caught by a check), an empty message, a crash or a sanitizer report fails the test. Statements
// that write files (COPY) are left out, so mutants cannot write into the tree.
//
// Deterministic: SHOAL_FUZZ_SEED (default 20261129) and SHOAL_FUZZ_ITERATIONS (default 5000).
// Run under ASan + UBSan in CI (label `fuzz`). Arguments: the .sql / .slt files of the corpus.
#include <cctype>
#include <cstdio>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "shoal/engine/query_runner.h"
#include "shoal/engine/settings_catalog.h"
#include "shoal/sql/session.h"
#include "tests/slt/parser.h"
#include "tests/support/mutation_harness.h"
#include "tests/unit/sql/tpch_catalog.h"

namespace shoal {
namespace {

using testing::MutationHarness;
using testing::MutationStats;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A statement to mutate and the statements that must run before it (an .slt file's earlier
// `statement ok` records: its tables and settings).
struct Target {
  std::string origin;  // file name and line, for the report
  std::vector<std::string> setup;
  std::string sql;
  bool tpch = false;  // runs against the TPC-H schema catalog
};

bool WritesFiles(const std::string& sql) {
  std::string lower;
  for (char c : sql)
    lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("copy") != std::string::npos;
}

// Splits SQL into tokens: identifiers and keywords, numbers, quoted strings and identifiers,
// multi-character operators, single punctuation. Whitespace separates them and is dropped.
std::vector<std::string> Tokenize(const std::string& sql) {
  std::vector<std::string> tokens;
  size_t i = 0;
  const size_t n = sql.size();
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(sql[i]);
    if (std::isspace(c)) {
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (std::isalpha(c) || c == '_') {
      while (j < n && (std::isalnum(static_cast<unsigned char>(sql[j])) || sql[j] == '_'))
        ++j;
    } else if (std::isdigit(c)) {
      while (j < n && (std::isalnum(static_cast<unsigned char>(sql[j])) || sql[j] == '.'))
        ++j;
    } else if (c == '\'' || c == '"') {
      while (j < n && sql[j] != static_cast<char>(c))
        ++j;
      j = std::min(n, j + 1);
    } else if (c == '-' && j < n && sql[j] == '-') {
      while (j < n && sql[j] != '\n')
        ++j;  // a comment: keep it as one token
    } else {
      static const char* kOperators[] = {"<=", ">=", "<>", "!=", "||", "::"};
      for (const char* op : kOperators) {
        if (sql.compare(i, 2, op) == 0)
          j = i + 2;
      }
    }
    tokens.push_back(sql.substr(i, j - i));
    i = j;
  }
  return tokens;
}

std::string Join(const std::vector<std::string>& tokens) {
  std::string out;
  for (const std::string& t : tokens) {
    if (!out.empty())
      out += ' ';
    out += t;
  }
  return out;
}

// Tokens that reach the corners of the grammar and the binder: keywords in the wrong place, edge
// literals, casts to every type, NULL everywhere.
const std::vector<std::string>& ExtraVocabulary() {
  static const std::vector<std::string> kWords = {
      "SELECT", "FROM", "WHERE", "GROUP", "BY", "HAVING", "ORDER", "LIMIT", "OFFSET", "UNION",
      "ALL", "DISTINCT", "INTERSECT", "EXCEPT", "JOIN", "LEFT", "RIGHT", "FULL", "CROSS", "ON",
      "USING", "NATURAL", "AS", "IN", "NOT", "EXISTS", "AND", "OR", "IS", "NULL", "TRUE", "FALSE",
      "CASE", "WHEN", "THEN", "ELSE", "END", "CAST", "BETWEEN", "LIKE", "ILIKE", "ESCAPE",
      "SIMILAR", "TO", "regexp_replace", "regexp_count", "regexp_substr", "OVER", "PARTITION",
      "ROWS", "RANGE", "PRECEDING", "FOLLOWING", "UNBOUNDED", "CURRENT", "ROW", "WITH", "RECURSIVE",
      "VALUES", "ROLLUP", "CUBE", "GROUPING", "SETS", "FILTER", "LATERAL", "ANY", "SOME",
      "INTERVAL", "DATE", "TIMESTAMP", "EXTRACT", "YEAR", "DAY", "SUBSTRING", "FOR", "POSITION",
      "TRIM", "BOTH", "COALESCE", "NULLIF", "GREATEST", "count", "sum", "avg", "min", "max",
      "row_number", "rank", "lag", "string_agg",
      // Arrays, records and maps (tests/sql/arrays.slt).
      "ARRAY", "[", "]", ":", "@>", "<@", "&&", "unnest", "ORDINALITY", "array_agg", "array_cat",
      "cardinality", "string_to_array", "map", "'{1,NULL,{2}}'", "int[]", "*", "(", ")", ",", ";",
      ".", "+", "-", "/", "%", "=", "<", ">", "<=", ">=", "<>", "||", "~", "~*", "!~", "'(a*)*b'",
      "'((('", "'[[:alpha:]]{2,}?'", "'\\'", "'g'", "::", "0", "1", "-1", "2", "0.5", "1e308",
      "-1e308", "9223372036854775807", "-9223372036854775808", "2147483648",
      "99999999999999999999999999999999999999", "0.00000000000000000000000000000000000001", "''",
      "'x'", "'2020-02-30'", "'1998-12-01'", "'90 days'", "'NaN'", "'-infinity'", "int", "bigint",
      "smallint", "integer", "real", "double", "precision", "numeric(38,10)", "decimal(15,2)",
      "varchar", "text", "boolean", "date", "bytea"};
  return kWords;
}

class Mutator {
 public:
  Mutator(uint64_t seed, std::vector<std::string> vocabulary)
      : rng_(seed), vocabulary_(std::move(vocabulary)) {}

  std::string Mutate(const std::string& sql) {
    std::vector<std::string> tokens = Tokenize(sql);
    const int edits = 1 + static_cast<int>(Uniform(3));
    for (int e = 0; e < edits; ++e)
      Edit(&tokens);
    return Join(tokens);
  }

 private:
  size_t Uniform(size_t n) {
    return n == 0 ? 0 : std::uniform_int_distribution<size_t>(0, n - 1)(rng_);
  }

  const std::string& Word() { return vocabulary_[Uniform(vocabulary_.size())]; }

  void Edit(std::vector<std::string>* tokens) {
    std::vector<std::string>& t = *tokens;
    const size_t n = t.size();
    switch (Uniform(7)) {
      case 0:  // delete a token
        if (n > 0)
          t.erase(t.begin() + static_cast<std::ptrdiff_t>(Uniform(n)));
        break;
      case 1:  // duplicate a token
        if (n > 0) {
          size_t i = Uniform(n);
          t.insert(t.begin() + static_cast<std::ptrdiff_t>(i), t[i]);
        }
        break;
      case 2:  // swap two tokens
        if (n > 1)
          std::swap(t[Uniform(n)], t[Uniform(n)]);
        break;
      case 3:  // replace a token
        if (n > 0)
          t[Uniform(n)] = Word();
        break;
      case 4:  // insert a token
        t.insert(t.begin() + static_cast<std::ptrdiff_t>(Uniform(n + 1)), Word());
        break;
      case 5:  // delete a run of tokens
        if (n > 1) {
          size_t i = Uniform(n);
          size_t len = 1 + Uniform(std::min<size_t>(8, n - i));
          t.erase(t.begin() + static_cast<std::ptrdiff_t>(i),
                  t.begin() + static_cast<std::ptrdiff_t>(i + len));
        }
        break;
      default:  // truncate
        if (n > 1)
          t.resize(Uniform(n));
        break;
    }
  }

  std::mt19937_64 rng_;
  std::vector<std::string> vocabulary_;
};

// Loads the corpus: .sql files are TPC-H queries; .slt files give one target per record.
bool LoadCorpus(const std::vector<std::string>& paths, std::vector<Target>* targets) {
  for (const std::string& path : paths) {
    const std::string text = ReadFile(path);
    if (text.empty()) {
      std::fprintf(stderr, "cannot read %s\n", path.c_str());
      return false;
    }
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".sql") == 0) {
      targets->push_back(Target{path, {}, text, true});
      continue;
    }
    Result<slt::SltScript> script = slt::ParseSlt(text, path);
    if (!script.ok()) {
      std::fprintf(stderr, "%s\n", script.status().ToString().c_str());
      return false;
    }
    std::vector<std::string> setup;
    for (const slt::Record& record : script->records) {
      if (record.kind != slt::RecordKind::kStatement && record.kind != slt::RecordKind::kQuery)
        continue;
      if (record.sql.empty() || WritesFiles(record.sql))
        continue;
      targets->push_back(
          Target{path + ":" + std::to_string(record.header_line + 1), setup, record.sql, false});
      if (record.kind == slt::RecordKind::kStatement && !record.expect_error)
        setup.push_back(record.sql);
    }
  }
  return true;
}

// A mutant of a WITH RECURSIVE query may lose its stop condition (n < 5 becomes n <> 5): a
// bounded number of rounds makes it fail instead of running forever. A mutant may also ask for
// an endless result (generate_series(1, 9223372036854775807) from a series whose start was
// dropped), which the runner collects: a memory limit well below the machine's makes it fail with
// "memory limit exceeded" rather than grow to the default limit (half the machine's memory),
// which under ASan's allocation overhead is more than the machine has.
std::unique_ptr<engine::QueryRunner> MakeRunner(bool tpch) {
  auto runner = tpch ? std::make_unique<engine::QueryRunner>(
                           std::make_shared<sql::Session>(sql::testing::MakeTpchCatalog()))
                     : std::make_unique<engine::QueryRunner>();
  (void)runner->RunAll("SET max_recursion_rounds = 1000");
  (void)runner->RunAll("SET memory_limit = '1GB'");
  return runner;
}

int Main(int argc, char** argv) {
  if (Status st = engine::RegisterSettings(); !st.ok()) {
    std::fprintf(stderr, "settings: %s\n", st.ToString().c_str());
    return 1;
  }
  std::vector<std::string> paths(argv + 1, argv + argc);
  if (paths.empty()) {
    std::fprintf(stderr, "usage: shoal_sql_mutation_test FILE.sql|FILE.slt ...\n");
    return 2;
  }
  std::vector<Target> targets;
  if (!LoadCorpus(paths, &targets) || targets.empty())
    return 2;

  std::vector<std::string> vocabulary = ExtraVocabulary();
  for (const Target& t : targets) {
    for (std::string& token : Tokenize(t.sql)) {
      if (!WritesFiles(token))
        vocabulary.push_back(std::move(token));
    }
  }

  MutationHarness harness("sql mutation test", 20261129, 5000);
  Mutator mutator(harness.seed(), std::move(vocabulary));
  std::mt19937_64 pick(harness.seed() ^ 0x9e3779b97f4a7c15ULL);
  // A user-facing error is a fine outcome; kInternal (a check caught a bug) or an error without a
  // message is not.
  auto user_facing = [](const Status& st) {
    return st.code() != StatusCode::kInternal && !st.message().empty();
  };
  harness.Run([&](int64_t i, MutationStats* stats) {
    const Target& target = targets[pick() % targets.size()];
    const std::string mutant = mutator.Mutate(target.sql);
    if (WritesFiles(mutant))
      return;
    stats->SetInput(target.origin, mutant);
    std::unique_ptr<engine::QueryRunner> runner = MakeRunner(target.tpch);
    for (const std::string& statement : target.setup)
      (void)runner->RunAll(statement);
    ++stats->reads;
    Result<std::vector<engine::QueryResult>> result = runner->RunAll(mutant);
    stats->Check(result.status(),
                 fmt::format("iteration {}, mutant of {}:\n  {}\n ", i, target.origin, mutant),
                 user_facing);
  });
  return harness.Finish({}, fmt::format("of {} statements", targets.size()));
}

}  // namespace
}  // namespace shoal

int main(int argc, char** argv) {
  return shoal::Main(argc, argv);
}
