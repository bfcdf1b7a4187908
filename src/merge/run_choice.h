#pragma once
// Which run of the stores a merge reads: one store may hold runs of several
// environments (torch versions, exporters) side by side, each under its own key.
#include <string>
#include <vector>

#include "merge/version_filter.h"
#include "store/store_reader.h"

namespace capmap {

struct RunChoice {
  const StoredRun* run = nullptr;
  // Run keys the choice was made among (those passing the filter); more than
  // one means the newest was taken, which the caller says.
  std::size_t candidates = 0;
};

// The run with `run_key` when given; else the newest run that passes
// `filter`. Throws UserError when none does, listing the environments held.
RunChoice choose_run(const std::vector<std::vector<StoredRun>>& runs_per_store,
                     const std::string& run_key, const VersionFilter& filter,
                     const std::string& first_store);

// `torch 2.9.1, onnxscript 0.5.7, …, kornia 0.9.0`: a run's environment in one phrase.
std::string describe_environment(const StoredRun& run);

}  // namespace capmap
