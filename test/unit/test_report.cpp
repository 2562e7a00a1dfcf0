// What users see: the HTML report and spectrum SVG (structure, escaping,
// self-containment, missing fields) and the progress line (formatting,
// terminal and plain-line styles through a pipe, passes, silence when off).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "cli/progress.hpp"
#include "count/counter.hpp"
#include "seqio/paths.hpp"
#include "report/report.hpp"
#include "strings.hpp"

using namespace kmerbloom;
namespace fs = std::filesystem;

namespace {

// A spectrum with errors and a peak at 30x over 100,000 genomic k-mers.
std::vector<uint64_t> histogram30x() {
  std::vector<uint64_t> h(121, 0);
  for (size_t c = 1; c <= 120; ++c) {
    const double pois =
        std::exp(static_cast<double>(c) * std::log(30.0) - 30 - std::lgamma(static_cast<double>(c) + 1));
    h[c] = static_cast<uint64_t>(std::llround(1e5 * pois + 1e6 * 0.97 * std::pow(0.03, static_cast<double>(c) - 1)));
  }
  return h;
}

nlohmann::json stats_example() {
  return nlohmann::json::parse(R"json({
    "tool": "kmerbloom", "version": "0.1.0", "command": "count",
    "command_line": "kmerbloom count '<script>alert(1)</script>' -o x.tsv",
    "inputs": ["reads & more.fq.gz"], "k": 31, "canonical": true,
    "options": {"min_count": 2, "max_count": 4294967295, "histo_max": 10000},
    "reads": 1000, "bases": 150000, "bases_skipped": 0, "kmers_total": 120000,
    "kmers_distinct": 5000, "kmers_solid": 2000, "kmers_singleton": 3000, "kmers_singleton_estimated": true,
    "max_count": 77, "histogram": {"max_row": 10000, "overflow_row": 10001, "estimated_rows": [1]},
    "passes": 2, "pass_seconds": [1.5, 0.5], "table": {"bytes": 1048576},
    "bloom": {"mode": "exact (two passes)", "target_fpr": 0.01, "estimated_fpr": 0.004, "bytes": 65536,
              "keys_inserted": 4000, "kmers_rejected_by_gate": 4000, "expected_leaked_singletons": 0,
              "layers": [{"capacity": 1000, "bits": 9600, "hashes": 7, "keys": 1000, "bits_set": 4800, "fill": 0.5,
                          "target_fpr": 0.005, "estimated_fpr": 0.004},
                         {"capacity": 2000, "bits": 19200, "hashes": 8, "keys": 3000, "bits_set": 9000, "fill": 0.47,
                          "target_fpr": 0.0025, "estimated_fpr": 0.001}]},
    "memory_bytes": {"table": 1048576, "bloom": 65536},
    "wall_seconds": 2.1, "cpu_seconds": 3.9, "peak_memory_bytes": 10485760, "threads": 2})json");
}

size_t count_of(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

// Every <tag ...> has its </tag> (or is self-closed), in a simple nesting sense.
bool tags_balanced(const std::string& s, const std::string& tag) {
  return count_of(s, "<" + tag + ">") + count_of(s, "<" + tag + " ") == count_of(s, "</" + tag + ">");
}

}  // namespace

TEST(Report, HtmlIsSelfContainedAndComplete) {
  const std::string html = report_html(stats_example(), histogram30x());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* part : {"<svg", "id=\"summary\"", "id=\"analysis\"", "id=\"layers\"", "id=\"memory\"",
                           "id=\"passes\"", "Genome size estimate", "error trough", "peak: ", "Reliable"})
    EXPECT_NE(html.find(part), std::string::npos) << part;
  for (const char* tag : {"table", "tr", "section", "svg", "html", "body", "ul", "li", "code", "style"})
    EXPECT_TRUE(tags_balanced(html, tag)) << tag;
  // No script, no external resource: the only URL is the SVG namespace.
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  for (size_t at = html.find("://"); at != std::string::npos; at = html.find("://", at + 3)) {
    const size_t begin = html.rfind("http", at);
    const size_t end = html.find_first_of("\"' )<", at);
    EXPECT_EQ(html.substr(begin, end - begin), "http://www.w3.org/2000/svg");
  }
  // Text from the statistics is escaped.
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("reads &amp; more.fq.gz"), std::string::npos);
  // Two layers, two passes.
  EXPECT_NE(html.find("9,600"), std::string::npos);
  EXPECT_NE(html.find("19,200"), std::string::npos);
}

TEST(Report, SameFromMemoryAndFromFile) {
  // count builds the statistics in memory, where small counts are signed
  // integers; parsed back from the file they are unsigned.
  nlohmann::json st = stats_example();
  st["histogram"]["estimated_rows"] = nlohmann::json::array({1});
  st["k"] = 31;
  st["kmers_total"] = 120000;
  ASSERT_TRUE(st["histogram"]["estimated_rows"][0].is_number_integer());
  const std::string html = report_html(st, histogram30x());
  EXPECT_SAME(html, report_html(nlohmann::json::parse(st.dump()), histogram30x()));
  EXPECT_NE(html.find("row 1 (k-mers seen once) is estimated"), std::string::npos);
  EXPECT_NE(html.find("k = 31"), std::string::npos);
  EXPECT_TRUE(spectrum_options_from_stats(st, histogram30x()).row1_estimated);
  EXPECT_EQ(histogram_from_rows(nlohmann::json::array({nlohmann::json::array({2, 5})})),
            (std::vector<uint64_t>{0, 0, 5}));
}

TEST(Report, MissingFieldsAndHistogram) {
  const std::string html = report_html(nlohmann::json::object(), {});
  EXPECT_NE(html.find("No histogram"), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
  EXPECT_TRUE(tags_balanced(html, "section"));
  // A run without the Bloom gate says so.
  nlohmann::json st = stats_example();
  st.erase("bloom");
  EXPECT_NE(report_html(st, histogram30x()).find("No Bloom filter"), std::string::npos);
}

TEST(Report, PlannedMemoryIsNoShareOfTheComponents) {
  nlohmann::json st = stats_example();
  st["memory_bytes"] = {{"table", 1000}, {"counting", 1000}, {"counting_planned", 8000}};
  const std::string page = report_html(st, histogram30x());
  const size_t from = page.find("<table id=\"memory\">");
  ASSERT_NE(from, std::string::npos);
  const std::string html = page.substr(from, page.find("</table>", from) - from);
  EXPECT_NE(html.find("<td>counting, as planned</td>"), std::string::npos);
  EXPECT_EQ(html.find(">counting_planned<"), std::string::npos);
  // The two components share the bars half and half; the plan has no bar.
  size_t bars = 0;
  for (size_t at = html.find("width:50.0%"); at != std::string::npos; at = html.find("width:50.0%", at + 1)) ++bars;
  EXPECT_EQ(bars, 2u);
}

TEST(Report, PassNames) {
  nlohmann::json st = stats_example();
  st["pass_seconds"] = {0.5, 1.5, 0.5};
  EXPECT_NE(report_html(st, histogram30x()).find("pass 3"), std::string::npos) << "numbered without names";
  st["pass_names"] = {"sizing: estimating distinct k-mers", "pass 1: <gate>", "pass 2: exact recount"};
  const std::string html = report_html(st, histogram30x());
  EXPECT_NE(html.find("sizing: estimating distinct k-mers"), std::string::npos);
  EXPECT_NE(html.find("pass 1: &lt;gate&gt;"), std::string::npos);
}

TEST(Report, PartitionRunsSayTheSpectrumIsPartial) {
  nlohmann::json st = stats_example();
  st["partition"] = {{"index", 2}, {"count", 8}};
  EXPECT_NE(report_html(st, histogram30x()).find("--partition 2/8"), std::string::npos);
}

TEST(Report, UnreliableSpectrumShowsItsWarnings) {
  const std::string html = report_html(stats_example(), {0, 1000, 50, 3, 1});
  EXPECT_NE(html.find("Not reliable"), std::string::npos);
  EXPECT_NE(html.find("no error trough"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
}

TEST(Report, SvgMarksTroughAndPeak) {
  const std::vector<uint64_t> h = histogram30x();
  const SpectrumAnalysis a = analyze_spectrum(h);
  PlotOptions o;
  o.k = 31;
  const std::string svg = spectrum_svg(h, a, o);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("k = 31"), std::string::npos);
  EXPECT_NE(svg.find("error trough: " + std::to_string(a.trough)), std::string::npos);
  EXPECT_NE(svg.find("peak: 30."), std::string::npos);
  EXPECT_NE(svg.find("genome size"), std::string::npos);
  for (const char* tag : {"svg", "text"}) EXPECT_TRUE(tags_balanced(svg, tag)) << tag;
  EXPECT_EQ(svg.find("nan"), std::string::npos);
  EXPECT_EQ(svg.find("inf"), std::string::npos);
  // Degenerate inputs still give a valid picture.
  for (const std::vector<uint64_t>& d :
       {std::vector<uint64_t>{}, std::vector<uint64_t>{0, 3}, std::vector<uint64_t>{0, 0, 0, 9}}) {
    const std::string s = spectrum_svg(d, analyze_spectrum(d));
    EXPECT_TRUE(tags_balanced(s, "svg"));
    EXPECT_EQ(s.find("nan"), std::string::npos);
  }
}

TEST(Report, WritesFilesAtomically) {
  const fs::path dir = fs::temp_directory_path() / ("kb-report-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  write_report_html(stats_example(), histogram30x(), (dir / "r.html").string());
  write_spectrum_svg(stats_example(), histogram30x(), (dir / "s.svg").string());
  EXPECT_GT(fs::file_size(dir / "r.html"), 5000u);
  std::ifstream in(dir / "s.svg");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first.rfind("<?xml", 0), 0u);
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 2u) << "no temporary file left behind";
  fs::remove_all(dir);
}

TEST(Progress, Formatting) {
  EXPECT_EQ(format_duration(0), "0:00");
  EXPECT_EQ(format_duration(42.4), "0:42");
  EXPECT_EQ(format_duration(723), "12:03");
  EXPECT_EQ(format_duration(3723), "1:02:03");
  EXPECT_EQ(format_quantity(812), "812");
  EXPECT_EQ(format_quantity(12345), "12.3 k");
  EXPECT_EQ(format_quantity(4.56e6), "4.56 M");
  EXPECT_EQ(format_quantity(1.2e9), "1.20 G");
  // A value for -M, never below the bytes it stands for.
  EXPECT_EQ(format_memory_option(1), "1M");
  EXPECT_EQ(format_memory_option(uint64_t{700} << 20), "700M");
  EXPECT_EQ(format_memory_option((uint64_t{700} << 20) + 1), "701M");
  EXPECT_EQ(format_memory_option(uint64_t{1} << 30), "1024M");
  EXPECT_EQ(format_memory_option((uint64_t{1} << 30) + 1), "1.1G");
  EXPECT_EQ(format_memory_option(uint64_t{7} << 29), "3.5G");
  EXPECT_EQ(format_memory_option((uint64_t{7} << 29) + 1), "3.6G");
  EXPECT_EQ(format_memory_option(uint64_t{1} << 50), "1048576.0G");

  ProgressSnapshot s;
  s.pass = "pass 1: counting";
  s.bytes_done = 50'000'000;
  s.bytes_total = 200'000'000;
  s.reads = 1'000'000;
  s.bases = 150'000'000;
  s.kmers = 120'000'000;
  s.elapsed = 10;
  const std::string line = format_progress(s);
  for (const char* part :
       {"pass 1: counting", "50.0 MB/200 MB (25%)", "100 k reads/s", "12.0 M k-mers/s", "0:10 elapsed", "0:30 left"})
    EXPECT_NE(line.find(part), std::string::npos) << part << " in " << line;
  // Narrow terminals drop rates first, never the pass.
  const std::string narrow = format_progress(s, 50);
  EXPECT_LE(narrow.size(), 50u);
  EXPECT_EQ(narrow.rfind("pass 1: counting", 0), 0u);
  EXPECT_NE(narrow.find("(25%)"), std::string::npos) << narrow;
  s.bytes_done = s.bytes_total;
  EXPECT_NE(format_progress(s).find("(100%)  100 k reads/s"), std::string::npos);
  EXPECT_NE(format_progress(s).find("finishing"), std::string::npos) << "not '0:00 left' while the workers drain";
  s.bytes_done = 50'000'000;
  // Unknown total (a pipe): no percentage, no time left.
  s.bytes_total = 0;
  const std::string piped = format_progress(s);
  EXPECT_EQ(piped.find('%'), std::string::npos);
  EXPECT_EQ(piped.find("left"), std::string::npos);
  EXPECT_NE(piped.find("50.0 MB read"), std::string::npos) << piped;
}

namespace {

// Runs body with a meter writing into a pipe; returns what it wrote.
template <typename Body>
std::string capture(ProgressOptions opt, bool enabled, Body body) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  FILE* w = ::fdopen(fds[1], "w");
  std::string out;
  {
    ProgressMeter m(w, enabled, opt);
    body(m, w);
    m.stop();
  }
  std::fclose(w);
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  return out;
}

}  // namespace

TEST(Progress, TerminalStyleRedrawsAndClears) {
  PipelineProgress p;
  ProgressOptions opt;
  opt.interval = std::chrono::milliseconds(20);
  opt.style = ProgressStyle::terminal;
  opt.width = 120;
  const std::string out = capture(opt, true, [&](ProgressMeter& m, FILE* w) {
    m.start_pass("pass 1: Bloom gate and table", &p);
    p.raw_total = 1000;  // the pipeline adds each file's size as it opens it
    p.records = 10;
    p.bases = 1500;
    p.raw_bytes = 400;
    std::this_thread::sleep_for(std::chrono::milliseconds(400));  // many redraws, even on a loaded machine
    m.print_above([&] { std::fputs("a log line\n", w); });
  });
  EXPECT_NE(out.find("\rpass 1: Bloom gate and table"), std::string::npos);
  EXPECT_NE(out.find("(40%)"), std::string::npos) << out;
  EXPECT_NE(out.find("\x1b[K"), std::string::npos);
  EXPECT_NE(out.find("\r\x1b[Ka log line\n\rpass 1"), std::string::npos) << "the log goes above the redrawn line";
  EXPECT_EQ(out.substr(out.size() - 4), "\r\x1b[K") << "the line is cleared at the end";
  EXPECT_EQ(out.find('\n', out.find("a log line\n") + 11), std::string::npos) << "only the log line ends a line";
}

TEST(Progress, PlainLinesWhenForcedOnAPipe) {
  PipelineProgress p;
  ProgressOptions opt;
  opt.line_interval = std::chrono::milliseconds(20);
  opt.style = ProgressStyle::lines;
  const std::string out = capture(opt, true, [&](ProgressMeter& m, FILE*) {
    m.start_pass("pass 1: counting", &p);
    p.records = 1000;
    p.bases = 150000;
    p.raw_bytes = 5000;
    p.raw_total = 10000;
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
    // Pass 2 re-reads the input: the same counters go on from where pass 1
    // left them; the meter shows this pass's share only.
    m.start_pass("pass 2: exact recount", &p, 10000);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  });
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_EQ(out.find('\x1b'), std::string::npos);
  EXPECT_NE(out.find("pass 1: counting  5.00 kB/10.0 kB (50%)"), std::string::npos) << out;
  const size_t last = out.rfind("pass 2: exact recount");
  ASSERT_NE(last, std::string::npos) << out;
  EXPECT_NE(out.find("0 B/10.0 kB (0%)", last), std::string::npos) << out.substr(last);
  EXPECT_EQ(out.back(), '\n');
}

// Passes that read no input (partitions counted, runs merged) show their own
// work, its share and the time left, not "0 B/328 MB (0%)".
TEST(Progress, PassesWithoutInputShowTheirUnits) {
  ProgressSnapshot s;
  s.pass = "pass 2: counting the partitions";
  s.unit = "k-mers counted";
  s.units_done = 61'200'000;
  s.units_total = 145'000'000;
  s.elapsed = 3;
  const std::string line = format_progress(s);
  for (const char* part : {"61.2 M/145 M k-mers counted (42%)", "20.4 M/s", "0:03 elapsed", "0:04 left"})
    EXPECT_NE(line.find(part), std::string::npos) << part << " in " << line;
  EXPECT_EQ(line.find("B/"), std::string::npos) << line;

  PipelineProgress p;
  ProgressOptions opt;
  opt.line_interval = std::chrono::milliseconds(20);
  opt.style = ProgressStyle::lines;
  const std::string out = capture(opt, true, [&](ProgressMeter& m, FILE*) {
    p.unit = "k-mers merged";
    p.units_total = 1000;
    p.units_done = 250;
    m.start_pass("pass 3: merging", &p, 328'000'000);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  });
  EXPECT_NE(out.find("pass 3: merging  250/1.00 k k-mers merged (25%)"), std::string::npos) << out;
}

// count_kmers tells the meter each pass's work: the k-mer occurrences of
// pass 2 (all counted by its end) and the solid k-mers of pass 3.
TEST(Progress, CountPassesReportTheirUnits) {
  const std::string dir = testing::TempDir() + "/kb_progress_units";
  std::filesystem::create_directories(dir);
  const std::string fa = dir + "/reads.fa";
  {
    std::ofstream out(fa);
    uint64_t x = 7;
    std::string genome;
    for (int i = 0; i < 20000; ++i) genome += "ACGT"[(x = x * 6364136223846793005ull + 1442695040888963407ull) >> 62];
    for (int r = 0; r < 400; ++r) out << ">r" << r << "\n" << genome.substr(static_cast<size_t>(r * 47 % 19800), 150) << "\n";
  }
  CountOptions o;
  o.inputs = {fa};
  o.k = 21;
  o.threads = 2;
  PipelineProgress p;
  CountHooks hooks;
  hooks.progress = &p;
  std::vector<std::tuple<std::string, std::string, uint64_t, uint64_t>> seen;  // pass, unit, done, total as it begins
  hooks.pass = [&](const std::string& name) {
    const char* u = p.unit.load();
    seen.emplace_back(name, u ? u : "", p.units_done.load(), p.units_total.load());
  };
  std::string merging_unit;
  uint64_t merging_total = 0;
  const CountResult r = count_kmers(
      o,
      [&](std::string_view, uint64_t) {
        if (const char* u = p.unit.load(); u && merging_unit.empty()) merging_unit = u, merging_total = p.units_total;
      },
      hooks);
  ASSERT_EQ(seen.size(), 3u);
  // Each pass hook sees the units of the pass before it (set just after).
  EXPECT_EQ(std::get<1>(seen[1]), "") << "pass 1 reads input";
  EXPECT_EQ(std::get<1>(seen[2]), "k-mers counted");
  EXPECT_EQ(std::get<2>(seen[2]), r.input.kmers) << "pass 2 counted every occurrence";
  EXPECT_EQ(std::get<3>(seen[2]), r.input.kmers);
  EXPECT_EQ(merging_unit, "k-mers merged");
  EXPECT_EQ(merging_total, r.solid);
  EXPECT_GT(r.solid, 0u);
  EXPECT_EQ(p.unit.load(), nullptr) << "the next pass of a caller reads input";
  std::filesystem::remove_all(dir);
}

TEST(Progress, SilentWhenDisabledOrShort) {
  PipelineProgress p;
  ProgressOptions opt;
  opt.style = ProgressStyle::terminal;
  EXPECT_EQ(capture(opt, false,
                    [&](ProgressMeter& m, FILE*) {
                      m.start_pass("pass 1", &p);
                      std::this_thread::sleep_for(std::chrono::milliseconds(30));
                    }),
            "");
  // Enabled, but the work ends before the first redraw: nothing on screen.
  EXPECT_EQ(capture(opt, true, [&](ProgressMeter& m, FILE*) { m.start_pass("pass 1", &p); }), "");
}

TEST(Progress, WantedOnlyOnATerminalUnlessForced) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  FILE* w = ::fdopen(fds[1], "w");
  EXPECT_FALSE(progress_wanted(w, 0));
  EXPECT_TRUE(progress_wanted(w, 1));
  EXPECT_FALSE(progress_wanted(w, -1));
  EXPECT_FALSE(progress_wanted(nullptr, 1));
  std::fclose(w);
  ::close(fds[0]);
}

TEST(Progress, InputBytesTotal) {
  const fs::path dir = fs::temp_directory_path() / ("kb-progress-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "a") << std::string(100, 'x');
  std::ofstream(dir / "b") << std::string(23, 'x');
  EXPECT_EQ(input_bytes_total({(dir / "a").string(), (dir / "b").string()}), 123u);
  EXPECT_EQ(input_bytes_total({(dir / "a").string(), "-"}), 0u);
  EXPECT_EQ(input_bytes_total({(dir / "missing").string()}), 0u);
  fs::remove_all(dir);
}
