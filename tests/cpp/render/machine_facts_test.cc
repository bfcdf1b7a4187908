// The page says what the floats were computed with: the header's `machine`, as one fact.
#include <gtest/gtest.h>

#include "render/html_page.h"
#include "render/page_text.h"
#include "test_snapshot.h"

namespace capmap {
namespace {

std::string fact(const PageModel& model, const std::string& label) {
  for (const auto& [name, value] : header_facts(model.header)) {
    if (name == label) return value;
  }
  return "(none)";
}

TEST(MachineFacts, TheKernelsAreOneLine) {
  nlohmann::json snapshot = testing::small_snapshot();
  snapshot["header"]["machine"] = {
      {"cpu", "Intel Xeon"}, {"vendor", "GenuineIntel"},
      {"torch_isa", "AVX2"}, {"blas", "MKL"},
      {"threads", 1},        {"settings", {{"MKL_CBWR", "COMPATIBLE"}}}};
  PageModel m = build_page_model(snapshot, {});
  EXPECT_EQ(fact(m, "Kernels"), "GenuineIntel, torch AVX2, MKL, 1 thread, MKL_CBWR=COMPATIBLE");
  EXPECT_NE(render_html_page(m).find("<dt>Kernels</dt><dd>GenuineIntel, torch AVX2, MKL"),
            std::string::npos);
}

TEST(MachineFacts, AVariableKeptFromTorchIsNamed) {
  nlohmann::json snapshot = testing::small_snapshot();
  snapshot["header"]["machine"] = {
      {"vendor", "AuthenticAMD"}, {"threads", 2}, {"withheld", {"CI", 7}}};
  // A name that is not a string is left out.
  PageModel m = build_page_model(snapshot, {});
  EXPECT_EQ(fact(m, "Kernels"), "AuthenticAMD, 2 threads, CI withheld");
}

TEST(MachineFacts, OlderSnapshotsRenderWithoutIt) {
  nlohmann::json snapshot = testing::small_snapshot();
  snapshot["header"]["machine"] = nullptr;
  for (const nlohmann::json& s : {testing::small_snapshot(), snapshot}) {
    PageModel m = build_page_model(s, {});
    EXPECT_EQ(fact(m, "Kernels"), "(none)");
  }
}

TEST(MachineFacts, ForeignValuesReadAsTextOrAreLeftOut) {
  nlohmann::json snapshot = testing::small_snapshot();
  snapshot["header"]["machine"] = {{"vendor", 3.5}, {"threads", "two"}};
  // A number where a string belongs reads as its text; a thread count that is no integer is left
  // out.
  PageModel m = build_page_model(snapshot, {});
  EXPECT_EQ(fact(m, "Kernels"), "3.5");
}

}  // namespace
}  // namespace capmap
