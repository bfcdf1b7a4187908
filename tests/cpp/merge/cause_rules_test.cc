#include "merge/cause_rules.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/user_error.h"

namespace capmap {
namespace {

// Real messages from small torch / onnx / onnxruntime programs, written by
// make_cause_examples.py, plus the engine's own messages.
nlohmann::json examples() {
  std::ifstream in(std::string(CAPMAP_SOURCE_DIR) + "/tests/cpp/merge/cause_examples.json");
  return nlohmann::json::parse(in);
}

Cause classify(const CauseRules& rules, const nlohmann::json& e) {
  std::string path = e["path"], status = e["status"], type = e["error_type"], gb = e["gb_id"],
              message = e["message"];
  return rules.classify({path, status, type, gb, message});
}

TEST(CauseRules, EveryExampleGetsTheCategoryItDemonstrates) {
  CauseRules rules = CauseRules::load({});
  auto all = examples();
  ASSERT_GE(all.size(), 20u);
  for (const auto& e : all) {
    Cause cause = classify(rules, e);
    EXPECT_EQ(cause.category, e["category"]) << e["scenario"] << ": " << e["message"];
    EXPECT_FALSE(cause.rule_id.empty()) << e["scenario"];
    EXPECT_EQ(cause.text.find('{'), std::string::npos) << cause.text;
  }
}

TEST(CauseRules, EveryShippedRuleIsExercisedByAStoredExample) {
  CauseRules rules = CauseRules::load({});
  std::set<std::string> hit;
  for (const auto& e : examples()) hit.insert(classify(rules, e).rule_id);
  for (const auto& id : rules.rule_ids()) {
    EXPECT_TRUE(hit.count(id)) << "no stored example exercises rule '" << id << "'";
  }
}

// A graph that takes its inputs and computes nothing from them is not one that takes none:
// the page says which, on every path (torch.compile captures too, it does not export).
TEST(CauseRules, AConstantSaysWhetherAnyInputReachedTheGraph) {
  CauseRules rules = CauseRules::load({});
  std::map<std::string, std::string> causes;
  for (const auto& e : examples()) causes[e["scenario"]] = classify(rules, e).text;
  EXPECT_EQ(causes["survey:eye_like"],
            "Captured as a constant: the graph takes its inputs but computes nothing from them");
  EXPECT_EQ(causes["run:box_kernel[declared]"],
            "Captured as a constant: no input reaches the graph");
}

TEST(CauseRules, AtenNamesBecomePublicFunctions) {
  CauseRules rules = CauseRules::load({});
  std::map<std::string, std::string> causes;
  for (const auto& e : examples()) causes[e["scenario"]] = classify(rules, e).text;
  EXPECT_EQ(causes["svd"], "No ONNX lowering for torch.linalg.svd (aten._linalg_svd)");
  EXPECT_EQ(causes["solve"], "No ONNX lowering for torch.linalg.solve (aten._linalg_solve_ex)");
  EXPECT_EQ(causes["lstsq"],
            "torch.linalg.lstsq returns a tensor whose shape depends on the input values");
  EXPECT_EQ(causes["time"],
            "Calls `time.time`, a Python builtin or C extension that dynamo cannot trace");
  EXPECT_EQ(causes["det-float64"], "ONNX Runtime has no Det kernel for this element type");
}

// Messages stored by real capmap runs: the cause names the library's object or the public
// function, and says what to change.
TEST(CauseRules, StoredRunMessagesGetCausesThatSayWhatToDo) {
  CauseRules rules = CauseRules::load({});
  std::map<std::string, std::string> causes;
  for (const auto& e : examples()) causes[e["scenario"]] = classify(rules, e).text;
  EXPECT_EQ(causes["survey:otsu_threshold"],
            "No ONNX lowering for torch.nextafter (prims.nextafter); compute it from other torch "
            "ops where the model is exported");
  EXPECT_EQ(causes["survey:PinholeModel"],
            "Takes a kornia.geometry.vector.Vector3 argument, which torch.export cannot flatten; "
            "register the class as a pytree (torch.utils._pytree.register_pytree_node) or pass its "
            "tensors");
  EXPECT_EQ(causes["survey:KMeans[fit]"],
            "Calls torch.manual_seed() inside the traced code, which dynamo leaves to Python; seed "
            "the generator before calling the operator");
  EXPECT_NE(causes["survey:ParametrizedLine.intersect"].find("into 2 graph inputs"),
            std::string::npos)
      << causes["survey:ParametrizedLine.intersect"];
}

// The dynamic-shape paths' messages: the cause names the pinned size or the kept condition.
// Where torch fails on a value the library made earlier, the worker's finding (the message's
// second line) decides the cause: a `.data` read is the library's, never a torch bug to report.
TEST(CauseRules, AValueMadeEarlierIsBlamedOnTheLineThatMadeIt) {
  CauseRules rules = CauseRules::load({});
  std::map<std::string, Cause> causes;
  for (const auto& e : examples()) {
    causes[e["scenario"].get<std::string>() + " " + e["path"].get<std::string>()] =
        classify(rules, e);
  }
  EXPECT_EQ(causes["run:spatial_sum export"].rule_id, "data-dependent-tolist");
  EXPECT_NE(causes["run:spatial_sum export"].remedy.find("list(range("), std::string::npos);
  for (const char* key :
       {"run:DataShortcut export", "run:DataShortcut onnx", "run:DataAssignment export"}) {
    const Cause& cause = causes[key];
    EXPECT_EQ(cause.rule_id, "data-of-traced-tensor") << key;
    EXPECT_NE(cause.remedy.find(".detach()"), std::string::npos) << key;
    EXPECT_EQ(cause.remedy.find("report"), std::string::npos) << key;
    EXPECT_NE(cause.category, "torch-bug") << key;
  }
  EXPECT_EQ(causes["run:DataAssignment compile"].rule_id, "data-assignment-traced");
}

TEST(CauseRules, DynamicShapeCausesNameThePinnedSize) {
  CauseRules rules = CauseRules::load({});
  std::map<std::string, std::string> causes;
  for (const auto& e : examples()) causes[e["scenario"]] = classify(rules, e).text;
  EXPECT_EQ(causes["run:two_only"],
            "Export pinned a size meant to vary (input 0 dim 0 (batch) = 2): the code makes a "
            "Python decision on it");
  EXPECT_EQ(causes["run:rows_of_six"],
            "The program keeps a condition on sizes from its trace (tensors_0.size()[1] * "
            "tensors_0.size()[0] == 6) and refuses the other sizes");
  EXPECT_EQ(causes["export-dynamic-constraint"],
            "Export refuses to keep L['args'][0].size()[0] dynamic: the code specializes it");
  // Seen on the Kornia quick tier with all seven paths (one case may fail on several of them).
  for (const auto& e : examples()) {
    causes[e["scenario"].get<std::string>() + " " + e["path"].get<std::string>()] =
        classify(rules, e).text;
  }
  EXPECT_EQ(causes["survey:harris_response export-dynamic"],
            "The program keeps a condition on sizes from its trace (tensors_0.size()[0] == 1) and "
            "refuses the other sizes");
  EXPECT_EQ(causes["survey:gaussian_blur2d onnx-dynamic"],
            "The ONNX exporter needs a size as a constant operator attribute (a kernel size, a "
            "pad), but it is dynamic here");
  EXPECT_EQ(causes["survey:match_mnn aoti"],
            "A data-dependent size (u3) is created while compiling and lost before the outputs (a "
            "torch bug around nonzero/unique-like ops)");
  EXPECT_EQ(causes["survey:RandomAffine aoti"],
            "The program writes in place into a slice of a tensor (copy_ into a view); "
            "AOTInductor's compile rejects it");
  EXPECT_EQ(causes["survey:RandomAffine onnx-dynamic"],
            "The ONNX graph keeps a batch size from its trace: GridSample gets a grid of batch 1 "
            "for images of batch 2");
}

// A dynamic path's mismatch names the size it compared at first; its cause is the static one's.
TEST(CauseRules, AMismatchAtAnotherSizeHasTheStaticMismatchsCause) {
  CauseRules rules = CauseRules::load({});
  const std::string detail =
      "output 0: 3 of 96 values beyond tolerance (max |diff| 0.01; allowed 0.0002 + 0.001·|eager|)";
  Cause at_traced = rules.classify({"export", "mismatch", "", "", detail});
  for (const char* path : {"export-dynamic", "onnx-dynamic"}) {
    for (const char* size : {"at traced: ", "at batch ×2: ", "at batch ×3 and spatial +8: "}) {
      Cause dynamic = rules.classify({path, "mismatch", "", "", std::string(size) + detail});
      EXPECT_EQ(dynamic.text, at_traced.text) << path << " " << size;
      EXPECT_EQ(dynamic.category, "numeric-mismatch");
    }
  }
  Cause shape = rules.classify(
      {"export-dynamic", "mismatch", "", "", "at batch ×2: output 1: shape [4, 3], eager [2, 3]"});
  EXPECT_EQ(shape.rule_id, "mismatch-shape");
}

TEST(CauseRules, AnAotiPackageThatCannotBeBuiltIsTheCompilersFailure) {
  CauseRules rules = CauseRules::load({});
  for (const auto& e : examples()) {
    if (e["scenario"] != "aoti-no-compiler") continue;
    Cause cause = classify(rules, e);
    EXPECT_EQ(cause.text, "Inductor's generated C++ failed to build");
    EXPECT_EQ(cause.category, "torch-bug");
    return;
  }
  FAIL() << "no aoti-no-compiler example";
}

TEST(CauseRules, UnknownAtenNameFallsBackToTorchOps) {
  CauseRules rules;
  rules.add_file(
      "[[rule]]\nid = \"x\"\nmessage = \"op='aten\\\\.(\\\\w+)'\"\n"
      "category = \"missing-onnx-lowering\"\ncause = \"{function:1}\"\n",
      "t.toml");
  EXPECT_EQ(rules.classify({"onnx", "export-fail", "", "", "op='aten.frobnicate'"}).text,
            "torch.ops.aten.frobnicate");
}

TEST(CauseRules, NoMatchIsUnclassified) {
  CauseRules rules = CauseRules::load({});
  Cause cause = rules.classify({"onnx", "export-fail", "ValueError", "", "something new"});
  EXPECT_EQ(cause.category, "unclassified");
  EXPECT_EQ(cause.text, "Unclassified failure (ValueError)");
  EXPECT_TRUE(cause.rule_id.empty());
}

std::string load_error(const std::string& text) {
  try {
    CauseRules rules;
    rules.add_file(text, "my.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(CauseRules, BadRulesFileIsOneLineNamingFileAndRule) {
  EXPECT_EQ(
      load_error("[[rule]]\nid = \"a\"\nmessage = \"x\"\ncategory = \"weird\"\ncause = \"c\"\n"),
      "my.toml: rule 'a': unknown category 'weird' (known: missing-onnx-lowering, "
      "missing-executorch-lowering, data-dependent, "
      "control-flow, dynamic-shape, unsupported-python, random-generator, mutation, dtype, "
      "numeric-mismatch, timeout, crash, oom, torch-bug, eager-failure, not-applicable, "
      "unclassified)");
  EXPECT_EQ(
      load_error("[[rule]]\nid = \"b\"\nmessage = \"(\"\ncategory = \"dtype\"\ncause = \"c\"\n"),
      "my.toml: rule 'b': bad message pattern: missing ): (");
  EXPECT_EQ(load_error("[[rule]]\nid = \"c\"\ncategory = \"dtype\"\ncause = \"c\"\n"),
            "my.toml: rule 'c': matches everything; give at least one condition");
  EXPECT_EQ(
      load_error("[[rule]]\nid = \"d\"\nmesage = \"x\"\ncategory = \"dtype\"\ncause = \"c\"\n"),
      "my.toml: rule 'd': unknown key 'mesage' (a rule's keys: id, category, cause, remedy, paths, "
      "statuses, error_type, gb_id, message)");
  EXPECT_EQ(load_error("[[rule]]\nid = \"e\"\nmessage = \"x\"\ncategory = \"dtype\"\n"),
            "my.toml: rule 'e': missing 'cause' (every rule needs id, category and cause, and at "
            "least one of paths, statuses, error_type, gb_id, message)");
  std::string parse = load_error("[[rule]\nid = 1\n");
  EXPECT_EQ(parse.rfind("my.toml:1: ", 0), 0u) << parse;
  EXPECT_EQ(parse.find('\n'), std::string::npos) << parse;
}

}  // namespace
}  // namespace capmap
