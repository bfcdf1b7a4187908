#include "render/remedy_lookup.h"

#include <map>

namespace capmap {
namespace {

// A template as literal text between fields: literals.size() == fields.size() + 1.
struct Pattern {
  std::vector<std::string> literals, fields;
};

Pattern parse(const std::string& text) {
  Pattern p;
  p.literals.emplace_back();
  for (std::size_t i = 0; i < text.size(); ++i) {
    auto close = text[i] == '{' ? text.find('}', i) : std::string::npos;
    if (close == std::string::npos) {
      p.literals.back() += text[i];
      continue;
    }
    p.fields.push_back(text.substr(i + 1, close - i - 1));
    p.literals.emplace_back();
    i = close;
  }
  return p;
}

// Matches fields lazily (each ends at the first occurrence of the next literal);
// the last literal must end the text.
bool match(const Pattern& p, const std::string& text, std::map<std::string, std::string>& values) {
  if (text.compare(0, p.literals[0].size(), p.literals[0]) != 0) return false;
  std::size_t pos = p.literals[0].size();
  for (std::size_t f = 0; f < p.fields.size(); ++f) {
    const std::string& next = p.literals[f + 1];
    bool last = f + 1 == p.fields.size();
    std::size_t end;
    if (last) {
      if (text.size() < pos + next.size() ||
          text.compare(text.size() - next.size(), next.size(), next) != 0) {
        return false;
      }
      end = text.size() - next.size();
    } else {
      end = next.empty() ? pos : text.find(next, pos);
      if (end == std::string::npos) return false;
    }
    std::string value = text.substr(pos, end - pos);
    auto [it, fresh] = values.emplace(p.fields[f], value);
    if (!fresh && it->second != value) return false;
    pos = end + next.size();
  }
  return p.fields.empty() ? pos == text.size() : true;
}

std::string fill(const Pattern& remedy, const std::map<std::string, std::string>& values) {
  std::string out = remedy.literals[0];
  for (std::size_t f = 0; f < remedy.fields.size(); ++f) {
    auto it = values.find(remedy.fields[f]);
    if (it == values.end()) return {};
    out += it->second + remedy.literals[f + 1];
  }
  return out;
}

}  // namespace

std::string remedy_for(const std::string& cause_text, const RemedyTemplates& templates) {
  for (const auto& [cause, remedy] : templates) {
    std::map<std::string, std::string> values;
    if (match(parse(cause), cause_text, values)) return fill(parse(remedy), values);
  }
  return {};
}

void fill_remedies(PageModel& model, const RemedyTemplates& templates) {
  if (templates.empty()) return;
  std::map<std::string, std::string> known;
  auto lookup = [&](const std::string& text) -> const std::string& {
    auto [it, fresh] = known.emplace(text, std::string());
    if (fresh) it->second = remedy_for(text, templates);
    return it->second;
  };
  for (CaseRow& row : model.cases) {
    for (CauseLine& line : row.causes) {
      if (line.remedy.empty() && line.kind != CauseKind::not_probed)
        line.remedy = lookup(line.text);
    }
  }
  for (auto* tallies : {&model.causes, &model.break_reasons}) {
    for (CauseTally& t : *tallies) {
      if (t.remedy.empty()) t.remedy = lookup(t.text);
    }
  }
}

}  // namespace capmap
