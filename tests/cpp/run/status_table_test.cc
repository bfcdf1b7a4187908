#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "run/progress_display.h"

namespace capmap {
namespace {

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(StatusTable, CountsWiderThanTheirHeaderStaySeparate) {
  // A full survey: 1676 under the two-letter "ok" once ran into the count before it.
  std::map<std::string, std::map<std::string, size_t>> counts{
      {"eager", {{"no-tensor-output", 10}, {"ok", 1676}, {"skipped", 18}}},
      {"compile", {{"fail", 3}, {"ok", 1411}, {"ok-breaks", 155}}}};
  std::string table = format_status_table({"eager", "compile"}, counts);
  std::istringstream lines(table);
  std::string header, eager, compile;
  std::getline(lines, header);
  std::getline(lines, eager);
  std::getline(lines, compile);
  EXPECT_EQ(words(header), (std::vector<std::string>{"path", "fail", "no-tensor-output", "ok",
                                                     "ok-breaks", "skipped"}));
  EXPECT_EQ(words(eager), (std::vector<std::string>{"eager", "0", "10", "1676", "0", "18"}));
  EXPECT_EQ(words(compile), (std::vector<std::string>{"compile", "3", "0", "1411", "155", "0"}));
  // Right-aligned: every row as long as the header.
  EXPECT_EQ(eager.size(), header.size());
  EXPECT_EQ(compile.size(), header.size());
}

}  // namespace
}  // namespace capmap
