"""Writes validation/collectives-azure-gb200.toml: the NCCL all-reduce table of Azure's ND GB200 v6 page, the
first measured collective on NVLink 5 among the cases.

    cd validation/import && python3 azure_gb200_nccl_cases.py > ../collectives-azure-gb200.toml

Source: Azure/AI-benchmarking-guide, Azure_Results/ND_GB200_v6_results.md @ 2a370be6de95 (system: NVIDIA GB200
185GB, Arm Neoverse-V2, CUDA 12.8, driver 570.133.20, NCCL 2.25.1), 'NCCL Bandwidth': in-place busbw of
all_reduce_perf from 1K to 8G. The harness, Benchmarks/NVIDIA/NCCLBandwidth.py @ 545c5c6a7e3e, counts the VM's
GPUs and, where there are 4 (an ND GB200 v6 VM is one compute tray's 4 GPUs of an NVL72 rack's NVLink domain),
runs `NCCL_ALGO=Ring ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 4 -n 40` and keeps field 12 of each line (the
in-place busbw). The sizes are the powers of two it prints; the page's labels round them ('65K' = 65536).
The page starts at 1K; its 8 to 512 B rows are not published. The 8G row is the source of NVLink 5's measured ring
rate (hardware_db/interconnects/nvlink5.toml ring_busbw, F-COLL-7) and is not scored; the 23 smaller sizes are.
"""
from case_toml import q

SOURCE = ("Azure/AI-benchmarking-guide, Azure_Results/ND_GB200_v6_results.md @ commit 2a370be6de9586d365feed77e014a73f25198f4d "
          "(Microsoft Azure, ND GB200 v6 results), 'NCCL Bandwidth' table")
NOTES = ("busbw in GB/s (1e9), in place, from 'NCCL_ALGO=Ring all_reduce_perf -b 8 -e 8G -f 2 -g 4 -n 40' "
         "(Benchmarks/NVIDIA/NCCLBandwidth.py @ 545c5c6a7e3e: Ring where the VM has 4 GPUs). Hardware as published: "
         "NVIDIA GB200 185GB, one ND GB200 v6 VM = 4 GPUs of a GB200 NVL72 rack, NVLink 5 through the rack's NVLink "
         "switches (modelled as gb200-nvl72, 4 ranks in its one NVLink domain). Software: CUDA 12.8, driver 570.133.20, "
         "NCCL 2.25.1, PyTorch 2.6.0.")
USED_FOR = "hardware_db/interconnects/nvlink5.toml ring_busbw (F-COLL-7): NVLink 5's ring rate is this row's busbw"
# (page label, busbw GB/s); the label's size is the power of two nccl-tests printed.
ROWS = [("1K", 0.10), ("2K", 0.19), ("4K", 0.38), ("8K", 0.76), ("16K", 1.46), ("32K", 2.88), ("65K", 5.71), ("132K", 11.29),
        ("256K", 22.41), ("524K", 44.07), ("1M", 80.48), ("2M", 110.43), ("4M", 146.27), ("8M", 253.46), ("16M", 331.09),
        ("33M", 422.62), ("67M", 550.73), ("134M", 574.19), ("268M", 593.53), ("536M", 618.74), ("1G", 646.87),
        ("2G", 666.63), ("4G", 673.06), ("8G", 679.61)]

print("""# Collective cases: Azure's ND GB200 v6 NCCL ring all-reduce over 4 GPUs, written by
# validation/import/azure_gb200_nccl_cases.py (read it for the source and the harness). Tolerances as
# collectives.toml: 0.15 from 64 MiB up (bandwidth-bound), 1.0 below (latency-bound: within a factor of two).
schema_version = 1
suite = "collective"
""")
for i, (label, busbw) in enumerate(ROWS):
    size = 1024 << i
    scale = " KMG".index(label[-1])
    assert any(abs(int(label[:-1]) * base ** scale / size - 1) < 0.05 for base in (1000, 1024)), label  # the page's rounding
    print("\n".join(["[[case]]", f'id = "azure-nccl-allreduce-gb200-4gpu-ring-{label.lower()}"', f"source = {q(SOURCE)}",
                     'system = "gb200-nvl72"', 'op = "all_reduce"', 'algorithm = "ring"', "gpus = 4", f"bytes = {size}",
                     f'measured_busbw = "{busbw} GB/s"', f"tolerance = {0.15 if size >= 64 * 1024 ** 2 else 1.0}",
                     *([f"used_for = {q(USED_FOR)}"] if label == "8G" else []), f"notes = {q(NOTES)}", ""]))
