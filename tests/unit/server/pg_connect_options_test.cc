// Connection settings of PgClient (src/shoal/server/pg_connect_options.h): postgresql:// URLs as
// libpq reads them, the refusal of a password in a URL, the defaults, and password files.
#include "shoal/server/pg_connect_options.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace shoal::server {
namespace {

TEST(PgConnectOptionsTest, ParsesUrls) {
  PgConnectOptions o;
  ASSERT_TRUE(ApplyConnectionUri("postgresql://alice@db.example:6543/sales?sslmode=verify-full&"
                                 "sslrootcert=%2Ftmp%2Fca.pem&application_name=report",
                                 &o)
                  .ok());
  EXPECT_EQ(o.user, "alice");
  EXPECT_EQ(o.host, "db.example");
  EXPECT_EQ(o.port, 6543);
  EXPECT_EQ(o.dbname, "sales");
  EXPECT_EQ(o.sslmode, SslMode::kVerifyFull);
  EXPECT_EQ(o.sslrootcert, "/tmp/ca.pem");
  EXPECT_EQ(o.application_name, "report");

  PgConnectOptions v6;
  ASSERT_TRUE(ApplyConnectionUri("postgres://[::1]:5433", &v6).ok());
  EXPECT_EQ(v6.host, "::1");
  EXPECT_EQ(v6.port, 5433);
  EXPECT_EQ(v6.dbname, "");

  // What the URL leaves out stays as it was.
  PgConnectOptions kept;
  kept.user = "bob";
  kept.port = 7000;
  ASSERT_TRUE(ApplyConnectionUri("postgresql://localhost/db", &kept).ok());
  EXPECT_EQ(kept.user, "bob");
  EXPECT_EQ(kept.port, 7000);
  EXPECT_EQ(kept.dbname, "db");
  ASSERT_TRUE(ApplyConnectionUri("postgresql:///other?host=h2&port=7001&user=carol", &kept).ok());
  EXPECT_EQ(kept.host, "h2");
  EXPECT_EQ(kept.port, 7001);
  EXPECT_EQ(kept.user, "carol");
  EXPECT_EQ(kept.dbname, "other");
}

TEST(PgConnectOptionsTest, RefusesBadUrls) {
  PgConnectOptions o;
  // Passwords never come from the command line.
  Status password = ApplyConnectionUri("postgresql://alice:secret@localhost/db", &o);
  EXPECT_FALSE(password.ok());
  EXPECT_NE(password.message().find("password"), std::string::npos);
  EXPECT_FALSE(ApplyConnectionUri("postgresql://localhost/db?password=secret", &o).ok());
  EXPECT_FALSE(ApplyConnectionUri("mysql://localhost/db", &o).ok());
  EXPECT_FALSE(ApplyConnectionUri("postgresql://localhost:99999/db", &o).ok());
  EXPECT_FALSE(ApplyConnectionUri("postgresql://localhost:x/db", &o).ok());
  EXPECT_FALSE(ApplyConnectionUri("postgresql://localhost/db?sslmode=sometimes", &o).ok());
  EXPECT_FALSE(ApplyConnectionUri("postgresql://localhost/db?nosuch=1", &o).ok());
  EXPECT_FALSE(ApplyConnectionUri("postgresql://localhost/db?sslmode", &o).ok());
  EXPECT_FALSE(ApplyConnectionUri("postgresql://[::1/db", &o).ok());
  EXPECT_FALSE(ApplyConnectionUri("postgresql://a,b/db", &o).ok());
  EXPECT_FALSE(ApplyConnectionUri("postgresql://localhost/d%zzb", &o).ok());
  EXPECT_TRUE(IsConnectionUri("postgres://x"));
  EXPECT_FALSE(IsConnectionUri("dbname"));
}

TEST(PgConnectOptionsTest, Defaults) {
  PgConnectOptions o;
  o.user = "dora";
  ASSERT_TRUE(FinishDefaults(&o).ok());
  EXPECT_EQ(o.host, "localhost");
  EXPECT_EQ(o.port, 5432);
  EXPECT_EQ(o.dbname, "dora");
  EXPECT_EQ(o.sslmode, SslMode::kPrefer);
  EXPECT_EQ(o.application_name, "shoal");
  for (SslMode mode : {SslMode::kDisable, SslMode::kAllow, SslMode::kPrefer, SslMode::kRequire,
                       SslMode::kVerifyCa, SslMode::kVerifyFull}) {
    auto parsed = ParseSslMode(SslModeName(mode));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, mode);
  }
}

TEST(PgConnectOptionsTest, PasswordFile) {
  char pattern[] = "/tmp/shoal-pgpass-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string dir = pattern;
  const std::string path = dir + "/pgpass";
  {
    std::ofstream out(path);
    out << "# comment\n"
        << "otherhost:5432:*:alice:wrong\n"
        << "127.0.0.1:5433:shoal:alice:first\\:part\\\\x\n"
        << "127.0.0.1:*:*:alice:second\n"
        << "*:*:*:*:fallback\n";
  }
  chmod(path.c_str(), 0600);
  PgConnectOptions o;
  o.host = "127.0.0.1";
  o.port = 5433;
  o.dbname = "shoal";
  o.user = "alice";
  auto found = LookUpPasswordFile(path, o);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->value_or("none"), "first:part\\x");
  o.port = 6000;
  EXPECT_EQ(LookUpPasswordFile(path, o)->value_or("none"), "second");
  o.user = "bob";
  EXPECT_EQ(LookUpPasswordFile(path, o)->value_or("none"), "fallback");
  // A missing file gives nothing; one others may read is refused.
  EXPECT_FALSE(LookUpPasswordFile(dir + "/none", o)->has_value());
  chmod(path.c_str(), 0644);
  auto exposed = LookUpPasswordFile(path, o);
  EXPECT_FALSE(exposed.ok());
  EXPECT_NE(exposed.status().message().find("group or world access"), std::string::npos);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shoal::server
