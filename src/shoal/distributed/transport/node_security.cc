#include "shoal/distributed/transport/node_security.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include <fmt/format.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/message_lite.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/security/server_credentials.h>
#include <sys/stat.h>

#include "shoal/common/pem_file.h"

namespace shoal::distributed {

namespace {

constexpr size_t kMinSecretBytes = 16;

std::string MetadataKey(std::string_view field) {
  return std::string(kAuthMetadataPrefix) + std::string(field);
}

std::string Metadata(const grpc::ServerContext& call, std::string_view field) {
  const std::string key = MetadataKey(field);
  auto it = call.client_metadata().find(grpc::string_ref(key.data(), key.size()));
  if (it == call.client_metadata().end())
    return {};
  return std::string(it->second.data(), it->second.size());
}

grpc::Status ToGrpc(const AuthResult& result) {
  if (result.ok())
    return grpc::Status::OK;
  return grpc::Status(result.outcome == AuthOutcome::kPermissionDenied
                          ? grpc::StatusCode::PERMISSION_DENIED
                          : grpc::StatusCode::UNAUTHENTICATED,
                      result.message);
}

struct ProcessSecurity {
  std::mutex mutex;
  std::shared_ptr<NodeSecurity> security = NodeSecurity::Insecure();
};

ProcessSecurity& Process() {
  // Channels and servers keep their own reference, so nothing needs this after exit starts.
  static ProcessSecurity process;
  return process;
}

}  // namespace

Result<std::string> ReadClusterSecret(const std::string& path) {
  auto hint = [] {
    return "make one with `openssl rand -hex 32 > FILE && chmod 600 FILE` and give every node of "
           "the cluster the same file";
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    return Status::InvalidArgument("--cluster-secret-file {}: {}", path, std::strerror(error))
        .WithHint(hint());
  }
  if (!S_ISREG(st.st_mode))
    return Status::InvalidArgument("--cluster-secret-file {} is not a regular file", path)
        .WithHint(hint());
  if ((st.st_mode & (S_IROTH | S_IWOTH)) != 0)
    return Status::InvalidArgument(
               "--cluster-secret-file {} is readable or writable by every user (mode {:o}): "
               "anyone on this machine could sign plans with it",
               path, st.st_mode & 0777)
        .WithHint(fmt::format("restrict it: chmod 600 {}", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    return Status::InvalidArgument("--cluster-secret-file {}: cannot read the file: {}", path,
                                   std::strerror(error));
  }
  std::ostringstream contents;
  contents << in.rdbuf();
  std::string secret = contents.str();
  // A trailing newline (echo, an editor) is not part of the secret.
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r'))
    secret.pop_back();
  if (secret.size() < kMinSecretBytes)
    return Status::InvalidArgument(
               "--cluster-secret-file {} holds {} bytes; a cluster secret "
               "needs at least {}",
               path, secret.size(), kMinSecretBytes)
        .WithHint(hint());
  return secret;
}

Result<std::shared_ptr<NodeSecurity>> NodeSecurity::Make(const NodeSecurityOptions& options,
                                                         std::string_view command) {
  const bool any_tls =
      !options.tls_cert.empty() || !options.tls_key.empty() || !options.tls_ca.empty();
  const std::string secure_flags =
      "--tls-cert FILE --tls-key FILE --tls-ca FILE --cluster-secret-file FILE";
  if (options.insecure) {
    if (any_tls || !options.cluster_secret_file.empty())
      return Status::InvalidArgument(
                 "{}: --insecure turns TLS and request signing off, but TLS or secret options "
                 "were given too",
                 command)
          .WithHint("drop --insecure, or drop --tls-cert/--tls-key/--tls-ca/--cluster-secret-file");
    return Insecure();
  }
  if (!any_tls && options.cluster_secret_file.empty())
    return Status::InvalidArgument(
               "{} talks to other Shoal nodes over gRPC and needs mutual TLS and a cluster "
               "secret ({}), or --insecure for plain, unauthenticated TCP",
               command, secure_flags)
        .WithHint(
            "scripts/make-test-certs.sh DIR makes a test CA, node certificates and a "
            "secret; docs/security.md says how to set up a cluster");
  for (const auto& [value, name] :
       {std::pair{&options.tls_cert, "--tls-cert"}, std::pair{&options.tls_key, "--tls-key"},
        std::pair{&options.tls_ca, "--tls-ca"}}) {
    if (value->empty())
      return Status::InvalidArgument("{}: {} is missing; mutual TLS between nodes needs {}",
                                     command, name, secure_flags)
          .WithHint("or pass --insecure for plain, unauthenticated TCP");
  }
  if (options.cluster_secret_file.empty() && !options.unsigned_requests)
    return Status::InvalidArgument(
               "{}: --cluster-secret-file is missing; every request between nodes is signed "
               "with the cluster secret",
               command)
        .WithHint(
            "make one with `openssl rand -hex 32 > FILE && chmod 600 FILE`, the same on "
            "every node, or pass --insecure for plain, unauthenticated TCP");
  auto security = std::shared_ptr<NodeSecurity>(new NodeSecurity());
  security->insecure_ = false;
  security->options_ = options;
  SHOAL_ASSIGN_OR_RETURN(security->cert_pem_, ReadPemFile(options.tls_cert, "--tls-cert"));
  SHOAL_ASSIGN_OR_RETURN(security->key_pem_, ReadPemFile(options.tls_key, "--tls-key"));
  SHOAL_ASSIGN_OR_RETURN(security->ca_pem_, ReadPemFile(options.tls_ca, "--tls-ca"));
  if (!options.cluster_secret_file.empty()) {
    SHOAL_ASSIGN_OR_RETURN(std::string secret, ReadClusterSecret(options.cluster_secret_file));
    if (!options.unsigned_requests)
      security->signer_ = std::make_unique<RequestSigner>(secret, options.token_ttl_ms);
    security->verifier_ = std::make_unique<RequestVerifier>(secret);
  }
  return security;
}

std::shared_ptr<NodeSecurity> NodeSecurity::Insecure() {
  return std::shared_ptr<NodeSecurity>(new NodeSecurity());
}

std::shared_ptr<grpc::ChannelCredentials> NodeSecurity::ChannelCredentials() const {
  if (insecure_)
    return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = ca_pem_;
  ssl.pem_private_key = key_pem_;
  ssl.pem_cert_chain = cert_pem_;
  return grpc::SslCredentials(ssl);
}

std::shared_ptr<grpc::ServerCredentials> NodeSecurity::ServerCredentials() const {
  if (insecure_)
    return grpc::InsecureServerCredentials();
  grpc::SslServerCredentialsOptions ssl(GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  ssl.pem_root_certs = ca_pem_;
  ssl.pem_key_cert_pairs.push_back({key_pem_, cert_pem_});
  return grpc::SslServerCredentials(ssl);
}

void NodeSecurity::SignCall(grpc::ClientContext* call, std::string_view method,
                            std::string_view key, const google::protobuf::MessageLite& body) const {
  if (!signer_)
    return;
  RequestToken token = signer_->Sign(method, key, MessageDigest(body));
  call->AddMetadata(MetadataKey("key"), token.key_hex);
  call->AddMetadata(MetadataKey("expiry"), std::to_string(token.expiry_ms));
  call->AddMetadata(MetadataKey("nonce"), token.nonce);
  call->AddMetadata(MetadataKey("digest"), token.digest);
  call->AddMetadata(MetadataKey("mac"), token.mac);
}

grpc::Status NodeSecurity::VerifyCall(const grpc::ServerContext& call, std::string_view method,
                                      RequestToken* token) {
  if (insecure_)
    return grpc::Status::OK;
  if (!verifier_)
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        "this node has no cluster secret to check signatures with");
  token->key_hex = Metadata(call, "key");
  const std::string expiry = Metadata(call, "expiry");
  token->nonce = Metadata(call, "nonce");
  token->digest = Metadata(call, "digest");
  token->mac = Metadata(call, "mac");
  if (token->mac.empty())
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        fmt::format("{} call is not signed; this worker only runs requests "
                                    "signed with the cluster secret",
                                    method));
  if (expiry.empty() || expiry.size() > 18 ||
      expiry.find_first_not_of("0123456789") != std::string::npos)
    return grpc::Status(grpc::StatusCode::UNAUTHENTICATED,
                        fmt::format("{} call carries a malformed signature", method));
  token->expiry_ms = std::stoll(expiry);
  return ToGrpc(verifier_->Verify(method, *token));
}

grpc::Status NodeSecurity::CheckCallBody(const RequestToken& token, std::string_view key,
                                         const google::protobuf::MessageLite& body) const {
  if (insecure_)
    return grpc::Status::OK;
  return ToGrpc(RequestVerifier::CheckBody(token, key, MessageDigest(body)));
}

std::vector<std::string> NodeSecurity::ChildProcessArgs() const {
  if (insecure_)
    return {};
  std::vector<std::string> args = {"--tls-cert",     options_.tls_cert, "--tls-key",
                                   options_.tls_key, "--tls-ca",        options_.tls_ca};
  if (!options_.cluster_secret_file.empty()) {
    args.emplace_back("--cluster-secret-file");
    args.emplace_back(options_.cluster_secret_file);
  }
  return args;
}

std::string MessageDigest(const google::protobuf::MessageLite& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream out(&bytes);
    google::protobuf::io::CodedOutputStream coded(&out);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return Sha256Hex(bytes);
}

void SetProcessNodeSecurity(std::shared_ptr<NodeSecurity> security) {
  std::lock_guard<std::mutex> lock(Process().mutex);
  Process().security = std::move(security);
}

std::shared_ptr<NodeSecurity> ProcessNodeSecurity() {
  std::lock_guard<std::mutex> lock(Process().mutex);
  return Process().security;
}

}  // namespace shoal::distributed
