// RecordBatchReader: the pull interface every producer of batches implements — file readers, IPC
// stream readers, table scans, physical operators (exec's RecordBatchStream is this type) and
// network exchanges.
//
// Contract: Next() returns the next batch, or nullptr once the input is exhausted (and on every
// later call). Batches may be empty only when a producer cannot avoid it; consumers must accept
// them. An error ends the stream. Destroying a reader before exhaustion cancels the work behind it
// and must return its memory promptly. One thread calls Next() at a time.
#pragma once

#include <memory>

#include "shoal/columnar/record_batch.h"

namespace shoal::columnar {

class RecordBatchReader {
 public:
  virtual ~RecordBatchReader() = default;
  virtual const SchemaPtr& schema() const = 0;
  virtual Result<RecordBatchPtr> Next() = 0;
};

using RecordBatchReaderPtr = std::unique_ptr<RecordBatchReader>;

}  // namespace shoal::columnar
