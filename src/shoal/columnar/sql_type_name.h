// PostgreSQL's spelling of a column type, for the messages SQL users read ("operator does not
// exist: text + integer", "invalid input syntax for type numeric(15,2)"): integer, bigint, double
// precision, numeric(p,s), text, bytea, date, timestamp without / with time zone, interval,
// boolean. DataType::ToString() stays the Arrow-style name (int32, utf8) used in plans and
// internal errors. The binder, the function registry and the execution kernels share this one.
#pragma once

#include <string>

#include "shoal/columnar/data_type.h"

namespace shoal::columnar {

std::string SqlTypeName(const DataType& type);

}  // namespace shoal::columnar
