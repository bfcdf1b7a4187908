#pragma once
// What a reader sees for a path: the raw probe/engine status folded into the
// small set the page shows.
#include <string>
#include <string_view>

namespace capmap {

// ok | ok-breaks | ok-unverified | mismatch | specialized | fail | crashed | timeout | oom | n/a.
// Unknown raw statuses count as fail so that nothing new is ever shown as supported.
std::string page_status(std::string_view raw_status);

// ok, ok-breaks and ok-unverified: the path captured the operator.
bool is_supported(std::string_view page_status);

}  // namespace capmap
