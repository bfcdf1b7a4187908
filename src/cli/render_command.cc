#include <cstdio>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <system_error>
#include <vector>

#include "cli/commands.h"
#include "common/atomic_file.h"
#include "common/json_document.h"
#include "common/user_error.h"
#include "diff/diff_report.h"
#include "diff/snapshot_diff.h"
#include "merge/cause_rules.h"
#include "render/drift_check.h"
#include "render/render.h"
#include "snapshot/kornia_survey_file.h"
#include "snapshot/snapshot_fields.h"
#include "snapshot/snapshot_file.h"

namespace capmap {
namespace {

struct RenderArgs {
  std::string snapshot, html, rst, md, inventory, source_url, docs_url, baseline, xref_role;
  std::vector<std::string> packages;
  bool check = false;
};

// --check: each output against the file already there. Returns the exit code.
int check_rendered(const std::vector<RenderedFile>& files, const std::string& snapshot) {
  int stale = 0;
  for (const RenderedFile& file : files) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file.path, ec)) {
      std::fprintf(stderr, "capmap: %s: no such file, so it is not what %s renders\n",
                   file.path.string().c_str(), snapshot.c_str());
      ++stale;
      continue;
    }
    if (auto diff = first_difference(read_file(file.path), file.text)) {
      std::fprintf(stderr,
                   "capmap: %s is not what %s renders: %s (regenerate it with the same command "
                   "without --check)\n",
                   file.path.string().c_str(), snapshot.c_str(), diff->c_str());
      ++stale;
    }
  }
  if (stale == 0) {
    std::fprintf(stderr, "capmap: %zu file%s up to date with %s\n", files.size(),
                 files.size() == 1 ? " is" : "s are", snapshot.c_str());
  }
  return stale == 0 ? 0 : 1;
}

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
  cmd->add_option("--packages", args->packages,
                  "Only the cases of these packages (comma-separated, as the snapshot names "
                  "them, e.g. color,filters)")
      ->delimiter(',');
  cmd->add_option("--xref-role", args->xref_role,
                  "RST: write each operator with a public name as :ROLE:`name <ref>` (the "
                  "capmap.sphinx extension's role does this for you)");
  cmd->add_flag("--check", args->check,
                "Write nothing; exit 1, saying where, when a named output file is not what the "
                "snapshot renders now (a CI gate for committed pages)");
  cmd->callback([args, &exit_code] {
    RenderOptions options;
    if (!args->html.empty()) options.html = args->html;
    if (!args->rst.empty()) options.rst = args->rst;
    if (!args->md.empty()) options.md = args->md;
    if (!args->inventory.empty()) options.inventory = args->inventory;
    options.source_url = args->source_url;
    options.docs_url = args->docs_url;
    options.xref_role = args->xref_role;
    options.packages = args->packages;
    // A snapshot merged before the rules carried remedies gets the shipped rules' ones.
    options.remedy_templates = CauseRules::load({}).remedy_templates();
    std::filesystem::path snapshot_path = args->snapshot;
    if (args->check && !options.html && !options.rst && !options.md) {
      throw UserError("--check needs the files to check: --html, --rst or --md");
    }
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
    std::vector<RenderedFile> files;
    try {
      files = render_files(snapshot, options);
    } catch (const UserError& e) {
      std::string why = e.what();
      // Inventory and output errors already name their file.
      if (why.rfind("snapshot", 0) == 0 || why.rfind("--packages", 0) == 0) {
        throw UserError(snapshot_path.string() + ": " + why);
      }
      throw;
    }
    if (args->check) {
      exit_code = check_rendered(files, snapshot_path.string());
      return;
    }
    for (const RenderedFile& file : files) write_file_atomically(file.path, file.text);
    for (const RenderedFile& file : files) std::printf("%s\n", file.path.string().c_str());
    exit_code = 0;
  });
}

}  // namespace capmap
