#include "merge/cause_rules.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <toml++/toml.h>

#include <algorithm>

#include "common/atomic_file.h"
#include "common/embedded_assets.h"
#include "common/user_error.h"

namespace capmap {
namespace {

// Said with a missing required key, so that one error teaches the rule's shape.
constexpr const char* kEveryRuleNeeds =
    " (every rule needs id, category and cause, and at least one of paths, statuses, error_type, "
    "gb_id, message)";

std::unique_ptr<RE2> compile_pattern(const toml::table& rule, std::string_view key,
                                     const std::string& where) {
  auto node = rule[key];
  if (!node) return nullptr;
  auto text = node.value<std::string>();
  if (!text) throw UserError(fmt::format("{}: '{}' must be a string", where, key));
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<RE2>(*text, options);
  if (!re->ok()) {
    throw UserError(fmt::format("{}: bad {} pattern: {}", where, key, re->error()));
  }
  return re;
}

std::vector<std::string> string_list(const toml::table& rule, std::string_view key,
                                     const std::string& where) {
  std::vector<std::string> values;
  auto node = rule[key];
  if (!node) return values;
  const toml::array* array = node.as_array();
  if (!array) throw UserError(fmt::format("{}: '{}' must be a list of strings", where, key));
  for (const auto& item : *array) {
    auto text = item.value<std::string>();
    if (!text) throw UserError(fmt::format("{}: '{}' must be a list of strings", where, key));
    values.push_back(*text);
  }
  return values;
}

bool listed(const std::vector<std::string>& allowed, std::string_view value) {
  return allowed.empty() || std::find(allowed.begin(), allowed.end(), value) != allowed.end();
}

std::string_view first_line(std::string_view text) {
  auto start = text.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos) return {};
  text.remove_prefix(start);
  return text.substr(0, text.find('\n'));
}

}  // namespace

const std::vector<std::string>& cause_categories() {
  static const std::vector<std::string> categories{"missing-onnx-lowering",
                                                   "missing-executorch-lowering",
                                                   "data-dependent",
                                                   "control-flow",
                                                   "dynamic-shape",
                                                   "unsupported-python",
                                                   "random-generator",
                                                   "mutation",
                                                   "dtype",
                                                   "numeric-mismatch",
                                                   "timeout",
                                                   "crash",
                                                   "oom",
                                                   "torch-bug",
                                                   "eager-failure",
                                                   "not-applicable",
                                                   "unclassified"};
  return categories;
}

void CauseRules::add_file(std::string_view toml_text, const std::string& origin) {
  toml::table doc;
  try {
    doc = toml::parse(toml_text, origin);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}: {}", origin, e.source().begin.line, e.description()));
  }
  if (auto* functions = doc["functions"].as_table()) {
    for (const auto& [aten, public_name] : *functions) {
      auto text = public_name.value<std::string>();
      if (!text) {
        throw UserError(fmt::format("{}: functions.{} must be a string", origin, aten.str()));
      }
      functions_.emplace(std::string(aten.str()), *text);
    }
  }
  auto* rules = doc["rule"].as_array();
  if (!rules) {
    if (doc.contains("rule")) throw UserError(origin + ": 'rule' must be an array of tables");
    return;
  }
  std::size_t index = 0;
  for (const auto& node : *rules) {
    ++index;
    const toml::table* table = node.as_table();
    std::string where = fmt::format("{}: rule #{}", origin, index);
    if (!table) throw UserError(where + ": not a table");
    Rule rule;
    rule.origin = origin;
    rule.id = (*table)["id"].value_or(std::string());
    if (rule.id.empty()) throw UserError(where + ": missing 'id'" + kEveryRuleNeeds);
    where = fmt::format("{}: rule '{}'", origin, rule.id);
    for (const auto& known : rules_) {
      if (known.id == rule.id && known.origin == origin) {
        throw UserError(where + ": duplicate id");
      }
    }
    for (const auto& [key, value] : *table) {
      static const std::vector<std::string> known{"id",         "category", "cause",
                                                  "remedy",     "paths",    "statuses",
                                                  "error_type", "gb_id",    "message"};
      if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
        throw UserError(fmt::format("{}: unknown key '{}' (a rule's keys: {})", where, key.str(),
                                    fmt::join(known, ", ")));
      }
      (void)value;
    }
    rule.category = (*table)["category"].value_or(std::string());
    const auto& categories = cause_categories();
    if (std::find(categories.begin(), categories.end(), rule.category) == categories.end()) {
      throw UserError(fmt::format("{}: unknown category '{}' (known: {})", where, rule.category,
                                  fmt::join(categories, ", ")));
    }
    rule.cause = (*table)["cause"].value_or(std::string());
    if (rule.cause.empty()) throw UserError(where + ": missing 'cause'" + kEveryRuleNeeds);
    rule.remedy = (*table)["remedy"].value_or(std::string());
    rule.paths = string_list(*table, "paths", where);
    rule.statuses = string_list(*table, "statuses", where);
    rule.error_type = compile_pattern(*table, "error_type", where);
    rule.gb_id = compile_pattern(*table, "gb_id", where);
    rule.message = compile_pattern(*table, "message", where);
    if (rule.paths.empty() && rule.statuses.empty() && !rule.error_type && !rule.gb_id &&
        !rule.message) {
      throw UserError(where + ": matches everything; give at least one condition");
    }
    rules_.push_back(std::move(rule));
  }
}

void CauseRules::add_builtin() {
  auto text = embedded_asset("causes.toml");
  if (!text) throw std::logic_error("causes.toml is not embedded in this build");
  add_file(*text, "causes.toml (built in)");
}

CauseRules CauseRules::load(const std::vector<std::string>& user_files) {
  CauseRules rules;
  for (const auto& file : user_files) rules.add_file(read_file(file), file);
  rules.add_builtin();
  return rules;
}

Cause CauseRules::classify(const CauseQuery& query) const {
  std::vector<std::string> groups;
  for (const Rule& rule : rules_) {
    if (!listed(rule.paths, query.path) || !listed(rule.statuses, query.status)) continue;
    if (rule.error_type && !RE2::FullMatch(query.error_type, *rule.error_type)) continue;
    if (rule.gb_id && !RE2::FullMatch(query.gb_id, *rule.gb_id)) continue;
    groups.clear();
    if (rule.message) {
      int count = rule.message->NumberOfCapturingGroups();
      std::vector<re2::StringPiece> pieces(static_cast<std::size_t>(count) + 1);
      re2::StringPiece text(query.message.data(), query.message.size());
      if (!rule.message->Match(text, 0, text.size(), RE2::UNANCHORED, pieces.data(), count + 1)) {
        continue;
      }
      for (int i = 1; i <= count; ++i) groups.emplace_back(pieces[i].data(), pieces[i].size());
    }
    return Cause{expand(rule.cause, groups, query.message), rule.category, rule.id,
                 expand(rule.remedy, groups, query.message)};
  }
  std::string text = query.error_type.empty()
                         ? std::string("Unclassified failure")
                         : fmt::format("Unclassified failure ({})", query.error_type);
  return Cause{text, "unclassified", "", ""};
}

std::string CauseRules::expand(const std::string& t, const std::vector<std::string>& groups,
                               std::string_view message) const {
  std::string out;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '{') {
      out += t[i];
      continue;
    }
    auto close = t.find('}', i);
    if (close == std::string::npos) {
      out += t.substr(i);
      break;
    }
    std::string field = t.substr(i + 1, close - i - 1);
    i = close;
    if (field == "first_line") {
      out += first_line(message);
      continue;
    }
    bool as_function = field.rfind("function:", 0) == 0;
    if (as_function) field = field.substr(9);
    std::size_t n = 0;
    if (field.size() == 1 && field[0] >= '1' && field[0] <= '9') n = field[0] - '0';
    std::string value = n >= 1 && n <= groups.size() ? groups[n - 1] : std::string();
    if (as_function) {
      auto known = functions_.find(value);
      value = known != functions_.end() ? known->second : "torch.ops.aten." + value;
    }
    out += value;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> CauseRules::remedy_templates() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& rule : rules_) {
    if (!rule.remedy.empty()) out.emplace_back(rule.cause, rule.remedy);
  }
  return out;
}

std::vector<std::string> CauseRules::rule_ids() const {
  std::vector<std::string> ids;
  for (const auto& rule : rules_) ids.push_back(rule.id);
  return ids;
}

}  // namespace capmap
