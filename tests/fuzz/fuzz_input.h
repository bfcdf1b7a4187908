#pragma once
// What every fuzz target shares: the contract it checks. A reader given bad
// input throws UserError with one line that names the input (main() prints it
// and exits 2); any other exception escapes LLVMFuzzerTestOneInput, and
// libFuzzer (or the replay driver) reports it as a finding, like a sanitizer
// report or a crash.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "common/user_error.h"

namespace capmap::fuzz {

// The name the targets give their input; every refusal must mention it.
inline constexpr const char* kInputName = "fuzz-input.json";

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Runs BODY; a UserError that names NAME is the reader's refusal, as it should be.
template <typename Body>
void expect_refusal_or_success(const std::string& name, Body&& body) {
  try {
    body();
  } catch (const UserError& e) {
    std::string_view what = e.what();
    if (what.find(name) == std::string_view::npos) {
      std::fprintf(stderr, "refusal does not name the input %s: %s\n", name.c_str(), e.what());
      std::abort();
    }
  }
}

}  // namespace capmap::fuzz
