// Fuzz target: lines on the worker's event channel as the supervisor parses
// them. parse_worker_line never throws; what it accepts must be usable as the
// supervisor uses it (a hello's header and paths, a record into the store).
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <variant>

#include "fuzz_input.h"
#include "run/run_paths.h"
#include "run/worker_event.h"
#include "store/run_key.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace capmap;
  std::string_view rest = fuzz::as_text(data, size);
  while (!rest.empty()) {
    auto end = rest.find('\n');
    std::string_view line = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    ParsedLine parsed = parse_worker_line(line);
    auto* event = std::get_if<WorkerEvent>(&parsed);
    if (event == nullptr) continue;
    if (event->type == WorkerEventType::kHello) {
      // run_command: the announced paths (a UserError names the worker), the run key.
      fuzz::expect_refusal_or_success("worker hello", [&] {
        (void)announced_paths(event->body);
        auto library = event->body.value("library", nlohmann::json::object());
        auto versions = event->body.value("versions", nlohmann::json::object());
        (void)compute_run_key(library, versions, nlohmann::json::object());
        (void)library.value("name", "");
        (void)event->body.value("device", "cpu");
      });
    } else if (event->type == WorkerEventType::kRecord) {
      (void)event->body.at("status").get<std::string>();
      (void)event->body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  return 0;
}
