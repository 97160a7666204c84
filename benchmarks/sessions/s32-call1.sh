# Session 32, device call 1: the persistent fused backward. A smoke run first (one call
# per variant on small inputs, under a short timeout: a barrier phase gone wrong hangs),
# then the fused backward's GPU tests against float64 (with one and three programs for
# many items a program), then s32_persistent_ab.py (gradients bit for bit against the
# session-31 kernel, then fwd+bwd from CUDA graphs).
source benchmarks/sessions/common.sh
BUDGET=540
SMOKE="
import torch, sparseflash
from sparseflash.kernels import hopper_fused, launch
for programs in (None, 1, 3):
    hopper_fused.MAX_PROGRAMS = programs
    launch.clear_plans()
    for d, pattern, block in ((128, 'local(2) | global(1)', 128), (64, 'causal', 128),
                              (64, 'local(1) | global(1)', 64)):
        q, k, v = (torch.randn(2, 4, 2048, d, device='cuda', dtype=torch.bfloat16,
                               requires_grad=True) for _ in range(3))
        layout = sparseflash.compile_layout(pattern, 2048, block=block, device=q.device)
        out = sparseflash.attention(q, k, v, layout)
        do = torch.randn_like(out)
        g = torch.autograd.grad(out, (q, k, v), do)
        torch.cuda.synchronize()
        ref = torch.autograd.grad(sparseflash.attention(q, k, v, layout, backend='torch'),
                                  (q, k, v), do)
        print(programs, d, pattern, 'max |grad - torch backend|',
              [f'{float((a.float() - b.float()).abs().max()):.3g}' for a, b in zip(g, ref)],
              flush=True)
"
BUDGET=120 step smoke python -c "$SMOKE"
cat $LOGS/smoke.log
if grep -q "exit 0" $LOGS/smoke.log; then
    step gpu-fused timeout 200 python -m pytest -q -p no:cacheprovider -x tests/test_gpu.py \
        -k "fused_backward"
    tail -5 $LOGS/gpu-fused.log
    step persistent-ab python benchmarks/sessions/s32_persistent_ab.py --rounds 2
    cat $LOGS/persistent-ab.log
fi
pack
