#include "dram/dram_channel.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mpgpu {

DramChannel::DramChannel(const DramParams& p, bool reorder_row_hits, uint64_t horizon)
    : p_(p), reorder_(reorder_row_hits), horizon_(horizon), banks_(p.banks) {}

uint64_t DramChannel::fit_command(uint64_t lower, uint64_t window, const BusyIntervals* spacing) const {
  uint64_t c = command_bus_.earliest(lower, 1);
  while (spacing) {  // each table only pushes c later; stop when the other accepts it
    const uint64_t s = spacing->earliest(c, window);
    if (s == c) break;
    c = command_bus_.earliest(s, 1);
    if (c == s) break;
  }
  return c;
}

bool DramChannel::fit_columns(uint64_t lower, uint64_t latest, uint32_t bursts, bool is_write, uint64_t tail,
                              ColumnCycles& cas) const {
  const uint64_t lat = is_write ? p_.timing.WL : p_.timing.CL, burst = burst_;
  // Later bursts of the same request start past this one's command, tCCD window and data, so
  // they can be fitted before any of them is booked.
  const uint64_t step = std::max<uint64_t>({p_.timing.CCD, burst, 1});
  cas.clear();
  // Gaps further back than the backfill window are not searched: a real controller's queue
  // holds a bounded backlog, and the search would otherwise walk the whole booked schedule.
  uint64_t c = tail > kBackfillWindow ? std::max(lower, tail - kBackfillWindow) : lower;
  // The bursts of a line mostly land in one word of fitting starts, read once for all of them.
  StartsWord word;
  const bool by_words = fits_by_words(burst);
  for (uint32_t k = 0; k < bursts; ++k, c += step) {
    c = by_words ? fit_column(c, latest, lat, burst, tail, word)
                 : fit_column_by_rounds(c, latest, lat, burst, tail);  // > latest: none fits
    if (c > latest) return false;
    cas.push_back(c);
  }
  return true;
}

uint64_t DramChannel::column_starts(uint64_t c, uint64_t lat, uint64_t burst) const {
  // The data bus first: under load it rules out whole words.
  uint64_t data, data_next;
  data_bus_.window_pair(c + lat, data, data_next);
  uint64_t ok = data == ~uint64_t{0} ? 0 : BusyIntervals::fit_starts(data, data_next, burst);
  if (ok) ok &= ~command_bus_.window(c);
  if (ok) ok &= column_spacing_.free_starts(c, p_.timing.CCD);
  return ok;
}

uint64_t DramChannel::column_tail(uint64_t lat) const {
  return std::max({command_bus_.end(), column_spacing_.end(), data_bus_.end() - std::min(data_bus_.end(), lat)});
}

uint64_t DramChannel::first_column_cycle(uint64_t c, bool is_write, bool by_rounds) const {
  const uint64_t lat = is_write ? p_.timing.WL : p_.timing.CL, burst = burst_;
  const uint64_t tail = column_tail(lat);
  if (tail > kBackfillWindow) c = std::max(c, tail - kBackfillWindow);  // as fit_columns starts
  StartsWord word;
  return by_rounds || !fits_by_words(burst) ? fit_column_by_rounds(c, kOpen, lat, burst, tail)
                                            : fit_column(c, kOpen, lat, burst, tail, word);
}

inline uint64_t DramChannel::fit_column(uint64_t c, uint64_t latest, uint64_t lat, uint64_t burst, uint64_t tail,
                                 StartsWord& word) const {
  // The first cycle from c at which the command bus, the tCCD window and the data bus all accept
  // the command: their free starts ANDed, 64 cycles a step (most commands fit right at c). A
  // write's data (after WL) lands among reads' (after CL): the gap searches of the tables one
  // after the other bounced between them, this takes a word at once. From the tail on every
  // table is free, so the search ends there at the latest.
  while (c < tail) {
    if (c > latest) return c;
    if (!word.read || c < word.base || c >= word.base + 64) word = {c, column_starts(c, lat, burst), true};
    if (const uint64_t m = word.ok >> (c - word.base)) return c + uint64_t(__builtin_ctzll(m));
    c = word.base + 64;
  }
  return c;
}

uint64_t DramChannel::fit_column_by_rounds(uint64_t c, uint64_t latest, uint64_t lat, uint64_t burst, uint64_t tail) const {
  // Windows longer than a word (no bundled platform): rounds over the three tables until a round
  // moves nothing; a round stops early once the last three lookups in a row (across the round
  // boundary) left c where it was. Each lookup moves c to the first cycle its table accepts,
  // never past the first cycle all accept: fit_column's answer, unless a search that keeps
  // bouncing between gaps of different tables gives up and goes to the tail after 64 rounds.
  int rounds = 0, agree = 0;
  do {
    if (++rounds > kMaxFitRounds) c = std::max(c, tail), agree = 0;
    const uint64_t a = command_bus_.earliest(c, 1);
    agree = a == c ? agree + 1 : 1;
    if (agree >= 3) break;
    const uint64_t b = column_spacing_.earliest(a, p_.timing.CCD);
    agree = b == a ? agree + 1 : 1;
    if (agree >= 3) {
      c = b;
      break;
    }
    c = data_bus_.earliest(b + lat, burst) - lat;
    agree = c == b ? agree + 1 : 1;
  } while (agree < 3 && c <= latest);
  return c;
}

void DramChannel::book_columns(const ColumnCycles& cas, Bank& bank, RowWindow& w, uint32_t index,
                               bool is_write) {
  const uint64_t lat = is_write ? p_.timing.WL : p_.timing.CL, burst = burst_;
  const uint64_t to_pre = to_precharge_[is_write];
  // Bursts back to back (the usual fit) book each table once, strided; the same bits either way.
  const uint64_t step = std::max<uint64_t>({p_.timing.CCD, burst, 1});
  bool back_to_back = true;
  for (size_t k = 1; k < cas.size() && back_to_back; ++k) back_to_back = cas[k] == cas[0] + k * step;
  if (back_to_back) {
    command_bus_.book_strided(cas[0], 1, cas.size(), step);
    column_spacing_.book_strided(cas[0], p_.timing.CCD, cas.size(), step);
    data_bus_.book_strided(cas[0] + lat, burst, cas.size(), step);
  }
  if (!back_to_back) {
    for (uint64_t c : cas) {
      command_bus_.book(c, 1);
      column_spacing_.book(c, p_.timing.CCD);
      data_bus_.book(c + lat, burst);
    }
  }
  // The fits are in increasing order (fit_columns steps on from each): the last decides the PRE.
  bus_busy_ += burst * cas.size();
  w.pre_ready = std::max(w.pre_ready, cas.back() + to_pre);
  if (log_)
    for (uint64_t c : cas)
      log(c, is_write ? DramCommandKind::write : DramCommandKind::read, uint32_t(&bank - banks_.data()), w.row, index);
  bank.fcfs_floor = std::max(bank.fcfs_floor, cas.back() + 1);
}

void DramChannel::forget_old() {
  forgot_at_ = floor_;
  for (BusyIntervals* t : {&command_bus_, &column_spacing_, &act_spacing_, &data_bus_}) t->forget_before(floor_);
  for (Bank& b : banks_)  // a window closed before the floor can take no column command any more
    while (b.windows.size() > 1 && b.windows.front().pre <= floor_) b.windows.pop_front();
}

DramAccess DramChannel::serve(uint64_t arrival, uint32_t bank, uint64_t row, bool is_write, uint32_t bytes, uint32_t owner) {
  if (bank >= banks_.size())
    throw std::out_of_range("DRAM bank " + std::to_string(bank) + " of " + std::to_string(banks_.size()));
  const uint32_t index = uint32_t(served_++);
  latest_arrival_ = std::max(latest_arrival_, arrival);
  if (latest_arrival_ > horizon_) floor_ = std::max(floor_, latest_arrival_ - horizon_);
  if (floor_ >= forgot_at_ + 256) forget_old();  // by time, not by count: bounded memory however sparse the use

  const DramTiming& t = p_.timing;
  const uint32_t bursts = p_.bursts_for(bytes, burst_bytes_);
  const uint64_t to_pre = to_precharge_[is_write];
  Bank& bk = banks_[bank];
  const uint64_t lower = std::max(arrival, reorder_ ? floor_ : std::max(floor_, bk.fcfs_floor));

  // Row hit: the open row, or (reordering) an earlier activation of the row before its booked PRE.
  // Two buffers: the best fit so far and the one being tried.
  ColumnCycles* fits = fits_;
  int best = -1;
  const uint64_t tail = column_tail(is_write ? t.WL : t.CL);
  RowWindow* hit = nullptr;
  for (size_t k = 0; k < bk.windows.size(); ++k) {  // newest first: the open row, then older rows
    RowWindow* w = &bk.windows.newest(k);
    const bool open = w->pre == kOpen;
    if (!open && (!reorder_ || w->pre <= lower)) break;  // older windows closed earlier still
    if (w->row != row || (!open && w->pre < to_pre)) continue;
    ColumnCycles& fit = fits[best == 0 ? 1 : 0];
    if (fit_columns(std::max(lower, w->act + t.RCD), open ? kOpen : w->pre - to_pre, bursts, is_write, tail, fit) &&
        (best < 0 || fit.back() < fits[best].back())) {
      best = int(&fit - fits);
      hit = w;
    }
  }
  ColumnCycles& cas = fits[best < 0 ? 0 : best];

  DramAccess out{};
  if (hit) {
    out.outcome = RowOutcome::hit;
    out.reordered = hit->pre != kOpen;
    book_columns(cas, bk, *hit, index, is_write);
  } else {
    uint64_t act_lower = lower;
    out.outcome = RowOutcome::miss;
    if (!bk.windows.empty()) {  // open page: the last window is the open row
      RowWindow& open = bk.windows.back();
      out.outcome = RowOutcome::conflict;
      out.displaced_owner = open.owner;
      const uint64_t pre = fit_command(std::max(lower, open.pre_ready), 0, nullptr);
      command_bus_.book(pre, 1);
      open.pre = pre;
      log(pre, DramCommandKind::precharge, bank, open.row, index);
      act_lower = std::max({act_lower, pre + t.RP, open.act + t.RC});
    }
    const uint64_t act = fit_command(act_lower, t.RRD, &act_spacing_);
    command_bus_.book(act, 1);
    act_spacing_.book(act, t.RRD);
    log(act, DramCommandKind::activate, bank, row, index);
    bk.windows.push_back({row, act, kOpen, act + t.RAS, owner});
    // The PRE and ACT booked above may have moved the tail (command bus).
    fit_columns(std::max(lower, act + t.RCD), kOpen, bursts, is_write, column_tail(is_write ? t.WL : t.CL), cas);
    book_columns(cas, bk, bk.windows.back(), index, is_write);
  }

  out.row_hit = out.outcome == RowOutcome::hit;
  out.completion = cas.back() + (is_write ? t.WL : t.CL) + burst_;
  (is_write ? writes_ : reads_)++;
  bytes_ += bytes;
  hits_ += out.outcome == RowOutcome::hit;
  misses_ += out.outcome == RowOutcome::miss;
  conflicts_ += out.outcome == RowOutcome::conflict;
  reordered_ += out.reordered;
  return out;
}

}  // namespace mpgpu
