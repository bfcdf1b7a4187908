#include "run/byte_size.h"

#include <gtest/gtest.h>

#include "common/user_error.h"

namespace capmap {
namespace {

TEST(ByteSize, ParsesBinaryUnits) {
  EXPECT_EQ(parse_byte_size("8G"), 8ull << 30);
  EXPECT_EQ(parse_byte_size("8g"), 8ull << 30);
  EXPECT_EQ(parse_byte_size("512M"), 512ull << 20);
  EXPECT_EQ(parse_byte_size("512MiB"), 512ull << 20);
  EXPECT_EQ(parse_byte_size("64KB"), 64ull << 10);
  EXPECT_EQ(parse_byte_size("1.5G"), 3ull << 29);
  EXPECT_EQ(parse_byte_size("2T"), 2ull << 40);
  EXPECT_EQ(parse_byte_size("4096"), 4096u);
  EXPECT_EQ(parse_byte_size("100B"), 100u);
}

TEST(ByteSize, RejectsWhatIsNotASize) {
  for (auto text : {"", "G", "8X", "8GG", "-1G", "0", "8 Gigs", "1e3"}) {
    EXPECT_THROW(parse_byte_size(text), UserError) << text;
  }
}

TEST(ByteSize, FormatsForMessages) {
  EXPECT_EQ(format_byte_size(100), "100 B");
  EXPECT_EQ(format_byte_size(3ull << 29), "1.5 GiB");
  EXPECT_EQ(format_byte_size(300ull << 20), "300.0 MiB");
}

}  // namespace
}  // namespace capmap
