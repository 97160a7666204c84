"""Session 53: does a short row's D=64 forward lose its time to instruction issue? Nsight
Compute's counts of ``hopper``'s own forward on `local(1)`, `local(3)` and dense.

    ncu --clock-control none --profile-from-start off --kernel-name hopper_forward_kernel \\
        --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,... \\
        python benchmarks/sessions/s53_ncu_issue.py

N = 16K, 16 heads, bf16, D=64, block 128: one forward of each case under the profiler,
after one before it (compiles). ``s53_sass_segments.py`` counted the instructions a warp
issues for a row statically (a 3-tile row 29% beyond three steady trips); the executed
count per key tile and the issue slots' use say whether that is what sets the time.

Result (calls 7-8, logs ``benchmarks/results/NVIDIA-H200-ncu-issue-s53-call7.log`` and
``-ncu-stalls-s53-call8.log``; `local(1)` / `local(3)` / dense): warp instructions a row a
warp 1,768 / 3,560 / 58,900 (the static counts), issue slots used 45.2% / 48.5% / 50.5%,
warp cycles an issued instruction 8.47 / 7.99 / 7.72, of which long scoreboard 1.79 / 0.90
/ 0.21. The SM is not issue-bound; each warp is latency-bound, so the extra instructions
cost time (1.29x a tile on `local(1)`), and its cycles an instruction are 1.10x dense's,
long-scoreboard stalls up and the others down (NOTES v54).
"""

import torch

import sparseflash
from sparseflash.kernels import launch

CASES = ["local(1)", "local(3)", "dense"]


def main():
    N, H, D = 16384, 16, 64
    runs = []
    for pattern in CASES:
        q, k, v = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16)
                   for _ in range(3))
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        tiles = int(layout.density * (N // 128) ** 2) * H  # (query tile, key tile) pairs

        def run(q=q, k=k, v=v, tables=tables, meta=meta):
            launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, 0, 0.0)
        run()
        runs.append((pattern, tiles, run))
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    for pattern, tiles, run in runs:
        print(f"profiling {pattern}: {tiles} tile pairs", flush=True)
        run()
        torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()


if __name__ == "__main__":
    main()
