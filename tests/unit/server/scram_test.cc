// SCRAM-SHA-256 of `shoal server` (src/shoal/server/scram.h) against RFC 7677's test vector, and
// the refusals: a wrong proof (28P01), a changed nonce, channel binding, malformed messages.
#include "shoal/server/scram.h"

#include <gtest/gtest.h>

namespace shoal::server {
namespace {

// RFC 7677, section 3.
constexpr const char* kClientFirst = "n,,n=user,r=rOprNGfwEbeRWgbNEkqO";
constexpr const char* kServerNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
constexpr const char* kServerFirst =
    "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
constexpr const char* kClientFinal =
    "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
    "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
constexpr const char* kServerFinal = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

ScramVerifier PencilVerifier() {
  auto salt = Base64Decode("W22ZaJ0SNY7soEsUEjb6gQ==");
  EXPECT_TRUE(salt.ok());
  auto v = ScramVerifier::FromPassword("pencil", *salt, 4096);
  EXPECT_TRUE(v.ok());
  return *v;
}

TEST(ScramTest, Rfc7677TestVector) {
  ScramExchange exchange(PencilVerifier(), kServerNonce);
  auto first = exchange.ServerFirst(kClientFirst);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(*first, kServerFirst);
  auto final_message = exchange.ServerFinal(kClientFinal);
  ASSERT_TRUE(final_message.ok()) << final_message.status().ToString();
  EXPECT_EQ(*final_message, kServerFinal);
}

TEST(ScramTest, VerifierTextRoundTrip) {
  ScramVerifier v = PencilVerifier();
  std::string text = v.ToString();
  EXPECT_EQ(text.rfind("SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$", 0), 0u) << text;
  auto parsed = ScramVerifier::Parse(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->stored_key, v.stored_key);
  EXPECT_EQ(parsed->server_key, v.server_key);
  EXPECT_EQ(parsed->iterations, 4096);
  EXPECT_FALSE(ScramVerifier::Parse("md5abc").ok());
  EXPECT_FALSE(ScramVerifier::Parse("SCRAM-SHA-256$x:AA==$AA==:AA==").ok());
  EXPECT_FALSE(ScramVerifier::Parse("SCRAM-SHA-256$4096:W22Z$short:short").ok());
}

TEST(ScramTest, WrongPasswordIsRefused) {
  auto salt = Base64Decode("W22ZaJ0SNY7soEsUEjb6gQ==");
  auto other = ScramVerifier::FromPassword("pencil2", *salt, 4096);
  ASSERT_TRUE(other.ok());
  ScramExchange exchange(*other, kServerNonce);
  ASSERT_TRUE(exchange.ServerFirst(kClientFirst).ok());
  auto result = exchange.ServerFinal(kClientFinal);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().sqlstate(), "28P01");
}

TEST(ScramTest, MalformedMessagesAreRefused) {
  {
    ScramExchange exchange(PencilVerifier(), kServerNonce);
    EXPECT_EQ(exchange.ServerFirst("p=tls-server-end-point,,n=,r=abc").status().sqlstate(),
              "08P01");
    EXPECT_FALSE(exchange.ServerFirst("n,a=admin,n=,r=abc").ok());
    EXPECT_FALSE(exchange.ServerFirst("n,,r=abc").ok());
    EXPECT_FALSE(exchange.ServerFirst("").ok());
    EXPECT_FALSE(exchange.ServerFinal(kClientFinal).ok());  // before the first message
  }
  {
    // A nonce changed by the client.
    ScramExchange exchange(PencilVerifier(), kServerNonce);
    ASSERT_TRUE(exchange.ServerFirst(kClientFirst).ok());
    EXPECT_FALSE(
        exchange
            .ServerFinal(
                "c=biws,r=rOprNGfwEbeRWgbNEkqO,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
            .ok());
    EXPECT_FALSE(exchange.ServerFinal("c=biws,r=x").ok());
    EXPECT_FALSE(exchange
                     .ServerFinal("c=eSws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                                  "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
                     .ok());
  }
}

TEST(ScramTest, Base64) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(*Base64Decode("Zm9vYg=="), "foob");
  EXPECT_EQ(*Base64Decode("Zm9vYmE="), "fooba");
  EXPECT_FALSE(Base64Decode("Zm9").ok());
  EXPECT_FALSE(Base64Decode("Zm=v").ok());
  EXPECT_FALSE(Base64Decode("Zm!v").ok());
}

}  // namespace
}  // namespace shoal::server
