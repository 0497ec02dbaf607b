// The client's side of SCRAM-SHA-256 (src/shoal/server/scram_client.h): RFC 7677's test vector,
// a full exchange against the server's side, and the refusals (a server that does not know the
// verifier, a nonce the server did not extend, an error from the server).
#include "shoal/server/scram_client.h"

#include <gtest/gtest.h>

#include "shoal/server/scram.h"

namespace shoal::server {
namespace {

// RFC 7677, section 3.
constexpr const char* kClientNonce = "rOprNGfwEbeRWgbNEkqO";
constexpr const char* kClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr const char* kServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr const char* kClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr const char* kServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

TEST(ScramClientTest, Rfc7677TestVector) {
  auto client = ScramClient::Make("pencil", kClientNonce, "user");
  ASSERT_TRUE(client.ok());
  EXPECT_EQ(client->ClientFirst(), kClientFirst);
  auto final_message = client->ClientFinal(kServerFirst);
  ASSERT_TRUE(final_message.ok()) << final_message.status().ToString();
  EXPECT_EQ(*final_message, kClientFinal);
  EXPECT_TRUE(client->VerifyServerFinal(kServerFinal).ok());
  // One changed character of the server's signature is refused.
  Status forged = client->VerifyServerFinal("v=7rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=");
  EXPECT_EQ(forged.sqlstate(), "28P01");
}

TEST(ScramClientTest, ExchangeWithTheServerSide) {
  auto verifier = ScramVerifier::FromPassword("correct horse");
  ASSERT_TRUE(verifier.ok());
  for (const char* password : {"correct horse", "wrong"}) {
    auto client = ScramClient::Make(password);
    ASSERT_TRUE(client.ok());
    auto nonce = ScramExchange::RandomNonce();
    ASSERT_TRUE(nonce.ok());
    ScramExchange server(*verifier, *nonce);
    auto server_first = server.ServerFirst(client->ClientFirst());
    ASSERT_TRUE(server_first.ok()) << server_first.status().ToString();
    auto client_final = client->ClientFinal(*server_first);
    ASSERT_TRUE(client_final.ok()) << client_final.status().ToString();
    auto server_final = server.ServerFinal(*client_final);
    if (std::string(password) == "wrong") {
      EXPECT_EQ(server_final.status().sqlstate(), "28P01");
      continue;
    }
    ASSERT_TRUE(server_final.ok()) << server_final.status().ToString();
    EXPECT_TRUE(client->VerifyServerFinal(*server_final).ok());
  }
}

TEST(ScramClientTest, RefusesBadServerMessages) {
  auto client = ScramClient::Make("pencil", kClientNonce);
  ASSERT_TRUE(client.ok());
  // The server's nonce must extend the client's.
  EXPECT_EQ(client->ClientFinal("r=other,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096").status().sqlstate(),
            "08P01");
  EXPECT_EQ(client->ClientFinal("r=rOprNGfwEbeRWgbNEkqO,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
                .status()
                .sqlstate(),
            "08P01");
  EXPECT_FALSE(client->ClientFinal("r=rOprNGfwEbeRWgbNEkqOxyz,s=!!,i=4096").ok());
  EXPECT_FALSE(
      client->ClientFinal("r=rOprNGfwEbeRWgbNEkqOxyz,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=0").ok());
  EXPECT_FALSE(client->ClientFinal("garbage").ok());
  // Before ClientFinal there is no signature to check.
  EXPECT_FALSE(client->VerifyServerFinal(kServerFinal).ok());
  EXPECT_EQ(client->VerifyServerFinal("e=invalid-proof").sqlstate(), "28P01");
}

}  // namespace
}  // namespace shoal::server
