// Library logs: gRPC and protobuf write their own lines to stderr by default ("E1202 ... chttp2
// transport ..."), which would interleave with Shoal's messages and query output. RouteLibraryLogs
// sends them through Shoal's logger at debug level instead (SHOAL_LOG_LEVEL=debug shows them);
// errors that matter reach the user as a Status from the call that failed. Called before the
// first gRPC server or channel is made; idempotent and thread-safe.
#pragma once

namespace shoal::distributed {

void RouteLibraryLogs();

}  // namespace shoal::distributed
