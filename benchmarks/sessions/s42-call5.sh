# Session 42, device call 5 (the session's last ~3 minutes of device time): the README's
# CUDA-graph table at D=64, bf16, on three patterns (dense, causal,
# sparse_transformer_strided), on the tree with the named-barrier exchange landed.
source benchmarks/sessions/common.sh
BUDGET=150
NOTE="s42 call 5 (benchmarks/sessions/s42-call5.sh)"
nvidia-smi --query-gpu=name --format=csv,noheader
attention_step sf-d64-graph sparseflash -- --head-dims 64 --timer cudagraph \
    --patterns dense causal sparse_transformer_strided
attention_step peers-d64-graph flex sdpa-cudnn -- --head-dims 64 --timer cudagraph \
    --patterns dense causal sparse_transformer_strided
grep -h "exit" $LOGS/*.log
tar -czf "$OUT/s42c5.tar.gz" -C $WORK results logs
