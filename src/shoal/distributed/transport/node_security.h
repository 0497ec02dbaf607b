// NodeSecurity: how this process's gRPC connections to and from other Shoal nodes are secured
// (issue 15, docs/security.md). Either secure — mutual TLS (every node presents a certificate of
// the cluster's CA and refuses peers without one) and every RPC signed with the cluster secret
// (request_signer.h) — or, only when asked with --insecure, plain TCP and no signatures.
//
// One per process (SetProcessNodeSecurity, by the CLI at start-up), read by everything that opens
// a channel or serves a call: the worker channel and server, and the shuffle's file service and
// client. The default, for code that never asked (tests inside one process), is insecure.
//
// Worker -> worker calls (a consumer task fetching from a producer task, a `shoal task` fetching a
// stage file) are signed by the calling worker with the same cluster secret: every node of a
// cluster holds it, and a SQL client of the front doors never does.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "shoal/common/result.h"
#include "shoal/distributed/transport/request_signer.h"

namespace google::protobuf {
class MessageLite;
}
namespace grpc {
class ChannelCredentials;
class ClientContext;
class ServerContext;
class ServerCredentials;
class Status;
}  // namespace grpc

namespace shoal::distributed {

struct NodeSecurityOptions {
  std::string tls_cert;             // PEM certificate (chain) this node presents
  std::string tls_key;              // PEM private key of tls_cert
  std::string tls_ca;               // PEM CA certificate(s) peers must chain to
  std::string cluster_secret_file;  // file holding the cluster secret (not world-readable)
  bool insecure = false;            // plain TCP, nothing signed or checked
  /// How long a signature stays valid. A hidden test setting (`--test-auth-ttl-ms`): 0 or less
  /// signs requests that are already expired.
  int64_t token_ttl_ms = 60 * 1000;
  /// A hidden test setting (`--test-unsigned-requests`): TLS, but calls carry no signature and no
  /// secret is needed — to show that workers refuse them.
  bool unsigned_requests = false;
};

/// The cluster secret in `path`: refused when the file is readable or writable by everyone
/// (other users could sign plans), not a regular file, or shorter than 16 bytes.
Result<std::string> ReadClusterSecret(const std::string& path);

class NodeSecurity {
 public:
  /// Checks `options` as given to `command` ("shoal worker", for errors) and loads the files.
  /// Neither TLS nor --insecure, both, or a part missing: an error saying what to pass.
  static Result<std::shared_ptr<NodeSecurity>> Make(const NodeSecurityOptions& options,
                                                    std::string_view command);
  static std::shared_ptr<NodeSecurity> Insecure();

  bool insecure() const { return insecure_; }

  std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials() const;
  std::shared_ptr<grpc::ServerCredentials> ServerCredentials() const;

  /// Client side: adds the signature of a call of `method` about `key` whose request is `body`.
  void SignCall(grpc::ClientContext* call, std::string_view method, std::string_view key,
                const google::protobuf::MessageLite& body) const;

  /// Server side, first thing in a handler: checks the call's signature for `method` (MAC,
  /// expiry, replay) and returns it in `token`. OK when insecure.
  grpc::Status VerifyCall(const grpc::ServerContext& call, std::string_view method,
                          RequestToken* token);
  /// Then, before decoding the request: whether the signature covers `key` and `body`.
  grpc::Status CheckCallBody(const RequestToken& token, std::string_view key,
                             const google::protobuf::MessageLite& body) const;

  /// The arguments that give a child `shoal task` process the same security (file paths only).
  std::vector<std::string> ChildProcessArgs() const;

 private:
  NodeSecurity() = default;

  bool insecure_ = true;
  NodeSecurityOptions options_;
  std::string cert_pem_;
  std::string key_pem_;
  std::string ca_pem_;
  std::unique_ptr<RequestSigner> signer_;      // null: calls are not signed
  std::unique_ptr<RequestVerifier> verifier_;  // null: calls are not checked
};

/// SHA-256 (hex) of `message`'s deterministic serialization: what a signature's digest covers.
std::string MessageDigest(const google::protobuf::MessageLite& message);

void SetProcessNodeSecurity(std::shared_ptr<NodeSecurity> security);
/// This process's security (insecure until SetProcessNodeSecurity).
std::shared_ptr<NodeSecurity> ProcessNodeSecurity();

/// Metadata keys of a signature. Not "shoal-" (passthrough headers, forwarded to other workers).
inline constexpr std::string_view kAuthMetadataPrefix = "x-shoal-auth-";

}  // namespace shoal::distributed
