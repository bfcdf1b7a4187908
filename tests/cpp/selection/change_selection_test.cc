#include "selection/change_selection.h"

#include <gtest/gtest.h>

#include "store/run_difference.h"

namespace capmap {
namespace {

using nlohmann::json;

json make_case(const std::string& name, const std::string& where = "reg/filters.py:3") {
  return {{"name", name}, {"group", "filters"}, {"note", ""}, {"where", where}, {"skip", nullptr}};
}

json known_case(const std::string& name, json files,
                const std::string& where = "reg/filters.py:3") {
  json c = make_case(name, where);
  c["files"] = std::move(files);
  c["paths"] = {{"eager", {{"status", "ok"}}}, {"onnx", {{"status", "export-fail"}}}};
  return c;
}

json run_info(const std::string& torch = "2.13.0") {
  return {{"library", {{"name", "kornia"}, {"revision", "abc"}}},
          {"versions", {{"torch", torch}}},
          {"settings", {{"opset", 18}}}};
}

json known_snapshot(json cases) {
  json header = run_info();
  header["library"]["revision"] = "older";  // another revision is the point of a change run
  return {{"header", header}, {"cases", std::move(cases)}};
}

std::vector<std::string> names(const ChangeSelection& s) {
  std::vector<std::string> out;
  for (const auto& c : s.to_run) out.push_back(c["name"]);
  return out;
}

const std::vector<std::string> kPaths = {"eager", "onnx"};

TEST(ChangeSelection, NamesFileMatchesWholeTrailingComponents) {
  EXPECT_TRUE(names_file("/src/kornia/filters/gaussian.py", "kornia/filters/gaussian.py"));
  EXPECT_TRUE(names_file("kornia/filters/gaussian.py", "kornia/filters/gaussian.py"));
  EXPECT_FALSE(names_file("/src/mykornia/filters/gaussian.py", "kornia/filters/gaussian.py"));
  EXPECT_FALSE(names_file("/src/kornia/filters/gaussian.pyc", "kornia/filters/gaussian.py"));
  EXPECT_FALSE(names_file("/src/kornia/filters/gaussian.py", ""));
}

TEST(ChangeSelection, SelectsCasesThatRunAChangedFileAndKeepsTheRest) {
  json known = known_snapshot({known_case("blur", {{"kornia/filters/gaussian.py", "aa"}}),
                               known_case("gray", {{"kornia/color/gray.py", "bb"}})});
  auto s = select_changed_cases({make_case("blur"), make_case("gray")}, &known, run_info(),
                                {"/x/kornia/filters/gaussian.py"}, kPaths);
  EXPECT_EQ(names(s), std::vector<std::string>{"blur"});
  EXPECT_EQ(s.library_changed, 1u);
  EXPECT_EQ(s.kept, 1u);
  EXPECT_EQ(describe_change_selection(s),
            "1 of 2 cases selected by the change (1 run a changed library file)");
}

TEST(ChangeSelection, KeepsTheRecordedFunctionsOfTheCasesRunningAChangedFile) {
  json blur = known_case("blur", {{"kornia/filters/gaussian.py", "aa"}});
  blur["functions"] = {{"kornia/filters/gaussian.py", "gaussian_blur2d get_gaussian_kernel1d"}};
  json box = known_case("box", {{"kornia/filters/gaussian.py", "aa"}});  // recorded none
  json gray = known_case("gray", {{"kornia/color/gray.py", "bb"}});
  gray["functions"] = {{"kornia/color/gray.py", "rgb_to_grayscale"}};
  json known = known_snapshot({blur, box, gray});
  auto s = select_changed_cases({make_case("blur"), make_case("box"), make_case("gray")}, &known,
                                run_info(), {"/x/kornia/filters/gaussian.py"}, kPaths);
  EXPECT_EQ(s.runs_changed_file, (std::vector<std::string>{"blur", "box"}));
  ASSERT_EQ(s.recorded_functions.size(), 1u);  // gray does not run the changed file
  EXPECT_EQ(s.recorded_functions.at("blur"), blur["functions"]);
}

TEST(ChangeSelection, NewChangedUnknownAndUnmeasuredCasesRun) {
  json no_files = known_case("no_files", nullptr);
  no_files.erase("files");
  json no_result = known_case("no_result", json::object());
  no_result["paths"].erase("onnx");
  json known = known_snapshot({known_case("edited", json::object()), no_files, no_result,
                               known_case("same", json::object())});
  json edited = make_case("edited");
  edited["note"] = "now with a note";
  auto s = select_changed_cases({make_case("fresh"), edited, make_case("no_files"),
                                 make_case("no_result"), make_case("same")},
                                &known, run_info(), {}, kPaths);
  EXPECT_EQ(names(s), (std::vector<std::string>{"fresh", "edited", "no_files", "no_result"}));
  EXPECT_EQ(s.new_cases, 1u);
  EXPECT_EQ(s.definition_changed, 1u);
  EXPECT_EQ(s.no_file_list, 1u);
  EXPECT_EQ(s.no_result, 1u);
  EXPECT_EQ(s.kept, 1u);
}

TEST(ChangeSelection, OnlyATagAProbeReadsMakesADefinitionChange) {
  auto tagged = [](json c, json tags) {
    c["tags"] = std::move(tags);
    return c;
  };
  json known = known_snapshot(
      {tagged(known_case("untiered", json::object()), {"quick"}),
       tagged(known_case("resized", json::object()), {"quick", "dynamic:batch"}),
       tagged(known_case("reordered", json::object()), {"dynamic:batch", "dynamic:none"})});
  auto s = select_changed_cases({tagged(make_case("untiered"), json::array()),
                                 tagged(make_case("resized"), {"quick", "dynamic:batch,spatial"}),
                                 tagged(make_case("reordered"), {"dynamic:none", "dynamic:batch"})},
                                &known, run_info(), {}, kPaths);
  EXPECT_EQ(names(s), std::vector<std::string>{"resized"});
  EXPECT_EQ(s.definition_changed, 1u);
  EXPECT_EQ(s.kept, 2u);
}

TEST(ChangeSelection, AChangedRegistryFileSelectsTheCasesItDefines) {
  json known = known_snapshot({known_case("a", json::object(), "reg/filters.py:3"),
                               known_case("b", json::object(), "reg/color.py:9")});
  auto s =
      select_changed_cases({make_case("a", "reg/filters.py:4"), make_case("b", "reg/color.py:9")},
                           &known, run_info(), {"/repo/reg/filters.py"}, kPaths);
  EXPECT_EQ(names(s), std::vector<std::string>{"a"});
  EXPECT_EQ(s.registry_changed, 1u);
}

TEST(ChangeSelection, InputDigestsOnBothSidesDecideARegistryEdit) {
  // Digests on both sides: a registry edit selects only the case whose inputs changed, and a
  // case that merely moved (another file, another line) keeps its cells.
  auto with_inputs = [](json c, const std::string& digest) {
    c["inputs"] = digest;
    return c;
  };
  json known =
      known_snapshot({with_inputs(known_case("moved", json::object(), "reg/methods.py:40"), "d1"),
                      with_inputs(known_case("reseeded", json::object(), "reg/filters.py:3"), "d2"),
                      known_case("undigested", json::object(), "reg/filters.py:8")});
  auto s = select_changed_cases({with_inputs(make_case("moved", "reg/filters.py:90"), "d1"),
                                 with_inputs(make_case("reseeded", "reg/filters.py:3"), "d3"),
                                 with_inputs(make_case("undigested", "reg/filters.py:8"), "d4")},
                                &known, run_info(),
                                {"/repo/reg/filters.py", "/repo/reg/methods.py"}, kPaths);
  EXPECT_EQ(names(s), (std::vector<std::string>{"reseeded", "undigested"}));
  EXPECT_EQ(s.definition_changed, 1u);
  EXPECT_EQ(s.registry_changed, 1u);  // the baseline holds no digest: the file decides
  EXPECT_EQ(s.kept, 1u);
}

TEST(ChangeSelection, OtherVersionsSelectEverything) {
  json known = known_snapshot({known_case("a", json::object())});
  auto s = select_changed_cases({make_case("a")}, &known, run_info("2.14.0"), {}, kPaths);
  EXPECT_EQ(names(s), std::vector<std::string>{"a"});
  EXPECT_EQ(s.everything_reason, "torch 2.13.0 vs 2.14.0");
  // The library revision alone is what a change is expected to move.
  EXPECT_EQ(version_difference(known["header"], run_info()), "");
}

TEST(ChangeSelection, ALibraryVersionedByItsRevisionIsNotANewRelease) {
  // Sources on the path, no package metadata: the version stands in for the revision.
  json before = run_info(), now = run_info();
  before["library"] = {{"name", "toy"}, {"version", "72f1763"}, {"revision", "72f1763"}};
  now["library"] = {{"name", "toy"}, {"version", "72f1763-dirty"}, {"revision", "72f1763-dirty"}};
  EXPECT_EQ(version_difference(before, now), "");
  // An installed release still selects everything when its version moves.
  now["library"] = {{"name", "toy"}, {"version", "1.1"}, {"revision", "72f1763-dirty"}};
  EXPECT_EQ(version_difference(before, now), "library.version 72f1763 vs 1.1");
  before["library"]["name"] = "other";
  now["library"] = {{"name", "toy"}, {"version", "72f1763-dirty"}, {"revision", "72f1763-dirty"}};
  EXPECT_EQ(version_difference(before, now), "library.name other vs toy");
}

TEST(ChangeSelection, RemembersWhichCasesRunAChangedFile) {
  json known = known_snapshot({known_case("blur", {{"kornia/filters/gaussian.py", "aa"}}),
                               known_case("gray", {{"kornia/color/gray.py", "bb"}})});
  auto s = select_changed_cases({make_case("blur"), make_case("gray"), make_case("new")}, &known,
                                run_info(), {"/x/kornia/filters/gaussian.py"}, kPaths);
  EXPECT_EQ(s.runs_changed_file, std::vector<std::string>{"blur"});  // not "new"
  s.functions_unchanged = 1;
  EXPECT_EQ(describe_change_selection(s),
            "2 of 3 cases selected by the change (1 run a changed library file, 1 new); 1 more "
            "run a changed file but none of its changed functions");
}

TEST(ChangeSelection, WithoutEarlierResultsEveryCaseIsNew) {
  auto s = select_changed_cases({make_case("a"), make_case("b")}, nullptr, run_info(), {}, kPaths);
  EXPECT_EQ(s.to_run.size(), 2u);
  EXPECT_EQ(s.new_cases, 2u);
}

TEST(ChangeSelection, MovedLinesSelectOnlyTheCasesWhoseResultsCiteThem) {
  json cites = known_case("cites", {{"kornia/filters/gaussian.py", "aa.py-1"}});
  cites["paths"]["onnx"]["frames"] = {"kornia/filters/gaussian.py:120 in gaussian_blur2d"};
  json silent = known_case("silent", {{"kornia/filters/gaussian.py", "aa.py-1"}});
  json other = known_case("other", {{"kornia/filters/gaussian.py", "aa.py-1"}});
  other["paths"]["onnx"]["frames"] = {"mykornia/filters/gaussian.py:7",
                                      "kornia/filters/gaussian.pyx"};
  json known = known_snapshot({cites, silent, other});
  auto s = select_changed_cases({make_case("cites"), make_case("silent"), make_case("other")},
                                &known, run_info(), {}, kPaths, {"/x/kornia/filters/gaussian.py"});
  EXPECT_EQ(names(s), std::vector<std::string>{"cites"});
  EXPECT_EQ(s.lines_moved, 1u);
  EXPECT_EQ(describe_change_selection(s),
            "1 of 3 cases selected by the change (1 cite a line that moved)");
  EXPECT_TRUE(cites_a_line_of(cites, "kornia/filters/gaussian.py"));
  EXPECT_FALSE(cites_a_line_of(other, "kornia/filters/gaussian.py"));
}

}  // namespace
}  // namespace capmap
