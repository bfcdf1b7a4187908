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
  std::map<std::string, std::vector<std::string>> recorded = {{"lib/same.py", {"aa"}},
                                                              {"lib/edited.py", {"bb"}},
                                                              {"lib/gone.py", {"cc"}},
                                                              {"lib/either.py", {"d1", "d2"}},
                                                              {"lib/unanswered.py", {"ee"}}};
  std::map<std::string, std::string> now = {
      {"lib/same.py", "aa"}, {"lib/edited.py", "b2"}, {"lib/gone.py", ""}, {"lib/either.py", "d2"}};
  EXPECT_EQ(files_with_new_hashes(recorded, now),
            (std::vector<std::string>{"lib/edited.py", "lib/gone.py", "lib/unanswered.py"}));
}

}  // namespace
}  // namespace capmap
