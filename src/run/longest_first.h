#pragma once
// Longest-first packing: items of known seconds onto N bins (job slots, shards),
// each item, longest first, onto the bin that has the least so far. The
// scheduler runs a queue the same way, so the packing predicts a run's wall.
#include <cstddef>
#include <vector>

namespace capmap {

struct Packing {
  std::vector<int> bin_of;   // bin of each item, in the items' order
  std::vector<double> load;  // seconds of each bin
  double wall() const;       // the fullest bin's seconds
};

// Deterministic: equal seconds keep the items' order, equal loads take the
// lowest bin. `bins` < 1 counts as 1.
Packing pack_longest_first(const std::vector<double>& seconds, int bins);

}  // namespace capmap
