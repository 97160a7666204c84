# Session 33, device call 6: call 5's A/B in the other order, with the store's deferral
# apart (s33_boundary_ab.py --reversed): is dense's 1-1.5% the order or the deferral?
source benchmarks/sessions/common.sh
BUDGET=300
step boundary-reversed python benchmarks/sessions/s33_boundary_ab.py --rounds 3 --reversed
cat $LOGS/boundary-reversed.log
pack
