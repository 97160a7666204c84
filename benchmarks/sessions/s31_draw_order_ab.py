"""Session 31 probe: where the fused backward's consumer warp groups draw dropout's bits.

    python benchmarks/sessions/s31_draw_order_ab.py [--rounds R] [--shape e6 short]

Each consumer warp group of ``hopper_fused`` draws a tile's 16-bit dropout draws at a
place given by ``hopper_fused.DRAW_ORDER`` (NOTES v30, v33): ``late`` (during the tile
before's dQ and dK products), ``split`` (half there, half during the tile's own S^T and
dP^T) or ``early`` (all during S^T and dP^T). Until session 31 both warp groups drew at
the same place (D=64: split, D=128: late), so their Philox work shared the SM's integer
pipes at the same moments. Prediction: with the warp groups at different places (one
early, one late) each draws alone while the tensor cores run the products it hides
behind: fwd+bwd with dropout faster, most at D=128, where the draws sit after the
S^T/dP^T phase in both.

For each shape and pattern, every variant's gradients on one seed are checked against
the default's first: dK and dV bit for bit (the same draws, the same products in the
same order), dQ to its summation order (the TMA reductions land in any order); then
fwd+bwd with dropout 0.1 is timed from CUDA graphs (``do_bench_cudagraph``, no host
time), the variants alternating within each round, with the call without dropout and
(dense) cuDNN with dropout beside them.

Result (call 1, an H200; NOTES v33): refuted, the defaults stay.
"""

import argparse

import torch
import triton
from triton.testing import do_bench_cudagraph

import sparseflash
from sparseflash.kernels import hopper_fused, launch

# Session 28's helpers (this folder is the script's, so first on sys.path).
from s28_dropout_probe import P, _cudnn, fwd_bwd, grads_with_seed

L, S, E = hopper_fused.LATE, hopper_fused.SPLIT, hopper_fused.EARLY
NAMES = {L: "late", S: "split", E: "early"}
#: By head dim, the variants (warp group 0's place, warp group 1's), the default first.
VARIANTS = {128: [(L, L), (E, L), (L, E), (S, L), (E, E)],
            64: [(S, S), (E, L), (S, L), (E, S), (L, L)]}


def label(places):
    return "/".join(NAMES[p] for p in places)


def use(d, places):
    """Launch the fused backward with ``places`` from now on (new plans, a new kernel),
    with and without partial blocks (one place for both until session 36)."""
    hopper_fused.DRAW_ORDER[d, False] = hopper_fused.DRAW_ORDER[d, True] = \
        hopper_fused.draw_order(*places)
    launch.clear_plans()


def timed(step):
    """Median ms of ``step`` replayed from a CUDA graph, after one eager call (which binds
    the launch plans outside the capture)."""
    step()
    torch.cuda.synchronize()
    return do_bench_cudagraph(step, rep=200)


def run(B, H, N, d, dtype, patterns, rounds):
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(B, H, N, d, device="cuda", dtype=dtype, generator=g)
               .requires_grad_() for _ in range(3))
    grad = torch.randn_like(q)
    variants = VARIANTS[d]
    default = {key: hopper_fused.DRAW_ORDER[key] for key in ((d, False), (d, True))}
    for pattern in patterns:
        layout = sparseflash.compile_layout(pattern, N, block=128, device=q.device)
        flops = 3.5 * 4 * B * H * N * N * d * layout.density

        def forward(p=P):
            return sparseflash.attention(q, k, v, layout, dropout_p=p)

        use(d, variants[0])
        ref = grads_with_seed(forward, (q, k, v), grad)
        checks = []
        for places in variants:
            use(d, places)
            for _ in range(2):  # twice: a race would move dK or dV
                got = grads_with_seed(forward, (q, k, v), grad)
                same_kv = all(torch.equal(a, b) for a, b in zip(got[1:], ref[1:]))
                dq_err = (got[0].float() - ref[0].float()).abs().max().item()
                dq_scale = ref[0].float().abs().max().item()
                ok = same_kv and dq_err <= 1e-2 * max(dq_scale, 1.0)
                checks.append(ok)
                if not ok:
                    print(f"  WRONG {label(places)} {pattern} D={d}: dK/dV equal {same_kv}, "
                          f"dQ max diff {dq_err:.3e} (scale {dq_scale:.3e})", flush=True)
        print(f"B={B} H={H} N={N} D={d} {str(dtype)[6:]} {pattern}: gradients "
              f"{'all agree' if all(checks) else 'DISAGREE'} "
              f"({sum(checks)}/{len(checks)} runs)", flush=True)
        for r in range(rounds):
            row = {}
            for places in variants:
                use(d, places)
                row[label(places)] = timed(fwd_bwd(forward, (q, k, v), grad))
            use(d, variants[0])
            row["no dropout"] = timed(fwd_bwd(lambda: forward(0.0), (q, k, v), grad))
            if pattern == "dense":
                row["cudnn"] = timed(fwd_bwd(lambda: _cudnn(q, k, v), (q, k, v), grad))
            text = " | ".join(f"{name} {ms:.3f} ({flops / ms * 1e-9:.0f})"
                              for name, ms in row.items())
            print(f"  round {r} fwd+bwd ms (TFLOP/s): {text}", flush=True)
    hopper_fused.DRAW_ORDER.update(default)
    launch.clear_plans()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--shape", choices=["e6", "short"], nargs="+", default=["short", "e6"])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--head-dims", type=int, nargs="+", default=[128, 64])
    args = parser.parse_args()
    print("triton", triton.__version__, "torch", torch.__version__,
          torch.cuda.get_device_name(), "| dropout", P, flush=True)
    if "short" in args.shape:
        for d in args.head_dims:
            run(4, 16, 4096, d, torch.bfloat16, ["dense", "local(3)", "butterfly"],
                args.rounds)
    if "e6" in args.shape and 64 in args.head_dims:
        run(16, 8, 4096, 64, torch.float16, ["dense", "butterfly"], args.rounds)


if __name__ == "__main__":
    main()
