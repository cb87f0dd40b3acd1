#include "workload/workload.hpp"

#include <cctype>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/input_file.hpp"
#include "workload/program.hpp"
#include "workload/trace_workload.hpp"

namespace mpgpu {

namespace {

constexpr int64_t kMaxU32 = std::numeric_limits<uint32_t>::max();
constexpr int64_t kMaxCommandsPerStream = 1000000;  // launches and copies, loops expanded

const std::vector<std::string> kAllPolicies = {"fcfs", "npq", "ppq_exclusive", "ppq_shared", "dss",
                                               "spatial", "warped_slicer", "mias", "dual_kernel",
                                               "chimera"};

// A time given as <key>_us or <key>_cycles; returns true when found.
bool read_time(const ConfigNode& n, const std::string& key, double& ns, double& cycles, bool required) {
  const bool us = n.has(key + "_us"), cy = n.has(key + "_cycles");
  if (us && cy) n.fail("give either " + key + "_us or " + key + "_cycles, not both");
  // 1000 s (10^12 cycles): longer than any TB, and short enough that no delay nears the end of
  // SystemC's 64-bit picosecond time (simulation.cpp stops at 2^62 ps).
  if (us) ns = n.req_num(key + "_us", 0, 1e9) * 1e3;
  if (cy) cycles = n.req_num(key + "_cycles", 0, 1e12);
  if (!us && !cy) {
    n.opt(key + "_us");
    n.opt(key + "_cycles");
    if (required) n.fail("missing required key '" + key + "_us' (or '" + key + "_cycles')");
  }
  return us || cy;
}

TbTimeDist parse_tb_time(const ConfigNode& n) {
  n.expect_map();
  TbTimeDist d;
  const std::string kind = n.req_enum("kind", {"fixed", "normal", "uniform", "calibrated"});
  if (kind == "fixed" || kind == "normal") {
    d.kind = kind == "fixed" ? TbTimeDist::Kind::fixed : TbTimeDist::Kind::normal;
    read_time(n, "mean", d.mean_ns, d.mean_cycles, true);
    if (kind == "normal") d.cv = n.req_num("cv", 0, 10);
  } else if (kind == "uniform") {
    d.kind = TbTimeDist::Kind::uniform;
    read_time(n, "min", d.min_ns, d.min_cycles, true);
    read_time(n, "max", d.max_ns, d.max_cycles, true);
    if (d.max_ns < d.min_ns || d.max_cycles < d.min_cycles) n.fail("max must not be below min");
  } else {
    d.kind = TbTimeDist::Kind::calibrated;
    d.kernel_time_ns = n.req_num("kernel_time_us", 1e-3, 1e9) * 1e3;
    d.cv = n.opt_num("cv", 0, 0, 10);
  }
  n.finish();
  return d;
}

KernelDesc parse_kernel(const std::string& name, const ConfigNode& n) {
  n.expect_map();
  KernelDesc k;
  k.name = name;
  k.source = n.where();
  if (n.has("program") && n.has("trace")) n.fail("give either program or trace, not both");
  if (auto tr = n.opt("trace")) {
    // A kernel replayed from an Accel-Sim .traceg (path relative to this file): the trace's
    // header fixes grid, block, registers and shared memory.
    const auto path = std::filesystem::path(tr->file()).parent_path() / tr->as_str();
    KernelDesc t;
    try {
      t = kernel_from_trace(path.string(), name, k.source);
    } catch (const ConfigError& e) {
      tr->fail(e.what());
    }
    t.qos_budget = n.opt_int("qos_budget", 1, 1, 1 << 16);
    for (const char* key : {"grid", "threads_per_tb", "registers_per_tb", "registers_per_thread", "shared_mem_per_tb", "tb_time"})
      if (n.has(key)) n.req(key).fail(std::string("a trace kernel takes '") + key + "' from its trace header");
    n.finish();
    return t;
  }
  auto grid = n.req("grid");
  if (grid.is_sequence()) {
    uint64_t g = 1;
    auto dims = grid.items();
    if (dims.empty() || dims.size() > 3) grid.fail("expected 1 to 3 grid dimensions");
    for (const auto& d : dims) g *= d.as_int(1, 1 << 20);
    if (g > kMaxU32) grid.fail("grid too large");
    k.grid = static_cast<uint32_t>(g);
  } else {
    k.grid = static_cast<uint32_t>(grid.as_int(1, kMaxU32));
  }
  k.threads_per_tb = n.req_int("threads_per_tb", 1, 1024);
  const bool per_tb = n.has("registers_per_tb"), per_thread = n.has("registers_per_thread");
  if (per_tb == per_thread) n.fail("give exactly one of registers_per_tb, registers_per_thread");
  if (per_tb) {
    k.registers_per_tb = n.req_int("registers_per_tb", 0, 1 << 24);
    n.opt("registers_per_thread");
  } else {
    k.registers_per_tb = n.req_int("registers_per_thread", 0, 255) * k.threads_per_tb;
    n.opt("registers_per_tb");
  }
  k.shared_mem_per_tb = n.opt_int("shared_mem_per_tb", 0, 0, 1 << 24);
  // Relaxed idempotence at TB level: true/false for the whole TB, or the fraction of its run
  // before its first atomic or global overwrite. Warp level tracks it from the instructions.
  if (auto id = n.opt("idempotent")) {
    const std::string v = id->is_scalar() ? id->yaml().Scalar() : "";
    const bool fraction = !v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '.');
    k.idempotent_fraction = fraction ? id->as_num(0, 1) : (id->as_bool() ? 1.0 : 0.0);
  }
  k.instructions_per_tb = n.opt_int("instructions_per_tb", 0, 0, int64_t{1} << 40);
  if (auto prog = n.opt("program")) {
    k.program = std::make_shared<const WarpProgram>(parse_program(*prog, 32, uint64_t{k.grid} * k.threads_per_tb));
    if (n.has("tb_time")) n.req("tb_time").fail("a warp-level kernel (program) takes no tb_time: its time comes from the pipeline");
    if (n.has("idempotent"))
      n.req("idempotent").fail("a warp-level kernel (program) takes no idempotent: the pipeline tracks it per TB from "
                               "the atomics and global stores it issues");
    if (k.program->max_register * k.threads_per_tb > k.registers_per_tb)
      prog->fail("the program uses r" + std::to_string(k.program->max_register - 1) + " but the kernel allocates only " +
                 std::to_string(k.registers_per_tb / k.threads_per_tb) + " registers per thread");
  } else {
    k.tb_time = parse_tb_time(n.req("tb_time"));
  }
  k.qos_budget = n.opt_int("qos_budget", 1, 1, 1 << 16);
  if (auto p = n.opt("published")) {
    if (auto v = p->opt("max_tbs_per_sm")) k.published_max_tbs_per_sm = v->as_int(0, 1024);
    if (auto v = p->opt("kernel_time_us")) k.published_kernel_time_us = v->as_num(0, 1e12);
    if (auto v = p->opt("tb_time_us")) k.published_tb_time_us = v->as_num(0, 1e12);
    p->finish();
  }
  n.finish();
  return k;
}

class WorkloadReader {
 public:
  explicit WorkloadReader(WorkloadDesc& w) : w_(w) {}

  void read_kernels(const ConfigNode& kernels) {
    for (auto& [name, node] : kernels.entries()) {
      if (w_.find_kernel(name) >= 0) node.fail("kernel '" + name + "' defined twice");
      w_.kernels.push_back(parse_kernel(name, node));
    }
  }

  // A stream of `done` commands grows by `times` x `each`; the bound keeps a short file from
  // standing for more launches than any simulation could run (and the memory to list them).
  static void check_length(const ConfigNode& item, size_t done, size_t each, int64_t times) {
    const double total = double(done) + double(each) * double(times);
    if (total > double(kMaxCommandsPerStream))
      item.fail(fmt::format("the stream would hold {:.4g} commands ({} so far + {} x {}): at most {} per stream",
                            total, done, times, each, kMaxCommandsPerStream));
  }

  void read_commands(const ConfigNode& list, std::vector<Command>& out, int depth) {
    if (depth > 8) list.fail("loops nested too deeply");
    for (const auto& item : list.items()) {
      item.expect_map();
      if (item.has("kernel")) {
        auto kn = item.req("kernel");
        const int k = w_.find_kernel(kn.as_str());
        if (k < 0) kn.fail("unknown kernel '" + kn.as_str() + "': not defined under 'kernels'");
        const int64_t count = item.opt_int("count", 1, 1, kMaxCommandsPerStream);
        check_length(item, out.size(), 1, count);
        for (int64_t i = 0; i < count; ++i) out.push_back({Command::Kind::launch, uint32_t(k), 0, {}});
      } else if (item.has("copy")) {
        auto c = item.req("copy");
        Command cmd;
        cmd.kind = Command::Kind::copy;
        cmd.bytes = c.req_int("bytes", 1, int64_t{1} << 40);
        cmd.direction = c.opt_enum("direction", "h2d", {"h2d", "d2h"}) == "h2d"
                            ? Command::Direction::h2d
                            : Command::Direction::d2h;
        cmd.addr = static_cast<uint64_t>(c.opt_int("va", 0, 0, (int64_t{1} << 47) - 1));  // makes it resident
        c.finish();
        out.push_back(cmd);
      } else if (item.has("loop")) {
        const int64_t n = item.req_int("loop", 1, kMaxCommandsPerStream);
        std::vector<Command> body;
        read_commands(item.req("body"), body, depth + 1);
        check_length(item, out.size(), body.size(), n);  // before expanding: a loop of loops is a product
        for (int64_t i = 0; i < n; ++i) out.insert(out.end(), body.begin(), body.end());
      } else {
        item.fail("expected a launch ('kernel'), a 'copy' or a 'loop'");
      }
      item.finish();
    }
  }

  ProcessDesc read_process(const ConfigNode& n) {
    n.expect_map();
    ProcessDesc p;
    p.name = n.req_str("name");
    p.source = n.where();
    read_process_overrides(n, p);
    const bool one = n.has("launches"), many = n.has("streams");
    if (one == many) n.fail("give exactly one of 'launches' (one stream) or 'streams'");
    if (one) {
      p.streams.emplace_back();
      read_commands(n.req("launches"), p.streams.back().commands, 0);
      n.opt("streams");
    } else {
      for (const auto& s : n.req("streams").items()) {
        p.streams.emplace_back();
        read_commands(s.req("launches"), p.streams.back().commands, 0);
        s.finish();
      }
      n.opt("launches");
    }
    for (const auto& s : p.streams)
      if (s.commands.empty()) n.fail("a stream of process '" + p.name + "' has no commands");
    n.finish();
    return p;
  }

  // Keys a process may set, also when it is imported and adjusted.
  static void read_process_overrides(const ConfigNode& n, ProcessDesc& p) {
    if (n.has("arrival_us")) p.arrival_ns = n.req_num("arrival_us", 0, 1e12) * 1e3;
    else n.opt("arrival_us");
    p.priority = n.opt_int("priority", p.priority, 0, 255);
    if (n.has("priority")) p.priority_source = n.req("priority").where();
    p.repeat = n.opt_int("repeat", p.repeat, 1, 1000000);
    p.dss_tokens = static_cast<int32_t>(n.opt_int("dss_tokens", p.dss_tokens, 0, 4096));
    if (n.has("dss_tokens")) p.dss_tokens_source = n.req("dss_tokens").where();
    p.replays = n.opt_bool("replays", p.replays);
    if (auto m = n.opt("memory")) read_address_space(*m, p);
    if (auto part = n.opt("partition")) p.partition_name = part->as_str(), p.partition_source = part->where();
  }

  // memory: {allocations: [{name, va, bytes, placement}], modules: [..]}: the process's address
  // space (SPEC 1) and the memory modules its pages come from (SPEC 6 page colouring).
  static void read_address_space(const ConfigNode& m, ProcessDesc& p) {
    AddressSpaceDesc& as = p.address_space;
    as = {};
    if (auto list = m.opt("allocations")) {
      for (const auto& item : list->items()) {
        Allocation a;
        a.name = item.req_str("name");
        a.va = static_cast<uint64_t>(item.req_int("va", 0, (int64_t{1} << 47) - 1));
        a.bytes = static_cast<uint64_t>(item.req_int("bytes", 1, int64_t{1} << 46));
        const std::string pl = item.opt_enum("placement", "device", {"device", "host", "lazy"});
        a.placement = pl == "host" ? Placement::host : pl == "lazy" ? Placement::lazy : Placement::device;
        a.source = item.where();
        a.contiguous = item.opt_bool("contiguous", false);
        if (a.contiguous && a.placement != Placement::device)
          item.req("contiguous").fail("a contiguous allocation is device-resident (placement " +
                                      std::string(placement_name(a.placement)) + " maps pages one by one)");
        if (a.va + a.bytes > kLocalMemoryBase)
          item.req("bytes").fail("the allocation ends above 2^47, where the local-memory window starts");
        for (const Allocation& o : as.allocations)
          if (a.va < o.va + o.bytes && o.va < a.va + a.bytes)
            item.req("va").fail("allocation '" + a.name + "' overlaps allocation '" + o.name + "' (" + o.source + ")");
        item.finish();
        as.allocations.push_back(a);
      }
    }
    if (auto mods = m.opt("modules")) {
      for (const auto& v : mods->items()) as.allowed_modules |= uint64_t{1} << v.as_int(0, 63);
      if (!as.allowed_modules) mods->fail("list at least one memory module");
      as.modules_source = mods->where();
    }
    m.finish();
  }

  void read_import(const ConfigNode& imp, const std::string& base_dir,
                   const std::vector<std::pair<std::string, std::string>>& overrides) {
    imp.expect_map();
    auto fnode = imp.req("file");
    std::filesystem::path path = fnode.as_str();
    if (path.is_relative()) path = std::filesystem::path(base_dir) / path;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) fnode.fail("imported file '" + path.string() + "' not found");
    std::shared_ptr<ConfigDoc> doc;
    try {
      check_input_file(path.string());
      doc = ConfigDoc::load(path.string());
    } catch (const ConfigError& e) {
      // Located at the import when the file cannot be read; a bad document names its own lines.
      if (std::string(e.what()).find(": cannot open file") == std::string::npos) throw;
      fnode.fail(e.what());
    }
    w_.docs.push_back(doc);
    auto root = ConfigNode::root(doc);
    root.opt("name");
    root.opt("seed");
    root.opt("policy");
    root.opt("replay");
    root.opt("preemption");
    root.opt("flush_fallback");
    root.opt("latency_constraint_us");
    root.opt("drain_estimate");
    root.opt("max_sim_time_us");
    root.opt("stop_at_us");
    root.opt("stop_at_cycles");
    root.opt("sharing");
    if (root.has("import")) root.req("import").fail("imports do not nest");
    read_kernels(root.req("kernels"));
    std::map<std::string, ProcessDesc> procs;
    std::vector<std::string> order;
    if (auto ps = root.opt("processes"))
      for (const auto& pn : ps->items()) {
        ProcessDesc p = read_process(pn);
        if (procs.count(p.name)) pn.fail("process '" + p.name + "' defined twice");
        order.push_back(p.name);
        procs[p.name] = std::move(p);
      }
    root.finish();
    if (auto sel = imp.opt("processes")) {
      for (const auto& s : sel->items()) {
        const std::string name = s.is_map() ? s.req_str("name") : s.as_str();
        auto it = procs.find(name);
        if (it == procs.end()) s.fail("process '" + name + "' not found in " + path.string());
        ProcessDesc p = it->second;
        if (s.is_map()) {
          read_process_overrides(s, p);
          if (s.has("as")) p.name = s.req_str("as");
          else s.opt("as");
          s.finish();
        }
        w_.processes.push_back(std::move(p));
      }
    } else {
      for (const auto& name : order) w_.processes.push_back(procs[name]);
    }
    imp.finish();
  }

 private:
  WorkloadDesc& w_;
};

}  // namespace

int WorkloadDesc::find_kernel(const std::string& name) const {
  for (size_t i = 0; i < kernels.size(); ++i)
    if (kernels[i].name == name) return static_cast<int>(i);
  return -1;
}

uint64_t WorkloadDesc::total_launches() const {
  uint64_t n = 0;
  for (const auto& p : processes)
    for (const auto& s : p.streams)
      for (const auto& c : s.commands) n += c.kind == Command::Kind::launch ? p.repeat : 0;
  return n;
}

// partitions: [{name, sms: [..], colours: [..], thread_limit: f}] (SPEC 6). SM ids and colours
// are checked against the platform when the workload is resolved.
static void read_partitions(const ConfigNode& list, WorkloadDesc& w) {
  for (const auto& n : list.items()) {
    PartitionDesc p;
    p.name = n.req_str("name");
    p.source = n.where();
    for (const auto& o : w.partitions)
      if (o.name == p.name) n.req("name").fail("partition name '" + p.name + "' used twice");
    if (auto sms = n.opt("sms")) {
      std::set<uint32_t> seen;
      for (const auto& v : sms->items()) {
        const uint32_t sm = static_cast<uint32_t>(v.as_int(0, 1 << 20));
        if (!seen.insert(sm).second) v.fail("SM " + std::to_string(sm) + " listed twice");
        p.sms.push_back(sm);
      }
      if (p.sms.empty()) sms->fail("list at least one SM (or leave 'sms' out for every SM)");
      p.sms_source = sms->where();
    }
    if (auto cs = n.opt("colours")) {
      for (const auto& v : cs->items()) p.colours.push_back(static_cast<uint32_t>(v.as_int(0, 63)));
      if (p.colours.empty()) cs->fail("list at least one colour (or leave 'colours' out for any page)");
      p.colours_source = cs->where();
    }
    p.thread_limit = n.opt_num("thread_limit", 1.0, 1e-3, 1.0);
    n.finish();
    // Compute partitions must not share SMs; MPS-style partitions (thread_limit < 1) may.
    for (const auto& o : w.partitions) {
      const bool shared = p.thread_limit < 1.0 && o.thread_limit < 1.0;
      if (shared) continue;
      const auto& a = p.sms.empty() ? o.sms : p.sms;
      const auto& b = p.sms.empty() ? p.sms : o.sms;
      bool overlap = p.sms.empty() || o.sms.empty();
      for (uint32_t x : a)
        for (uint32_t y : b) overlap |= x == y;
      if (overlap)
        (n.has("sms") ? n.req("sms") : n.req("name"))
            .fail("partition '" + p.name + "' shares SMs with partition '" + o.name + "' (" + o.source +
                  "); only MPS-style partitions (thread_limit below 1) may share SMs");
    }
    w.partitions.push_back(std::move(p));
  }
}

WorkloadDesc load_workload(const std::string& file,
                           const std::vector<std::pair<std::string, std::string>>& overrides) {
  WorkloadDesc w;
  w.file = file;
  auto doc = ConfigDoc::load(file);
  for (const auto& [k, v] : overrides)
    if (k.rfind("workload.", 0) == 0) doc->override_key(k.substr(9), v, k);
  w.docs.push_back(doc);
  auto root = ConfigNode::root(doc);
  WorkloadReader reader(w);
  w.name = root.opt_str("name", std::filesystem::path(file).stem().string());
  w.seed = root.opt_int("seed", 1, 0, std::numeric_limits<int64_t>::max());
  auto pol = root.opt("policy");
  w.policy = pol ? pol->as_enum(kAllPolicies) : "fcfs";
  w.policy_source = pol ? pol->where() + ": policy" : file + ": policy (default)";
  w.max_sim_time_ns = root.opt_num("max_sim_time_us", 0, 0, 1e12) * 1e3;
  if (read_time(root, "stop_at", w.stop_at_ns, w.stop_at_cycles, false) && w.stop_at_ns + w.stop_at_cycles <= 0)
    root.req(root.has("stop_at_us") ? "stop_at_us" : "stop_at_cycles").fail("the run must last more than 0");
  auto pre = root.opt("preemption");
  w.preemption = pre ? pre->as_enum({"context_switch", "draining", "flush"}) : "context_switch";
  w.preemption_source = pre ? pre->where() + ": preemption" : file + ": preemption (default)";
  // Flushing drops only TBs still idempotent; the others take the fallback (none: refused when
  // a kernel can lose its idempotence, see resolve_workload).
  auto fb = root.opt("flush_fallback");
  w.flush_fallback = fb ? fb->as_enum({"none", "draining", "context_switch"}) : "none";
  w.flush_fallback_source = fb ? fb->where() + ": flush_fallback" : file + ": flush_fallback (default none)";
  if (fb && w.preemption != "flush") fb->fail("flush_fallback is for preemption: flush");
  const bool per_tb = per_tb_policy(w.policy);
  if (per_tb && pre) pre->fail("policy " + w.policy + " picks switch, drain or flush per TB; preemption does not apply");
  if (sharing_policy(w.policy) && pre)
    pre->fail("policy " + w.policy + " changes TB mixes by letting TBs finish (no preemption in this version)");
  if (auto lc = root.opt("latency_constraint_us")) {
    if (!per_tb) lc->fail("latency_constraint_us is for policy chimera or dual_kernel");
    w.latency_constraint_ns = lc->as_num(0, 1e9) * 1e3;
  }
  if (auto de = root.opt("drain_estimate")) {
    if (!per_tb) de->fail("drain_estimate is for policy chimera or dual_kernel");
    w.oracle = de->as_enum({"predicted", "oracle"}) == "oracle";
    w.drain_estimate_source = de->where() + ": drain_estimate";
  }
  if (auto sh = root.opt("sharing")) {  // SPEC 5: the TB-mix controller
    if (!sharing_policy(w.policy))
      sh->fail("sharing is for policy warped_slicer or mias (policy is '" + w.policy + "')");
    if (auto m = sh->opt("model")) {
      if (w.policy != "mias") m->fail("model (the decision model) is for policy mias; warped_slicer water-fills");
      w.sharing_model = m->as_enum({"ipc", "ipm_ipc", "factor", "linear"});
    }
    w.sharing_window_cycles = static_cast<uint64_t>(sh->opt_int("window_cycles", 45000, 1, 1000000000));
    sh->finish();
  }
  w.replay_until_all_done = root.opt_enum("replay", "none", {"none", "until_all_done"}) != "none";
  const std::string dir = std::filesystem::path(file).parent_path().string();
  if (auto imp = root.opt("import")) reader.read_import(*imp, dir, overrides);
  if (auto ks = root.opt("kernels")) reader.read_kernels(*ks);
  if (auto ps = root.opt("processes"))
    for (const auto& pn : ps->items()) w.processes.push_back(reader.read_process(pn));
  if (auto parts = root.opt("partitions")) read_partitions(*parts, w);
  for (auto& p : w.processes) {
    if (p.partition_name.empty()) continue;
    for (size_t i = 0; i < w.partitions.size(); ++i)
      if (w.partitions[i].name == p.partition_name) p.partition = static_cast<int32_t>(i);
    if (p.partition < 0)
      throw ConfigError(p.partition_source + ": partition: no partition named '" + p.partition_name + "' under 'partitions'");
    if (p.address_space.allowed_modules && !w.partitions[p.partition].colours.empty())
      throw ConfigError(p.address_space.modules_source + ": memory.modules: the process's partition '" + p.partition_name +
                        "' already gives its page colours");
  }
  root.finish();
  if (w.processes.empty()) root.fail("the workload has no processes");
  std::set<std::string> names;
  for (const auto& p : w.processes)
    if (!names.insert(p.name).second)
      throw ConfigError(p.source + ": process name '" + p.name + "' used twice");
  return w;
}

}  // namespace mpgpu
