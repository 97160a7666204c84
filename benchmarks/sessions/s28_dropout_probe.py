"""Session 28 probe: dropout in the fused Gluon backward against the two Triton kernels.

    python benchmarks/sessions/s28_dropout_probe.py [--shape e6|short] [--rounds R] [--fwd]

Until session 28 a call with dropout ran its backward on the Triton dQ and dK/dV kernels,
each drawing the keep mask again and the dQ kernel recomputing S and dP (seven products
a tile pair against the fused kernel's five). The fused backward now draws each tile's
mask once (``kernels.hopper_dropout``). Timed here, from CUDA graphs
(``do_bench_cudagraph``: no host time), fwd+bwd in ms of one call with dropout 0.1:

* ``fused``: the default path (Triton forward with dropout, fused Gluon backward);
* ``two-kernel``: ``SPARSEFLASH_FUSED_BACKWARD=0`` (the path before this session);
* ``no-dropout``: the same call without dropout (the fused backward's speed limit);
* ``cudnn``: SDPA's cuDNN backend with ``dropout_p=0.1`` (dense only).

``--fwd`` times forwards only instead (``fused`` and ``two-kernel`` are then the same
call): where a call with dropout spends its time.

Before timing, each sparseflash variant's gradients with dropout are compared with the
other's (the same seed drops the same scores in both backwards).

Shapes: ``e6`` is the FlashAttention paper's Appendix E.6 (B=16, H=8, D=64, N=4096,
fp16), ``short`` B=4, N=4096, H=16, bf16 at D=64 and 128 on dense, ``local(3)`` and
``butterfly``.
"""

import argparse
import os

import torch
import torch.nn.functional as F
import triton
from triton.testing import do_bench_cudagraph

import sparseflash

P = 0.1


def timed(fn):
    """Median ms of ``fn`` replayed from a CUDA graph."""
    return do_bench_cudagraph(fn, rep=200)


def fwd_bwd(forward, inputs, grad):
    def step():
        out = forward()
        torch.autograd.grad(out, inputs, grad)
    return step


def grads_with_seed(forward, inputs, grad, seed=5):
    torch.manual_seed(seed)
    return torch.autograd.grad(forward(), inputs, grad)


def _cudnn(q, k, v, p=P):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        return F.scaled_dot_product_attention(q, k, v, dropout_p=p)


def run(B, H, N, d, dtype, patterns, rounds, fwd_only=False):
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=dtype, generator=g)
               .requires_grad_() for _ in range(3))
    grad = torch.randn_like(q)
    for pattern in patterns:
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        flops = (1 if fwd_only else 3.5) * 4 * B * H * N * N * d * layout.density

        def forward(p=P):
            return sparseflash.attention(q, k, v, layout, dropout_p=p)

        # Both backwards on the same seed: the same mask, so the same gradients up to the
        # summation order.
        os.environ["SPARSEFLASH_FUSED_BACKWARD"] = "auto"
        fused = grads_with_seed(forward, (q, k, v), grad)
        os.environ["SPARSEFLASH_FUSED_BACKWARD"] = "0"
        two = grads_with_seed(forward, (q, k, v), grad)
        errs = [(a.float() - b.float()).abs().max().item() for a, b in zip(fused, two)]
        scale = max(t.float().abs().max().item() for t in two)
        assert max(errs) < 2e-2 * max(scale, 1.0), f"{pattern} D={d}: dq/dk/dv differ {errs}"
        for r in range(rounds):
            row = {}
            if fwd_only:
                with torch.no_grad():
                    row["dropout"] = timed(forward)
                    row["no-dropout"] = timed(lambda: forward(0.0))
                    if pattern == "dense":
                        row["cudnn"] = timed(lambda: _cudnn(q, k, v))
                        row["cudnn-no-dropout"] = timed(lambda: _cudnn(q, k, v, 0.0))
            else:
                for name, setting, p in (("fused", "auto", P), ("two-kernel", "0", P),
                                         ("no-dropout", "auto", 0.0)):
                    os.environ["SPARSEFLASH_FUSED_BACKWARD"] = setting
                    row[name] = timed(fwd_bwd(lambda p=p: forward(p), (q, k, v), grad))
                if pattern == "dense":
                    row["cudnn"] = timed(fwd_bwd(lambda: _cudnn(q, k, v), (q, k, v), grad))
            text = " | ".join(f"{name} {ms:.3f} ms ({flops / ms * 1e-9:.0f})"
                              for name, ms in row.items())
            mode = "fwd" if fwd_only else "fwd+bwd"
            print(f"B={B} H={H} N={N} D={d} {str(dtype)[6:]} {pattern} {mode} round {r}: {text}"
                  f" | max |fused - two-kernel| {max(errs):.2e}", flush=True)
    os.environ["SPARSEFLASH_FUSED_BACKWARD"] = "auto"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", choices=["e6", "short"], nargs="+", default=["e6", "short"])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--fwd", action="store_true", help="time forwards only")
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__,
          torch.cuda.get_device_name(), "| fwd+bwd ms (TFLOP/s), dropout", P)
    if "e6" in args.shape:
        run(16, 8, 4096, 64, torch.float16, ["dense", "butterfly"], args.rounds, args.fwd)
    if "short" in args.shape:
        for d in (64, 128):
            run(4, 16, 4096, d, torch.bfloat16, ["dense", "local(3)", "butterfly"],
                args.rounds, args.fwd)


if __name__ == "__main__":
    main()
