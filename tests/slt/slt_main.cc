#include "tests/slt/slt_main.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iostream>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tests/slt/engine_registry.h"
#include "tests/slt/runner.h"

namespace shoal::slt {
namespace {

constexpr const char* kUsage =
    "usage: shoal_slt [--config NAME] [--complete] [--max-reports N] FILES/DIRS...\n"
    "  --config NAME      engine configuration to run (default: the first registered)\n"
    "  --complete         rewrite expected results that do not match, in place\n"
    "  --max-reports N    failures reported in full per file (default 20; the rest are counted)\n"
    "  --sqlite-types     type characters say how values print, as in SQLite's own corpus\n";

}  // namespace

int RunSltCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string config;
  bool have_config = false;
  RunnerOptions options;
  std::vector<std::string> paths;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--complete") {
      options.complete = true;
    } else if (arg == "--config" && i + 1 < args.size()) {
      config = args[++i];
      have_config = true;
    } else if (arg == "--config") {
      err << "shoal_slt: --config needs a value\n" << kUsage;
      return 2;
    } else if (arg.rfind("--config=", 0) == 0) {
      config = arg.substr(9);
      have_config = true;
    } else if (arg == "--sqlite-types") {
      options.sqlite_types = true;
    } else if (arg == "--max-reports" && i + 1 < args.size()) {
      // A whole foreign corpus (SQLite's select*.test) is triaged from one run's report.
      const std::string& value = args[++i];
      size_t parsed = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
      if (ec != std::errc() || end != value.data() + value.size()) {
        err << "shoal_slt: --max-reports needs a number, got '" << value << "'\n" << kUsage;
        return 2;
      }
      options.max_reports = parsed;
    } else if (arg == "--help" || arg == "-h") {
      out << kUsage;
      return 0;
    } else if (!arg.empty() && arg[0] == '-') {
      err << "shoal_slt: unknown option " << arg << "\n" << kUsage;
      return 2;
    } else {
      paths.push_back(arg);
    }
  }
  if (paths.empty()) {
    err << "shoal_slt: no files given\n" << kUsage;
    return 2;
  }

  std::vector<std::string> registered = RegisteredSltEngines();
  SltEngineFactory factory;
  if (registered.empty()) {
    factory = [config]() -> Result<std::unique_ptr<SltEngine>> {
      return Status::NotImplemented(
          "no SQL engine linked yet: this shoal_slt registers no engine{}",
          config.empty() ? "" : fmt::format(" (--config {})", config));
    };
  } else {
    if (!have_config)
      config = registered.front();
    const SltEngineFactory* found = FindSltEngine(config);
    if (found == nullptr) {
      err << fmt::format("shoal_slt: unknown config '{}'; available: {}\n", config,
                         fmt::join(registered, ", "));
      return 2;
    }
    factory = *found;
  }

  // Missing paths and empty directories count as failures: a suite that silently runs nothing
  // must not pass.
  int64_t passed = 0, failed = 0, skipped = 0;
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      std::vector<std::string> found;
      for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec) && it->path().extension() == ".slt")
          found.push_back(it->path().string());
      }
      if (ec) {
        out << fmt::format("{}: cannot list the directory: {}\n", path, ec.message());
        ++failed;
      } else if (found.empty()) {
        out << fmt::format("{}: no .slt files found\n", path);
        ++failed;
      }
      std::sort(found.begin(), found.end());
      files.insert(files.end(), found.begin(), found.end());
    } else if (std::filesystem::is_regular_file(path, ec)) {
      files.push_back(path);
    } else {
      out << fmt::format("{}: no such file or directory\n", path);
      ++failed;
    }
  }

  SltRunner runner(factory, options);
  for (const std::string& file : files) {
    ScriptOutcome outcome = runner.RunFile(file);
    out << outcome.report << std::flush;
    passed += outcome.passed;
    failed += outcome.failed;
    skipped += outcome.skipped;
  }
  out << fmt::format("{} passed, {} failed, {} skipped\n", passed, failed, skipped);
  return failed == 0 ? 0 : 1;
}

int SltMain(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return RunSltCommand(args, std::cout, std::cerr);
}

}  // namespace shoal::slt
