"""Every malformed pattern gets a LayoutError with the reason, the pattern, a caret line
under the offending span, and "did you mean ...?" where a name is close to a known one."""

import pytest

from sparseflash import LayoutError, compile_layout, parse

from layout_brute import one_torch_thread  # noqa: F401  (autouse fixture)


def caret_span(message, pattern):
    """Recover (start, end) of the caret line in ``str(error)`` for a one-line pattern."""
    lines = message.splitlines()
    shown = [i for i, line in enumerate(lines) if line == "  " + pattern]
    assert shown, f"the pattern line is missing from:\n{message}"
    caret = lines[shown[-1] + 1]
    assert set(caret[2:].strip()) == {"^"}, f"no caret line under the pattern:\n{message}"
    start = len(caret) - len(caret.lstrip()) - 2
    return start, start + caret.count("^")


def _error(pattern, **compile_kw):
    with pytest.raises(LayoutError) as info:
        if compile_kw:
            compile_layout(pattern, **compile_kw)
        else:
            parse(pattern)
    return info.value


# (pattern, substrings of the reason, the offending text under the caret)
PARSE_ERRORS = [
    # unknown names, with suggestions
    ("locl(1)", ["unknown primitive or preset 'locl'", "did you mean 'local'"], "locl"),
    ("local(2) | butterfy", ["unknown primitive or preset 'butterfy'",
                             "did you mean 'butterfly'"], "butterfy"),
    ("bigbrid & causal", ["'bigbrid'", "did you mean 'bigbird'"], "bigbrid"),
    ("causl", ["did you mean 'causal'"], "causl"),
    ("local(1) | xyzzy", ["unknown primitive or preset 'xyzzy'"], "xyzzy"),
    # wrong arity
    ("local(1, 2)", ["'local' takes at most 1 argument, got 2", "local(w)"], "2"),
    ("local()", ["'local' needs its argument 'w'"], "local()"),
    ("local", ["'local' needs its argument 'w'"], "local"),
    ("dilated(1)", ["'dilated' needs its argument 'd'", "dilated(w, d)"], "dilated(1)"),
    ("dense(1)", ["'dense' takes at most 0 arguments, got 1"], "1"),
    ("causal(1)", ["'causal' takes at most 0 arguments"], "1"),
    ("fixed(1, 1, 1)", ["'fixed' takes at most 2 arguments, got 3", "fixed(l, c=1)"], "1"),
    ("per_head()", ["'per_head' needs at least one pattern"], "per_head()"),
    ("per_head", ["'per_head' needs at least one pattern"], "per_head"),
    ("bigbird(2)", ["preset 'bigbird' takes no arguments"], "("),
    ("local(sqrt(n, 2))", ["'sqrt' takes 1 argument, got 2"], "sqrt(n, 2)"),
    ("local(min(n))", ["'min' takes two or more arguments"], "min(n)"),
    # keywords
    ("random(2, sed=1)", ["'random' has no parameter 'sed'", "did you mean 'seed'",
                          "random(r, seed=0)"], "sed=1"),
    ("local(v=1)", ["'local' has no parameter 'v'"], "v=1"),
    ("random(2, seed=1, seed=2)", ["'seed' given twice to 'random'"], "seed=2"),
    ("random(2, r=3)", ["'r' given twice to 'random'"], "r=3"),
    ("random(seed=1, 2)", ["positional argument after a keyword argument"], "2"),
    ("per_head(a=1)", ["'per_head' takes no keyword arguments"], "a=1"),
    # negative or zero where a positive count is needed (constants: at parse time)
    ("strided(0)", ["argument 's' of 'strided' must be a positive integer, got 0"], "0"),
    ("local(-1)", ["argument 'w' of 'local' must be a non-negative integer, got -1"], "-1"),
    ("chunk(0)", ["'s' of 'chunk' must be a positive integer"], "0"),
    ("dilated(1, 0)", ["'d' of 'dilated' must be a positive integer"], "0"),
    ("dilated(-1, 1)", ["'w' of 'dilated' must be a non-negative integer"], "-1"),
    ("fixed(0)", ["'l' of 'fixed' must be a positive integer"], "0"),
    ("fixed(2, c=0)", ["'c' of 'fixed' must be a positive integer"], "0"),
    ("global(-2)", ["'g' of 'global' must be a non-negative integer"], "-2"),
    ("butterfly(0)", ["'f' of 'butterfly' must be a positive integer"], "0"),
    ("random(-1)", ["'r' of 'random' must be a non-negative integer"], "-1"),
    ("random(1, seed=-1)", ["'seed' of 'random' must be a non-negative integer"], "-1"),
    ("random(1, seed=2^64)", ["'seed' of 'random' must be at most"], "2^64"),
    ("strided(1 - 2)", ["must be a positive integer, got -1"], "1 - 2"),
    ("strided(-1/2)", ["must be a positive integer, got 0", "rounded up"], "-1/2"),
    ("local(log(0))", ["not a finite real number"], "log(0)"),
    ("local(sqrt(0 - 1))", ["not a finite real number"], "sqrt(0 - 1)"),
    ("local(1/0)", ["division by zero"], "/0"),
    # unbalanced parentheses, both ways
    ("(local(1)", ["unbalanced parentheses", "'(' is never closed"], "("),
    ("local(1))", ["unbalanced parentheses", "')' closes nothing"], ")"),
    ("local(1", ["unbalanced parentheses", "'(' is never closed"], "("),
    ("local(2)) | (causal", ["')' closes nothing"], ")"),
    ("local(1) & (causal | dense", ["'(' is never closed"], "("),
    ("local((1)", ["'(' is never closed"], "("),
    ("local(1) | )", ["expected a primitive, a preset or '('", "found ')'"], ")"),
    # trailing text
    ("local(1) causal", ["unexpected 'causal' after a complete pattern", "|, & or -"],
     "causal"),
    ("local(1) 2", ["unexpected '2' after a complete pattern"], "2"),
    ("local(2) |", ["expected a primitive", "found the end of the pattern"], None),
    ("local(1) ~causal", ["unexpected '~'"], "~causal"),
    # unknown variables
    ("local(m)", ["unknown variable 'm'", "the only variable is n"], "m"),
    ("local(nn)", ["unknown variable 'nn'", "did you mean 'n'"], "nn"),
    ("strided(sqr(n))", ["unknown variable 'sqr'", "did you mean 'sqrt'"], "sqr"),
    ("local(N)", ["unknown variable 'N'"], "N"),
    # other lexical errors
    ("local(1) $ causal", ["unexpected character '$'"], "$"),
    ("local(1) || causal", ["expected a primitive"], "|"),
    ("local(1, )", ["expected a number"], ")"),
    ("local(2n)", ["expected ',' or ')' in the arguments of 'local'", "found 'n'"], "n"),
]


@pytest.mark.parametrize("pattern,reasons,under", PARSE_ERRORS,
                         ids=[p for p, _, _ in PARSE_ERRORS])
def test_parse_errors(pattern, reasons, under):
    err = _error(pattern)
    message = str(err)
    for reason in reasons:
        assert reason in message, f"{reason!r} missing from:\n{message}"
    assert err.pattern == pattern
    assert message.splitlines()[0].startswith(err.reason)
    start, end = err.span
    assert caret_span(message, pattern) == (start, max(end, start + 1))
    if under is None:  # the caret sits just past the end of the pattern
        assert start == len(pattern)
    else:
        assert pattern[start:end] == under, f"span {err.span} covers {pattern[start:end]!r}"


@pytest.mark.parametrize("pattern", ["", "   ", "\n\n", "# only a comment\n", "# a\n  # b"])
def test_empty_pattern(pattern):
    err = _error(pattern)
    assert "empty pattern" in str(err)
    assert err.span is None and err.pattern == pattern


def test_unknown_name_suggestions_are_absent_when_nothing_is_close():
    err = _error("qqqqqqqq")
    assert "did you mean" not in str(err)


# -- errors found at compile time (symbolic arguments get their value) -------------------------
@pytest.mark.parametrize("pattern,seq_len,reasons,under", [
    ("strided(n - 10)", 64, ["argument 's' of 'strided' must be a positive integer, got -6",
                             "at n = 4 key blocks"], "n - 10"),
    ("local(2) | strided(log2(n) - 3)", 64, ["got -1", "n = 4"], "log2(n) - 3"),
    ("local(sqrt(n - 5))", 64, ["not a finite real number", "n = 4"], "sqrt(n - 5)"),
    ("chunk(n / 8 - 1)", 64, ["'s' of 'chunk' must be a positive integer, got 0"],
     "n / 8 - 1"),
    ("fixed(2, c=3)", 64, ["argument 'c' of 'fixed' must be at most l = 2, got 3"], "3"),
    ("fixed(n, c=n + 1)", 64, ["argument 'c' of 'fixed' must be at most l = 4, got 5"],
     "n + 1"),
])
def test_compile_time_errors(pattern, seq_len, reasons, under):
    parse(pattern)  # fine at parse time: the values depend on n
    err = _error(pattern, seq_len=seq_len, block=16)
    message = str(err)
    for reason in reasons:
        assert reason in message, f"{reason!r} missing from:\n{message}"
    start, end = err.span
    assert pattern[start:end] == under
    assert caret_span(message, pattern) == (start, end)
    # The same pattern compiles where the values are in range.
    if not pattern.startswith("fixed"):  # fixed's c > l is wrong at every n
        compile_layout(pattern, 16 * 64, block=16)


@pytest.mark.parametrize("pattern,under", [
    ("per_head(local(1), dense)", "per_head"),
    ("local(1) | per_head(dense)", "per_head"),
    ("causal & (per_head(local(1)) | global(1))", "per_head"),
])
def test_per_head_without_num_heads(pattern, under):
    err = _error(pattern, seq_len=256, block=16)
    assert "'per_head' needs the number of heads" in str(err)
    assert "num_heads" in str(err)
    start, end = err.span
    assert pattern[start:end] == under
    assert caret_span(str(err), pattern) == (start, end)
    compile_layout(pattern, 256, block=16, num_heads=2)


def test_multiline_pattern_caret_on_the_right_line():
    pattern = "local(1) |   # band\n  locl(2)  # typo\n"
    err = _error(pattern)
    lines = str(err).splitlines()
    assert lines[1] == "    locl(2)  # typo"
    assert lines[2] == "    ^^^^"
    assert pattern[err.span[0]:err.span[1]] == "locl"


# -- shapes -------------------------------------------------------------------------------------
@pytest.mark.parametrize("block", [100, 8, 0, -16, 1, 24, True, 256.0, "128", None])
def test_bad_block(block):
    with pytest.raises(LayoutError, match=r"block must be a power of two >= 16, got"):
        compile_layout("local(1)", 256, block=block)


@pytest.mark.parametrize("block", [16, 32, 64, 128, 256])
def test_good_block(block):
    assert compile_layout("local(1)", 256, block=block).block == block


@pytest.mark.parametrize("field,value", [
    ("seq_len", 0), ("seq_len", -1), ("seq_len", 1.5), ("seq_len", True), ("seq_len", "100"),
    ("seq_len", None), ("kv_seq_len", 0), ("kv_seq_len", -5), ("kv_seq_len", 2.0),
    ("num_heads", 0), ("num_heads", -1), ("num_heads", 1.0),
])
def test_bad_sizes(field, value):
    kwargs = dict(seq_len=256, block=16)
    kwargs[field] = value
    with pytest.raises(LayoutError, match=f"{field} must be a positive integer"):
        compile_layout("local(1)", kwargs.pop("seq_len"), **kwargs)


# -- the exception itself -----------------------------------------------------------------------
def test_layout_error_is_a_value_error_with_attributes():
    assert issubclass(LayoutError, ValueError)
    with pytest.raises(ValueError) as info:
        parse("local(1) | locl(2)")
    err = info.value
    assert isinstance(err, LayoutError)
    assert err.pattern == "local(1) | locl(2)"
    assert err.span == (11, 15)
    assert err.reason.startswith("unknown primitive or preset 'locl'")
    assert str(err) == ("unknown primitive or preset 'locl' (did you mean 'local' or 'global'?)\n"
                        "  local(1) | locl(2)\n"
                        "             ^^^^")


def test_layout_error_without_pattern():
    err = LayoutError("something is off")
    assert str(err) == "something is off"
    assert err.pattern is None and err.span is None


def test_non_string_pattern_is_a_type_error():
    with pytest.raises(TypeError):
        compile_layout(123, 256, block=16)
    with pytest.raises(TypeError):
        parse(["local(1)"])
