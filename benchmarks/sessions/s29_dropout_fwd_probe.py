"""Session 29 probe: dropout in the ping-pong Gluon forward against the Triton forward.

    python benchmarks/sessions/s29_dropout_fwd_probe.py [--shape e6 short] [--rounds R]
        [--modes fwd fwd+bwd]

Until session 29 a call with dropout ran its forward on the Triton kernel; the ping-pong
Gluon forward (``kernels.hopper_pingpong``) now draws each key tile's dropout mask
(``kernels.hopper_dropout``) while its products run. Timed here from CUDA graphs
(``do_bench_cudagraph``: no host time), ms of one call with dropout 0.1:

* ``pingpong``: ``SPARSEFLASH_PINGPONG=1`` (the ping-pong forward at both head dims);
* ``triton``: ``SPARSEFLASH_PINGPONG=0`` (the Triton forward, as before this session);
* ``no-dropout``: the same call without dropout, default settings;
* ``cudnn``, ``cudnn-no-dropout``: SDPA's cuDNN backend (dense only).

The backward (``fwd+bwd``) is the fused Gluon kernel in every sparseflash row. Before
timing, the two forwards' outputs on one seed are compared (the same scores dropped:
they differ by rounding only).

Shapes: ``e6`` is the FlashAttention paper's Appendix E.6 (B=16, H=8, D=64, N=4096,
fp16, no padding), ``short`` B=4, N=4096, H=16, bf16 at D=64 and 128 on dense,
``local(3)`` and ``butterfly``.
"""

import argparse
import os

import torch
import triton

import sparseflash
# The timing helpers of session 28's probe (this file's directory is on sys.path when it
# runs as a script): CUDA-graph medians, one fwd+bwd step, cuDNN with dropout P.
from s28_dropout_probe import P, _cudnn, fwd_bwd, timed


def _with_seed(forward, seed=5):
    torch.manual_seed(seed)
    with torch.no_grad():
        return forward()


def run(B, H, N, d, dtype, patterns, rounds, modes):
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=dtype, generator=g)
               .requires_grad_() for _ in range(3))
    grad = torch.randn_like(q)
    for pattern in patterns:
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)

        def forward(p=P):
            return sparseflash.attention(q, k, v, layout, dropout_p=p)

        os.environ["SPARSEFLASH_PINGPONG"] = "1"
        gluon = _with_seed(forward)
        os.environ["SPARSEFLASH_PINGPONG"] = "0"
        tri = _with_seed(forward)
        err = (gluon.float() - tri.float()).abs().max().item()
        assert err < 2e-2, f"{pattern} D={d}: the two forwards differ by {err}"
        for mode in modes:
            flops = (1 if mode == "fwd" else 3.5) * 4 * B * H * N * N * d * layout.density
            for r in range(rounds):
                row = {}
                for name, setting, p in (("pingpong", "1", P), ("triton", "0", P),
                                         ("no-dropout", "auto", 0.0)):
                    os.environ["SPARSEFLASH_PINGPONG"] = setting
                    if mode == "fwd":
                        with torch.no_grad():
                            row[name] = timed(lambda p=p: forward(p))
                    else:
                        row[name] = timed(fwd_bwd(lambda p=p: forward(p), (q, k, v), grad))
                if pattern == "dense":
                    for name, p in (("cudnn", P), ("cudnn-no-dropout", 0.0)):
                        if mode == "fwd":
                            with torch.no_grad():
                                row[name] = timed(lambda p=p: _cudnn(q, k, v, p))
                        else:
                            row[name] = timed(fwd_bwd(lambda p=p: _cudnn(q, k, v, p),
                                                      (q, k, v), grad))
                text = " | ".join(f"{name} {ms:.3f} ms ({flops / ms * 1e-9:.0f})"
                                  for name, ms in row.items())
                print(f"B={B} H={H} N={N} D={d} {str(dtype)[6:]} {pattern} {mode} round {r}: "
                      f"{text} | max |pingpong - triton| {err:.2e}", flush=True)
    os.environ["SPARSEFLASH_PINGPONG"] = "auto"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", choices=["e6", "short"], nargs="+", default=["e6", "short"])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--modes", choices=["fwd", "fwd+bwd"], nargs="+",
                        default=["fwd", "fwd+bwd"])
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__,
          torch.cuda.get_device_name(), "| ms (TFLOP/s), dropout", P)
    if "e6" in args.shape:
        run(16, 8, 4096, 64, torch.float16, ["dense", "butterfly"], args.rounds, args.modes)
    if "short" in args.shape:
        for d in (64, 128):
            run(4, 16, 4096, d, torch.bfloat16, ["dense", "local(3)", "butterfly"],
                args.rounds, args.modes)


if __name__ == "__main__":
    main()
