// The PostgreSQL frontend/backend protocol (version 3) as bytes: reading the messages a client
// sends and building the messages the server answers with. Written from the protocol chapter of
// PostgreSQL's documentation ("Message Formats"); nothing here touches a socket, so the codec is
// tested and fuzzed on its own (tests/unit/server, tests/fuzz).
//
// Every integer on the wire is big-endian. A regular message is a type byte, an Int32 length that
// counts itself but not the type byte, and a body; the start-up packet has no type byte. Readers
// check every length against the bytes present and return a ProtocolViolation (SQLSTATE 08P01)
// for anything malformed, never read past the body.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "shoal/common/result.h"

namespace shoal::server {

inline constexpr int32_t kProtocolVersion3 = 3 << 16;      // 196608
inline constexpr int32_t kCancelRequestCode = 80877102;    // 1234 << 16 | 5678
inline constexpr int32_t kSslRequestCode = 80877103;       // 1234 << 16 | 5679
inline constexpr int32_t kGssEncRequestCode = 80877104;    // 1234 << 16 | 5680
inline constexpr int32_t kMaxStartupPacketLength = 10000;  // as PostgreSQL: longer is refused

/// A malformed message: SQLSTATE 08P01 (protocol_violation).
Status ProtocolViolation(std::string message);

/// InvalidArgument with SQLSTATE 22021 when `text` is not UTF-8 (`what` names it).
Status CheckUtf8(std::string_view text, std::string_view what);

/// Reads the fields of one message body, in order; each read fails on a short body.
class MessageReader {
 public:
  explicit MessageReader(std::string_view body) : body_(body) {}

  Result<int16_t> Int16();
  Result<int32_t> Int32();
  Result<uint8_t> Byte();
  /// A NUL-terminated string (without its NUL).
  Result<std::string_view> CString();
  Result<std::string_view> Bytes(size_t n);
  size_t remaining() const { return body_.size() - pos_; }
  /// ProtocolViolation when bytes are left over (`what`: the message's name).
  Status ExpectEnd(std::string_view what) const;

 private:
  std::string_view body_;
  size_t pos_ = 0;
};

/// The first packet of a connection (its body: the bytes after the length word).
struct StartupPacket {
  enum class Kind : uint8_t { kStartup, kSslRequest, kGssEncRequest, kCancelRequest };
  Kind kind = Kind::kStartup;
  int32_t protocol = 0;
  /// kStartup: user, database, application_name, options, ... in the order sent.
  std::vector<std::pair<std::string, std::string>> parameters;
  /// kCancelRequest: the process id and secret key of BackendKeyData.
  int32_t cancel_pid = 0;
  int32_t cancel_key = 0;

  /// The value of parameter `name`, or "" when absent.
  std::string Get(std::string_view name) const;
};
Result<StartupPacket> ParseStartupPacket(std::string_view body);

/// Parse ('P'): a statement name, its SQL and the parameter types the client fixed (0: unknown).
struct ParseMessage {
  std::string statement;
  std::string query;
  std::vector<uint32_t> parameter_types;
};
Result<ParseMessage> ParseParseMessage(std::string_view body);

/// Bind ('B'): a portal over a statement with parameter values and result formats.
struct BindMessage {
  std::string portal;
  std::string statement;
  std::vector<int16_t> parameter_formats;              // 0, 1 (all) or one per parameter
  std::vector<std::optional<std::string>> parameters;  // nullopt: NULL
  std::vector<int16_t> result_formats;                 // 0, 1 (all) or one per column
};
Result<BindMessage> ParseBindMessage(std::string_view body);

/// Describe ('D') and Close ('C'): 'S' (statement) or 'P' (portal) and a name.
struct TargetMessage {
  char kind = 'S';
  std::string name;
};
Result<TargetMessage> ParseTargetMessage(std::string_view body, std::string_view what);

/// Execute ('E'): a portal and the most rows to return (0: all).
struct ExecuteMessage {
  std::string portal;
  int32_t max_rows = 0;
};
Result<ExecuteMessage> ParseExecuteMessage(std::string_view body);

/// Query ('Q'): the SQL text.
Result<std::string> ParseQueryMessage(std::string_view body);

/// Builds backend messages into one growing buffer (what the connection writes to its socket).
class MessageWriter {
 public:
  /// Starts a message of `type`; End() fills in its length.
  void Begin(char type);
  void End();
  void Int16(int16_t v);
  void Int32(int32_t v);
  void Int64(int64_t v);
  void Byte(uint8_t v);
  void CString(std::string_view s);
  void Bytes(std::string_view s);
  /// Raw bytes outside any message (the one-byte answer to SSLRequest).
  void Raw(std::string_view s) { buffer_.append(s); }

  /// The position of the next byte; with PatchInt32, fills a length written before its value.
  size_t size() const { return buffer_.size(); }
  void PatchInt32(size_t at, int32_t v);

  std::string& buffer() { return buffer_; }
  void Clear() { buffer_.clear(); }

 private:
  std::string buffer_;
  size_t start_ = 0;
};

/// Severity of an ErrorResponse / NoticeResponse ("ERROR", "FATAL", "NOTICE", "WARNING").
/// The fields sent: S and V (severity), C (SQLSTATE), M (message with its context), H (hint),
/// P (position, when the error has one), and D (`detail`, when given).
void WriteErrorResponse(MessageWriter& out, const Status& status,
                        std::string_view severity = "ERROR", std::string_view detail = "");
void WriteNoticeResponse(MessageWriter& out, std::string_view severity, std::string_view sqlstate,
                         std::string_view message);
void WriteParameterStatus(MessageWriter& out, std::string_view name, std::string_view value);
void WriteReadyForQuery(MessageWriter& out, char transaction_status);
void WriteCommandComplete(MessageWriter& out, std::string_view tag);
void WriteEmptyMessage(MessageWriter& out, char type);  // '1', '2', '3', 'I', 'n', 's'

}  // namespace shoal::server
