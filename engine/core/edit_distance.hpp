#pragma once
// Levenshtein distance and "did you mean" suggestions for unknown keys and names
// (after ninja's src/edit_distance.h, reimplemented).
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace perfcast {

std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate within max(2, a third of the word's length) edits, or "" if none.
std::string closest_match(std::string_view word, std::span<const std::string> candidates);

// " (did you mean 'x'?)" or "" — ready to append to a message.
std::string did_you_mean(std::string_view word, std::span<const std::string> candidates);
// The same phrase for a suggestion already chosen ("" gives "").
std::string suggestion(std::string_view match);

}  // namespace perfcast
