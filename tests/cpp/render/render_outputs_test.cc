#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/user_error.h"
#include "render/drift_check.h"
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
  RstPage page = render_rst_page(m);
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
  RstPage page = render_rst_page(m);
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
  RstPage page = render_rst_page(m);
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

TEST(RstPage, AnXrefRoleNamesEveryOperatorWithAPublicName) {
  PageModel m = build_page_model(testing::small_snapshot(), {});
  RstOptions options;
  options.xref_role = "capmap-ref";
  RstPage page = render_rst_page(m, options);
  EXPECT_NE(page.text.find(":capmap-ref:`gray <kornia.color.gray>`"), std::string::npos)
      << page.text;
  EXPECT_NE(page.text.find(":capmap-ref:`random\\_crop <kornia.augmentation.random_crop>`"),
            std::string::npos);
  // The role replaces the docs template's link.
  EXPECT_EQ(page.text.find("<https://docs/"), std::string::npos);
}

TEST_F(RenderOutputs, PackagesKeepOnlyTheirCasesAndAnUnknownOneIsRefused) {
  RenderOptions o;
  o.rst = dir_ / "page.rst";
  o.packages = {"color"};
  std::vector<RenderedFile> files = render_files(testing::small_snapshot(), o);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(files[0].text.find("gray"), std::string::npos);
  EXPECT_EQ(files[0].text.find("random\\_crop"), std::string::npos);
  EXPECT_FALSE(fs::exists(*o.rst));  // render_files writes nothing
  o.packages = {"color", "colour"};
  try {
    render_files(testing::small_snapshot(), o);
    FAIL() << "an unknown package was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no case is in package 'colour'"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("augmentation, color"), std::string::npos) << e.what();
  }
}

TEST(RstPage, ABaselineGivesAChangesSection) {
  PageModel m = build_page_model(testing::small_snapshot(), {});
  PageChanges changes;
  changes.baseline = "old.json";
  changes.diff = {{"regressions",
                   {{{"case", "gray"},
                     {"path", "onnx"},
                     {"old_status", "ok"},
                     {"new_status", "fail"},
                     {"new_cause", "<b>x</b>"}}}}};
  RstOptions options;
  options.changes = &changes;
  std::string text = render_rst_page(m, options).text;
  std::size_t at = text.find("Changes\n---------");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_LT(text.find("At a glance"), at);
  EXPECT_LT(at, text.find("By package"));
  EXPECT_NE(text.find("Since old.json: 1 regressions"), std::string::npos);
  EXPECT_NE(text.find("&lt;b&gt;x&lt;/b&gt;"), std::string::npos);
  EXPECT_EQ(text.find("<b>x</b>"), std::string::npos);
}

TEST(DriftCheck, SaysWhereACommittedPagePartsFromTheRenderedOne) {
  EXPECT_FALSE(first_difference("a\nb\n", "a\nb\n"));
  EXPECT_EQ(*first_difference("a\nb\nc\n", "a\nB\nc\n"),
            "line 2 differs: committed \"b\", rendered \"B\"");
  EXPECT_EQ(*first_difference("a\n", "a\nmore\n"),
            "it ends at line 2, where the snapshot renders more: \"more\"");
  EXPECT_EQ(*first_difference("a\nold\n", "a\n"),
            "it has lines the snapshot does not render, from line 2: \"old\"");
  std::string long_line(200, 'x');
  EXPECT_NE(first_difference(long_line, "y")->find("…"), std::string::npos);
}

}  // namespace
}  // namespace capmap
