#include "platform/table_links.hpp"

#include "twins/twin_registry.hpp"

namespace mpgpu {

ConfigNode read_table_link(const ConfigNode& n, TableLinkConfig& out) {
  const std::string impl = n.opt_enum("impl", "core", {"core", "pins", "verilog"});
  out.impl = impl == "pins" ? ExtensionImpl::pins : impl == "verilog" ? ExtensionImpl::verilog : ExtensionImpl::core;
  out.latency_cycles = static_cast<uint32_t>(n.opt_int("latency_cycles", 1, 1, 1 << 16));
  if (n.has("latency_cycles") && out.impl == ExtensionImpl::verilog)
    n.req("latency_cycles").fail("a Verilog twin's latency is its RTL's, counted on its pins; latency_cycles sets core and pins");
  out.rtl = n.opt_str("rtl", "");
  if (n.has("rtl") && out.impl != ExtensionImpl::verilog) n.req("rtl").fail("names the RTL module of impl: verilog");
  n.finish();
  return n;
}

namespace {
TwinParams params_of(const PlatformConfig& c, const std::string& table) {
  const ExtensionParams e = extension_params(c.sm, c.block_scheduler);
  if (table == "smst") return smst_twin_params(e);
  if (table == "ksrt") return ksrt_twin_params(e);
  if (table == "ptbq") return ptbq_twin_params(e);
  if (table == "command_buffers") return command_buffers_twin_params(e);
  if (table == "active_queue") return active_queue_twin_params(e);
  if (table == "preempting_status") return preempting_status_twin_params(c.sm.dual_kernel);
  return victim_sets_twin_params(c.sm.dual_kernel);
}

std::string module_of(const TableLinkConfig& l, const std::string& table) { return l.rtl.empty() ? table : l.rtl; }

template <class Bus, class Logic, class Params>
std::unique_ptr<TableLink<Bus>> make_link(const TableLinkConfig& l, const std::string& table, const std::string& name,
                                          const Params& p, const TwinParams& tp) {
  std::unique_ptr<ClockedTable<Bus>> t;
  if (l.impl == ExtensionImpl::pins) t = std::make_unique<PinView<Bus, Logic>>(l.latency_cycles, p);
  if (l.impl == ExtensionImpl::verilog) t = make_twin<Bus>(table, module_of(l, table), tp);
  if (!t && l.latency_cycles == 1) return nullptr;
  return std::make_unique<TableLink<Bus>>(name, l.impl, l.latency_cycles, std::move(t));
}
}  // namespace

void check_twins(const PlatformConfig& c, const std::map<std::string, ConfigNode>& nodes) {
  for (const auto& [table, node] : nodes) {
    const TableLinkConfig& l = c.extensions.link(table);
    if (l.impl != ExtensionImpl::verilog) continue;
    const TwinParams p = params_of(c, table);
    const std::string module = module_of(l, table);
    if (twin_built(table, module, p)) continue;
    const ConfigNode key = l.rtl.empty() ? node.req("impl") : node.req("rtl");
    key.fail("no Verilog twin '" + module + "' of the " + table + " is built for this platform's " + params_text(p) +
             " (built: " + twin_builds_text(table) +
             "); add the platform with `mpgpu twins` to rtl/twin_params.cmake (or your RTL with -DMPGPU_USER_RTL) and rebuild");
  }
}

const TableLinkConfig& ExtensionSizes::link(const std::string& table) const {
  static const TableLinkConfig kCore;
  auto it = links.find(table);
  return it == links.end() ? kCore : it->second;
}

std::unique_ptr<TableLink<SmstBus>> make_smst_link(const PlatformConfig& c, const ExtensionParams& p) {
  return make_link<SmstBus, SmstPinLogic>(c.extensions.link("smst"), "smst", "smst", p, smst_twin_params(p));
}
std::unique_ptr<TableLink<KsrtBus>> make_ksrt_link(const PlatformConfig& c, const ExtensionParams& p) {
  return make_link<KsrtBus, KsrtPinLogic>(c.extensions.link("ksrt"), "ksrt", "ksrt", p, ksrt_twin_params(p));
}
std::unique_ptr<TableLink<PtbqBus>> make_ptbq_link(const PlatformConfig& c, const ExtensionParams& p) {
  return make_link<PtbqBus, PtbqPinLogic>(c.extensions.link("ptbq"), "ptbq", "ptbq", p, ptbq_twin_params(p));
}
std::unique_ptr<TableLink<VictimSetsBus>> make_victim_sets_link(const PlatformConfig& c, const DualKernelParams& p,
                                                                const std::string& name) {
  return make_link<VictimSetsBus, VictimSetsPinLogic>(c.extensions.link("victim_sets"), "victim_sets", name, p,
                                                       victim_sets_twin_params(p));
}

std::unique_ptr<TableLink<CommandBuffersBus>> make_command_buffers_link(const PlatformConfig& c, const ExtensionParams& p) {
  return make_link<CommandBuffersBus, CommandBuffersPinLogic>(c.extensions.link("command_buffers"), "command_buffers",
                                                              "command_buffers", p, command_buffers_twin_params(p));
}
std::unique_ptr<TableLink<ActiveQueueBus>> make_active_queue_link(const PlatformConfig& c, const ExtensionParams& p) {
  return make_link<ActiveQueueBus, ActiveQueuePinLogic>(c.extensions.link("active_queue"), "active_queue", "active_queue",
                                                        p, active_queue_twin_params(p));
}

std::unique_ptr<TableLink<PreemptingStatusBus>> make_preempting_status_link(const PlatformConfig& c, const DualKernelParams& p,
                                                                            const std::string& name) {
  return make_link<PreemptingStatusBus, PreemptingStatusPinLogic>(c.extensions.link("preempting_status"), "preempting_status",
                                                                  name, p, preempting_status_twin_params(p));
}

uint32_t measured_latency(const PlatformConfig& c, const std::string& table) {
  const TableLinkConfig& l = c.extensions.link(table);
  if (l.impl == ExtensionImpl::core) return l.latency_cycles;
  const ExtensionParams e = extension_params(c.sm, c.block_scheduler);
  // A read of entry 0 on a table just out of reset.
  if (table == "smst") return make_smst_link(c, e)->access(SmstBus{}, 0);
  if (table == "ksrt") return make_ksrt_link(c, e)->access(KsrtBus{}, 0);
  if (table == "ptbq") return make_ptbq_link(c, e)->access(PtbqBus{}, 0);
  if (table == "command_buffers") return make_command_buffers_link(c, e)->access(CommandBuffersBus{}, 0);
  if (table == "active_queue") {  // a read needs an entry: the latency of a push
    ActiveQueueBus push;
    push.req_op = ActiveQueuePinLogic::kPush;
    return make_active_queue_link(c, e)->access(push, 0);
  }
  if (table == "preempting_status") return make_preempting_status_link(c, c.sm.dual_kernel, table)->access(PreemptingStatusBus{}, 0);
  return make_victim_sets_link(c, c.sm.dual_kernel, table)->access(VictimSetsBus{}, 0);
}

}  // namespace mpgpu
