"""Host time of one padded, dropout attention forward in the paper's E.6 shape, for an A/B
of two source trees (whichever ``sparseflash`` is first on PYTHONPATH): session 4, call 2.

    PYTHONPATH=<tree> python benchmarks/sessions/s4_host_time.py 1024 [--no-padding]
"""
import sys

import torch

import sparseflash
# Both trees of the A/B have this helper (benchmarks/overhead.py, since be753c7).
from benchmarks.overhead import _host_ms as host_ms

N = int(sys.argv[1])
padded = "--no-padding" not in sys.argv
B, H, D = 16, 8, 64
q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.float16) for _ in range(3))
lengths = torch.randint(N - 20, N + 1, (B,), device="cuda")
mask = torch.arange(N, device="cuda")[None, :] >= lengths[:, None] if padded else None
layout = sparseflash.compile_layout("dense", N, block=128, num_heads=H, device="cuda")
call = lambda: sparseflash.attention(q, k, v, layout, dropout_p=0.1, key_padding_mask=mask)  # noqa: E731
for _ in range(5):
    call()
torch.cuda.synchronize()
runs = sorted(host_ms(call, 30) for _ in range(5))  # 5 x 30 calls, as in call 2
print(f"{sparseflash.__file__}: N={N} padded={padded} host ms per forward: median "
      f"{runs[2]:.3f} (min {runs[0]:.3f}, max {runs[-1]:.3f})")
