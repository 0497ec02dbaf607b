// Request signing between nodes (request_signer.h, node_security.h): a signed request verifies
// once; a replay, an expired or far-future token, a wrong secret, another method, and any altered
// field are refused with the right outcome; nonces are forgotten when they expire; the cluster
// secret file is refused when other users can read it; and the security flags are checked.
#include "shoal/distributed/transport/request_signer.h"

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "shoal/distributed/proto/distributed.pb.h"
#include "shoal/distributed/transport/node_security.h"
#include "tests/support/gtest_util.h"

namespace shoal::distributed {
namespace {

constexpr const char* kSecret = "0123456789abcdef0123456789abcdef";

struct FakeClock {
  int64_t now = 1'000'000;
  AuthClock fn() {
    return [this] { return now; };
  }
};

TEST(RequestSignerTest, SignedRequestVerifiesOnceAndCoversItsKeyAndBody) {
  FakeClock clock;
  RequestSigner signer(kSecret, 60'000, clock.fn());
  RequestVerifier verifier(kSecret, 600'000, clock.fn());
  const std::string digest = Sha256Hex("the plan");
  RequestToken token = signer.Sign("Worker/ExecuteTask", "q1/2/3", digest);
  EXPECT_TRUE(verifier.Verify("Worker/ExecuteTask", token).ok());
  EXPECT_TRUE(RequestVerifier::CheckBody(token, "q1/2/3", digest).ok());

  // Another task, or the same task with another plan: a valid token that does not cover it.
  AuthResult other_key = RequestVerifier::CheckBody(token, "q1/2/4", digest);
  EXPECT_EQ(other_key.outcome, AuthOutcome::kPermissionDenied);
  EXPECT_NE(other_key.message.find("q1/2/4"), std::string::npos) << other_key.message;
  AuthResult other_body = RequestVerifier::CheckBody(token, "q1/2/3", Sha256Hex("another plan"));
  EXPECT_EQ(other_body.outcome, AuthOutcome::kPermissionDenied);
  EXPECT_NE(other_body.message.find("altered"), std::string::npos) << other_body.message;

  // The same token again is a replay.
  AuthResult replay = verifier.Verify("Worker/ExecuteTask", token);
  EXPECT_EQ(replay.outcome, AuthOutcome::kUnauthenticated);
  EXPECT_NE(replay.message.find("replays"), std::string::npos) << replay.message;
}

TEST(RequestSignerTest, ExpiredAndFarFutureTokensAreRefused) {
  FakeClock clock;
  RequestSigner signer(kSecret, 60'000, clock.fn());
  RequestVerifier verifier(kSecret, 600'000, clock.fn());
  RequestToken token = signer.Sign("Worker/GetWorkerInfo", "worker-info", Sha256Hex(""));
  clock.now += 60'001;
  AuthResult expired = verifier.Verify("Worker/GetWorkerInfo", token);
  EXPECT_EQ(expired.outcome, AuthOutcome::kUnauthenticated);
  EXPECT_NE(expired.message.find("expired 1 ms ago"), std::string::npos) << expired.message;

  // Valid until the last millisecond.
  RequestToken fresh = signer.Sign("Worker/GetWorkerInfo", "worker-info", Sha256Hex(""));
  clock.now += 60'000;
  EXPECT_TRUE(verifier.Verify("Worker/GetWorkerInfo", fresh).ok());

  // A signer whose tokens live longer than the verifier allows (a holder of the secret cannot
  // make tokens that never expire).
  RequestSigner lavish(kSecret, 3'600'000, clock.fn());
  AuthResult too_long = verifier.Verify("Worker/GetWorkerInfo",
                                        lavish.Sign("Worker/GetWorkerInfo", "k", Sha256Hex("")));
  EXPECT_EQ(too_long.outcome, AuthOutcome::kUnauthenticated);
  EXPECT_NE(too_long.message.find("more than the 600000 ms allowed"), std::string::npos)
      << too_long.message;
}

TEST(RequestSignerTest, WrongSecretOtherMethodAndTamperedFieldsAreRefused) {
  FakeClock clock;
  RequestSigner signer(kSecret, 60'000, clock.fn());
  RequestSigner stranger("fedcba9876543210fedcba9876543210", 60'000, clock.fn());
  RequestVerifier verifier(kSecret, 600'000, clock.fn());
  const std::string digest = Sha256Hex("plan");

  AuthResult wrong =
      verifier.Verify("Worker/ExecuteTask", stranger.Sign("Worker/ExecuteTask", "k", digest));
  EXPECT_EQ(wrong.outcome, AuthOutcome::kUnauthenticated);
  EXPECT_NE(wrong.message.find("wrong signature"), std::string::npos) << wrong.message;

  EXPECT_EQ(
      verifier
          .Verify("ShuffleFiles/RunShuffleTask", signer.Sign("Worker/GetWorkerInfo", "k", digest))
          .outcome,
      AuthOutcome::kUnauthenticated);

  const RequestToken good = signer.Sign("Worker/ExecuteTask", "k", digest);
  std::vector<RequestToken> tampered(5, good);
  tampered[0].key_hex = "6c";  // "l"
  tampered[1].expiry_ms += 1;
  tampered[2].nonce[0] = tampered[2].nonce[0] == 'a' ? 'b' : 'a';
  tampered[3].digest = Sha256Hex("another plan");
  tampered[4].mac[5] = tampered[4].mac[5] == '0' ? '1' : '0';
  for (size_t i = 0; i < tampered.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(verifier.Verify("Worker/ExecuteTask", tampered[i]).outcome,
              AuthOutcome::kUnauthenticated);
  }
  RequestToken malformed = good;
  malformed.mac = "not hex";
  EXPECT_NE(verifier.Verify("Worker/ExecuteTask", malformed).message.find("malformed"),
            std::string::npos);
  RequestToken unsigned_token;
  EXPECT_NE(verifier.Verify("Worker/ExecuteTask", unsigned_token).message.find("not signed"),
            std::string::npos);
  // None of the refusals used up the good token's nonce.
  EXPECT_TRUE(verifier.Verify("Worker/ExecuteTask", good).ok());
}

TEST(RequestSignerTest, NoncesAreForgottenWhenTheirTokensExpire) {
  FakeClock clock;
  RequestSigner signer(kSecret, 1'000, clock.fn());
  RequestVerifier verifier(kSecret, 600'000, clock.fn());
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(verifier.Verify("m", signer.Sign("m", "k", Sha256Hex(""))).ok());
  EXPECT_EQ(verifier.remembered_nonces(), 100U);
  clock.now += 2'001;
  EXPECT_EQ(verifier.remembered_nonces(), 0U);
}

TEST(RequestSignerTest, MessageDigestFollowsTheMessage) {
  proto::ExecuteTaskRequestProto a;
  a.mutable_task_key()->set_query_id("q");
  a.set_partition_end(4);
  proto::ExecuteTaskRequestProto b = a;
  EXPECT_EQ(MessageDigest(a), MessageDigest(b));
  b.set_partition_end(5);
  EXPECT_NE(MessageDigest(a), MessageDigest(b));
}

class ClusterSecretFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("shoal-secret-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "secret").string();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const std::string& contents, mode_t mode) {
    std::ofstream(path_) << contents;
    ::chmod(path_.c_str(), mode);
  }
  std::filesystem::path dir_;
  std::string path_;
};

TEST_F(ClusterSecretFileTest, ReadsAPrivateSecretWithoutItsNewline) {
  Write(std::string(kSecret) + "\n", 0600);
  ASSERT_OK_AND_ASSIGN(std::string secret, ReadClusterSecret(path_));
  EXPECT_EQ(secret, kSecret);
}

TEST_F(ClusterSecretFileTest, RefusesWorldReadableShortAndMissingFiles) {
  Write(kSecret, 0644);
  Status world = ReadClusterSecret(path_).status();
  EXPECT_FALSE(world.ok());
  EXPECT_NE(world.message().find("readable or writable by every user"), std::string::npos)
      << world.message();
  EXPECT_NE(world.hint().find("chmod 600"), std::string::npos) << world.hint();

  Write("short", 0600);
  EXPECT_NE(ReadClusterSecret(path_).status().message().find("at least 16"), std::string::npos);
  EXPECT_NE(ReadClusterSecret((dir_ / "none").string()).status().message().find("none"),
            std::string::npos);
}

TEST(NodeSecurityTest, FlagsMustChooseTlsOrInsecure) {
  NodeSecurityOptions none;
  Status neither = NodeSecurity::Make(none, "shoal worker").status();
  EXPECT_NE(neither.message().find("--insecure"), std::string::npos) << neither.message();
  EXPECT_NE(neither.message().find("--tls-ca"), std::string::npos) << neither.message();

  NodeSecurityOptions both;
  both.insecure = true;
  both.tls_ca = "/x/ca.pem";
  EXPECT_FALSE(NodeSecurity::Make(both, "shoal worker").ok());

  NodeSecurityOptions partial;
  partial.tls_cert = "/x/node.pem";
  partial.tls_key = "/x/node.key";
  Status missing = NodeSecurity::Make(partial, "shoal sql").status();
  EXPECT_NE(missing.message().find("--tls-ca is missing"), std::string::npos) << missing.message();

  NodeSecurityOptions insecure;
  insecure.insecure = true;
  ASSERT_OK_AND_ASSIGN(auto security, NodeSecurity::Make(insecure, "shoal worker"));
  EXPECT_TRUE(security->insecure());
  EXPECT_TRUE(security->ChildProcessArgs().empty());

  NodeSecurityOptions unreadable;
  unreadable.tls_cert = "/nonexistent/node.pem";
  unreadable.tls_key = "/nonexistent/node.key";
  unreadable.tls_ca = "/nonexistent/ca.pem";
  unreadable.cluster_secret_file = "/nonexistent/secret";
  Status file = NodeSecurity::Make(unreadable, "shoal worker").status();
  EXPECT_NE(file.message().find("--tls-cert /nonexistent/node.pem"), std::string::npos)
      << file.message();
}

}  // namespace
}  // namespace shoal::distributed
