#include "snapshot/snapshot_json.h"

#include <fmt/format.h>

#include <cstdlib>
#include <ctime>

#include "common/user_error.h"

namespace capmap {

std::string snapshot_text(const nlohmann::json& snapshot) {
  // Messages come from arbitrary programs; invalid UTF-8 must not stop a merge.
  return snapshot.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string generation_time(const std::string& fallback) {
  const char* epoch = std::getenv("SOURCE_DATE_EPOCH");
  if (epoch == nullptr || *epoch == '\0') return fallback;
  char* end = nullptr;
  long long seconds = std::strtoll(epoch, &end, 10);
  if (*end != '\0' || seconds < 0) {
    throw UserError(fmt::format("SOURCE_DATE_EPOCH: not a number of seconds: '{}'", epoch));
  }
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

}  // namespace capmap
