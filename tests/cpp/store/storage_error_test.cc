#include "store/storage_error.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cerrno>
#include <string>

#include "../common/temp_dir.h"
#include "common/atomic_file.h"
#include "store/result_store.h"

namespace capmap {
namespace {

using testing::TempDir;

TEST(StorageError, AFullDiskIsNamedWithTheStore) {
  EXPECT_EQ(storage_cause("d/s.db", SQLITE_FULL, 0), "no space left on the device holding d/s.db");
  EXPECT_EQ(storage_cause("d/s.db", SQLITE_IOERR_WRITE, ENOSPC),
            "no space left on the device holding d/s.db");
}

TEST(StorageError, ReadOnlyStoresAreNamed) {
  EXPECT_EQ(storage_cause("d/s.db", SQLITE_READONLY, EROFS),
            "d/s.db is on a read-only file system");
  EXPECT_EQ(storage_cause("d/s.db", SQLITE_READONLY, 0),
            "d/s.db is read-only (no write permission on the file or on its folder d)");
}

TEST(StorageError, AVanishedStoreOrFolderIsNamed) {
  TempDir dir;
  auto gone = dir.path() / "gone" / "s.db";
  EXPECT_EQ(
      storage_cause(gone, SQLITE_READONLY_DBMOVED, 0),
      "the folder " + gone.parent_path().string() + " holding the store was removed or moved");
  auto file = dir.path() / "s.db";
  EXPECT_EQ(storage_cause(file, SQLITE_IOERR_FSTAT, ENOENT),
            file.string() + " was removed or moved while in use");
}

TEST(StorageError, OtherFailuresAreNotStorageProblems) {
  EXPECT_EQ(storage_cause("s.db", SQLITE_CORRUPT, 0), "");
  EXPECT_EQ(storage_cause("s.db", SQLITE_ERROR, 0), "");
}

TEST(StorageError, AStoreRemovedDuringARunFailsItsNextWriteNamingThat) {
  TempDir dir;
  auto folder = dir.path() / "out";
  auto path = folder / "s.db";
  auto store = ResultStore::open_for_writing(path);
  RunDescription run;
  run.run_key = "k";
  run.info = {{"library", {{"name", "lib"}}}};
  run.cases = nlohmann::json::array({{{"name", "a"}}});
  run.paths = {"eager"};
  store.begin_run(run);
  store.put_record("k", "a", "eager", {{"status", "ok"}});
  std::filesystem::remove_all(folder);
  try {
    store.put_record("k", "a", "onnx", {{"status", "ok"}});
    FAIL() << "a write to a removed store succeeded";
  } catch (const StorageError& e) {
    EXPECT_NE(std::string(e.what()).find("holding the store was removed or moved"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace capmap
