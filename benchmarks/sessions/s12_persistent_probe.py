"""Session 12: does a persistent forward recover what short rows lose?

    python benchmarks/sessions/s12_persistent_probe.py [--seq-len 16384] [--check-only]

On a 7-block row (``local(3)`` at block 128) even a minimal forward runs at ~75% of its
dense rate (session 9, ``results/NVIDIA-H200-forward-features-v11.log``): each program
loads its query tile, fills the K/V pipeline from nothing, and drains it again after 14
tiles. A persistent program walks several (row, head) items in one flat loop, so the K/V
loads of the next item's first tiles are issued while the current item's last tiles
compute: only the query tile's load is exposed. This probe measures that prize on minimal
kernels before anything in sparseflash changes:

* ``plain``: one program per (128-row query tile, head), the K/V offsets computed (the
  fastest minimal form in session 9 for short rows);
* ``nested``: ``G`` programs, each looping over items ``pid, pid + G, ...`` with the plain
  loop inside (saves only the launch of a program);
* ``flat``: ``G`` programs, each one flat loop over all tiles of all its items, the query
  load and the output store under ``if`` at item boundaries (the shape of Triton's early
  persistent matmul tutorial, which its software pipeliner accepts); ``flat-qapart`` loads
  the query tile every iteration, masked off but at item starts, instead of the ``if``;

on a dense layout and on ``local(3)``, D = 64 and 128, bf16, every output checked against
SDPA in float32 with the block mask. The "sparseflash forward" rows (call 1 of session 12)
also time a copy of the output into the shared buffer, ~10% of a short call: not
comparable with the others (benchmarks/NOTES.md, v14).
"""

import argparse
import sys

import torch
import triton
import triton.language as tl

ROW = 128  # query rows per item and the layout block


@triton.jit
def _key_range(r, R, BAND: tl.constexpr):
    """Key blocks [lo, hi) of query block r: 7 around it (local(3)) or all R."""
    if BAND:
        return tl.maximum(r - 3, 0), tl.minimum(r + 4, R)
    else:
        return r * 0, r * 0 + R


@triton.jit
def _tile(acc, l_i, m_i, q, K, V, base, start_n, offs_d, qk_scale,
          BLOCK_N: tl.constexpr, D: tl.constexpr):
    offs_n = start_n + tl.arange(0, BLOCK_N)
    k = tl.load(K + base + offs_n[None, :] * D + offs_d[:, None])
    v = tl.load(V + base + offs_n[:, None] * D + offs_d[None, :])
    s = tl.dot(q, k)
    m_new = tl.maximum(m_i, tl.max(s, 1) * qk_scale)
    p = tl.math.exp2(s * qk_scale - m_new[:, None])
    alpha = tl.math.exp2(m_i - m_new)
    l_i = l_i * alpha + tl.sum(p, 1)
    acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None])
    return acc, l_i, m_new


@triton.jit
def _plain(Q, K, V, O, N, qk_scale, BLOCK_N: tl.constexpr, D: tl.constexpr,
           BAND: tl.constexpr):
    r = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * N * D
    offs_m = r * 128 + tl.arange(0, 128)
    offs_d = tl.arange(0, D)
    lo, hi = _key_range(r, N // 128, BAND)
    q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.full((128,), float("-inf"), tl.float32)
    l_i = tl.zeros((128,), tl.float32)
    acc = tl.zeros((128, D), tl.float32)
    for t in range(lo * (128 // BLOCK_N), hi * (128 // BLOCK_N)):
        acc, l_i, m_i = _tile(acc, l_i, m_i, q, K, V, base, t * BLOCK_N, offs_d, qk_scale,
                              BLOCK_N, D)
    tl.store(O + base + offs_m[:, None] * D + offs_d[None, :],
             (acc / l_i[:, None]).to(O.dtype.element_ty))


@triton.jit
def _nested(Q, K, V, O, N, qk_scale, NUM_ITEMS, BLOCK_N: tl.constexpr, D: tl.constexpr,
            BAND: tl.constexpr):
    R = N // 128
    offs_d = tl.arange(0, D)
    for item in range(tl.program_id(0), NUM_ITEMS, tl.num_programs(0)):
        r = item % R
        base = (item // R).to(tl.int64) * N * D
        offs_m = r * 128 + tl.arange(0, 128)
        lo, hi = _key_range(r, R, BAND)
        q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :])
        m_i = tl.full((128,), float("-inf"), tl.float32)
        l_i = tl.zeros((128,), tl.float32)
        acc = tl.zeros((128, D), tl.float32)
        for t in range(lo * (128 // BLOCK_N), hi * (128 // BLOCK_N)):
            acc, l_i, m_i = _tile(acc, l_i, m_i, q, K, V, base, t * BLOCK_N, offs_d,
                                  qk_scale, BLOCK_N, D)
        tl.store(O + base + offs_m[:, None] * D + offs_d[None, :],
                 (acc / l_i[:, None]).to(O.dtype.element_ty))


@triton.jit
def _flat(Q, K, V, O, N, qk_scale, NUM_ITEMS, BLOCK_N: tl.constexpr, D: tl.constexpr,
          BAND: tl.constexpr, Q_APART: tl.constexpr):
    """``Q_APART``: the query load and state reset as masked loads and selects, no ``if``."""
    R = N // 128
    SUB: tl.constexpr = 128 // BLOCK_N
    pid = tl.program_id(0)
    G = tl.num_programs(0)
    total = 0
    for item in range(pid, NUM_ITEMS, G):
        lo, hi = _key_range(item % R, R, BAND)
        total += (hi - lo) * SUB
    offs_d = tl.arange(0, D)
    item = pid - G
    left = pid * 0  # a tensor, not a Python int (the interpreter masks need it)
    start_n = -BLOCK_N
    base = tl.zeros((), tl.int64)
    offs_m = tl.arange(0, 128)
    q = tl.zeros((128, D), Q.dtype.element_ty)
    m_i = tl.full((128,), float("-inf"), tl.float32)
    l_i = tl.zeros((128,), tl.float32)
    acc = tl.zeros((128, D), tl.float32)
    for _ in range(0, total):
        # The bookkeeping as scalar selects at the top, not an ``if``, and the item's end
        # decided here too: the K/V addresses must not come out of a branch, and nothing
        # computed after the products may feed the next iteration's addresses, or Triton's
        # software pipeliner leaves the loads unpipelined (checked in the TTGIR, 3.6).
        starting = left == 0
        item = tl.where(starting, item + G, item)
        r = item % R
        lo, hi = _key_range(r, R, BAND)
        left = tl.where(starting, (hi - lo) * SUB, left)
        ending = left == 1
        left -= 1
        start_n = tl.where(starting, lo * 128, start_n + BLOCK_N)
        base = (item // R).to(tl.int64) * N * D
        offs_m = r * 128 + tl.arange(0, 128)
        if Q_APART:
            # The query tile loaded every iteration, masked off but at item starts.
            q_new = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :],
                            mask=(offs_m >= 0)[:, None] & starting, other=0.0)
            q = tl.where(starting, q_new, q)
            m_i = tl.where(starting, float("-inf"), m_i)
            l_i = tl.where(starting, 0.0, l_i)
            acc = tl.where(starting, 0.0, acc)
        else:
            if starting:
                q = tl.load(Q + base + offs_m[:, None] * D + offs_d[None, :])
                m_i = tl.full((128,), float("-inf"), tl.float32)
                l_i = tl.zeros((128,), tl.float32)
                acc = tl.zeros((128, D), tl.float32)
        acc, l_i, m_i = _tile(acc, l_i, m_i, q, K, V, base, start_n, offs_d, qk_scale,
                              BLOCK_N, D)
        if ending:
            tl.store(O + base + offs_m[:, None] * D + offs_d[None, :],
                     (acc / l_i[:, None]).to(O.dtype.element_ty))


#: (BLOCK_N, num_warps, num_stages) per head dim.
CONFIGS = {64: [(64, 4, 3), (64, 8, 3)], 128: [(64, 8, 3), (64, 8, 2)]}


def variants(q, k, v, o, N, H, d, band, sms):
    """(label, launch) of every variant; a launch writes o."""
    scale = d ** -0.5 * 1.4426950408889634
    items = (N // ROW) * H
    for bn, w, st in CONFIGS[d]:
        cfg = dict(BLOCK_N=bn, D=d, BAND=band, num_warps=w, num_stages=st)
        tag = f"n{bn} w{w} s{st}"
        yield f"plain {tag}", lambda cfg=cfg: _plain[(N // ROW, H)](q, k, v, o, N, scale, **cfg)
        for per_sm in (1, 2):
            grid = (min(items, sms * per_sm),)
            yield (f"nested G={per_sm}xSM {tag}",
                   lambda cfg=cfg, grid=grid: _nested[grid](q, k, v, o, N, scale, items, **cfg))
            for apart in (False, True):
                yield (f"flat{'-qapart' if apart else ''} G={per_sm}xSM {tag}",
                       lambda cfg=cfg, grid=grid, apart=apart: _flat[grid](
                           q, k, v, o, N, scale, items, Q_APART=apart, **cfg))


def _sparseflash(q, k, v, o, pattern, N):
    """sparseflash's own forward (autotuned) on the same layout, writing into o."""
    import sparseflash
    from sparseflash.kernels import launch
    layout = sparseflash.compile_layout(pattern, N, block=ROW, device=q.device)
    tables, meta = layout.kernel_tables(), launch.LayoutMeta.of(layout)
    scale = q.shape[-1] ** -0.5
    return lambda: o.copy_(launch.forward(q, k, v, tables, meta, scale, None, None, 0, 0.0)[0])


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--seq-len", type=int, default=16384)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--check-only", action="store_true", help="correctness only (CPU: interpreter)")
    args = p.parse_args()
    N, H = args.seq_len, args.heads
    device = "cuda" if torch.cuda.is_available() else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    sms = torch.cuda.get_device_properties(0).multi_processor_count if device == "cuda" else 3
    if device == "cuda":
        print("triton", triton.__version__, "torch", torch.__version__,
              torch.cuda.get_device_name(), f"{sms} SMs")
    failures = 0
    for d in (64, 128):
        q, k, v = (torch.randn(1, H, N, d, device=device, dtype=dtype) for _ in range(3))
        for band in (False, True):
            name = "local(3)" if band else "dense"
            R = N // ROW
            blocks = sum(min(r + 4, R) - max(r - 3, 0) for r in range(R)) if band else R * R
            flops = 4 * H * blocks * ROW * ROW * d
            # Reference: SDPA with the block mask, float32.
            rb = torch.arange(N, device=device) // ROW
            mask = (rb[:, None] - rb[None, :]).abs() <= 3 if band else None
            ref = torch.nn.functional.scaled_dot_product_attention(
                q.float(), k.float(), v.float(), attn_mask=mask)
            print(f"D={d} {name}, N={N}, H={H}, {dtype}, fwd:")
            o = torch.empty_like(q)
            runs = list(variants(q, k, v, o, N, H, d, band, sms))
            if device == "cuda":
                runs.insert(0, ("sparseflash forward", _sparseflash(q, k, v, o, name, N)))
            for label, run in runs:
                o.fill_(float("nan"))  # a kernel that writes nothing cannot pass
                try:
                    run()
                    err = (o.float() - ref).abs().max().item()
                    ok = err < (2e-2 if dtype == torch.bfloat16 else 1e-4)
                    failures += not ok
                    if args.check_only or device == "cpu":
                        print(f"  {label:32s} max|err| {err:.2e} {'ok' if ok else 'WRONG'}")
                        continue
                    ms = triton.testing.do_bench(run, warmup=25, rep=200)
                except Exception as e:  # a probe: report and go on
                    print(f"  {label:32s} FAILED {type(e).__name__}: {str(e)[:200]}")
                    failures += 1
                    if "illegal" in str(e):
                        raise
                    continue
                print(f"  {label:32s} {ms:8.4f} ms {flops / ms / 1e9:7.1f} TFLOP/s  "
                      f"max|err| {err:.2e} {'ok' if ok else 'WRONG'}")
                sys.stdout.flush()
    print("failures:", failures)



if __name__ == "__main__":
    main()
