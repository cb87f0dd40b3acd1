#include "common/timeline.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "common/error.hpp"

namespace mpgpu {

std::string json_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", c);
      continue;
    }
    out += c;
  }
  return out;
}

Timeline::Timeline(const std::string& path) : path_(path) {
  if (path.empty()) return;
  file_ = std::fopen(path_.c_str(), "w");
  if (!file_) throw ConfigError(path + ": cannot write timeline file");
  std::fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n", file_);
}

Timeline::~Timeline() {
  if (file_) {  // never committed: the run failed, leave nothing that looks like a result
    std::fclose(file_);
    std::remove(path_.c_str());
  }
}

void Timeline::emit(const std::string& event) {
  if (!first_) std::fputs(",\n", file_);
  first_ = false;
  std::fputs(event.c_str(), file_);
}

void Timeline::name_group(int pid, const std::string& name) {
  if (!file_ || !named_.insert({pid, -1}).second) return;
  emit(fmt::format(R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"{}"}}}})", pid,
                   json_escape(name)));
  emit(fmt::format(R"({{"ph":"M","name":"process_sort_index","pid":{},"args":{{"sort_index":{}}}}})",
                   pid, pid));
}

void Timeline::name_track(int pid, int tid, const std::string& name) {
  if (!file_ || !named_.insert({pid, tid}).second) return;
  emit(fmt::format(R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"{}"}}}})",
                   pid, tid, json_escape(name)));
}

void Timeline::span(int pid, int tid, const std::string& name, const std::string& category,
                    double start_ns, double end_ns, const std::string& args_json) {
  if (!file_) return;
  emit(fmt::format(R"({{"ph":"X","pid":{},"tid":{},"name":"{}","cat":"{}","ts":{:.4f},"dur":{:.4f}{}}})",
                   pid, tid, json_escape(name), category, start_ns / 1e3, (end_ns - start_ns) / 1e3,
                   args_json.empty() ? "" : ",\"args\":" + args_json));
}

void Timeline::instant(int pid, int tid, const std::string& name, double at_ns) {
  if (!file_) return;
  emit(fmt::format(R"({{"ph":"i","s":"t","pid":{},"tid":{},"name":"{}","ts":{:.4f}}})", pid, tid,
                   json_escape(name), at_ns / 1e3));
}

void Timeline::commit() {
  if (!file_) return;
  std::fputs("\n]}\n", file_);
  std::fclose(file_);
  file_ = nullptr;
}

}  // namespace mpgpu
