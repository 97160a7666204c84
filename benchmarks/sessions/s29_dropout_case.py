"""Session 29: the one failing GPU case of call 2 (causal, B=1, H=4, N=1000, D=128, fp16,
dropout 0.3: dK off by 0.035 against a reference error of 0.0045), taken apart.

    python benchmarks/sessions/s29_dropout_case.py

Runs the case with the ping-pong forward and with the Triton forward (the backward is the
Triton kernels' in both: N is not a multiple of the block), and prints each output's and
gradient's largest error against float64, the same reference's in fp16, and how far the
two forwards' O and LSE are apart (rows by rows)."""

import os

import torch

import sparseflash
from sparseflash.functional import _draw_seed
from sparseflash.kernels import launch
from sparseflash.reference import dense_attention, dropout_keep_mask


def main(pattern="causal", B=1, H=4, N=1000, D=128, p=0.3, dtype=torch.float16):
    case = (pattern, B, H, H, N, N, D, 128, False)
    gen = torch.Generator(device="cuda").manual_seed(hash(case) % 2**31)
    q, k, v, do = (torch.randn(B, H, N, D, device="cuda", dtype=dtype, generator=gen)
                   for _ in range(4))
    layout = sparseflash.compile_layout(pattern, N, block=128, num_heads=H, device="cuda")
    mask = layout.to_dense()
    state = torch.cuda.get_rng_state()
    seed = int(_draw_seed(q.device).item())
    torch.cuda.set_rng_state(state)
    bh = torch.arange(B * H, device="cuda").view(B, H, 1, 1)
    keep = dropout_keep_mask(seed, p, bh, torch.arange(N, device="cuda")[:, None],
                             torch.arange(N, device="cuda")[None, :])
    gold_in = [t.double().requires_grad_() for t in (q, k, v)]
    gold_out, _ = dense_attention(*gold_in, mask, dropout_keep=keep, dropout_p=p)
    gold = [gold_out] + list(torch.autograd.grad(gold_out, gold_in, do.double()))
    same_in = [t.clone().requires_grad_() for t in (q, k, v)]
    same_out, _ = dense_attention(*same_in, mask, dropout_keep=keep, dropout_p=p)
    same = [same_out] + list(torch.autograd.grad(same_out, same_in, do))
    outs = {}
    for name, setting in (("pingpong", "1"), ("triton", "0")):
        os.environ["SPARSEFLASH_PINGPONG"] = setting
        launch.clear_plans()
        torch.cuda.set_rng_state(state)
        inputs = [t.clone().requires_grad_() for t in (q, k, v)]
        out = sparseflash.attention(*inputs, layout, backend="triton", dropout_p=p)
        got = [out] + list(torch.autograd.grad(out, inputs, do))
        outs[name] = out.detach()
        text = ", ".join(f"{n} {(g.double() - r).abs().max().item():.4f} "
                         f"(ref {(s.double() - r).abs().max().item():.4f})"
                         for n, g, r, s in zip(("out", "dq", "dk", "dv"), got, gold, same))
        print(f"{name} forward: {text}", flush=True)
        err_rows = (out.double() - gold[0]).abs().amax(-1)  # (B, H, N)
        worst = err_rows.flatten().topk(5)
        print("  worst out rows (flat b*h*n index, error):",
              [(int(i), round(float(e), 4)) for e, i in zip(worst.values, worst.indices)])
        dk_rows = (got[2].double() - gold[2]).abs().amax(-1)
        worst = dk_rows.flatten().topk(5)
        print("  worst dk rows (flat b*h*n index, error):",
              [(int(i), round(float(e), 4)) for e, i in zip(worst.values, worst.indices)])
    diff = (outs["pingpong"].float() - outs["triton"].float()).abs().amax(-1)
    worst = diff.flatten().topk(5)
    print("O rows apart most (pingpong - triton):",
          [(int(i), round(float(e), 4)) for e, i in zip(worst.values, worst.indices)])
    os.environ["SPARSEFLASH_PINGPONG"] = "auto"


if __name__ == "__main__":
    main()
    main(dtype=torch.bfloat16)
    main(pattern="dense", N=1000)
