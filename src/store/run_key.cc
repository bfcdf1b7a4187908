#include "store/run_key.h"

#include "common/fnv_hash.h"

namespace capmap {

namespace {

nlohmann::json string_field(const nlohmann::json& object, const char* key) {
  if (object.is_object() && object.contains(key)) return object.at(key);
  return "";
}

}  // namespace

nlohmann::json run_key_source(const nlohmann::json& library, const nlohmann::json& versions,
                              const nlohmann::json& settings) {
  return {
      {"library",
       {{"name", string_field(library, "name")}, {"revision", string_field(library, "revision")}}},
      {"versions", versions},
      {"settings", settings}};
}

std::string compute_run_key(const nlohmann::json& library, const nlohmann::json& versions,
                            const nlohmann::json& settings) {
  // nlohmann::json keeps object keys in a std::map, so dump() is already sorted.
  return fnv1a64_hex(run_key_source(library, versions, settings).dump());
}

}  // namespace capmap
