#pragma once
// The pins of an extension table as a plain struct: the owner drives the request inputs, the
// table (pin view or Verilog twin) drives the response outputs at a rising clock edge. Every
// table speaks the same handshake: req_valid high for one cycle with the request, then the
// response is on the outputs in the cycle resp_valid is high (a registered table: the next edge;
// a pipelined or serial one: later). Outputs hold their value while resp_valid is low.
// MPGPU_PIN_BUS declares a bus from X-macro lists of (name, bits): one list of names gives the
// struct, the copy to and from a verilated model's ports (same names) and the VCD variables.
#include <cstdint>
#include <string>
#include <vector>

#define MPGPU_PIN_FIELD(name, bits) uint64_t name = 0;
#define MPGPU_PIN_DRIVE(name, bits) m.name = name;
#define MPGPU_PIN_SAMPLE(name, bits) name = m.name;
#define MPGPU_PIN_VISIT(name, bits) f(#name, bits, name);
#define MPGPU_PIN_TAKE(name, bits) name = o.name;

#define MPGPU_PIN_BUS(Bus, INPUTS, OUTPUTS)                                    \
  struct Bus {                                                                 \
    uint64_t req_valid = 0;                                                    \
    INPUTS(MPGPU_PIN_FIELD)                                                    \
    uint64_t resp_valid = 0, resp_error = 0;                                   \
    OUTPUTS(MPGPU_PIN_FIELD)                                                   \
    template <class M>                                                         \
    void drive(M& m) const {                                                   \
      m.req_valid = req_valid;                                                 \
      INPUTS(MPGPU_PIN_DRIVE)                                                  \
    }                                                                          \
    template <class M>                                                         \
    void sample(const M& m) {                                                  \
      resp_valid = m.resp_valid;                                               \
      resp_error = m.resp_error;                                               \
      OUTPUTS(MPGPU_PIN_SAMPLE)                                                \
    }                                                                          \
    /* The response outputs of `o` (a pin view's registered response). */      \
    void take_outputs(const Bus& o) {                                          \
      resp_valid = o.resp_valid;                                               \
      resp_error = o.resp_error;                                               \
      OUTPUTS(MPGPU_PIN_TAKE)                                                  \
    }                                                                          \
    template <class F>                                                         \
    void visit(F&& f) const {                                                  \
      f("req_valid", 1, req_valid);                                            \
      INPUTS(MPGPU_PIN_VISIT)                                                  \
      f("resp_valid", 1, resp_valid);                                          \
      f("resp_error", 1, resp_error);                                          \
      OUTPUTS(MPGPU_PIN_VISIT)                                                 \
    }                                                                          \
    template <class F>                                                         \
    void visit_outputs(F&& f) const {                                          \
      f("resp_error", 1, resp_error);                                          \
      OUTPUTS(MPGPU_PIN_VISIT)                                                 \
    }                                                                          \
  };

namespace mpgpu {
// The response outputs of two buses differ: "" when equal, else "name a vs b" for each difference.
template <class Bus>
std::string output_differences(const Bus& got, const Bus& want) {
  std::vector<uint64_t> w;
  want.visit_outputs([&](const char*, uint32_t, uint64_t v) { w.push_back(v); });
  std::string out;
  size_t i = 0;
  got.visit_outputs([&](const char* n, uint32_t, uint64_t v) {
    if (v != w[i]) out += (out.empty() ? "" : ", ") + std::string(n) + " " + std::to_string(v) + " vs " + std::to_string(w[i]);
    ++i;
  });
  return out;
}
}  // namespace mpgpu
