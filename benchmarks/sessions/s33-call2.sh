# Session 33, device call 2: what a D=128 ping-pong work item costs beyond its tiles (K/V
# per head against shared by all heads; when the loader claims its next item),
# s33_item_cost.py.
source benchmarks/sessions/common.sh
BUDGET=420
step item-cost python benchmarks/sessions/s33_item_cost.py --rounds 2
cat $LOGS/item-cost.log
pack
