#include "render/page_data.h"

#include <gtest/gtest.h>

#include "test_snapshot.h"

namespace capmap {
namespace {

const UrlTemplates kUrls{"https://src/{revision}/{path}#L{line}", "https://docs/{ref}"};

TEST(PageData, LeavesOutWhatTheTemplatesGive) {
  PageModel model = build_page_model(testing::small_snapshot(), kUrls);
  nlohmann::json data = page_data(model);
  EXPECT_EQ(data["source_url"], kUrls.source_url);
  EXPECT_EQ(data["revision"], "abc123");
  const nlohmann::json& warp = data["cases"][2];
  EXPECT_EQ(warp["o"], "warp");
  EXPECT_EQ(warp["v"], "bilinear");
  EXPECT_FALSE(warp.contains("n"));
  EXPECT_FALSE(warp.contains("u"));
  ASSERT_EQ(warp["c"].size(), 1u);
  EXPECT_EQ(warp["c"][0]["l"], "kornia/geometry/foo.py:123");
  EXPECT_FALSE(warp["c"][0].contains("h"));
  EXPECT_EQ(data["sections"][2]["cases"], nlohmann::json({2, 3}));
}

TEST(PageData, KeepsLinksTheTemplatesCannotGive) {
  PageModel model = build_page_model(testing::small_snapshot(), kUrls);
  model.cases[2].docs_url = "api/geometry.html#warp";  // as an inventory would set it
  model.cases[2].causes[0].location_url = "";
  model.cases[0].name = "gray_special";
  nlohmann::json data = page_data(model);
  EXPECT_EQ(data["cases"][2]["u"], "api/geometry.html#warp");
  EXPECT_EQ(data["cases"][2]["c"][0]["h"], "");
  EXPECT_EQ(data["cases"][0]["n"], "gray_special");
}

TEST(PageData, CarriesWhatTheCaptureWrapperOpenedOnce) {
  nlohmann::json snapshot = testing::small_snapshot();
  nlohmann::json& paths = snapshot["cases"][0]["paths"];
  paths["eager"] = testing::path_result("ok");
  paths["eager"]["flattened"] = {"input Vector3 → 1 tensor", "output Boxes → 2 tensors"};
  paths["onnx"]["flattened"] = {"input Vector3 → 1 tensor", "output Boxes → 2 tensors"};
  paths["compile"]["flattened"] = "not a list";  // ignored, as any malformed entry
  PageModel model = build_page_model(snapshot, kUrls);
  EXPECT_EQ(model.cases[0].flattened,
            (std::vector<std::string>{"input Vector3 → 1 tensor", "output Boxes → 2 tensors"}));
  nlohmann::json data = page_data(model);
  EXPECT_EQ(data["cases"][0]["fl"],
            nlohmann::json({"input Vector3 → 1 tensor", "output Boxes → 2 tensors"}));
  EXPECT_FALSE(data["cases"][1].contains("fl"));
}

}  // namespace
}  // namespace capmap
