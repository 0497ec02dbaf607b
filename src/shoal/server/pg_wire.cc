#include "shoal/server/pg_wire.h"

#include <fmt/format.h>

#include "shoal/columnar/array.h"

namespace shoal::server {

Status ProtocolViolation(std::string message) {
  return Status::InvalidArgument("{}", message).WithSqlState("08P01");
}

Status CheckUtf8(std::string_view text, std::string_view what) {
  if (!columnar::IsValidUtf8(reinterpret_cast<const uint8_t*>(text.data()),
                             static_cast<int64_t>(text.size()))) {
    return Status::InvalidArgument("invalid byte sequence for encoding \"UTF8\" in {}", what)
        .WithSqlState("22021");
  }
  return Status::OK();
}

Result<uint8_t> MessageReader::Byte() {
  if (remaining() < 1) {
    return ProtocolViolation("message too short: expected a byte");
  }
  return static_cast<uint8_t>(body_[pos_++]);
}

Result<int16_t> MessageReader::Int16() {
  if (remaining() < 2) {
    return ProtocolViolation("message too short: expected an Int16");
  }
  auto b = reinterpret_cast<const uint8_t*>(body_.data() + pos_);
  pos_ += 2;
  return static_cast<int16_t>(static_cast<uint16_t>((b[0] << 8) | b[1]));
}

Result<int32_t> MessageReader::Int32() {
  if (remaining() < 4) {
    return ProtocolViolation("message too short: expected an Int32");
  }
  auto b = reinterpret_cast<const uint8_t*>(body_.data() + pos_);
  pos_ += 4;
  return static_cast<int32_t>((static_cast<uint32_t>(b[0]) << 24) |
                              (static_cast<uint32_t>(b[1]) << 16) |
                              (static_cast<uint32_t>(b[2]) << 8) | static_cast<uint32_t>(b[3]));
}

Result<std::string_view> MessageReader::CString() {
  size_t end = body_.find('\0', pos_);
  if (end == std::string_view::npos) {
    return ProtocolViolation("invalid string in message: no terminating NUL");
  }
  std::string_view s = body_.substr(pos_, end - pos_);
  pos_ = end + 1;
  return s;
}

Result<std::string_view> MessageReader::Bytes(size_t n) {
  if (remaining() < n) {
    return ProtocolViolation(
        fmt::format("message too short: expected {} bytes, {} left", n, remaining()));
  }
  std::string_view s = body_.substr(pos_, n);
  pos_ += n;
  return s;
}

Status MessageReader::ExpectEnd(std::string_view what) const {
  if (remaining() != 0) {
    return ProtocolViolation(
        fmt::format("invalid {} message format: {} bytes left over", what, remaining()));
  }
  return Status::OK();
}

std::string StartupPacket::Get(std::string_view name) const {
  for (const auto& [k, v] : parameters) {
    if (k == name) {
      return v;
    }
  }
  return "";
}

Result<StartupPacket> ParseStartupPacket(std::string_view body) {
  MessageReader in(body);
  StartupPacket packet;
  SHOAL_ASSIGN_OR_RETURN(packet.protocol, in.Int32());
  switch (packet.protocol) {
    case kSslRequestCode:
      packet.kind = StartupPacket::Kind::kSslRequest;
      SHOAL_RETURN_IF_ERROR(in.ExpectEnd("SSLRequest"));
      return packet;
    case kGssEncRequestCode:
      packet.kind = StartupPacket::Kind::kGssEncRequest;
      SHOAL_RETURN_IF_ERROR(in.ExpectEnd("GSSENCRequest"));
      return packet;
    case kCancelRequestCode: {
      packet.kind = StartupPacket::Kind::kCancelRequest;
      SHOAL_ASSIGN_OR_RETURN(packet.cancel_pid, in.Int32());
      SHOAL_ASSIGN_OR_RETURN(packet.cancel_key, in.Int32());
      SHOAL_RETURN_IF_ERROR(in.ExpectEnd("CancelRequest"));
      return packet;
    }
    default: break;
  }
  if ((packet.protocol >> 16) != 3) {
    return Status::NotImplemented("unsupported frontend protocol {}.{}: server supports 3.0",
                                  packet.protocol >> 16, packet.protocol & 0xFFFF)
        .WithSqlState("0A000");
  }
  // Pairs of strings, closed by an empty name.
  for (;;) {
    SHOAL_ASSIGN_OR_RETURN(std::string_view name, in.CString());
    if (name.empty()) {
      break;
    }
    SHOAL_ASSIGN_OR_RETURN(std::string_view value, in.CString());
    packet.parameters.emplace_back(std::string(name), std::string(value));
  }
  SHOAL_RETURN_IF_ERROR(in.ExpectEnd("startup packet"));
  return packet;
}

namespace {

// A count of following items: never negative, never more than the bytes left could hold.
Result<size_t> Count(MessageReader& in, size_t min_item_bytes, std::string_view what) {
  SHOAL_ASSIGN_OR_RETURN(int16_t n, in.Int16());
  if (n < 0 || static_cast<size_t>(n) * min_item_bytes > in.remaining()) {
    return ProtocolViolation(fmt::format("invalid {} count {}", what, n));
  }
  return static_cast<size_t>(n);
}

Result<std::vector<int16_t>> Formats(MessageReader& in, std::string_view what) {
  SHOAL_ASSIGN_OR_RETURN(size_t n, Count(in, 2, what));
  std::vector<int16_t> formats(n);
  for (auto& f : formats) {
    SHOAL_ASSIGN_OR_RETURN(f, in.Int16());
    if (f != 0 && f != 1) {
      return ProtocolViolation(fmt::format("unsupported format code: {}", f));
    }
  }
  return formats;
}

}  // namespace

Result<ParseMessage> ParseParseMessage(std::string_view body) {
  MessageReader in(body);
  ParseMessage m;
  SHOAL_ASSIGN_OR_RETURN(auto name, in.CString());
  SHOAL_ASSIGN_OR_RETURN(auto query, in.CString());
  m.statement = name;
  m.query = query;
  SHOAL_RETURN_IF_ERROR(CheckUtf8(query, "the query"));
  SHOAL_ASSIGN_OR_RETURN(size_t n, Count(in, 4, "parameter type"));
  m.parameter_types.resize(n);
  for (auto& t : m.parameter_types) {
    SHOAL_ASSIGN_OR_RETURN(int32_t oid, in.Int32());
    t = static_cast<uint32_t>(oid);
  }
  SHOAL_RETURN_IF_ERROR(in.ExpectEnd("Parse"));
  return m;
}

Result<BindMessage> ParseBindMessage(std::string_view body) {
  MessageReader in(body);
  BindMessage m;
  SHOAL_ASSIGN_OR_RETURN(auto portal, in.CString());
  SHOAL_ASSIGN_OR_RETURN(auto statement, in.CString());
  m.portal = portal;
  m.statement = statement;
  SHOAL_ASSIGN_OR_RETURN(m.parameter_formats, Formats(in, "parameter format"));
  SHOAL_ASSIGN_OR_RETURN(size_t n, Count(in, 4, "parameter"));
  if (m.parameter_formats.size() > 1 && m.parameter_formats.size() != n) {
    return ProtocolViolation(fmt::format("bind message has {} parameter formats but {} parameters",
                                         m.parameter_formats.size(), n));
  }
  m.parameters.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    SHOAL_ASSIGN_OR_RETURN(int32_t len, in.Int32());
    if (len == -1) {
      m.parameters.emplace_back(std::nullopt);
      continue;
    }
    if (len < 0) {
      return ProtocolViolation(fmt::format("invalid length {} of bind parameter {}", len, i + 1));
    }
    SHOAL_ASSIGN_OR_RETURN(auto value, in.Bytes(static_cast<size_t>(len)));
    m.parameters.emplace_back(std::string(value));
  }
  SHOAL_ASSIGN_OR_RETURN(m.result_formats, Formats(in, "result format"));
  SHOAL_RETURN_IF_ERROR(in.ExpectEnd("Bind"));
  return m;
}

Result<TargetMessage> ParseTargetMessage(std::string_view body, std::string_view what) {
  MessageReader in(body);
  TargetMessage m;
  SHOAL_ASSIGN_OR_RETURN(uint8_t kind, in.Byte());
  if (kind != 'S' && kind != 'P') {
    return ProtocolViolation(
        fmt::format("invalid {} message subtype {}", what, static_cast<int>(kind)));
  }
  m.kind = static_cast<char>(kind);
  SHOAL_ASSIGN_OR_RETURN(auto name, in.CString());
  m.name = name;
  SHOAL_RETURN_IF_ERROR(in.ExpectEnd(what));
  return m;
}

Result<ExecuteMessage> ParseExecuteMessage(std::string_view body) {
  MessageReader in(body);
  ExecuteMessage m;
  SHOAL_ASSIGN_OR_RETURN(auto portal, in.CString());
  m.portal = portal;
  SHOAL_ASSIGN_OR_RETURN(m.max_rows, in.Int32());
  SHOAL_RETURN_IF_ERROR(in.ExpectEnd("Execute"));
  return m;
}

Result<std::string> ParseQueryMessage(std::string_view body) {
  MessageReader in(body);
  SHOAL_ASSIGN_OR_RETURN(auto query, in.CString());
  SHOAL_RETURN_IF_ERROR(in.ExpectEnd("Query"));
  SHOAL_RETURN_IF_ERROR(CheckUtf8(query, "the query"));
  return std::string(query);
}

void MessageWriter::Begin(char type) {
  buffer_.push_back(type);
  start_ = buffer_.size();
  Int32(0);
}

void MessageWriter::End() {
  PatchInt32(start_, static_cast<int32_t>(buffer_.size() - start_));
}

void MessageWriter::Int16(int16_t v) {
  auto u = static_cast<uint16_t>(v);
  buffer_.push_back(static_cast<char>(u >> 8));
  buffer_.push_back(static_cast<char>(u & 0xFF));
}

void MessageWriter::Int32(int32_t v) {
  auto u = static_cast<uint32_t>(v);
  char b[4] = {static_cast<char>(u >> 24), static_cast<char>((u >> 16) & 0xFF),
               static_cast<char>((u >> 8) & 0xFF), static_cast<char>(u & 0xFF)};
  buffer_.append(b, 4);
}

void MessageWriter::Int64(int64_t v) {
  auto u = static_cast<uint64_t>(v);
  Int32(static_cast<int32_t>(static_cast<uint32_t>(u >> 32)));
  Int32(static_cast<int32_t>(static_cast<uint32_t>(u & 0xFFFFFFFFu)));
}

void MessageWriter::Byte(uint8_t v) {
  buffer_.push_back(static_cast<char>(v));
}

void MessageWriter::CString(std::string_view s) {
  // A NUL inside would end the string early on the client: cut there.
  buffer_.append(s.substr(0, s.find('\0')));
  buffer_.push_back('\0');
}

void MessageWriter::Bytes(std::string_view s) {
  buffer_.append(s);
}

void MessageWriter::PatchInt32(size_t at, int32_t v) {
  auto u = static_cast<uint32_t>(v);
  buffer_[at] = static_cast<char>(u >> 24);
  buffer_[at + 1] = static_cast<char>((u >> 16) & 0xFF);
  buffer_[at + 2] = static_cast<char>((u >> 8) & 0xFF);
  buffer_[at + 3] = static_cast<char>(u & 0xFF);
}

void WriteErrorResponse(MessageWriter& out, const Status& status, std::string_view severity,
                        std::string_view detail) {
  out.Begin('E');
  out.Byte('S');
  out.CString(severity);
  out.Byte('V');
  out.CString(severity);
  out.Byte('C');
  out.CString(status.sqlstate());
  out.Byte('M');
  out.CString(status.UserMessage());
  if (!detail.empty()) {
    out.Byte('D');
    out.CString(detail);
  }
  if (!status.hint().empty()) {
    out.Byte('H');
    out.CString(status.hint());
  }
  if (status.position() > 0) {
    out.Byte('P');
    out.CString(std::to_string(status.position()));
  }
  out.Byte(0);
  out.End();
}

void WriteNoticeResponse(MessageWriter& out, std::string_view severity, std::string_view sqlstate,
                         std::string_view message) {
  out.Begin('N');
  out.Byte('S');
  out.CString(severity);
  out.Byte('V');
  out.CString(severity);
  out.Byte('C');
  out.CString(sqlstate);
  out.Byte('M');
  out.CString(message);
  out.Byte(0);
  out.End();
}

void WriteParameterStatus(MessageWriter& out, std::string_view name, std::string_view value) {
  out.Begin('S');
  out.CString(name);
  out.CString(value);
  out.End();
}

void WriteReadyForQuery(MessageWriter& out, char transaction_status) {
  out.Begin('Z');
  out.Byte(static_cast<uint8_t>(transaction_status));
  out.End();
}

void WriteCommandComplete(MessageWriter& out, std::string_view tag) {
  out.Begin('C');
  out.CString(tag);
  out.End();
}

void WriteEmptyMessage(MessageWriter& out, char type) {
  out.Begin(type);
  out.End();
}

}  // namespace shoal::server
