#include "run/longest_first.h"

#include <algorithm>
#include <numeric>

namespace capmap {

double Packing::wall() const {
  return load.empty() ? 0.0 : *std::max_element(load.begin(), load.end());
}

Packing pack_longest_first(const std::vector<double>& seconds, int bins) {
  Packing packing;
  packing.bin_of.assign(seconds.size(), 0);
  packing.load.assign(static_cast<std::size_t>(std::max(bins, 1)), 0.0);
  std::vector<std::size_t> order(seconds.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return seconds[a] > seconds[b]; });
  for (std::size_t item : order) {
    auto least = std::min_element(packing.load.begin(), packing.load.end());
    *least += seconds[item];
    packing.bin_of[item] = static_cast<int>(least - packing.load.begin());
  }
  return packing;
}

}  // namespace capmap
