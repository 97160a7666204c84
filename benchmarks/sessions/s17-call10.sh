# Session 17, device call 10 (nvidia-h100-x1): the final tree on an H100.
# 1. The Gluon tests of tests/test_gpu.py (forward and dK/dV, forced; the choices).
# 2. The README's table as call 9 ran it (sparseflash, then the peers, each in its process).
# 3. The dK/dV A/B inside the backward (s17_dkdv_ab.py).
source benchmarks/sessions/common.sh
SPARSEFLASH_NO_AUTOTUNE=1 step gluon-tests python -m pytest -q -p no:cacheprovider \
    tests/test_gpu.py::test_gluon_backward_against_float64 \
    tests/test_gpu.py::test_gluon_backward_choice tests/test_gpu.py::test_gluon_forward_choice \
    tests/test_gpu.py::test_gluon_forward_against_float64
PATTERNS=(dense causal "local(3)" butterfly "local(1) | global(1) | random(2)")
for d in 64 128; do
  step sf-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods sparseflash --out $RES/sf-d$d.json \
      --note "s17 call 10 (benchmarks/sessions/s17-call10.sh): sparseflash in its own process"
  step peers-d$d python -m benchmarks.attention --seq-lens 16384 --head-dims $d \
      --dtypes bfloat16 --patterns "${PATTERNS[@]}" --modes fwd fwd+bwd \
      --methods flex sdpa-cudnn --out $RES/peers-d$d.json \
      --note "s17 call 10 (benchmarks/sessions/s17-call10.sh): the peers in their own process"
done
step dkdv-ab python benchmarks/sessions/s17_dkdv_ab.py
pack
