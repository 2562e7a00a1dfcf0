#include "count/scatter.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <stdexcept>

#include "seqio/paths.hpp"
#include "common/format.hpp"
#include "kmer/kmer.hpp"
#include "kmer/minimizer.hpp"

namespace kmerbloom::detail {
namespace {

static_assert(std::endian::native == std::endian::little, "pack_bases reads letters as little-endian words");

// `len` letters (ACGTU, either case) packed four to a byte into out, first
// letter in the top bits; the last byte's unused bits are zero. Eight
// letters at a time: the code of letter j < 4 sits at bit 8j, and one
// multiply by 2^30 + 2^20 + 2^10 + 1 moves a copy of it to bit 30 - 2j, so
// bits 24-31 hold the first packed byte and bits 56-63 the second (every
// partial product lands on bits of its own: no carries). Four letters at a
// time took 6.7 instructions a base (callgrind, 150 bp reads).
void pack_bases(const char* s, uint32_t len, uint8_t* out) {
  uint32_t i = 0;
  for (; i + 8 <= len; i += 8) {
    uint64_t v;
    std::memcpy(&v, s + i, 8);
    const uint64_t x = base_codes8(v) * 0x40100401ULL;
    const auto two = static_cast<uint16_t>(((x >> 24) & 0xff) | ((x >> 48) & 0xff00));  // bytes in memory order
    std::memcpy(out, &two, 2);
    out += 2;
  }
  for (; i + 4 <= len; i += 4) {
    uint32_t v;
    std::memcpy(&v, s + i, 4);
    const uint32_t c = base_codes(v);  // letter j in byte j (little-endian)
    *out++ = static_cast<uint8_t>((c & 0xff) << 6 | ((c >> 8) & 0xff) << 4 | ((c >> 16) & 0xff) << 2 | c >> 24);
  }
  if (i < len) {
    uint8_t last = 0;
    for (unsigned j = 0; i < len; ++i, ++j)
      last |= static_cast<uint8_t>(base_codes(static_cast<uint8_t>(s[i])) << (6 - 2 * j));
    *out = last;
  }
}

}  // namespace

PartitionStore::PartitionStore(uint32_t partitions, Spool& spool, bool tagged)
    : spool_(spool), parts_(partitions), tagged_(tagged) {}

void PartitionStore::add_block(uint32_t p, const uint8_t* data, uint32_t size) {
  Spool::Block b = spool_.put(data, size);
  Part& part = parts_[p];
  std::lock_guard lock(part.mu);
  part.blocks.push_back(std::move(b));
  part.bytes += size;
}

std::vector<Spool::Block> PartitionStore::take(uint32_t p) {
  Part& part = parts_[p];
  std::lock_guard lock(part.mu);
  return std::move(part.blocks);
}

PartitionWriter::PartitionWriter(PartitionStore& store, uint32_t block_bytes, unsigned k)
    : store_(store),
      block_bytes_(block_bytes),
      k_(k),
      tagged_(store.tagged()),
      arena_(new uint8_t[size_t{store.partitions()} * block_bytes]),
      parts_(store.partitions()) {
  if (block_bytes > kMaxBlockBytes) throw std::invalid_argument("PartitionWriter: blocks of more than 64 KiB");
}

void PartitionWriter::begin_batch(uint64_t serial) {
  if (serial > UINT32_MAX) throw std::length_error("PartitionWriter: more than 2^32 batches");
  serial_ = serial;
}

void PartitionWriter::add(uint32_t p, std::string_view bases, uint8_t tag) {
  const auto len = static_cast<uint32_t>(bases.size());
  const uint32_t record = 1 + tagged_ + (len + 3) / 4;
  Part& part = parts_[p];
  if (part.used + record + (part.open ? 0 : sizeof(FragmentHeader)) > block_bytes_) {
    close(p);
    flush(p);
  }
  uint8_t* buf = buffer(p);
  if (!part.open) {
    if (part.number == 0) touched_.push_back(p);
    if (part.number == UINT16_MAX) throw std::length_error("PartitionWriter: more than 65,535 fragments of a partition in a batch");
    const FragmentHeader h{static_cast<uint32_t>(serial_), static_cast<uint16_t>(part.number++), 0};
    part.open = part.used + 1;
    std::memcpy(buf + part.used, &h, sizeof h);
    part.used += sizeof h;
  }
  uint8_t* out = buf + part.used;
  *out++ = static_cast<uint8_t>(len - k_);  // k-mers less one
  if (tagged_) *out++ = tag;
  pack_bases(bases.data(), len, out);
  part.used += record;
  part.kmers += len - k_ + 1;
}

// Writes the open fragment's payload size into its header.
void PartitionWriter::close(uint32_t p) {
  Part& part = parts_[p];
  if (!part.open) return;
  const uint32_t at = part.open - 1;
  const auto bytes = static_cast<uint16_t>(part.used - at - sizeof(FragmentHeader));  // < kMaxBlockBytes
  std::memcpy(buffer(p) + at + offsetof(FragmentHeader, bytes), &bytes, sizeof bytes);
  part.open = 0;
}

void PartitionWriter::flush(uint32_t p) {
  Part& part = parts_[p];
  if (part.used == 0) return;
  store_.add_block(p, buffer(p), part.used);
  part.used = 0;
}

void PartitionWriter::end_batch() {
  for (const uint32_t p : touched_) {
    close(p);
    parts_[p].number = 0;
  }
  touched_.clear();
}

void PartitionWriter::finish() {
  end_batch();
  for (uint32_t p = 0; p < parts_.size(); ++p) flush(p);
  arena_.reset();
}

std::vector<uint64_t> PartitionWriter::kmers() const {
  std::vector<uint64_t> n(parts_.size());
  for (size_t p = 0; p < parts_.size(); ++p) n[p] = parts_[p].kmers;
  return n;
}

void load_partition(PartitionStore& store, uint32_t p, LoadedPartition& out) {
  std::vector<Spool::Block> blocks = store.take(p);
  uint64_t total = 0;
  for (const auto& b : blocks) total += b.size;
  out.data.resize(total);
  out.tagged = store.tagged();
  out.fragments.clear();
  uint64_t at = 0;
  for (auto& b : blocks) {
    store.spool().read(b, out.data.data() + at);
    store.spool().release(b);
    const uint64_t end = at + b.size;
    while (at < end) {
      FragmentHeader h;
      std::memcpy(&h, out.data.data() + at, sizeof h);
      out.fragments.push_back({h.serial, h.number, h.bytes, at + sizeof h});
      at += sizeof h + h.bytes;
    }
  }
  std::sort(out.fragments.begin(), out.fragments.end(), [](const auto& a, const auto& b) {
    return a.serial != b.serial ? a.serial < b.serial : a.number < b.number;
  });
}

std::vector<uint64_t> scatter_input(const CountOptions& o, const CountPlan& plan, PartitionStore& store,
                                    PipelineProgress& progress, InputSummary& sum) {
  std::vector<std::unique_ptr<PartitionWriter>> writers;
  std::vector<SuperKmerSplitter> splitters;
  std::vector<PerWorker<InputSummary>> sums(o.threads);
  for (unsigned i = 0; i < o.threads; ++i) {
    writers.push_back(std::make_unique<PartitionWriter>(store, plan.block_bytes, o.k));
    splitters.emplace_back(o.k, plan.minimizer, o.canonical);
  }
  PipelineOptions popt;
  popt.workers = o.threads;
  popt.batch_bases = o.batch_bases;
  popt.piece_k = o.k;
  popt.batches = plan.read_batches;
  const uint32_t parts = plan.partitions;
  try {
    run_pipeline(
        o.inputs, popt,
        [&](const RecordBatch& batch, unsigned id) {
          PartitionWriter& w = *writers[id];
          InputSummary& s = sums[id].value;
          w.begin_batch(batch.serial);
          for (size_t i = 0; i < batch.size(); ++i) {
            const std::string_view seq = batch.seq(i);
            // A piece's first k - 1 bases were counted with the piece before.
            const bool all_bases = s.add_record(batch, i) == 0 && batch.new_bases(i).size() == seq.size();
            splitters[id].split(seq, [&](size_t begin, size_t len, uint64_t minimizer) {
              const MinimizerPlace at = minimizer_place(minimizer, parts);
              w.add(at.partition, seq.substr(begin, len), at.tag);
            }, all_bases);
          }
          w.end_batch();
        },
        &progress);
    for (auto& w : writers) w->finish();
    store.spool().flush();  // the last staged bytes: a full disk is found in this pass, where it is projected
  } catch (const SpoolError& e) {
    if (!e.disk_full()) throw;
    // Project what the spool takes in (memory and disk) over the whole
    // input, every file and not only those opened so far, from the share
    // read; the disk holds all of it but the memory budget.
    const Spool& spool = store.spool();
    const uint64_t read = progress.raw_bytes.load(), total = input_bytes_total(o.inputs);
    const double taken = static_cast<double>(e.written() + spool.memory_bytes());
    const double projected = read ? taken * static_cast<double>(total) / static_cast<double>(read) : 0;
    const uint64_t disk = static_cast<uint64_t>(std::max(projected - static_cast<double>(spool.memory_budget()),
                                                         static_cast<double>(e.written())));
    const std::string need = total && read ? ", about " + format_megabytes(disk) + " needed" : "";
    throw SpoolError(e.dir() + ": no space left for temporary files (" + format_megabytes(e.written()) + " written" + need +
                         "); free space there, choose another directory with --tmp-dir, or raise -M",
                     e.dir(), e.written(), true);
  }
  std::vector<uint64_t> kmers(parts, 0);
  for (unsigned i = 0; i < o.threads; ++i) {
    sum.add(sums[i].value);
    const std::vector<uint64_t> n = writers[i]->kmers();
    for (uint32_t p = 0; p < parts; ++p) kmers[p] += n[p];
  }
  return kmers;
}

}  // namespace kmerbloom::detail
