"""Session 54: what is a cycle of latency at a row's start or end worth to ``hopper``'s own
D=64 forward? Each program of a variant idles for a fixed number of SM cycles, either before
anything else (``start``: a longer prologue) or after its last store (``end``: a longer
epilogue), and the forward's time is set against this tree's.

    PYTHONPATH=. python benchmarks/sessions/s54_delay_probe.py [--rounds 2]

Why. Session 54's source-level stall samples (call 1, ``s54_stall_sites.py``) put 64% of
`local(1)`'s long-scoreboard samples in each program's prologue (the wait for Q's copy
alone 8.7% of all its warps' samples) and 26% in its epilogue (the wait for the O store to
read its buffer, 3%). Session 53's persistent forward, which loaded the next row's Q under
the current row's end, gained nothing (NOTES v54): either that latency is hidden by the
SM's other program, or the persistent kernel's other costs ate the gain. Idling a known
number of cycles separates the two: if each program's idle cycles cost the SM its whole
share of work, `local(1)` (2,048 programs, 264 at a time: 7.76 waves) takes 7.76 x idle /
clock longer (~16 us for 4,000 cycles at 1.98 GHz, +21% of ~75 us); if the other program
absorbs them, far less.

The idle loop is ``nanosleep`` (32 ns) until ``%clock64`` has advanced by the count: a few
instructions every ~60 cycles, so the idle warps hardly take issue slots from the other
program. The variants are copies of this tree's ``sparseflash`` with that loop inserted
into ``hopper.py`` (under /tmp), loaded beside it by ``ab.kernels_of``.

Prediction: between the two bounds; `start` costs more than `end`, as the other program's
first scores would have run under an end's latency in any case.

Result (call 2, log ``benchmarks/results/NVIDIA-H200-delay-probe-s54-call2.log``; best of
two from CUDA graphs, B=1, H=16, N=16K; times from the printed TFLOP/s): `local(1)` 76.8
us, +5.2 / +14.6 us with 1,500 / 4,000 idle cycles at the start and +5.6 / +15.7 at the
end; `local(3)` 139.5 us, +5.0 / +13.5 and +5.6 / +14.3; `butterfly` 161.5 us, +3.1 /
+10.7 and +4.0 / +12.6; dense within its noise (2,232 us, +9 to -3 us). Over 7.76 waves
of programs, that is 650-2,020 ns a program: 85-100% of the idle time at the H200's
1.98 GHz boost clock on `local(1)` and `local(3)`, 53-80% on `butterfly` (76-88% and
47-71% at the 1.75 GHz that call 9's profiler saw). Refutes session 53's reading (NOTES v54): the SM's other
program hides little of a short row's boundary; a cycle taken off a program's start or
end is worth nearly a cycle of the SM's time. Outputs bit for bit the same (NOTES v55).
"""

from benchmarks.sessions import ab

IDLE = '''
    @gluon.jit
    def _idle_probe():
        """Session 54's probe: idle for {cycles} SM cycles (nanosleep, then read the clock)."""
        return gl.inline_asm_elementwise(
            "{{ .reg .u64 t0, t1; .reg .pred p; mov.u64 t0, %clock64; IDLE_LOOP: "
            "nanosleep.u32 32; mov.u64 t1, %clock64; sub.u64 t1, t1, t0; "
            "setp.lt.u64 p, t1, {cycles}; @p bra IDLE_LOOP; mov.u32 $0, 0; }}",
            "=r", [], dtype=gl.int32, is_pure=False, pack=1)

    @gluon.jit
    def hopper_forward_kernel('''
START = ("        in_group, pid_g, b, r, chunk, chunks = _own_item(PROGRAMS_PER_GROUP, FILL_FROM, "
         "CHUNKS,\n")
END = "                   LAYOUT_BLOCK, TMA_STORE, True, s_layout, o_layout)\n"


def variant(where: str, cycles: int) -> str:
    """A copy of this tree's package whose own forward idles ``cycles`` at ``where``."""
    def edit(text):
        head, body = text.split("\n    @gluon.jit\n    def hopper_forward_kernel(", 1)
        assert body.count(START) >= 1 and body.count(END) == 1, \
            "hopper.py moved: update the probe"
        if where == "start":
            body = body.replace(START, "        _idle_probe()\n" + START, 1)
        else:
            body = body.replace(END, END + "        _idle_probe()\n", 1)
        return head + IDLE.format(cycles=cycles) + body
    return ab.edited_tree(f"/tmp/s54-idle-{where}-{cycles}", edit)


def variants():
    built = {"main": ab.kernels_of(None)}
    for where, cycles in (("start", 1500), ("start", 4000), ("end", 1500), ("end", 4000)):
        built[f"{where}+{cycles}"] = ab.kernels_of(variant(where, cycles),
                                                   f"idle_{where}_{cycles}")
    return built


if __name__ == "__main__":
    ab.forward_ab_main(variants, {(1, 16, 16384): [(64, p, 0.0) for p in (
        "local(1)", "local(3)", "butterfly", "dense")]})
