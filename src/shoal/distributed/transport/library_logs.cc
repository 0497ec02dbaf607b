#include "shoal/distributed/transport/library_logs.h"

#include <mutex>
#include <string>

#include <google/protobuf/stubs/logging.h>
#include <grpc/support/log.h>

#include "shoal/common/logging.h"

namespace shoal::distributed {

namespace {

void GrpcLog(gpr_log_func_args* args) {
  SHOAL_LOG_DEBUG("grpc {}:{}: {}", args->file ? args->file : "?", args->line,
                  args->message ? args->message : "");
}

void ProtobufLog(google::protobuf::LogLevel level, const char* file, int line,
                 const std::string& message) {
  // A FATAL message is followed by protobuf's own abort; keep its text visible.
  if (level == google::protobuf::LOGLEVEL_FATAL)
    SHOAL_LOG_ERROR("protobuf {}:{}: {}", file, line, message);
  else
    SHOAL_LOG_DEBUG("protobuf {}:{}: {}", file, line, message);
}

}  // namespace

void RouteLibraryLogs() {
  static std::once_flag once;
  std::call_once(once, [] {
    gpr_set_log_function(GrpcLog);
    gpr_set_log_verbosity(GPR_LOG_SEVERITY_DEBUG);  // filtered by SHOAL_LOG_LEVEL instead
    google::protobuf::SetLogHandler(ProtobufLog);
  });
}

}  // namespace shoal::distributed
