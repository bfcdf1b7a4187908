// fmt's compiled part (what libfmt.so holds), built into capmap so that the
// binary does not need the shared library at run time.
#include <fmt/format-inl.h>

// The locale helpers are templates the library instantiates for char; the
// engine formats numbers with locale-aware specifiers, so it needs them too.
FMT_BEGIN_NAMESPACE
namespace detail {
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;
}  // namespace detail
FMT_END_NAMESPACE
