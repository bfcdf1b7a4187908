// Fuzz target: a results store file as `capmap merge`, `causes --store` and
// `run --store` open it. The input bytes become the SQLite file; every reader
// must refuse a damaged or foreign one with one line naming it.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_input.h"
#include "merge/merge.h"
#include "store/result_store.h"

namespace {

// One folder per fuzzing process; the store and SQLite's side files are
// replaced for every input.
const std::filesystem::path& store_file() {
  static const std::filesystem::path file = [] {
    auto folder = std::filesystem::temp_directory_path() /
                  ("capmap-store-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    return folder / "fuzz-store.db";
  }();
  return file;
}

void write_input(const std::uint8_t* data, std::size_t size) {
  const auto& file = store_file();
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(file.string() + suffix);
  }
  std::ofstream out(file, std::ios::binary);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capmap;
  write_input(data, size);
  const auto& file = store_file();
  const std::string name = file.string();
  // merge and causes --store read through the store's read-only view (store/store_reader.h).
  fuzz::expect_refusal_or_success(name, [&] {
    MergeOptions options;
    options.stores = {file};
    (void)build_snapshot(options).snapshot.dump();
  });
  // run --store: the check before any work, then the writer's reads.
  fuzz::expect_refusal_or_success(name, [&] {
    ResultStore::check_existing(file);
    auto store = ResultStore::open_for_writing(file);
    (void)store.known_durations();
    for (const auto& [run_key, info] : store.runs()) {
      (void)store.records(run_key);
      (void)store.dispatch_attempts(run_key);
    }
  });
  return 0;
}
