# Session 31, device call 2 (call 1's H200): the README's tables again on the final tree,
# sparseflash and the peers in separate processes: timed from CUDA graphs (ten patterns,
# as s26-call5.sh) and with do_bench's CUDA events (the five headline patterns, as
# s24-call2/3.sh), D=64 and 128, bf16, 16K tokens, 16 heads, block 128.
source benchmarks/sessions/common.sh
BUDGET=570
# (The call ran with the second pattern list named EXTRA in this script, which `pack` also
# read as archive paths: tar complained about them and packed the results and logs. The
# lists and the step are common.sh's since.)
NOTE="s31 call 2 (benchmarks/sessions/s31-call2.sh)"
graph_tables 64
graph_tables 128
event_tables 64
event_tables 128
cat $LOGS/sf-d*-graph.log | grep -E "^(sparseflash)" | head -60
pack
