"""Session 8: host time of the launchers with and without the autotuner on every launch.

    python benchmarks/sessions/s8_launch_path.py --pattern "local(3)" --seq-len 16384

In one process, alternating blocks of calls: ``kernels.launch`` as it is (the autotuned
kernels' picks remembered per key, later launches straight to the kernel) and as before
(every launch through Triton's autotuner, emulated by forgetting the picks before each
call, which costs one dict lookup and store more than the old path). Host time per call is
measured with the GPU kept busy (``benchmarks.overhead``), so it is the host's alone.
"""

import argparse
import statistics

import torch

import sparseflash
from benchmarks.overhead import _host_ms
from sparseflash.kernels import launch


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--pattern", default="local(3)")
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--iters", type=int, default=50)
    args = p.parse_args()
    N, D = args.seq_len, args.head_dim
    B = max(1, 16384 // N)
    q, k, v, do = (torch.randn(B, 16, N, D, device="cuda", dtype=torch.bfloat16)
                   for _ in range(4))
    layout = sparseflash.compile_layout(args.pattern, N, block=128, device=q.device)
    tables, meta, scale = layout.kernel_tables(), launch.LayoutMeta.of(layout), D ** -0.5
    tuned = (launch._forward, launch._dkdv, launch._dq)

    def forward():
        return launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)

    o, lse = forward()

    def backward():
        launch.backward(do, q, k, v, o, lse, tables, meta, scale, None, None, 0, 0.0)

    def through_autotuner(fn):
        def call():
            for t in tuned:
                t.picked.clear()
            fn()
        return call

    backward()
    torch.cuda.synchronize()
    times = {name: [] for name in ("fwd remembered", "fwd autotuner", "bwd remembered",
                                   "bwd autotuner")}
    with torch.no_grad():
        for _ in range(args.rounds):
            times["fwd remembered"].append(_host_ms(forward, args.iters))
            times["fwd autotuner"].append(_host_ms(through_autotuner(forward), args.iters))
            times["bwd remembered"].append(_host_ms(backward, args.iters))
            times["bwd autotuner"].append(_host_ms(through_autotuner(backward), args.iters))
    print(f"{args.pattern!r} N={N} D={D} B={B} H=16 bf16, host ms per launcher call, "
          f"{args.rounds} alternating rounds of {args.iters} calls:")
    for name, ms in times.items():
        print(f"  {name:15s} median {statistics.median(ms):.3f}  all "
              + " ".join(f"{m:.3f}" for m in ms))


if __name__ == "__main__":
    main()
