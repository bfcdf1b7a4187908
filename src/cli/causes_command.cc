// capmap causes: why paths fail, and which failures no rule explains yet.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "common/atomic_file.h"
#include "common/user_error.h"
#include "merge/cause_rules.h"
#include "merge/cause_summary.h"
#include "merge/merge.h"
#include "merge/path_causes.h"
#include "snapshot/snapshot_file.h"
#include "snapshot/snapshot_json.h"

namespace capmap {
namespace {

struct CausesArgs {
  std::vector<std::string> stores;
  std::string snapshot;
  std::vector<std::string> rules;
  std::string run_key;
  std::string write;
  bool unclassified = false;
};

std::string one_line(const std::string& text, std::size_t limit) {
  std::string line = text.substr(0, text.find('\n'));
  if (line.size() > limit) line = line.substr(0, limit - 3) + "...";
  return line;
}

std::string format_summary(const CauseSummary& summary) {
  std::string out = fmt::format("{} failing case × path pairs", summary.failures);
  if (summary.failures) {
    out += fmt::format(
        ", {} unclassified ({:.1f}%)", summary.unclassified,
        100.0 * static_cast<double>(summary.unclassified) / static_cast<double>(summary.failures));
  }
  out += "\n";
  std::string category;
  for (const auto& c : summary.causes) {
    if (c.category != category) {
      category = c.category;
      out += category + ":\n";
    }
    out += fmt::format("  {:6}  {}\n", c.count, c.cause);
  }
  return out;
}

// The figure a survey is judged by: how many failing cells no rule explains.
std::string unclassified_share(const CauseSummary& summary) {
  std::string out = fmt::format("unclassified: {} of {} failing case × path cells",
                                summary.unclassified, summary.failures);
  if (summary.failures) {
    out += fmt::format(" ({:.1f} %)", 100.0 * static_cast<double>(summary.unclassified) /
                                          static_cast<double>(summary.failures));
  }
  return out + "\n";
}

// Graph breaks are no failures (the path still ran), so they are counted on a line of their
// own: "0 of 31 failing cells" must not read as "nothing to classify" above break groups.
std::string unclassified_breaks(const CauseSummary& summary) {
  std::string out = fmt::format("unclassified graph breaks: {} of {} break reasons",
                                summary.unclassified_breaks, summary.break_reasons);
  if (summary.break_reasons) {
    out += fmt::format(" ({:.1f} %)", 100.0 * static_cast<double>(summary.unclassified_breaks) /
                                          static_cast<double>(summary.break_reasons));
  }
  return out + "\n";
}

std::string format_unclassified(const CauseSummary& summary) {
  std::string out = unclassified_share(summary) + unclassified_breaks(summary);
  std::size_t from_breaks = 0;
  std::size_t from_failures = 0;
  for (const auto& g : summary.unclassified_groups) {
    if (g.break_count) ++from_breaks;
    if (g.count > g.break_count) ++from_failures;
  }
  out += fmt::format(
      "{} groups of unclassified messages ({} with failing cells, {} with graph breaks)\n",
      summary.unclassified_groups.size(), from_failures, from_breaks);
  for (const auto& g : summary.unclassified_groups) {
    out += fmt::format("{:6}  {}\n        e.g. {} {}: {}\n", g.count, g.signature, g.example_case,
                       g.example_path, one_line(g.example_message, 160));
  }
  return out;
}

}  // namespace

void add_causes_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CausesArgs>();
  auto* cmd = app.add_subcommand(
      "causes", "Count failure causes of a store or snapshot; list messages no rule explains");
  cmd->add_option("SNAPSHOT", args->snapshot, "Snapshot JSON (classified again with the rules)");
  cmd->add_option("--store", args->stores,
                  "Results store(s), read as merge would (incomplete is fine)");
  cmd->add_option("--rules", args->rules,
                  "Extra cause rules (TOML), tried before the shipped ones");
  cmd->add_option("--run-key", args->run_key, "Run key to read from the stores (default: newest)");
  cmd->add_flag("--unclassified", args->unclassified,
                "Print the share of failing case × path cells no rule explains ('unclassified: 3 "
                "of 212 failing case × path cells (1.4 %)') and of graph break reasons (a break is "
                "no failure: it is counted apart), then list the unexplained messages (failures "
                "and graph breaks) grouped by their normalised first line");
  cmd->add_option("--write", args->write,
                  "Write SNAPSHOT, its causes classified again with the rules and nothing else "
                  "changed, to this file (it may be SNAPSHOT itself): a published survey after "
                  "the rules changed, so that a diff against it shows no changed cause the "
                  "rules alone made");
  cmd->callback([args, &exit_code] {
    nlohmann::json cases;
    if (!args->write.empty() && args->snapshot.empty()) {
      throw UserError("causes --write: give the SNAPSHOT to classify again");
    }
    if (!args->snapshot.empty()) {
      if (!args->stores.empty()) throw UserError("causes: give a snapshot or --store, not both");
      nlohmann::json snapshot = load_snapshot(args->snapshot);
      auto path_infos = snapshot_path_infos(snapshot);
      classify_paths(snapshot["cases"], CauseRules::load(args->rules), path_infos);
      if (!args->write.empty()) {
        write_file_atomically(args->write, snapshot_text(snapshot));
        std::fprintf(stderr, "capmap: wrote %s\n", args->write.c_str());
      }
      cases = std::move(snapshot["cases"]);
    } else {
      MergeOptions options;
      if (args->stores.empty()) args->stores.push_back("capmap-results/results.db");
      for (const auto& s : args->stores) options.stores.emplace_back(s);
      for (const auto& r : args->rules) options.rules.emplace_back(r);
      options.run_key = args->run_key;
      cases = std::move(build_snapshot(options).snapshot["cases"]);
    }
    CauseSummary summary = summarise_causes(cases);
    std::string out = args->unclassified ? format_unclassified(summary) : format_summary(summary);
    std::fputs(out.c_str(), stdout);
    exit_code = 0;
  });
}

}  // namespace capmap
