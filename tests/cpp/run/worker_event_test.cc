#include "run/worker_event.h"

#include <gtest/gtest.h>

#include "run/line_splitter.h"

namespace capmap {
namespace {

std::string problem_of(std::string_view line) {
  auto parsed = parse_worker_line(line);
  auto* malformed = std::get_if<MalformedLine>(&parsed);
  return malformed ? malformed->problem : "";
}

TEST(WorkerEvent, ParsesEveryMessageOfTheProtocol) {
  auto started =
      std::get<WorkerEvent>(parse_worker_line(R"({"type":"started","task":7,"pid":4242})"));
  EXPECT_EQ(started.type, WorkerEventType::kStarted);
  EXPECT_EQ(started.task, 7);
  EXPECT_EQ(started.pid, 4242);

  auto path = std::get<WorkerEvent>(parse_worker_line(R"({"type":"path","task":7,"path":"onnx"})"));
  EXPECT_EQ(path.type, WorkerEventType::kPath);
  EXPECT_EQ(path.path, "onnx");

  auto record = std::get<WorkerEvent>(parse_worker_line(
      R"({"type":"record","task":7,"path":"onnx","record":{"status":"ok","seconds":1.25,"size_kb":3}})"));
  EXPECT_EQ(record.type, WorkerEventType::kRecord);
  EXPECT_EQ(record.body["status"], "ok");
  EXPECT_EQ(record.body["size_kb"], 3);

  auto crashed = std::get<WorkerEvent>(
      parse_worker_line(R"({"type":"done","task":7,"signal":"SIGSEGV","log_tail":"boom"})"));
  EXPECT_EQ(crashed.signal, "SIGSEGV");
  EXPECT_EQ(crashed.log_tail, "boom");
  auto exited = std::get<WorkerEvent>(parse_worker_line(R"({"type":"done","task":7,"exit":3})"));
  EXPECT_EQ(exited.exit_code, 3);
  EXPECT_TRUE(exited.signal.empty());

  auto hello = std::get<WorkerEvent>(parse_worker_line(
      R"({"type":"hello","pid":10,"library":{"name":"x"},"cases":[{"name":"a"}],"excludes":[]})"));
  EXPECT_EQ(hello.type, WorkerEventType::kHello);
  EXPECT_EQ(hello.body["cases"][0]["name"], "a");

  auto error = std::get<WorkerEvent>(
      parse_worker_line(R"({"type":"error","message":"reg.py:3: duplicate case name"})"));
  EXPECT_EQ(error.message, "reg.py:3: duplicate case name");
}

TEST(WorkerEvent, MalformedLinesAreReportedNotThrown) {
  EXPECT_EQ(problem_of("hello world"), "not JSON");
  EXPECT_EQ(problem_of(R"({"type":"record","task":1,)"), "not JSON");
  EXPECT_EQ(problem_of("[1,2,3]"), "not a JSON object");
  EXPECT_EQ(problem_of(R"({"task":1})"), "no \"type\"");
  EXPECT_EQ(problem_of(R"({"type":5})"), "no \"type\"");
  EXPECT_NE(problem_of(R"({"type":"bogus"})").find("unknown message type"), std::string::npos);
  EXPECT_NE(problem_of(R"({"type":"started","task":"7","pid":3})").find("task"), std::string::npos);
  EXPECT_NE(problem_of(R"({"type":"started","task":7})").find("pid"), std::string::npos);
  EXPECT_NE(
      problem_of(R"({"type":"record","task":7,"path":"onnx","record":{}})").find("record.status"),
      std::string::npos);
  EXPECT_NE(problem_of(R"({"type":"record","task":7,"path":"onnx","record":"ok"})").find("record"),
            std::string::npos);
  EXPECT_NE(problem_of(R"({"type":"done","task":7})").find("exit or signal"), std::string::npos);
  EXPECT_NE(problem_of(R"({"type":"hello","cases":[{"group":"x"}]})").find("without a name"),
            std::string::npos);
  EXPECT_EQ(problem_of(std::string("{\"type\":\"path\",\"task\":1,\"path\":\"\xff\"}")),
            "not JSON");
}

TEST(LineSplitter, JoinsPiecesAndSplitsLines) {
  LineSplitter splitter;
  std::vector<std::string> lines;
  splitter.feed("ab", lines);
  EXPECT_TRUE(lines.empty());
  splitter.feed("c\nde\n\nf", lines);
  EXPECT_EQ(lines, (std::vector<std::string>{"abc", "de", ""}));
  EXPECT_EQ(splitter.pending(), "f");
}

TEST(LineSplitter, DropsOversizedLinesWholeAndCountsThem) {
  LineSplitter splitter(8);
  std::vector<std::string> lines;
  splitter.feed("12345", lines);
  splitter.feed("67890ABC", lines);  // over the limit mid-line
  splitter.feed("DEF\nok\n", lines);
  EXPECT_EQ(lines, (std::vector<std::string>{"ok"}));
  EXPECT_EQ(splitter.oversized_lines(), 1u);
}

}  // namespace
}  // namespace capmap

namespace capmap {
namespace {

TEST(WorkerEvent, AHelloWhoseFieldsHaveTheWrongTypeIsMalformed) {
  EXPECT_EQ(problem_of(R"({"type":"hello","cases":[{"name":"a","group":null}]})"),
            "\"hello\" case 'a': 'group' should be a string, not null");
  EXPECT_EQ(problem_of(R"({"type":"hello","cases":[],"library":"kornia"})"),
            "\"hello\" \"library\" is not an object");
  EXPECT_EQ(problem_of(R"({"type":"hello","cases":[],"library":{"name":null}})"),
            "\"hello\" \"library.name\" is not a string");
  EXPECT_EQ(problem_of(R"({"type":"hello","cases":[],"excludes":[{"reason":"r"}]})"),
            "\"hello\" \"excludes\" lists an entry without a name");
  EXPECT_EQ(problem_of(R"({"type":"hello","cases":[{"name":"a","tags":["quick"]}],)"
                       R"("library":{"name":"lib","revision":null}})"),
            "");
}

TEST(WorkerEvent, ANumberBeyondTheRangeOfADoubleIsAMalformedLine) {
  EXPECT_EQ(
      problem_of(
          R"({"type":"record","task":1,"path":"onnx","record":{"status":"ok","seconds":1e309}})"),
      "not JSON");
}

}  // namespace
}  // namespace capmap
