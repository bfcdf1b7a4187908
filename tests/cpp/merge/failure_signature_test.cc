#include "merge/failure_signature.h"

#include <gtest/gtest.h>

namespace capmap {
namespace {

TEST(FailureSignature, BlanksWhatVariesBetweenCases) {
  EXPECT_EQ(failure_signature("Could not guard on data-dependent expression Eq(u0, 1) (unhinted)\n"
                              "more detail"),
            "Could not guard on data-dependent expression Eq(u<n>, <n>) (unhinted)");
  EXPECT_EQ(failure_signature("  shape '[2, 3]' is invalid for input of size 7"),
            "shape '_' is invalid for input of size <n>");
  EXPECT_EQ(failure_signature("error in /usr/lib/python3/site-packages/torch/x.py:12 at 0x7f00ab"),
            "error in <path> at <addr>");
}

TEST(FailureSignature, AnApostropheInAWordOpensNoQuotation) {
  EXPECT_EQ(failure_signature("Can't convert <class 'numpy.ndindex'> to a tensor"),
            "Can't convert <class '_'> to a tensor");
  EXPECT_EQ(failure_signature("It appears that you're trying to get value out of a tracing tensor "
                              "with aten.item.default"),
            "It appears that you're trying to get value out of a tracing tensor with "
            "aten.item.default");
  EXPECT_EQ(failure_signature("('a','b') don't match"), "('_','_') don't match");
}

TEST(FailureSignature, SameShapeSameGroup) {
  EXPECT_EQ(failure_signature("expected 3 channels, got 4 in `rgb_to_hsv`"),
            failure_signature("expected 1 channels, got 2 in `gray_to_rgb`"));
  EXPECT_NE(failure_signature("expected 3 channels"), failure_signature("expected 3 dims"));
}

}  // namespace
}  // namespace capmap
