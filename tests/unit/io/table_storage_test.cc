// Tests for the storages of the tables Shoal writes (io/table_storage.h): the manifest's format
// and its checks, commits of the Parquet-directory storage surviving a reopen, what a killed writer
// leaves behind (a data file no manifest names, a torn temporary manifest) being ignored and
// removed at open, snapshots that outlive a later commit, and the memory storage's snapshots.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <unistd.h>

#include "shoal/io/memory_table_storage.h"
#include "shoal/io/parquet_directory_storage.h"
#include "shoal/io/table_manifest.h"
#include "tests/support/batch_builder.h"
#include "tests/support/gtest_util.h"

namespace shoal::io {
namespace {

namespace fs = std::filesystem;
using columnar::DataType;
using columnar::Field;
using testing::MakeBatch;

const std::vector<Field> kFields = {Field("a", DataType::Int32(), false),
                                    Field("b", DataType::Utf8(), true)};

columnar::SchemaPtr TestSchema() {
  return std::make_shared<const columnar::Schema>(kFields);
}

// Every row of a provider as "a|b" strings, in order.
std::vector<std::string> Rows(const TableProvider& table) {
  std::vector<std::string> out;
  auto rows = ReadAllRows(table);
  EXPECT_OK(rows.status());
  if (!rows.ok())
    return out;
  for (const auto& b : *rows) {
    auto a = testing::ArrayToStrings(*b->column(0));
    auto s = testing::ArrayToStrings(*b->column(1));
    for (size_t i = 0; i < a.size(); ++i)
      out.push_back(a[i] + "|" + s[i]);
  }
  return out;
}

std::vector<std::string> Files(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class TableStorageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("shoal_storage_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
    dir_ = (root_ / "t").string();
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path root_;
  std::string dir_;
};

TEST(TableManifestTest, RoundTripsColumnsTypesAndFiles) {
  TableManifest m;
  m.version = 7;
  m.schema = std::make_shared<const columnar::Schema>(
      std::vector<Field>{Field("a\tb", DataType::Decimal(15, 2), false),
                         Field("ts", DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC"), true),
                         Field("d", DataType::Date32(), true), Field("s", DataType::Utf8(), true)});
  m.files = {{"data-1.parquet", 3}, {"data-2.parquet", 0}};
  std::string text = EncodeManifest(m);
  ASSERT_OK_AND_ASSIGN(TableManifest back, DecodeManifest(text, "m"));
  EXPECT_EQ(back.version, 7);
  ASSERT_EQ(back.schema->num_fields(), 4);
  EXPECT_EQ(back.schema->field(0).name, "a\tb");
  EXPECT_EQ(back.schema->field(0).type, DataType::Decimal(15, 2));
  EXPECT_FALSE(back.schema->field(0).nullable);
  EXPECT_EQ(back.schema->field(1).type, DataType::Timestamp(columnar::TimeUnit::kMicro, "UTC"));
  ASSERT_EQ(back.files.size(), 2u);
  EXPECT_EQ(back.files[0].name, "data-1.parquet");
  EXPECT_EQ(back.files[0].rows, 3);
}

TEST(TableManifestTest, RefusesTruncatedOrAlteredText) {
  TableManifest m;
  m.version = 1;
  m.schema = TestSchema();
  m.files = {{"data-1.parquet", 3}};
  const std::string text = EncodeManifest(m);
  for (size_t cut : {size_t{0}, size_t{10}, text.size() / 2, text.size() - 1})
    EXPECT_STATUS_CODE(StatusCode::kInvalidData, DecodeManifest(text.substr(0, cut), "m").status())
        << cut;
  std::string altered = text;
  altered[altered.find('3')] = '4';  // the row count
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, DecodeManifest(altered, "m").status());
}

TEST_F(TableStorageTest, CommitsSurviveReopen) {
  {
    ASSERT_OK_AND_ASSIGN(auto storage, ParquetDirectoryStorage::Create(dir_, TestSchema()));
    EXPECT_TRUE(Rows(*storage->Snapshot()).empty());
    ASSERT_OK(storage->Append({MakeBatch(kFields, {{"1", "x"}, {"2", "NULL"}})}));
    ASSERT_OK(storage->Append({MakeBatch(kFields, {{"3", "z"}})}));
    EXPECT_EQ(storage->num_rows(), 3);
  }
  ASSERT_OK_AND_ASSIGN(auto reopened, ParquetDirectoryStorage::Open(dir_));
  EXPECT_EQ(Rows(*reopened->Snapshot()), (std::vector<std::string>{"1|x", "2|NULL", "3|z"}));
  EXPECT_EQ(reopened->manifest().version, 3);
  EXPECT_EQ(reopened->schema()->field(0).name, "a");
  EXPECT_FALSE(reopened->schema()->field(0).nullable);
}

TEST_F(TableStorageTest, LeftoversOfAKilledWriterAreIgnoredAndRemovedAtOpen) {
  {
    ASSERT_OK_AND_ASSIGN(auto storage, ParquetDirectoryStorage::Create(dir_, TestSchema()));
    ASSERT_OK(storage->Append({MakeBatch(kFields, {{"1", "x"}})}));
  }
  // A data file written completely but never named by a manifest (killed before the commit),
  // and a torn temporary manifest (killed while writing it) from a writer that is gone.
  fs::copy_file(fs::path(dir_) / Files(dir_).front(), fs::path(dir_) / "data-000009-dead.parquet");
  std::ofstream(fs::path(dir_) / ".shoal-tmp-999999999-0-manifest")
      << "shoal table manifest 1\nver";
  ASSERT_OK_AND_ASSIGN(auto reopened, ParquetDirectoryStorage::Open(dir_));
  EXPECT_EQ(Rows(*reopened->Snapshot()), (std::vector<std::string>{"1|x"}));
  const auto files = Files(dir_);
  ASSERT_EQ(files.size(), 2u) << ::testing::PrintToString(files);
  EXPECT_EQ(files[1], "manifest");
  EXPECT_NE(files[0], "data-000009-dead.parquet");
}

TEST_F(TableStorageTest, DamagedManifestIsRefusedNotReadAsEmpty) {
  {
    ASSERT_OK_AND_ASSIGN(auto storage, ParquetDirectoryStorage::Create(dir_, TestSchema()));
    ASSERT_OK(storage->Append({MakeBatch(kFields, {{"1", "x"}})}));
  }
  const fs::path manifest = fs::path(dir_) / "manifest";
  fs::resize_file(manifest, fs::file_size(manifest) - 5);
  EXPECT_STATUS_CODE(StatusCode::kInvalidData, ParquetDirectoryStorage::Open(dir_).status());
}

TEST_F(TableStorageTest, SnapshotOutlivesReplaceAndFilesGoWithIt) {
  ASSERT_OK_AND_ASSIGN(auto storage, ParquetDirectoryStorage::Create(dir_, TestSchema()));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"1", "x"}, {"2", "y"}})}));
  TableProviderPtr before = storage->Snapshot();
  ASSERT_OK(storage->Replace({MakeBatch(kFields, {{"2", "y"}})}));
  EXPECT_EQ(Rows(*before), (std::vector<std::string>{"1|x", "2|y"}));
  EXPECT_EQ(Rows(*storage->Snapshot()), (std::vector<std::string>{"2|y"}));
  EXPECT_EQ(Files(dir_).size(), 3u);  // the old file is still read by `before`
  before.reset();
  EXPECT_EQ(Files(dir_).size(), 2u);
  ASSERT_OK(storage->Replace({}));
  EXPECT_TRUE(Rows(*storage->Snapshot()).empty());
  EXPECT_EQ(Files(dir_), (std::vector<std::string>{"manifest"}));
  storage->Drop();
  EXPECT_FALSE(fs::exists(dir_));
}

TEST_F(TableStorageTest, RewriteWritesOnlyThePartsItReplaces) {
  ASSERT_OK_AND_ASSIGN(auto storage, ParquetDirectoryStorage::Create(dir_, TestSchema()));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"1", "x"}, {"2", "y"}})}));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"3", "z"}})}));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"4", "w"}})}));
  const TableManifest before = storage->manifest();
  ASSERT_EQ(before.files.size(), 3u);
  const fs::path kept = fs::path(dir_) / before.files[0].name;
  const auto kept_mtime = fs::last_write_time(kept);
  {
    ASSERT_OK_AND_ASSIGN(auto rewrite, storage->BeginRewrite());
    ASSERT_EQ(rewrite->parts().size(), 3u);  // one per data file
    EXPECT_EQ(Rows(*rewrite->parts()[1]), (std::vector<std::string>{"3|z"}));
    ASSERT_OK(rewrite->BeginPart(1));
    ASSERT_OK(rewrite->Write(MakeBatch(kFields, {{"3", "zz"}})));
    ASSERT_OK(rewrite->FinishPart());
    ASSERT_OK(rewrite->BeginPart(2));  // every row of the third file goes
    ASSERT_OK(rewrite->FinishPart());
    ASSERT_OK_AND_ASSIGN(auto next, rewrite->NewRows());
    EXPECT_EQ(Rows(*next), (std::vector<std::string>{"1|x", "2|y", "3|zz"}));
    EXPECT_EQ(Rows(*storage->Snapshot()).size(), 4u);  // nothing visible before the commit
    ASSERT_OK(rewrite->Commit());
  }
  const TableManifest after = storage->manifest();
  ASSERT_EQ(after.files.size(), 2u);
  EXPECT_EQ(after.files[0].name, before.files[0].name);  // kept as it was, not written again
  EXPECT_EQ(fs::last_write_time(kept), kept_mtime);
  EXPECT_NE(after.files[1].name, before.files[1].name);
  EXPECT_EQ(Rows(*storage->Snapshot()), (std::vector<std::string>{"1|x", "2|y", "3|zz"}));
  // The replaced files went with the commit's last reader.
  std::vector<std::string> expected = {"manifest", after.files[0].name, after.files[1].name};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(Files(dir_), expected);
  storage.reset();
  ASSERT_OK_AND_ASSIGN(auto reopened, ParquetDirectoryStorage::Open(dir_));
  EXPECT_EQ(Rows(*reopened->Snapshot()), (std::vector<std::string>{"1|x", "2|y", "3|zz"}));
}

TEST_F(TableStorageTest, RewriteNotCommittedLeavesTheTableAndRemovesItsFiles) {
  ASSERT_OK_AND_ASSIGN(auto storage, ParquetDirectoryStorage::Create(dir_, TestSchema()));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"1", "x"}})}));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"2", "y"}})}));
  const std::vector<std::string> files = Files(dir_);
  {
    ASSERT_OK_AND_ASSIGN(auto rewrite, storage->BeginRewrite());
    ASSERT_OK(rewrite->BeginPart(0));
    ASSERT_OK(rewrite->Write(MakeBatch(kFields, {{"5", "v"}})));
    rewrite->AbandonPart();  // the part is kept after all
    ASSERT_OK(rewrite->BeginPart(0));
    ASSERT_OK(rewrite->Write(MakeBatch(kFields, {{"6", "u"}})));
    ASSERT_OK(rewrite->FinishPart());
    EXPECT_EQ(Files(dir_).size(), files.size() + 1);
  }  // a failed statement: no commit
  EXPECT_EQ(Files(dir_), files);
  EXPECT_EQ(Rows(*storage->Snapshot()), (std::vector<std::string>{"1|x", "2|y"}));
}

TEST_F(TableStorageTest, RewriteOfADroppedTableCommitsNothingAndLeavesNoFile) {
  ASSERT_OK_AND_ASSIGN(auto storage, ParquetDirectoryStorage::Create(dir_, TestSchema()));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"1", "x"}, {"2", "y"}})}));
  {
    ASSERT_OK_AND_ASSIGN(auto rewrite, storage->BeginRewrite());
    ASSERT_OK(rewrite->BeginPart(0));
    ASSERT_OK(rewrite->Write(MakeBatch(kFields, {{"2", "y"}})));
    ASSERT_OK(rewrite->FinishPart());
    storage->Drop();  // DROP TABLE from another session, between the read and the commit
    Status committed = rewrite->Commit();
    EXPECT_EQ(committed.sqlstate(), "42P01") << committed.ToString();
    EXPECT_FALSE(fs::exists(fs::path(dir_) / "manifest"));
  }
  EXPECT_FALSE(fs::exists(dir_));  // the last reader of the dropped files took the directory
  EXPECT_STATUS_CODE(StatusCode::kNotFound, storage->Append({MakeBatch(kFields, {{"3", "z"}})}));
}

TEST(MemoryTableStorageTest, RewriteReplacesTheWholeTable) {
  ASSERT_OK_AND_ASSIGN(auto storage, MemoryTableStorage::Make(TestSchema()));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"1", "x"}})}));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"2", "y"}})}));
  ASSERT_OK_AND_ASSIGN(auto rewrite, storage->BeginRewrite());
  ASSERT_EQ(rewrite->parts().size(), 1u);
  ASSERT_OK(rewrite->BeginPart(0));
  ASSERT_OK(rewrite->Write(MakeBatch(kFields, {{"2", "y"}})));
  ASSERT_OK(rewrite->FinishPart());
  ASSERT_OK(rewrite->Commit());
  EXPECT_EQ(Rows(*storage->Snapshot()), (std::vector<std::string>{"2|y"}));
}

TEST_F(TableStorageTest, AddColumnWritesNoFileAndOldFilesReadItsValue) {
  ASSERT_OK_AND_ASSIGN(auto storage, ParquetDirectoryStorage::Create(dir_, TestSchema()));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"1", "x"}, {"2", "y"}})}));
  const std::vector<std::string> files = Files(dir_);
  ASSERT_OK(
      storage->AddColumn(Field("c", DataType::Int64(), true), columnar::Scalar::Int64(7), "7"));
  ASSERT_OK(storage->AddColumn(Field("d", DataType::Utf8(), true),
                               columnar::Scalar(DataType::Utf8()), ""));
  EXPECT_EQ(Files(dir_), files);  // no data file written, the manifest replaced in place
  auto four = std::vector<Field>{kFields[0], kFields[1], Field("c", DataType::Int64(), true),
                                 Field("d", DataType::Utf8(), true)};
  ASSERT_OK(storage->Append({MakeBatch(four, {{"3", "z", "30", "dd"}})}));
  auto rows = [](const TableProvider& table) {
    std::vector<std::string> out;
    auto read = ReadAllRows(table);
    EXPECT_OK(read.status());
    for (const auto& b : read.ok() ? *read : std::vector<columnar::RecordBatchPtr>{}) {
      std::vector<std::vector<std::string>> columns;
      for (int c = 0; c < b->num_columns(); ++c)
        columns.push_back(testing::ArrayToStrings(*b->column(c)));
      for (size_t r = 0; r < columns[0].size(); ++r) {
        std::string row;
        for (const auto& c : columns)
          row += (row.empty() ? "" : "|") + c[r];
        out.push_back(row);
      }
    }
    return out;
  };
  const std::vector<std::string> expected = {"1|x|7|NULL", "2|y|7|NULL", "3|z|30|dd"};
  EXPECT_EQ(rows(*storage->Snapshot()), expected);
  const auto stats = storage->Snapshot()->statistics();
  ASSERT_EQ(stats.columns.size(), 4u);
  EXPECT_EQ(stats.columns[2].min, columnar::Scalar::Int64(7));
  EXPECT_EQ(stats.columns[2].max, columnar::Scalar::Int64(30));
  EXPECT_EQ(stats.columns[3].null_count, 2);
  EXPECT_EQ(storage->column_defaults(), (std::vector<std::string>{"", "", "7", ""}));
  storage.reset();
  ASSERT_OK_AND_ASSIGN(auto reopened, ParquetDirectoryStorage::Open(dir_));
  EXPECT_EQ(rows(*reopened->Snapshot()), expected);
  EXPECT_EQ(reopened->column_defaults(), (std::vector<std::string>{"", "", "7", ""}));
  // A rewrite of the old file writes it with every column.
  ASSERT_OK_AND_ASSIGN(auto rewrite, reopened->BeginRewrite());
  ASSERT_OK(rewrite->BeginPart(0));
  ASSERT_OK(ForEachBatch(*rewrite->parts()[0], [&](const columnar::RecordBatchPtr& b) {
    return rewrite->Write(b->Slice(0, 1));
  }));
  ASSERT_OK(rewrite->FinishPart());
  ASSERT_OK(rewrite->Commit());
  EXPECT_EQ(rows(*reopened->Snapshot()), (std::vector<std::string>{"1|x|7|NULL", "3|z|30|dd"}));
}

TEST(TableManifestTest, RoundTripsDefaultsAndMissingValues) {
  TableManifest m;
  m.version = 3;
  m.schema = std::make_shared<const columnar::Schema>(std::vector<Field>{
      Field("a", DataType::Int32(), false), Field("b", DataType::Utf8(), true),
      Field("c", DataType::Decimal(10, 2), true), Field("d", DataType::Float64(), true)});
  m.defaults = {"", "'tab\there'", "-1.50", "random()"};
  m.missing = {columnar::Scalar(DataType::Int32()), columnar::Scalar::Utf8("tab\there"),
               columnar::Scalar::Decimal(-150, 10, 2), columnar::Scalar::Float64(0.1)};
  ASSERT_OK_AND_ASSIGN(TableManifest back, DecodeManifest(EncodeManifest(m), "manifest"));
  EXPECT_EQ(back.defaults, m.defaults);
  EXPECT_EQ(back.missing, m.missing);
}

TEST_F(TableStorageTest, RefusesTypesParquetCannotHold) {
  auto schema = std::make_shared<const columnar::Schema>(
      std::vector<Field>{Field("i", DataType::Interval(), true)});
  auto made = ParquetDirectoryStorage::Create(dir_, schema);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.status().sqlstate(), "0A000");
  EXPECT_FALSE(fs::exists(dir_));
}

TEST(MemoryTableStorageTest, SnapshotsKeepTheirRows) {
  ASSERT_OK_AND_ASSIGN(auto storage, MemoryTableStorage::Make(TestSchema()));
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"1", "x"}})}));
  TableProviderPtr first = storage->Snapshot();
  ASSERT_OK(storage->Append({MakeBatch(kFields, {{"2", "y"}})}));
  EXPECT_EQ(Rows(*first), (std::vector<std::string>{"1|x"}));
  ASSERT_OK(storage->Replace({MakeBatch(kFields, {{"3", "z"}})}));
  EXPECT_EQ(Rows(*storage->Snapshot()), (std::vector<std::string>{"3|z"}));
  EXPECT_EQ(storage->num_rows(), 1);
}

}  // namespace
}  // namespace shoal::io
