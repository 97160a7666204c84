"""The A/B block that the kernel probes of sessions 34 and 35 each wrote out: bind a
variant, run ``launch.backward`` twice, compare its gradients with the first variant's,
time it; the variants alternate in one process, each round in the order A B B A (A B C C
B A for three; a clock or thermal drift then falls on every side alike).

A variant is a whole ``sparseflash.kernels`` package (its ``launch`` module), so that a
tree whose change spans several kernel modules (``hopper_fused`` and ``hopper_backward``,
say) can be set against this one, or a ``(launch, setup)`` pair whose ``setup()`` sets a
knob (a module constant) before the variant binds, for variants of one tree. Tree
variants: :func:`kernels_of` loads another tree's ``sparseflash/kernels`` as a sibling
subpackage (``sparseflash.<name>``), whose ``..reference`` imports resolve to this tree's
(the variants must share ``reference.py``). Only the kernels are loaded twice: the
package's ``torch.library`` ops register once.

    from benchmarks.sessions import ab
    variants = {"main": ab.kernels_of(None), "other": ab.kernels_of("/tmp/other", "kb")}
    ab.backward_ab(variants, [(128, "dense", 0.0), (64, "local(3)", 0.1)], rounds=2)

Knob variants: ``{"a": (launch, ab.knob(module, "NAME", 1)), "b": (launch, ab.knob(module,
"NAME", 2))}``; for variants that differ in one knob alone, :func:`knob_ab`.
"""

import importlib
import importlib.util
import os
import shutil
import sys
from typing import Callable, Dict, Iterable, List, Optional, Tuple

import torch

import sparseflash


def kernels_of(tree: Optional[str], name: str = "kernels"):
    """The ``launch`` module of ``<tree>/sparseflash/kernels``, loaded as
    ``sparseflash.<name>``; ``tree=None`` is this tree's own ``sparseflash.kernels``."""
    if tree is None:
        return importlib.import_module("sparseflash.kernels.launch")
    folder = os.path.join(tree, "sparseflash", "kernels")
    full = f"sparseflash.{name}"
    spec = importlib.util.spec_from_file_location(
        full, os.path.join(folder, "__init__.py"), submodule_search_locations=[folder])
    package = importlib.util.module_from_spec(spec)
    sys.modules[full] = package
    spec.loader.exec_module(package)
    return importlib.import_module(f"{full}.launch")


def edited_tree(tree: str, edit: Callable[[str], str], module: str = "hopper.py") -> str:
    """A copy of this tree's ``sparseflash`` at ``tree`` (replacing what is there), with
    ``kernels/<module>`` rewritten by ``edit`` (its text -> the new text): a probe's
    variant for :func:`kernels_of` (session 54's probes). Returns ``tree``."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(os.path.join(root, "sparseflash"), os.path.join(tree, "sparseflash"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    path = os.path.join(tree, "sparseflash", "kernels", module)
    with open(path) as f:
        text = f.read()
    with open(path, "w") as f:
        f.write(edit(text))
    return tree


def knob(module, name: str, value) -> Callable[[], None]:
    """A knob variant's ``setup``: sets ``module.<name> = value`` before the variant binds."""
    def setup():
        setattr(module, name, value)
    return setup


def eager_then_graph(run: Callable[[], object], tally: Callable[[object], None],
                     repeats: int) -> None:
    """A race check's runs: ``tally(run())`` ``repeats`` times back to back, then ``run``
    captured in one CUDA graph and replayed ``repeats`` times, ``tally`` of the captured
    outputs after each replay. ``tally`` should count on the GPU: a host sync a run would
    leave the GPU idle between runs, which hides races."""
    for _ in range(repeats):
        tally(run())
    graph = torch.cuda.CUDAGraph()
    torch.cuda.synchronize()
    with torch.cuda.graph(graph):
        captured = run()
    for _ in range(repeats):
        graph.replay()
        tally(captured)


def _inputs(B: int, H: int, N: int, D: int) -> List[torch.Tensor]:
    """q, k, v and dO, (B, H, N, D) bfloat16 on the GPU, the same for every call."""
    gen = torch.Generator(device="cuda").manual_seed(0)
    return [torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16, generator=gen)
            for _ in range(4)]


def _split(variant) -> Tuple[object, Optional[Callable[[], None]]]:
    """(launch module, setup or None) of a variant given as either."""
    return variant if isinstance(variant, tuple) else (variant, None)


def _graph_bench(run: Callable[[], object]) -> float:
    """Median ms of ``run`` replayed from a CUDA graph (captured after a call on a side
    stream, as ``benchmarks.attention``'s ``--timer cudagraph`` captures): the GPU's time
    alone, without the host's launches between the kernels. Timed by ``do_bench``, which
    flushes the L2 before each replay (``do_bench_cudagraph``, the tables' timer, does
    not)."""
    import triton

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        run()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        run()
    return triton.testing.do_bench(graph.replay, warmup=25, rep=150)


def _relative_error(a: torch.Tensor, b: torch.Tensor) -> float:
    """max|a - b| / max|b| over the finite entries of b, in float32; entries equal in both
    (an empty row's LSE of -inf, say) differ by 0, not NaN."""
    a, b = a.float(), b.float()
    diff = torch.where(a == b, torch.zeros_like(a), (a - b).abs())
    return (diff.max() / b[b.isfinite()].abs().max()).item()


def _run_ab(variants: Dict[str, object], cases: Iterable[Tuple[int, str, float]],
            rounds: int, B: int, H: int, N: int, block: int, prefix: str,
            flop_factor: float, make_run: Callable, check: Callable[[list, object], str],
            bench: Callable[[Callable[[], object]], float]
            ) -> Dict[tuple, Dict[str, List[float]]]:
    """The A/B loop :func:`backward_ab` and :func:`forward_ab` share: for each case (head
    dim, pattern, dropout p, and optionally ``pad``: trailing key padding, each sequence's
    length drawn uniformly from [N - pad, N] as in the FlashAttention paper's E.6 setup)
    at (B, H, N) in bfloat16, each variant in the order A B .. B A per round, its plans
    cleared; ``make_run(launch, meta, case)`` (``case``: a dict of D, q, k, v, do, layout,
    tables, key_padding and kv_limits (None without padding), seed, p and the first
    variant's ``launch`` as ``first``, which ``make_run`` may add to) gives the call, run
    twice, ``check(outputs, first run's output)`` says how the outputs compare, and
    ``bench(run)`` times it; each run and each case's best times against the first
    variant's are printed (TFLOP/s at ``flop_factor`` x the forward's flops by the
    layout's density, padding not subtracted)."""
    labels, results = list(variants), {}
    order = labels + labels[::-1]
    inputs = {}
    for D, pattern, p_drop, *padded in cases:
        pad = padded[0] if padded else 0
        if D not in inputs:
            inputs[D] = _inputs(B, H, N, D)
        q, k, v, do = inputs[D]
        layout = sparseflash.compile_layout(pattern, N, block=block, device=q.device)
        flops = flop_factor * 4 * B * H * N * N * D * layout.density
        seed = torch.tensor([1234], dtype=torch.int64, device="cuda") if p_drop else None
        key_padding, kv_limits = _padding(layout, B, N, pad)
        case = dict(D=D, q=q, k=k, v=v, do=do, tables=layout.kernel_tables(), seed=seed,
                    p=p_drop, layout=layout, key_padding=key_padding, kv_limits=kv_limits,
                    first=_split(variants[labels[0]])[0])
        if pad:
            pattern = f"{pattern} pad {pad}"
        ref, times = None, {label: [] for label in variants}
        for rnd in range(rounds):
            for label in order:
                launch, setup = _split(variants[label])
                if setup is not None:
                    setup()
                launch.clear_plans()
                run = make_run(launch, launch.LayoutMeta.of(layout), case)
                outputs = [run() for _ in range(2)]
                torch.cuda.synchronize()
                if ref is None:
                    ref = outputs[0]
                compared = check(outputs, ref)
                ms = bench(run)
                times[label].append(ms)
                print(f"{prefix}D={D} p={p_drop} {pattern:34s} round {rnd + 1} {label:14s} "
                      f"{ms:7.3f} ms {flops / ms / 1e9:6.1f} TFLOP/s  {compared}", flush=True)
        best = {label: min(ms) for label, ms in times.items()}
        first_best = best[labels[0]]
        print(f"{prefix}D={D} p={p_drop} {pattern:34s} best " + " / ".join(
            f"{label} {ms:.3f}" + ("" if label == labels[0] else f" ({first_best / ms - 1:+.1%})")
            for label, ms in best.items()) + " ms", flush=True)
        results[(D, pattern, p_drop)] = times
    return results


def _padding(layout, B: int, N: int, pad: int):
    """(key_padding int8 (B, N), 1 = padding; kv_limits) for sequences whose lengths are
    drawn uniformly from [N - pad, N] (seeded), or (None, None) for ``pad`` 0."""
    from benchmarks.paper_e6 import key_padding_mask

    if not pad:
        return None, None
    gen = torch.Generator(device="cuda").manual_seed(1)
    lengths = torch.randint(N - pad, N + 1, (B,), device="cuda", generator=gen)
    padding = key_padding_mask(lengths, N)
    return padding.to(torch.int8), layout.padding_limits(padding)


def backward_ab(variants: Dict[str, object], cases: Iterable[Tuple[int, str, float]],
                rounds: int = 2, B: int = 1, H: int = 16, N: int = 16384,
                block: int = 128, timer: str = "events") -> Dict[tuple, Dict[str, List[float]]]:
    """Time ``launch.backward`` of each variant (label -> ``launch`` module or (module,
    setup); two or more) on each case (head dim, pattern, dropout p), at (B, H, N) in
    bfloat16, in the order A B .. B A per round; print each run (ms, TFLOP/s at 2.5 x the
    forward's flops, whether dK and dV are the first run's bit for bit, dQ's largest
    difference from it relative to its largest entry) and each case's best times against
    the first variant's. ``timer``: ``events`` (``do_bench`` of eager calls) or
    ``cudagraph`` (of a graph's replays, :func:`_graph_bench`). Returns {case: {label:
    [ms, ...]}}."""
    import triton

    def make_run(launch, meta, c):
        if "forward" not in c:  # the first variant's forward, once a case
            first = c["first"]
            c["forward"] = first.forward(c["q"], c["k"], c["v"], c["tables"],
                                         first.LayoutMeta.of(c["layout"]), c["D"] ** -0.5,
                                         c["key_padding"], c["kv_limits"], c["seed"],
                                         c["p"])[:2]
        out, lse = c["forward"]
        return lambda: launch.backward(c["do"], c["q"], c["k"], c["v"], out, lse, c["tables"],
                                       meta, c["D"] ** -0.5, c["key_padding"], c["kv_limits"],
                                       c["seed"], c["p"])

    def check(grads, ref):
        same = all(torch.equal(g[i], ref[i]) for g in grads for i in (1, 2))
        dq_err = max(_relative_error(g[0], ref[0]) for g in grads)
        return (f"dK,dV {'bitwise equal' if same else 'DIFFER'}, dQ max|diff|/max "
                f"{dq_err:.1e}")

    def bench(run):
        return (_graph_bench(run) if timer == "cudagraph"
                else triton.testing.do_bench(run, warmup=25, rep=150))

    return _run_ab(variants, cases, rounds, B, H, N, block, "", 2.5, make_run, check, bench)


def forward_ab(variants: Dict[str, object], cases: Iterable[Tuple[int, str, float]],
               rounds: int = 2, B: int = 1, H: int = 16, N: int = 16384,
               block: int = 128) -> Dict[tuple, Dict[str, List[float]]]:
    """:func:`backward_ab` for ``launch.forward``: each variant's output and LSE against
    the first run's (largest difference relative to the largest entry), timed from CUDA
    graphs (:func:`_graph_bench`) at 4 x the flops, in the order A B .. B A per round."""
    def make_run(launch, meta, c):
        return lambda: launch.forward(c["q"], c["k"], c["v"], c["tables"], meta, c["D"] ** -0.5,
                                      c["key_padding"], c["kv_limits"], c["seed"], c["p"])[:2]

    def check(outputs, ref):
        o_err = max(_relative_error(o, ref[0]) for o, _ in outputs)
        lse_err = max(_relative_error(lse, ref[1]) for _, lse in outputs)
        return f"O max|diff|/max {o_err:.1e}, LSE {lse_err:.1e}"

    return _run_ab(variants, cases, rounds, B, H, N, block, "fwd ", 1.0, make_run, check,
                   _graph_bench)


def knob_ab(module, name: str, values: Dict[str, object],
            cases: Iterable[Tuple[int, str, float]], rounds: int = 2,
            timer: str = "cudagraph", forward: bool = False,
            shape: Tuple[int, int, int] = (1, 16, 16384)) -> Dict[tuple, Dict[str, List[float]]]:
    """:func:`backward_ab` (``forward``: :func:`forward_ab`, always from CUDA graphs) of
    this tree's kernels at ``shape`` (B, H, N) with ``module.<name>`` set to each of
    ``values`` (label -> value, the first the baseline) in turn; the knob's own value is
    restored afterwards."""
    launch = kernels_of(None)
    landed = getattr(module, name)
    variants = {label: (launch, knob(module, name, value)) for label, value in values.items()}
    B, H, N = shape
    try:
        if forward:
            return forward_ab(variants, cases, rounds=rounds, B=B, H=H, N=N)
        return backward_ab(variants, cases, rounds=rounds, timer=timer, B=B, H=H, N=N)
    finally:
        setattr(module, name, landed)


def knob_ab_main(module, name: str, values: Dict[str, object],
                 cases: Iterable[Tuple[int, str, float]], forward: bool = False,
                 shapes: Optional[Dict[Tuple[int, int, int], list]] = None,
                 rounds: int = 2) -> None:
    """A knob probe's command line (``--rounds``, default ``rounds``): :func:`knob_ab` of
    ``module.<name>`` over ``values`` on ``cases`` at the README's shape, or with
    ``shapes`` ({(B, H, N): cases}, ``cases`` then unused) at each of those, each
    announced by a line ``B=.. H=.. N=..``."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=rounds)
    args = parser.parse_args()
    if shapes is None:
        knob_ab(module, name, values, cases, rounds=args.rounds, forward=forward)
        return
    for (B, H, N), shape_cases in shapes.items():
        print(f"B={B} H={H} N={N}", flush=True)
        knob_ab(module, name, values, shape_cases, rounds=args.rounds, forward=forward,
                shape=(B, H, N))


def forward_ab_main(variants: Callable[[], Dict[str, object]],
                    shapes: Dict[Tuple[int, int, int], list], rounds: int = 2) -> None:
    """A forward probe's command line (``--rounds``, default ``rounds``): :func:`forward_ab`
    of the variants ``variants()`` builds (label -> ``launch`` module, the first the
    baseline) on each (B, H, N) of ``shapes`` ({(B, H, N): cases}), each announced by a
    line ``B=.. H=.. N=..``."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=rounds)
    args = parser.parse_args()
    built = variants()
    for (B, H, N), cases in shapes.items():
        print(f"B={B} H={H} N={N}", flush=True)
        forward_ab(built, cases, rounds=args.rounds, B=B, H=H, N=N)


def tree_ab_main(labels: Tuple[str, str], shapes: Dict[Tuple[int, int, int], list],
                 backward: bool = False) -> None:
    """A tree probe's command line, ``script.py OLD_TREE [--rounds 2]``: :func:`forward_ab`
    (``backward``: :func:`backward_ab`, from CUDA graphs) of the tree at ``OLD_TREE``
    (``labels[0]``) against this one (``labels[1]``) on each (B, H, N) of ``shapes``
    ({(B, H, N): cases}), each announced by a line ``B=.. H=.. N=..``."""
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("old_tree")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    variants = {labels[0]: kernels_of(args.old_tree, "old"), labels[1]: kernels_of(None)}
    for (B, H, N), cases in shapes.items():
        print(f"B={B} H={H} N={N}", flush=True)
        if backward:
            backward_ab(variants, cases, rounds=args.rounds, B=B, H=H, N=N, timer="cudagraph")
        else:
            forward_ab(variants, cases, rounds=args.rounds, B=B, H=H, N=N)
