#pragma once
// How long one path of a case may run. A path an earlier record saw end under
// the time limit (the --baseline's, or this store's) is given room for a slower
// machine or a colder compiler cache than that record's, so a case the baseline
// captured in 90 s is not reported as timing out on a CI runner that takes 450 s.
#include <optional>

namespace capmap {

// Room given to a path for each second it took before.
inline constexpr double kKnownPathSlowdown = 10;
// The most room, in multiples of the run's time limit.
inline constexpr double kKnownPathMostLimits = 3;

// `timeout`, or for a path known to have ended in `known_seconds` under it,
// max(timeout, min(kKnownPathSlowdown × known, kKnownPathMostLimits × timeout)).
double path_time_limit(double timeout, std::optional<double> known_seconds);

}  // namespace capmap
