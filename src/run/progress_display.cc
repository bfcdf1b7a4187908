#include "run/progress_display.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace capmap {

namespace {

std::string clock_text(double seconds) {
  long s = std::lround(seconds);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

}  // namespace

ProgressDisplay::ProgressDisplay(std::FILE* out, bool live, size_t total)
    : out_(out), live_(live), total_(total), started_(std::chrono::steady_clock::now()) {}

void ProgressDisplay::record(const std::string& status) {
  ++done_;
  ++by_status_[status];
}

std::string ProgressDisplay::status_counts() const {
  std::string text;
  for (const auto& [status, count] : by_status_) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", status, count);
  }
  return text;
}

void ProgressDisplay::task_finished(
    const std::string& case_name, const std::vector<std::pair<std::string, std::string>>& outcomes,
    double seconds, const std::string& eager_failure) {
  // Every other path of a case whose reference failed is eager-fail: the reason is the news.
  std::string reason =
      eager_failure.empty() ? "" : fmt::format("  {}: {}", case_name, eager_failure);
  if (live_) {
    if (!reason.empty()) note(reason);
    return;
  }
  std::string parts;
  for (const auto& [path, status] : outcomes) {
    parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ", path, status);
  }
  std::fprintf(out_, "[%zu/%zu] %s: %s (%.1f s)\n", done_, total_, case_name.c_str(), parts.c_str(),
               seconds);
  if (!reason.empty()) std::fprintf(out_, "%s\n", reason.c_str());
  std::fflush(out_);
}

void ProgressDisplay::clear_live_line() {
  if (line_drawn_) {
    std::fputs("\r\033[K", out_);
    line_drawn_ = false;
  }
}

void ProgressDisplay::refresh(const std::vector<RunningTaskView>& running) {
  if (!live_) return;
  auto now = std::chrono::steady_clock::now();
  if (now - last_draw_ < std::chrono::milliseconds(200)) return;
  last_draw_ = now;
  double elapsed = std::chrono::duration<double>(now - started_).count();
  double rate = elapsed > 0 ? static_cast<double>(done_) / elapsed : 0;
  std::string eta = rate > 0 && done_ < total_
                        ? clock_text(static_cast<double>(total_ - done_) / rate)
                        : std::string("?");
  std::string slowest;
  if (!running.empty()) {
    auto it = std::max_element(running.begin(), running.end(),
                               [](const auto& a, const auto& b) { return a.seconds < b.seconds; });
    slowest = fmt::format(" | slowest: {} {:.1f}s", it->label, it->seconds);
  }
  std::string counts = done_ == 0 ? std::string("starting") : status_counts();
  std::string line =
      fmt::format("{}/{} | {} | {:.2f}/s | ETA {}{}", done_, total_, counts, rate, eta, slowest);
  // Keep to one terminal line: a wrapped line cannot be redrawn in place.
  if (line.size() > 150) line = line.substr(0, 147) + "...";
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
  line_drawn_ = true;
}

void ProgressDisplay::note(const std::string& line) {
  clear_live_line();
  std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void ProgressDisplay::finish() {
  clear_live_line();
  std::fflush(out_);
}

std::string format_status_table(
    const std::vector<std::string>& paths,
    const std::map<std::string, std::map<std::string, size_t>>& counts) {
  std::set<std::string> statuses;
  for (const auto& [path, by_status] : counts) {
    for (const auto& [status, n] : by_status) statuses.insert(status);
  }
  auto count = [&](const std::string& path, const std::string& status) -> size_t {
    auto row = counts.find(path);
    if (row == counts.end()) return 0;
    auto cell = row->second.find(status);
    return cell == row->second.end() ? 0 : cell->second;
  };
  size_t width = 8;
  for (const auto& path : paths) width = std::max(width, path.size() + 2);
  // Each column as wide as its header or its widest count, plus two spaces: counts never touch.
  std::map<std::string, size_t> column;
  for (const auto& status : statuses) {
    size_t widest = status.size();
    for (const auto& path : paths)
      widest = std::max(widest, std::to_string(count(path, status)).size());
    column[status] = widest + 2;
  }
  std::string table = fmt::format("{:<{}}", "path", width);
  for (const auto& status : statuses) table += fmt::format("{:>{}}", status, column[status]);
  table += "\n";
  for (const auto& path : paths) {
    table += fmt::format("{:<{}}", path, width);
    for (const auto& status : statuses)
      table += fmt::format("{:>{}}", count(path, status), column[status]);
    table += "\n";
  }
  return table;
}

}  // namespace capmap
