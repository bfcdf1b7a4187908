#include "store/run_key.h"

#include <gtest/gtest.h>

#include "common/fnv_hash.h"

namespace capmap {
namespace {

nlohmann::json library() {
  return {{"name", "kornia"},
          {"revision", "v0.9.0-3-gabc-dirty"},
          {"version", "0.9.0"},
          {"source_url", "https://x/{path}"}};
}
nlohmann::json versions() {
  return {{"torch", "2.13.0"},
          {"onnx", "1.19.0"},
          {"onnxruntime", "1.23.0"},
          {"onnxscript", "0.5.0"},
          {"python", "3.12.1"}};
}
nlohmann::json settings() { return {{"opset", 18}, {"export_strict", false}}; }

TEST(RunKey, HashesTheCanonicalJsonOfTheContract) {
  // The canonical form written out by hand: sorted keys, no spaces, only
  // name and revision of the library.
  std::string canonical =
      R"({"library":{"name":"kornia","revision":"v0.9.0-3-gabc-dirty"},)"
      R"("settings":{"export_strict":false,"opset":18},)"
      R"("versions":{"onnx":"1.19.0","onnxruntime":"1.23.0","onnxscript":"0.5.0",)"
      R"("python":"3.12.1","torch":"2.13.0"}})";
  EXPECT_EQ(run_key_source(library(), versions(), settings()).dump(), canonical);
  EXPECT_EQ(compute_run_key(library(), versions(), settings()), fnv1a64_hex(canonical));
}

TEST(RunKey, IgnoresKeyOrderAndFieldsOutsideTheKey) {
  auto reordered = nlohmann::json::parse(
      R"({"python":"3.12.1","torch":"2.13.0","onnxscript":"0.5.0","onnxruntime":"1.23.0","onnx":"1.19.0"})");
  auto lib = library();
  lib["docs_url"] = "https://docs/{ref}";
  lib["version"] = "0.9.1";
  EXPECT_EQ(compute_run_key(lib, reordered, settings()),
            compute_run_key(library(), versions(), settings()));
}

TEST(RunKey, ChangesWithRevisionVersionsAndSettings) {
  auto base = compute_run_key(library(), versions(), settings());
  auto lib = library();
  lib["revision"] = "v0.9.0";
  EXPECT_NE(compute_run_key(lib, versions(), settings()), base);
  auto v = versions();
  v["torch"] = "2.12.0";
  EXPECT_NE(compute_run_key(library(), v, settings()), base);
  auto s = settings();
  s["export_strict"] = true;
  EXPECT_NE(compute_run_key(library(), versions(), s), base);
  EXPECT_EQ(base.size(), 16u);
}

}  // namespace
}  // namespace capmap
