// perfcast_cpu_bench: measures one CPU core the way perfcast's roofline models a device (GEMMs via
// Eigen at several shapes, STREAM's scale, add and triad loops) and writes what perfcast reads: the
// core as an accelerator record (local-cpu.toml) and the measurements as validation cases
// (cases.toml). `validation/bench/cpu/loop.sh` then runs measure -> calibrate -> predict ->
// validate on any machine, no GPU needed.
//
// The nominal FP32 peak of one core is derived, not read from a datasheet:
//   clock x SIMD lanes of the instruction set Eigen was compiled for x 2 (a fused multiply-add is
//   two FLOPs) x FMA pipes per core (--fma-units, default 2: Intel Haswell and later, AMD Zen 2 and
//   later issue two vector FMAs per cycle; Intel's optimisation manual and AMD's software
//   optimisation guides).
// The clock is cpufreq's cpuinfo_max_freq when the kernel exposes it, else /proc/cpuinfo's "cpu
// MHz" (which a VM reports as its nominal clock); --clock-ghz overrides it.
// The memory bandwidth is --memory-bandwidth (channels x MT/s x 8 B from the DIMM configuration)
// when given; otherwise the best stream measured here, recorded as a measurement rather than a
// nominal figure, so that a calibrated `memory` fraction is relative to it.
//
// Timing: every measurement runs once per round, the rounds one after another, and each case keeps
// its best round. A slow spell on a shared machine then lands on one round of every case rather
// than on every round of one case. The median round's excess over the best, the median over the
// cases, is printed as the run-to-run spread: the noise a comparison of these cases must allow.
#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <functional>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string out = ".";
  bool quick = false;
  int fma_units = 2;
  double clock_ghz = 0, memory_GBps = 0;
};

// Seconds per call of `f` in one trial: `f` repeated for at least `min_s`.
double trial_seconds(const std::function<void()>& f, double min_s) {
  int calls = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  do {
    f();
    ++calls;
    elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  } while (elapsed < min_s);
  return elapsed / calls;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

std::string first_line_value(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  return "";
}

double clock_ghz(std::string& how) {
  std::ifstream max("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  if (max >> khz && khz > 0) {
    how = "cpufreq cpuinfo_max_freq";
    return khz / 1e6;
  }
  const std::string mhz = first_line_value("/proc/cpuinfo", "cpu MHz");
  if (!mhz.empty()) {
    how = "/proc/cpuinfo 'cpu MHz'";
    return std::stod(mhz) / 1e3;
  }
  return 0;
}

int simd_fp32_lanes() {
#if defined(EIGEN_VECTORIZE_AVX512)
  return 16;
#elif defined(EIGEN_VECTORIZE_AVX)
  return 8;
#elif defined(EIGEN_VECTORIZE_SSE) || defined(EIGEN_VECTORIZE_NEON)
  return 4;
#else
  return 1;
#endif
}

// Without FMA a core still issues a multiply and an add per cycle on most designs: the same peak as
// one FMA pipe, so --fma-units is then read as 1.
bool has_fma() {
#if defined(EIGEN_VECTORIZE_FMA) || defined(EIGEN_VECTORIZE_NEON)
  return true;
#else
  return false;
#endif
}

struct Gemm {
  int m, n, k;
  double seconds;
};

// STREAM's loops with cacheable stores: the destination's lines are read before they are written
// (write-allocate), so that traffic is counted as read bytes; STREAM's own table leaves it out.
struct Stream {
  std::string op;
  double elements, read_B, write_B, seconds;
};

// Bytes of this core's largest cache (sysfs cache/index*), 0 when the kernel does not say.
double last_level_cache_B() {
  double largest = 0;
  for (int i = 0; i < 8; ++i) {
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/size");
    std::string size;
    if (!(in >> size) || size.empty()) continue;
    double scale = 1;
    if (size.back() == 'K') scale = 1024;
    else if (size.back() == 'M') scale = 1024.0 * 1024;
    if (scale > 1) size.pop_back();
    try {
      largest = std::max(largest, std::stod(size) * scale);
    } catch (const std::exception&) {
    }
  }
  return largest;
}

std::string today() {
  char buf[16];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
  return buf;
}

// TOML basic strings: quotes and backslashes escaped.
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

int usage(const char* self) {
  std::fprintf(stderr,
               "usage: %s [--out DIR] [--quick] [--fma-units N] [--clock-ghz GHZ] [--memory-bandwidth GBPS]\n"
               "Measures one core: Eigen FP32 GEMMs and STREAM scale/add/triad. Writes DIR/local-cpu.toml\n"
               "(an accelerator record for perfcast's hardware database) and DIR/cases.toml (validation cases).\n",
               self);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "perfcast_cpu_bench: %s needs a value\n", a.c_str());
        std::exit(1);
      }
      return argv[++i];
    };
    try {
      if (a == "--out") o.out = value();
      else if (a == "--quick") o.quick = true;
      else if (a == "--fma-units") o.fma_units = std::stoi(value());
      else if (a == "--clock-ghz") o.clock_ghz = std::stod(value());
      else if (a == "--memory-bandwidth") o.memory_GBps = std::stod(value());
      else return usage(argv[0]);
    } catch (const std::exception&) {
      std::fprintf(stderr, "perfcast_cpu_bench: %s: not a number\n", a.c_str());
      return 1;
    }
  }
  if (o.fma_units < 1 || o.clock_ghz < 0 || o.memory_GBps < 0) return usage(argv[0]);

  std::string clock_source = "--clock-ghz";
  const double ghz = o.clock_ghz > 0 ? o.clock_ghz : clock_ghz(clock_source);
  if (!(ghz > 0)) {
    std::fprintf(stderr, "perfcast_cpu_bench: cannot read the clock; give --clock-ghz\n");
    return 1;
  }
  const int lanes = simd_fp32_lanes(), pipes = has_fma() ? o.fma_units : 1;
  const double peak = ghz * 1e9 * lanes * 2 * pipes;
  std::string cpu = first_line_value("/proc/cpuinfo", "model name");
  if (cpu.empty()) cpu = "unknown CPU";

  // GEMMs: multiples of 256 (perfcast pads GEMMs to 128x256 tiles when a device has no SM count),
  // square and rectangular, from cache-resident to memory-streaming operands.
  const double min_s = o.quick ? 0.05 : 0.3;
  const int rounds = o.quick ? 3 : 5;
  std::vector<std::array<int, 3>> shapes = {{256, 256, 256}, {512, 512, 512}, {768, 768, 768}, {1024, 1024, 1024},
                                            {256, 1024, 1024}, {1024, 256, 1024}, {1024, 1024, 256}, {512, 2048, 512}};
  if (!o.quick) shapes.insert(shapes.end(), {{1536, 1536, 1536}, {2048, 2048, 2048}, {2048, 512, 2048}});
  struct Operands {
    Eigen::MatrixXf a, b, c;
  };
  std::vector<Operands> operands;
  for (auto [m, n, k] : shapes) operands.push_back({Eigen::MatrixXf::Random(m, k), Eigen::MatrixXf::Random(k, n), Eigen::MatrixXf(m, n)});
  // What each case runs: the GEMMs, in `shapes` order, then the streams, in `streams` order.
  std::vector<std::function<void()>> runs;
  for (Operands& g : operands) runs.push_back([&g] { g.c.noalias() = g.a * g.b; });

  // Streams: STREAM's rule (stream.c v5.10, criterion (a)) is arrays of at least 4x the cache each;
  // without --quick also 8x. Each array is capped at an eighth of MemAvailable (three are live).
  const double llc_B = last_level_cache_B(), available_B = 1024 * std::stod("0" + first_line_value("/proc/meminfo", "MemAvailable"));
  const double cache_B = llc_B > 0 ? llc_B : 32.0 * 1024 * 1024;  // sysfs silent: 32 MiB, above most desktop L3s
  std::vector<std::size_t> sizes;
  for (double times : o.quick ? std::vector<double>{4} : std::vector<double>{4, 8}) {
    double array_B = times * cache_B;
    if (available_B > 0) array_B = std::min(array_B, available_B / 8);
    sizes.push_back(static_cast<std::size_t>(array_B / sizeof(double)));
  }
  const std::size_t largest = *std::max_element(sizes.begin(), sizes.end());
  std::vector<double> x(largest, 1.0), y(largest, 2.0), z(largest, 0.5);
  std::vector<Stream> streams;
  for (std::size_t n : sizes) {
    const double bytes = double(n) * sizeof(double);
    streams.push_back({"scale", double(n), 2 * bytes, bytes, 0});
    runs.push_back([&, n] {
      for (std::size_t i = 0; i < n; ++i) x[i] = 3.0 * y[i];
    });
    streams.push_back({"add", double(n), 3 * bytes, bytes, 0});
    runs.push_back([&, n] {
      for (std::size_t i = 0; i < n; ++i) x[i] = y[i] + z[i];
    });
    streams.push_back({"triad", double(n), 3 * bytes, bytes, 0});
    runs.push_back([&, n] {
      for (std::size_t i = 0; i < n; ++i) x[i] = y[i] + 3.0 * z[i];
    });
  }

  for (const auto& f : runs) f();  // warm-up: page faults, caches, Eigen's blocking buffers
  std::vector<std::vector<double>> seconds(runs.size());
  for (int round = 0; round < rounds; ++round)
    for (std::size_t i = 0; i < runs.size(); ++i) seconds[i].push_back(trial_seconds(runs[i], min_s));
  std::vector<double> best(runs.size()), excess;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    best[i] = *std::min_element(seconds[i].begin(), seconds[i].end());
    excess.push_back(median(seconds[i]) / best[i] - 1);
  }
  const double spread = median(excess);
  for (const Operands& g : operands)
    if (!std::isfinite(g.c(0, 0))) return 1;
  if (!(x[largest / 2] > 0)) return 1;

  std::vector<Gemm> gemms;
  for (std::size_t i = 0; i < shapes.size(); ++i) gemms.push_back({shapes[i][0], shapes[i][1], shapes[i][2], best[i]});
  for (std::size_t i = 0; i < streams.size(); ++i) streams[i].seconds = best[shapes.size() + i];
  double best_stream = 0;
  for (const Stream& s : streams) best_stream = std::max(best_stream, (s.read_B + s.write_B) / s.seconds);
  const bool nominal_memory = o.memory_GBps > 0;
  const double memory_Bps = nominal_memory ? o.memory_GBps * 1e9 : best_stream;
  const double mem_total_kb = std::stod("0" + first_line_value("/proc/meminfo", "MemTotal"));
  const std::string date = today();
  std::ostringstream simd;
  simd << Eigen::SimdInstructionSetsInUse();

  std::ofstream rec(o.out + "/local-cpu.toml");
  rec.precision(10);
  rec << "# Written by perfcast_cpu_bench on " << date << ": one core of this machine as a perfcast device.\n"
      << "schema_version = 1\nname = \"local-cpu\"\ndisplay_name = " << quoted(cpu + " (one core)") << "\nvendor = "
      << quoted(first_line_value("/proc/cpuinfo", "vendor_id").empty() ? "unknown" : first_line_value("/proc/cpuinfo", "vendor_id"))
      << "\ncategory = \"cpu\"\n\n[peak_dense]\nfp32 = { value = \"" << peak / 1e9 << " GFLOP/s\", source = \"derived\", note = "
      << quoted(std::to_string(ghz) + " GHz (" + clock_source + ") x " + std::to_string(lanes) + " FP32 lanes (" + simd.str() + ") x 2 x " +
                std::to_string(pipes) + " FMA pipe(s)")
      << " }\n\n[memory]\ntype = \"DRAM\"\ncapacity = { value = \"" << mem_total_kb / 1024 << " MiB\", source = \"meminfo\" }\n"
      << "bandwidth = { value = \"" << memory_Bps / 1e9 << " GB/s\", source = \"" << (nominal_memory ? "user" : "measured") << "\" }\n\n"
      << "[sources.derived]\ntitle = \"clock x SIMD lanes x 2 x FMA pipes, from the running machine\"\ndate = \"" << date
      << "\"\nkind = \"derived\"\n\n[sources.meminfo]\ntitle = \"/proc/meminfo MemTotal\"\ndate = \"" << date
      << "\"\nkind = \"measurement\"\n\n";
  if (nominal_memory)
    rec << "[sources.user]\ntitle = \"--memory-bandwidth given to perfcast_cpu_bench (channels x MT/s x 8 B)\"\ndate = \"" << date
        << "\"\nkind = \"estimate\"\n";
  else
    rec << "[sources.measured]\ntitle = \"the best scale/add/triad perfcast_cpu_bench measured on this core: an achieved ceiling, not a "
           "nominal figure\"\ndate = \""
        << date << "\"\nkind = \"measurement\"\n";

  std::ofstream cases(o.out + "/cases.toml");
  cases.precision(10);
  const std::string source = "perfcast_cpu_bench, " + date + ", " + cpu + ", one core, Eigen " + std::to_string(EIGEN_WORLD_VERSION) +
                             "." + std::to_string(EIGEN_MAJOR_VERSION) + "." + std::to_string(EIGEN_MINOR_VERSION) + " (" + simd.str() +
                             "), compiler " + __VERSION__;
  cases << "# Measured by perfcast_cpu_bench: the best of " << rounds << " rounds, each a trial of at least " << min_s
        << " s per case; run-to-run spread " << 100 * spread << " % (median round over best, median over cases).\n"
        << "# Stream arrays: " << static_cast<double>(sizes.front() * sizeof(double)) / 1048576.0 << " MiB and up, against a " << cache_B / 1048576.0
        << " MiB last-level cache" << (llc_B > 0 ? "" : " (assumed: sysfs names none)") << " and " << available_B / 1073741824.0
        << " GiB MemAvailable (an array is at most an eighth of it).\n"
        << "schema_version = 1\nsuite = \"microbenchmark\"\n";
  for (const Gemm& g : gemms)
    cases << "\n[[case]]\nid = \"cpu-gemm-fp32-" << g.m << "x" << g.n << "x" << g.k << "\"\nsource = " << quoted(source)
          << "\ndevice = " << quoted(cpu) << "\naccelerator = \"local-cpu\"\nkind = \"gemm\"\nm = " << g.m << "\nn = " << g.n
          << "\nk = " << g.k << "\ndtype = \"fp32\"\nout_dtype = \"fp32\"\nmeasured = \"" << 2.0 * g.m * g.n * g.k / g.seconds / 1e9
          << " GFLOP/s\"\ntolerance = 0.15\nnotes = \"Eigen MatrixXf c.noalias() = a * b, single-threaded\"\n";
  for (const Stream& s : streams)
    cases << "\n[[case]]\nid = \"cpu-" << s.op << "-" << static_cast<long long>(s.elements) << "\"\nsource = " << quoted(source) << "\ndevice = " << quoted(cpu)
          << "\naccelerator = \"local-cpu\"\nkind = \"memory\"\nread = \"" << s.read_B << " B\"\nwrite = \"" << s.write_B
          << " B\"\nmeasured = \"" << (s.read_B + s.write_B) / s.seconds / 1e9 << " GB/s\"\ntolerance = 0.15\nnotes = \""
          << (s.op == "scale" ? "a[i] = 3 b[i]" : s.op == "add" ? "a[i] = b[i] + c[i]" : "a[i] = b[i] + 3 c[i]")
          << " over doubles; the destination's write-allocate read counted\"\n";
  if (!rec || !cases) {
    std::fprintf(stderr, "perfcast_cpu_bench: cannot write to %s\n", o.out.c_str());
    return 1;
  }
  std::printf("%s: peak %.1f GFLOP/s (derived), %zu GEMMs, %zu streams; best stream %.2f GB/s\n"
              "run-to-run spread %.1f%% (median round over the best, median over %zu cases, %d rounds)\n"
              "wrote %s/local-cpu.toml and %s/cases.toml\n",
              cpu.c_str(), peak / 1e9, gemms.size(), streams.size(), best_stream / 1e9, 100 * spread, runs.size(), rounds,
              o.out.c_str(), o.out.c_str());
  return 0;
}
