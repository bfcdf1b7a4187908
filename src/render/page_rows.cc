#include "render/page_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include "common/path_info.h"
#include "common/user_error.h"
#include "render/page_text.h"
#include "render/public_name.h"
#include "selection/run_selection.h"

namespace capmap {
namespace {

using nlohmann::json;

// A string field; absent or null reads as empty, anything else is a contract error.
std::string text_field(const json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number() || it->is_boolean()) return it->dump();
  throw UserError(where + ": field '" + key + "' should be a string");
}

// The header's `machine` as one line: vendor, the ISA torch dispatched to, the BLAS, the
// thread count, the kernel settings the run was given (emulating another CPU, say) and the
// variables the worker withheld from torch.
std::string describe_kernels(const json& header, const std::string& where) {
  auto it = header.find("machine");
  if (it == header.end() || !it->is_object()) return {};
  const std::string at = where + ".machine";
  std::vector<std::string> parts;
  if (auto vendor = text_field(*it, "vendor", at); !vendor.empty()) parts.push_back(vendor);
  if (auto isa = text_field(*it, "torch_isa", at); !isa.empty()) parts.push_back("torch " + isa);
  if (auto blas = text_field(*it, "blas", at); !blas.empty()) parts.push_back(blas);
  if (auto t = it->find("threads"); t != it->end() && t->is_number_integer()) {
    long long threads = *t;
    parts.push_back(fmt::format("{} thread{}", threads, threads == 1 ? "" : "s"));
  }
  if (auto s = it->find("settings"); s != it->end() && s->is_object()) {
    for (const auto& [name, value] : s->items()) {
      parts.push_back(name + "=" + (value.is_string() ? value.get<std::string>() : value.dump()));
    }
  }
  // Variables the worker kept from torch (its own CI switches): the capture did not see them.
  if (auto w = it->find("withheld"); w != it->end() && w->is_array()) {
    for (const auto& name : *w) {
      if (name.is_string()) parts.push_back(name.get<std::string>() + " withheld");
    }
  }
  std::string line;
  for (const auto& part : parts) line += (line.empty() ? "" : ", ") + part;
  return line;
}

// Labels as the path's plug-in gave them (header `path_info`), else the
// built-in ones of the first four paths, else the name.
PagePath page_path(const std::vector<PathInfo>& described, const std::string& id) {
  PathInfo info = describe_path(described, id);
  return {id, info.label, info.short_label, info.description};
}

// "kornia/geometry/foo.py:123 in fn" -> {"kornia/geometry/foo.py", "123"}.
std::pair<std::string, std::string> split_frame(std::string_view frame) {
  auto in = frame.find(" in ");
  if (in != std::string_view::npos) frame = frame.substr(0, in);
  auto colon = frame.rfind(':');
  if (colon == std::string_view::npos) return {std::string(frame), ""};
  std::string_view line = frame.substr(colon + 1);
  bool digits = !line.empty() &&
                std::all_of(line.begin(), line.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (!digits) return {std::string(frame), ""};
  return {std::string(frame.substr(0, colon)), std::string(line)};
}

// The innermost library frame: tracebacks list frames outermost first.
std::string innermost_frame(const json& record) {
  auto it = record.find("frames");
  if (it == record.end() || !it->is_array() || it->empty()) return {};
  const json& last = it->back();
  return last.is_string() ? last.get<std::string>() : std::string();
}

// "(46 %)" keeps its number and sign on one line in a narrow column: a no-break space.
std::string unbroken_percent(std::string text) {
  for (std::size_t at = text.find(" %"); at != std::string::npos; at = text.find(" %", at)) {
    text.replace(at, 1, "\xc2\xa0");
  }
  return text;
}

CauseKind cause_kind(const std::string& status) {
  if (is_failure_status(status)) return CauseKind::failure;
  if (status == "ok-breaks") return CauseKind::graph_break;
  if (status == "n/a") return CauseKind::not_probed;
  return CauseKind::note;
}

// The first lines of an error message, enough to recognise it.
std::string excerpt_of(const std::string& message) {
  constexpr std::size_t kLines = 6, kChars = 600;
  std::size_t end = 0, lines = 0;
  while (end < message.size() && end < kChars && lines < kLines) {
    std::size_t nl = message.find('\n', end);
    end = nl == std::string::npos ? message.size() : nl + 1;
    ++lines;
  }
  std::string out = message.substr(0, std::min(end, kChars));
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  if (out.size() < message.size()) out += " …";
  return out;
}

double number_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : -1.0;
}

// "max |difference| 1.05e-03 against atol 2e-04 + rtol 1e-03 × |eager|; 7 values beyond".
std::string measured_text(const json& record, const json& c) {
  double diff = number_field(record, "max_abs_diff");
  double atol = number_field(c, "atol"), rtol = number_field(c, "rtol");
  if (diff < 0 && atol < 0) return {};
  std::string out;
  if (diff >= 0) out = fmt::format("largest difference from eager {:.3g}", diff);
  if (atol >= 0 || rtol >= 0) {
    if (!out.empty()) out += " against ";
    out += fmt::format("tolerance atol {:.3g} + rtol {:.3g} × |eager|", std::max(atol, 0.0),
                       std::max(rtol, 0.0));
  }
  if (auto n = record.find("mismatched"); n != record.end() && n->is_number_integer()) {
    out += fmt::format("; {} values beyond it", n->get<long long>());
  }
  if (auto what = record.find("check_failed"); what != record.end() && what->is_string()) {
    out += " (" + what->get<std::string>() + " check)";
  }
  // Eager's own rounding on these inputs (probes/conditioning.py): float32 against float64.
  if (double own = number_field(record, "eager_float64_diff"); own >= 0) {
    out += fmt::format("; eager float32 itself differs from float64 by {:.3g}", own);
  }
  return out;
}

// Paths that failed for the same cause at the same place share one line.
std::vector<CauseLine> read_causes(const json& c, const json& case_paths,
                                   const std::vector<PagePath>& paths,
                                   const std::vector<std::string>& statuses,
                                   const std::string& revision, const UrlTemplates& urls,
                                   const std::string& where) {
  std::vector<CauseLine> lines;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string& status = statuses[i];
    if (status == "ok" || status == "ok-unverified") continue;
    auto it = case_paths.find(paths[i].id);
    if (it == case_paths.end()) continue;
    const std::string path_where = where + " path " + paths[i].id;
    std::string text = text_field(*it, "cause", path_where);
    std::string category = text_field(*it, "category", path_where);
    if (text.empty()) {
      if (!is_failure_status(status)) continue;
      text = status;
    }
    if (category.empty()) category = "unclassified";
    std::string frame = innermost_frame(*it);
    auto [file, line] = split_frame(frame);
    std::string location =
        frame.empty() ? std::string() : (line.empty() ? file : file + ":" + line);
    CauseKind kind = cause_kind(status);
    auto same = std::find_if(lines.begin(), lines.end(), [&](const CauseLine& l) {
      return l.text == text && l.location == location && l.kind == kind;
    });
    if (same != lines.end()) {
      same->paths.push_back(i);
      continue;
    }
    CauseLine cause{{i}, text, category, location, {}, kind, {}, {}, {}};
    cause.remedy = text_field(*it, "remedy", path_where);
    if (kind == CauseKind::failure) {
      std::string message = text_field(*it, "message", path_where);
      if (message.empty()) message = text_field(*it, "detail", path_where);
      cause.excerpt = excerpt_of(message);
      // A cell a fresh process decided says what a process that compiled before gives, for the
      // reader whose export works after a torch.compile.
      std::string fresh = text_field(*it, "fresh_check", path_where);
      if (!fresh.empty() && fresh != "same") cause.excerpt += "\n(" + fresh + ")";
      if (status == "mismatch") cause.measured = measured_text(*it, c);
    }
    if (!location.empty() && !line.empty()) {
      cause.location_url = expand_source_url(urls.source_url, revision, file, line);
    }
    lines.push_back(std::move(cause));
  }
  return lines;
}

}  // namespace

PageHeader read_header(const json& header) {
  const std::string where = "snapshot header";
  PageHeader h;
  if (auto lib = header.find("library"); lib != header.end() && lib->is_object()) {
    h.library_name = text_field(*lib, "name", where + ".library");
    h.library_version = text_field(*lib, "version", where + ".library");
    h.revision = text_field(*lib, "revision", where + ".library");
  }
  if (auto versions = header.find("versions"); versions != header.end() && versions->is_object()) {
    // torch first (the version readers look for), Python last, the packages the capture paths
    // declared (the run key's versions) between them in name order.
    auto rank = [](const std::string& name) {
      return name == "torch" ? 0 : name == "python" ? 2 : 1;
    };
    for (const auto& [name, value] : versions->items()) {
      h.versions.emplace_back(name, value.is_string() ? value.get<std::string>() : value.dump());
    }
    std::stable_sort(h.versions.begin(), h.versions.end(),
                     [&](const auto& a, const auto& b) { return rank(a.first) < rank(b.first); });
  }
  h.device = text_field(header, "device", where);
  h.cpu = text_field(header, "cpu", where);
  h.kernels = describe_kernels(header, where);
  h.generated_at = text_field(header, "generated_at", where);
  h.run_key = text_field(header, "run_key", where);
  h.tool = text_field(header, "tool", where);
  if (auto c = header.find("complete"); c != header.end() && c->is_boolean()) h.complete = *c;
  if (auto m = header.find("missing"); m != header.end() && m->is_number_integer()) h.missing = *m;
  if (auto e = header.find("excludes"); e != header.end() && e->is_array()) h.excluded = e->size();
  if (auto cov = header.find("coverage"); cov != header.end() && cov->is_object()) {
    if (auto p = cov->find("percent"); p != cov->end() && p->is_number()) {
      h.coverage_percent = p->get<double>();
    }
    if (auto c = cov->find("covered"); c != cov->end() && c->is_number_integer()) {
      h.coverage_covered = *c;
    }
    if (auto t = cov->find("total"); t != cov->end() && t->is_number_integer()) {
      h.coverage_total = *t;
    }
  }
  if (auto selection = selection_from_json(header, where)) {
    h.selection = describe_selection(*selection);
    h.selection_partial =
        !selects_whole_registry(*selection) || selection->cases < selection->registry_cases;
  }
  return h;
}

std::vector<PagePath> read_paths(const json& header) {
  std::vector<PagePath> paths;
  std::vector<PathInfo> described;
  if (auto info = header.find("path_info"); info != header.end()) {
    described = read_path_infos(*info, "snapshot header 'path_info'");
  }
  auto it = header.find("paths");
  if (it == header.end() || !it->is_array()) {
    for (const char* id : {"onnx", "export", "compile"}) paths.push_back(page_path(described, id));
    return paths;
  }
  for (const json& p : *it) {
    if (!p.is_string()) throw UserError("snapshot header: 'paths' should list path names");
    if (describe_path(described, p.get<std::string>()).reference) continue;
    paths.push_back(page_path(described, p.get<std::string>()));
  }
  return paths;
}

CaseRow read_case(const json& c, std::size_t index, const std::vector<PagePath>& paths,
                  const std::string& revision, const UrlTemplates& urls,
                  const std::set<std::string>& packages) {
  if (!c.is_object()) {
    throw UserError("snapshot case #" + std::to_string(index + 1) + ": should be an object");
  }
  auto name_it = c.find("name");
  if (name_it == c.end() || !name_it->is_string() || name_it->get<std::string>().empty()) {
    throw UserError("snapshot case #" + std::to_string(index + 1) + ": has no name");
  }
  CaseRow row;
  row.name = name_it->get<std::string>();
  const std::string where = "snapshot case '" + row.name + "'";
  row.operator_name = text_field(c, "operator", where);
  if (row.operator_name.empty()) row.operator_name = row.name.substr(0, row.name.find('['));
  row.variant = text_field(c, "variant", where);
  row.note = text_field(c, "note", where);
  row.ref = text_field(c, "ref", where);
  row.package = text_field(c, "package", where);
  row.section = text_field(c, "section", where);
  row.docs_url = expand_docs_url(urls.docs_url, row.ref);
  row.public_name =
      case_public_name(row.ref, text_field(c, "public_ref", where), row.operator_name, packages);
  static const json no_paths = json::object();
  const json* case_paths = &no_paths;
  if (auto p = c.find("paths"); p != c.end() && !p->is_null()) {
    if (!p->is_object()) throw UserError(where + ": 'paths' should be an object");
    case_paths = &*p;
  }
  for (const PagePath& path : paths) {
    auto it = case_paths->find(path.id);
    if (it == case_paths->end()) {
      row.statuses.push_back("n/a");
      row.figures.emplace_back();
      continue;
    }
    if (!it->is_object()) throw UserError(where + ": path '" + path.id + "' should be an object");
    std::string status = text_field(*it, "page_status", where + " path " + path.id);
    row.statuses.push_back(status.empty() ? "n/a" : status);
    row.figures.push_back(unbroken_percent(text_field(*it, "figure", where + " path " + path.id)));
    // Whichever path counts graph breaks (compile) gives the case's figure.
    if (auto gb = it->find("graph_breaks"); gb != it->end() && gb->is_number_integer()) {
      row.graph_breaks = std::max(row.graph_breaks.value_or(0), gb->get<long long>());
    }
    if (auto r = it->find("reproduced"); r != it->end() && r->is_boolean()) {
      const std::string path_where = where + " path " + path.id;
      row.repro.push_back({row.statuses.size() - 1, r->get<bool>(),
                           text_field(*it, "repro_outcome", path_where),
                           text_field(*it, "repro_script", path_where)});
    }
  }
  row.causes = read_causes(c, *case_paths, paths, row.statuses, revision, urls, where);
  // Every path probed the same wrapper; the eager record has the lines even when no capture
  // path ran, so all records are read, each line once.
  for (const auto& [path_id, record] : case_paths->items()) {
    auto lines = record.is_object() ? record.find("flattened") : record.end();
    if (!record.is_object() || lines == record.end() || !lines->is_array()) continue;
    for (const json& line : *lines) {
      if (!line.is_string()) continue;
      const auto& text = line.get_ref<const std::string&>();
      if (std::find(row.flattened.begin(), row.flattened.end(), text) == row.flattened.end()) {
        row.flattened.push_back(text);
      }
    }
  }
  return row;
}

}  // namespace capmap
