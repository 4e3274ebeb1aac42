#pragma once
// Quantities as a reader expects to see them, for tables and messages.
#include <string>

namespace perfcast {

// A duration in the unit a reader expects: "12.3 ms", "4.567 s", "3.2 min", "5.0 h", "27.2 days".
std::string duration_text(double seconds);
// Dollars with four significant digits: "$14.65M", "$812.3k", "$3.41".
std::string usd_text(double usd);
// CO2e mass: "1099 t" from a tonne up, else "412.5 kg".
std::string mass_text(double kg);
// A fraction as "42.5%".
std::string percent_text(double fraction);

}  // namespace perfcast
