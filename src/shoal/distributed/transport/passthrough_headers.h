// Passthrough headers: key-value pairs a client gives the coordinator (CoordinatorOptions::headers,
// `shoal sql --header K=V`) that travel with every call of the query to workers — as gRPC metadata
// "shoal-<key>" between processes, as they are in-process — and that workers forward on their own
// calls to producer workers, so a tracing id or a tenant name reaches every task of the query.
//
// Forwarding needs no change in the nodes that make calls: the coordinator and each worker task
// hand their plans a ChannelResolver wrapped by WithHeaders, whose channels add the headers to
// every call.
#pragma once

#include <string>
#include <string_view>

#include "shoal/distributed/transport/worker_channel.h"

namespace shoal::distributed {

/// The prefix of passthrough headers in gRPC metadata (other metadata is not forwarded).
inline constexpr std::string_view kHeaderMetadataPrefix = "shoal-";

/// The passthrough header the coordinator adds to every call of a query: its id.
inline constexpr std::string_view kQueryIdHeader = "query-id";

/// Keys: 1..64 characters of [a-z0-9_.-] (gRPC metadata keys are lowercase ASCII), not ending in
/// "-bin"; values: printable ASCII, at most 4096 bytes.
Status CheckHeader(std::string_view key, std::string_view value);

/// Parses "KEY=VALUE" (the CLI form) into `headers`, checking it.
Status ParseHeader(std::string_view text, Headers* headers);

/// A resolver whose channels add `headers` to every call (entries given to a call win).
/// Returns `inner` itself when `headers` is empty.
ChannelResolverPtr WithHeaders(ChannelResolverPtr inner, Headers headers);

}  // namespace shoal::distributed
