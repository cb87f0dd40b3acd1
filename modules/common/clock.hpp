#pragma once
// A clock domain (SM core, crossbar/L2, DRAM): the one place cycles become sc_time.
#include <systemc>

#include <cmath>
#include <cstdint>
#include <type_traits>

namespace mpgpu {

// sc_time's to_seconds() and from_value() without a library call per conversion (the SMs and
// the memory path convert on every wake-up and request). The same IEEE operations as the kernel's
// own (to_seconds: value x resolution in fs x 1e-15; from_value: the raw value), so the same results.
namespace clock_detail {
inline double resolution_fs() {
  static const double fs = std::round(sc_core::sc_get_time_resolution().to_seconds() * 1e15);
  return fs;
}
inline double to_seconds(const sc_core::sc_time& t) { return static_cast<double>(t.value()) * resolution_fs() * 1e-15; }
// sc_time is standard-layout with its raw value as its only member, so the two are
// pointer-interconvertible: the value is written in place. (The library's from_value() is an
// out-of-line call; scaling a unit time, as this did before, goes through a volatile double.)
static_assert(std::is_standard_layout_v<sc_core::sc_time> && sizeof(sc_core::sc_time) == sizeof(sc_dt::uint64));
inline sc_core::sc_time from_value(sc_dt::uint64 v) {
  sc_core::sc_time t;
  *reinterpret_cast<sc_dt::uint64*>(&t) = v;
  return t;
}
}  // namespace clock_detail

// sc_time_stamp() without the library call (about 12 host instructions through the PLT; every
// hop of every memory request reads it): the same kernel field, the current context's time. The
// context pointer is read here; SystemC's accessor, which creates a context when there is none,
// is called only then (GCC left that accessor out of line in a large caller, Sm::access).
inline const sc_core::sc_time& sim_now() {
  sc_core::sc_simcontext* const c = sc_core::sc_curr_simcontext;
  return (c ? c : sc_core::sc_get_curr_simcontext())->time_stamp();
}

// Exact for times on the ps grid (sc_time resolution), unlike to_seconds() * 1e9.
inline double to_ns(const sc_core::sc_time& t) {
  static const double units_per_ns = std::round(1e-9 / sc_core::sc_get_time_resolution().to_seconds());
  return static_cast<double>(t.value()) / units_per_ns;
}

class ClockDomain {
 public:
  ClockDomain() = default;
  explicit ClockDomain(double mhz) : mhz_(mhz), period_ps_(1e6 / mhz) {}  // the rest derived below, in order
  double mhz() const { return mhz_; }
  double period_ps() const { return period_ps_; }
  sc_core::sc_time period() const { return sc_core::sc_time(period_ps_, sc_core::SC_PS); }
  sc_core::sc_time cycles(double n) const { return clock_detail::from_value(edge_value(n)); }
  // Whole cycles elapsed at time t (rounded down, tolerant of ps rounding).
  uint64_t to_cycles(const sc_core::sc_time& t) const {
    return static_cast<uint64_t>(std::floor(clock_detail::to_seconds(t) * 1e12 / period_ps_ + 1e-6));
  }
  // The first cycle edge at or after t: the least c with cycles(c) >= t. The memory path converts
  // on every hop of every request, so no division and no sc_time is built: a guess from the
  // reciprocal, settled against the edges' raw values (the guess is off by one at most).
  uint64_t to_cycles_ceil(const sc_core::sc_time& t) const {
    const sc_dt::uint64 v = t.value();
    // Below 2^62 units (every run's times; a test's 0.001 MHz clock goes beyond) through int64_t,
    // whose conversions are one instruction each where the unsigned ones branch on the top bit;
    // the period must keep the edges near v below 2^63 (per_unit_ is its reciprocal: no member
    // for it, as the clock sits in the hot lines of its owners).
    if (v < kSignedBelow && per_unit_ > 0x1p-61) return first_edge_from(static_cast<int64_t>(v));
    return first_edge_from(v);
  }
  // to_cycles_ceil as a division and one cycles() (tests compare the two).
  uint64_t to_cycles_ceil_by_division(const sc_core::sc_time& t) const {
    uint64_t c = to_cycles(t);
    return cycles(double(c)) < t ? c + 1 : c;
  }
  double ns_to_cycles(double ns) const { return ns * 1e3 / period_ps_; }

 private:
  // cycles(n)'s raw value: from the resolution units, as constructing from a double and a unit
  // costs a division per call.
  static double units_per_ps() {
    static const double u = 1e-12 / sc_core::sc_get_time_resolution().to_seconds();
    return u;
  }
  static constexpr sc_dt::uint64 kSignedBelow = sc_dt::uint64{1} << 62;
  // to_cycles_ceil's search in raw time values of type Int (v below 2^63 for int64_t).
  template <class Int>
  uint64_t first_edge_from(Int v) const {
    Int c = static_cast<Int>(static_cast<double>(v) * per_unit_);
    if (edge_as<Int>(static_cast<double>(c)) < v) {
      do ++c;
      while (edge_as<Int>(static_cast<double>(c)) < v);
    } else {
      while (c > 0 && edge_as<Int>(static_cast<double>(c - 1)) >= v) --c;
    }
    return static_cast<uint64_t>(c);
  }
  // n x period x units per ps. With a 1 ps resolution (SystemC's default) the last factor is 1,
  // and multiplying by 1 is exact in IEEE arithmetic: one multiplication, cheaper than the test
  // that used to skip it, and the same double either way.
  template <class Int>
  Int edge_as(double n) const {
    return static_cast<Int>(n * period_ps_ * units_per_ps_ + 0.5);
  }
  sc_dt::uint64 edge_value(double n) const { return edge_as<sc_dt::uint64>(n); }

  double mhz_ = 1000.0;
  double period_ps_ = 1000.0;
  double units_per_ps_ = units_per_ps();
  double per_unit_ = 1.0 / (period_ps_ * units_per_ps_);  // cycles per resolution unit: to_cycles_ceil's guess
};

}  // namespace mpgpu
