#include "store/store_lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <string>

#include "../common/temp_dir.h"
#include "../common/user_error_text.h"
#include "common/user_error.h"
#include "store/result_store.h"

namespace capmap {
namespace {

using testing::error_of;
using testing::TempDir;

TEST(StoreLock, ASecondWriterIsRefusedNamingTheRunThatHoldsTheStore) {
  TempDir dir;
  auto path = dir.path() / "s.db";
  auto first = ResultStore::open_for_writing(path);
  std::string message = error_of([&] { ResultStore::open_for_writing(path); });
  EXPECT_EQ(
      message.rfind(
          path.string() + ": store in use by run " + std::to_string(::getpid()) + " since 20", 0),
      0u)
      << message;
  EXPECT_EQ(message.find('\n'), std::string::npos);
  message = error_of([&] { StoreLock::check_free(path); });
  EXPECT_NE(message.find("store in use by run"), std::string::npos) << message;
}

TEST(StoreLock, TheLockGoesWithTheWriterAndReadersNeverTakeIt) {
  TempDir dir;
  auto path = dir.path() / "s.db";
  StoreLock::check_free(path);  // no lock file yet
  { auto first = ResultStore::open_for_writing(path); }
  StoreLock::check_free(path);
  auto again = ResultStore::open_for_writing(path);
  auto reader = ResultStore::open_for_reading(path);
  EXPECT_TRUE(reader.runs().empty());
}

TEST(StoreLock, TheCheckTakesNothing) {
  TempDir dir;
  auto path = dir.path() / "s.db";
  { auto store = ResultStore::open_for_writing(path); }
  StoreLock::check_free(path);
  StoreLock::check_free(path);
  auto store = ResultStore::open_for_writing(path);
}

}  // namespace
}  // namespace capmap
