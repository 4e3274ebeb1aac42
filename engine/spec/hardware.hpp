#pragma once
// Typed, immutable hardware specs in SI units (built from validated records by engine/data), and
// the hardware a scenario runs on with every name resolved. Predictions take these; they never see
// files, strings of units, sources or the database.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/precision.hpp"

namespace perfcast {

struct PowerMode {
  std::string name;
  double power_W = 0;
  bool is_default = false;
  std::optional<double> gpu_max_clock_Hz;
  std::optional<int> gpu_tpcs;
  std::optional<double> memory_bandwidth_Bps;
};

// The GPU generations a training stack names its kernels for (models/training_stack).
enum class GpuArchitecture { other, hopper, blackwell };

struct AcceleratorSpec {
  std::string name, display_name, vendor, category;
  GpuArchitecture architecture = GpuArchitecture::other;  // from the record's `architecture` text
  bool gpu = false;  // category datacenter-gpu or edge-gpu: work runs in waves over its compute units
  std::array<std::optional<double>, kPrecisionCount> peak_dense_ops_per_s{};  // FLOP/s or OP/s, dense
  std::optional<double> memory_capacity_marketing_B;  // as printed by the vendor
  std::optional<double> memory_capacity_usable_B;     // as reported by the driver
  std::optional<double> memory_bandwidth_Bps;
  std::optional<double> decode_attention_Bps;  // measured decode-attention kernel rate (F-ATT-2)
  std::string decode_attention_basis;          // where it comes from (the record's field, or the part it is taken from)
  std::optional<double> decode_attention_fp8_kv_share;  // that kernel's rate per byte over an 8-bit cache, over a 16-bit one (F-ATT-4)
  std::optional<double> l2_B, sram_B, tdp_W, idle_W, boost_clock_Hz, price_usd, embodied_kg;
  std::optional<double> default_power_limit_W;  // the limit the board ships with, where below its TDP
  std::optional<int> compute_units, tpcs;
  std::string scale_up_link, host_link;
  std::optional<double> scale_up_bandwidth_per_direction_Bps;
  std::optional<int> dla_count;
  std::optional<double> dla_int8_ops_per_s;
  std::vector<PowerMode> power_modes;

  std::optional<double> peak(Precision p) const { return peak_dense_ops_per_s[static_cast<std::size_t>(p)]; }
  // F-EN-5: the dense tensor rate a long run holds at the power limit over its burst rate, where known,
  // and where each comes from ("sustained_dense.fp8: <the record's note>").
  std::array<std::optional<double>, kPrecisionCount> sustained_dense_ratio{};
  std::array<std::string, kPrecisionCount> sustained_dense_basis{};
  // The share of each datasheet dense rate the part reaches where a benchmark run beside a part of the
  // same die measured it (F-ROOF-8); 1 elsewhere. Timing uses it, burst and sustained; MFU does not.
  std::array<std::optional<double>, kPrecisionCount> dense_reached_share{};
  std::string dense_reached_basis;
  double reached_share(Precision p) const { return dense_reached_share[static_cast<std::size_t>(p)].value_or(1); }
  double sustained_ratio(Precision p) const { return sustained_dense_ratio[static_cast<std::size_t>(p)].value_or(1); }
  const std::string& sustained_basis(Precision p) const { return sustained_dense_basis[static_cast<std::size_t>(p)]; }
  // What allocations can use: the driver-reported capacity when known, else the vendor figure.
  std::optional<double> memory_capacity_B() const {
    return memory_capacity_usable_B ? memory_capacity_usable_B : memory_capacity_marketing_B;
  }
};

struct LinkSpec {
  std::string name, display_name, link_class, scope;
  std::optional<double> bandwidth_per_direction_Bps, per_link_bandwidth_per_direction_Bps;
  std::optional<double> latency_s, nvls_efficiency, switching_capacity_per_direction_Bps;
  std::optional<double> ring_busbw_Bps;  // NCCL ring busbw measured over the link at large sizes (F-COLL-7)
  std::optional<int> links, max_domain;
  bool in_network_reduction = false;
};

struct SystemSpec {
  std::string name, display_name, accelerator, scale_up, scale_up_switch, scale_out, host_link, cpu;
  int devices_per_node = 0;
  int scale_up_domain = 0;
  std::optional<int> nics_per_node;
  std::optional<double> node_power_W, price_usd;
  bool amd_host = false;  // cpu_vendor = "amd": NCCL's tuner takes some constants by host CPU vendor
};

struct OfferSpec {
  std::string name, display_name, provider, instance, system, region, cloud_region, as_of;
  int devices = 0;
  double on_demand_usd_per_device_s = 0;  // normalised to one device
  std::optional<double> spot_usd_per_device_s;
  std::optional<double> network_per_instance_Bps;  // per direction
  bool community = false;  // third-party hosts on a marketplace (RunPod Community Cloud): no provider SLA
};

struct RegionSpec {
  std::string name, display_name, grid_area, grid_basis, grid_year;
  double grid_kg_per_J = 0;
  std::optional<double> electricity_usd_per_J;
  std::optional<double> pue;
  std::vector<std::string> cloud_regions;
};

// The precisions `a` has a dense peak in, "bf16, fp16, fp8, int8": what error messages offer.
std::string precision_list(const AcceleratorSpec& a);

// A scenario's hardware with every name resolved once (engine/data/hardware_resolution): what the
// predictions read instead of looking names up.
struct ResolvedHardware {
  AcceleratorSpec datasheet;              // the accelerator as the database lists it
  AcceleratorSpec device;                 // ... with the power mode applied (and one DLA core when asked)
  std::optional<PowerMode> power_mode;    // the chosen mode, else the device's default mode
  // The power limit below TDP the device runs under ([hardware] power_limit, else the board's
  // default limit), and the sustained tensor clock it leaves as a fraction of the TDP one (F-EN-4).
  std::optional<double> power_limit_W;
  double clock_ratio = 1;
  // The device's tensor peaks carry the datasheet's sustained rates (F-EN-5): a scenario, a long run.
  // A device resolved alone (microbenchmarks, roofline --hw) keeps the burst rates.
  bool sustained = false;
  // The dense peak MFU counts against: the power mode's, before a power limit lowers the sustained
  // clock, before the sustained rate of F-EN-5 and before F-ROOF-8's measured share (the stacks report
  // MFU against the datasheet peak).
  std::optional<double> rated_peak(Precision p) const {
    const std::optional<double> v = device.peak(p);
    const double held = clock_ratio * (sustained ? datasheet.sustained_ratio(p) : 1) * datasheet.reached_share(p);
    return v ? std::optional<double>(*v / held) : std::nullopt;
  }
  std::optional<LinkSpec> host_link;      // the accelerator's host link (PCIe): the roofline's host ceiling
  std::optional<SystemSpec> system;       // the scenario's system, when it names one
  // The node's fabric: the scale-up link and its switch, the host link devices of a node use when
  // there is no scale-up link (the system's, else the accelerator's), the scale-out network.
  std::optional<LinkSpec> scale_up, scale_up_switch, node_host_link, scale_out;
  int nics_per_node = 0;                  // scale-out NICs per node
  // The node whose power is counted: the scenario's system, else the first shipped system built
  // from this accelerator (hardware_db order); absent when none is.
  std::optional<SystemSpec> node_system;
  std::optional<OfferSpec> offer;         // [cost] offer
  // The region whose grid, price and PUE apply: [region] name, else the offer's region.
  std::optional<RegionSpec> region;
  // [cost] purchase: the cheapest on-demand offer of a system built from this accelerator (the
  // cloud alternative the on-prem cost is set against).
  std::optional<OfferSpec> cheapest_offer;
};

}  // namespace perfcast
