// kmerbloom index and kmerbloom lookup: random access to a sorted count file
// through its index (lookup/count_index.hpp).
// g++ 12 warns a false -Wrestrict inside CLI11's option formatter as inlined here (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

#include "commands.hpp"
#include "common/error.hpp"
#include "common/format.hpp"
#include "formats/count_file.hpp"
#include "formats/output.hpp"
#include "lookup/count_index.hpp"
#include "seqio/reader.hpp"
#include "subcommand.hpp"

namespace kmerbloom::cli {
namespace {

// K-mers looked up at once: sorted, so that each block is read once however
// many of them fall in it (about 50 bytes each at k = 31).
constexpr size_t kBatchKmers = size_t{1} << 17;
constexpr uint64_t kBatchBases = uint64_t{1} << 20;  // --reads: bases of sequence a batch

struct IndexArgs {
  std::string counts, output;
  bool canonical = false, no_canonical = false;
};

int run_index(const IndexArgs& a) {
  const std::string out = a.output.empty() ? default_index_path(a.counts) : a.output;
  check_outputs_first({{"input", a.counts}}, {{"-o", out}});
  CountIndexOptions o;
  if (a.canonical || a.no_canonical) o.canonical = a.canonical;
  const CountIndexSummary s = build_count_index(a.counts, out, o);
  spdlog::info("{}: {} {}-mers ({}) in {} blocks of about {} bytes; index {} ({:.2f}% of the file)", out,
               format_count(s.kmers), s.k, s.canonical ? "canonical" : "as read", format_count(s.blocks), s.block_bytes,
               format_bytes(static_cast<double>(s.index_bytes)), s.file_bytes ? 100.0 * double(s.index_bytes) / double(s.file_bytes) : 0.0);
  return kExitOk;
}

struct LookupArgs {
  std::string counts, index, output = "-", kmer_file;
  std::vector<std::string> kmers, reads;
  bool json = false, per_kmer_counts = false;
  unsigned threads = default_threads();
};

// K-mers from the command line and --kmers, in batches, out in their order.
void lookup_kmers(const LookupArgs& a, const CountIndex& idx, OutputFile& out, nlohmann::json* js) {
  std::string arena;  // the batch's k-mers end to end, as given
  std::vector<size_t> ends;
  std::vector<std::string_view> views;
  const auto flush = [&] {
    views.clear();
    for (size_t i = 0, at = 0; i < ends.size(); at = ends[i++]) views.emplace_back(arena.data() + at, ends[i] - at);
    const std::vector<uint64_t> c = idx.counts(views, a.threads);
    for (size_t i = 0; i < views.size(); ++i) {
      if (js) {
        js->push_back({{"kmer", views[i]}, {"count", c[i]}});
      } else {
        out.write(views[i]);
        out.put('\t');
        out.put_uint(c[i]);
        out.put('\n');
      }
    }
    arena.clear();
    ends.clear();
  };
  const auto add = [&](std::string_view kmer) {
    if (ends.size() == kBatchKmers) flush();
    arena.append(kmer);
    ends.push_back(arena.size());
  };
  for (const std::string& k : a.kmers) {
    idx.check(k);  // a usage error names the k-mer
    add(k);
  }
  if (!a.kmer_file.empty()) {
    const auto in = open_count_file(a.kmer_file, {.buffer_bytes = size_t{1} << 20, .kmer_list = true});
    KmerCount r;
    while (in->next(r)) {
      try {
        if (ends.size() == kBatchKmers) flush();
        idx.check(r.kmer);  // named with its line
        add(r.kmer);
      } catch (const std::invalid_argument& e) {
        in->fail(e.what());
      }
    }
  }
  try {
    flush();
  } catch (const std::invalid_argument& e) {
    throw InputError(display_name(a.kmer_file) + ": " + e.what());
  }
}

// Per sequence of --reads: its k-mers (windows of A, C, G, T only), how many
// the set holds, that share, and with --counts every window's count. Long
// records come in pieces overlapping by k - 1 bases, so a batch's look-ups
// stay bounded whatever the sequence; a record's figures add up over them.
void lookup_reads(const LookupArgs& a, const CountIndex& idx, OutputFile& out, nlohmann::json* js) {
  if (!js) out.write(a.per_kmer_counts ? "name\tkmers\tfound\tshare_present\tcounts\n" : "name\tkmers\tfound\tshare_present\n");
  const unsigned k = idx.k();
  struct Row {  // the record being read
    std::string name;
    uint64_t kmers = 0, found = 0;
    std::vector<uint64_t> counts;  // with --counts
    bool open = false;
  } row;
  const auto emit = [&] {
    if (!row.open) return;
    const double share = row.kmers ? double(row.found) / double(row.kmers) : 0.0;
    if (js) {
      nlohmann::json j = {{"name", row.name}, {"kmers", row.kmers}, {"found", row.found}, {"share_present", share}};
      if (a.per_kmer_counts) j["counts"] = row.counts;
      js->push_back(std::move(j));
    } else {
      out.write(row.name);
      out.write(fmt::format("\t{}\t{}\t{:.6f}", row.kmers, row.found, share));
      for (size_t j = 0; a.per_kmer_counts && j < row.counts.size(); ++j) {
        out.put(j ? ',' : '\t');
        out.put_uint(row.counts[j]);
      }
      if (a.per_kmer_counts && row.counts.empty()) out.put('\t');
      out.put('\n');
    }
    row.open = false;
  };
  RecordBatch batch;
  std::vector<std::string_view> views;
  std::vector<size_t> first;  // first window of each record piece in views
  for (const std::string& path : a.reads) {
    SequenceReader reader(path);
    if (k) reader.set_pieces(std::max<uint64_t>(kBatchBases / 4, k), k - 1);
    while (reader.next_batch(batch, kBatchBases)) {
      views.clear();
      first.clear();
      for (size_t i = 0; i < batch.size(); ++i) {
        first.push_back(views.size());
        const std::string_view s = batch.seq(i);
        size_t run = 0;  // A, C, G, T (any case, U) ending at j
        for (size_t j = 0; j < s.size(); ++j) {
          run = kBaseCode[static_cast<uint8_t>(s[j])] < 4 ? run + 1 : 0;
          if (k && run >= k) views.push_back(s.substr(j + 1 - k, k));
        }
      }
      first.push_back(views.size());
      const std::vector<uint64_t> c = idx.counts(views, a.threads);
      for (size_t i = 0; i < batch.size(); ++i) {
        if (batch.starts_read(i)) {
          emit();
          row.name.assign(batch.name(i));
          row.kmers = row.found = 0;
          row.counts.clear();
          row.open = true;
        }
        for (size_t j = first[i]; j < first[i + 1]; ++j) {
          row.found += c[j] > 0;
          if (a.per_kmer_counts) row.counts.push_back(c[j]);
        }
        row.kmers += first[i + 1] - first[i];
      }
    }
    emit();
  }
}

int run_lookup(const LookupArgs& a) {
  if (a.kmers.empty() && a.kmer_file.empty() && a.reads.empty())
    throw std::invalid_argument("nothing to look up: give k-mers, --kmers FILE or --reads FILE");
  if (!a.reads.empty() && (!a.kmers.empty() || !a.kmer_file.empty()))
    throw std::invalid_argument("--reads gives a table per sequence: look up k-mers (arguments, --kmers) in another run");
  if (a.per_kmer_counts && a.reads.empty()) throw std::invalid_argument("--counts applies to --reads");
  std::vector<NamedPath> ins = {{"input", a.counts}};
  if (!a.kmer_file.empty()) ins.push_back({"--kmers", a.kmer_file});
  for (const auto& r : a.reads) ins.push_back({"--reads", r});
  check_outputs_first(ins, {{"-o", a.output}});
  const CountIndex idx(a.counts, a.index);
  OutputFile out(a.output);
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json* js = a.json ? &rows : nullptr;
  if (a.reads.empty()) lookup_kmers(a, idx, out, js);
  else lookup_reads(a, idx, out, js);
  if (js) {
    const nlohmann::json doc = {{"counts", a.counts}, {"k", idx.k()}, {"canonical", idx.canonical()},
                                {a.reads.empty() ? "kmers" : "sequences", rows}};
    out.write(doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");  // names need not be UTF-8
  }
  out.commit();
  return kExitOk;
}

}  // namespace

Action setup_index(CLI::App& sub) {
  auto a = std::make_shared<IndexArgs>();
  sub.add_option("counts", a->counts,
                 "Sorted count file: TSV (plain) or KFF as count, merge-counts and sets write them")
      ->required();
  sub.add_option("-o,--output", a->output, "Index file (default: COUNTS.kbi, where lookup looks for it)");
  auto* c = sub.add_flag("--canonical", a->canonical,
                         "TSV: the set was counted canonically (default: told by its k-mers; KFF says it itself)");
  sub.add_flag("--no-canonical", a->no_canonical, "TSV: the set was counted as read (count --no-canonical)")->excludes(c);
  return [a] { return run_index(*a); };
}

Action setup_lookup(CLI::App& sub) {
  auto a = std::make_shared<LookupArgs>();
  sub.add_option("counts", a->counts, "Indexed count file (kmerbloom index COUNTS makes COUNTS.kbi)")->required();
  sub.add_option("kmers", a->kmers, "K-mers to look up (k letters A, C, G, T)");
  sub.add_option("--kmers", a->kmer_file, "File of k-mers, one a line (its first field), plain or gzip; - is stdin");
  sub.add_option("--reads", a->reads,
                 "FASTA/FASTQ (plain or gzip): per sequence its k-mers, those found, their share")
      ->expected(1, -1);
  sub.add_flag("--counts", a->per_kmer_counts, "With --reads: every k-mer's count, comma-separated, in sequence order");
  sub.add_option("-i,--index", a->index, "Index file (default: COUNTS.kbi)");
  sub.add_option("-t,--threads", a->threads, "Threads looking k-mers up (default: all cores)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  sub.add_flag("--json", a->json, "JSON instead of TSV");
  sub.add_option("-o,--output", a->output, "Where to write; - is stdout")->capture_default_str();
  return [a] { return run_lookup(*a); };
}

}  // namespace kmerbloom::cli
