#include "render/page_text.h"

#include <fmt/format.h>

namespace capmap {

std::string percent_text(std::size_t part, std::size_t whole) {
  if (whole == 0) return "–";
  return fmt::format("{:.1f} %", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string library_title(const PageHeader& header) {
  std::string name = header.library_name.empty() ? "library" : header.library_name;
  return header.library_version.empty() ? name : name + " " + header.library_version;
}

std::vector<std::pair<std::string, std::string>> header_facts(const PageHeader& h) {
  std::vector<std::pair<std::string, std::string>> facts;
  if (!h.revision.empty()) facts.emplace_back("Revision", h.revision);
  for (const auto& [name, version] : h.versions) facts.emplace_back(name, version);
  if (!h.device.empty()) facts.emplace_back("Device", h.device);
  if (!h.cpu.empty()) facts.emplace_back("CPU", h.cpu);
  if (!h.generated_at.empty()) facts.emplace_back("Date", h.generated_at);
  facts.emplace_back("Completeness", h.complete
                                         ? std::string("complete")
                                         : fmt::format("incomplete: {} cases missing", h.missing));
  if (!h.selection.empty()) facts.emplace_back("Selection", h.selection);
  if (h.coverage_percent) {
    facts.emplace_back("Coverage",
                       fmt::format("{:.1f} % of public names ({} of {})", *h.coverage_percent,
                                   h.coverage_covered, h.coverage_total));
  }
  if (!h.run_key.empty()) facts.emplace_back("Run key", h.run_key);
  return facts;
}

const std::vector<std::pair<std::string, std::string>>& status_legend() {
  static const std::vector<std::pair<std::string, std::string>> legend = {
      {"ok", "captured, and the captured graph gives the eager outputs"},
      {"ok-unverified", "captured and ran; outputs not compared (random or not comparable)"},
      {"ok-breaks", "torch.compile works but splits the graph at graph breaks"},
      {"mismatch", "captured, but the outputs differ from eager beyond tolerance"},
      {"specialized", "captured with dynamic shapes, but a dimension meant to vary was pinned"},
      {"fail", "capture or running the captured graph failed"},
      {"crashed", "the process died (signal or abnormal exit)"},
      {"timeout", "did not finish within the time limit"},
      {"oom", "exceeded the memory limit"},
      {"n/a", "not probed: skipped, no tensor output, or eager itself failed"},
  };
  return legend;
}

std::string cause_paths_text(const PageModel& model, const CauseLine& cause) {
  std::string out;
  for (std::size_t p : cause.paths) {
    if (!out.empty()) out += ", ";
    out += model.paths[p].short_label;
  }
  return out;
}

std::string all_pass_title(const PageModel& model) {
  if (model.paths.size() == 3) return "All three paths";
  return "All " + std::to_string(model.paths.size()) + " paths";
}

}  // namespace capmap
