#pragma once
// Reservation table of one resource (a DRAM command or data bus, a tCCD/tRRD window, a crossbar
// port, a tag port) in integer time units. Unlike the monotone OccupancyCalendar it keeps the
// gaps, so a request booked later can still take a slot before requests booked earlier: loosely
// timed callers arrive out of time order (a reply booked far ahead by a queued DRAM access must
// not hold up an earlier one), and the DRAM core back-fills for bank parallelism and row hits.
//
// Stored as a bitmap of busy cycles (one bit per cycle, 64 per word) from a moving base, in a
// ring of words that grows to the largest span in use and is then reused without allocation:
// the booked schedule ahead of "now" is short and dense (a DRAM command bus holds ~30 000
// separate bookings in its 65 536-cycle horizon), so indexing words beats searching intervals.
// Memory follows the span between the forget point and the latest booking, never the run
// length: owners call forget_before() with the earliest time a request can still arrive on
// every call, which costs nothing when that time has not moved (a crossbar port, never asked
// about the past: forget_lagging(), now minus a few thousand cycles at most).
// (The old owners forgot every 4096 calls: a port used rarely over a long TB-level run, e.g. by
// context moves, then spanned the whole run; one PPQ sweep run reached 1.3 GB that way.)
// Cycles before the forget point count as free (forget_lagging: are never asked about).
#include <algorithm>
#include <cstdint>
#include <vector>

namespace mpgpu {

class BusyIntervals {
 public:
  // Earliest s >= t such that [s, s + len) overlaps nothing booked.
  // A search that walked far is remembered: no slot of its length starts in [from, to), and
  // bookings only take slots away, so a later search of that length or longer starting there
  // jumps to `to` (many requests queued behind one fragmented backlog, e.g. every SM saving its
  // context through one partition's port at once, would each walk all of it otherwise).
  // The common cases inline (past every booking, or free right at t), the search out of line.
  [[gnu::always_inline]] uint64_t earliest(uint64_t t, uint64_t len) const {
    if (len == 0 || t >= end_) return t;  // past every booking: the common in-order case
    // Free right at t: the answer, and the remembered range cannot hold t (no slot of this length
    // starts there), so there is nothing to update.
    if (free(t, len)) return t;
    return search(t, len);
  }

  // The first cycle from t on where a slot of `len` may start, as far as the remembered busy run
  // and no-slot range tell (no word read): t itself unless it lies in one of them.
  uint64_t skip_known(uint64_t t, uint64_t len) const {
    if (len >= no_slot_len_ && no_slot_from_ <= t && t < no_slot_to_) t = no_slot_to_;
    if (run_begin_ <= t && t < run_end_) t = run_end_;
    return t;
  }

  // [s, s + len) overlaps nothing booked: earliest(s, len) == s, without its search.
  bool free(uint64_t s, uint64_t len) const { return len == 0 || s >= end_ || next_busy(s, s + len) == s + len; }

  // earliest() when t is busy: the gap search, remembering a long walk.
  [[gnu::noinline]] uint64_t search(uint64_t t, uint64_t len) const {
    // A search entering the remembered range from below jumps over it too, and then remembers
    // the whole of [t, s): requests from many SMs arrive at different times in front of one
    // backlog, and each would otherwise walk up to it and through it.
    const bool memo = len >= no_slot_len_ && no_slot_from_ < no_slot_to_;
    const uint64_t s = fit_by_gaps(t, len, memo);
    if (memo && len == no_slot_len_ && t <= no_slot_to_ && s >= no_slot_from_) {
      no_slot_from_ = std::min(no_slot_from_, t), no_slot_to_ = s;  // [t, s) joined to the known range
    } else if (s - t >= 128) {
      no_slot_from_ = t, no_slot_to_ = s, no_slot_len_ = len;
    }
    return s;
  }

  // Earliest s >= t such that [s, s + len) is free in both tables: a packet holding two ports.
  // The tables' busy words ORed and searched a word at a time (the same answer as alternating
  // earliest() between them until one accepts the other's slot, without a search per round that
  // jumps between their gaps), for up to kJointWords words; a longer wait (a backlog such as many
  // context lines queued on one port) continues with that alternation, whose searches remember
  // long walks. Both tables keep their words at multiples of 64, so the walk reads aligned words.
  static uint64_t earliest_in_both(const BusyIntervals& a, const BusyIntervals& b, uint64_t t, uint64_t len) {
    if (len == 0 || (t >= a.end_ && t >= b.end_)) return t;  // past every booking of both
    // A backlog either table already knows (a context save queued on a partition's port) is
    // jumped before any word is read: the joint walk would only cross it.
    uint64_t s = t;
    for (uint64_t u; (u = b.skip_known(a.skip_known(s, len), len)) != s;) s = u;
    if (len <= 64) {
      const uint64_t end = std::max(a.end_, b.end_);
      uint64_t w = s & ~uint64_t{63};
      uint64_t busy = a.aligned_word(w) | b.aligned_word(w);
      uint64_t after = ~uint64_t{0} << (s - w);  // starts before s do not count
      for (int k = 0; k < kJointWords; ++k, w += 64) {
        if (w >= end) return std::max(s, w);  // past every booking of both
        // A one-flit packet fits at any free bit; a word busy throughout starts nothing (a longer
        // packet may still start in it only at a free bit): neither needs the next word's bits.
        if (len == 1 || busy == ~uint64_t{0}) {
          if (const uint64_t fit = ~busy & after) return w + uint64_t(__builtin_ctzll(fit));
          busy = a.aligned_word(w + 64) | b.aligned_word(w + 64);
        } else {
          const uint64_t next = a.aligned_word(w + 64) | b.aligned_word(w + 64);
          if (const uint64_t fit = fit_starts(busy, next, len) & after) return w + uint64_t(__builtin_ctzll(fit));
          busy = next;
        }
        after = ~uint64_t{0};
      }
      s = w;  // no common slot starts in [s, w)
    }
    s = a.earliest(s, len);
    for (;;) {
      const uint64_t u = b.earliest(s, len);
      if (u == s) return s;
      s = a.earliest(u, len);
      if (s == u) return s;
    }
  }

  // What a pair of tables is known not to offer: no common slot of `len` or more starts in
  // [from, to). Bookings only take slots away and forgetting frees only cycles before the forget
  // point, so it holds for starts from both tables' forget points on. Kept by the caller per pair
  // (a crossbar's source and destination ports), which no one table can hold.
  struct JointMemo {
    uint64_t from = 0, to = 0, len = 0;
  };
  // earliest_in_both(a, b, t, len), booked in both tables; returns the slot. A search starting
  // in the memo's range begins at its end, and one that waited records [t, slot + len): the
  // lines of a context save, P partitions apart, each queued behind the same ports' backlog,
  // start where the pair's last one ended rather than walking the backlog again.
  [[gnu::always_inline]] static uint64_t book_in_both(BusyIntervals& a, BusyIntervals& b, uint64_t t, uint64_t len, JointMemo& memo) {
    const bool known = len >= memo.len && memo.from <= t && t < memo.to && t >= a.forgotten_ && t >= b.forgotten_;
    const uint64_t s = earliest_in_both(a, b, known ? memo.to : t, len);
    a.book(s, len);
    b.book(s, len);
    if (s != t) {  // none of `len` starts in [t, s), nor (booked now) before s + len
      if (known && len == memo.len)
        memo.to = s + len;  // the known range grows
      else
        memo = {t, s + len, len};
    }
    return s;
  }

  // Books [s, s + len), which must be free. Inline when it lies within the bitmap as it is (at
  // or after the forget point, before the last word) and spans at most 64 cycles: a crossbar
  // packet, a DRAM burst; growing the bitmap or cutting at the forget point out of line.
  [[gnu::always_inline]] void book(uint64_t s, uint64_t len) {
    if (len - 1 < 64 && in_place(s, s + len)) {
      if (s + len > end_) end_ = s + len;
      return set_bits(s, s + len);
    }
    book_any(s, len);
  }
  [[gnu::noinline]] void book_any(uint64_t s, uint64_t len) {
    if (len == 0) return;
    if (s < forgotten_) {  // the forgotten past counts as free: keep only what lies after it
      if (s + len <= forgotten_) return;
      len -= forgotten_ - s;
      s = forgotten_;
    }
    // A packet wholly past the last word (a reply booked far ahead): its words are new, zero, so
    // its bits are stored rather than ORed in. Reading them back would wait for the cold line the
    // gap's clearing has only just begun to write.
    const bool fresh = count_ > 0 && s >= base_ + 64 * count_ && len <= 64;
    cover(s, s + len);
    if (fresh) return store_pattern(s, len == 64 ? ~uint64_t{0} : (uint64_t{1} << len) - 1, len);
    set_bits(s, s + len);
  }

  // Books [s + k * stride, s + k * stride + len) for k < count, all of which must be free: a
  // request's bursts, tCCD windows or column commands in one call (the same bits as booking each).
  // Inline when the pieces span at most 64 cycles within the bitmap as it is (a DRAM request's
  // column commands, mostly): one pattern ORed into one or two words.
  [[gnu::always_inline]] void book_strided(uint64_t s, uint64_t len, uint64_t count, uint64_t stride) {
    if (len == 0 || count == 0) return;
    if (len >= stride) return book(s, (count - 1) * stride + len);  // the pieces touch: one run
    const uint64_t span = (count - 1) * stride + len;
    if (span <= 64 && in_place(s, s + span)) {
      if (s + span > end_) end_ = s + span;
      return set_pattern(s, strided_pattern(len, count, stride, span), span);
    }
    book_strided_any(s, len, count, stride);
  }
  [[gnu::noinline]] void book_strided_any(uint64_t s, uint64_t len, uint64_t count, uint64_t stride) {
    if (s < forgotten_) {  // rare: book() drops or cuts the pieces before the forget point
      for (uint64_t k = 0; k < count; ++k) book(s + k * stride, len);
      return;
    }
    const uint64_t span = (count - 1) * stride + len;
    cover(s, s + span);
    if (span <= 64) return set_pattern(s, strided_pattern(len, count, stride, span), span);
    for (uint64_t k = 0; k < count; ++k, s += stride) set_bits(s, s + len);
  }
  // Bit i set: cycle i lies in one of `count` pieces of `len` < `stride` cycles, `stride` apart,
  // spanning `span` <= 64 cycles. The pieces doubled each step (log2 count steps, not count);
  // the copies past the last piece start at count x stride > span and are masked off.
  static uint64_t strided_pattern(uint64_t len, uint64_t count, uint64_t stride, uint64_t span) {
    uint64_t pattern = len >= 64 ? ~uint64_t{0} : (uint64_t{1} << len) - 1;  // one piece of 64: count 1
    for (uint64_t have = 1; have < count && have * stride < 64; have *= 2) pattern |= pattern << (have * stride);
    return span == 64 ? pattern : pattern & ((uint64_t{1} << span) - 1);
  }

  // Forgets bookings that ended by t (whole words before t); cheap when t has not moved.
  void forget_before(uint64_t t) { forget(t, true); }
  // forget_before(t) for an owner whose searches and bookings all start at or after t, run only
  // once the forget point lags t by `step` cycles. A search from s reads no bit before s (fits
  // look forward from their start; remembered ranges hold for starts from theirs), so the
  // cycles before t are never read again, forgotten or not: the answers are those of forgetting
  // at every call, and forgetting only bounds memory (by the span plus `step`). A crossbar with
  // hundreds of SMs would otherwise read and clear a cold word of an SM port's ring at every
  // request: replies are booked tens of thousands of cycles ahead, and "now" is far behind them.
  // The first word kept is not cleared before t either: reading it back was a cold line too.
  void forget_lagging(uint64_t t, uint64_t step) {
    if (t >= forgotten_ + step) forget(t, false);
  }

  // Bit i set: cycle s + i is booked (the 64 cycles from s; before the forget point, free).
  uint64_t window(uint64_t s) const {
    if (count_ == 0 || s + 64 <= base_ || s >= base_ + 64 * count_) return 0;
    if (s < base_) return word(0) << (base_ - s);
    const uint64_t w = (s - base_) >> 6, off = (s - base_) & 63;
    uint64_t bits = word(w) >> off;
    if (off && w + 1 < count_) bits |= word(w + 1) << (64 - off);
    return bits;
  }
  // window(s) and window(s + 64) from one read of the three words they span (a DRAM column fit
  // takes both for two tables per step; each window() checks the bounds and finds its words anew).
  void window_pair(uint64_t s, uint64_t& lo, uint64_t& hi) const {
    if (s < base_) {  // rare: starts before the bitmap (or the bitmap is empty)
      lo = window(s), hi = window(s + 64);
      return;
    }
    const uint64_t w = (s - base_) >> 6, off = (s - base_) & 63;
    const uint64_t a = word_or_free(w), b = word_or_free(w + 1);
    if (off == 0) {
      lo = a, hi = b;
      return;
    }
    const uint64_t c = word_or_free(w + 2);
    lo = a >> off | b << (64 - off);
    hi = b >> off | c << (64 - off);
  }
  // Bit i set: [s + i, s + i + len) is free, i.e. earliest(s + i, len) == s + i (len <= 64). A
  // caller fitting one slot into several tables ANDs these words: a joint search 64 cycles a step.
  uint64_t free_starts(uint64_t s, uint64_t len) const {
    if (len == 0) return ~uint64_t{0};
    uint64_t lo, hi;
    window_pair(s, lo, hi);
    return fit_starts(lo, hi, len);
  }

  // Bit i set: the `len` (<= 64) cycles from bit i of a word on are free, given the word's busy
  // bits and the next word's. The free bits ANDed with themselves shifted, the run length doubling.
  static uint64_t fit_starts(uint64_t busy, uint64_t next_busy, uint64_t len) {
    // Two cycles (a DRAM burst and tCCD window on the bundled platforms, column_starts' two
    // tables per step) without the loop: a free bit whose next one, across into next_busy, is free.
    if (len == 2) return ~busy & (~busy >> 1 | ~next_busy << 63);
    unsigned __int128 fit = (static_cast<unsigned __int128>(~next_busy) << 64) | ~busy;
    for (uint64_t k = 1; k < len;) {
      const uint64_t step = std::min(k, len - k);
      fit &= fit >> step;
      k += step;
    }
    return static_cast<uint64_t>(fit);
  }
  // Maximal runs of busy cycles (tests).
  size_t intervals() const {
    size_t runs = 0;
    bool prev = false;
    for (uint64_t c = base_; c < base_ + 64 * count_; ++c) {
      const bool b = busy(c);
      runs += b && !prev;
      prev = b;
    }
    return runs;
  }
  uint64_t end() const { return end_; }  // end of the latest booking
  size_t words() const { return ring_.size(); }  // memory held, in 64-bit words (tests)

 private:
  // forget_before() whose caller never again searches or books before t (forget_lagging): the
  // bits of the first word kept that lie before t may stay, as no query reads them.
  void forget(uint64_t t, bool clear_first_word) {
    if (t <= forgotten_) return;
    forgotten_ = t;
    // The words wholly before t leave at once (a port idle for thousands of cycles, e.g. an SM's
    // reply port with hundreds of SMs, would step through each); push_back clears reused words.
    if (count_ > 0 && base_ + 64 <= t) {
      const uint64_t k = std::min<uint64_t>(count_, (t - base_) >> 6);
      head_ = (head_ + k) & mask_;
      count_ -= k;
      base_ += 64 * k;
    }
    if (clear_first_word && count_ > 0 && t > base_) word(0) &= ~((uint64_t{1} << (t - base_)) - 1);
    // The forgotten past counts as free: what is remembered holds from t on only.
    if (count_ == 0 || run_end_ <= t) run_begin_ = run_end_ = 0;
    else run_begin_ = std::max(run_begin_, t);
    if (count_ == 0 || no_slot_to_ <= t) no_slot_from_ = no_slot_to_ = 0;
    else no_slot_from_ = std::max(no_slot_from_, t);
  }

  // [s, e) lies at or after the forget point and within the bitmap as it is: booked in place
  // (book() and book_strided()'s inline paths), with no growing or cutting.
  bool in_place(uint64_t s, uint64_t e) const { return s >= forgotten_ && s >= base_ && e <= base_ + 64 * count_; }
  // Grows the bitmap to hold [s, e) (s at or after the forget point).
  void cover(uint64_t s, uint64_t e) {
    if (count_ == 0) {
      head_ = 0;
      base_ = std::max(s, forgotten_) & ~uint64_t{63};
    }
    while (s < base_) {  // an earlier gap: grow the bitmap at the front
      push_front();
      base_ -= 64;
    }
    if (base_ + 64 * count_ < e) push_back((e - base_ - 64 * count_ + 63) >> 6);
    if (e > end_) end_ = e;
  }
  // Bit i of `pattern` (its `span` <= 64 low bits) books cycle s + i: ORed into the one or two
  // words it covers.
  void set_pattern(uint64_t s, uint64_t pattern, uint64_t span) {
    const uint64_t w = (s - base_) >> 6, off = (s - base_) & 63;
    word(w) |= pattern << off;
    if (off + span > 64) word(w + 1) |= pattern >> (64 - off);
  }
  // set_pattern() for words just appended (zero): stores, no read.
  void store_pattern(uint64_t s, uint64_t pattern, uint64_t span) {
    const uint64_t w = (s - base_) >> 6, off = (s - base_) & 63;
    word(w) = pattern << off;
    if (off + span > 64) word(w + 1) = pattern >> (64 - off);
  }
  void set_bits(uint64_t s, uint64_t e) {
    if (e - s <= 64)  // most bookings (a packet's flits, a burst): one or two words, no loop
      return set_pattern(s, e - s == 64 ? ~uint64_t{0} : (uint64_t{1} << (e - s)) - 1, e - s);
    for (uint64_t c = s; c < e;) {
      const uint64_t w = (c - base_) >> 6, off = (c - base_) & 63;
      const uint64_t n = std::min<uint64_t>(64 - off, e - c);
      const uint64_t mask = (n == 64 ? ~uint64_t{0} : ((uint64_t{1} << n) - 1)) << off;
      word(w) |= mask;
      c += n;
    }
  }
  static constexpr int kJointWords = 8;  // earliest_in_both's word walk, 512 cycles
  // The busy bits of the 64 cycles from `w`, a multiple of 64 (0 outside the bitmap: free).
  uint64_t aligned_word(uint64_t w) const {
    const uint64_t i = (w - base_) >> 6;  // wraps for w < base_, which reads as free
    return w >= base_ ? word_or_free(i) : 0;
  }
  // Word i of the bitmap, 0 (free) past its last word.
  uint64_t word_or_free(uint64_t i) const { return i < count_ ? word(i) : 0; }
  uint64_t& word(uint64_t i) { return ring_[(head_ + i) & mask_]; }
  uint64_t word(uint64_t i) const { return ring_[(head_ + i) & mask_]; }
  void grow() {  // doubles the ring, keeping the words in order from index 0
    std::vector<uint64_t> r(std::max<size_t>(16, 2 * ring_.size()), 0);
    for (size_t i = 0; i < count_; ++i) r[i] = word(i);
    ring_.swap(r);
    mask_ = ring_.size() - 1;
    head_ = 0;
  }
  // Appends n free words: a booking far past the last (a reply on an SM's port, thousands of
  // cycles out with hundreds of SMs) clears the gap as one or two runs of the ring, not word by word.
  void push_back(size_t n) {
    if (n == 1 && count_ < ring_.size()) {  // the usual step: the next word
      word(count_++) = 0;
      return;
    }
    while (count_ + n > ring_.size()) grow();
    const size_t first = (head_ + count_) & mask_;
    const size_t run = std::min(n, ring_.size() - first);
    std::fill_n(ring_.begin() + first, run, uint64_t{0});
    std::fill_n(ring_.begin(), n - run, uint64_t{0});
    count_ += n;
  }
  void push_front() {
    if (count_ == ring_.size()) grow();
    head_ = (head_ + mask_) & mask_;
    ++count_;
    word(0) = 0;
  }
  bool busy(uint64_t c) const {
    if (c < base_) return false;
    const uint64_t w = (c - base_) >> 6;
    return w < count_ && ((word(w) >> ((c - base_) & 63)) & 1);
  }
  // earliest()'s search, gap by gap: to the next free cycle, then whether `len` fit from there.
  // Past a few gaps too short for it (a fragmented table) the search goes on by words.
  uint64_t fit_by_gaps(uint64_t s, uint64_t len, bool memo) const {
    for (int gaps = 0;; ++gaps) {
      if (gaps == 4 && len <= 64) return fit_by_words(s, len, memo);
      if (memo && no_slot_from_ <= s && s < no_slot_to_) s = no_slot_to_;
      s = next_free(s);
      if (memo && no_slot_from_ <= s && s < no_slot_to_) continue;
      const uint64_t b = next_busy(s, s + len);
      if (b == s + len) return s;
      s = b;
    }
  }
  // The same answer a word at a time (len <= 64): the starts of `len` free cycles in a word are
  // its free bits ANDed with themselves shifted (over the word and the next, so a slot may cross
  // into it). A fragmented table, e.g. a partition's crossbar port interleaving the context lines
  // of every SM, is passed at a few operations per 64 cycles rather than per gap.
  uint64_t fit_by_words(uint64_t s, uint64_t len, bool memo) const {
    for (;;) {
      if (memo && no_slot_from_ <= s && s < no_slot_to_) s = no_slot_to_;
      if (run_begin_ <= s && s < run_end_) s = run_end_;  // known busy: no slot starts there
      if (s < base_) {  // free before the bitmap: a slot there either fits or runs into it
        if (s + len <= base_) return s;
        const uint64_t b = next_busy(base_, s + len);
        if (b == s + len) return s;
        s = b;
        continue;
      }
      const uint64_t w = (s - base_) >> 6;
      if (w >= count_) return s;  // past every booking
      const uint64_t lo = word(w);
      if (lo == ~uint64_t{0}) {  // all busy: nothing starts in this word
        s = base_ + ((w + 1) << 6);
        continue;
      }
      const uint64_t hi = word_or_free(w + 1);
      const uint64_t starts = fit_starts(lo, hi, len) & (~uint64_t{0} << ((s - base_) & 63));
      if (starts) return base_ + (w << 6) + uint64_t(__builtin_ctzll(starts));
      s = base_ + ((w + 1) << 6);
    }
  }
  // First busy cycle in [from, limit), or limit.
  uint64_t next_busy(uint64_t from, uint64_t limit) const {
    uint64_t c = from < base_ ? base_ : from;
    while (c < limit) {
      const uint64_t w = (c - base_) >> 6;
      if (w >= count_) return limit;
      const uint64_t bits = word(w) >> ((c - base_) & 63);
      if (bits) {
        const uint64_t hit = c + __builtin_ctzll(bits);
        return hit < limit ? hit : limit;
      }
      c = base_ + ((w + 1) << 6);
    }
    return limit;
  }
  // First free cycle at or after `from`. A long busy run found once is remembered (bookings only
  // add busy cycles, so it stays busy): requests queued behind the same backlog, such as the
  // lines of a context save on the SM's crossbar port, skip it instead of rescanning it.
  uint64_t next_free(uint64_t from) const {
    uint64_t c = from;
    const bool in_run = run_begin_ <= c && c < run_end_;
    if (in_run) c = run_end_;
    for (;;) {
      if (c < base_) break;
      const uint64_t w = (c - base_) >> 6;
      if (w >= count_) break;
      const uint64_t bits = ~word(w) >> ((c - base_) & 63);
      if (bits) {
        c += __builtin_ctzll(bits);
        break;
      }
      c = base_ + ((w + 1) << 6);
    }
    if (c - from >= 128) {  // [from, c) is busy: remember it, joined to the run it started in
      if (!in_run) run_begin_ = from;
      run_end_ = c;
    }
    return c;
  }

  std::vector<uint64_t> ring_;  // power-of-two size; words [head_, head_ + count_) in use
  size_t mask_ = 0;             // ring_.size() - 1, kept: every word access wraps with it
  size_t head_ = 0, count_ = 0;
  uint64_t base_ = 0;  // cycle of the first word's bit 0, a multiple of 64
  uint64_t end_ = 0;
  uint64_t forgotten_ = 0;  // bookings before this were dropped
  mutable uint64_t run_begin_ = 0, run_end_ = 0;  // a known fully busy run [begin, end)
  mutable uint64_t no_slot_from_ = 0, no_slot_to_ = 0, no_slot_len_ = 0;  // see earliest()
};

}  // namespace mpgpu
