#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/user_error.h"
#include "render/markdown_summary.h"
#include "render/render.h"
#include "render/rst_page.h"
#include "test_snapshot.h"

namespace capmap {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class RenderOutputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("capmap_render_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  RenderOptions all_outputs() const {
    RenderOptions o;
    o.html = dir_ / "page.html";
    o.rst = dir_ / "page.rst";
    o.md = dir_ / "summary.md";
    return o;
  }
  fs::path dir_;
};

TEST_F(RenderOutputs, SameSnapshotGivesByteIdenticalOutputs) {
  RenderOptions o = all_outputs();
  render_snapshot(testing::small_snapshot(), o);
  std::string html = slurp(*o.html), rst = slurp(*o.rst), md = slurp(*o.md);
  ASSERT_FALSE(html.empty());
  render_snapshot(testing::small_snapshot(), o);
  EXPECT_EQ(slurp(*o.html), html);
  EXPECT_EQ(slurp(*o.rst), rst);
  EXPECT_EQ(slurp(*o.md), md);
  EXPECT_NE(html.find("<title>kornia 0.9.0 — graph capture compatibility</title>"),
            std::string::npos);
  EXPECT_NE(html.find("2026-01-01T00:00:00Z"), std::string::npos);
  EXPECT_EQ(html.find("@@"), std::string::npos);
}

TEST_F(RenderOutputs, FlagTemplatesOverrideTheSnapshot) {
  RenderOptions o = all_outputs();
  o.source_url = "https://mirror/{path}?rev={revision}&l={line}";
  render_snapshot(testing::small_snapshot(), o);
  std::string rst = slurp(*o.rst);
  EXPECT_NE(rst.find("<https://mirror/kornia/geometry/foo.py?rev=abc123&l=123>`__"),
            std::string::npos);
  EXPECT_EQ(rst.find("https://src/"), std::string::npos);
}

TEST_F(RenderOutputs, BadSnapshotWritesNothingAndKeepsOldFiles) {
  RenderOptions o = all_outputs();
  { std::ofstream(*o.html) << "previous page"; }
  auto snap = testing::small_snapshot();
  snap["cases"][0]["paths"] = 5;
  EXPECT_THROW(render_snapshot(snap, o), UserError);
  EXPECT_EQ(slurp(*o.html), "previous page");
  EXPECT_FALSE(fs::exists(*o.rst));
  EXPECT_FALSE(fs::exists(*o.md));
}

TEST(RstPage, ConstantHasItsRoleColumnAndLegendEntry) {
  auto snap = testing::small_snapshot();
  snap["cases"][0]["paths"]["onnx"] = testing::path_result("constant");
  PageModel m = build_page_model(snap, {});
  RstPage page = render_rst_page(m, nullptr);
  EXPECT_NE(page.text.find(".. role:: st-constant\n   :class: badge st-constant"),
            std::string::npos);
  EXPECT_NE(page.text.find(":st-constant:`constant`\n   captured as a constant"),
            std::string::npos);
  EXPECT_NE(page.text.find("     - Constant\n"), std::string::npos);
  // The legend lists what occurs: no timeout here.
  EXPECT_EQ(page.text.find(":st-timeout:`timeout`"), std::string::npos);
}

TEST(RstPage, CodeSpansOfCauseTextsAreLiterals) {
  auto snap = testing::small_snapshot();
  snap["cases"][2]["paths"]["onnx"]["cause"] = "Reads a value (`.item()`) back";
  snap["cases"][2]["paths"]["export"]["cause"] = "Reads a value (`.item()`) back";
  PageModel m = build_page_model(snap, {});
  RstPage page = render_rst_page(m, nullptr);
  EXPECT_NE(page.text.find("Reads a value \\(``.item()``\\ \\) back"), std::string::npos)
      << page.text;
  EXPECT_EQ(page.text.find("\\`.item"), std::string::npos);
}

TEST(RstEscape, MarkupCharactersReadLiterally) {
  EXPECT_EQ(escape_rst("a*b_c`d|e"), "a\\*b\\_c\\`d\\|e");
  EXPECT_EQ(escape_rst("1. item"), "\\1\\. item");
  EXPECT_EQ(escape_rst("two\nlines"), "two lines");
  EXPECT_EQ(escape_rst("plain words"), "plain words");
}

TEST(RstPage, LinksSourcesAndMergesPaths) {
  PageModel m = build_page_model(testing::small_snapshot(),
                                 {"https://src/{revision}/{path}#L{line}", "https://docs/{ref}"});
  RstPage page = render_rst_page(m, nullptr);
  EXPECT_NE(page.text.find("**ONNX\\, export**: data\\-dependent output shape "
                           "(`kornia\\/geometry\\/foo\\.py\\:123 "
                           "<https://src/abc123/kornia/geometry/foo.py#L123>`__)"),
            std::string::npos);
  EXPECT_NE(page.text.find("`warp <https://docs/kornia.geometry.warp>`__"), std::string::npos);
  EXPECT_NE(page.text.find(":class: capmap-cases"), std::string::npos);
  EXPECT_EQ(page.unresolved, 0u);
}

TEST(MarkdownSummary, CardsPackagesAndCappedCauses) {
  PageModel m = build_page_model(testing::small_snapshot(), {});
  std::string md = render_markdown_summary(m, 1);
  EXPECT_NE(md.find("| ONNX | 1 / 3 (33.3 %) |"), std::string::npos) << md;
  // The all-paths card divides by the cases probed on every path, as the others do.
  EXPECT_NE(md.find("| All three paths | 1 / 3 (33.3 %) |"), std::string::npos) << md;
  EXPECT_NE(md.find("| geometry | 2 |"), std::string::npos) << md;
  // The rest of the causes fold away rather than end in an unlinked count.
  EXPECT_NE(md.find("<details><summary>1 more causes</summary>"), std::string::npos) << md;
  EXPECT_EQ(md.find("…and"), std::string::npos) << md;
  // Failing operators are listed per path.
  EXPECT_NE(md.find("ONNX: 1 operators fail"), std::string::npos) << md;
  EXPECT_NE(md.find("`kornia.geometry.warp`"), std::string::npos) << md;
  EXPECT_EQ(escape_markdown("a|b <i> *x*"), "a\\|b &lt;i&gt; \\*x\\*");
}

}  // namespace
}  // namespace capmap
