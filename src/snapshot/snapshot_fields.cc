#include "snapshot/snapshot_fields.h"

#include <fmt/format.h>

#include <initializer_list>
#include <string_view>

#include "common/path_info.h"
#include "common/user_error.h"

namespace capmap {

namespace {

// JSON types a field may have, as a bit set.
enum Kind : unsigned {
  kString = 1u << 0,
  kNull = 1u << 1,
  kInteger = 1u << 2,
  kNumber = 1u << 3,  // any number, integers included
  kBoolean = 1u << 4,
  kObject = 1u << 5,
  kArray = 1u << 6,
  kStringList = 1u << 7,   // an array of strings
  kStringMap = 1u << 8,    // an object whose values are strings
  kNullableMap = 1u << 9,  // an object whose values are strings or null
  kObjectList = 1u << 10,  // an array of objects
};

// A measured float may be written as "NaN" or "Infinity" (JSON has no such
// numbers), so a real-valued field also takes a string.
constexpr unsigned kReal = kNumber | kString | kNull;

struct Field {
  std::string_view key;
  unsigned kinds;
};

constexpr Field kHeaderFields[] = {
    {"tool", kString},        {"library", kObject},         {"versions", kNullableMap},
    {"settings", kObject},    {"run_key", kString},         {"device", kString | kNull},
    {"cpu", kString | kNull}, {"cores", kInteger | kNull},  {"generated_at", kString | kNull},
    {"complete", kBoolean},   {"missing", kInteger},        {"paths", kStringList},
    {"path_info", kObject},   {"excludes", kObjectList},    {"coverage", kObject | kNull},
    {"layout", kString},      {"machine", kObject | kNull},
};

constexpr Field kLibraryFields[] = {
    {"name", kString},
    {"version", kString | kNull},
    {"revision", kString | kNull},
    {"source_url", kString | kNull},
    {"docs_url", kString | kNull},
};

constexpr Field kExcludeFields[] = {
    {"name", kString},
    {"reason", kString},
    {"where", kString},
};

constexpr Field kCoverageFields[] = {
    {"covered", kInteger},
    {"total", kInteger},
    {"percent", kNumber},
};

// The case name is each reader's own first check, in its own words.
constexpr Field kCaseFields[] = {
    {"operator", kString},
    {"variant", kString},
    {"group", kString},
    {"package", kString},
    {"section", kString},
    {"note", kString},
    {"ref", kString},
    {"public_ref", kString},
    {"where", kString},
    {"tags", kStringList},
    {"skip", kString | kNull},
    {"check", kBoolean},
    {"atol", kReal},
    {"rtol", kReal},
    {"flatten", kBoolean},
    {"constant", kString | kNull},
    {"empty", kString | kNull},
    {"files", kStringMap},
    {"functions", kStringMap},
    {"paths", kObject},
    {"method", kString | kNull},
    {"covers", kStringList | kString},
    {"inputs", kString},
};

constexpr Field kRecordFields[] = {
    {"status", kString},
    {"page_status", kString},
    {"cause", kString},
    {"category", kString},
    {"remedy", kString},
    {"detail", kString},
    {"seconds", kReal},
    {"error_type", kString | kNull},
    {"message", kString | kNull},
    {"frames", kStringList},
    {"log_tail", kString | kNull},
    {"outputs", kStringList},
    {"flattened", kStringList},
    {"op_types", kStringList},
    {"size_kb", kReal},
    {"stages", kObject},
    {"strategy", kString | kNull},
    {"opset", kInteger | kNull},
    {"max_abs_diff", kReal},
    {"mismatched", kInteger | kNull},
    {"check_failed", kString | kBoolean | kNull},
    {"graph_nodes", kInteger | kNull},
    {"strict", kBoolean},
    {"graph_breaks", kInteger},
    {"distinct_breaks", kInteger},
    {"graph_count", kInteger},
    {"note", kString},
    {"break_reasons", kObjectList},
    {"recompiled", kBoolean | kInteger},
    {"compile_seconds", kReal},
    {"first_run_seconds", kReal},
    {"signal", kString},
    {"exit", kInteger},
    {"limit_seconds", kReal},
    {"rss_bytes", kInteger},
    {"limit_bytes", kInteger},
    {"carried", kBoolean},
    {"carried_from", kString},
    {"reproduced", kBoolean},
    {"repro_outcome", kString},
    {"repro_script", kString},
    {"fresh_check", kString},
    {"figure", kString},
};

constexpr Field kBreakFields[] = {
    {"reason", kString}, {"gb_id", kString | kNull}, {"where", kString},
    {"cause", kString},  {"category", kString},      {"remedy", kString},
};

bool all_of(const nlohmann::json& value, bool (nlohmann::json::*test)() const noexcept) {
  for (const auto& item : value) {
    if (!(item.*test)()) return false;
  }
  return true;
}

bool all_text_or_null(const nlohmann::json& value) {
  for (const auto& item : value) {
    if (!item.is_string() && !item.is_null()) return false;
  }
  return true;
}

bool has_kind(const nlohmann::json& value, unsigned kinds) {
  if ((kinds & kString) && value.is_string()) return true;
  if ((kinds & kNull) && value.is_null()) return true;
  if ((kinds & kInteger) && value.is_number_integer()) return true;
  if ((kinds & kNumber) && value.is_number()) return true;
  if ((kinds & kBoolean) && value.is_boolean()) return true;
  if ((kinds & kObject) && value.is_object()) return true;
  if ((kinds & kArray) && value.is_array()) return true;
  if ((kinds & kStringList) && value.is_array() && all_of(value, &nlohmann::json::is_string)) {
    return true;
  }
  if ((kinds & kStringMap) && value.is_object() && all_of(value, &nlohmann::json::is_string)) {
    return true;
  }
  if ((kinds & kNullableMap) && value.is_object() && all_text_or_null(value)) return true;
  if ((kinds & kObjectList) && value.is_array() && all_of(value, &nlohmann::json::is_object)) {
    return true;
  }
  return false;
}

std::string describe(unsigned kinds) {
  std::string out;
  auto add = [&](unsigned kind, const char* words) {
    if (!(kinds & kind)) return;
    if (!out.empty()) out += " or ";
    out += words;
  };
  add(kString, "a string");
  add(kInteger, "an integer");
  add(kNumber, "a number");
  add(kBoolean, "true or false");
  add(kObject, "an object");
  add(kArray, "a list");
  add(kStringList, "a list of strings");
  add(kStringMap, "an object of strings");
  add(kNullableMap, "an object of strings");
  add(kObjectList, "a list of objects");
  add(kNull, "null");
  return out;
}

std::string_view type_of(const nlohmann::json& value) {
  if (value.is_null()) return "null";
  if (value.is_string()) return "a string";
  if (value.is_boolean()) return "a boolean";
  if (value.is_number()) return "a number";
  if (value.is_object()) return "an object";
  if (value.is_array()) return "a list";
  return "something else";
}

// A case or path name quoted in a message: short, and one line.
std::string quote_name(const nlohmann::json& value) {
  std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  for (char& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  if (text.size() > 80) text = text.substr(0, 77) + "...";
  return "'" + text + "'";
}

template <std::size_t N>
std::string field_problem(const nlohmann::json& object, const Field (&fields)[N]) {
  for (const Field& field : fields) {
    auto it = object.find(std::string(field.key));
    if (it == object.end() || has_kind(*it, field.kinds)) continue;
    return fmt::format("'{}' should be {}, not {}", field.key, describe(field.kinds), type_of(*it));
  }
  return {};
}

template <std::size_t N>
void check_fields(const nlohmann::json& object, const Field (&fields)[N], const std::string& file,
                  const std::string& where) {
  std::string problem = field_problem(object, fields);
  if (problem.empty()) return;
  throw UserError(fmt::format("{}: not a capmap snapshot: {}{}", file,
                              where.empty() ? "" : where + ": ", problem));
}

}  // namespace

std::string case_field_problem(const nlohmann::json& entry) {
  return field_problem(entry, kCaseFields);
}

void check_snapshot_fields(const nlohmann::json& snapshot, const std::string& name) {
  // The document's outline is each reader's own check, with its own wording.
  if (!snapshot.is_object()) return;
  auto header_it = snapshot.find("header");
  auto cases_it = snapshot.find("cases");
  if (header_it == snapshot.end() || !header_it->is_object()) return;
  if (cases_it == snapshot.end() || !cases_it->is_array()) return;
  const auto& header = *header_it;
  check_fields(header, kHeaderFields, name, "header");
  if (auto library = header.find("library"); library != header.end()) {
    check_fields(*library, kLibraryFields, name, "header library");
  }
  if (auto coverage = header.find("coverage"); coverage != header.end() && coverage->is_object()) {
    check_fields(*coverage, kCoverageFields, name, "header coverage");
  }
  if (auto excludes = header.find("excludes"); excludes != header.end()) {
    for (const auto& exclude : *excludes) {
      check_fields(exclude, kExcludeFields, name, "header excludes");
    }
  }
  if (auto paths = header.find("path_info"); paths != header.end()) {
    // The same reading as the pages' and the diff's, here naming the file.
    read_path_infos(*paths, fmt::format("{}: not a capmap snapshot: header 'path_info'", name));
  }
  std::size_t index = 0;
  for (const auto& entry : *cases_it) {
    // A case or path that is not an object is each reader's own check, in its own words.
    if (!entry.is_object()) {
      ++index;
      continue;
    }
    auto case_name = entry.find("name");
    const std::string where = case_name != entry.end() && case_name->is_string()
                                  ? "case " + quote_name(*case_name)
                                  : fmt::format("cases[{}]", index);
    check_fields(entry, kCaseFields, name, where);
    if (auto paths = entry.find("paths"); paths != entry.end()) {
      for (const auto& [path, record] : paths->items()) {
        const std::string at = where + " path " + quote_name(path);
        if (!record.is_object()) continue;
        check_fields(record, kRecordFields, name, at);
        if (auto breaks = record.find("break_reasons"); breaks != record.end()) {
          for (const auto& reason : *breaks) {
            check_fields(reason, kBreakFields, name, at + " break_reasons");
          }
        }
      }
    }
    ++index;
  }
}

}  // namespace capmap
