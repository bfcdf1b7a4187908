#include "merge/merge.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/fnv_hash.h"
#include "common/path_info.h"
#include "common/user_error.h"
#include "store_builder.h"

namespace capmap {
namespace {

using testing::make_case;
using testing::make_run_info;
using testing::StoreBuilder;

const std::vector<std::string> kPaths{"eager", "onnx", "export", "compile"};
const char* kSvdMessage =
    "No ONNX function found for <OpOverload(op='aten._linalg_svd', overload='default')>. "
    "Failure message: No decompositions registered for the real-valued input";

std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("capmap_merge_test_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    unsetenv("SOURCE_DATE_EPOCH");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Records for `names`, every path ok except the ones given in `fails`.
  void fill(StoreBuilder& store, const std::string& key, const std::vector<std::string>& names,
            int shard = 1, int shard_count = 1) {
    store.add_shard(key, shard, shard_count, kPaths);
    for (const auto& name : names) {
      for (const auto& path : kPaths) {
        nlohmann::json record = {{"status", "ok"}, {"seconds", 0.25}};
        if (path == "onnx" && name == "linalg.svd") {
          record = {{"status", "export-fail"},
                    {"seconds", 1.5},
                    {"error_type", "DispatchError"},
                    {"message", kSvdMessage},
                    {"frames", {"kornia/geometry/linalg.py:10 in svd"}}};
        }
        if (path == "compile" && name == "color.rgb_to_gray") {
          record = {{"status", "ok-breaks"},
                    {"seconds", 2.0},
                    {"graph_breaks", 1},
                    {"break_reasons",
                     {{{"reason",
                        "Data-dependent branching: Detected data-dependent branching (e.g. `if "
                        "my_tensor.sum() > 0:`)."},
                       {"gb_id", "GB0170"}}}}};
        }
        store.add_record(key, name, path, record);
      }
    }
  }

  std::filesystem::path complete_store(const std::string& file = "results.db") {
    auto path = dir_ / file;
    StoreBuilder store(path);
    store.add_run("k1", make_run_info(), "2026-01-01T00:00:00Z");
    for (const auto& name : names_) store.add_case("k1", make_case(name, "kornia.x.y"));
    fill(store, "k1", names_);
    return path;
  }

  MergeOptions options(std::vector<std::filesystem::path> stores) {
    MergeOptions o;
    o.stores = std::move(stores);
    o.out = dir_ / "snapshot.json";
    return o;
  }

  std::string refusal(const MergeOptions& o) {
    try {
      merge_stores(o);
    } catch (const UserError& e) {
      return e.what();
    }
    return "(merged)";
  }

  std::filesystem::path dir_;
  std::vector<std::string> names_{"linalg.svd", "color.rgb_to_gray", "filters.blur[odd]"};
};

TEST_F(MergeTest, WritesSortedClassifiedSnapshot) {
  auto o = options({complete_store()});
  o.kornia_json = dir_ / "export_support.json";
  nlohmann::json snapshot = merge_stores(o);
  std::string text = slurp(o.out);
  EXPECT_EQ(text, nlohmann::json::parse(text).dump(2) + "\n");  // sorted keys, 2-space indent

  const auto& header = snapshot["header"];
  EXPECT_EQ(header["tool"], "capmap 0.1.0");
  EXPECT_EQ(header["run_key"], "k1");
  EXPECT_EQ(header["versions"]["torch"], "2.13.0");
  EXPECT_EQ(header["library"]["revision"], "abc123");
  EXPECT_EQ(header["cores"], 2);
  EXPECT_EQ(header["complete"], true);
  EXPECT_EQ(header["missing"], 0);
  EXPECT_EQ(header["paths"], nlohmann::json(kPaths));
  EXPECT_EQ(header["generated_at"], "2026-01-02T03:04:05Z");  // newest record

  ASSERT_EQ(snapshot["cases"].size(), 3u);
  EXPECT_EQ(snapshot["cases"][0]["name"], "color.rgb_to_gray");
  EXPECT_EQ(snapshot["cases"][1]["name"], "filters.blur[odd]");
  EXPECT_EQ(snapshot["cases"][1]["variant"], "odd");
  const auto& svd = snapshot["cases"][2]["paths"]["onnx"];
  EXPECT_EQ(svd["status"], "export-fail");
  EXPECT_EQ(svd["page_status"], "fail");
  EXPECT_EQ(svd["category"], "missing-onnx-lowering");
  EXPECT_EQ(svd["cause"], "No ONNX lowering for torch.linalg.svd (aten._linalg_svd)");
  EXPECT_EQ(svd["detail"], kSvdMessage);
  EXPECT_EQ(svd["frames"][0], "kornia/geometry/linalg.py:10 in svd");
  EXPECT_FALSE(snapshot["cases"][2]["paths"]["eager"].contains("cause"));
  const auto& breaks = snapshot["cases"][0]["paths"]["compile"];
  EXPECT_EQ(breaks["page_status"], "ok-breaks");
  EXPECT_EQ(breaks["category"], "control-flow");
  EXPECT_EQ(breaks["break_reasons"][0]["category"], "control-flow");

  auto kornia = nlohmann::json::parse(slurp(*o.kornia_json));
  for (const char* key : {"device", "generated_at", "kornia", "onnx", "onnxruntime", "onnxscript",
                          "opset", "python", "revision", "torch", "cases"}) {
    EXPECT_TRUE(kornia.contains(key)) << key;
  }
  EXPECT_EQ(kornia["kornia"], "0.9.0");
  EXPECT_EQ(kornia["opset"], 18);
  EXPECT_EQ(kornia["cases"][2]["onnx"], "fail");
  EXPECT_EQ(kornia["cases"][2]["onnx_detail"],
            "No ONNX lowering for torch.linalg.svd (aten._linalg_svd)");
  EXPECT_EQ(kornia["cases"][0]["compile"], "ok-breaks");
  EXPECT_EQ(kornia["cases"][0]["graph_breaks"], 1);
}

TEST_F(MergeTest, ReMergeIsByteIdentical) {
  auto store = complete_store();
  auto first = options({store});
  auto second = options({store});
  second.out = dir_ / "again.json";
  merge_stores(first);
  merge_stores(second);
  EXPECT_EQ(slurp(first.out), slurp(second.out));
}

TEST_F(MergeTest, GenerationTimeHonoursSourceDateEpoch) {
  setenv("SOURCE_DATE_EPOCH", "86400", 1);
  auto snapshot = merge_stores(options({complete_store()}));
  unsetenv("SOURCE_DATE_EPOCH");
  EXPECT_EQ(snapshot["header"]["generated_at"], "1970-01-02T00:00:00Z");
}

TEST_F(MergeTest, MissingRecordRefusedAndNothingOverwritten) {
  auto path = complete_store();
  {
    StoreBuilder store(path);
    store.exec("DELETE FROM records WHERE case_name = 'linalg.svd' AND path = 'compile'");
  }
  auto o = options({path});
  { std::ofstream(o.out) << "previous snapshot\n"; }
  std::string message = refusal(o);
  EXPECT_EQ(message,
            "merge refused: 1 of 12 case × path records missing (linalg.svd compile); finish the "
            "run or merge with --force");
  EXPECT_EQ(slurp(o.out), "previous snapshot\n");

  o.force = true;
  auto snapshot = merge_stores(o);
  EXPECT_EQ(snapshot["header"]["complete"], false);
  EXPECT_EQ(snapshot["header"]["missing"], 1);
  const auto& compile = snapshot["cases"][2]["paths"]["compile"];
  EXPECT_EQ(compile["status"], "missing");
  EXPECT_EQ(compile["page_status"], "n/a");
  EXPECT_NE(slurp(o.out), "previous snapshot\n");
}

TEST_F(MergeTest, MixedRunKeysRefused) {
  auto a = complete_store("a.db");
  auto b = dir_ / "b.db";
  {
    StoreBuilder store(b);
    store.add_run("k0", make_run_info("2.12.0"), "2025-12-01T00:00:00Z");
    for (const auto& name : names_) store.add_case("k0", make_case(name, "kornia.x.y"));
    fill(store, "k0", names_);
  }
  std::string message = refusal(options({a, b}));
  EXPECT_NE(message.find("records come from different run keys"), std::string::npos) << message;
  EXPECT_NE(message.find("b.db holds run k0 (torch 2.12.0 vs 2.13.0), not k1"), std::string::npos)
      << message;
  EXPECT_FALSE(std::filesystem::exists(dir_ / "snapshot.json"));
}

// Shard i/n owns the cases whose FNV-1a 64 of the name mod n is i-1.
std::vector<std::string> owned(const std::vector<std::string>& names, int shard, int count) {
  std::vector<std::string> out;
  for (const auto& name : names) {
    if (fnv1a64(name) % static_cast<std::uint64_t>(count) ==
        static_cast<std::uint64_t>(shard - 1)) {
      out.push_back(name);
    }
  }
  return out;
}

TEST_F(MergeTest, ShardsMergeIntoOneSnapshot) {
  std::vector<std::filesystem::path> stores;
  for (int shard = 1; shard <= 2; ++shard) {
    stores.push_back(dir_ / ("shard" + std::to_string(shard) + ".db"));
    StoreBuilder store(stores.back());
    store.add_run("k1", make_run_info(), "2026-01-01T00:00:00Z");
    for (const auto& name : names_) store.add_case("k1", make_case(name, "kornia.x.y"));
    fill(store, "k1", owned(names_, shard, 2), shard, 2);
  }
  auto snapshot = merge_stores(options(stores));
  EXPECT_EQ(snapshot["header"]["complete"], true);
  EXPECT_EQ(snapshot["cases"].size(), 3u);
}

TEST_F(MergeTest, OverlappingShardsRefused) {
  std::vector<std::filesystem::path> stores;
  for (const char* file : {"a.db", "b.db"}) {
    stores.push_back(dir_ / file);
    StoreBuilder store(stores.back());
    store.add_run("k1", make_run_info(), "2026-01-01T00:00:00Z");
    for (const auto& name : names_) store.add_case("k1", make_case(name, "kornia.x.y"));
    fill(store, "k1", names_);
  }
  std::string message = refusal(options(stores));
  EXPECT_NE(message.find("shards overlap: shard 1/1 is in both"), std::string::npos) << message;
}

TEST_F(MergeTest, ShardGapRefused) {
  auto path = dir_ / "one.db";
  {
    StoreBuilder store(path);
    store.add_run("k1", make_run_info(), "2026-01-01T00:00:00Z");
    for (const auto& name : names_) store.add_case("k1", make_case(name, "kornia.x.y"));
    fill(store, "k1", owned(names_, 1, 3), 1, 3);
  }
  std::string message = refusal(options({path}));
  EXPECT_NE(message.find("merge refused: shards leave a gap: 2 of 3 missing (2/3, 3/3)"),
            std::string::npos)
      << message;
}

TEST_F(MergeTest, ShardGapCarriedFromABaseline) {
  // A survey refreshed one shard at a time: shard 1/3 measured again, the rest carried.
  auto baseline_options = options({complete_store("full.db")});
  baseline_options.out = dir_ / "baseline.json";
  auto baseline = merge_stores(baseline_options);
  auto path = dir_ / "one.db";
  const auto measured = owned(names_, 1, 3);
  {
    StoreBuilder store(path);
    store.add_run("k1", make_run_info(), "2026-01-02T00:00:00Z");
    for (const auto& name : names_) store.add_case("k1", make_case(name, "kornia.x.y"));
    fill(store, "k1", measured, 1, 3);
  }
  auto o = options({path});
  o.baseline = baseline_options.out;
  auto snapshot = merge_stores(o);
  EXPECT_EQ(snapshot["header"]["complete"], true);
  EXPECT_EQ(snapshot["header"]["missing"], 0);
  EXPECT_TRUE(snapshot["header"]["selection"].is_null() ||
              snapshot["header"]["selection"]["shard"].is_null());
  ASSERT_EQ(snapshot["cases"].size(), names_.size());
  std::size_t carried = 0;
  for (const auto& entry : snapshot["cases"]) {
    bool fresh = std::find(measured.begin(), measured.end(), entry["name"]) != measured.end();
    for (const auto& [path_name, record] : entry["paths"].items()) {
      EXPECT_EQ(record.value("carried", false), !fresh) << entry["name"] << " " << path_name;
    }
    carried += !fresh;
  }
  EXPECT_GT(carried, 0u);
  EXPECT_LT(carried, names_.size());

  // A case of a missing shard that the baseline lacks is a missing record: refused.
  for (auto& entry : baseline["cases"]) {
    if (std::find(measured.begin(), measured.end(), entry["name"]) == measured.end()) {
      entry["paths"].erase("onnx");
    }
  }
  std::ofstream(dir_ / "baseline.json") << baseline.dump();
  std::filesystem::remove(o.out);
  std::string message = refusal(o);
  EXPECT_NE(message.find("merge refused"), std::string::npos) << message;
  EXPECT_NE(message.find("onnx"), std::string::npos) << message;
}

TEST_F(MergeTest, SkippedCaseKeptWithItsReason) {
  auto path = complete_store();
  {
    StoreBuilder store(path);
    auto skipped = make_case("sensors.camera", "kornia.sensors");
    skipped["skip"] = "needs a camera";
    store.add_case("k1", skipped);
  }
  auto snapshot = merge_stores(options({path}));
  ASSERT_EQ(snapshot["cases"].size(), 4u);
  const auto& camera = snapshot["cases"][3];
  EXPECT_EQ(camera["name"], "sensors.camera");
  for (const auto& path_name : kPaths) {
    EXPECT_EQ(camera["paths"][path_name]["page_status"], "n/a");
    EXPECT_EQ(camera["paths"][path_name]["cause"], "Not run: needs a camera");
  }
}

TEST_F(MergeTest, EngineStatusesShownAsWhatTheyAre) {
  auto path = complete_store();
  {
    StoreBuilder store(path);
    store.exec("DELETE FROM records WHERE case_name = 'filters.blur[odd]' AND path != 'eager'");
    store.add_record("k1", "filters.blur[odd]", "onnx",
                     {{"status", "crashed"},
                      {"signal", "SIGSEGV"},
                      {"message", "the child process died from SIGSEGV during the onnx path"}});
    store.add_record(
        "k1", "filters.blur[odd]", "export",
        {{"status", "timeout"},
         {"message", "the export path ran past the time limit of 5 s and was killed"}});
    store.add_record("k1", "filters.blur[odd]", "compile",
                     {{"status", "oom"}, {"message", "the compile path used too much memory"}});
  }
  auto snapshot = merge_stores(options({path}));
  const auto& paths = snapshot["cases"][1]["paths"];
  EXPECT_EQ(paths["onnx"]["page_status"], "crashed");
  EXPECT_EQ(paths["onnx"]["cause"], "Crashed: the process died from SIGSEGV");
  EXPECT_EQ(paths["export"]["page_status"], "timeout");
  EXPECT_EQ(paths["export"]["category"], "timeout");
  EXPECT_EQ(paths["compile"]["page_status"], "oom");
  EXPECT_EQ(paths["compile"]["category"], "oom");
}

TEST_F(MergeTest, UserRulesComeFirst) {
  auto rules = dir_ / "mine.toml";
  std::ofstream(rules) << "[[rule]]\nid = \"ours\"\nmessage = \"_linalg_svd\"\n"
                          "category = \"torch-bug\"\ncause = \"Known SVD bug\"\n";
  auto o = options({complete_store()});
  o.rules = {rules};
  auto snapshot = merge_stores(o);
  EXPECT_EQ(snapshot["cases"][2]["paths"]["onnx"]["cause"], "Known SVD bug");
}

TEST_F(MergeTest, NotAStoreIsOneClearLine) {
  auto bogus = dir_ / "bogus.db";
  std::ofstream(bogus) << "this is not sqlite";
  EXPECT_EQ(refusal(options({bogus})), bogus.string() + ": not a capmap results store");
  EXPECT_EQ(refusal(options({dir_ / "absent.db"})),
            (dir_ / "absent.db").string() + ": no such store");
}

// Run info as a worker with one plug-in path beyond the built-in four describes it.
nlohmann::json described_run_info() {
  nlohmann::json info = make_run_info();
  nlohmann::json paths = path_info_list_json(builtin_paths());
  paths.push_back({{"name", "toy"},
                   {"label", "Toy exporter"},
                   {"short", "toy"},
                   {"order", 15},
                   {"statuses", {{"ok", "ok"}, {"approximate", "ok-unverified"}}}});
  info["path_info"] = paths;
  return info;
}

TEST_F(MergeTest, PathsComeInTheOrderAndWithTheStatusesTheirDescriptionsGive) {
  auto file = dir_ / "results.db";
  {
    StoreBuilder store(file);
    store.add_run("k1", described_run_info(), "2026-01-01T00:00:00Z");
    store.add_case("k1", make_case("a", "kornia.x"));
    store.add_shard("k1", 1, 1, {"compile", "toy", "eager"});
    store.add_record("k1", "a", "eager", {{"status", "ok"}, {"seconds", 0.1}});
    store.add_record("k1", "a", "compile", {{"status", "ok"}, {"seconds", 0.1}});
    store.add_record("k1", "a", "toy", {{"status", "approximate"}, {"seconds", 0.1}});
  }
  nlohmann::json snapshot = merge_stores(options({file}));
  const auto& header = snapshot["header"];
  EXPECT_EQ(header["paths"], nlohmann::json({"eager", "toy", "compile"}));
  EXPECT_EQ(header["path_info"]["toy"]["label"], "Toy exporter");
  EXPECT_EQ(header["path_info"]["eager"]["reference"], true);
  EXPECT_FALSE(header["path_info"].contains("onnx"));  // not probed
  // Unknown to merge's own table (which says fail): the path's description decides.
  EXPECT_EQ(snapshot["cases"][0]["paths"]["toy"]["page_status"], "ok-unverified");
}

TEST_F(MergeTest, AStoreWithoutPathDescriptionsMergesAsBefore) {
  nlohmann::json snapshot = merge_stores(options({complete_store()}));
  EXPECT_EQ(snapshot["header"]["paths"], nlohmann::json(kPaths));
  EXPECT_FALSE(snapshot["header"].contains("path_info"));
}

}  // namespace
}  // namespace capmap
