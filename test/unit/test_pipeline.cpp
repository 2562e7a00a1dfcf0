// run_pipeline: the reader runs ahead of a held worker by exactly the batches
// in flight it was given (PipelineOptions::batches), never fewer than
// workers + 2 and never more.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "seqio/pipeline.hpp"
#include "temp_dir.hpp"

namespace kmerbloom {
namespace {

class PipelineTest : public TempDirTest {
 protected:
  // 400 records of 100 bases, one a batch at batch_bases 100.
  std::string reads() const {
    std::string fa;
    for (int i = 0; i < 400; ++i) fa += ">r" + std::to_string(i) + "\n" + std::string(100, "ACGT"[i % 4]) + "\n";
    return write("reads.fa", fa);
  }
  // Holds the first batch in its worker until the reader has stopped
  // reading (no record for 200 ms, or 10 s in all); returns the records
  // read by then, in batches, and checks the input still arrives whole.
  uint64_t read_ahead(unsigned workers, size_t batches) {
    PipelineOptions o;
    o.workers = workers;
    o.batch_bases = 100;
    o.batches = batches;
    PipelineProgress progress;
    std::atomic<uint64_t> ahead{0}, records{0}, per_batch{0};
    run_pipeline({reads()}, o, [&](const RecordBatch& b, unsigned) {
      records += b.size();
      if (b.serial != 0) return;
      per_batch = b.size();
      uint64_t last = progress.records.load();
      for (int still = 0, waited = 0; still < 20 && waited < 1000; ++waited) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        const uint64_t now = progress.records.load();
        still = now == last ? still + 1 : 0;
        last = now;
      }
      ahead = last;
    }, &progress);
    EXPECT_EQ(records.load(), 400u);
    EXPECT_EQ(per_batch.load(), 1u);
    return ahead.load();
  }
};

TEST_F(PipelineTest, ReaderRunsAheadByTheBatchesInFlight) {
  // One worker holds batch 0; every other batch in flight is read and waits.
  EXPECT_EQ(read_ahead(1, 0), 3u);   // workers + 2
  EXPECT_EQ(read_ahead(1, 2), 3u);   // never fewer
  EXPECT_EQ(read_ahead(1, 16), 16u);
  EXPECT_EQ(read_ahead(1, 40), 40u);
}

}  // namespace
}  // namespace kmerbloom
