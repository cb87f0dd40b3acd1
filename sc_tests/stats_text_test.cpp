// The long stats lists as text: pieces, a list spilled piece by piece, and the frames a simulation
// child sends its parent. Known answers: the same text as printed whole.
#include <gtest/gtest.h>

#include <unistd.h>

#include <random>
#include <string>
#include <vector>

#include "platform/json_array_text.hpp"
#include "platform/result_frames.hpp"
#include "platform/text_pieces.hpp"

using namespace mpgpu;
using nlohmann::json;

namespace {

TEST(TextPieces, AppendsAcrossPiecesAsOneString) {
  TextPieces t;
  std::string whole;
  std::mt19937 rng(7);
  // Appends of every size, from empty to more than two pieces at once.
  for (size_t n : {size_t(0), size_t(1), TextPieces::kPieceBytes - 2, size_t(5), 2 * TextPieces::kPieceBytes + 3,
                   size_t(100)}) {
    std::string s(n, ' ');
    for (char& c : s) c = char('a' + rng() % 26);
    t.append(s);
    whole += s;
  }
  EXPECT_EQ(t.size(), whole.size());
  EXPECT_EQ(t.str(), whole);
  for (const std::string& p : t.pieces()) EXPECT_LE(p.size(), TextPieces::kPieceBytes);
  EXPECT_EQ(t.pieces().size(), (whole.size() + TextPieces::kPieceBytes - 1) / TextPieces::kPieceBytes);
  t.clear();
  EXPECT_TRUE(t.empty());
  EXPECT_EQ(t.str(), "");
}

// Spilled as it grows, the list's text is the text of the list taken whole, and no spill is
// larger than about a piece (the list is never held whole).
TEST(JsonArrayText, SpilledPiecesMakeTheWholeText) {
  json items = json::array();
  for (int i = 0; i < 3000; ++i)
    items.push_back({{"sm", i % 13}, {"tbs", json::array({{{"tb", i}, {"bytes", std::string(i % 700, 'x')}}})}});
  for (const json& list : {items, json::array()}) {
    JsonArrayText whole(2);
    std::string spilled;
    size_t largest = 0, spills = 0;
    JsonArrayText pieces(2, [&](std::string_view s) {
      spilled += s;
      largest = std::max(largest, s.size());
      ++spills;
    });
    for (const json& it : list) whole.add(it), pieces.add(it);
    pieces.finish();
    EXPECT_EQ(spilled, whole.take().str());
    EXPECT_LE(largest, TextPieces::kPieceBytes);
    if (!list.empty()) {
      EXPECT_GT(spills, 2u);
    }  // the 1.2 MB list went out in several pieces
    EXPECT_EQ(json::parse(spilled), list);
  }
}

// A frame as written to a pipe; frames fed in reads of any size give back each part.
TEST(ResultFrames, ReassembleWhateverTheReadSizes) {
  std::string kernels = "[\n  {}\n]", pre_a(70000, 'p'), pre_b = "tail", result = R"({"status": "completed"})";
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::string sent;
  write_frame(fds[1], char(ListKind::kernels), kernels);  // far below the pipe's buffer
  close(fds[1]);
  char buf[256];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) sent.append(buf, size_t(n));
  close(fds[0]);
  EXPECT_EQ(sent, "K" + std::to_string(kernels.size()) + "\n" + kernels);
  sent += "P70000\n" + pre_a + "P4\n" + pre_b + "P0\nR" + std::to_string(result.size()) + "\n" + result;
  for (size_t step : {size_t(1), size_t(3), size_t(4096), sent.size()}) {
    ResultFrames f;
    for (size_t at = 0; at < sent.size(); at += step) f.feed(std::string_view(sent).substr(at, step));
    EXPECT_FALSE(f.bad) << step;
    EXPECT_TRUE(f.complete) << step;
    EXPECT_EQ(f.kernels.str(), kernels);
    EXPECT_EQ(f.preemptions.str(), pre_a + pre_b);
    EXPECT_EQ(f.result, result);
  }
}

// A cut-off or garbled stream is never taken for a result.
TEST(ResultFrames, TruncatedOrGarbledIsNoResult) {
  const std::string good = "P3\nabcR2\n{}";
  ResultFrames cut;
  cut.feed(good.substr(0, good.size() - 1));
  EXPECT_FALSE(cut.complete);
  for (const std::string& bad : std::vector<std::string>{"X3\nabc", "P\nabc", "P1x\na", "R2\n{}R2\n{}", std::string(40, '9')}) {
    ResultFrames f;
    f.feed(bad);
    EXPECT_TRUE(f.bad) << bad;
  }
}

}  // namespace
