#include "shoal/io/table_manifest.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "shoal/columnar/decimal.h"
#include "shoal/io/file_writer.h"
#include "shoal/io/temporary_path.h"

namespace shoal::io {

using columnar::DataType;
using columnar::TimeUnit;
using columnar::TypeId;

namespace {

constexpr std::string_view kHeader = "shoal table manifest 1";

const char* UnitName(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kSecond: return "s";
    case TimeUnit::kMilli: return "ms";
    case TimeUnit::kMicro: return "us";
    case TimeUnit::kNano: return "ns";
  }
  return "us";
}

Result<int64_t> ParseInt(std::string_view text, const std::string& path) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size())
    return Status::InvalidData("{}: '{}' is not a number", path, text);
  return value;
}

}  // namespace

std::string EscapeField(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      default: out += c;
    }
  }
  return out;
}

std::string UnescapeField(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
      continue;
    }
    char c = text[++i];
    out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c;
  }
  return out;
}

std::vector<std::string> SplitFields(std::string_view line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    fields.push_back(UnescapeField(line.substr(start, tab - start)));
    if (tab == std::string_view::npos)
      break;
    start = tab + 1;
  }
  return fields;
}

std::string ChecksumText(std::string_view bytes) {
  uint64_t hash = 14695981039346656037ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", hash);
}

Result<std::string> EncodeDataType(const DataType& type) {
  switch (type.id()) {
    case TypeId::kDecimal: return fmt::format("decimal({},{})", type.precision(), type.scale());
    case TypeId::kTimestamp:
      return fmt::format("timestamp({},{})", UnitName(type.unit()), type.timezone());
    case TypeId::kDictionary:
      return Status::Internal("a durable table cannot store the dictionary type {}",
                              type.ToString());
    default: return std::string(columnar::TypeIdName(type.id()));
  }
}

Result<DataType> DecodeDataType(std::string_view text) {
  const size_t paren = text.find('(');
  const std::string_view name = text.substr(0, paren);
  std::string_view args;
  if (paren != std::string_view::npos) {
    if (text.back() != ')')
      return Status::InvalidData("bad type '{}'", text);
    args = text.substr(paren + 1, text.size() - paren - 2);
  }
  const size_t comma = args.find(',');
  if (name == "decimal") {
    int precision = 0;
    int scale = 0;
    auto p = std::from_chars(args.data(), args.data() + comma, precision);
    auto s = std::from_chars(args.data() + comma + 1, args.data() + args.size(), scale);
    if (comma == std::string_view::npos || p.ec != std::errc() || s.ec != std::errc())
      return Status::InvalidData("bad type '{}'", text);
    return DataType::MakeDecimal(precision, scale);
  }
  if (name == "timestamp") {
    if (comma == std::string_view::npos)
      return Status::InvalidData("bad type '{}'", text);
    std::string_view unit = args.substr(0, comma);
    TimeUnit u = unit == "s"    ? TimeUnit::kSecond
                 : unit == "ms" ? TimeUnit::kMilli
                 : unit == "ns" ? TimeUnit::kNano
                                : TimeUnit::kMicro;
    return DataType::Timestamp(u, std::string(args.substr(comma + 1)));
  }
  for (int id = 0; id <= static_cast<int>(TypeId::kBinary); ++id) {
    auto type_id = static_cast<TypeId>(id);
    if (name != columnar::TypeIdName(type_id) || type_id == TypeId::kDecimal ||
        type_id == TypeId::kTimestamp)
      continue;
    switch (type_id) {
      case TypeId::kNull: return DataType::Null();
      case TypeId::kBoolean: return DataType::Boolean();
      case TypeId::kInt8: return DataType::Int8();
      case TypeId::kInt16: return DataType::Int16();
      case TypeId::kInt32: return DataType::Int32();
      case TypeId::kInt64: return DataType::Int64();
      case TypeId::kUInt8: return DataType::UInt8();
      case TypeId::kUInt16: return DataType::UInt16();
      case TypeId::kUInt32: return DataType::UInt32();
      case TypeId::kUInt64: return DataType::UInt64();
      case TypeId::kFloat32: return DataType::Float32();
      case TypeId::kFloat64: return DataType::Float64();
      case TypeId::kDate32: return DataType::Date32();
      case TypeId::kInterval: return DataType::Interval();
      case TypeId::kUtf8: return DataType::Utf8();
      case TypeId::kBinary: return DataType::Binary();
      default: break;
    }
  }
  return Status::InvalidData("unknown type '{}'", text);
}

Result<std::string> EncodeValueText(const columnar::Scalar& value) {
  switch (value.type().id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kDate32:
    case TypeId::kTimestamp: return fmt::format("{}", value.int_value());
    case TypeId::kFloat32:
    case TypeId::kFloat64: return fmt::format("{}", value.float_value());  // shortest exact form
    case TypeId::kDecimal: return columnar::Int128ToString(value.decimal_value());  // unscaled
    case TypeId::kUtf8:
    case TypeId::kBinary: return value.string_value();
    default:
      return Status::Internal("a value of type {} has no manifest form", value.type().ToString());
  }
}

Result<columnar::Scalar> DecodeValueText(std::string_view text, const DataType& type) {
  auto bad = [&]() {
    return Status::InvalidData("'{}' is not a value of type {}", text, type.ToString());
  };
  switch (type.id()) {
    case TypeId::kBoolean:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64:
    case TypeId::kDate32:
    case TypeId::kTimestamp: {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || end != text.data() + text.size())
        return bad();
      return columnar::Scalar::FromInt(type, v);
    }
    case TypeId::kFloat32:
    case TypeId::kFloat64: {
      const std::string copy(text);
      char* end = nullptr;
      const double v = std::strtod(copy.c_str(), &end);
      if (copy.empty() || end != copy.c_str() + copy.size())
        return bad();
      return columnar::Scalar::FromFloat(type, v);
    }
    case TypeId::kDecimal: {
      const bool negative = !text.empty() && text.front() == '-';
      const std::string_view digits = negative ? text.substr(1) : text;
      if (digits.empty())
        return bad();
      columnar::int128_t v = 0;
      for (char c : digits) {
        if (c < '0' || c > '9')
          return bad();
        v = v * 10 + (c - '0');
      }
      return columnar::Scalar::Decimal(negative ? -v : v, type.precision(), type.scale());
    }
    case TypeId::kUtf8: return columnar::Scalar::Utf8(std::string(text));
    case TypeId::kBinary: return columnar::Scalar::Binary(std::string(text));
    default: return bad();
  }
}

std::string EncodeManifest(const TableManifest& manifest) {
  std::string out(kHeader);
  out += '\n';
  out += fmt::format("version\t{}\n", manifest.version);
  for (const auto& field : manifest.schema->fields()) {
    auto type = EncodeDataType(field.type);
    out += fmt::format("column\t{}\t{}\t{}\n", EscapeField(field.name),
                       type.ok() ? *type : std::string("?"), field.nullable ? 1 : 0);
  }
  for (size_t c = 0; c < manifest.defaults.size(); ++c) {
    if (!manifest.defaults[c].empty())
      out += fmt::format("default\t{}\t{}\n", c, EscapeField(manifest.defaults[c]));
  }
  for (size_t c = 0; c < manifest.missing.size(); ++c) {
    if (manifest.missing[c].is_null())
      continue;
    auto value = EncodeValueText(manifest.missing[c]);
    out += fmt::format("missing\t{}\t{}\n", c, EscapeField(value.ok() ? *value : std::string()));
  }
  for (const auto& f : manifest.files)
    out += fmt::format("file\t{}\t{}\n", EscapeField(f.name), f.rows);
  out += fmt::format("checksum\t{}\n", ChecksumText(out));
  return out;
}

Result<TableManifest> DecodeManifest(std::string_view text, const std::string& path) {
  const size_t last = text.rfind("checksum\t");
  if (text.substr(0, kHeader.size()) != kHeader || last == std::string_view::npos ||
      text.back() != '\n')
    return Status::InvalidData("{} is not a complete table manifest", path);
  const std::string_view body = text.substr(0, last);
  const std::string_view sum = text.substr(last + 9, text.size() - last - 10);
  if (ChecksumText(body) != sum)
    return Status::InvalidData("{}: the checksum does not match (the file is damaged)", path);
  TableManifest manifest;
  std::vector<columnar::Field> fields;
  std::istringstream in{std::string(body)};
  std::string line;
  std::getline(in, line);  // the header
  // The column a `default` or `missing` line names (they follow the column lines).
  auto column = [&](const std::string& text) -> Result<size_t> {
    SHOAL_ASSIGN_OR_RETURN(int64_t c, ParseInt(text, path));
    if (c < 0 || static_cast<size_t>(c) >= fields.size())
      return Status::InvalidData("{}: no column {}", path, c);
    manifest.defaults.resize(fields.size());
    manifest.missing.resize(fields.size());
    return static_cast<size_t>(c);
  };
  while (std::getline(in, line)) {
    std::vector<std::string> f = SplitFields(line);
    if (f[0] == "default" && f.size() == 3) {
      SHOAL_ASSIGN_OR_RETURN(size_t c, column(f[1]));
      manifest.defaults[c] = f[2];
    } else if (f[0] == "missing" && f.size() == 3) {
      SHOAL_ASSIGN_OR_RETURN(size_t c, column(f[1]));
      auto value = DecodeValueText(f[2], fields[c].type);
      if (!value.ok())
        return std::move(value).status().WithContext(path);
      manifest.missing[c] = std::move(*value);
    } else if (f[0] == "version" && f.size() == 2) {
      SHOAL_ASSIGN_OR_RETURN(manifest.version, ParseInt(f[1], path));
    } else if (f[0] == "column" && f.size() == 4) {
      auto type = DecodeDataType(f[2]);
      if (!type.ok())
        return std::move(type).status().WithContext(path);
      fields.emplace_back(f[1], *type, f[3] == "1");
    } else if (f[0] == "file" && f.size() == 3) {
      SHOAL_ASSIGN_OR_RETURN(int64_t rows, ParseInt(f[2], path));
      manifest.files.push_back({f[1], rows});
    } else {
      return Status::InvalidData("{}: unexpected line '{}'", path, line);
    }
  }
  manifest.defaults.resize(fields.size());
  manifest.missing.resize(fields.size());
  for (size_t c = 0; c < fields.size(); ++c) {
    if (manifest.missing[c].type() != fields[c].type)
      manifest.missing[c] = columnar::Scalar(fields[c].type);
  }
  manifest.schema = std::make_shared<const columnar::Schema>(std::move(fields));
  return manifest;
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  SHOAL_ASSIGN_OR_RETURN(auto temporary, TemporaryPath::Create(path));
  SHOAL_ASSIGN_OR_RETURN(auto file, FileWriter::Open(temporary->path()));
  SHOAL_RETURN_IF_ERROR(file->Write(bytes));
  SHOAL_RETURN_IF_ERROR(file->Close());
  return temporary->Publish(/*durable=*/true);
}

Result<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::IoError("cannot open {}: {}", path, std::strerror(errno));
  std::ostringstream out;
  out << in.rdbuf();
  if (in.bad())
    return Status::IoError("cannot read {}", path);
  return out.str();
}

}  // namespace shoal::io
