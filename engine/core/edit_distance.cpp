#include "engine/core/edit_distance.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace perfcast {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      diagonal = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
    }
  }
  return row[b.size()];
}

std::string closest_match(std::string_view word, std::span<const std::string> candidates) {
  std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    std::size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string suggestion(std::string_view match) {
  return match.empty() ? std::string() : " (did you mean '" + std::string(match) + "'?)";
}

std::string did_you_mean(std::string_view word, std::span<const std::string> candidates) {
  return suggestion(closest_match(word, candidates));
}

}  // namespace perfcast
