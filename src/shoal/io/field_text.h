// Single-field text parsers shared by the delimited reader's column parser (delimited_fields.h)
// and the table options (delimited_options.h: header=true, sizes): an integer, a float, a boolean.
// Their own module so the options, which the tokenizer reads, do not depend on the column parser
// built on the tokenizer.
#pragma once

#include <cstdint>
#include <string_view>

namespace shoal::io {

/// An integer, optionally signed ("+5" too).
bool ParseInt64Field(std::string_view text, int64_t* out);
/// A floating-point number ("+1.5", "1e3", "inf", "nan").
bool ParseDoubleField(std::string_view text, double* out);
/// true / t / 1 / yes / y and false / f / 0 / no / n, any case.
bool ParseBoolField(std::string_view text, bool* out);

}  // namespace shoal::io
