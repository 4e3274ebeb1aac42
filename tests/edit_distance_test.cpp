#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/core/edit_distance.hpp"

TEST_CASE("edit distance counts insertions, deletions and substitutions") {
  CHECK(perfcast::edit_distance("bandwith", "bandwidth") == 1);
  CHECK(perfcast::edit_distance("kitten", "sitting") == 3);
  CHECK(perfcast::edit_distance("", "abc") == 3);
  CHECK(perfcast::edit_distance("same", "same") == 0);
}

TEST_CASE("did you mean suggests only close matches") {
  std::vector<std::string> keys{"capacity", "usable_capacity", "bandwidth", "type"};
  CHECK(perfcast::did_you_mean("bandwith", keys) == " (did you mean 'bandwidth'?)");
  CHECK(perfcast::did_you_mean("capacty", keys) == " (did you mean 'capacity'?)");
  CHECK(perfcast::did_you_mean("frequency", keys).empty());
}
