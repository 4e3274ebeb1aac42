#pragma once
// Streaming selection for searches (sweep): the best k rows by one metric and the Pareto front
// over several, in memory that does not grow with the number of rows offered. A Row has an `id`
// (ties break on it, so the answer does not depend on the order rows arrive in: threads, shards)
// and `rank_key(row, metric)` gives a value where lower is better.
#include <algorithm>
#include <cstddef>
#include <vector>

namespace perfcast {

template <class Row, class Metric>
class TopK {
 public:
  TopK(int k, Metric m) : k_(std::size_t(std::max(0, k))), m_(m) {}
  void offer(const Row& r) {
    if (k_ == 0) return;
    auto heap = [this](const Row& a, const Row& b) { return better(a, b); };  // the worst kept row on top
    if (rows_.size() < k_) {
      rows_.push_back(r);
      std::push_heap(rows_.begin(), rows_.end(), heap);
    } else if (better(r, rows_.front())) {
      std::pop_heap(rows_.begin(), rows_.end(), heap);
      rows_.back() = r;
      std::push_heap(rows_.begin(), rows_.end(), heap);
    }
  }
  std::vector<Row> sorted() const {
    std::vector<Row> out = rows_;
    std::sort(out.begin(), out.end(), [this](const Row& a, const Row& b) { return better(a, b); });
    return out;
  }

 private:
  bool better(const Row& a, const Row& b) const {
    const double ka = rank_key(a, m_), kb = rank_key(b, m_);
    return ka < kb || (ka == kb && a.id < b.id);
  }
  std::size_t k_;
  Metric m_;
  std::vector<Row> rows_;
};

// Equal points keep the lower id, so the front is one set whatever the arrival order.
template <class Row, class Metric>
class ParetoFront {
 public:
  explicit ParetoFront(std::vector<Metric> metrics) : metrics_(std::move(metrics)) {}
  void offer(const Row& r) {
    if (metrics_.size() < 2) return;
    for (const Row& x : rows_)
      if (dominates(x, r)) return;
    std::erase_if(rows_, [&](const Row& x) { return dominates(r, x); });
    rows_.push_back(r);
  }
  std::vector<Row> sorted() const {
    std::vector<Row> out = rows_;
    std::sort(out.begin(), out.end(), [this](const Row& a, const Row& b) {
      const double ka = rank_key(a, metrics_[0]), kb = rank_key(b, metrics_[0]);
      return ka < kb || (ka == kb && a.id < b.id);
    });
    return out;
  }

 private:
  bool dominates(const Row& a, const Row& b) const {
    bool strictly = false;
    for (const Metric& m : metrics_) {
      const double ka = rank_key(a, m), kb = rank_key(b, m);
      if (ka > kb) return false;
      strictly |= ka < kb;
    }
    return strictly || a.id < b.id;
  }
  std::vector<Metric> metrics_;
  std::vector<Row> rows_;
};

}  // namespace perfcast
