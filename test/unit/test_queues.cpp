// The ordered hand-off (seqio/queues.hpp): order out of any arrival order, the
// window's bound on what waits, abort, and an error thrown on the way out.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include "seqio/queues.hpp"

namespace kmerbloom::detail {
namespace {

struct Item {
  uint64_t serial = 0;
};

// `producers` threads take serials from one counter (a FIFO of work, as the
// pipelines' workers do), sleep a little at random, and push; the consumer
// starts late (once `late` items were pushed, or after 200 ms when `bounded`,
// since a window never lets that many in) and pops in order.
// Returns the most items ever pushed and not yet popped, and checks the order.
uint64_t run_pop(SerialOrder<Item>& order, unsigned producers, uint64_t total, uint64_t late, bool bounded) {
  std::atomic<uint64_t> next_work{0}, pushed{0}, popped{0}, most{0};
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < producers; ++t)
    threads.emplace_back([&, t] {
      for (uint64_t s; (s = next_work++) < total;) {
        std::this_thread::sleep_for(std::chrono::microseconds((s * 7919 + t) % 50));
        auto item = std::make_unique<Item>();
        item->serial = s;
        EXPECT_TRUE(order.push(std::move(item)));
        const uint64_t now_pushed = ++pushed, now_popped = popped.load();
        const uint64_t inside = now_pushed > now_popped ? now_pushed - now_popped : 0;
        for (uint64_t m = most.load(); inside > m && !most.compare_exchange_weak(m, inside);) {
        }
      }
    });
  order.finish(total);
  const auto start = std::chrono::steady_clock::now();
  while (pushed.load() < late && !(bounded && std::chrono::steady_clock::now() - start > std::chrono::milliseconds(200)))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::unique_ptr<Item> item;
  uint64_t s = 0;
  for (; order.pop(s, item); ++s) {
    EXPECT_EQ(item->serial, s);
    ++popped;
  }
  EXPECT_EQ(s, total);
  for (auto& t : threads) t.join();
  return most.load();
}

TEST(SerialOrder, PopTakesItemsInSerialOrder) {
  SerialOrder<Item> order;
  run_pop(order, 4, 2000, 0, false);
}

TEST(SerialOrder, WindowBoundsWhatWaits) {
  // Without a window the late consumer lets items pile up; with one, at most
  // the window waits (plus one item per producer between push and the count).
  SerialOrder<Item> unbounded;
  const uint64_t piled = run_pop(unbounded, 4, 2000, 64, false);
  SerialOrder<Item> bounded(6);
  const uint64_t most = run_pop(bounded, 4, 2000, 64, true);
  EXPECT_LE(most, 6u + 4u);
  EXPECT_GE(piled, 64u);
}

TEST(SerialOrder, DeliverEmitsInOrderFromEveryThread) {
  SerialOrder<Item> order(5);
  std::vector<uint64_t> seen;
  std::atomic<uint64_t> next_work{0};
  const uint64_t total = 3000;
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < 4; ++t)
    threads.emplace_back([&] {
      for (uint64_t s; (s = next_work++) < total;) {
        auto item = std::make_unique<Item>();
        item->serial = s;
        order.deliver(std::move(item), [&](const Item& i) { seen.push_back(i.serial); });
      }
    });
  for (auto& t : threads) t.join();
  ASSERT_EQ(seen.size(), total);
  for (uint64_t s = 0; s < total; ++s) ASSERT_EQ(seen[s], s);
}

TEST(SerialOrder, AbortReleasesAPushWaitingOnTheWindow) {
  SerialOrder<Item> order(2);
  std::atomic<int> result{-1};
  std::thread t([&] {
    auto item = std::make_unique<Item>();
    item->serial = 5;  // 5 ahead of 0: waits
    result = order.push(std::move(item)) ? 1 : 0;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(result.load(), -1);
  order.abort();
  t.join();
  EXPECT_EQ(result.load(), 0);
  std::unique_ptr<Item> out;
  EXPECT_FALSE(order.pop(0, out));
}

TEST(SerialOrder, AnErrorOnTheWayOutAbortsTheOrder) {
  SerialOrder<Item> order(4);
  auto first = std::make_unique<Item>();
  EXPECT_THROW(order.deliver(std::move(first), [](const Item&) { throw std::runtime_error("disk full"); }),
               std::runtime_error);
  auto second = std::make_unique<Item>();
  second->serial = 1;
  bool emitted = false;
  order.deliver(std::move(second), [&](const Item&) { emitted = true; });
  EXPECT_FALSE(emitted);
}

}  // namespace
}  // namespace kmerbloom::detail
