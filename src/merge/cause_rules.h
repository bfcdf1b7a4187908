#pragma once
// Ordered rules that turn a failure (path, status, exception type, graph-break
// id, message) into a short cause a library user understands and a category
// from a closed set. The first matching rule wins; user rules come before the
// shipped ones (rules/causes.toml, embedded in the binary).
#include <re2/re2.h>

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace capmap {

struct CauseQuery {
  std::string_view path;
  std::string_view status;
  std::string_view error_type;
  std::string_view gb_id;
  std::string_view message;
};

struct Cause {
  std::string text;
  std::string category;
  std::string rule_id;  // empty when no rule matched
  std::string remedy;   // what a user can do about it; empty when the rule gives none
};

// The closed set of categories a rule may name (docs/reference/snapshot.md).
const std::vector<std::string>& cause_categories();

class CauseRules {
 public:
  // Parses one rules file; `origin` names it in errors. Throws UserError naming
  // origin, rule and problem on bad TOML, an unknown category or a bad pattern.
  void add_file(std::string_view toml_text, const std::string& origin);
  // The shipped rules, embedded at build time.
  void add_builtin();
  // User files first, then the shipped rules.
  static CauseRules load(const std::vector<std::string>& user_files);

  Cause classify(const CauseQuery& query) const;
  std::vector<std::string> rule_ids() const;
  // (cause template, remedy template) of every rule that gives a remedy, in rule order.
  std::vector<std::pair<std::string, std::string>> remedy_templates() const;
  std::size_t size() const { return rules_.size(); }

 private:
  struct Rule {
    std::string id;
    std::string origin;
    std::string category;
    std::string cause;   // template: {1}, {function:1}, {first_line}
    std::string remedy;  // optional, same template fields as cause
    std::vector<std::string> paths;
    std::vector<std::string> statuses;
    std::unique_ptr<RE2> error_type;  // full match
    std::unique_ptr<RE2> gb_id;       // full match
    std::unique_ptr<RE2> message;     // searched anywhere in the message
  };

  std::string expand(const std::string& text, const std::vector<std::string>& groups,
                     std::string_view message) const;

  std::vector<Rule> rules_;
  std::map<std::string, std::string> functions_;  // aten name → public torch function
};

}  // namespace capmap
