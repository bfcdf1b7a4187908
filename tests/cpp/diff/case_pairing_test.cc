// Against Kornia's data file, cases pair by package, operator and variant, and
// never by a guess; the verdicts read in words.
#include "diff/case_pairing.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "diff/case_identity.h"
#include "diff/diff_report.h"
#include "diff/snapshot_diff.h"
#include "snapshot/kornia_survey_file.h"

namespace capmap {
namespace {

struct Statuses {
  std::string onnx = "ok", export_ = "ok", compile = "ok";
};

nlohmann::json kornia_case(const std::string& name, const std::string& package,
                           const std::string& op, const std::string& variant,
                           const std::string& ref = "", Statuses s = {}) {
  return {{"name", name},         {"package", package},   {"section", ""},
          {"operator", op},       {"variant", variant},   {"note", ""},
          {"ref", ref},           {"where", ""},          {"onnx", s.onnx},
          {"onnx_detail", ""},    {"export", s.export_},  {"export_detail", ""},
          {"compile", s.compile}, {"compile_detail", ""}, {"graph_breaks", 0}};
}

nlohmann::json kornia_snapshot(nlohmann::json cases) {
  nlohmann::json file = {{"kornia", "0.9.0"}, {"torch", "2.9.1"}, {"cases", std::move(cases)}};
  return snapshot_from_kornia_survey(file, "export_support.json");
}

nlohmann::json capmap_case(const std::string& op, const std::string& variant,
                           const std::string& package, const std::string& ref = "",
                           Statuses s = {}) {
  auto path = [](const std::string& status) {
    return nlohmann::json{{"status", status}, {"page_status", status}};
  };
  return {{"name", variant.empty() ? op : op + "[" + variant + "]"},
          {"operator", op},
          {"variant", variant},
          {"package", package},
          {"group", package},
          {"ref", ref},
          {"tags", nlohmann::json::array()},
          {"paths",
           {{"eager", path("ok")},
            {"onnx", path(s.onnx)},
            {"export", path(s.export_)},
            {"compile", path(s.compile)}}}};
}

nlohmann::json capmap_snapshot(nlohmann::json cases) {
  return {{"schema_version", 1},
          {"header",
           {{"library", {{"name", "kornia"}, {"version", "0.9.0"}}},
            {"versions", {{"torch", "2.9.1"}}},
            {"paths", {"eager", "onnx", "export", "compile"}}}},
          {"cases", std::move(cases)}};
}

// Kornia name → capmap name, for every pair.
std::map<std::string, std::string> pairs_of(const CasePairing& pairing) {
  std::map<std::string, std::string> out;
  for (const auto& p : pairing.pairs) out[p.old_case->at("name")] = p.new_case->at("name");
  return out;
}

TEST(CaseIdentity, OperatorsLoseModulePrefixesAndDunders) {
  EXPECT_EQ(operator_key("siftdesc.sift_describe"), "sift_describe");
  EXPECT_EQ(operator_key("augmentation.Normalize"), "Normalize");
  EXPECT_EQ(operator_key("rt_detr.RTDETR.from_config"), "RTDETR.from_config");
  EXPECT_EQ(operator_key("Quaternion.__mul__"), "Quaternion.mul");
  EXPECT_EQ(operator_key("So3.exp"), "So3.exp");
  EXPECT_EQ(operator_key("rgb_to_hsv"), "rgb_to_hsv");
}

TEST(CaseIdentity, PackagesLoseTheLibraryName) {
  auto kornia = case_identity(kornia_case("x", "kornia.geometry", "warp", ""), "kornia");
  auto capmap = case_identity(capmap_case("warp", "", "geometry"), "kornia");
  EXPECT_EQ(kornia.package, "geometry");
  EXPECT_TRUE(packages_compatible(kornia, capmap));
  auto other = case_identity(capmap_case("warp", "", "enhance"), "kornia");
  EXPECT_FALSE(packages_compatible(kornia, other));
}

TEST(CaseIdentity, VariantPartsSplitAtTopLevelOnly) {
  EXPECT_EQ(variant_parts("random_apply, random"),
            (std::vector<std::string>{"random_apply", "random"}));
  EXPECT_EQ(variant_parts("[a][b]"), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(variant_parts("topk=(1,5)"), (std::vector<std::string>{"topk=(1,5)"}));
  EXPECT_TRUE(variant_parts("").empty());
}

TEST(CaseIdentity, EquivalentVariantsAreTheSameSettingWordedOtherwise) {
  auto agree = [](const std::string& a, const std::string& b) {
    return equivalent_variant(variant_parts(a), variant_parts(b));
  };
  EXPECT_TRUE(same_variant(variant_parts("pos_weight,mean"), variant_parts("Mean, pos-weight")));
  EXPECT_TRUE(agree("no_hysteresis", "hysteresis=False"));
  EXPECT_TRUE(agree("noclip", "clip=False"));
  EXPECT_TRUE(agree("nonseparable", "separable=False"));
  EXPECT_TRUE(agree("nearest", "mode=nearest"));
  EXPECT_TRUE(agree("order2", "order=2"));
  EXPECT_TRUE(agree("antialias", "antialias=True"));
  EXPECT_TRUE(agree("pos_weight,mean", "reduction=mean,pos_weight"));
  EXPECT_TRUE(agree("tensor_sigma", "sigma=tensor"));
  EXPECT_TRUE(agree("live", "factor=tensor"));
  EXPECT_TRUE(agree("live_bounds", "bounds=tensor"));
  EXPECT_TRUE(agree("pixel", "normalized_coordinates=False"));
  EXPECT_TRUE(agree("tensor_sigma,nonsep", "sigma=tensor,separable=False"));
  EXPECT_TRUE(agree("bg_tuple", "background_color=tuple"));
  EXPECT_TRUE(agree("bgr", "format=bgr"));  // an alias is a whole word, never a word's start
  EXPECT_TRUE(agree("mask", "valid_mask"));
  EXPECT_TRUE(agree("inverse", "return_inverse"));
  EXPECT_TRUE(agree("normalize", "normalize_points"));
  // A word inside another is not its end: "ask" is no part of "valid_mask".
  EXPECT_FALSE(agree("ask", "valid_mask"));
  EXPECT_FALSE(agree("points", "normalize_points_x"));
  EXPECT_FALSE(agree("live", "factor=0.5"));
  // Two settings must agree in key and value; a bare key does not know the value.
  EXPECT_FALSE(agree("mode=nearest", "flags=nearest"));
  EXPECT_FALSE(agree("temperature", "temperature=0.5"));
  EXPECT_FALSE(agree("mean,weight", "reduction=mean"));
  EXPECT_FALSE(agree("antialias", "antialias=False"));
}

TEST(CasePairing, PairsByPackageOperatorAndVariantNotByName) {
  auto kornia = kornia_snapshot({
      kornia_case("Normalize", "kornia.augmentation", "Normalize", "",
                  "kornia.augmentation.Normalize"),
      kornia_case("enhance.Normalize", "kornia.enhance", "Normalize", "",
                  "kornia.enhance.Normalize"),
      kornia_case("feature.siftdesc.sift_describe", "kornia.feature", "siftdesc.sift_describe", ""),
      kornia_case("filters.canny[no_hysteresis]", "kornia.filters", "canny", "no_hysteresis"),
      kornia_case("filters.canny", "kornia.filters", "canny", ""),
  });
  auto capmap = capmap_snapshot({
      capmap_case("augmentation.Normalize", "", "augmentation"),
      capmap_case("augmentation.Normalize", "random", "augmentation"),
      capmap_case("Normalize", "", "enhance"),
      capmap_case("sift_describe", "", "feature"),
      capmap_case("canny", "", "filters"),
      capmap_case("canny", "hysteresis=False", "filters"),
      capmap_case("canny", "rgb", "filters"),
  });
  auto pairing = pair_cases_by_identity(kornia, capmap);
  EXPECT_EQ(pairs_of(pairing), (std::map<std::string, std::string>{
                                   {"Normalize", "augmentation.Normalize"},
                                   {"enhance.Normalize", "Normalize"},
                                   {"feature.siftdesc.sift_describe", "sift_describe"},
                                   {"filters.canny", "canny"},
                                   {"filters.canny[no_hysteresis]", "canny[hysteresis=False]"},
                               }));
  EXPECT_TRUE(pairing.only_old.empty());
  ASSERT_EQ(pairing.only_new.size(), 2u);
  EXPECT_EQ(pairing.only_new[0].entry->at("name"), "augmentation.Normalize[random]");
  EXPECT_EQ(pairing.only_new[0].reason, UnpairedReason::kNoMatchingVariant);
}

TEST(CasePairing, AmbiguityLeavesCasesUnpaired) {
  auto kornia = kornia_snapshot({
      // Two Kornia cases of one operator and variant: which one capmap's is, is a guess.
      kornia_case("geometry.epipolar.normalize_points", "kornia.geometry", "normalize_points", ""),
      kornia_case("geometry.homography.normalize_points", "kornia.geometry", "normalize_points",
                  ""),
      // One word that two capmap variants can mean.
      kornia_case("transform.resize[nearest]", "kornia.geometry", "resize", "nearest"),
      kornia_case("transform.resize", "kornia.geometry", "resize", ""),
      // Kornia has two Sobel cases: the other variant has no partner.
      kornia_case("filters.Sobel", "kornia.filters", "Sobel", ""),
      kornia_case("filters.Sobel[unnormalized]", "kornia.filters", "Sobel", "unnormalized"),
  });
  auto capmap = capmap_snapshot({
      capmap_case("normalize_points", "", "geometry"),
      capmap_case("resize", "", "geometry"),
      capmap_case("resize", "mode=nearest", "geometry"),
      capmap_case("resize", "interpolation=nearest", "geometry"),
      capmap_case("Sobel", "", "filters"),
  });
  auto pairing = pair_cases_by_identity(kornia, capmap);
  EXPECT_EQ(pairs_of(pairing), (std::map<std::string, std::string>{
                                   {"transform.resize", "resize"},
                                   {"filters.Sobel", "Sobel"},
                               }));
  std::map<std::string, UnpairedReason> unpaired;
  for (const auto& u : pairing.only_old) unpaired[u.entry->at("name")] = u.reason;
  EXPECT_EQ(unpaired.size(), 4u);
  EXPECT_EQ(unpaired["filters.Sobel[unnormalized]"], UnpairedReason::kNoMatchingVariant);
  EXPECT_EQ(unpaired["transform.resize[nearest]"], UnpairedReason::kNoMatchingVariant);
}

TEST(CasePairing, ANameBreaksATieBetweenOtherwiseAlikeCases) {
  // A file merge --kornia-json wrote keeps capmap's names; a case copied under a new name is
  // alike in all else.
  auto kornia = kornia_snapshot({
      kornia_case("x[2]", "math", "x", "2"),
      kornia_case("retired_op", "math", "x", "2"),
  });
  auto capmap = capmap_snapshot({capmap_case("x", "2", "math")});
  auto pairing = pair_cases_by_identity(kornia, capmap);
  EXPECT_EQ(pairs_of(pairing), (std::map<std::string, std::string>{{"x[2]", "x[2]"}}));
  ASSERT_EQ(pairing.only_old.size(), 1u);
  EXPECT_EQ(pairing.only_old[0].entry->at("name"), "retired_op");
}

TEST(CasePairing, TheOnlyCaseOfAnOperatorPairsAndItsConfigurationIsReported) {
  auto kornia = kornia_snapshot({
      kornia_case("RandomDissolving[random]", "kornia.augmentation", "RandomDissolving", "random"),
      kornia_case("color.rgb_to_lab[batch]", "kornia.color", "rgb_to_lab", "batch"),
  });
  auto capmap = capmap_snapshot({
      capmap_case("RandomDissolving", "", "augmentation"),
      capmap_case("rgb_to_lab", "", "enhance"),  // another package: no pair
  });
  auto pairing = pair_cases_by_identity(kornia, capmap);
  ASSERT_EQ(pairing.pairs.size(), 1u);
  EXPECT_EQ(pairing.pairs[0].rule, PairRule::kOnlyCase);
  EXPECT_EQ(pairing.only_old[0].reason, UnpairedReason::kNoSuchOperator);

  SnapshotDiff diff = diff_snapshots(kornia, capmap);
  ASSERT_EQ(diff.count(ChangeKind::kConfigDiffers), 1u);
  std::string text = diff_as_text(diff);
  EXPECT_NE(text.find("Paired with another configuration (1):\n  RandomDissolving (Kornia: "
                      "RandomDissolving[random]): variant random (Kornia) vs (default) (capmap)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Only in Kornia (no capmap case pairs with it) (1):\n  "
                      "color.rgb_to_lab[batch]: capmap has no case of this package and operator"),
            std::string::npos)
      << text;
}

TEST(CasePairing, MethodsAsVariantsAndRefNamesPairWhenTheOperatorIsMissing) {
  auto kornia = kornia_snapshot({
      kornia_case("contrib.KMeans", "kornia.contrib", "KMeans", ""),
      kornia_case("contrib.KMeans.fit", "kornia.contrib", "KMeans.fit", ""),
      kornia_case("color.sepia_from_rgb", "kornia.color", "sepia_from_rgb", ""),
      kornia_case("color.sepia_from_rgb[no_rescale]", "kornia.color", "sepia_from_rgb",
                  "no_rescale"),
      kornia_case("quaternion.Quaternion.mul", "kornia.geometry", "Quaternion.mul", ""),
  });
  auto capmap = capmap_snapshot({
      capmap_case("KMeans", "", "contrib"),
      capmap_case("KMeans", "fit", "contrib"),
      capmap_case("sepia", "", "color", "kornia.color.sepia.sepia_from_rgb"),
      capmap_case("sepia", "rescale=False", "color", "kornia.color.sepia.sepia_from_rgb"),
      capmap_case("Quaternion.__mul__", "", "geometry"),
  });
  EXPECT_EQ(pairs_of(pair_cases_by_identity(kornia, capmap)),
            (std::map<std::string, std::string>{
                {"contrib.KMeans", "KMeans"},
                {"contrib.KMeans.fit", "KMeans[fit]"},
                {"color.sepia_from_rgb", "sepia"},
                {"color.sepia_from_rgb[no_rescale]", "sepia[rescale=False]"},
                {"quaternion.Quaternion.mul", "Quaternion.__mul__"},
            }));
}

TEST(CasePairing, EitherSideMayBeKorniasFile) {
  auto kornia = kornia_snapshot(
      {kornia_case("Normalize", "kornia.augmentation", "Normalize", "", "", {.onnx = "fail"})});
  auto capmap = capmap_snapshot({capmap_case("augmentation.Normalize", "", "augmentation")});
  SnapshotDiff forward = diff_snapshots(kornia, capmap);
  SnapshotDiff backward = diff_snapshots(capmap, kornia);
  ASSERT_EQ(forward.count(ChangeKind::kFix), 1u);
  ASSERT_EQ(backward.count(ChangeKind::kRegression), 1u);
  EXPECT_NE(
      diff_as_text(backward).find("Normalize (capmap: augmentation.Normalize) onnx: works → fails"),
      std::string::npos);
  ASSERT_TRUE(backward.pairing);
  EXPECT_EQ(backward.pairing->old_label, "capmap");
  EXPECT_EQ(backward.pairing->new_probed_paired, 1u);
}

TEST(KorniaVerdicts, StatusesCompareAsVerdictsInWords) {
  auto kornia = kornia_snapshot({
      kornia_case("a", "kornia.color", "a", "", "", {.onnx = "ok", .export_ = "ok"}),
      kornia_case("b", "kornia.color", "b", "", "", {.onnx = "fail", .export_ = "fail"}),
      kornia_case("c", "kornia.color", "c", "", "", {"n/a", "n/a", "n/a"}),
      kornia_case("d", "kornia.color", "d", "", "", {.onnx = "ok-unverified"}),
  });
  auto capmap = capmap_snapshot({
      // export: Kornia's file never writes ok-unverified there, so it is ok; onnx crashed.
      capmap_case("a", "", "color", "", {.onnx = "crashed", .export_ = "ok-unverified"}),
      // A crash and a timeout are failures in that file's words too: no change.
      capmap_case("b", "", "color", "", {.onnx = "crashed", .export_ = "timeout"}),
      // Kornia did not probe it: neither a fix nor a regression.
      capmap_case("c", "", "color"),
      // onnx: Kornia's file does write ok-unverified, so the difference is shown.
      capmap_case("d", "", "color"),
  });
  SnapshotDiff diff = diff_snapshots(kornia, capmap);
  EXPECT_EQ(diff.count(ChangeKind::kRegression), 1u);
  EXPECT_EQ(diff.count(ChangeKind::kFix), 0u);
  EXPECT_EQ(diff.count(ChangeKind::kCauseChanged), 0u);
  EXPECT_EQ(diff.count(ChangeKind::kProbedOnOneSide), 3u);
  EXPECT_EQ(diff.count(ChangeKind::kStatusChanged), 1u);
  std::string text = diff_as_text(diff);
  EXPECT_NE(text.find("Regressions (1):\n  a onnx: works → crashes\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  c onnx: not probed → works\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  d onnx: works (output not compared) → works\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Pairing: 3 of Kornia's 3 probed cases pair with a capmap case"),
            std::string::npos)
      << text;
  std::string md = diff_as_markdown(diff);
  EXPECT_NE(md.find("| `a` | onnx | works → crashes |"), std::string::npos) << md;
  auto json = diff_as_json(diff);
  EXPECT_EQ(json["pairing"]["old_probed_paired"], 3);
  EXPECT_EQ(json["counts"]["probed_on_one_side"], 3);
}

}  // namespace
}  // namespace capmap
