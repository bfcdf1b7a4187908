#include "diff/junit_report.h"

#include <fmt/format.h>

#include <vector>

#include "common/markup_entity.h"

namespace capmap {
namespace {

using nlohmann::json;

std::string text_of(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  return it->is_string() ? it->get<std::string>() : it->dump();
}

double seconds_of(const json& record) {
  auto it = record.find("seconds");
  return it != record.end() && it->is_number() ? it->get<double>() : 0.0;
}

bool is_failure(const std::string& page_status) {
  return page_status != "ok" && page_status != "ok-breaks" && page_status != "ok-unverified" &&
         page_status != "constant" && page_status != "n/a";
}

// Length of the well-formed UTF-8 sequence at text[i] that XML 1.0 allows, or 0.
std::size_t allowed_sequence(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  if (lead < 0x80) return lead >= 0x20 || lead == '\t' || lead == '\n' || lead == '\r' ? 1 : 0;
  std::size_t length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 ? 2 : 0;
  if (length == 0 || lead > 0xF4 || i + length > text.size()) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  }
  unsigned char second = byte(i + 1);
  if (lead == 0xE0 && second < 0xA0) return 0;                          // overlong
  if (lead == 0xED && second >= 0xA0) return 0;                         // UTF-16 surrogate
  if (lead == 0xF0 && second < 0x90) return 0;                          // overlong
  if (lead == 0xF4 && second >= 0x90) return 0;                         // beyond U+10FFFF
  if (lead == 0xEF && second == 0xBF && byte(i + 2) >= 0xBE) return 0;  // U+FFFE, U+FFFF
  return length;
}

std::string attribute(const char* name, std::string_view value) {
  return fmt::format(" {}=\"{}\"", name, escape_xml(value));
}

}  // namespace

std::string escape_xml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t length = allowed_sequence(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    if (length == 1 && append_entity(out, text[i])) {
      ++i;
      continue;
    }
    switch (text[i]) {
      // Attribute values would fold raw line breaks into spaces.
      case '\n':
        out += "&#10;";
        break;
      case '\r':
        out += "&#13;";
        break;
      case '\t':
        out += "&#9;";
        break;
      default:
        out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

namespace {

// One <testcase> for a case × path record; counts it into `suite`.
std::string junit_testcase(const json& entry, const json& record, const std::string& path,
                           JunitCounts& suite) {
  std::string page_status = text_of(record, "page_status");
  std::string group = text_of(entry, "group");
  std::string where = text_of(entry, "where");
  std::string file = where, line;
  if (auto colon = where.rfind(':'); colon != std::string::npos) {
    file = where.substr(0, colon);
    line = where.substr(colon + 1);
  }
  ++suite.tests;
  std::string out = "    <testcase" + attribute("name", text_of(entry, "name")) +
                    attribute("classname", group.empty() ? path : path + "." + group) +
                    fmt::format(" time=\"{:.3f}\"", seconds_of(record));
  if (!file.empty()) out += attribute("file", file);
  if (!line.empty()) out += attribute("line", line);
  out += ">\n";
  std::string cause = text_of(record, "cause");
  std::string detail = text_of(record, "detail");
  if (page_status == "n/a") {
    ++suite.skipped;
    out += "      <skipped" + attribute("message", cause.empty() ? detail : cause) + "/>\n";
  } else if (is_failure(page_status)) {
    ++suite.failures;
    std::string body = fmt::format("{} ({})", page_status, text_of(record, "status"));
    if (!detail.empty()) body += "\n" + detail;
    if (auto frames = record.find("frames"); frames != record.end() && frames->is_array()) {
      for (const auto& f : *frames)
        body += "\n  at " + (f.is_string() ? f.get<std::string>() : f.dump());
    }
    out += "      <failure" + attribute("message", cause.empty() ? page_status : cause) +
           attribute("type", text_of(record, "category")) + ">" + escape_xml(body) + "</failure>\n";
  }
  std::vector<std::string> notes;
  if (page_status == "ok-breaks") {
    notes.push_back(fmt::format("graph breaks: {} ({})", text_of(record, "graph_breaks"), cause));
  }
  if (auto carried = record.find("carried"); carried != record.end() && *carried == true) {
    notes.push_back("carried from the baseline of " + text_of(record, "carried_from"));
  }
  if (!notes.empty()) {
    std::string text;
    for (const auto& n : notes) text += (text.empty() ? "" : "\n") + n;
    out += "      <system-out>" + escape_xml(text) + "</system-out>\n";
  }
  return out + "    </testcase>\n";
}

}  // namespace

std::string snapshot_as_junit(const json& snapshot, JunitCounts* counts) {
  const json& header = snapshot.at("header");
  std::vector<std::string> paths;
  if (auto it = header.find("paths"); it != header.end() && it->is_array()) {
    for (const auto& p : *it) {
      if (p.is_string()) paths.push_back(p.get<std::string>());
    }
  }
  std::string library;
  if (auto lib = header.find("library"); lib != header.end() && lib->is_object()) {
    library = text_of(*lib, "name");
  }

  JunitCounts total;
  double total_seconds = 0;
  std::string suites;
  for (const auto& path : paths) {
    JunitCounts suite;
    double suite_seconds = 0;
    std::string cases;
    for (const auto& entry : snapshot.at("cases")) {
      auto found = entry.find("paths");
      if (found == entry.end() || !found->is_object() || !found->contains(path)) continue;
      const json& record = found->at(path);
      suite_seconds += seconds_of(record);
      cases += junit_testcase(entry, record, path, suite);
    }
    suites +=
        "  <testsuite" + attribute("name", library.empty() ? path : library + "." + path) +
        fmt::format(" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\"",
                    suite.tests, suite.failures, suite.skipped, suite_seconds) +
        attribute("timestamp", text_of(header, "generated_at")) + ">\n" + cases +
        "  </testsuite>\n";
    total.tests += suite.tests;
    total.failures += suite.failures;
    total.skipped += suite.skipped;
    total_seconds += suite_seconds;
  }
  if (counts) *counts = total;
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites" +
         attribute("name", library.empty() ? "capmap" : "capmap " + library) +
         fmt::format(" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{:.3f}\">\n",
                     total.tests, total.failures, total.skipped, total_seconds) +
         suites + "</testsuites>\n";
}

}  // namespace capmap
