"""Session 20: the library's forward with the ping-pong kernel against hopper's serial
Gluon kernel and the Triton forward (call 2), then one program an item against the
persistent form (``--persistent``, calls 5 and 6, on commits 7e8d823 and 8616f9f, whose
``hopper_pingpong.PERSISTENT`` switched it; not kept), alternating, in one process.

    python benchmarks/sessions/s20_forward_ab.py [--head-dim 64] [--seq-len N] [--persistent]

N = 16K, H = 16, bf16 (D=128 unless --head-dim); each variant's output against the
first's (the Triton forward, itself tested against float64), then ``launch.forward``
timed (do_bench median) and its kernels' CUDA time (torch profiler), two rounds.
"""

import os
import sys

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
from s15_gluon_where import kernel_times  # noqa: E402

import sparseflash  # noqa: E402
from sparseflash.kernels import hopper_pingpong, launch  # noqa: E402

PATTERNS = ["dense", "causal", "local(3)", "butterfly", "local(1) | global(1) | random(2)"]
# (label, SPARSEFLASH_GLUON, SPARSEFLASH_PINGPONG, hopper_pingpong.PERSISTENT)
VARIANTS = [("triton", "0", "0", False), ("gluon serial", "1", "0", False),
            ("pingpong", "1", "1", False)]
PERSISTENT_VARIANTS = [("gluon serial", "1", "0", False), ("pingpong", "1", "1", False),
                       ("persistent", "1", "1", True)]


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name())
    D = int(sys.argv[sys.argv.index("--head-dim") + 1]) if "--head-dim" in sys.argv else 128
    N = int(sys.argv[sys.argv.index("--seq-len") + 1]) if "--seq-len" in sys.argv else 16384
    H = 16
    gen = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(1, H, N, D, device="cuda", dtype=torch.bfloat16, generator=gen)
               for _ in range(3))
    variants = PERSISTENT_VARIANTS if "--persistent" in sys.argv else VARIANTS
    for pattern in PATTERNS:
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
        flops = 4 * H * N * N * D * layout.density
        run = lambda: launch.forward(q, k, v, tables, meta, D ** -0.5, None, None, 0, 0.0)  # noqa: E731
        ref = None
        for rnd in range(2):
            for label, gluon, pingpong, persistent in variants:
                os.environ["SPARSEFLASH_GLUON"] = gluon
                os.environ["SPARSEFLASH_PINGPONG"] = pingpong
                hopper_pingpong.PERSISTENT = persistent
                launch.clear_plans()
                got = run()
                if ref is None:
                    ref = got
                err = max((a.float() - b.float()).abs().max().item() for a, b in zip(got, ref))
                ms = triton.testing.do_bench(run, warmup=25, rep=200)
                kt = kernel_times(run)
                print(f"D={D} N={N} {pattern:34s} round {rnd + 1} {label:13s} {ms:7.3f} ms "
                      f"{flops / ms / 1e9:6.1f} TFLOP/s  kernels "
                      + " ".join(f"{name.split('(')[0][-28:]}={t:.3f}"
                                 for name, t in kt.items())
                      + f"  max|diff| vs {variants[0][0]} {err:.1e}", flush=True)


if __name__ == "__main__":
    main()
