#pragma once
// `capmap run`: its options as typed, and what the command checks and settles
// before any process starts (a typo costs nothing: no worker, no store touched).
#include <filesystem>
#include <string>
#include <vector>

#include "run/python_check.h"
#include "run/shard_split.h"
#include "run/supervisor.h"
#include "selection/case_selection.h"
#include "selection/change_request.h"

namespace capmap {

struct RunCommandOptions {
  std::vector<std::string> registries;
  int jobs = 0;
  int workers = 1;
  bool fresh_children = false;
  std::vector<std::string> only;
  std::string paths;  // empty: the paths the worker announces as default
  double timeout = 420;
  std::string memory_limit = "8G";
  std::string store = "capmap-results/results.db";
  std::string shard;
  bool retry_crashed = false;
  int opset = 18;
  bool strict = false;
  bool no_flatten = false;
  std::vector<std::string> tags;
  bool all = false;
  bool no_merge = false;
  std::string out;
  bool repro = false;
  std::vector<std::string> changed;
  std::string changed_since;
  bool changed_auto = false;
  bool by_function = false;
  bool by_file = false;
  std::string baseline;
  std::string shard_by = "name";
  std::string python;         // empty: CAPMAP_PYTHON, else the interpreter beside capmap
  std::string compile_cache;  // empty: CAPMAP_COMPILE_CACHE, else a folder under the system's tmp
};

struct RunSetup {
  std::vector<std::string> requested_paths;  // --paths; empty: the announced defaults
  CaseFilter filter;
  ShardBy shard_by = ShardBy::kName;
  SupervisorOptions supervisor;
  std::filesystem::path store;
  PythonEnvironment environment;       // of the workers' interpreter
  std::filesystem::path cache_folder;  // empty: inductor's own default
  ChangeRequest change_request;
};

// Checks every option and the store, finds and checks the workers' interpreter
// and prepares the compile cache (setting CAPMAP_PYTHON and CAPMAP_COMPILE_SLOTS
// for every process the run starts). Throws UserError naming what is wrong.
RunSetup check_run_options(const RunCommandOptions& options);

}  // namespace capmap
