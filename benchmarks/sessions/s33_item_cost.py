"""Session 33: what a work item of the D=128 ping-pong forward costs beyond its tiles.

    python benchmarks/sessions/s33_item_cost.py [--rounds 2]

Runs on the knobs' tree: ``git checkout 2b1026e && git apply
benchmarks/sessions/s33_boundary.patch`` (call 2 ran commit bc83afd).

Call 1 (``s33_handed_walk_ab.py``) took the warp groups' table reads and O-store wait off
the item boundaries and changed nothing measurable, so the ~2.6 us an item beyond the
dense rate a tile (fitted from ``local(1)`` and ``local(3)``, NOTES v35) lies elsewhere.
Two probes, the session-32 kernel (``HANDED_WALK`` and ``STORE_UNDER_NEXT`` off):

1. **Where K and V come from.** ``local(w)`` rows for w = 1, 3, 7 and dense, B=1, H=16,
   N=16K, with K and V per head (16 KV heads: 128 MB of K/V, each tile first read from
   HBM) and shared by all heads (1 KV head: 8 MB, read from L2 after its first use). If
   the per-item cost is the first read's latency, it shrinks with one KV head.
2. **When the loader claims its next item** (``CLAIM_AHEAD`` = 0, 2 and all tiles
   ahead), with ``s23_persistent_ab``'s shapes and patterns, outputs bit for bit.
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from s23_persistent_ab import compare_forwards  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash.kernels import hopper_pingpong, launch  # noqa: E402


def kv_heads_probe(rounds):
    B, H, N, D = 1, 16, 16384, 128
    gen = torch.Generator(device="cuda").manual_seed(0)
    q = torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16, generator=gen)
    for pattern in ("local(1)", "local(3)", "local(7)", "dense"):
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        tiles = layout.density * (N // 128)  # key tiles an item, on average
        for rnd in range(rounds):
            for h_kv in (16, 1):
                k, v = (torch.randn(B, h_kv, N, D, device="cuda", dtype=torch.bfloat16,
                                    generator=gen) for _ in range(2))
                launch.clear_plans()
                run = lambda: launch.forward(  # noqa: E731
                    q, k, v, tables, meta, D ** -0.5, None, None, 0, 0.0)
                ms = triton.testing.do_bench(run, warmup=25, rep=200)
                items_per_sm = B * H * (N // 128) / torch.cuda.get_device_properties(
                    0).multi_processor_count
                print(f"{pattern:9s} {tiles:6.2f} tiles/item  KV heads {h_kv:2d}  round {rnd + 1}"
                      f"  {ms:7.3f} ms  {ms * 1e3 / items_per_sm:7.2f} us/item-per-SM"
                      f"  {4 * B * H * N * N * D * layout.density / ms / 1e9:6.1f} TFLOP/s",
                      flush=True)


def _claim(ahead):
    hopper_pingpong.CLAIM_AHEAD = ahead


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 2
    hopper_pingpong.HANDED_WALK = hopper_pingpong.STORE_UNDER_NEXT = False
    kv_heads_probe(rounds)
    compare_forwards(128, [("claim after last", 0), ("claim 2 ahead", 2),
                           ("claim at first", 1 << 20)], _claim, rounds)


if __name__ == "__main__":
    main()
