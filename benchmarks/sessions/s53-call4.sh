# Session 53, device call 4: the fused backward's column coordinates without integer
# divisions. Its GPU tests (the fused backward, with dropout and filling its last wave,
# and the CUDA-graph replay), then the A/B against the tree before
# (s53_fused_coords_ab.py; the old tree carried as .carry/s53-old.tar).
source benchmarks/sessions/common.sh
BUDGET=570
NOTE="s53 call 4 (benchmarks/sessions/s53-call4.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
old_tree .carry/s53-old.tar
step checks python -m pytest -q -p no:cacheprovider tests/test_gpu.py -k "fused_backward or replay_in_a_cuda_graph"
tail -5 $LOGS/checks.log
step fused-ab python benchmarks/sessions/s53_fused_coords_ab.py $OLD --rounds 2
grep -E "best|B=" $LOGS/fused-ab.log
pack
