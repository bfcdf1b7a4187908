#include "run/path_time_limit.h"

#include <algorithm>

namespace capmap {

double path_time_limit(double timeout, std::optional<double> known_seconds) {
  // A record at or over the limit timed out itself: it says nothing of how long the path needs.
  if (!known_seconds || *known_seconds >= timeout || *known_seconds < 0) return timeout;
  return std::max(timeout,
                  std::min(kKnownPathSlowdown * *known_seconds, kKnownPathMostLimits * timeout));
}

}  // namespace capmap
