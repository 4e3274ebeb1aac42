#include <algorithm>
#include <array>

#include "engine/data/schema/kinds.hpp"

namespace perfcast::schema {
namespace {

constexpr Field kCommon[] = {
    text("name", "stable identifier, lowercase and hyphenated; equals the file name", true),
    text("display_name", "the vendor's name for the item", true),
    text("notes", "caveats a reader should know (conventions, conflicts between sources)"),
};

constexpr std::string_view kSourceKinds[] = {
    "datasheet", "whitepaper", "product-page", "user-guide", "paper", "code",
    "dataset", "measurement", "press", "secondary", "standard", "derived", "estimate"};

constexpr Field kSource[] = {
    text("title", "document title, with version where it has one", true),
    text("locator", "table, section or page the figures come from"),
    text("url", "where the document is public"),
    Field{.key = "date", .type = FieldType::date, .help = "publication or retrieval date", .required = true},
    choice("kind", kSourceKinds, "what kind of source this is", true),
    text("via", "how the figures were read when not from the primary document itself"),
};

}  // namespace

std::span<const Field> common_fields() { return kCommon; }
std::span<const Field> source_fields() { return kSource; }

std::span<const KindSchema> all_kinds() {
  static const std::array<KindSchema, 5> kinds{{
      {Kind::accelerator, "accelerator", "accelerators", accelerator_fields(), check_accelerator},
      {Kind::interconnect, "interconnect", "interconnects", interconnect_fields(), check_interconnect},
      {Kind::system, "system", "systems", system_fields(), check_system},
      {Kind::offer, "offer", "offers", offer_fields(), check_offer},
      {Kind::region, "region", "regions", region_fields(), check_region},
  }};
  return kinds;
}

const KindSchema& schema_for(Kind kind) {
  for (const KindSchema& k : all_kinds())
    if (k.kind == kind) return k;
  return all_kinds().front();  // unreachable: every Kind has a schema
}

const KindSchema* find_kind(std::string_view name) {
  auto kinds = all_kinds();
  auto it = std::find_if(kinds.begin(), kinds.end(),
                         [&](const KindSchema& k) { return k.name == name || k.directory == name; });
  return it == kinds.end() ? nullptr : &*it;
}

}  // namespace perfcast::schema
