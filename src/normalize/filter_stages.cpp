// The stages of filter_reads: reader -> workers -> decider -> writer (see
// filter_stages.hpp). Only the decider touches the sketch, and it takes
// chunks strictly by serial number, so every decision sees the same sketch
// state whatever the number of workers.
#include <algorithm>
#include <chrono>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>

#include "seqio/queues.hpp"
#include "common/format.hpp"
#include "kmer/kmer.hpp"
#include "normalize/filter_stages.hpp"

namespace kmerbloom::detail {
namespace {

using Clock = std::chrono::steady_clock;

// Prefetch distance, in k-mers, in the solid k-mer table and the sketch. Both
// are far larger than the cache, so every k-mer is a miss; a whole read
// prefetched at once would overflow the CPU's queue of outstanding misses.
constexpr uint32_t kAhead = 16;

enum : uint8_t { kOk = 0, kWeak = 1, kShort = 2 };

struct ReadPrep {
  uint64_t hash_off = 0;  // first hash in Chunk::hashes
  uint32_t kmers = 0;     // k-mers of the part kept (all of them unless trimmed)
  uint32_t in_length = 0;
  uint32_t length = 0;    // bases written out
  uint8_t status = kOk;
};

struct Chunk {
  uint64_t serial = 0;
  uint32_t file_index = 0;
  RecordBatch a, b;             // b: mate 2 when reading two files
  std::vector<ReadPrep> prep;   // per read, in fragment order: mate 1, mate 2, mate 1, ...
  std::vector<uint64_t> hashes; // k-mer hashes of all reads, in read order
  std::vector<uint8_t> keep;    // per fragment
};
using ChunkPtr = std::unique_ptr<Chunk>;
using Channel = HandOff<Chunk>;
using Ordered = SerialOrder<Chunk>;

// "FILE: record N (line L)" for record i of batch b, the reader's form.
std::string where(const std::string& path, const RecordBatch& b, size_t i) {
  return display_name(path) + ": record " + std::to_string(b.first_record + i + 1) + " (line " +
         std::to_string(b.records[i].line) + ")";
}

std::string quoted(std::string_view s) {
  std::string q;
  q.reserve(s.size() + 2);
  q.push_back('\'');
  q.append(s);
  q.push_back('\'');
  return q;
}

const char* format_name(SeqFormat f) { return f == SeqFormat::fasta ? "FASTA" : "FASTQ"; }

// Copies record i of src to the end of dst.
void append_record(RecordBatch& dst, const RecordBatch& src, size_t i) {
  RecordBatch::Record r = src.records[i];
  const std::string_view name = src.name(i), seq = src.seq(i), qual = src.qual(i);
  r.name_off = dst.arena.size();
  dst.arena.append(name);
  r.seq_off = dst.arena.size();
  dst.arena.append(seq);
  r.qual_off = dst.arena.size();
  dst.arena.append(qual);
  dst.records.push_back(r);
  dst.bases += seq.size();
}

// One past the last base of k-mer j (0-based, in the order for_each_kmer
// yields them) in seq.
uint32_t kmer_end(std::string_view seq, unsigned k, size_t j) {
  size_t run = 0, seen = 0;
  for (size_t i = 0; i < seq.size(); ++i) {
    if (kBaseCode[static_cast<uint8_t>(seq[i])] > 3) {
      run = 0;
    } else if (++run >= k && seen++ == j) {
      return static_cast<uint32_t>(i + 1);
    }
  }
  return static_cast<uint32_t>(seq.size());
}

template <class W>
class Stages {
 public:
  Stages(const ReadFilterOptions& o, GatedSketch* sketch, const CountTable<W>* solid, const ReadFilterSink& sink,
         ReadFilterResult& r, PipelineProgress* progress)
      : o_(o), sketch_(sketch), solid_(solid), sink_(sink), r_(r), progress_(progress), shape_(o.k, true),
        mates_(o.paired() ? 2 : 1), split_(o.paired_files || (o.interleaved && o.split_mates)) {}

  // The stages: the writer on this thread, the reader, the workers and the
  // one who decides on threads of their own; the first error stops them all.
  void run() {
    const unsigned workers = o_.threads ? o_.threads : 1;
    for (unsigned i = 0; i < 2 * workers + 4; ++i) free_.push(std::make_unique<Chunk>());
    detail::run_on_threads(
        workers + 3,
        [this, workers](unsigned id) {
          if (id == 0) write_all();
          else if (id == 1) read_all();
          else if (id <= workers + 1) work_all();
          else decide_all();
        },
        [this] { abort(); });
  }

 private:
  void abort() {
    free_.abort();
    work_.abort();
    reorder_.abort();
    write_.abort();
  }

  // ---- reader ---------------------------------------------------------------
  // What the reader has read so far, for a progress meter: raw bytes of
  // the open files (`now`) on top of the files done.
  void count_read(const RecordBatch& b, uint64_t now) {
    if (!progress_) return;
    progress_->raw_bytes = done_bytes_ + now;
    progress_->records += b.size();
    progress_->bases += b.bases;
  }

  void read_all() {
    uint64_t serial = 0;
    if (o_.paired_files) {
      read_two_files(serial);
    } else {
      for (size_t f = 0; f < o_.inputs.size(); ++f)
        if (!read_one_file(f, serial)) break;
    }
    reorder_.finish(serial);
    work_.close();
  }

  void check_format(SeqFormat f, size_t file) {
    if (f == SeqFormat::unknown) return;
    if (r_.format == SeqFormat::unknown) r_.format = f;
    if (f != r_.format)
      throw InputError(display_name(o_.inputs[file]) + ": " + format_name(f) + " input, but the inputs before it are " +
                       format_name(r_.format) + " (filter writes one format)");
  }

  bool read_one_file(size_t f, uint64_t& serial) {
    SequenceReader rd(o_.inputs[f]);
    if (progress_) progress_->raw_total += rd.raw_size();
    for (;;) {
      ChunkPtr c;
      if (!free_.pop(c)) return false;
      c->b.clear();
      if (!rd.next_batch(c->a, o_.batch_bases)) {
        free_.push(std::move(c));
        done_bytes_ += rd.raw_bytes_read();
        return true;
      }
      check_format(c->a.format, f);
      if (o_.interleaved && c->a.size() % 2) {
        // Never split a pair between two chunks.
        if (!rd.next_batch(spare_, 1, 1))
          throw InputError(where(o_.inputs[f], c->a, c->a.size() - 1) +
                           ": interleaved input ends with an unpaired record (an odd number of records)");
        append_record(c->a, spare_, 0);
      }
      count_read(c->a, rd.raw_bytes_read());
      c->serial = serial++;
      c->file_index = static_cast<uint32_t>(f);
      work_.push(std::move(c));
    }
  }

  void read_two_files(uint64_t& serial) {
    SequenceReader r1(o_.inputs[0]), r2(o_.inputs[1]);
    const std::string n1 = display_name(o_.inputs[0]), n2 = display_name(o_.inputs[1]);
    if (progress_) progress_->raw_total += r1.raw_size() + r2.raw_size();
    for (;;) {
      ChunkPtr c;
      if (!free_.pop(c)) return;
      const bool got1 = r1.next_batch(c->a, std::max<uint64_t>(o_.batch_bases / 2, 1));
      const uint64_t want = got1 ? c->a.size() : 1;
      const bool got2 = r2.next_batch(c->b, std::numeric_limits<uint64_t>::max(), want);
      if (!got1) {
        if (got2)
          throw InputError(where(o_.inputs[1], c->b, 0) + ": more records than " + n1 + " (" +
                           std::to_string(r1.records_read()) + " records)");
        free_.push(std::move(c));
        return;
      }
      if (c->b.size() < c->a.size())
        throw InputError(where(o_.inputs[0], c->a, c->b.size()) + ": no mate in " + n2 + ", which ends after " +
                         std::to_string(r2.records_read()) + " records");
      check_format(c->a.format, 0);
      check_format(c->b.format, 1);
      count_read(c->a, r1.raw_bytes_read() + r2.raw_bytes_read());
      if (progress_) progress_->records += c->b.size(), progress_->bases += c->b.bases;
      c->serial = serial++;
      work_.push(std::move(c));
    }
  }

  // ---- workers --------------------------------------------------------------
  struct Scratch {
    std::vector<W> km;
    std::vector<uint64_t> h;
  };

  void work_all() {
    Scratch s;
    ChunkPtr c;
    double busy = 0;
    while (work_.pop(c)) {
      const auto t0 = Clock::now();
      prepare(*c, s);
      busy += seconds_since(t0);
      reorder_.push(std::move(c));
    }
    std::lock_guard lock(time_mu_);
    r_.prepare_seconds += busy;
  }

  size_t reads_in(const Chunk& c) const { return o_.paired_files ? 2 * c.a.size() : c.a.size(); }
  std::pair<const RecordBatch*, size_t> locate(const Chunk& c, size_t read) const {
    if (o_.paired_files) return {read % 2 ? &c.b : &c.a, read / 2};
    return {&c.a, read};
  }

  void check_mates(const Chunk& c) const {
    for (size_t f = 0; f < c.prep.size() / 2; ++f) {
      const auto [b1, i1] = locate(c, 2 * f);
      const auto [b2, i2] = locate(c, 2 * f + 1);
      if (mate_base_name(b1->name(i1)) == mate_base_name(b2->name(i2))) continue;
      const std::string& path2 = o_.inputs[o_.paired_files ? 1 : c.file_index];
      throw InputError(where(path2, *b2, i2) + ": mate name " + quoted(b2->name(i2)) + " does not match " +
                       quoted(b1->name(i1)) + " (" + (o_.paired_files ? display_name(o_.inputs[0]) + " " : "") +
                       "record " + std::to_string(b1->first_record + i1 + 1) + ")");
    }
  }

  void prepare(Chunk& c, Scratch& s) const {
    const size_t n = reads_in(c);
    c.prep.assign(n, ReadPrep{});
    c.hashes.clear();
    if (mates_ == 2) check_mates(c);
    for (size_t r = 0; r < n; ++r) {
      const auto [batch, i] = locate(c, r);
      prepare_read(batch->seq(i), c.prep[r], c.hashes, s);
    }
  }

  void prepare_read(std::string_view seq, ReadPrep& p, std::vector<uint64_t>& hashes, Scratch& s) const {
    s.km.clear();
    for_each_kmer(seq, shape_, [&](W km) { s.km.push_back(km); });
    size_t n = s.km.size();
    p.in_length = p.length = static_cast<uint32_t>(seq.size());
    s.h.resize(n);
    for (size_t i = 0; i < n; ++i) s.h[i] = hash_kmer(s.km[i]);
    if (solid_ && n > 0) {
      size_t first_weak = n;
      for (size_t i = 0; i < std::min<size_t>(n, kAhead); ++i) solid_->prefetch(s.h[i]);
      for (size_t i = 0; i < n; ++i) {
        if (i + kAhead < n) solid_->prefetch(s.h[i + kAhead]);
        if (solid_->count(s.km[i]) < o_.min_count) {
          first_weak = i;
          break;
        }
      }
      if (first_weak < n) {
        if (o_.weak == WeakMode::drop || first_weak == 0) {
          p.status = kWeak;
          return;
        }
        // Keep k-mers 0 .. first_weak-1: the read ends one base before the
        // weak k-mer's last base.
        p.length = kmer_end(seq, o_.k, first_weak) - 1;
        n = first_weak;
      }
    }
    if (n == 0) {
      p.status = kShort;
      return;
    }
    p.hash_off = hashes.size();
    p.kmers = static_cast<uint32_t>(n);
    if (sketch_) hashes.insert(hashes.end(), s.h.begin(), s.h.begin() + static_cast<std::ptrdiff_t>(n));
  }

  // ---- decider --------------------------------------------------------------
  void decide_all() {
    ChunkPtr c;
    for (uint64_t next = 0; reorder_.pop(next, c); ++next) {
      const auto t0 = Clock::now();
      decide(*c);
      r_.decide_seconds += seconds_since(t0);
      write_.push(std::move(c));
    }
    write_.close();
  }

  void prefetch_start(const Chunk& c, const ReadPrep& p) const {
    for (uint32_t i = 0; i < std::min(p.kmers, kAhead); ++i) sketch_->prefetch(c.hashes[p.hash_off + i]);
  }

  // khmer's median_at_least: at least n - floor(n/2) k-mers at >= C.
  bool at_coverage(const Chunk& c, const ReadPrep& p) {
    const uint32_t n = p.kmers, need = n - n / 2, target = o_.target_coverage;
    uint32_t hits = 0, misses = 0;
    const uint64_t* h = c.hashes.data() + p.hash_off;
    for (uint32_t i = 0; i < n; ++i) {
      if (i + kAhead < n) sketch_->prefetch(h[i + kAhead]);
      ++r_.kmers_queried;
      if (sketch_->estimate(h[i]) >= target) {
        if (++hits >= need) return true;
      } else if (++misses > n - need) {
        return false;
      }
    }
    return false;
  }

  void decide(Chunk& c) {
    const size_t frags = c.prep.size() / mates_;
    c.keep.assign(frags, 0);
    for (size_t f = 0; f < frags; ++f) {
      ReadPrep* p = &c.prep[f * mates_];
      if (sketch_ && f + 1 < frags)
        for (size_t m = 0; m < mates_; ++m) prefetch_start(c, p[mates_ + m]);
      uint8_t status = kOk;
      for (size_t m = 0; m < mates_; ++m) {
        r_.in.add(p[m].in_length);
        if (p[m].status == kWeak || (p[m].status == kShort && status == kOk)) status = p[m].status;
      }
      ++r_.fragments_in;
      ReadTally* reason = status == kWeak ? &r_.weak : status == kShort ? &r_.short_reads : nullptr;
      if (!reason && sketch_) {
        bool below = false;
        for (size_t m = 0; m < mates_ && !below; ++m) below = !at_coverage(c, p[m]);
        if (below) {
          for (size_t m = 0; m < mates_; ++m) {
            const uint64_t* h = c.hashes.data() + p[m].hash_off;
            for (uint32_t i = 0; i < p[m].kmers; ++i) {
              if (i + kAhead < p[m].kmers) sketch_->prefetch(h[i + kAhead]);
              sketch_->add(h[i]);
            }
            r_.kmers_added += p[m].kmers;
          }
        } else {
          reason = &r_.above_coverage;
        }
      }
      if (reason) {
        for (size_t m = 0; m < mates_; ++m) reason->add(p[m].in_length);
        continue;
      }
      c.keep[f] = 1;
      ++r_.fragments_out;
      for (size_t m = 0; m < mates_; ++m) {
        r_.kept.add(p[m].in_length);
        r_.out.add(p[m].length);
        if (p[m].length < p[m].in_length) {
          ++r_.trimmed_reads;
          r_.trimmed_bases += p[m].in_length - p[m].length;
        }
      }
    }
  }

  // ---- writer ---------------------------------------------------------------
  void write_all() {
    ChunkPtr c;
    double busy = 0;
    while (write_.pop(c)) {
      const auto t0 = Clock::now();
      emit(*c);
      busy += seconds_since(t0);
      free_.push(std::move(c));
    }
    r_.write_seconds = busy;
  }

  void emit(const Chunk& c) {
    out_[0].clear();
    out_[1].clear();
    for (size_t f = 0; f < c.keep.size(); ++f) {
      if (!c.keep[f]) continue;
      for (size_t m = 0; m < mates_; ++m) {
        const size_t read = f * mates_ + m;
        const auto [batch, i] = locate(c, read);
        const uint32_t len = c.prep[read].length;
        std::string& out = out_[split_ ? m : 0];
        const bool fastq = batch->format == SeqFormat::fastq;
        out += fastq ? '@' : '>';
        out += batch->name(i);
        out += '\n';
        out += batch->seq(i).substr(0, len);
        if (fastq) {
          out += "\n+\n";
          out += batch->qual(i).substr(0, len);
        }
        out += '\n';
      }
    }
    for (unsigned s = 0; s < 2; ++s)
      if (!out_[s].empty()) sink_(s, out_[s]);
  }

  const ReadFilterOptions& o_;
  GatedSketch* sketch_;
  const CountTable<W>* solid_;
  const ReadFilterSink& sink_;
  ReadFilterResult& r_;  // fields written by one stage each: reader (format), decider (tallies), writer, workers (times, locked)
  PipelineProgress* progress_;  // the reader's counts, or null
  uint64_t done_bytes_ = 0;     // of the files read before the current ones
  KmerShape<W> shape_;
  const size_t mates_;
  const bool split_;

  Channel free_, work_, write_;
  Ordered reorder_;
  RecordBatch spare_;
  std::string out_[2];
  std::mutex time_mu_;
};

}  // namespace

template <class W>
void run_filter_stages(const ReadFilterOptions& options, GatedSketch* sketch, const CountTable<W>* solid,
                       const ReadFilterSink& sink, ReadFilterResult& r, PipelineProgress* progress) {
  Stages<W>(options, sketch, solid, sink, r, progress).run();
}

template void run_filter_stages<uint64_t>(const ReadFilterOptions&, GatedSketch*, const CountTable<uint64_t>*,
                                          const ReadFilterSink&, ReadFilterResult&, PipelineProgress*);
template void run_filter_stages<u128>(const ReadFilterOptions&, GatedSketch*, const CountTable<u128>*,
                                      const ReadFilterSink&, ReadFilterResult&, PipelineProgress*);
template void run_filter_stages<Words<4>>(const ReadFilterOptions&, GatedSketch*,
    const CountTable<Words<4>>*, const ReadFilterSink&, ReadFilterResult&, PipelineProgress*);
template void run_filter_stages<Words<8>>(const ReadFilterOptions&, GatedSketch*,
    const CountTable<Words<8>>*, const ReadFilterSink&, ReadFilterResult&, PipelineProgress*);

}  // namespace kmerbloom::detail
