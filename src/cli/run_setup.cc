#include "cli/run_setup.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "common/user_error.h"
#include "run/byte_size.h"
#include "run/compile_cache.h"
#include "run/python_locator.h"
#include "run/run_paths.h"
#include "selection/shard.h"
#include "store/result_store.h"
#include "store/store_lock.h"

namespace capmap {
namespace {

SupervisorOptions supervisor_options_from(const RunCommandOptions& options) {
  SupervisorOptions supervisor;
  supervisor.memory_limit = parse_byte_size(options.memory_limit);
  supervisor.timeout_seconds = options.timeout;
  supervisor.jobs = options.jobs > 0
                        ? options.jobs
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  supervisor.workers = options.workers;
  supervisor.reuse_children = !options.fresh_children;
  supervisor.registries = options.registries;
  supervisor.settings = {{"opset", options.opset}, {"export_strict", options.strict}};
  // Written only when off, so that runs with the default keep their run keys.
  if (options.no_flatten) supervisor.settings["flatten"] = false;
  return supervisor;
}

// The workers' interpreter: every process this run starts (workers, repro
// writer, hash checks) finds it through CAPMAP_PYTHON.
PythonEnvironment use_python(const RunCommandOptions& options, SupervisorOptions& supervisor) {
  if (!options.python.empty()) ::setenv("CAPMAP_PYTHON", options.python.c_str(), 1);
  supervisor.python = locate_python();
  const char* named_by = !options.python.empty()                   ? "--python"
                         : std::getenv("CAPMAP_PYTHON") != nullptr ? "CAPMAP_PYTHON"
                                                                   : "interpreter";
  return check_python_environment(supervisor.python, named_by);
}

// --compile-cache, else CAPMAP_COMPILE_CACHE: the folder of the workers'
// compile slots (claim_compile_cache in python/capmap/worker/process_control.py).
std::filesystem::path use_compile_cache(const RunCommandOptions& options,
                                        const PythonEnvironment& environment) {
  std::string cache_option = "--compile-cache";
  std::string cache_dir = options.compile_cache;
  if (const char* env = std::getenv("CAPMAP_COMPILE_CACHE");
      cache_dir.empty() && env != nullptr && *env != '\0') {
    cache_dir = env;
    cache_option = "CAPMAP_COMPILE_CACHE";
  }
  if (cache_dir.empty()) return {};
  std::filesystem::path folder = prepare_compile_cache(cache_dir, cache_option, environment);
  ::setenv("CAPMAP_COMPILE_SLOTS", folder.c_str(), 1);
  return folder;
}

}  // namespace

RunSetup check_run_options(const RunCommandOptions& options) {
  RunSetup setup;
  setup.requested_paths = split_path_list(options.paths);
  setup.filter.only = options.only;
  setup.filter.tags = options.tags;
  if (!options.shard.empty()) setup.filter.shard = parse_shard(options.shard);
  setup.shard_by = parse_shard_by(options.shard_by);
  setup.supervisor = supervisor_options_from(options);
  setup.store = options.store;
  ResultStore::check_existing(setup.store);
  // Another run writing this store would run the same tasks: refuse before any work.
  StoreLock::check_free(setup.store);
  setup.environment = use_python(options, setup.supervisor);
  setup.cache_folder = use_compile_cache(options, setup.environment);
  setup.change_request = {options.changed, options.changed_since, options.changed_auto,
                          options.by_function, options.by_file};
  if (setup.shard_by == ShardBy::kTime && options.baseline.empty()) {
    throw UserError(
        "--shard-by time: needs --baseline, so that every shard splits by the same durations");
  }
  return setup;
}

}  // namespace capmap
