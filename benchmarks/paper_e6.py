"""The FlashAttention paper's attention benchmark (Dao et al. 2022, Appendix E.6), rerun here.

    python -m benchmarks.paper_e6                              # N = 128 ... 65536, needs CUDA
    python -m benchmarks.paper_e6 --seq-lens 128 256 512 1024 2048
    python -m benchmarks.paper_e6 --table-from benchmarks/results/NVIDIA-H200-paper-e6.json

The paper's setup: batch 16, 8 heads of dimension 64, random q, k, v in FP16, dropout 0.1,
and a key padding mask whose lengths are drawn uniformly from [N - 20, N]; forward,
backward, forward + backward and memory, for sequence lengths 128 to 65536.

Methods (``--methods``):

* ``sparseflash``: this library's kernels (``backend="triton"``: Triton, and on H100/H200
  the Gluon kernels where they apply), dense layout, dropout + padding mask.
* ``sparseflash-butterfly``: the same with the block-sparse layout ``butterfly`` (the flat
  block butterfly, block 128). The paper's block-sparse FlashAttention used a butterfly
  sparsity pattern (its Section 3.3); ``--sparse-pattern`` changes it.
* ``sdpa-efficient``, ``sdpa-cudnn``: PyTorch SDPA backends with a boolean ``attn_mask``
  ``(B, 1, 1, N)`` and dropout, where the backend accepts them; where it does not, the row
  says ``unsupported`` and why.
* ``sdpa-flash``: SDPA's flash backend takes no ``attn_mask`` at all, so it is timed with
  dropout but WITHOUT the padding mask (marked in the table).
* ``sdpa-math``: SDPA's materialising math path, the counterpart of the paper's "PyTorch
  Attention" row; it runs out of memory at long N (reported as OOM).
* ``flex``, ``flex-butterfly``: FlexAttention with the padding mask as a ``mask_mod`` (and the
  butterfly blocks for the second). FlexAttention has no dropout, so these run WITHOUT
  dropout (marked in the table).

Every method is first checked, with dropout off, against a float32 masked-softmax reference
on the first and last 64 query rows (all keys), then timed with ``triton.testing.do_bench``
(median). Memory is the peak of one forward + backward call, measured outside ``do_bench``
(whose 256 MiB L2-flush buffer would otherwise count): ``peak_total_mb`` counts everything
allocated (inputs included, as the paper's footprint does), ``peak_mb`` only what the call
added. Rows are appended to ``benchmarks/results/<gpu>-paper-e6.json`` and a markdown table
with the paper's own A100 figures next to ours is printed.
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Sequence

RESULTS = Path(__file__).parent / "results"
PAPER_SEQ_LENS = (128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768, 65536)
MODES = ("fwd", "bwd", "fwd+bwd")

# ----------------------------------------------------------------------------- the paper
PAPER_CITATION = (
    "T. Dao, D. Y. Fu, S. Ermon, A. Rudra, C. Re. FlashAttention: Fast and Memory-Efficient "
    "Exact Attention with IO-Awareness. NeurIPS 2022; arXiv:2205.14135 (v2), Appendix E.6: "
    "Table 9 (forward), Table 10 (backward), Table 11 (forward + backward), all with dropout "
    "and masking, and Table 21 (memory, forward + backward, measured without dropout or "
    "masking). One A100 40 GB, FP16, B=16, H=8, D=64, mean of 100 runs.")
PAPER_TRANSCRIPTION_NOTE = (
    "Transcribed from two independent plain-text transcriptions of the paper found with the "
    "search tool's file index (they agree on every number used here); not checked against "
    "the PDF itself.")

_ = None  # the paper's '-': the method ran out of memory or does not support that length
#: The paper's A100 figures for the rows that have a counterpart here, in ms (memory in MB),
#: one value per entry of PAPER_SEQ_LENS.
PAPER_A100: Dict[str, Dict[str, tuple]] = {
    "fwd": {  # Table 9
        "FlashAttention": (0.04, 0.06, 0.21, 0.82, 2.85, 10.41, 41.74, 167.19, 670.76, 2682.35),
        "Block-Sparse FlashAttention": (0.06, 0.06, 0.06, 0.12, 0.44, 0.86, 1.70, 3.29, 6.55,
                                        13.34),
        "PyTorch Attention": (0.36, 0.34, 0.78, 2.54, 9.33, 36.33, _, _, _, _),
    },
    "bwd": {  # Table 10
        "FlashAttention": (0.30, 0.26, 0.68, 2.02, 6.84, 26.89, 105.70, 418.96, 1666.89,
                           6660.44),
        "Block-Sparse FlashAttention": (0.30, 0.27, 0.29, 0.59, 1.50, 2.94, 5.82, 11.85, 23.98,
                                        47.61),
        "PyTorch Attention": (0.37, 0.49, 1.66, 5.81, 22.32, 87.67, _, _, _, _),
    },
    "fwd+bwd": {  # Table 11
        "FlashAttention": (0.43, 0.41, 0.95, 2.55, 9.56, 37.49, 147.75, 586.61, 2339.11,
                           9341.30),
        "Block-Sparse FlashAttention": (0.44, 0.44, 0.45, 0.89, 1.95, 4.12, 7.64, 16.60, 32.73,
                                        64.11),
        "PyTorch Attention": (0.84, 0.86, 2.35, 8.29, 31.75, 124.19, _, _, _, _),
    },
    "memory": {  # Table 21, MB
        "FlashAttention": (22, 44, 104, 209, 418, 836, 1672, 3344, 6688, 13376),
        "Block-Sparse FlashAttention": (22, 44, 104, 209, 418, 836, 1672, 3344, 6690, 13384),
        "PyTorch Attention": (36, 104, 336, 1184, 4416, 17024, _, _, _, _),
    },
}
del _


def paper_value(section: str, name: str, N: int) -> Optional[float]:
    """The paper's figure for ``section`` ('fwd', 'bwd', 'fwd+bwd' or 'memory'), row ``name``
    and sequence length ``N``; None where the paper has '-' or no such N."""
    if N not in PAPER_SEQ_LENS:
        return None
    return PAPER_A100[section][name][PAPER_SEQ_LENS.index(N)]


# ----------------------------------------------------------------------------- the methods
@dataclass(frozen=True)
class E6Method:
    """What a method is run with: its layout (dense or the sparse pattern), whether it
    applies the padding mask and dropout, and a note for the table."""
    name: str
    sparse: bool
    takes_mask: bool
    takes_dropout: bool
    note: str
    paper_row: Optional[str] = None  # the paper's row it corresponds to


METHODS: Dict[str, E6Method] = {m.name: m for m in (
    E6Method("sparseflash", False, True, True,
             "sparseflash kernels (backend='triton'), dense layout", "FlashAttention"),
    E6Method("sparseflash-butterfly", True, True, True,
             "sparseflash kernels (backend='triton'), block-sparse layout (the paper's "
             "block-sparse FlashAttention used a butterfly pattern)",
             "Block-Sparse FlashAttention"),
    E6Method("sdpa-flash", False, False, True,
             "SDPA flash backend: takes no attn_mask, so timed WITHOUT the padding mask"),
    E6Method("sdpa-efficient", False, True, True,
             "SDPA memory-efficient backend, bool attn_mask (B, 1, 1, N)"),
    E6Method("sdpa-cudnn", False, True, True,
             "SDPA cuDNN backend, bool attn_mask (B, 1, 1, N)"),
    E6Method("sdpa-math", False, True, True,
             "SDPA math backend, materialises the N x N scores",
             "PyTorch Attention"),
    E6Method("flex", False, True, False,
             "FlexAttention, padding as mask_mod; it has no dropout, so timed WITHOUT dropout"),
    E6Method("flex-butterfly", True, True, False,
             "FlexAttention with the block-sparse layout and the padding mask; WITHOUT dropout"),
)}
DEFAULT_METHODS = list(METHODS)


def padding_lengths(batch: int, N: int, max_pad: int, generator) -> "torch.Tensor":
    """Per-sequence valid lengths, uniform in [N - max_pad, N] (at least 1), as the paper's
    'padding mask with uniformly-random mask lengths between the total sequence length and
    the total sequence length minus 20'."""
    import torch
    low = max(1, N - max_pad)
    return torch.randint(low, N + 1, (batch,), generator=generator)


def key_padding_mask(lengths, N: int) -> "torch.Tensor":
    """bool (B, N), True = padding key (the sparseflash convention)."""
    import torch
    return torch.arange(N, device=lengths.device)[None, :] >= lengths[:, None]


def check_rows(N: int, count: int = 64) -> List[int]:
    """Query rows the correctness check looks at: the first and the last ``count``."""
    if N <= 2 * count:
        return list(range(N))
    return list(range(count)) + list(range(N - count, N))


def token_mask_rows(layout, rows) -> "torch.Tensor":
    """The layout's token-level mask for the given query rows only, bool (H, R, Nk), without
    building the full (H, N, Nk) mask that ``Layout.to_dense`` would."""
    import torch
    from sparseflash.layout.layout import CODE_ANTICAUSAL, CODE_BOUNDS, CODE_CAUSAL
    rows = torch.as_tensor(rows, dtype=torch.long)
    keys = torch.arange(layout.kv_seq_len)
    codes = layout.block_codes()[:, rows // layout.block][:, :, keys // layout.block]
    q, k = rows[:, None], keys[None, :]
    return ((codes == 3) | (codes == CODE_BOUNDS)
            | ((codes == CODE_CAUSAL) & (q >= k)) | ((codes == CODE_ANTICAUSAL) & (q < k)))


def reference_rows(q, k, v, layout, padding, rows) -> "torch.Tensor":
    """float32 masked-softmax attention for the query ``rows`` over all keys, (B, H, R, D).
    One batch element at a time, so that (H, R, N) scores stay small at N = 65536."""
    import torch
    from sparseflash.reference import dense_attention
    mask = token_mask_rows(layout, rows).to(q.device)
    idx = torch.as_tensor(rows, device=q.device)
    outs = []
    for b in range(q.shape[0]):
        pad = padding[b:b + 1] if padding is not None else None
        out, _ = dense_attention(q[b:b + 1, :, idx].float(), k[b:b + 1].float(),
                                 v[b:b + 1].float(), mask, key_padding_mask=pad)
        outs.append(out)
    return torch.cat(outs)


_compiled_flex = None


def _flex_block_mask(layout, lengths):
    """A FlexAttention BlockMask with the layout's blocks AND the per-sequence key padding;
    blocks that contain padding become partial automatically."""
    from torch.nn.attention.flex_attention import create_block_mask
    from benchmarks.peers import layout_mask_mod
    per_head = layout.num_heads > 1
    layout_on = layout_mask_mod(layout, lengths.device)

    def mask_mod(b, h, q_idx, kv_idx):
        return layout_on(b, h, q_idx, kv_idx) & (kv_idx < lengths[b])
    # Uncompiled, create_block_mask materialises the B x N x N booleans first (68 GB at
    # N = 65536, B = 16); compiled, the mask evaluation is fused with the per-block reduction
    # (pytorch/pytorch#130106, and the advice in #134756).
    return create_block_mask(mask_mod, B=lengths.shape[0], H=layout.num_heads if per_head else None,
                             Q_LEN=layout.seq_len, KV_LEN=layout.kv_seq_len, device=lengths.device,
                             BLOCK_SIZE=layout.block, _compile=lengths.device.type == "cuda")


def build(method: E6Method, q, k, v, layout, lengths, dropout_p: float) -> Callable:
    """A zero-argument callable running ``method``'s forward (returns the output)."""
    import torch
    import torch.nn.functional as F
    padding = key_padding_mask(lengths, q.shape[2])
    p = dropout_p if method.takes_dropout else 0.0
    if method.name.startswith("sparseflash"):
        import sparseflash
        pad = padding if method.takes_mask else None
        backend = "triton" if q.is_cuda else "torch"
        return lambda: sparseflash.attention(q, k, v, layout, dropout_p=p, key_padding_mask=pad,
                                             backend=backend)
    if method.name.startswith("sdpa-"):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backend = {"sdpa-flash": SDPBackend.FLASH_ATTENTION,
                   "sdpa-efficient": SDPBackend.EFFICIENT_ATTENTION,
                   "sdpa-cudnn": SDPBackend.CUDNN_ATTENTION,
                   "sdpa-math": SDPBackend.MATH}[method.name]
        attn_mask = (~padding)[:, None, None, :] if method.takes_mask else None

        def run():
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=p)
        return run
    if method.name.startswith("flex"):
        global _compiled_flex
        from torch.nn.attention.flex_attention import flex_attention
        block_mask = _flex_block_mask(layout, lengths)
        if not q.is_cuda:  # eager flex on CPU: for the small CPU tests
            return lambda: flex_attention(q, k, v, block_mask=block_mask)
        import torch._dynamo
        # One compiled graph per N; dynamo's default limit of 8 would silently fall back.
        torch._dynamo.config.cache_size_limit = 1000
        # The backward timing reuses one graph (retain_graph=True), which a compiled
        # backward with donated buffers refuses (seen on torch 2.11): keep them.
        import torch._functorch.config
        torch._functorch.config.donated_buffer = False
        if _compiled_flex is None:
            _compiled_flex = torch.compile(flex_attention, dynamic=False)
        options = None
        try:
            _compiled_flex(q, k, v, block_mask=block_mask)
        except Exception as exc:  # noqa: BLE001
            # As in benchmarks/peers.py: Inductor's default tile can exceed shared memory at
            # D=64 with inputs that need grad; a shallower pipeline fits. Say so.
            if "out of resource" not in str(exc):
                raise
            options = {"num_stages": 2}
            print(f"  {method.name}: default config out of shared memory; using "
                  f"kernel_options={options}", file=sys.stderr)
        return lambda: _compiled_flex(q, k, v, block_mask=block_mask, kernel_options=options)
    raise ValueError(f"unknown method {method.name!r}; known: {', '.join(METHODS)}")


def measure_memory(fn, inputs) -> tuple:
    """(MiB added by one forward + backward, MiB peak in total), outside do_bench."""
    import torch
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    out = fn()
    grads = torch.autograd.grad(out, inputs, torch.ones_like(out))
    torch.cuda.synchronize()
    peak = torch.cuda.max_memory_allocated()
    del out, grads
    return (peak - base) / 2**20, peak / 2**20


def _status_of(exc: BaseException) -> str:
    import torch
    if isinstance(exc, torch.cuda.OutOfMemoryError) or "out of memory" in str(exc).lower():
        return "oom"
    text = str(exc)
    if "No available kernel" in text or "not supported" in text.lower():
        return "unsupported"
    return "error"


def _failure(base: Dict, mode: Optional[str], exc: BaseException) -> Dict:
    from benchmarks.peers import error_line
    status, error = _status_of(exc), error_line(exc)
    print(f"{base['method']:22s} N={base['N']:6d} {mode or 'all':7s} {status}: {error}",
          file=sys.stderr, flush=True)
    return dict(base, mode=mode, status=status, error=error)


def _run_method(method, base, q, k, v, layout, lengths, padding, idx, references, args,
                tol) -> List[Dict]:
    """Check one method against the reference, then time each mode and measure memory. A
    failure of the check is recorded for every mode (``mode=None``); a failure of one mode
    (say, out of memory in the backward) only for that mode."""
    import torch
    from benchmarks.attention import _check, _flops, _time
    B, H, N, D = base["B"], base["H"], base["N"], base["D"]
    try:
        # Correctness first, with dropout off: each method draws its own random keep-mask,
        # so outputs with dropout cannot be compared.
        key = (method.sparse, method.takes_mask)
        if key not in references:
            references[key] = reference_rows(q.detach(), k.detach(), v.detach(), layout,
                                             padding if method.takes_mask else None, idx)
        fn = build(method, q, k, v, layout, lengths, 0.0)
        with torch.no_grad():
            out = fn()[:, :, idx]
        err = _check(out, references[key], method.name, tol)
        del out
        if method.takes_dropout and args.dropout > 0:
            fn = build(method, q, k, v, layout, lengths, args.dropout)
    except Exception as exc:  # a method that cannot run is recorded, not fatal
        return [_failure(base, None, exc)]
    memory: Dict = {}
    try:
        peak_mb, peak_total_mb = measure_memory(fn, (q, k, v))
        memory = dict(peak_mb=peak_mb, peak_total_mb=peak_total_mb)
    except Exception as exc:  # noqa: BLE001
        memory = dict(peak_mb=None, peak_total_mb=None, memory_status=_status_of(exc))
        torch.cuda.empty_cache()
    rows = []
    for mode in args.modes:
        try:
            ms, kernel_ms = _time(fn, mode, (q, k, v))
        except Exception as exc:  # noqa: BLE001
            rows.append(_failure(base, mode, exc))
            torch.cuda.empty_cache()
            continue
        tflops = _flops(layout, B, H, N, N, D, mode) / (ms * 1e-3) / 1e12
        rows.append(dict(base, mode=mode, status="ok", ms=ms, kernel_ms=kernel_ms,
                         tflops=tflops, max_err=err, **memory))
        mem = memory.get("peak_total_mb")
        print(f"{method.name:22s} N={N:6d} {mode:7s} {ms:10.3f} ms {tflops:7.1f} TFLOP/s "
              f"mem {'%9.1f MiB' % mem if mem is not None else memory.get('memory_status')} "
              f"err {err:.1e}", flush=True)
    return rows


def run(args) -> List[Dict]:
    """Run every (N, method, mode) of the E.6 setup on the current CUDA device."""
    import torch
    import sparseflash

    device = torch.device("cuda")
    gpu = torch.cuda.get_device_name()
    dtype = getattr(torch, args.dtype)
    B, H, D = args.batch, args.heads, args.head_dim
    tol = 2e-2 if dtype != torch.float32 else 1e-3  # as benchmarks/attention.py
    rows: List[Dict] = []
    for N in args.seq_lens:
        gen = torch.Generator(device=device).manual_seed(args.seed)
        q, k, v = (torch.randn(B, H, N, D, device=device, dtype=dtype, generator=gen)
                   .requires_grad_() for _ in range(3))
        lengths = padding_lengths(B, N, args.max_pad,
                                  torch.Generator().manual_seed(args.seed + N)).to(device)
        padding = key_padding_mask(lengths, N)
        layouts = {False: sparseflash.compile_layout("dense", N, block=args.block, num_heads=H,
                                                     device=device),
                   True: sparseflash.compile_layout(args.sparse_pattern, N, block=args.block,
                                                    num_heads=H, device=device)}
        idx = check_rows(N)
        references: Dict[tuple, torch.Tensor] = {}
        for name in args.methods:
            method = METHODS[name]
            layout = layouts[method.sparse]
            pattern = args.sparse_pattern if method.sparse else "dense"
            base = dict(method=name, pattern=pattern, density=layout.density, N=N, B=B, H=H,
                        D=D, dtype=args.dtype, gpu=gpu, masked=method.takes_mask,
                        max_pad=args.max_pad if method.takes_mask else None,
                        dropout_p=args.dropout if method.takes_dropout else 0.0)
            rows.extend(_run_method(method, base, q, k, v, layout, lengths, padding, idx,
                                    references, args, tol))
            torch.cuda.empty_cache()
        del q, k, v, references
        torch.cuda.empty_cache()
    return rows


# ----------------------------------------------------------------------------- records, table
def make_record(rows: List[Dict], argv: Sequence[str], *, gpu: str, versions: Dict[str, str],
                setup: Dict, seconds: float) -> Dict:
    """One run's record: the command, the machine, the setup, the paper source, the rows."""
    return dict(command="python -m benchmarks.paper_e6 " + " ".join(
                    f"'{a}'" if " " in a else a for a in argv),
                date=time.strftime("%Y-%m-%dT%H:%M:%S%z"), gpu=gpu, **versions,
                seconds=round(seconds, 1), setup=setup,
                paper=dict(citation=PAPER_CITATION, note=PAPER_TRANSCRIPTION_NOTE),
                rows=rows)


def _method_label(name: str) -> str:
    m = METHODS.get(name)
    if m is None:
        return name
    flags = []
    if not m.takes_mask:
        flags.append("no mask")
    if not m.takes_dropout:
        flags.append("no dropout")
    return f"{name} ({', '.join(flags)})" if flags else name


_STATUS_CELL = {"oom": "OOM", "unsupported": "n/a"}


def _cell(row: Optional[Dict], field: str, digits: int) -> str:
    if row is None:
        return ""
    if row.get("status", "ok") != "ok":
        return _STATUS_CELL.get(row["status"], "err")
    value = row.get(field)
    if value is None and field.startswith("peak") and row.get("memory_status"):
        return _STATUS_CELL.get(row["memory_status"], "err")
    return "" if value is None else f"{value:.{digits}f}"


def table(rows: Iterable[Dict], *, modes: Sequence[str] = MODES, memory: bool = True,
          paper: bool = True) -> str:
    """Markdown: for each of fwd / bwd / fwd+bwd (ms) and memory (MiB), one line per method
    and one column per N, as the paper's Tables 9-11 and 21, with the paper's A100 rows
    underneath (only for the paper's shape: B=16, H=8, D=64). A failed method shows OOM /
    n/a / err in every section."""
    rows = list(rows)
    if not rows:
        return "(no rows)"
    # The shape the header names (the first row's), as every row of a run shares it.
    paper = paper and (rows[0].get("B"), rows[0].get("H"), rows[0].get("D")) == (16, 8, 64)
    ns = sorted({r["N"] for r in rows})
    order = [m for m in METHODS if any(r["method"] == m for r in rows)]
    order += sorted({r["method"] for r in rows} - set(order))
    ok = {(r["method"], r["N"], r["mode"]): r for r in rows if r.get("status", "ok") == "ok"}
    # mode None: the method failed before any timing (all sections); else that mode only.
    failed = {(r["method"], r["N"], r.get("mode")): r for r in rows
              if r.get("status", "ok") != "ok"}
    ok_any = {(r["method"], r["N"]): r for r in rows if r.get("status", "ok") == "ok"}
    sections = [(mode, f"{mode} time (ms)", "ms", 2) for mode in modes]
    if memory:
        sections.append(("memory", "memory, one fwd+bwd (MiB; ours incl. inputs)",
                         "peak_total_mb", 0))
    first = rows[0]
    # The dropout of the methods that take it (a run without dropout records 0).
    dropouts = sorted({r["dropout_p"] for r in rows if r.get("dropout_p") is not None
                       and (r["method"] not in METHODS or METHODS[r["method"]].takes_dropout)})
    pads = sorted({r["max_pad"] for r in rows if r.get("max_pad") is not None}) or [20]
    out = [f"B={first['B']}, H={first['H']}, D={first['D']}, {first['dtype']}, dropout "
           f"{'/'.join(map(str, dropouts)) or 'not recorded'}, key padding mask (lengths "
           f"uniform in [N-{'/'.join(map(str, pads))}, N]); GPU: {first.get('gpu', '?')}"]
    for section, title, field, digits in sections:
        out += ["", f"**{title}**", "",
                "| method | " + " | ".join(str(n) for n in ns) + " |",
                "|---|" + "---|" * len(ns)]
        for m in order:
            cells = []
            for n in ns:
                if section == "memory":
                    r = ok_any.get((m, n)) or failed.get((m, n, None))
                else:
                    r = ok.get((m, n, section)) or failed.get((m, n, section)) \
                        or failed.get((m, n, None))
                cells.append(_cell(r, field, digits))
            out.append(f"| {_method_label(m)} | " + " | ".join(cells) + " |")
        if paper:
            for name in PAPER_A100[section]:
                cells = []
                for n in ns:
                    value = paper_value(section, name, n)
                    cells.append("-" if value is None and n in PAPER_SEQ_LENS
                                 else "" if value is None else f"{value:.{digits}f}")
                out.append(f"| *paper, A100: {name}* | " + " | ".join(cells) + " |")
    notes = sorted({(r["method"], r.get("status"), r.get("error", ""))
                    for r in rows if r.get("status", "ok") != "ok"})
    if notes:
        out += ["", "Failures (one message per method and kind):"]
        seen = set()
        for m, status, error in notes:
            if (m, status) in seen:
                continue
            seen.add((m, status))
            out.append(f"* {m}: {status}: {error}")
    used = [m for m in order if m in METHODS]
    if used:
        out += ["", "Methods:"] + [
            f"* {m}: {METHODS[m].note}"
            + (f"; compare with the paper's '{METHODS[m].paper_row}' row"
               if METHODS[m].paper_row else "") for m in used]
    if paper:
        out += ["", f"Paper rows: {PAPER_CITATION} {PAPER_TRANSCRIPTION_NOTE} "
                "'-' in a paper row: out of memory or unsupported there."]
    return "\n".join(out)


def rows_from_files(paths: Sequence[str]) -> List[Dict]:
    """Rows of E.6 result files, merged: for each (gpu, method, N, shape, dtype, pattern) the
    newest record that measured it wins, all its modes together."""
    from benchmarks.plots import load_records, newest_rows
    return newest_rows(load_records(paths), key=E6_GROUP_KEY)


E6_GROUP_KEY = ("gpu", "method", "pattern", "N", "B", "H", "D", "dtype")


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.paper_e6", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--seq-lens", type=int, nargs="+", default=list(PAPER_SEQ_LENS))
    p.add_argument("--methods", nargs="+", default=DEFAULT_METHODS, choices=list(METHODS))
    p.add_argument("--modes", nargs="+", default=list(MODES), choices=list(MODES))
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--heads", type=int, default=8)
    p.add_argument("--head-dim", type=int, default=64)
    p.add_argument("--dtype", default="float16", choices=["float16", "bfloat16", "float32"])
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--max-pad", type=int, default=20,
                   help="padding lengths are uniform in [N - max_pad, N]")
    p.add_argument("--sparse-pattern", default="butterfly",
                   help="layout of the block-sparse methods (the paper used a butterfly)")
    p.add_argument("--block", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=None,
                   help="JSON path (default benchmarks/results/<gpu>-paper-e6.json)")
    p.add_argument("--table-from", nargs="+", metavar="JSON", default=None,
                   help="print the merged table of existing result files and exit (no GPU)")
    args = p.parse_args(argv)
    bad = [n for n in args.seq_lens if n < 1]
    if bad:
        p.error(f"--seq-lens must be positive, got {bad}")
    if not 0.0 <= args.dropout < 1.0:
        p.error(f"--dropout must be in [0, 1), got {args.dropout}")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.table_from:
        rows = rows_from_files(args.table_from)
        if not rows:
            sys.exit(f"no rows in {', '.join(args.table_from)}")
        print(table(rows))
        return
    import torch
    if not torch.cuda.is_available():
        sys.exit("benchmarks.paper_e6 needs a CUDA GPU (none is visible to torch "
                 f"{torch.__version__}). On a CPU, --table-from FILE prints the table of "
                 "existing results, and benchmarks.cpu_backend times the torch backend.")
    started = time.time()
    rows = run(args)
    gpu = torch.cuda.get_device_name()
    out = Path(args.out) if args.out else RESULTS / f"{gpu.replace(' ', '-')}-paper-e6.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    versions = dict(torch=torch.__version__, triton=__import__("triton").__version__,
                    python=platform.python_version(), cuda=torch.version.cuda)
    setup = dict(B=args.batch, H=args.heads, D=args.head_dim, dtype=args.dtype,
                 dropout_p=args.dropout, padding=f"lengths uniform in [N-{args.max_pad}, N]",
                 sparse_pattern=args.sparse_pattern, block=args.block, seed=args.seed,
                 timing="triton.testing.do_bench median; memory: one fwd+bwd outside do_bench")
    record = make_record(rows, sys.argv[1:] if argv is None else argv, gpu=gpu,
                         versions=versions, setup=setup, seconds=time.time() - started)
    previous = json.loads(out.read_text()) if out.exists() else []
    out.write_text(json.dumps(previous + [record], indent=1) + "\n")
    print(table(rows))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
