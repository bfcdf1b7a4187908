#pragma once
// What every rendering of a snapshot shows (HTML page, Sphinx page, Markdown
// summary), computed once so the three never disagree on a count.
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "render/public_name.h"
#include "render/url_templates.h"

namespace capmap {

// A capture path shown on the page (eager is the reference, never a column).
struct PagePath {
  std::string id;           // "onnx"
  std::string label;        // "ONNX"
  std::string short_label;  // "ONNX", "export", "compile": used in cause lines
  std::string description;  // what the path measures, from its plug-in
};

// What a cause line says about its paths: they failed, they work but break the
// graph, they were not run, or a note on a path that is neither (constant).
enum class CauseKind { failure, graph_break, not_probed, note };

// One cause on one case, shown once for all the paths that failed with it.
struct CauseLine {
  std::vector<std::size_t> paths;  // indexes into PageModel::paths
  std::string text;                // user-facing cause
  std::string category;            // closed set from the snapshot contract
  std::string location;            // "kornia/geometry/foo.py:123" or empty
  std::string location_url;        // link to the source at the measured revision, or empty
  CauseKind kind = CauseKind::failure;
  std::string excerpt;   // the first lines of the first path's error message
  std::string measured;  // a mismatch: the measured difference against the tolerance
  std::string remedy;    // what a user can do (the cause rule's remedy), or empty
};

// A failing path whose repro script was run outside capmap (`capmap repro --check`).
struct ReproCheck {
  std::size_t path = 0;  // index into PageModel::paths
  bool reproduced = false;
  std::string outcome;  // what the script came to
  std::string script;
};

struct CaseRow {
  std::string name, operator_name, variant, note, ref, package, section;
  PublicName public_name;  // how users spell it; section is its public package
  // What the capture wrapper opened ("input Vector3 → 1 tensor"), from any path's record.
  std::vector<std::string> flattened;
  std::string docs_url;               // empty when no template or inventory gives one
  std::vector<std::string> statuses;  // page_status per PageModel::paths entry
  // A path's own line about its cell ("XNNPACK runs 14 of 16 nodes (87 %)"), per path; mostly
  // empty.
  std::vector<std::string> figures;
  std::optional<long long> graph_breaks;
  std::vector<CauseLine> causes;
  std::vector<ReproCheck> repro;  // paths `capmap repro --check` checked
};

// Cases of one package section, in snapshot order.
struct CaseSection {
  std::string package, section;
  std::vector<std::size_t> cases;  // indexes into PageModel::cases
};

// Supported / probed for one path; constant and failed are parts of probed.
struct PathTally {
  std::size_t supported = 0, probed = 0, constant = 0, failed = 0;
};

struct PackageSummary {
  std::string package;
  std::size_t cases = 0;
  std::vector<PathTally> per_path;
  std::size_t all_pass = 0;
  std::size_t probed_all = 0;  // cases probed on every path
};

struct CauseTally {
  std::string text, category;
  std::vector<std::size_t> per_path;  // cases failing on each path with this cause
  std::size_t cases = 0;              // distinct cases with this cause on any path
  std::string remedy;
};

// The totals the page explains: what was listed, what ran, what the cards divide by.
struct PageTotals {
  std::size_t cases = 0;             // registry cases in the snapshot
  std::size_t probed_any = 0;        // cases probed on at least one path
  std::size_t probed_all = 0;        // cases probed on every path: the all-paths card divides by it
  std::size_t operators = 0;         // distinct operators (variants count once)
  std::size_t operators_probed = 0;  // of them, probed on at least one path
  long long public_names = 0;        // public names of the library (coverage), 0 when unknown
  long long public_names_covered = 0;
};

struct PageHeader {
  std::string library_name, library_version, revision;
  std::vector<std::pair<std::string, std::string>> versions;  // sorted by name
  std::string device, cpu, generated_at, run_key, tool;
  // The kernels the floats were computed with: "AuthenticAMD, torch AVX512, MKL, 1 thread".
  std::string kernels;
  bool complete = true;
  long long missing = 0;
  std::optional<double> coverage_percent;
  long long coverage_covered = 0, coverage_total = 0;
  std::size_t excluded = 0;
  // "41 of 1,371 registry cases (tag quick)"; empty when the snapshot does not say.
  std::string selection;
  bool selection_partial = false;  // the run measured less than the whole registry
};

struct PageModel {
  PageHeader header;
  UrlTemplates urls;  // the templates the links were made with
  std::vector<PagePath> paths;
  std::vector<CaseRow> cases;
  std::vector<CaseSection> sections;
  std::vector<PathTally> cards;  // per path
  std::size_t all_pass = 0;
  std::size_t operators_probed = 0;
  PageTotals totals;
  std::vector<PackageSummary> packages;
  std::vector<CauseTally> causes;          // causes of failure, most frequent first
  std::vector<CauseTally> break_reasons;   // graph breaks of paths that work
  std::vector<CauseTally> not_probed;      // why paths were not run
  std::vector<std::string> statuses_seen;  // page statuses that occur, in legend order
  std::string library_root;                // "kornia": the first part of every public name
};

// Statuses that count as "the path captured the operator".
bool is_pass_status(const std::string& page_status);
// Statuses that count as a failure (n/a and constant are neither a pass nor a failure).
bool is_failure_status(const std::string& page_status);
// "constant": the path captured the operator as a constant: no input reaches the graph,
// or the graph computes nothing from its inputs.
bool is_constant_status(const std::string& page_status);

// "geometry.epipolar" style heading of a section.
std::string section_title(const CaseSection& section);
// Badge text for a page status ("ok", "graph breaks", "n/a" ...).
std::string status_label(const std::string& page_status);

// Builds the model; throws UserError naming the offending case when the
// snapshot does not follow the contract.
PageModel build_page_model(const nlohmann::json& snapshot, const UrlTemplates& urls);

}  // namespace capmap
