#pragma once
// What a simulation child sends its parent (forked_runs.cpp): frames of a tag, the payload's length
// in decimal, a newline and the payload. The long lists come first, piece by piece as the child
// prints them (ListKind tags), then one result frame: its JSON (without the lists; see collect).
// Neither side ever holds a list twice.
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "platform/simulation.hpp"
#include "platform/text_pieces.hpp"

namespace mpgpu {

inline constexpr char kResultFrame = 'R';

inline void write_all(int fd, std::string_view s) {
  while (!s.empty()) {
    const ssize_t n = write(fd, s.data(), s.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone
    s.remove_prefix(size_t(n));
  }
}

inline void write_frame(int fd, char tag, std::string_view payload) {
  write_all(fd, fmt::format("{}{}\n", tag, payload.size()));
  write_all(fd, payload);
}

// The parent's side: the frames reassembled from the pipe's reads, whatever their sizes.
struct ResultFrames {
  TextPieces kernels, preemptions;
  std::string result;
  bool complete = false;  // the result frame arrived whole
  bool bad = false;       // something that is no frame

  void feed(std::string_view in) {
    while (!in.empty() && !bad) {
      if (left_ == 0) {  // a header: tag, length, newline
        const size_t nl = in.find('\n');
        header_.append(in.substr(0, nl));
        if (header_.size() > 24) bad = true;  // no length has that many digits
        if (nl == std::string_view::npos) return;
        in.remove_prefix(nl + 1);
        start_frame();
        continue;
      }
      const std::string_view part = in.substr(0, left_);
      if (tag_ == char(ListKind::kernels)) kernels.append(part);
      else if (tag_ == char(ListKind::preemptions)) preemptions.append(part);
      else result.append(part);
      left_ -= part.size();
      in.remove_prefix(part.size());
      if (left_ == 0) end_frame();
    }
  }

 private:
  void start_frame() {
    tag_ = header_.empty() ? 0 : header_[0];
    const bool known = tag_ == char(ListKind::kernels) || tag_ == char(ListKind::preemptions) || tag_ == kResultFrame;
    size_t n = 0;
    bool digits = header_.size() > 1;
    for (size_t i = 1; i < header_.size() && digits; ++i) {
      digits = std::isdigit(static_cast<unsigned char>(header_[i]));
      n = n * 10 + size_t(header_[i] - '0');
    }
    header_.clear();
    if (!known || !digits || complete) {
      bad = true;
      return;
    }
    left_ = n;
    if (left_ == 0) end_frame();
  }
  void end_frame() {
    if (tag_ == kResultFrame) complete = true;
  }

  std::string header_;
  char tag_ = 0;
  size_t left_ = 0;  // payload bytes still to come; 0: a header comes next
};

}  // namespace mpgpu
