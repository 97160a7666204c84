"""Write docs/language.md, the pattern language reference, from the real code.

Every table row comes from the primitive registry (``sparseflash.layout.primitives``), every
picture from a compiled layout, the error example from a real ``LayoutError`` and the
preset list from ``layouts/*.sfl``, so the reference cannot drift from the implementation
(tests/test_layout_primitives.py checks that the file is up to date)::

    python docs/make_language_reference.py          # rewrite docs/language.md
    python docs/make_language_reference.py --check  # exit 1 if it is stale
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sparseflash import LayoutError, compile_layout, nnz_growth, parse  # noqa: E402
from sparseflash.layout import parser as _parser  # noqa: E402
from sparseflash.layout import presets as _presets  # noqa: E402
from sparseflash.layout.primitives import REGISTRY  # noqa: E402
from sparseflash.layout.render import FULL, OFF, PARTIAL  # noqa: E402

OUT = ROOT / "docs" / "language.md"
BLOCK = 16
GRID = 8  # pictures are GRID x GRID blocks

# Pictures for each primitive: (pattern, num_heads). Every registry entry needs one, so a
# new primitive cannot be added without documenting it.
EXAMPLES = {
    "dense": [("dense", None)],
    "none": [("none", None)],
    "local": [("local(0)", None), ("local(1)", None), ("local(2)", None)],
    "strided": [("strided(2)", None), ("strided(3)", None)],
    "dilated": [("dilated(1, 2)", None), ("dilated(2, 3)", None)],
    "chunk": [("chunk(2)", None), ("chunk(3)", None)],
    "fixed": [("fixed(4)", None), ("fixed(4, c=2)", None), ("fixed(3)", None)],
    "global": [("global(1)", None), ("global(2)", None)],
    "butterfly": [("butterfly", None), ("butterfly(1)", None), ("butterfly(2)", None)],
    "random": [("random(2)", None), ("random(2, seed=1)", None), ("random(3, seed=7)", None)],
    "per_head": [("per_head(local(1), strided(3))", 2)],
    "causal": [("causal", None), ("causal & local(2)", None)],
}

OPERATOR_EXAMPLES = [
    [("local(1) | global(1)", None), ("local(2) & causal", None), ("local(2) - causal", None)],
    [("~local(1)", None), ("butterfly - local(0)", None),
     ("(local(1) | global(1)) & causal", None)],
]

# The worked rounding examples in the text, checked against the compiler: with 100 key
# blocks, each symbolic pattern must give the same layout as its constant form.
ROUNDING_EXAMPLES = [("strided(sqrt(n))", "strided(10)"), ("local(n/16)", "local(7)"),
                     ("local(log2(n))", "local(7)")]


def _grid(codes) -> list:
    chars = {3: FULL, -1: OFF}
    return ["".join(chars.get(int(c), PARTIAL) for c in row) for row in codes]


def pictures(examples, seq_len: int = GRID * BLOCK) -> str:
    """Pictures side by side, each with its pattern as the caption, in a code block."""
    columns, intro = [], []
    for pattern, heads in examples:
        layout = compile_layout(pattern, seq_len, block=BLOCK, num_heads=heads)
        codes = layout.block_codes()
        if layout.num_heads > 1:
            intro.append(f"{pattern} with num_heads={layout.num_heads}:")
        for h in range(layout.num_heads):
            caption = pattern if layout.num_heads == 1 else f"head {h}"
            columns.append([caption] + _grid(codes[h]))
    widths = [max(len(line) for line in col) for col in columns]
    rows = max(len(col) for col in columns)
    lines = intro[:]
    for r in range(rows):
        cells = [(col[r] if r < len(col) else "").ljust(w) for col, w in zip(columns, widths)]
        lines.append("   ".join(cells).rstrip())
    return "```text\n" + "\n".join(lines) + "\n```"


def _params(prim) -> str:
    if prim.takes_patterns:
        return "`p0, p1, ...` (patterns)"
    if not prim.params:
        return "none"
    parts = []
    for p in prim.params:
        text = p.name if p.default is None else f"{p.name}={p.default}"
        if p.optional:
            text = f"[{text}]"
        bounds = f"≥ {p.minimum}"
        if p.maximum is not None:
            bounds += f", < 2^{(p.maximum + 1).bit_length() - 1}"
        parts.append(f"`{text}` ({bounds})")
    return ", ".join(parts)


def _signature(prim) -> str:
    if prim.takes_patterns:
        return f"{prim.name}(p0, p1, ...)"
    if not prim.params:
        return prim.name
    parts = []
    for p in prim.params:
        text = p.name if p.default is None else f"{p.name}={p.default}"
        parts.append(f"[{text}]" if p.optional else text)
    return f"{prim.name}({', '.join(parts)})"


def _error_example() -> str:
    try:
        parse("local(2) | locl(1)")
    except LayoutError as err:
        return str(err)
    raise AssertionError("the error example parsed")


def _cli_example() -> str:
    pattern = "local(1) | global(1) | butterfly"
    layout = compile_layout(pattern, 1024, block=128)
    lines = [f'$ python -m sparseflash show "{pattern}" --seq-len 1024 --block 128']
    lines += str(layout).splitlines()
    full = layout.full_keys.numel()
    h, nq, nk = layout.shape
    lines.append(f"blocks: {h} head(s) x {nq} x {nk}; nnz = {layout.nnz} ({full} full, "
                 f"{layout.nnz - full} partial); density = {layout.density:.2%}")
    lines.append(f"nnz growth in n (blocks per side): {nnz_growth(pattern)}")
    return "```text\n" + "\n".join(lines) + "\n```"


def _cell(text: str) -> str:
    """Markdown table cells end at '|', even inside code spans."""
    return text.replace("|", "\\|")


def _presets_table() -> str:
    rows = ["| preset | pattern | source |", "|---|---|---|"]
    for name, path in _presets.available().items():
        text = path.read_text().splitlines()
        comment = " ".join(line.lstrip()[1:].strip() for line in text
                           if line.lstrip().startswith("#"))
        body = " ".join(line.strip() for line in text
                        if line.strip() and not line.lstrip().startswith("#"))
        # The citation: the header up to the parenthesis that holds the year.
        cited = re.match(r"(.*?\([^()]*?\b(?:19|20)\d\d\b[^()]*\))", comment)
        source = cited.group(1) if cited else comment
        rows.append(f"| `{name}` | `{_cell(body)}` | {_cell(source)} |")
    return "\n".join(rows)


def _check_rounding_examples() -> None:
    for symbolic, constant in ROUNDING_EXAMPLES:
        a = compile_layout(symbolic, 100 * BLOCK, block=BLOCK)
        b = compile_layout(constant, 100 * BLOCK, block=BLOCK)
        if not (a.mask == b.mask).all():
            raise SystemExit(f"docs example wrong: {symbolic} != {constant} at n = 100")


def render() -> str:
    missing = set(REGISTRY) - set(EXAMPLES)
    if missing:
        raise SystemExit(f"no example picture for primitive(s) {sorted(missing)}: add them to "
                         "EXAMPLES in docs/make_language_reference.py")
    _check_rounding_examples()
    functions = ", ".join(f"`{name}`" for name in _parser._FUNCTIONS)
    rounding = ", ".join(f"`{a}` is `{b}`" for a, b in ROUNDING_EXAMPLES)
    out = []
    w = out.append
    w("<!-- Generated by docs/make_language_reference.py from the code; do not edit by hand. -->")
    w("# The pattern language\n")
    w("A pattern says, for each head *h*, query token *q* and key token *k*, whether *q* may "
      "attend to *k*. Tokens are grouped into blocks of `block` tokens (a power of two ≥ 16, "
      "default 128): query block *i* holds tokens `[i*block, (i+1)*block)`, key block *j* "
      "likewise, and the last block may be ragged. `n` is the number of key blocks. The kernels "
      "visit only the blocks that are on.\n")
    w("```python\nimport sparseflash\nlayout = sparseflash.compile_layout(\"local(2) | global(1) "
      "| butterfly\", seq_len=4096, block=128)\nprint(layout)            # the picture, nnz and "
      "density\n```\n")
    w(f"Pictures below are {GRID} x {GRID} blocks (query block *i* down, key block *j* across), "
      f"drawn from the compiled layouts: `{FULL}` a full block, `{PARTIAL}` a partial block (on, "
      f"with an element mask: the causal diagonal, a ragged last key block), `{OFF}` off.\n")

    w("## Primitives\n")
    w("| primitive | parameters | block (i, j) is on when |")
    w("|---|---|---|")
    for prim in REGISTRY.values():
        w(f"| `{_signature(prim)}` | {_params(prim)} | {_cell(prim.summary)} |")
    w("")
    for prim in REGISTRY.values():
        w(f"### `{_signature(prim)}`\n")
        kind = "Token-level" if prim.token_level else "On when"
        w(f"{kind}: {prim.summary}. {prim.doc}\n")
        w(pictures(EXAMPLES[prim.name]) + "\n")

    w("## Operators\n")
    w("| operator | meaning | binds |")
    w("|---|---|---|")
    w("| `a \\| b` | union: on where either is on | loosest |")
    w("| `a & b` | intersection: on where both are on | |")
    w("| `a - b` | difference, `a & ~b` (left-associative: `a - b - c` is `(a - b) - c`) | |")
    w("| `~a` | complement | tightest |")
    w("| `( ... )` | grouping | |\n")
    w("So `a | b & c - d` reads `a | (b & (c - d))`, and `~a & b` reads `(~a) & b`. The "
      "operators act on the token-level masks: `local(2) & causal` is a lower band whose "
      "diagonal blocks are partial, and a block is *full* only where every token pair in it is "
      "on and its keys are all in range.\n")
    for row in OPERATOR_EXAMPLES:
        w(pictures(row) + "\n")

    w("## Arguments\n")
    w("Arguments are non-negative integers or arithmetic in `n`, the number of key blocks: "
      f"`+ - * / ^` (`^` is a power, right-associative; `-2^2` is `-(2^2)`), parentheses, and "
      f"the functions {functions} (`log` is natural, `min`/`max` take two or more arguments). "
      "Expressions are parsed by the library's own parser into sympy (user text never reaches "
      "`eval` or `sympify`), evaluated when the layout is compiled, and **rounded up** to an "
      f"integer: with 100 key blocks, {rounding}. A value below a parameter's minimum is an "
      "error naming the `n` it happened at.\n")
    w("Keyword arguments are written `name=value` after the positional ones: "
      "`random(3, seed=7)`, `fixed(l=4, c=2)`. Each parameter may be given once.\n")
    w("## Text\n")
    w("`#` starts a comment that runs to the end of the line; newlines are whitespace, so a "
      "pattern can be laid out over several lines:\n")
    w("```text\nlocal(2)        # sliding window, 2 blocks each side\n| global(1)     # the first "
      "block attends everywhere\n| random(2, seed=1)\n```\n")
    w("## Heads\n")
    w("A pattern without `per_head` is the same for every head and compiles to a layout with one "
      "head that broadcasts. `per_head(p0, p1, ...)` gives head *h* the pattern `p[h mod count]` "
      "and needs `num_heads=` at compile time; it can sit anywhere in a pattern "
      "(`per_head(local(1), strided(4)) & causal`).\n")
    w("## Presets\n")
    w("Each file `layouts/NAME.sfl` holds one pattern under a header comment citing its source. "
      "A preset name can be used anywhere a primitive can (`bigbird & causal`, "
      "`per_head(longformer, causal)`); presets take no arguments, and a primitive wins over a "
      "preset of the same name. `python -m sparseflash presets` lists them.\n")
    w(_presets_table() + "\n")
    w("## Errors\n")
    w("Every malformed pattern raises `sparseflash.LayoutError` (a `ValueError`) with `.pattern` "
      "and `.span`; its message gives the reason, the pattern, a caret line under the offending "
      "text and, for unknown names, the closest known ones:\n")
    w("```text\n" + _error_example() + "\n```\n")
    w("## From the command line\n")
    w("`python -m sparseflash show PATTERN --seq-len N [--kv-seq-len M] [--block B] [--heads H] "
      "[--png FILE]` prints the picture, nnz, density and how nnz grows with the number of "
      "blocks per side:\n")
    w(_cli_example())
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Write docs/language.md from the code.")
    ap.add_argument("--check", action="store_true", help="only check that it is up to date")
    args = ap.parse_args(argv)
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run python docs/make_language_reference.py")
            return 1
        print(f"{OUT.relative_to(ROOT)} is up to date")
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
