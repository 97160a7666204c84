# Session 22, device call 13 (nvidia-h100-x1): the D=64 tiles A/B on an H100, which call 4's
# run of the script could not do (it set TILES in its old form).
source benchmarks/sessions/common.sh
step ab python benchmarks/sessions/s22_d64_tiles_ab.py
pack
