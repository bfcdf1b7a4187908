// capmap merge: the records of one run key, from one or more stores, into one snapshot.
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/junit_output.h"
#include "common/user_error.h"
#include "merge/merge.h"

namespace capmap {
namespace {

struct MergeArgs {
  std::vector<std::string> stores;
  std::string out;
  std::string kornia_json;
  std::vector<std::string> rules;
  std::string run_key;
  std::string versions;
  std::string junit;
  std::string baseline;
  bool force = false;
};

}  // namespace

void add_merge_command(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<MergeArgs>();
  auto* cmd = app.add_subcommand(
      "merge", "Merge stored records (one store or several shards) into one snapshot JSON");
  cmd->add_option("--store", args->stores, "Results store; repeat for shards")
      ->default_str("capmap-results/results.db");
  cmd->add_option("--out", args->out,
                  "Snapshot to write (default: snapshot.json beside the store)");
  cmd->add_option("--kornia-json", args->kornia_json,
                  "Also write Kornia's docs/source/_data/export_support.json layout here");
  cmd->add_option("--rules", args->rules,
                  "Extra cause rules (TOML), tried before the shipped ones");
  cmd->add_option("--run-key", args->run_key, "Merge this run key (default: the newest)");
  cmd->add_option("--versions", args->versions,
                  "Merge the newest run of this environment when the stores hold several, e.g. "
                  "torch=2.9.1 or torch=2.11,onnxscript=0.5.7 (names: torch, onnx, onnxruntime, "
                  "onnxscript, python, library)");
  cmd->add_option("--junit", args->junit, "Also write the snapshot as JUnit XML here");
  cmd->add_option("--baseline", args->baseline,
                  "Carry over from this snapshot the case × path results the stores lack "
                  "(stores of `run --changed`, or shards not run: one shard of a survey measured "
                  "again, the rest carried); its versions and settings must match");
  cmd->add_flag(
      "--force", args->force,
      "Write even when records are missing or shards disagree; marks the snapshot incomplete");
  cmd->callback([args, &exit_code] {
    MergeOptions options;
    if (args->stores.empty()) args->stores.push_back("capmap-results/results.db");
    for (const auto& s : args->stores) options.stores.emplace_back(s);
    options.out = args->out.empty() ? options.stores.front().parent_path() / "snapshot.json"
                                    : std::filesystem::path(args->out);
    if (!args->kornia_json.empty()) options.kornia_json = args->kornia_json;
    for (const auto& r : args->rules) options.rules.emplace_back(r);
    options.force = args->force;
    options.run_key = args->run_key;
    options.versions = parse_version_filter(args->versions);
    if (!options.run_key.empty() && !options.versions.empty()) {
      throw UserError("merge: give --run-key or --versions, not both");
    }
    if (!args->baseline.empty()) options.baseline = args->baseline;
    nlohmann::json snapshot = merge_stores(options);
    const auto& header = snapshot["header"];
    std::fprintf(stderr, "merge: %zu cases × %zu paths → %s%s\n", snapshot["cases"].size(),
                 header["paths"].size(), options.out.c_str(),
                 header["complete"].get<bool>()
                     ? ""
                     : (" (INCOMPLETE: " + header["missing"].dump() + " records missing)").c_str());
    if (options.baseline) {
      std::size_t carried = 0;
      for (const auto& entry : snapshot["cases"]) {
        for (const auto& [path, record] : entry["paths"].items()) {
          if (record.value("carried", false)) ++carried;
        }
      }
      std::fprintf(stderr, "merge: %zu case × path results carried over from %s\n", carried,
                   options.baseline->c_str());
    }
    if (!args->junit.empty()) write_junit_report(snapshot, args->junit);
    exit_code = 0;
  });
}

}  // namespace capmap
