# Session 59, device call 1: Flex at N = 65,536 on an H100 with its block mask built
# compiled (session 58's rows there ran out of memory building it uncompiled), bf16, both
# head dims, beside session 58's sparseflash and cuDNN rows (`s58 call 3`); then each
# kernel's own time in a fwd+bwd (benchmarks.profile_call) at 16K tokens, for the
# backward's passes over all N rows that NOTES v59 put at 21/42 us more than the H200's by
# a bandwidth model.
# Result (records `s59 call 1`; logs in benchmarks/results/:
# NVIDIA-H100-attention-flex64k-s59-call1-2.log, NVIDIA-H100-profile-s59-call1.log;
# NOTES v60): all 20 Flex rows ran; every mark met
# but `causal` D=64 fwd+bwd (1.78x) and random+global D=128 fwd+bwd (1.79x). Delta 41 us
# (D=64) and 86-90 us (D=128), 3.1-3.3 TB/s; dQ's cast 44-57 and 84-105 us on sparse
# layouts (its early launch's wait included): 23-28% of a `local(1)` fwd+bwd.
source benchmarks/sessions/common.sh
BUDGET=585
NOTE="s59 call 1 (benchmarks/sessions/s59-call1.sh)"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv,noheader
for d in 64 128; do
    step flex64k-d$d python -m benchmarks.attention --seq-lens 65536 --head-dims $d \
        --modes fwd fwd+bwd --dtypes bfloat16 --methods flex --timer cudagraph \
        --patterns "${PATTERNS[@]}" --out $RES/flex64k-d$d.json --note "$NOTE: Flex at 64K"
done
for d in 64 128; do
    for pattern in "local(1)" "local(3)" butterfly dense; do
        step profile-d$d python -m benchmarks.profile_call --pattern "$pattern" \
            --seq-len 16384 --head-dim $d
    done
done
grep -h "exit" $LOGS/*.log
pack
