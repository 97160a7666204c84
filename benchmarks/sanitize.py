"""Small, odd-shaped runs of the compiled kernels for compute-sanitizer:

    compute-sanitizer --tool memcheck python -m benchmarks.sanitize
    compute-sanitizer --tool racecheck python -m benchmarks.sanitize

Ragged N, D=40, GQA, key padding, dropout, a split row: forward and backward once each.
"""

import torch

import sparseflash


def main():
    torch.manual_seed(0)
    cases = [("local(1) | global(1)", 1, 4, 2, 197, 197, 40, 64, True, 0.1),
             ("causal", 2, 2, 1, 130, 130, 64, 64, False, 0.1),
             ("butterfly - causal", 1, 2, 2, 100, 333, 96, 32, True, 0.0),
             # a split global row (merged chunks), ragged, with padding
             ("local(0) | global(1)", 2, 4, 1, 1000, 1000, 64, 32, True, 0.0)]
    for pattern, B, Hq, Hkv, N, Nk, D, block, pad, p in cases:
        q = torch.randn(B, Hq, N, D, device="cuda", dtype=torch.float16, requires_grad=True)
        k = torch.randn(B, Hkv, Nk, D, device="cuda", dtype=torch.float16, requires_grad=True)
        v = torch.randn(B, Hkv, Nk, D, device="cuda", dtype=torch.float16, requires_grad=True)
        kpm = (torch.arange(Nk, device="cuda")[None] >= Nk - 37).expand(B, Nk).contiguous() if pad else None
        out = sparseflash.attention(q, k, v, pattern, block=block, key_padding_mask=kpm,
                                    dropout_p=p, backend="triton")
        out.float().sum().backward()
        torch.cuda.synchronize()
        print(f"ok {pattern} N={N} Nk={Nk} D={D}")


if __name__ == "__main__":
    main()
