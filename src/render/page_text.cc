#include "render/page_text.h"

#include <fmt/format.h>

#include <string_view>

namespace capmap {

std::string with_commas(std::size_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

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
  if (!h.kernels.empty()) facts.emplace_back("Kernels", h.kernels);
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
      {"constant",
       "captured as a constant: no input reaches the graph, or the graph computes nothing from "
       "its inputs (neither supported nor a failure)"},
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

std::vector<std::pair<bool, std::string>> code_spans(const std::string& text) {
  std::vector<std::pair<bool, std::string>> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t open = text.find('`', pos);
    std::size_t close = open == std::string::npos ? open : text.find('`', open + 1);
    if (close == std::string::npos || close == open + 1) {
      out.emplace_back(false, text.substr(pos));
      break;
    }
    if (open > pos) out.emplace_back(false, text.substr(pos, open - pos));
    out.emplace_back(true, text.substr(open + 1, close - open - 1));
    pos = close + 1;
  }
  return out;
}

std::string cause_group_title(const std::string& category) {
  if (category == "missing-onnx-lowering") return "Missing ONNX lowering";
  if (category == "missing-executorch-lowering") return "Missing ExecuTorch lowering";
  return {};
}

std::string cause_group_item(const std::string& text) {
  std::string item = text;
  for (std::string_view prefix : {"No ONNX lowering for ", "No ExecuTorch lowering for "}) {
    if (item.rfind(prefix, 0) == 0) item = item.substr(prefix.size());
  }
  // "...; compute it from other torch ops ..." is advice, not the subject.
  if (auto semi = item.find("; "); semi != std::string::npos) item.resize(semi);
  return item;
}

std::string totals_text(const PageModel& model) {
  const PageTotals& t = model.totals;
  std::string out;
  if (t.public_names > 0) {
    out += fmt::format(
        "The survey lists {} cases for {} of the library's {} public names ({} distinct "
        "operators: variants of one call count once). ",
        with_commas(t.cases), with_commas(static_cast<std::size_t>(t.public_names_covered)),
        with_commas(static_cast<std::size_t>(t.public_names)), with_commas(t.operators));
  } else {
    out += fmt::format("The survey lists {} cases of {} distinct operators (variants count once). ",
                       with_commas(t.cases), with_commas(t.operators));
  }
  out += fmt::format(
      "{} cases were probed; the other {} were not run on any path (their reasons are listed). "
      "Each path's card divides by the cases probed on that path; the all-paths card divides by "
      "the {} cases probed on every path.",
      with_commas(t.probed_any), with_commas(t.cases - t.probed_any), with_commas(t.probed_all));
  return out;
}

std::string method_text(const PageModel& model) {
  std::string out =
      "Every case calls one public operator of the library on small fixed inputs in eager mode "
      "(the reference), then captures the same call on each path and compares the captured "
      "outputs with eager's within the case's tolerance.";
  for (const PagePath& p : model.paths) {
    if (!p.description.empty()) out += " " + p.label + ": " + p.description + ".";
  }
  return out;
}

}  // namespace capmap
