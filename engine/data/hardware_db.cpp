#include "engine/data/hardware_db.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/core/edit_distance.hpp"
#include "engine/core/input_file.hpp"
#include "engine/data/record_loader.hpp"

namespace perfcast {
namespace {

// The class each reference must point to, where it matters.
struct ReferenceRule {
  schema::Kind kind;
  std::string_view path;
  std::string_view link_class;
};
constexpr ReferenceRule kLinkClasses[] = {
    {schema::Kind::accelerator, "scale_up.link", "scale-up"}, {schema::Kind::accelerator, "host.link", "host"},
    {schema::Kind::system, "scale_up", "scale-up"},           {schema::Kind::system, "scale_up_switch", "switch"},
    {schema::Kind::system, "scale_out", "scale-out"},         {schema::Kind::system, "host_link", "host"},
};

}  // namespace

HardwareDb HardwareDb::load(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(root))
    throw InputError({root.string(), 0, 0}, "hardware database directory not found (set --db or PERFCAST_HARDWARE_DB)");
  HardwareDb db;
  for (const schema::KindSchema& kind : schema::all_kinds()) {
    fs::path dir = root / kind.directory;
    if (!fs::is_directory(dir)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir))
      if (entry.path().extension() == ".toml") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& file : files) {
      Record record = load_record(file, kind.kind);
      if (auto it = db.by_name_.find(record.name); it != db.by_name_.end())
        throw record.error(*record.find("name"), fmt::format("'{}' is already used by {}", record.name,
                                                             db.records_[it->second].file));
      db.by_name_.emplace(record.name, db.records_.size());
      db.records_.push_back(std::move(record));
    }
  }
  for (const Record& r : db.records_) {
    switch (r.kind) {
      case schema::Kind::accelerator: db.accelerators_.emplace(r.name, accelerator_from(r)); break;
      case schema::Kind::interconnect: db.links_.emplace(r.name, link_from(r)); break;
      case schema::Kind::system: db.systems_.emplace(r.name, system_from(r)); break;
      case schema::Kind::offer: db.offers_.emplace(r.name, offer_from(r)); break;
      case schema::Kind::region: db.regions_.emplace(r.name, region_from(r)); break;
    }
  }
  db.check_references();
  db.resolve_sustained_rates();
  db.resolve_decode_attention();
  db.resolve_reached_rates();
  return db;
}

void HardwareDb::resolve_decode_attention() {
  for (const Record* r : records_of(schema::Kind::accelerator)) {
    const Entry* from = r->find("memory.decode_attention_from");
    if (!from) continue;
    const AcceleratorSpec& measured = accelerators_.at(from->text);  // check_references found it
    if (!measured.decode_attention_Bps || records_[by_name_.at(from->text)].find("memory.decode_attention_from"))
      throw r->error(*from, fmt::format("memory.decode_attention_from: '{}' has no measured memory.decode_attention_bandwidth",
                                        from->text));
    AcceleratorSpec& a = accelerators_.at(r->name);
    const double share = *measured.decode_attention_Bps / *measured.memory_bandwidth_Bps;
    a.decode_attention_Bps = share * *a.memory_bandwidth_Bps;
    a.decode_attention_fp8_kv_share = measured.decode_attention_fp8_kv_share;
    a.decode_attention_basis = fmt::format("memory.decode_attention_from: not measured on this device; {}'s measured kernel rate, "
                                           "{:.3f} of its memory bandwidth, at this part's",
                                           from->text, share);
  }
}

void HardwareDb::resolve_reached_rates() {
  for (const Record* r : records_of(schema::Kind::accelerator)) {
    const Entry* die_of = r->find("dense_reached.die_of");
    if (!die_of) continue;
    const AcceleratorSpec& measured = accelerators_.at(die_of->text);  // check_references found it
    if (die_of->text == r->name || records_[by_name_.at(die_of->text)].find("dense_reached.die_of"))
      throw r->error(*die_of, fmt::format("dense_reached.die_of: '{}' takes its rates from another part itself; name a part whose "
                                          "datasheet rates stand", die_of->text));
    AcceleratorSpec& a = accelerators_.at(r->name);
    const double ratio = *r->number("dense_reached.ratio");
    bool shared = false;
    for (Precision p : {Precision::tf32, Precision::bf16, Precision::fp16, Precision::fp8, Precision::fp6, Precision::fp4, Precision::int8,
                        Precision::int4}) {
      const auto i = static_cast<std::size_t>(p);
      if (!a.peak_dense_ops_per_s[i] || !measured.peak_dense_ops_per_s[i]) continue;
      a.dense_reached_share[i] = ratio * *measured.peak_dense_ops_per_s[i] / *a.peak_dense_ops_per_s[i];
      shared = true;
    }
    if (!shared)
      throw r->error(*die_of, fmt::format("dense_reached.die_of: '{}' lists no dense tensor rate this part lists", die_of->text));
    a.dense_reached_basis = fmt::format("dense_reached: {:.3f} x {}'s datasheet dense rates, the ratio a benchmark measured on both "
                                        "(F-ROOF-8)", ratio, die_of->text);
  }
}

void HardwareDb::resolve_sustained_rates() {
  for (const Record* r : records_of(schema::Kind::accelerator)) {
    const Entry* from = r->find("sustained_dense.from");
    if (!from) continue;
    AcceleratorSpec& a = accelerators_.at(r->name);
    if (from->list.empty()) throw r->error(*from, "sustained_dense.from: name at least one measured accelerator");
    std::vector<const AcceleratorSpec*> parts;
    for (const std::string& name : from->list) {
      auto it = accelerators_.find(name);
      if (it == accelerators_.end()) {
        std::vector<std::string> candidates;
        for (const auto& [n, spec] : accelerators_) candidates.push_back(n);
        throw r->error(*from, fmt::format("sustained_dense.from: no accelerator named '{}' in the database{}", name,
                                          did_you_mean(name, candidates)));
      }
      if (name == r->name || records_[by_name_.at(name)].find("sustained_dense.from"))
        throw r->error(*from, fmt::format("sustained_dense.from: '{}' takes its held rates from other parts itself; name measured parts", name));
      parts.push_back(&it->second);
    }
    bool took = false;
    for (std::size_t i = 0; i < kPrecisionCount; ++i) {
      if (!std::all_of(parts.begin(), parts.end(), [&](const AcceleratorSpec* p) { return p->sustained_dense_ratio[i].has_value(); }))
        continue;
      if (a.sustained_dense_ratio[i]) {  // measured on this device itself: its own figure stands
        took = true;
        continue;
      }
      double sum = 0;
      std::vector<std::string> each;
      for (std::size_t k = 0; k < parts.size(); ++k) {
        sum += *parts[k]->sustained_dense_ratio[i];
        each.push_back(fmt::format("{} ({:.3f})", from->list[k], *parts[k]->sustained_dense_ratio[i]));
      }
      a.sustained_dense_ratio[i] = sum / double(parts.size());
      a.sustained_dense_basis[i] = fmt::format("sustained_dense.from: not measured on this device; {} perfcast measured on {}",
                                               parts.size() > 1 ? "the mean of the held rates" : "the held rate", fmt::join(each, " and "));
      took = true;
    }
    if (!took)
      throw r->error(*from, fmt::format("sustained_dense.from: {} share no measured held rate (sustained_dense.bf16, .fp16 or .fp8)",
                                        fmt::join(from->list, ", ")));
  }
  for (auto& [name, a] : accelerators_) fill_sustained_classes(a);
}

void HardwareDb::check_references() const {
  for (const Record& r : records_) {
    for (const Entry& e : r.entries) {
      if (!e.field || e.field->type != schema::FieldType::reference) continue;
      const schema::KindSchema* target = schema::find_kind(e.field->refers_to);
      auto it = by_name_.find(e.text);
      if (it == by_name_.end() || records_[it->second].kind != target->kind) {
        std::vector<std::string> candidates;
        for (const Record* c : records_of(target->kind)) candidates.push_back(c->name);
        throw r.error(e, fmt::format("no {} named '{}' in the database{}", target->name, e.text,
                                     did_you_mean(e.text, candidates)));
      }
      for (const ReferenceRule& rule : kLinkClasses) {
        if (rule.kind != r.kind || rule.path != e.path) continue;
        const std::string& actual = links_.at(e.text).link_class;
        if (actual != rule.link_class)
          throw r.error(e, fmt::format("'{}' is a {} interconnect; expected a {} one", e.text, actual, rule.link_class));
      }
    }
    if (r.kind == schema::Kind::offer) {
      const OfferSpec& o = offers_.at(r.name);
      const SystemSpec& s = systems_.at(o.system);
      if (o.devices > s.devices_per_node)
        throw r.error(*r.find("devices"), fmt::format("{} devices is more than system '{}' has per node ({})",
                                                      o.devices, s.name, s.devices_per_node));
    }
  }
}

std::vector<const Record*> HardwareDb::records_of(schema::Kind kind) const {
  std::vector<const Record*> out;
  for (const Record& r : records_)
    if (r.kind == kind) out.push_back(&r);
  return out;
}

const Record& HardwareDb::record(std::string_view name) const {
  if (auto it = by_name_.find(name); it != by_name_.end()) return records_[it->second];
  std::vector<std::string> names;
  for (const Record& r : records_) names.push_back(r.name);
  throw InputError({}, fmt::format("no hardware named '{}'{} (perfcast hw list shows them all)", name,
                                   did_you_mean(name, names)));
}

const Record& HardwareDb::record_of_kind(std::string_view name, schema::Kind kind) const {
  if (!by_name_.count(name)) {
    std::vector<std::string> names;
    for (const Record& r : records_)
      if (r.kind == kind) names.push_back(r.name);
    throw InputError({}, fmt::format("no {} named '{}'{} (perfcast hw list shows them all)", schema::schema_for(kind).name, name,
                                     did_you_mean(name, names)));
  }
  const Record& r = record(name);
  if (r.kind != kind)
    throw InputError({}, fmt::format("'{}' is an {}, not an {}", name, schema::schema_for(r.kind).name,
                                     schema::schema_for(kind).name));
  return r;
}

const AcceleratorSpec& HardwareDb::accelerator(std::string_view name) const {
  return accelerators_.at(record_of_kind(name, schema::Kind::accelerator).name);
}
const LinkSpec& HardwareDb::link(std::string_view name) const {
  return links_.at(record_of_kind(name, schema::Kind::interconnect).name);
}
const SystemSpec& HardwareDb::system(std::string_view name) const {
  return systems_.at(record_of_kind(name, schema::Kind::system).name);
}
const OfferSpec& HardwareDb::offer(std::string_view name) const {
  return offers_.at(record_of_kind(name, schema::Kind::offer).name);
}
const RegionSpec& HardwareDb::region(std::string_view name) const {
  return regions_.at(record_of_kind(name, schema::Kind::region).name);
}

std::filesystem::path default_hardware_db_dir() { return shipped_data(PERFCAST_DEFAULT_HARDWARE_DB, "hardware_db"); }

}  // namespace perfcast
