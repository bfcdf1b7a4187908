#include "diff/junit_report.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

TEST(JunitReport, EscapesMarkupAndReplacesWhatXmlCannotHold) {
  EXPECT_EQ(escape_xml("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
  EXPECT_EQ(escape_xml("line\nnext\ttab"), "line&#10;next&#9;tab");
  EXPECT_EQ(escape_xml(std::string("nul\0bell\x07", 9)),
            "nul\xEF\xBF\xBD"
            "bell\xEF\xBF\xBD");
  EXPECT_EQ(escape_xml("caf\xC3\xA9 \xE2\x86\x92"), "caf\xC3\xA9 \xE2\x86\x92");  // kept
  EXPECT_EQ(escape_xml("bad \xC3 end"), "bad \xEF\xBF\xBD end");                  // cut sequence
  EXPECT_EQ(escape_xml("\xED\xA0\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // surrogate
}

TEST(JunitReport, OneTestcasePerCaseAndPathWithFailuresAndSkips) {
  nlohmann::json snapshot = {
      {"header", {{"library", {{"name", "lib"}}}, {"paths", {"eager", "onnx"}}}},
      {"cases",
       {{{"name", "a"},
         {"group", "g"},
         {"where", "reg.py:7"},
         {"paths",
          {{"eager", {{"status", "ok"}, {"page_status", "ok"}, {"seconds", 0.5}}},
           {"onnx",
            {{"status", "export-fail"},
             {"page_status", "fail"},
             {"cause", "No ONNX lowering for <op>"},
             {"category", "missing-onnx-lowering"},
             {"detail", "boom"},
             {"frames", {"lib/x.py:3 in f"}}}}}}},
        {{"name", "b"},
         {"group", "g"},
         {"paths",
          {{"eager", {{"status", "skipped"}, {"page_status", "n/a"}, {"cause", "not run"}}},
           {"onnx", {{"status", "skipped"}, {"page_status", "n/a"}}}}}}}}};
  JunitCounts counts;
  std::string xml = snapshot_as_junit(snapshot, &counts);
  EXPECT_EQ(counts.tests, 4u);
  EXPECT_EQ(counts.failures, 1u);
  EXPECT_EQ(counts.skipped, 2u);
  EXPECT_NE(xml.find("<testsuite name=\"lib.onnx\" tests=\"2\" failures=\"1\" errors=\"0\" "
                     "skipped=\"1\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<testcase name=\"a\" classname=\"onnx.g\" time=\"0.000\" file=\"reg.py\" "
                     "line=\"7\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure message=\"No ONNX lowering for &lt;op&gt;\" "
                     "type=\"missing-onnx-lowering\">fail (export-fail)&#10;boom&#10;  at "
                     "lib/x.py:3 in f</failure>"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped message=\"not run\"/>"), std::string::npos) << xml;
}

}  // namespace
}  // namespace capmap
