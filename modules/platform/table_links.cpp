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

void check_links(const PlatformConfig& c, const std::map<std::string, ConfigNode>& nodes) {
  for (const auto& [table, node] : nodes) {
    const TableLinkConfig& l = c.extensions.link(table);
    // The SM's fault tables exist only under the organizations that use them (SPEC 3).
    const FaultOrganization needs = table == "replay_queue" ? FaultOrganization::replay_queue
                                    : table == "operand_log" ? FaultOrganization::operand_log
                                                             : FaultOrganization::stall_on_fault;
    if (c.sm.fault_organization < needs && (l.impl != ExtensionImpl::core || l.latency_cycles != 1))
      node.req(node.has("impl") ? "impl" : "latency_cycles")
          .fail(std::string("the ") + table + " is used under sm.fault_organization " + to_string(needs) +
                (needs == FaultOrganization::replay_queue ? " or operand_log" : "") + "; this platform's is " +
                to_string(c.sm.fault_organization));
    if (l.impl != ExtensionImpl::verilog) continue;
    const TwinParams p = twin_params_of(c, table);
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

std::unique_ptr<TableLink<ReplayQueueBus>> make_replay_queue_link(const PlatformConfig& c, const std::string& name) {
  return make_link<ReplayQueueBus, ReplayQueuePinLogic>(c.extensions.link("replay_queue"), "replay_queue", name,
                                                        c.sm.replay_queue, replay_queue_twin_params(c.sm.replay_queue));
}
std::unique_ptr<TableLink<OperandLogBus>> make_operand_log_link(const PlatformConfig& c, const std::string& name) {
  return make_link<OperandLogBus, OperandLogPinLogic>(c.extensions.link("operand_log"), "operand_log", name,
                                                      c.sm.operand_log, operand_log_twin_params(c.sm.operand_log));
}

std::unique_ptr<TableLink<AllocationPositionsBus>> make_allocation_positions_link(const PlatformConfig& c, const DualKernelParams& p,
                                                                                  const std::string& name) {
  return make_link<AllocationPositionsBus, AllocationPositionsPinLogic>(c.extensions.link("allocation_positions"),
                                                                        "allocation_positions", name, p,
                                                                        allocation_positions_twin_params(p));
}

std::unique_ptr<TableLink<RunningTbStatusBus>> make_running_tb_status_link(const PlatformConfig& c, const std::string& name) {
  const DualKernelParams p = c.sm.per_slot_tables();
  return make_link<RunningTbStatusBus, RunningTbStatusPinLogic>(c.extensions.link("running_tb_status"), "running_tb_status",
                                                                name, p, running_tb_status_twin_params(p));
}

namespace {

// The first access `mpgpu report` measures on a table just out of reset: op 0 with zero arguments
// (a read of entry 0, an issue into the empty replay queue), or one that needs no prior state.
template <class Bus>
Bus first_request() {
  return Bus{};
}
template <>
ActiveQueueBus first_request() {  // a read needs an entry: a push
  ActiveQueueBus b;
  b.req_op = ActiveQueuePinLogic::kPush;
  return b;
}
template <>
OperandLogBus first_request() {  // a partition among one TB
  OperandLogBus b;
  b.req_n = 1;
  return b;
}

template <class Bus>
uint32_t measure(std::unique_ptr<TableLink<Bus>> link) {
  return link->access(first_request<Bus>(), 0);
}

ExtensionParams ext(const PlatformConfig& c) { return extension_params(c.sm, c.block_scheduler); }

// Every linked table once: its twin's parameters on a platform and one access measured on it.
struct LinkedTable {
  const char* name;
  TwinParams (*params)(const PlatformConfig&);
  uint32_t (*measured)(const PlatformConfig&);
};
const LinkedTable kTables[] = {
    {"command_buffers", [](const PlatformConfig& c) { return command_buffers_twin_params(ext(c)); },
     [](const PlatformConfig& c) { return measure(make_command_buffers_link(c, ext(c))); }},
    {"active_queue", [](const PlatformConfig& c) { return active_queue_twin_params(ext(c)); },
     [](const PlatformConfig& c) { return measure(make_active_queue_link(c, ext(c))); }},
    {"ksrt", [](const PlatformConfig& c) { return ksrt_twin_params(ext(c)); },
     [](const PlatformConfig& c) { return measure(make_ksrt_link(c, ext(c))); }},
    {"smst", [](const PlatformConfig& c) { return smst_twin_params(ext(c)); },
     [](const PlatformConfig& c) { return measure(make_smst_link(c, ext(c))); }},
    {"ptbq", [](const PlatformConfig& c) { return ptbq_twin_params(ext(c)); },
     [](const PlatformConfig& c) { return measure(make_ptbq_link(c, ext(c))); }},
    {"victim_sets", [](const PlatformConfig& c) { return victim_sets_twin_params(c.sm.dual_kernel); },
     [](const PlatformConfig& c) { return measure(make_victim_sets_link(c, c.sm.dual_kernel, "victim_sets")); }},
    {"preempting_status", [](const PlatformConfig& c) { return preempting_status_twin_params(c.sm.dual_kernel); },
     [](const PlatformConfig& c) { return measure(make_preempting_status_link(c, c.sm.dual_kernel, "preempting_status")); }},
    {"replay_queue", [](const PlatformConfig& c) { return replay_queue_twin_params(c.sm.replay_queue); },
     [](const PlatformConfig& c) { return measure(make_replay_queue_link(c, "replay_queue")); }},
    {"operand_log", [](const PlatformConfig& c) { return operand_log_twin_params(c.sm.operand_log); },
     [](const PlatformConfig& c) { return measure(make_operand_log_link(c, "operand_log")); }},
    {"allocation_positions", [](const PlatformConfig& c) { return allocation_positions_twin_params(c.sm.dual_kernel); },
     [](const PlatformConfig& c) { return measure(make_allocation_positions_link(c, c.sm.dual_kernel, "allocation_positions")); }},
    {"running_tb_status", [](const PlatformConfig& c) { return running_tb_status_twin_params(c.sm.per_slot_tables()); },
     [](const PlatformConfig& c) { return measure(make_running_tb_status_link(c, "running_tb_status")); }},
};

const LinkedTable& linked_table(const std::string& table) {
  for (const LinkedTable& t : kTables)
    if (table == t.name) return t;
  throw SimError("no linked extension table '" + table + "'");
}

}  // namespace

TwinParams twin_params_of(const PlatformConfig& c, const std::string& table) { return linked_table(table).params(c); }

uint32_t measured_latency(const PlatformConfig& c, const std::string& table) {
  const TableLinkConfig& l = c.extensions.link(table);
  if (l.impl == ExtensionImpl::core) return l.latency_cycles;
  return linked_table(table).measured(c);
}

}  // namespace mpgpu
