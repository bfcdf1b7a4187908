#include "diff/snapshot_diff.h"

#include <gtest/gtest.h>

#include "diff/diff_report.h"

namespace capmap {
namespace {

nlohmann::json path(const std::string& status, const std::string& page,
                    const std::string& cause = "", int breaks = -1) {
  nlohmann::json p = {{"status", status}, {"page_status", page}};
  if (!cause.empty()) p["cause"] = cause;
  if (breaks >= 0) p["graph_breaks"] = breaks;
  return p;
}

nlohmann::json snapshot(const std::string& torch, nlohmann::json cases) {
  return {{"schema_version", 1},
          {"header",
           {{"versions", {{"torch", torch}, {"onnx", "1.23.2"}}},
            {"generated_at", torch == "2.12.0" ? "2026-01-01T00:00:00Z" : "2026-02-01T00:00:00Z"},
            {"paths", {"onnx", "export", "compile"}}}},
          {"cases", std::move(cases)}};
}

nlohmann::json old_snapshot() {
  return snapshot(
      "2.12.0",
      {{{"name", "a.regressed"}, {"paths", {{"onnx", path("ok", "ok")}}}},
       {{"name", "b.fixed"}, {"paths", {{"onnx", path("export-fail", "fail", "No lowering")}}}},
       {{"name", "c.cause"}, {"paths", {{"export", path("fail", "fail", "Data-dependent")}}}},
       {{"name", "d.breaks"}, {"paths", {{"compile", path("ok-breaks", "ok-breaks", "", 1)}}}},
       {{"name", "e.removed"}, {"paths", {{"onnx", path("ok", "ok")}}}},
       {{"name", "f.same"}, {"paths", {{"onnx", path("mismatch", "mismatch", "Differs")}}}},
       {{"name", "g.status"}, {"paths", {{"onnx", path("ok", "ok")}}}}});
}

nlohmann::json new_snapshot() {
  return snapshot(
      "2.13.0",
      {{{"name", "a.regressed"}, {"paths", {{"onnx", path("timeout", "timeout", "Timed out")}}}},
       {{"name", "b.fixed"}, {"paths", {{"onnx", path("ok", "ok")}}}},
       {{"name", "c.cause"}, {"paths", {{"export", path("crashed", "crashed", "Crashed")}}}},
       {{"name", "d.breaks"}, {"paths", {{"compile", path("ok-breaks", "ok-breaks", "", 3)}}}},
       {{"name", "f.same"}, {"paths", {{"onnx", path("mismatch", "mismatch", "Differs")}}}},
       {{"name", "g.status"}, {"paths", {{"onnx", path("ok-unverified", "ok-unverified")}}}},
       {{"name", "h.new"}, {"paths", {{"onnx", path("ok", "ok")}}}}});
}

TEST(SnapshotDiff, FindsEveryKindOfChange) {
  SnapshotDiff diff = diff_snapshots(old_snapshot(), new_snapshot());
  ASSERT_EQ(diff.header.size(), 1u);  // generated_at is not a change
  EXPECT_EQ(diff.header[0].key, "versions.torch");
  EXPECT_EQ(diff.header[0].old_value, "2.12.0");
  EXPECT_EQ(diff.header[0].new_value, "2.13.0");

  ASSERT_EQ(diff.changes.size(), 7u);
  auto expect = [&](std::size_t i, ChangeKind kind, const std::string& name) {
    EXPECT_EQ(diff.changes[i].kind, kind) << name;
    EXPECT_EQ(diff.changes[i].case_name, name);
  };
  expect(0, ChangeKind::kRegression, "a.regressed");
  expect(1, ChangeKind::kFix, "b.fixed");
  expect(2, ChangeKind::kCauseChanged, "c.cause");
  expect(3, ChangeKind::kBreaksChanged, "d.breaks");
  expect(4, ChangeKind::kRemovedCase, "e.removed");
  expect(5, ChangeKind::kStatusChanged, "g.status");
  expect(6, ChangeKind::kNewCase, "h.new");
  EXPECT_EQ(diff.changes[0].new_cause, "Timed out");
  EXPECT_EQ(diff.changes[3].old_breaks, 1);
  EXPECT_EQ(diff.changes[3].new_breaks, 3);
  EXPECT_EQ(diff.count(ChangeKind::kRegression), 1u);
}

// ok in `seconds`, then a timeout at `limit`.
SnapshotDiff timed_out(double seconds, double limit) {
  nlohmann::json was = path("ok", "ok"), is = path("timeout", "timeout", "Timed out");
  was["seconds"] = seconds;
  is["limit_seconds"] = limit;
  return diff_snapshots(snapshot("2.13.0", {{{"name", "slow"}, {"paths", {{"compile", was}}}}}),
                        snapshot("2.13.0", {{{"name", "slow"}, {"paths", {{"compile", is}}}}}));
}

TEST(SnapshotDiff, ATimeoutUnderTenTimesTheCapturesSecondsIsNotARegression) {
  // 300 s before, killed at 859 s (the limit's cap): maybe only a slower machine.
  SnapshotDiff slow = timed_out(300, 859);
  ASSERT_EQ(slow.changes.size(), 1u);
  EXPECT_EQ(slow.changes[0].kind, ChangeKind::kSlowTimeout);
  EXPECT_EQ(slow.count(ChangeKind::kRegression), 0u);
  EXPECT_EQ(slow.changes[0].old_seconds, 300);
  EXPECT_EQ(slow.changes[0].new_limit_seconds, 859);
  std::string md = diff_as_markdown(slow);
  EXPECT_EQ(md.rfind("### ⚠️ capmap: no regressions; 1 timeout of a slow capture", 0), 0u)
      << md;
  EXPECT_NE(md.find("| `slow` | compile | ok in 300 s → timeout at 859 s, under 10 × as long"),
            std::string::npos)
      << md;
  EXPECT_NE(diff_as_text(slow).find("Summary: 1 slow timeouts\n"), std::string::npos);
  nlohmann::json json = diff_as_json(slow);
  EXPECT_EQ(json["counts"]["slow_timeouts"], 1);
  EXPECT_EQ(json["slow_timeouts"][0]["old_seconds"], 300);
  EXPECT_EQ(json["slow_timeouts"][0]["new_limit_seconds"], 859);
  EXPECT_EQ(json["counts"]["regressions"], 0);

  // 2 s before, still running at 420 s: 200 × as long is the capture, not the machine.
  SnapshotDiff hang = timed_out(2, 420);
  ASSERT_EQ(hang.changes.size(), 1u);
  EXPECT_EQ(hang.changes[0].kind, ChangeKind::kRegression);
  // Exactly ten times is a regression too.
  EXPECT_EQ(timed_out(42, 420).changes[0].kind, ChangeKind::kRegression);
}

TEST(SnapshotDiff, IdenticalSnapshotsHaveNoChanges) {
  SnapshotDiff diff = diff_snapshots(new_snapshot(), new_snapshot());
  EXPECT_TRUE(diff.changes.empty());
  EXPECT_TRUE(diff.header.empty());
  EXPECT_EQ(diff_as_text(diff), "Summary: no changes\n");
}

TEST(SnapshotDiff, ExcludedNamesCompareByNameAndReasonNotByTheirLines) {
  auto with_excludes = [](nlohmann::json excludes) {
    nlohmann::json s = new_snapshot();
    s["header"]["excludes"] = std::move(excludes);
    return s;
  };
  nlohmann::json a = {{{"name", "kornia.io"}, {"reason", "file I/O"}, {"where", "x.py:10"}},
                      {{"name", "kornia.onnx"}, {"reason", "runs ONNX"}, {"where", "x.py:11"}}};
  nlohmann::json moved = a;
  moved[0]["where"] = "x.py:14";  // lines added above it in the registry
  moved[1]["where"] = "x.py:15";
  EXPECT_TRUE(diff_snapshots(with_excludes(a), with_excludes(moved)).header.empty());

  nlohmann::json edited = moved;
  edited[1]["reason"] = "runs or edits ONNX models";
  edited.push_back({{"name", "kornia.to_jax"}, {"reason", "transpiles"}, {"where", "x.py:20"}});
  auto diff = diff_snapshots(with_excludes(a), with_excludes(edited));
  ASSERT_EQ(diff.header.size(), 2u);
  EXPECT_EQ(diff.header[0].key, "excludes.kornia.onnx");
  EXPECT_EQ(diff.header[0].new_value, "runs or edits ONNX models");
  EXPECT_EQ(diff.header[1].key, "excludes.kornia.to_jax");
  EXPECT_EQ(diff.header[1].old_value, "(none)");
}

TEST(SnapshotDiff, SnapshotsFromAnotherCpuSaySoInTheHeader) {
  nlohmann::json amd = new_snapshot(), intel = new_snapshot();
  amd["header"]["machine"] = {{"vendor", "AuthenticAMD"}, {"torch_isa", "AVX512"}, {"threads", 1}};
  intel["header"]["machine"] = {{"vendor", "GenuineIntel"}, {"torch_isa", "AVX2"}, {"threads", 1}};
  auto diff = diff_snapshots(amd, intel);
  ASSERT_EQ(diff.header.size(), 2u);
  EXPECT_EQ(diff.header[0].key, "machine.torch_isa");
  EXPECT_EQ(diff.header[1].key, "machine.vendor");
  EXPECT_NE(diff_as_text(diff).find("  machine.torch_isa: AVX512 → AVX2\n"), std::string::npos);
  EXPECT_TRUE(diff.changes.empty());  // provenance: no cell changed with it
}

// A column added to a survey (the executorch path) is one header line, not one per field the
// path declares; a field of a path both sides describe is still its own line.
TEST(SnapshotDiff, APathOnlyOneSideDescribesIsOneHeaderLine) {
  nlohmann::json before = new_snapshot(), after = new_snapshot();
  nlohmann::json onnx = {{"label", "ONNX"}, {"order", 10}};
  before["header"]["path_info"] = {{"onnx", onnx}};
  after["header"]["path_info"] = {
      {"onnx", {{"label", "ONNX"}, {"order", 11}}},
      {"executorch",
       {{"label", "ExecuTorch (XNNPACK)"}, {"order", 27}, {"statuses", {{"ok", "ok"}}}}}};
  auto diff = diff_snapshots(before, after);
  ASSERT_EQ(diff.header.size(), 2u);
  EXPECT_EQ(diff.header[0].key, "path_info.executorch");
  EXPECT_EQ(diff.header[0].old_value, "(none)");
  EXPECT_EQ(diff.header[0].new_value, "ExecuTorch (XNNPACK)");
  EXPECT_EQ(diff.header[1].key, "path_info.onnx.order");
  auto removed = diff_snapshots(after, before);
  ASSERT_EQ(removed.header.size(), 2u);
  EXPECT_EQ(removed.header[0].new_value, "(none)");
}

TEST(SnapshotDiff, LongHeaderValuesAreShortenedWithTheirLength) {
  nlohmann::json a = new_snapshot(), b = new_snapshot();
  a["header"]["note"] = std::string(300, 'a');
  b["header"]["note"] = std::string(500, 'b');
  auto diff = diff_snapshots(a, b);
  ASSERT_EQ(diff.header.size(), 1u);
  EXPECT_EQ(diff.header[0].old_value, std::string(200, 'a') + "… (300 characters)");
  EXPECT_EQ(diff.header[0].new_value, std::string(200, 'b') + "… (500 characters)");
}

TEST(DiffReport, TextMarkdownAndJsonShowTheSameChanges) {
  SnapshotDiff diff = diff_snapshots(old_snapshot(), new_snapshot());
  std::string text = diff_as_text(diff);
  EXPECT_NE(text.find("Header:\n  versions.torch: 2.12.0 → 2.13.0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Regressions (1):\n  a.regressed onnx: ok → timeout (Timed out)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  c.cause export: fail (Data-dependent) → crashed (Crashed)\n"),
            std::string::npos);
  EXPECT_NE(text.find("  d.breaks compile: graph breaks 1 → 3\n"), std::string::npos);
  EXPECT_NE(text.find("New cases (1):\n  h.new\n"), std::string::npos);
  // Which capture path moved: per path, whatever paths the snapshots hold.
  EXPECT_NE(text.find("By path: onnx 1 regression, 1 fix\nSummary: "), std::string::npos) << text;

  std::string md = diff_as_markdown(diff);
  EXPECT_EQ(md.rfind("### ❌ capmap: 1 regression, 1 fix, 1 changed cause", 0), 0u) << md;
  EXPECT_NE(md.find("| `a.regressed` | onnx | ok → timeout (Timed out) |"), std::string::npos);
  EXPECT_NE(md.find("| `versions.torch` | 2.12.0 | 2.13.0 |"), std::string::npos);

  nlohmann::json json = diff_as_json(diff);
  EXPECT_EQ(json["counts"]["regressions"], 1);
  EXPECT_EQ(json["regressions"][0]["case"], "a.regressed");
  EXPECT_EQ(json["new_cases"], nlohmann::json({"h.new"}));
  EXPECT_EQ(json["graph_break_changes"][0]["new_graph_breaks"], 3);
  EXPECT_EQ(json["by_path"]["onnx"], nlohmann::json({{"regressions", 1}, {"fixes", 1}}));
  EXPECT_NE(md.find("\nBy path: onnx 1 regression, 1 fix\n"), std::string::npos) << md;
}

}  // namespace
}  // namespace capmap
