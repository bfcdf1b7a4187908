#pragma once
// Wording and number formatting shared by the HTML, Sphinx and Markdown pages.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "render/page_model.h"

namespace capmap {

// "1,704".
std::string with_commas(std::size_t n);

// "81.2 %", or "–" when nothing was probed.
std::string percent_text(std::size_t part, std::size_t whole);

// "Kornia 0.9.0"; the library name alone when the version is unknown.
std::string library_title(const PageHeader& header);

// Label/value pairs for the page header, in display order.
std::vector<std::pair<std::string, std::string>> header_facts(const PageHeader& header);

// The statuses a page can show, each with what it means, in legend order.
const std::vector<std::pair<std::string, std::string>>& status_legend();

// "ONNX, export" for the paths a cause line covers.
std::string cause_paths_text(const PageModel& model, const CauseLine& cause);

// Title of the card counting cases that pass every path ("All three paths").
std::string all_pass_title(const PageModel& model);

// Text split at `backticks`: {false, "Reads "}, {true, ".item()"}, ... An unpaired
// backtick stays text.
std::vector<std::pair<bool, std::string>> code_spans(const std::string& text);

// Categories whose causes the summaries group under one heading with their
// subjects ("Missing ONNX lowering": torch.linalg.svd 20, ...); empty for others.
std::string cause_group_title(const std::string& category);
// The subject of a grouped cause: "torch.linalg.svd (aten._linalg_svd)" of
// "No ONNX lowering for torch.linalg.svd (aten._linalg_svd)".
std::string cause_group_item(const std::string& text);

// One sentence per total the page shows: what was listed, what ran, what the
// cards divide by.
std::string totals_text(const PageModel& model);

// How the survey was made, in one sentence (the paths, the comparison, the tool).
std::string method_text(const PageModel& model);

}  // namespace capmap
