// The shoal_slt command line, kept in the library so that any executable that registers engines
// (engine_registry.h) can offer it, and so its argument handling and summary are unit-tested:
//
//   shoal_slt [--config NAME] [--complete] FILES/DIRS...
//
// Directories are searched recursively for *.slt files (run in path order). Failure reports go to
// stdout, then exactly one summary line "N passed, N failed, N skipped". Exit status: 0 when
// nothing failed, 1 when something did, 2 for a usage error.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace shoal::slt {

/// `args` excludes the program name.
int RunSltCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

int SltMain(int argc, char** argv);

}  // namespace shoal::slt
