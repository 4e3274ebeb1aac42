#pragma once
#include <algorithm>
#include <cmath>

// Energy and carbon (MODELS-REFERENCE §13, F-EN-1..3). Power follows what the device is doing,
// not TDP × hours: P(u) = P_idle + u·(P_TDP − P_idle) for each activity, a node factor adds host,
// NIC and fan power, PUE adds the facility. SI units: W, J, s, kg CO2e.
namespace perfcast::models {

constexpr double kJoulesPerKwh = 3.6e6;

// Grid intensity as published (gCO2e per kWh) in SI (kg per J).
constexpr double grid_kg_per_J(double g_per_kwh) { return g_per_kwh / 1000 / kJoulesPerKwh; }

// Seconds one device spends in each activity (per step, per request or per run: any span).
struct Activity {
  double compute_s = 0;        // tensor-core bound (GEMMs, prefill, recompute)
  double memory_s = 0;         // HBM bound (decode, norms, optimizer)
  double communication_s = 0;  // exposed collectives: SMs mostly wait on the network
  double idle_s = 0;           // pipeline bubbles, launch gaps, data stalls
  double total_s() const { return compute_s + memory_s + communication_s + idle_s; }
};

// Activity levels u in P(u); each default names where it comes from.
struct PowerLevels {
  // A device saturating its tensor cores runs at its power limit (F-EN-1 with u = 1, LLMCarbon's
  // TDP-style assumption). An upper bound: measured GEMM loads on H200 sit at ~0.94 of TDP
  // (661.7 W FP8 of 700 W, serialalice GPU energy benchmark, 2026, secondary).
  double compute = 1.0;
  // HBM-bound decode: H200 at batch 128 drew 516.9 W against 80.3 W idle and 700 W TDP, so
  // u = (516.9 − 80.3)/(700 − 80.3) = 0.70 (same benchmark, secondary).
  double memory = 0.70;
  // Exposed communication and bubbles draw the idle floor: an assumption (NCCL kernels spin a few
  // SMs while the tensor cores and most of HBM rest); calibrate with measured power.
  double communication = 0.0;
};

// F-EN-1: P_avg = P_idle + u·(P_TDP − P_idle).
constexpr double device_power_W(double tdp_W, double idle_W, double u) { return idle_W + u * (tdp_W - idle_W); }

// F-EN-4: the exponent of tensor-core power in the tensor rate at the power limit, P − P_idle ∝ R^β,
// measured on one H200 (GH100, the H100's die) at its 700 W limit by the GPU kit's duty section
// (validation/bench/gpu/runs/2026-11-27-h200): GEMM bursts alternate with idle gaps at duty d, the
// board holds P_idle + d·g(R) = P_limit, so each throttled duty is one point of g ∝ R^β. Two runs
// gave BF16 2.158 and 2.077, FP8 2.355 and 2.338; β is their mean (duty_exponent.py, which CTest
// checks against this line). Lower than the cube of C·V²·f with the voltage in step with the clock:
// a limit costs more rate than that textbook law says.
inline constexpr double kTensorPowerExponent = 2.232;

// F-EN-4: the sustained tensor rate of tensor-core-bound work under a power limit below TDP, as a
// fraction of the rate the device sustains at TDP (F-EN-5, where the efficiency defaults apply):
// ((P_L − P_idle)/(P_TDP − P_idle))^(1/β). Memory-bound work draws less than the limit and keeps
// its pace.
inline double sustained_clock_ratio(double limit_W, double tdp_W, double idle_W) {
  if (limit_W >= tdp_W || tdp_W <= idle_W) return 1.0;
  return std::pow(std::max(limit_W - idle_W, 0.0) / (tdp_W - idle_W), 1 / kTensorPowerExponent);
}

// Energy one device draws over `a` (J).
double device_energy_J(const Activity& a, double tdp_W, double idle_W, const PowerLevels& u = {});

// F-EN-1 node factor k_node = P_node / Σ P_accelerators at peak (host CPUs, DRAM, NICs, fans):
// IT energy = k_node × accelerator energy. 1 when the node power is unknown.
constexpr double node_factor(double node_power_W, int devices_per_node, double tdp_W) {
  return node_power_W > 0 && devices_per_node > 0 && tdp_W > 0 ? node_power_W / (devices_per_node * tdp_W) : 1.0;
}

// F-EN-1: facility energy = IT energy × PUE (The Green Grid; ISO/IEC 30134-2).
constexpr double facility_energy_J(double it_J, double pue) { return it_J * pue; }

// F-EN-2: operational CO2e = facility energy × grid intensity (kg/J).
constexpr double operational_co2e_kg(double facility_J, double grid_kg_per_J) { return facility_J * grid_kg_per_J; }

// F-EN-3: embodied CO2e amortised linearly over the hardware's life: Σ kg × t_job / lifetime.
constexpr double embodied_co2e_kg(double kg_per_device, double devices, double job_s, double lifetime_s) {
  return lifetime_s > 0 ? kg_per_device * devices * job_s / lifetime_s : 0.0;
}

}  // namespace perfcast::models
