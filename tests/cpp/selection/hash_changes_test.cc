#include "selection/hash_changes.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

using nlohmann::json;

TEST(HashChanges, RecordedHashesGatherEveryCaseFiles) {
  auto snapshot = json::parse(R"({"cases": [
    {"name": "a", "files": {"lib/x.py": "11", "lib/y.py": "22"}},
    {"name": "b", "files": {"lib/x.py": "11"}},
    {"name": "c", "files": {"lib/x.py": "33"}},
    {"name": "d"}
  ]})");
  auto recorded = recorded_hashes(snapshot);
  EXPECT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded.at("lib/x.py"), (std::vector<std::string>{"11", "33"}));
  EXPECT_EQ(recorded.at("lib/y.py"), (std::vector<std::string>{"22"}));
}

TEST(HashChanges, AFileChangedWhenItsHashMatchesNoRecordedOneOrItIsGone) {
  // Older records hold the content hash alone.
  std::map<std::string, std::vector<std::string>> recorded = {{"lib/same.py", {"aa"}},
                                                              {"lib/edited.py", {"bb"}},
                                                              {"lib/gone.py", {"cc"}},
                                                              {"lib/either.py", {"d1", "d2"}},
                                                              {"lib/unanswered.py", {"ee"}}};
  std::map<std::string, std::vector<std::string>> now = {{"lib/same.py", {"aa", "py-aa"}},
                                                         {"lib/edited.py", {"b2", "py-b2"}},
                                                         {"lib/gone.py", {}},
                                                         {"lib/either.py", {"d2"}}};
  auto changed = files_with_new_hashes(recorded, now);
  EXPECT_EQ(changed.code,
            (std::vector<std::string>{"lib/edited.py", "lib/gone.py", "lib/unanswered.py"}));
  EXPECT_TRUE(changed.lines_moved.empty());
}

TEST(HashChanges, TheSameCodeAtOtherLinesIsToldApartFromChangedCode) {
  std::map<std::string, std::vector<std::string>> recorded = {{"lib/same.py", {"c1.py-11"}},
                                                              {"lib/docstring.py", {"c2.py-22"}},
                                                              {"lib/code.py", {"c3.py-33"}}};
  std::map<std::string, std::vector<std::string>> now = {{"lib/same.py", {"c1", "py-11"}},
                                                         {"lib/docstring.py", {"c9", "py-22"}},
                                                         {"lib/code.py", {"c8", "py-99"}}};
  auto changed = files_with_new_hashes(recorded, now);
  EXPECT_EQ(changed.code, std::vector<std::string>{"lib/code.py"});
  EXPECT_EQ(changed.lines_moved, std::vector<std::string>{"lib/docstring.py"});
}

}  // namespace
}  // namespace capmap
