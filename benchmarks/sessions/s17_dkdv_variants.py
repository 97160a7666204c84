"""Session 17: tile and register variants of the Gluon dK/dV kernel, inside sparseflash's
backward, in one process (the dK/dV kernel's CUDA time, torch profiler, 20 calls; two
alternating rounds; every variant's dk, dv compared with the Triton kernel's).

    python benchmarks/sessions/s17_dkdv_variants.py     # on an H100/H200

Variants (module attributes of ``kernels.hopper_backward`` patched between calls):
``base`` (64 query rows a step, 2 stages, no register cap), ``m32`` (32 query rows a
step: half the score registers), ``cap168`` (at most 168 registers a thread: three
programs an SM at D=64 instead of two).
"""

import json
import os
import sys
from collections import defaultdict

import torch
import triton

sys.path.insert(0, os.path.dirname(__file__))
from s15_gluon_where import kernel_times  # noqa: E402  (mean CUDA ms per kernel name)

import sparseflash  # noqa: E402
from sparseflash.kernels import hopper_backward as hb  # noqa: E402
from sparseflash.kernels import launch as sf  # noqa: E402

PATTERNS = ["dense", "causal", "local(3)"]
BASE = dict(BLOCK_M=hb.BLOCK_M)
VARIANTS = {
    128: {"base": ({}, {}), "m32": ({"BLOCK_M": 32}, {})},
    64: {"base": ({}, {}), "m32": ({"BLOCK_M": 32}, {}), "cap168": ({}, {"maxnreg": 168}),
         "m32-cap168": ({"BLOCK_M": 32}, {"maxnreg": 168})},
}


def kernel_ms(run):
    """CUDA ms per call of the dK/dV kernel(s) ``run`` launches."""
    return sum(t for name, t in kernel_times(run).items() if "dkdv" in name)


def main():
    print("triton", triton.__version__, "torch", torch.__version__, torch.cuda.get_device_name(),
          flush=True)
    H, N = 16, 16384
    for d, variants in VARIANTS.items():
        for pattern in PATTERNS:
            gen = torch.Generator(device="cuda").manual_seed(d)
            q, k, v, do = (torch.randn(1, H, N, d, device="cuda", dtype=torch.bfloat16,
                                       generator=gen) for _ in range(4))
            layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
            tables, meta = layout.kernel_tables(), sf.LayoutMeta.of(layout)
            scale = d ** -0.5
            o, lse = sf.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)

            def bwd():
                return sf.backward(do, q, k, v, o, lse, tables, meta, scale, None, None, 0,
                                   0.0)
            os.environ["SPARSEFLASH_GLUON"] = "0"
            ref = bwd()
            times = defaultdict(list)
            os.environ["SPARSEFLASH_GLUON"] = "1"
            for rnd in range(2):
                for name, (attrs, options) in variants.items():
                    for attr, value in {**BASE, **attrs}.items():
                        setattr(hb, attr, value)
                    hb.compile_options = lambda head_dim, o=options: dict(o)
                    try:
                        grads = bwd()
                        torch.cuda.synchronize()
                        err = max((a.float() - b.float()).abs().max().item()
                                  for a, b in zip(grads[1:], ref[1:]))
                        times[name].append(kernel_ms(bwd))
                    except Exception as error:  # a variant that does not compile
                        print(json.dumps({"D": d, "pattern": pattern, "variant": name,
                                          "error": repr(error)[:300]}), flush=True)
                        times[name].append(float("nan"))
                        err = float("nan")
                    print(json.dumps({"D": d, "pattern": pattern, "variant": name,
                                      "round": rnd, "dkdv_ms": round(times[name][-1], 4),
                                      "max_diff_dk_dv": err}), flush=True)
            os.environ["SPARSEFLASH_GLUON"] = "0"
            triton_ms = kernel_ms(bwd)
            print(f"  D={d:3d} {pattern:9s} triton {triton_ms:.3f} ms | " + " | ".join(
                f"{n} {t[0]:.3f}/{t[1]:.3f}" for n, t in times.items()), flush=True)
    os.environ.pop("SPARSEFLASH_GLUON")


if __name__ == "__main__":
    main()
