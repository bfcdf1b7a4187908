// capmap list: the cases of registries, without running them.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "cli/commands.h"
#include "common/user_error.h"
#include "run/process_control.h"
#include "run/python_locator.h"
#include "run/run_paths.h"
#include "run/worker_event.h"

namespace capmap {

namespace {

struct ListOptions {
  std::vector<std::string> registries;
  bool json = false;
  bool paths = false;
};

// Asks a worker for the inventory: its `hello`, or the registry's error.
nlohmann::json load_inventory(const std::vector<std::string>& registries) {
  std::vector<std::string> argv = {locate_python(), "-m", "capmap.worker", "--list"};
  argv.insert(argv.end(), registries.begin(), registries.end());
  int exit_code = 0;
  std::string output = run_and_capture(argv, exit_code);
  // Cases may print while the registry imports: find the protocol line.
  size_t start = 0;
  while (start < output.size()) {
    size_t end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    auto parsed = parse_worker_line(std::string_view(output).substr(start, end - start));
    start = end + 1;
    auto* event = std::get_if<WorkerEvent>(&parsed);
    if (event == nullptr) continue;
    if (event->type == WorkerEventType::kError) throw UserError(event->message);
    if (event->type == WorkerEventType::kHello) return std::move(event->body);
  }
  throw UserError(
      fmt::format("{} -m capmap.worker --list exited with code {} without listing "
                  "the cases (its output is above)",
                  argv[0], exit_code));
}

// One line per path the worker's probes package holds, in the page's order.
std::string format_paths(const std::vector<PathInfo>& paths) {
  size_t name_width = 4;
  for (const auto& p : paths) name_width = std::max(name_width, p.name.size());
  std::string out;
  for (const auto& p : paths) {
    std::string notes;
    if (p.reference) notes += " (the reference)";
    if (p.is_default) notes += " [default]";
    if (!p.builds_on.empty()) {
      std::string on;
      for (const auto& b : p.builds_on) on += (on.empty() ? "" : ", ") + b;
      notes += " [builds on " + on + "]";
    }
    out += fmt::format("{:<{}}  {}: {}{}\n", p.name, name_width, p.label, p.description, notes);
  }
  return out;
}

void list_command(const ListOptions& options) {
  auto hello = load_inventory(options.registries);
  if (options.paths) {
    auto paths = announced_paths(hello);
    if (options.json) {
      std::puts(path_info_list_json(paths).dump(2).c_str());
    } else {
      std::fputs(format_paths(paths).c_str(), stdout);
    }
    return;
  }
  const auto& cases = hello.at("cases");
  if (options.json) {
    nlohmann::json inventory = {{"library", hello.value("library", nlohmann::json::object())},
                                {"cases", cases},
                                {"excludes", hello.value("excludes", nlohmann::json::array())}};
    std::puts(inventory.dump(2).c_str());
    return;
  }
  size_t name_width = 4;
  size_t group_width = 5;
  for (const auto& c : cases) {
    name_width = std::max(name_width, c.value("name", "").size());
    group_width = std::max(group_width, c.value("group", "").size());
  }
  std::string out =
      fmt::format("{:<{}}  {:<{}}  {}\n", "name", name_width, "group", group_width, "skip");
  size_t skipped = 0;
  for (const auto& c : cases) {
    std::string skip;
    if (auto it = c.find("skip"); it != c.end() && it->is_string()) {
      skip = it->get<std::string>();
      ++skipped;
    }
    out += fmt::format("{:<{}}  {:<{}}  {}\n", c.value("name", ""), name_width,
                       c.value("group", ""), group_width, skip);
  }
  out += fmt::format("{} cases ({} skipped), {} excluded names\n", cases.size(), skipped,
                     hello.value("excludes", nlohmann::json::array()).size());
  std::fputs(out.c_str(), stdout);
}

}  // namespace

void add_list_command(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ListOptions>();
  auto* cmd = app.add_subcommand("list", "List the cases of registries without running them.");
  cmd->add_option("registry", options->registries,
                  "Registry: a .py file, a folder of them, or an importable module "
                  "(default: the bundled Kornia registry)");
  cmd->add_flag("--json", options->json,
                "Print the inventory as JSON: {\"library\", \"cases\", \"excludes\"}");
  cmd->add_flag("--paths", options->paths,
                "Print the capture paths instead of the cases, one line each (name, label, what "
                "it does; [default] when `capmap run` probes it without --paths)");
  cmd->callback([options, &exit_code] {
    list_command(*options);
    exit_code = 0;
  });
}

}  // namespace capmap
