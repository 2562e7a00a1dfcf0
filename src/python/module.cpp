// The Python module `kmerbloom` (pybind11): count reads into a file with the
// library's engine, open a sorted count file, iterate it lazily or in numpy
// chunks, look k-mers up through its index (lookup/count_index.hpp), read
// histograms. docs/python.md shows it in use. Long calls release the GIL;
// the library's exceptions become kmerbloom.InputError, kmerbloom.BudgetError
// and kmerbloom.OutputError (subclasses of kmerbloom.Error), its usage
// errors ValueError, all with the command line's message.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/error.hpp"
#include "count/counter.hpp"
#include "formats/histogram_file.hpp"
#include "formats/sorted_counts.hpp"
#include "kmer/kmer.hpp"
#include "lookup/count_index.hpp"

namespace py = pybind11;
using namespace kmerbloom;

namespace {

py::array_t<uint64_t> to_numpy(std::vector<uint64_t> v) {
  auto* held = new std::vector<uint64_t>(std::move(v));
  py::capsule owner(held, [](void* p) { delete static_cast<std::vector<uint64_t>*>(p); });
  return py::array_t<uint64_t>({held->size()}, {sizeof(uint64_t)}, held->data(), owner);
}

unsigned threads_or_all(unsigned threads) { return threads ? threads : std::max(1u, std::thread::hardware_concurrency()); }

// A count file: streamed for iteration, indexed for look-ups.
class CountFile {
 public:
  CountFile(std::string path, std::optional<std::string> index) : path_(std::move(path)), index_path_(index.value_or("")) {}

  // Opened on first use, with the GIL released; kept by the first thread to
  // come back (under the GIL), so an index in use is never replaced.
  const CountIndex& index() {
    if (!idx_) {
      std::unique_ptr<CountIndex> opened;
      {
        py::gil_scoped_release unlocked;
        opened = std::make_unique<CountIndex>(path_, index_path_);
      }
      if (!idx_) idx_ = std::move(opened);
    }
    return *idx_;
  }
  unsigned k() { return index().k(); }
  bool canonical() { return index().canonical(); }
  uint64_t size() { return index().summary().kmers; }
  uint64_t count(const std::string& kmer) { return index().count(kmer); }
  bool contains(const std::string& kmer) { return count(kmer) > 0; }
  // Any iterable of str or bytes (a list, a numpy array of them, a
  // generator): looked up in place, no copy made of their letters, the
  // objects held (a tuple of them) while the GIL is released.
  py::array_t<uint64_t> counts(const py::iterable& kmers, unsigned threads) {
    const CountIndex& idx = index();
    const py::tuple held = py::reinterpret_steal<py::tuple>(PySequence_Tuple(kmers.ptr()));
    if (!held) throw py::error_already_set();
    std::vector<std::string_view> views;
    views.reserve(held.size());
    for (const py::handle item : held) {
      const char* data = nullptr;
      Py_ssize_t size = 0;
      if (PyUnicode_Check(item.ptr())) {
        data = PyUnicode_AsUTF8AndSize(item.ptr(), &size);
      } else if (PyBytes_Check(item.ptr())) {
        char* bytes = nullptr;
        if (PyBytes_AsStringAndSize(item.ptr(), &bytes, &size) == 0) data = bytes;
      } else {
        throw py::type_error("k-mers are str or bytes, not " +
                             std::string(py::str(py::type::handle_of(item).attr("__name__"))));
      }
      if (!data) throw py::error_already_set();
      views.emplace_back(data, static_cast<size_t>(size));
    }
    std::vector<uint64_t> c;
    {
      py::gil_scoped_release unlocked;
      c = idx.counts(views, threads_or_all(threads));
    }
    return to_numpy(std::move(c));
  }
  // Packed k-mers (2 bits a base, the first base highest; k <= 32) given as
  // a numpy array of uint64.
  py::array_t<uint64_t> counts_packed(py::array_t<uint64_t, py::array::c_style | py::array::forcecast> packed,
                                      unsigned threads) {
    const CountIndex& idx = index();
    std::vector<uint64_t> c;
    {
      py::gil_scoped_release unlocked;
      c = idx.counts_packed(packed.data(), static_cast<size_t>(packed.size()), threads_or_all(threads));
    }
    return to_numpy(std::move(c));
  }
  std::string path() const { return path_; }

 private:
  std::string path_, index_path_;
  std::unique_ptr<CountIndex> idx_;
};

// Iterates (k-mer, count) pairs (chunk 0), or chunks of numpy arrays, of a
// count file in file order, checked as every reader of sorted counts checks
// it. A pair holds the GIL (it is short); a chunk releases it, and a second
// thread reading the same stream meanwhile gets an error, as a running
// Python generator would give it.
class CountStream {
 public:
  CountStream(const std::string& path, size_t chunk) : in_(open_sorted_counts(path)), chunk_(chunk) {}
  py::tuple next() {
    if (chunk_ == 0) {
      std::string_view kmer;
      uint64_t count = 0;
      if (!in_->next(kmer, count)) throw py::stop_iteration();
      return py::make_tuple(py::str(kmer.data(), kmer.size()), count);
    }
    if (reading_) throw std::runtime_error("this stream is being read by another thread");
    reading_ = true;
    std::vector<uint64_t> packed, counts;
    try {
      py::gil_scoped_release unlocked;
      std::string_view kmer;
      uint64_t count = 0;
      while (counts.size() < chunk_ && in_->next(kmer, count)) {
        if (kmer.size() > 32)
          throw std::invalid_argument("chunks of packed k-mers are for k <= 32; " + in_->name() + " holds " +
                                      std::to_string(kmer.size()) + "-mers: iterate it instead");
        packed.push_back(encode_kmer<uint64_t>(kmer));
        counts.push_back(count);
      }
    } catch (...) {
      reading_ = false;
      throw;
    }
    reading_ = false;
    if (counts.empty()) throw py::stop_iteration();
    return py::make_tuple(to_numpy(std::move(packed)), to_numpy(std::move(counts)));
  }

 private:
  std::unique_ptr<SortedCounts> in_;
  size_t chunk_;
  bool reading_ = false;  // a chunk is being read (written and read under the GIL)
};

py::dict count(const std::vector<std::string>& inputs, const std::string& output, unsigned k, uint32_t min_count,
               std::optional<uint32_t> max_count, unsigned threads, uint64_t max_memory, bool canonical,
               const std::string& tmp_dir, const std::string& output_format) {
  CountOptions o;
  o.inputs = inputs;
  o.output = output;
  o.output_format = output_format;
  o.k = k;
  o.min_count = min_count;
  if (max_count) o.max_count = *max_count;
  o.threads = threads_or_all(threads);
  o.max_memory = max_memory;
  o.canonical = canonical;
  o.tmp_dir = tmp_dir;
  o.validate();
  CountResult r;
  {
    py::gil_scoped_release unlocked;
    r = count_kmers(o);
  }
  py::dict d;
  d["reads"] = r.input.reads;
  d["bases"] = r.input.bases;
  d["kmers_total"] = r.input.kmers;
  d["kmers_distinct"] = r.distinct;
  d["kmers_solid"] = r.solid;
  d["kmers_singleton"] = r.singletons;
  d["max_count"] = r.max_count;
  d["histogram"] = to_numpy(r.histogram);
  return d;
}

}  // namespace

PYBIND11_MODULE(kmerbloom, m) {
  m.doc() = "kmerbloom: exact k-mer counts of sequencing reads, and random access to the counted sets";
  m.attr("__version__") = KMERBLOOM_VERSION;
  static py::exception<std::runtime_error> error(m, "Error");
  static py::exception<InputError> input_error(m, "InputError", error.ptr());
  static py::exception<BudgetError> budget_error(m, "BudgetError", error.ptr());
  static py::exception<OutputError> output_error(m, "OutputError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      input_error(e.what());
    } catch (const BudgetError& e) {
      budget_error(e.what());
    } catch (const OutputError& e) {
      output_error(e.what());
    }
  });

  m.def("count", &count, py::arg("inputs"), py::arg("output"), py::kw_only(), py::arg("k") = 31,
        py::arg("min_count") = 2, py::arg("max_count") = py::none(), py::arg("threads") = 0,
        py::arg("max_memory") = 0, py::arg("canonical") = true, py::arg("tmp_dir") = "",
        py::arg("format") = "",
        "Counts the k-mers of FASTA/FASTQ files (plain or gzip) into output (TSV, FASTA or KFF, as its name or "
        "format says), as kmerbloom count does; returns the figures and the histogram (numpy, row c: k-mers "
        "seen c times, the last row those seen more often).");
  m.def(
      "index",
      [](const std::string& counts, std::optional<std::string> output) {
        const std::string out = output.value_or(default_index_path(counts));
        CountIndexSummary s;
        {
          py::gil_scoped_release unlocked;
          s = build_count_index(counts, out);
        }
        return py::dict(py::arg("path") = out, py::arg("k") = s.k, py::arg("canonical") = s.canonical,
                        py::arg("kmers") = s.kmers, py::arg("blocks") = s.blocks, py::arg("bytes") = s.index_bytes);
      },
      py::arg("counts"), py::arg("output") = py::none(),
      "Indexes a sorted count file (as kmerbloom index does): COUNTS.kbi unless output says otherwise.");
  m.def(
      "read_histogram", [](const std::string& path) { return to_numpy(read_histogram_file(path)); }, py::arg("path"),
      "A histogram file (COUNT FREQUENCY, as count --histo and jellyfish histo write it) as a numpy array: row c "
      "holds the k-mers seen c times.");

  py::class_<CountStream>(m, "CountStream")
      .def("__iter__", [](CountStream& s) -> CountStream& { return s; })
      .def("__next__", &CountStream::next);
  py::class_<CountFile>(m, "CountFile", "A sorted count file (TSV or KFF); look-ups need its index (kmerbloom.index)")
      .def(py::init<std::string, std::optional<std::string>>(), py::arg("path"), py::arg("index") = py::none())
      .def_property_readonly("path", &CountFile::path)
      .def_property_readonly("k", &CountFile::k)
      .def_property_readonly("canonical", &CountFile::canonical)
      .def("__len__", &CountFile::size)
      .def("__getitem__", &CountFile::count)
      .def("__contains__", &CountFile::contains)
      .def("count", &CountFile::count, py::arg("kmer"), "The count of kmer (0: absent; canonical sets: either strand)")
      .def("counts", &CountFile::counts, py::arg("kmers"), py::arg("threads") = 0,
           "The counts of k-mers (an iterable of str or bytes), as a numpy array (threads: 0 for all cores; the same "
           "answer whatever)")
      .def("counts_packed", &CountFile::counts_packed, py::arg("packed"), py::arg("threads") = 0,
           "The counts of packed k-mers (numpy uint64, 2 bits a base, first base highest; k <= 32)")
      .def("__iter__", [](const CountFile& f) { return CountStream(f.path(), 0); },
           "(k-mer, count) pairs in file order, read as they are needed")
      .def(
          "chunks", [](const CountFile& f, size_t n) { return CountStream(f.path(), std::max<size_t>(n, 1)); },
          py::arg("n") = size_t{1} << 20,
          "(packed k-mers, counts) numpy arrays of up to n k-mers each, in file order (k <= 32)");
}
