#include "run/run_paths.h"

#include <gtest/gtest.h>

#include "common/user_error.h"

namespace capmap {
namespace {

// A hello as a worker with one extra plug-in path announces it.
nlohmann::json hello_with_extra_path() {
  nlohmann::json paths = path_info_list_json(builtin_paths());
  paths.push_back({{"name", "toy"},
                   {"label", "Toy exporter"},
                   {"short", "toy"},
                   {"order", 25},
                   {"builds_on", {"export"}},
                   {"statuses", {{"ok", "ok"}}},
                   {"default", false}});
  return {{"type", "hello"}, {"paths", paths}};
}

TEST(RunPaths, SplitsAtCommasAndDropsRepeats) {
  EXPECT_EQ(split_path_list("eager,toy,eager"), (std::vector<std::string>{"eager", "toy"}));
  EXPECT_TRUE(split_path_list("").empty());
  EXPECT_THROW(split_path_list("eager,,onnx"), UserError);
}

TEST(RunPaths, AnyAnnouncedPathIsAcceptedAndSortedIntoPageOrder) {
  auto announced = announced_paths(hello_with_extra_path());
  EXPECT_EQ(choose_run_paths({"compile", "toy", "eager"}, announced),
            (std::vector<std::string>{"eager", "toy", "compile"}));
}

TEST(RunPaths, WithoutPathsTheAnnouncedDefaultsRun) {
  auto announced = announced_paths(hello_with_extra_path());
  EXPECT_EQ(choose_run_paths({}, announced),
            (std::vector<std::string>{"eager", "onnx", "export", "compile"}));
}

TEST(RunPaths, AnUnknownPathNamesTheAnnouncedOnes) {
  auto announced = announced_paths(hello_with_extra_path());
  try {
    choose_run_paths({"tflite"}, announced);
    FAIL() << "accepted an unknown path";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "--paths: unknown path 'tflite' (known: eager, onnx, export, compile, toy)");
  }
}

TEST(RunPaths, AWorkerThatAnnouncesNoPathsHasTheBuiltInFour) {
  auto announced = announced_paths({{"type", "hello"}});
  EXPECT_EQ(choose_run_paths({}, announced),
            (std::vector<std::string>{"eager", "onnx", "export", "compile"}));
  EXPECT_THROW(choose_run_paths({"toy"}, announced), UserError);
}

TEST(RunPaths, APathWhosePackagesAreMissingIsRefusedWithItsInstallCommand) {
  nlohmann::json hello = hello_with_extra_path();
  hello["unavailable"] = {
      {"onnx", {{"missing", {"onnx", "onnxscript"}}, {"install", "pip install 'capmap[onnx]'"}}}};
  EXPECT_NO_THROW(check_paths_available(hello, {"eager", "export", "compile"}, "py"));
  try {
    check_paths_available(hello, {"eager", "onnx"}, "venv/bin/python3");
    FAIL() << "accepted a path whose packages are missing";
  } catch (const UserError& e) {
    EXPECT_STREQ(e.what(),
                 "--paths: the onnx path needs onnx, onnxscript, which venv/bin/python3's "
                 "environment lacks: pip install 'capmap[onnx]' (or choose other --paths)");
  }
  // A worker from before the field announces nothing unavailable.
  EXPECT_NO_THROW(check_paths_available({{"type", "hello"}}, {"onnx"}, "py"));
}

}  // namespace
}  // namespace capmap
