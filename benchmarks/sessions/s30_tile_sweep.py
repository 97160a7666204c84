"""Session 30: every candidate tile of the three Triton kernels (forward, dK/dV, dQ) on
awkward cases, with and without dropout, against float64 and across two runs.

Session 29 found Triton 3.6 compiling one dK/dV tile wrong with dropout (NOTES v31); the
autotuner, which users run, may pick any of the candidates in ``launch._candidate_configs``,
and only the untuned tile had been checked case by case. Each job here forces one kernel
(``fwd``, ``dkdv`` or ``dq``) onto one candidate (the other two kernels keep their untuned
tile) and runs every case that tile fits, on the Triton kernels only (no Gluon kernel).

    python benchmarks/sessions/s30_tile_sweep.py [--workers 8] [--no-barrier] [--float32]
    python benchmarks/sessions/s30_tile_sweep.py --job dkdv:3 [--no-barrier]
    S30_SMOKE=1 TRITON_INTERPRET=1 PYTHONPATH=. \
        python benchmarks/sessions/s30_tile_sweep.py  # a check of the script on a CPU

``--no-barrier`` runs a copy of the package without the dK/dV kernel's barrier after the
keep mask (to see which tiles need it). One JSON line per (job, case): the largest error
of O, dQ, dK, dV against float64 next to the same reference's error in the input dtype,
whether it passes the GPU tests' bound (twice the reference's error plus 2e-3), and
whether a second run gives the same tensors bit for bit.
"""

import argparse
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import time

KINDS = ("fwd", "dkdv", "dq")

# pattern, B, Hq, Hkv, N, Nk, D, block, padding (as tests/test_gpu.py's CASES)
CASES = [
    ("dense", 1, 4, 4, 1000, 1000, 128, 128, False),   # session 29's wrong dK
    ("causal", 2, 4, 4, 1000, 1000, 128, 128, False),
    ("dense", 1, 4, 4, 1024, 1024, 128, 128, False),   # no partial blocks
    ("causal", 1, 4, 4, 1000, 1000, 64, 128, False),   # column runs, masked tail
    ("local(2) | global(1) | butterfly", 1, 8, 2, 2048, 2048, 64, 128, False),  # GQA
    ("local(1) | global(1) | random(2)", 2, 4, 4, 1537, 1537, 96, 64, True),
    ("local(1) | global(1)", 1, 8, 2, 4096, 4096, 64, 64, True),  # split row (B=2 in call 1)
    ("causal | global(1)", 2, 4, 4, 1100, 1100, 64, 64, "holes"),
    ("strided(4) | local(1)", 1, 2, 2, 700, 1300, 256, 64, True),
    # Layout blocks of 16 and 32 (call 2): the tiles that users get there.
    ("dense", 1, 2, 2, 97, 200, 160, 16, True),
    ("causal", 1, 4, 4, 300, 300, 64, 16, False),
    ("local(2) | global(1)", 2, 2, 2, 1024, 1024, 16, 32, True),
]
#: (case index, dtype name, dropout p); bf16 on the D=128 cases with dropout.
RUNS = ([(i, "float16", p) for i in range(len(CASES)) for p in (0.0, 0.3)]
        + [(i, "bfloat16", 0.3) for i in (0, 1)])
if os.environ.get("S30_FLOAT32"):  # call 3: float32 inputs (tf32-free "ieee" products)
    RUNS = [(i, "float32", p) for i in (0, 1, 3, 5, 7, 9, 10) for p in (0.0, 0.3)]
if os.environ.get("S30_SMOKE"):  # a check of this script on a CPU, under the interpreter
    CASES = [("causal", 1, 2, 2, 130, 130, 64, 64, True)]
    RUNS = [(0, "float32", 0.0), (0, "float32", 0.3)]
DEVICE = "cuda" if not os.environ.get("S30_SMOKE") else "cpu"


def _errors(case, dtype, p, torch, sparseflash):
    """Errors of one call against float64 and the dtype reference; two runs compared."""
    from sparseflash.functional import _draw_seed
    from sparseflash.reference import dense_attention, dropout_keep_mask
    pattern, B, Hq, Hkv, N, Nk, D, block, padding = case
    gen = torch.Generator(device=DEVICE).manual_seed(11)
    q = torch.randn(B, Hq, N, D, device=DEVICE, dtype=dtype, generator=gen)
    k = torch.randn(B, Hkv, Nk, D, device=DEVICE, dtype=dtype, generator=gen)
    v = torch.randn(B, Hkv, Nk, D, device=DEVICE, dtype=dtype, generator=gen)
    do = torch.randn(B, Hq, N, D, device=DEVICE, dtype=dtype, generator=gen)
    kpm = None
    if padding:
        lengths = torch.randint(Nk // 2, Nk + 1, (B,), device=DEVICE, generator=gen)
        kpm = torch.arange(Nk, device=DEVICE)[None, :] >= lengths[:, None]
    if padding == "holes":
        kpm |= torch.rand(B, Nk, device=DEVICE, generator=gen) < 0.3
        kpm[:, :200] = True
    layout = sparseflash.compile_layout(pattern, N, kv_seq_len=Nk, block=block, num_heads=Hq,
                                        device=DEVICE)
    drop = {}
    torch.manual_seed(5)
    rng = torch.cuda if DEVICE == "cuda" else torch
    state = rng.get_rng_state()
    if p > 0:
        seed = int(_draw_seed(q.device).item())
        bh = torch.arange(B * Hq, device=DEVICE).view(B, Hq, 1, 1)
        keep = dropout_keep_mask(seed, p, bh, torch.arange(N, device=DEVICE)[:, None],
                                 torch.arange(Nk, device=DEVICE)[None, :])
        drop = dict(dropout_keep=keep, dropout_p=p)
    runs = []
    for _ in range(2):
        rng.set_rng_state(state)
        inputs = [t.clone().requires_grad_() for t in (q, k, v)]
        out = sparseflash.attention(*inputs, layout, backend="triton", key_padding_mask=kpm,
                                    dropout_p=p)
        runs.append([out.detach()] + list(torch.autograd.grad(out, inputs, do)))
    mask = layout.to_dense()
    refs = {}
    for name, cast in (("gold", lambda t: t.double()), ("same", lambda t: t.clone())):
        inputs = [cast(t).requires_grad_() for t in (q, k, v)]
        out, _ = dense_attention(*inputs, mask, key_padding_mask=kpm, **drop)
        refs[name] = [out.detach()] + list(torch.autograd.grad(out, inputs, cast(do)))
    result = {}
    for i, name in enumerate(("out", "dq", "dk", "dv")):
        got, gold, same = runs[0][i], refs["gold"][i], refs["same"][i]
        err = (got.double() - gold).abs().max().item()
        base = (same.double() - gold).abs().max().item()
        result[name] = dict(err=float(f"{err:.3g}"), ref=float(f"{base:.3g}"),
                            ok=bool(torch.isfinite(got).all()) and err <= 2 * base + 2e-3,
                            repeat=torch.equal(runs[0][i], runs[1][i]))
    return result


def run_job(kind: str, index: int) -> None:
    """One kernel forced onto candidate ``index``; a JSON line per run it fits."""
    import torch
    import triton

    import sparseflash
    from sparseflash.kernels import launch
    config = launch._candidate_configs(kind)[index]
    kernel = {"fwd": launch._forward, "dkdv": launch._dkdv, "dq": launch._dq}[kind]
    kernel.tuner.configs = [config]
    tile = (config.kwargs["BLOCK_M"], config.kwargs["BLOCK_N"], config.num_warps,
            config.num_stages)
    for case_index, dtype_name, p in RUNS:
        case = CASES[case_index]
        block, D = case[7], case[6]
        fits = launch._prune(kind, [config], {"LAYOUT_BLOCK": block,
                                              "BLOCK_D": launch.head_dim_tile(D)})
        if not fits:
            continue
        launch.clear_plans()
        record = dict(kind=kind, tile=tile, case=case_index, pattern=case[0], N=case[4],
                      D=D, dtype=dtype_name, p=p)
        try:
            record.update(_errors(case, getattr(torch, dtype_name), p, torch, sparseflash))
            picked = {tuple(c.kwargs.values()) + (c.num_warps, c.num_stages)
                      for c in kernel.picked.values() if c is not None}
            record["picked"] = sorted(picked)
        except Exception as error:  # a tile that does not compile, or a launch error
            record["error"] = f"{type(error).__name__}: {str(error)[:300]}"
        print(json.dumps(record), flush=True)
        torch.cuda.empty_cache()  # several jobs share the GPU


def _patched_tree() -> str:
    """A copy of the package without the dK/dV kernel's barrier; returns its root."""
    root = "/tmp/s30-no-barrier"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree("sparseflash", os.path.join(root, "sparseflash"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    path = os.path.join(root, "sparseflash", "kernels", "backward.py")
    source = open(path).read()
    assert source.count("tl.debug_barrier()") == 1
    open(path, "w").write(source.replace("tl.debug_barrier()", "pass"))
    return root


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--job")
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--no-barrier", action="store_true")
    parser.add_argument("--kinds", nargs="+", default=list(KINDS))
    parser.add_argument("--float32", action="store_true", help="float32 runs (call 3)")
    args = parser.parse_args()
    if args.job:
        kind, index = args.job.split(":")
        run_job(kind, int(index))
        return
    env = dict(os.environ, SPARSEFLASH_GLUON="0", SPARSEFLASH_PINGPONG="0",
               SPARSEFLASH_FUSED_BACKWARD="0", SPARSEFLASH_NO_AUTOTUNE="1")
    if args.float32:
        env["S30_FLOAT32"] = "1"
    if args.no_barrier:
        root = _patched_tree()
        env["PYTHONPATH"] = root
        cwd = root
    else:
        env["PYTHONPATH"] = os.getcwd()
        cwd = os.getcwd()
    script = os.path.abspath(__file__)
    sys.path.insert(0, env["PYTHONPATH"])
    from sparseflash.kernels import launch
    jobs = [(kind, i) for kind in args.kinds for i in range(len(launch._candidate_configs(kind)))]
    start = time.time()

    def one(job):
        kind, i = job
        proc = subprocess.run([sys.executable, script, "--job", f"{kind}:{i}"], env=env,
                              cwd=cwd, capture_output=True, text=True)
        return job, proc

    failures = 0
    with concurrent.futures.ThreadPoolExecutor(args.workers) as pool:
        for (kind, i), proc in pool.map(one, jobs):
            for line in proc.stdout.splitlines():
                print(line, flush=True)
                if line.startswith("{"):
                    record = json.loads(line)
                    bad = "error" in record or not all(
                        record[n]["ok"] and record[n]["repeat"]
                        for n in ("out", "dq", "dk", "dv"))
                    failures += bad
                    if bad:
                        print("  ^ FAILED", flush=True)
            if proc.returncode:
                failures += 1
                print(f"job {kind}:{i} exit {proc.returncode}: {proc.stderr[-2000:]}", flush=True)
    print(f"{len(jobs)} jobs, {failures} failures, {time.time() - start:.0f} s"
          + (" (no barrier)" if args.no_barrier else ""), flush=True)


if __name__ == "__main__":
    main()
