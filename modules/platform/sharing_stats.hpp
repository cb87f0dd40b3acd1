#pragma once
// stats.json and timeline records of SPEC 5's TB-mix controller (policies warped_slicer, mias).
#include <nlohmann/json.hpp>

#include "block_scheduler/sharing_controller.hpp"
#include "common/timeline.hpp"

namespace mpgpu {

// scheduling.sharing: the scheme, every phase (profiling rounds with their per-SM counters and
// scores; sharing, spatial and alone stretches with the mix each SM ran) and every decision.
nlohmann::json sharing_stats(const SharingController& c);
// One span per phase on the block scheduler's "TB mix" track; a phase still open ends at end_ns.
void sharing_timeline(const SharingController& c, Timeline& t, double end_ns);

}  // namespace mpgpu
