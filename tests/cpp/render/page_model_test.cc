#include "render/page_model.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/user_error.h"
#include "test_snapshot.h"

namespace capmap {
namespace {

using testing::small_snapshot;

const UrlTemplates kUrls{"https://src/{revision}/{path}#L{line}", "https://docs/{ref}"};

TEST(PageModel, CountsCardsPerPath) {
  PageModel m = build_page_model(small_snapshot(), kUrls);
  ASSERT_EQ(m.paths.size(), 3u);
  EXPECT_EQ(m.paths[0].id, "onnx");
  EXPECT_EQ(m.paths[2].label, "torch.compile");
  // random_crop is n/a everywhere: it is not probed.
  EXPECT_EQ(m.cards[0].probed, 3u);
  EXPECT_EQ(m.cards[0].supported, 1u);
  EXPECT_EQ(m.cards[1].supported, 2u);
  EXPECT_EQ(m.cards[2].supported, 3u);
  EXPECT_EQ(m.all_pass, 1u);
  // Two variants of warp count once.
  EXPECT_EQ(m.operators_probed, 2u);
}

TEST(PageModel, SameCauseAtSamePlaceIsOneLine) {
  PageModel m = build_page_model(small_snapshot(), kUrls);
  const CaseRow& warp = m.cases[2];
  ASSERT_EQ(warp.name, "warp[bilinear]");
  ASSERT_EQ(warp.causes.size(), 1u);
  EXPECT_EQ(warp.causes[0].paths, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(warp.causes[0].location, "kornia/geometry/foo.py:123");
  EXPECT_EQ(warp.causes[0].location_url, "https://src/abc123/kornia/geometry/foo.py#L123");
  EXPECT_EQ(warp.docs_url, "https://docs/kornia.geometry.warp");
  EXPECT_EQ(warp.graph_breaks, 0);
}

TEST(PageModel, SectionsPackagesAndCausesAreOrdered) {
  PageModel m = build_page_model(small_snapshot(), kUrls);
  ASSERT_EQ(m.sections.size(), 3u);
  EXPECT_EQ(section_title(m.sections[0]), "augmentation");
  // Sections are public packages: warp's ref is kornia.geometry.warp.
  EXPECT_EQ(section_title(m.sections[2]), "geometry");
  EXPECT_EQ(m.sections[2].cases, (std::vector<std::size_t>{2, 3}));
  ASSERT_EQ(m.packages.size(), 3u);
  EXPECT_EQ(m.packages[2].package, "geometry");
  EXPECT_EQ(m.packages[2].per_path[0].supported, 0u);
  EXPECT_EQ(m.packages[2].per_path[1].supported, 1u);
  // random_crop's "random output" is why it was not run, not a cause of failure.
  ASSERT_EQ(m.causes.size(), 2u);
  ASSERT_EQ(m.not_probed.size(), 1u);
  EXPECT_EQ(m.not_probed[0].text, "random output");
  // Equal case counts fall back to alphabetical order.
  EXPECT_EQ(m.causes[0].text, "data-dependent output shape");
  EXPECT_EQ(m.causes[0].per_path, (std::vector<std::size_t>{1, 1, 0}));
  EXPECT_EQ(m.causes[0].cases, 1u);
  // torch is listed first whatever the JSON order.
  EXPECT_EQ(m.header.versions.front().first, "torch");
}

TEST(PageModel, TotalsSayWhatEachCardDividesBy) {
  PageModel m = build_page_model(small_snapshot(), kUrls);
  EXPECT_EQ(m.totals.cases, 4u);
  EXPECT_EQ(m.totals.probed_any, 3u);
  EXPECT_EQ(m.totals.probed_all, 3u);
  EXPECT_EQ(m.totals.operators, 3u);
  EXPECT_EQ(m.totals.operators_probed, 2u);
  EXPECT_EQ(m.cards[0].failed, 2u);
  EXPECT_EQ(m.statuses_seen, (std::vector<std::string>{"ok", "mismatch", "fail", "n/a"}));
}

TEST(PageModel, ConstantIsProbedButNeitherSupportedNorFailed) {
  auto snap = small_snapshot();
  snap["cases"][0]["paths"]["onnx"] = testing::path_result("constant");
  PageModel m = build_page_model(snap, kUrls);
  EXPECT_EQ(m.cards[0].probed, 3u);
  EXPECT_EQ(m.cards[0].supported, 0u);
  EXPECT_EQ(m.cards[0].constant, 1u);
  EXPECT_EQ(m.cards[0].failed, 2u);
  EXPECT_EQ(m.all_pass, 0u);
  EXPECT_NE(std::find(m.statuses_seen.begin(), m.statuses_seen.end(), "constant"),
            m.statuses_seen.end());
}

TEST(PageModel, BreakReasonsAndFailuresAreKeptApart) {
  auto snap = small_snapshot();
  auto breaks = testing::path_result("ok-breaks", "graph break on `.item()`", "data-dependent");
  snap["cases"][0]["paths"]["compile"] = breaks;
  PageModel m = build_page_model(snap, kUrls);
  ASSERT_EQ(m.cases[0].causes.size(), 1u);
  EXPECT_EQ(m.cases[0].causes[0].kind, CauseKind::graph_break);
  ASSERT_EQ(m.break_reasons.size(), 1u);
  EXPECT_EQ(m.causes.size(), 2u);
  for (const CauseTally& c : m.causes) EXPECT_NE(c.text, "graph break on `.item()`");
}

TEST(PageModel, MismatchSaysWhatWasMeasured) {
  auto snap = small_snapshot();
  auto& onnx = snap["cases"][3]["paths"]["onnx"];
  onnx["max_abs_diff"] = 0.00105;
  onnx["mismatched"] = 7;
  onnx["message"] = "output 0: 7 values beyond tolerance";
  onnx["remedy"] = "loosen the tolerance";
  snap["cases"][3]["atol"] = 0.0002;
  snap["cases"][3]["rtol"] = 0.001;
  PageModel m = build_page_model(snap, kUrls);
  const CauseLine& line = m.cases[3].causes[0];
  EXPECT_EQ(line.measured,
            "largest difference from eager 0.00105 against tolerance atol 0.0002 + rtol 0.001 × "
            "|eager|; 7 values beyond it");
  EXPECT_EQ(line.excerpt, "output 0: 7 values beyond tolerance");
  EXPECT_EQ(line.remedy, "loosen the tolerance");
}

TEST(PageModel, AFailureAFreshProcessDecidedSaysWhatTheWarmOneGave) {
  auto snap = small_snapshot();
  auto failed = testing::path_result("fail", "data not allocated", "data-dependent");
  failed["status"] = "export-fail";
  failed["message"] = "The tensor has a non-zero number of elements";
  failed["fresh_check"] = "a fresh process gives this; where torch.compile has already run, ok";
  snap["cases"][3]["paths"]["onnx"] = failed;
  PageModel m = build_page_model(snap, kUrls);
  EXPECT_EQ(m.cases[3].causes[0].excerpt,
            "The tensor has a non-zero number of elements\n(a fresh process gives this; where "
            "torch.compile has already run, ok)");
}

TEST(PageModel, MissingPathReadsAsNotApplicable) {
  auto snap = small_snapshot();
  snap["cases"][0]["paths"].erase("compile");
  PageModel m = build_page_model(snap, kUrls);
  EXPECT_EQ(m.cases[0].statuses[2], "n/a");
  EXPECT_EQ(m.all_pass, 0u);
}

TEST(PageModel, FlagsTemplatesOverrideNothingWhenEmpty) {
  PageModel m = build_page_model(small_snapshot(), UrlTemplates{});
  EXPECT_EQ(m.cases[2].docs_url, "");
  EXPECT_EQ(m.cases[2].causes[0].location_url, "");
  EXPECT_EQ(m.cases[2].causes[0].location, "kornia/geometry/foo.py:123");
}

void expect_error(const nlohmann::json& snap, const std::string& fragment) {
  try {
    build_page_model(snap, kUrls);
    FAIL() << "expected UserError containing " << fragment;
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(PageModel, PathsTheHeaderDescribesGetTheirOwnLabelsAndColumns) {
  auto snap = small_snapshot();
  snap["header"]["paths"] = {"eager", "onnx", "toy", "export", "compile"};
  snap["header"]["path_info"] = {{"eager", {{"label", "eager"}, {"reference", true}}},
                                 {"onnx", {{"label", "ONNX"}, {"short", "ONNX"}}},
                                 {"toy", {{"label", "Toy exporter"}, {"short", "toy"}}},
                                 {"export", {{"label", "torch.export"}, {"short", "export"}}},
                                 {"compile", {{"label", "torch.compile"}, {"short", "compile"}}}};
  snap["cases"][0]["paths"]["toy"] = testing::path_result("ok");
  PageModel m = build_page_model(snap, kUrls);
  ASSERT_EQ(m.paths.size(), 4u);
  EXPECT_EQ(m.paths[1].id, "toy");
  EXPECT_EQ(m.paths[1].label, "Toy exporter");
  EXPECT_EQ(m.cards[1].supported, 1u);
  EXPECT_EQ(m.cards[1].probed, 1u);  // the other cases have no record on it: n/a
  EXPECT_EQ(m.cases[0].statuses, (std::vector<std::string>{"ok", "ok", "ok", "ok"}));
}

TEST(PageModel, ContractBreachesNameTheCase) {
  expect_error(nlohmann::json::array(), "should be a JSON object");
  auto no_cases = small_snapshot();
  no_cases.erase("cases");
  expect_error(no_cases, "no 'cases' list");
  auto bad_version = small_snapshot();
  bad_version["schema_version"] = 2;
  expect_error(bad_version, "schema_version 2");
  auto bad_paths = small_snapshot();
  bad_paths["cases"][1]["paths"] = "oops";
  expect_error(bad_paths, "case 'random_crop': 'paths' should be an object");
  auto no_name = small_snapshot();
  no_name["cases"][3].erase("name");
  expect_error(no_name, "case #4: has no name");
  auto bad_cause = small_snapshot();
  bad_cause["cases"][2]["paths"]["onnx"]["cause"] = nlohmann::json::array();
  expect_error(bad_cause, "case 'warp[bilinear]' path onnx: field 'cause'");
}

}  // namespace
}  // namespace capmap
