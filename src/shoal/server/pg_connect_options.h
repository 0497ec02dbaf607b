// Where and how PgClient connects, as psql takes it: flags, a `postgresql://` URL, the PG*
// environment variables and a password file in ~/.pgpass's format. The caller layers them
// (FromEnvironment, then ApplyConnectionUri, then its own flags, then FinishDefaults), so that
// each later source overrides the earlier ones.
//
// A password is never taken from the command line (a URL with `user:password@` is refused): it
// comes from PGPASSWORD, from the password file, or from the caller's prompt, in that order, and
// only when the server asks for one.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "shoal/common/result.h"

namespace shoal::server {

/// libpq's sslmode values. `prefer` (the default) uses TLS when the server offers it; `require`
/// insists on TLS without checking the certificate; `verify-ca` also checks that a CA of
/// `sslrootcert` signed it, and `verify-full` that it names the host.
enum class SslMode : uint8_t { kDisable, kAllow, kPrefer, kRequire, kVerifyCa, kVerifyFull };

Result<SslMode> ParseSslMode(std::string_view text);
std::string_view SslModeName(SslMode mode);

struct PgConnectOptions {
  /// A host name or address, or an absolute directory holding a Unix socket
  /// (DIR/.s.PGSQL.PORT). Empty until FinishDefaults: localhost.
  std::string host;
  int port = 0;  // 0 until FinishDefaults: 5432
  std::string user;
  std::string dbname;
  std::string application_name;
  std::optional<SslMode> sslmode;  // unset until FinishDefaults: prefer
  /// PEM file of the CAs that verify-ca / verify-full trust ("system": the system's store).
  /// Empty: ~/.postgresql/root.crt, as libpq.
  std::string sslrootcert;
  /// From PGPASSWORD only (never a flag).
  std::string password;
  /// A file of host:port:database:user:password lines (PGPASSFILE, default ~/.pgpass).
  std::string password_file;
  /// Seconds to wait for the TCP connection (0: the operating system's limit).
  int connect_timeout_seconds = 0;
};

/// The options the PG* environment variables give: PGHOST, PGPORT, PGUSER, PGDATABASE,
/// PGAPPNAME, PGSSLMODE, PGSSLROOTCERT, PGPASSWORD, PGPASSFILE, PGCONNECT_TIMEOUT.
Result<PgConnectOptions> ConnectOptionsFromEnvironment();

/// True for text that starts with postgresql:// or postgres://.
bool IsConnectionUri(std::string_view text);

/// Applies postgresql://[user@][host][:port][/dbname][?param=value&...] onto `options` (the
/// URL's parts override what is there). Parameters: host, port, user, dbname, sslmode,
/// sslrootcert, application_name, connect_timeout. Percent-escapes are decoded; an IPv6 address
/// is written in brackets. A password in the URL is refused.
Status ApplyConnectionUri(std::string_view uri, PgConnectOptions* options);

/// Fills what is still unset: host localhost, port 5432, user the operating system's user,
/// dbname the user, sslmode prefer, application_name "shoal", password_file ~/.pgpass.
Status FinishDefaults(PgConnectOptions* options);

/// The password of the first line of a password file matching host, port, dbname and user
/// (`*` matches anything; `\:` and `\\` escape), or nullopt. A file that does not exist gives
/// nullopt; one that others may read is refused, as libpq ignores it.
Result<std::optional<std::string>> LookUpPasswordFile(const std::string& path,
                                                      const PgConnectOptions& options);

}  // namespace shoal::server
