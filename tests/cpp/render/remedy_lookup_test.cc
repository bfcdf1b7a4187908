#include "render/remedy_lookup.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

const RemedyTemplates kTemplates = {
    {"No ONNX lowering for {function:1} (aten.{1})", "Watch the tracker for {function:1}."},
    {"Mutates `{1}` in place", "Register {1} as a buffer."},
    {"Python `if` on a tensor value", "Use torch.where."},
    {"Needs {2}", "Uses {3}."},
};

TEST(RemedyLookup, FillsTheRemedyFromTheCauseFields) {
  EXPECT_EQ(remedy_for("No ONNX lowering for torch.linalg.svd (aten._linalg_svd)", kTemplates),
            "Watch the tracker for torch.linalg.svd.");
  EXPECT_EQ(remedy_for("Mutates `lifted_tensor_0` in place", kTemplates),
            "Register lifted_tensor_0 as a buffer.");
  EXPECT_EQ(remedy_for("Python `if` on a tensor value", kTemplates), "Use torch.where.");
}

TEST(RemedyLookup, NoMatchOrAMissingFieldGivesNothing) {
  EXPECT_EQ(remedy_for("Python `if` on a tensor value, twice", kTemplates), "");
  EXPECT_EQ(remedy_for("Something else", kTemplates), "");
  EXPECT_EQ(remedy_for("Needs weights", kTemplates), "");
}

}  // namespace
}  // namespace capmap
