#pragma once
// What a preemption does with one resident TB (SPEC 4's per-TB techniques): switch its context
// out, let it drain (finish), or flush it (drop it and restart it later; only while idempotent).
#include <cstdint>

namespace mpgpu {

enum class TbTechnique : uint8_t { switch_out, drain, flush };

inline const char* technique_name(TbTechnique t) {
  switch (t) {
    case TbTechnique::switch_out: return "switch";
    case TbTechnique::drain: return "drain";
    case TbTechnique::flush: return "flush";
  }
  return "?";
}

}  // namespace mpgpu
