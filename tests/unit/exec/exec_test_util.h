// The exec tests' helpers live in tests/support/plan_test_util.h (expression builders, tables
// of text rows, scans, contexts, rows as text); this name stays for the tests that include it.
#pragma once

#include "tests/support/plan_test_util.h"
