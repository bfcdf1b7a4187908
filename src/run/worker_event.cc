#include "run/worker_event.h"

#include <fmt/format.h>

#include <string_view>

#include "snapshot/snapshot_fields.h"

namespace capmap {

namespace {

bool get_int(const nlohmann::json& j, const char* key, std::int64_t& out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return false;
  out = it->get<std::int64_t>();
  return true;
}

bool get_string(const nlohmann::json& j, const char* key, std::string& out) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return false;
  out = it->get<std::string>();
  return true;
}

// The hello's header fields the run reads (run key, store, snapshot header).
std::string hello_problem(const nlohmann::json& hello) {
  auto object_or_absent = [&](const char* key) {
    auto it = hello.find(key);
    return it == hello.end() || it->is_object();
  };
  for (const char* key : {"library", "versions"}) {
    if (!object_or_absent(key)) return fmt::format("\"{}\" is not an object", key);
  }
  if (auto library = hello.find("library"); library != hello.end()) {
    for (const char* key : {"name", "revision", "version"}) {
      auto it = library->find(key);
      bool may_be_null = std::string_view(key) != "name";
      if (it != library->end() && !it->is_string() && !(may_be_null && it->is_null())) {
        return fmt::format("\"library.{}\" is not a string", key);
      }
    }
  }
  if (auto device = hello.find("device"); device != hello.end() && !device->is_string()) {
    return "\"device\" is not a string";
  }
  if (auto excludes = hello.find("excludes"); excludes != hello.end()) {
    if (!excludes->is_array()) return "\"excludes\" is not a list";
    for (const auto& exclude : *excludes) {
      auto name = exclude.is_object() ? exclude.find("name") : exclude.end();
      if (!exclude.is_object() || name == exclude.end() || !name->is_string()) {
        return "\"excludes\" lists an entry without a name";
      }
    }
  }
  return {};
}

}  // namespace

ParsedLine parse_worker_line(std::string_view line) {
  auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return MalformedLine{"not JSON"};
  if (!j.is_object()) return MalformedLine{"not a JSON object"};
  std::string type;
  if (!get_string(j, "type", type)) return MalformedLine{"no \"type\""};

  WorkerEvent event;
  auto missing = [&](const char* field) {
    return MalformedLine{fmt::format("\"{}\" message without a valid \"{}\"", type, field)};
  };
  if (type == "hello") {
    event.type = WorkerEventType::kHello;
    auto cases = j.find("cases");
    if (cases == j.end() || !cases->is_array()) return missing("cases");
    for (const auto& c : *cases) {
      if (!c.is_object() || !c.contains("name") || !c["name"].is_string()) {
        return MalformedLine{"\"hello\" lists a case without a name"};
      }
      // The run selects, shards and stores cases by these fields.
      if (std::string problem = case_field_problem(c); !problem.empty()) {
        return MalformedLine{
            fmt::format("\"hello\" case '{:.80}': {}", c["name"].get<std::string>(), problem)};
      }
    }
    if (std::string problem = hello_problem(j); !problem.empty()) {
      return MalformedLine{"\"hello\" " + problem};
    }
    get_int(j, "pid", event.pid);
  } else if (type == "error") {
    event.type = WorkerEventType::kError;
    if (!get_string(j, "message", event.message)) return missing("message");
  } else if (type == "warmed") {
    event.type = WorkerEventType::kWarmed;
  } else if (type == "started") {
    event.type = WorkerEventType::kStarted;
    if (!get_int(j, "task", event.task)) return missing("task");
    if (!get_int(j, "pid", event.pid) || event.pid <= 1) return missing("pid");
  } else if (type == "path") {
    event.type = WorkerEventType::kPath;
    if (!get_int(j, "task", event.task)) return missing("task");
    if (!get_string(j, "path", event.path)) return missing("path");
  } else if (type == "record") {
    event.type = WorkerEventType::kRecord;
    if (!get_int(j, "task", event.task)) return missing("task");
    if (!get_string(j, "path", event.path)) return missing("path");
    auto record = j.find("record");
    if (record == j.end() || !record->is_object()) return missing("record");
    auto status = record->find("status");
    if (status == record->end() || !status->is_string() || status->get<std::string>().empty()) {
      return missing("record.status");
    }
    event.body = std::move(*record);
    return event;
  } else if (type == "done") {
    event.type = WorkerEventType::kDone;
    if (!get_int(j, "task", event.task)) return missing("task");
    std::int64_t exit_code = 0;
    bool has_exit = get_int(j, "exit", exit_code);
    bool has_signal = get_string(j, "signal", event.signal);
    if (!has_exit && !has_signal) return missing("exit or signal");
    event.exit_code = static_cast<int>(exit_code);
    get_string(j, "log_tail", event.log_tail);
    auto kept = j.find("kept");
    event.child_kept = kept != j.end() && kept->is_boolean() && kept->get<bool>();
    std::int64_t earlier = 0;
    if (get_int(j, "earlier_tasks", earlier)) event.earlier_tasks = static_cast<int>(earlier);
  } else {
    return MalformedLine{fmt::format("unknown message type \"{}\"", type)};
  }
  event.body = std::move(j);
  return event;
}

}  // namespace capmap
