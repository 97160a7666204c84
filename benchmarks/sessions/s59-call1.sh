# Session 59, device call 1: Flex at N = 65,536 on an H100 with its block mask built
# compiled (session 58's rows there ran out of memory building it uncompiled), bf16, both
# head dims, beside session 58's sparseflash and cuDNN rows (`s58 call 3`); then each
# kernel's own time in a fwd+bwd (benchmarks.profile_call) at 16K tokens, for the
# backward's passes over all N rows that NOTES v59 put at 21/42 us more than the H200's by
# a bandwidth model.
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
