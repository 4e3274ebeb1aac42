#pragma once
// Work spread over threads by an atomic counter of items (a sweep's units or chunks): each thread
// takes the next item until none is left; the calling thread is one of them, and when a progress
// callback is given it reports items done about ten times a second. The first exception stops
// the other threads and is rethrown. A thread the system cannot start (std::system_error: a
// thread or memory limit) stops the work: the threads that started are joined and an InputError
// says how many did, so an asked-for count is never silently something else.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "engine/core/errors.hpp"

namespace perfcast {

using Progress = std::function<void(std::uint64_t done, std::uint64_t total)>;

// Threads for `items`: `requested`, or every core when 0; never more than there are items.
inline int thread_count(int requested, std::uint64_t items) {
  const std::uint64_t want = requested > 0 ? std::uint64_t(requested) : std::max(1u, std::thread::hardware_concurrency());
  return int(std::clamp<std::uint64_t>(want, 1, std::max<std::uint64_t>(1, items)));
}

// Starts a thread running f(t), or nothing where the system refuses one.
struct StartThread {
  template <class F>
  std::optional<std::thread> operator()(F& f, int t) const {
    try {
      return std::thread(f, t);
    } catch (const std::system_error&) {
      return std::nullopt;
    }
  }
};

// Whether this thread is running items of a for_each_item: one nested inside runs on its caller's
// thread alone, so work spread at two levels (calibrate's refits, each scoring cases) never asks
// for threads × threads.
inline thread_local bool t_inside_parallel_work = false;

// work(thread, item) for every item in [0, items), on up to `threads` threads (thread 0 is the
// caller's unless progress is reported, when the caller only watches).
template <class Work, class Start = StartThread>
void for_each_item(int threads, std::uint64_t items, const Progress& progress, Work&& work, Start&& start = {}) {
  if (t_inside_parallel_work) threads = 1;
  std::atomic<std::uint64_t> next{0}, done{0};
  std::vector<std::exception_ptr> errors(std::size_t(threads > 0 ? threads : 1));
  auto run = [&](int t) {
    const bool outer = !t_inside_parallel_work;
    t_inside_parallel_work = true;
    struct Reset {
      bool outer;
      ~Reset() {
        if (outer) t_inside_parallel_work = false;
      }
    } reset{outer};
    try {
      for (std::uint64_t k; (k = next.fetch_add(1)) < items; done.fetch_add(1)) work(t, k);
    } catch (...) {
      errors[std::size_t(t)] = std::current_exception();
      next = items;
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(std::size_t(std::max(0, threads - 1)));
  auto refuse = [&] {
    next = items;
    for (std::thread& t : pool) t.join();
    throw InputError({}, fmt::format("{} worker threads: the system started only {} (a thread or memory limit); ask for fewer with --threads",
                                     threads, pool.size() + 1));
  };
  for (int t = 1; t < threads; ++t) {
    std::optional<std::thread> thread = start(run, t);
    if (!thread) refuse();
    pool.push_back(std::move(*thread));
  }
  std::optional<std::thread> first = progress ? start(run, 0) : std::nullopt;
  if (progress && !first) refuse();
  if (first) {
    while (done.load() < items && next.load() < items) {
      progress(done.load(), items);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    first->join();
  } else {
    run(0);
  }
  for (std::thread& t : pool) t.join();
  if (progress) progress(items, items);  // the end: a bar clears itself
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace perfcast
