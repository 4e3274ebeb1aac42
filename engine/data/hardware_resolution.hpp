#pragma once
// Every hardware name a scenario uses, resolved once into typed values (engine/spec): the device
// with its power mode applied, its links, system, offer and region. After this nothing downstream
// looks a name up.
#include <string_view>

#include "engine/data/hardware_db.hpp"
#include "engine/spec/scenario.hpp"

namespace perfcast {

// The device a power mode leaves (F-EDGE-1): GPU peaks scaled by the mode's clock over the boost
// clock and its active TPCs over all, memory bandwidth capped where the mode says, the mode's
// power budget as TDP; `dla`: one NVDLA core's share of the DLA INT8 rate instead of the GPU.
AcceleratorSpec apply_power_mode(AcceleratorSpec a, const std::optional<PowerMode>& mode, bool dla);

// The scenario's [hardware] resolved in `db` (names already checked) ...
ResolvedHardware resolve_hardware(const HardwareDb& db, const HardwareChoice& h);
// ... and its [cost] offer, [region] (else the offer's region) and, for a purchase, the cheapest
// cloud offer of the same accelerator (the on-prem cost's cloud alternative).
// `devices`: the job's, which the cloud alternative must be able to hold.
void resolve_offer_and_region(const HardwareDb& db, const CostSettings& c, const RegionSettings& r, int devices, ResolvedHardware& hw);
// An accelerator alone (roofline --hw): the datasheet device and its host link.
ResolvedHardware resolve_accelerator(const HardwareDb& db, std::string_view name);
// F-EN-5: a scenario is a long run (a training job, a serving replica), so its dense tensor work runs
// at the rate the device holds at its power limit, not the burst rate microbenchmarks see: the
// device's peaks times the datasheet's sustained ratios, once (resolve_hardware does it).
void hold_at_power_limit(ResolvedHardware& hw);
// A shipped system's node (collective --system): its accelerator and fabric.
ResolvedHardware resolve_system(const HardwareDb& db, std::string_view name);
// Why an offer cannot hold a job of `devices`, or "" when it can: within one instance, or across
// instances only when each is a whole node (its system's devices per node) with a stated scale-out
// network between them — single GPUs rented apart share no InfiniBand or EFA fabric.
std::string offer_misfit(const HardwareDb& db, const OfferSpec& o, int devices);
// The offers of systems built from `accelerator`, against a job of `devices`: the cheapest on-demand
// one that holds it, if any, and why each other cannot ("name (why); ...", for errors).
struct OfferChoice {
  const OfferSpec* cheapest = nullptr;
  std::string misfits;
  std::string why;  // "cheapest on-demand of the N offers that hold D <accelerator>; passed over: ..." when one was chosen
};
OfferChoice choose_offer(const HardwareDb& db, std::string_view accelerator, int devices);

}  // namespace perfcast
