#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.h"
#include "common/atomic_file.h"
#include "common/json_document.h"
#include "common/user_error.h"
#include "diff/diff_report.h"
#include "diff/snapshot_diff.h"
#include "merge/cause_rules.h"
#include "render/render.h"
#include "snapshot/kornia_survey_file.h"
#include "snapshot/snapshot_fields.h"
#include "snapshot/snapshot_file.h"

namespace capmap {
namespace {

struct RenderArgs {
  std::string snapshot, html, rst, md, inventory, source_url, docs_url, baseline;
};

// What changed since `baseline` (a snapshot or Kornia's data file), as `capmap diff` says it.
PageChanges changes_since(const std::filesystem::path& baseline,
                          const std::filesystem::path& snapshot) {
  nlohmann::json old_side = load_snapshot_or_kornia_survey(baseline);
  nlohmann::json new_side = load_snapshot_or_kornia_survey(snapshot);
  SnapshotDiff diff = diff_snapshots(old_side, new_side);
  PageChanges changes;
  changes.baseline = baseline.filename().string();
  if (auto header = old_side.find("header"); header != old_side.end() && header->is_object()) {
    if (auto at = header->find("generated_at"); at != header->end() && at->is_string()) {
      changes.baseline_generated_at = at->get<std::string>();
    }
  }
  changes.diff = diff_as_json(diff);
  changes.markdown = diff_as_markdown(diff);
  return changes;
}

}  // namespace

void add_render_command(CLI::App& app, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "render", "Render a snapshot as an HTML page, a Sphinx (RST) page or a Markdown summary");
  auto args = std::make_shared<RenderArgs>();
  cmd->add_option("snapshot", args->snapshot,
                  "snapshot JSON written by capmap merge (or Kornia's export_support.json)")
      ->required();
  cmd->add_option("--html", args->html, "write the self-contained HTML page here");
  cmd->add_option("--rst", args->rst, "write a page for a Sphinx docs tree here");
  cmd->add_option("--md", args->md, "write a Markdown summary here");
  cmd->add_option("--inventory", args->inventory,
                  "Sphinx objects.inv: documented operators become cross-references");
  cmd->add_option("--source-url", args->source_url,
                  "source link template with {revision}, {path}, {line}");
  cmd->add_option("--docs-url", args->docs_url, "API docs link template with {ref}");
  cmd->add_option("--baseline", args->baseline,
                  "An earlier snapshot (or Kornia's data file): the page and the summary get a "
                  "Changes section, regressions first, as `capmap diff BASELINE SNAPSHOT` finds "
                  "them");
  cmd->callback([args, &exit_code] {
    RenderOptions options;
    if (!args->html.empty()) options.html = args->html;
    if (!args->rst.empty()) options.rst = args->rst;
    if (!args->md.empty()) options.md = args->md;
    if (!args->inventory.empty()) options.inventory = args->inventory;
    options.source_url = args->source_url;
    options.docs_url = args->docs_url;
    // A snapshot merged before the rules carried remedies gets the shipped rules' ones.
    options.remedy_templates = CauseRules::load({}).remedy_templates();
    std::filesystem::path snapshot_path = args->snapshot;
    if (!options.html && !options.rst && !options.md) {
      // With no output named, the page goes beside the snapshot.
      options.html = snapshot_path.parent_path() / "page.html";
    }
    nlohmann::json snapshot = parse_json_document(read_file(snapshot_path), snapshot_path.string());
    // Kornia's own data file renders as the page of the survey it records.
    if (is_kornia_survey(snapshot)) {
      snapshot = snapshot_from_kornia_survey(snapshot, snapshot_path.string());
    }
    check_snapshot_fields(snapshot, snapshot_path.string());
    if (!args->baseline.empty()) options.changes = changes_since(args->baseline, snapshot_path);
    try {
      render_snapshot(snapshot, options);
    } catch (const UserError& e) {
      std::string why = e.what();
      // Inventory and output errors already name their file.
      if (why.rfind("snapshot", 0) == 0) throw UserError(snapshot_path.string() + ": " + why);
      throw;
    }
    for (const auto& out : {options.html, options.rst, options.md}) {
      if (out) std::printf("%s\n", out->string().c_str());
    }
    exit_code = 0;
  });
}

}  // namespace capmap
