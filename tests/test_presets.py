"""Every layouts/*.sfl preset: compiles, cites its source, works inside patterns; and
primitives win over presets of the same name."""

import re
from pathlib import Path

import pytest
import torch

import sparseflash
from sparseflash import LayoutError, compile_layout, parse
from sparseflash.layout import compiler, parser, presets

from layout_brute import one_torch_thread  # noqa: F401  (autouse fixture)
from layout_brute import causal_tokens, p_fixed, p_global, p_local, tokens_of

LAYOUTS = Path(__file__).resolve().parents[1] / "layouts"
FILES = sorted(LAYOUTS.glob("*.sfl"))
NAMES = [f.stem for f in FILES]


def _split(path):
    lines = path.read_text().splitlines()
    comments = [line.lstrip()[1:].strip() for line in lines if line.lstrip().startswith("#")]
    body = "\n".join(line for line in lines if line.strip() and not line.lstrip().startswith("#"))
    return lines, " ".join(comments), body


def test_the_issue_presets_exist():
    assert {"bigbird", "longformer", "sparse_transformer_strided", "sparse_transformer_fixed",
            "pixelfly"} <= set(NAMES)
    assert set(NAMES) == set(presets.available())


@pytest.mark.parametrize("path", FILES, ids=NAMES)
def test_header_comment_cites_a_source(path):
    lines, comments, body = _split(path)
    assert lines[0].startswith("#"), "a preset starts with its header comment"
    # A citation: a year inside parentheses, e.g. "(Zaheer et al., 2020, ...)".
    assert re.search(r"\([^()]*\b(19|20)\d\d\b[^()]*\)", comments), comments
    assert body.strip(), "a preset holds one pattern"


@pytest.mark.parametrize("path", FILES, ids=NAMES)
@pytest.mark.parametrize("shape", [(4096, 4096, 128), (1000, 700, 64), (17, 17, 16)],
                         ids=lambda s: "x".join(map(str, s)))
def test_preset_compiles_and_equals_its_body(path, shape):
    seq_len, kv, block = shape
    layout = compile_layout(path.stem, seq_len, block=block, kv_seq_len=kv)
    _, _, body = _split(path)
    direct = compile_layout(body, seq_len, block=block, kv_seq_len=kv)
    assert torch.equal(layout.mask, direct.mask) and torch.equal(layout.full, direct.full)
    assert layout.nnz > 0


@pytest.mark.parametrize("name", NAMES)
def test_preset_inside_patterns(name):
    N, K, b = 700, 500, 32
    alone = compile_layout(name, N, block=b, kv_seq_len=K).to_dense()[0]
    causal = causal_tokens(N, K)
    assert torch.equal(compile_layout(f"{name} & causal", N, block=b, kv_seq_len=K)
                       .to_dense()[0], alone & causal)
    assert torch.equal(compile_layout(f"~{name} | causal", N, block=b, kv_seq_len=K)
                       .to_dense()[0], ~alone | causal)
    assert torch.equal(compile_layout(f"({name}) - local(0)", N, block=b, kv_seq_len=K)
                       .to_dense()[0], alone & ~tokens_of(p_local(0), N, K, b))
    heads = compile_layout(f"per_head({name}, causal)", N, block=b, kv_seq_len=K, num_heads=2)
    assert torch.equal(heads.to_dense()[0], alone) and torch.equal(heads.to_dense()[1], causal)


def test_bigbird_and_causal_against_brute_force():
    N, b = 1000, 64
    random_part = compile_layout("random(3)", N, block=b).to_dense()[0]
    expected = (tokens_of(p_local(1), N, N, b) | tokens_of(p_global(2), N, N, b)
                | random_part) & causal_tokens(N, N)
    assert torch.equal(compile_layout("bigbird & causal", N, block=b).to_dense()[0], expected)


def test_named_presets_match_their_papers_summary():
    N, b = 1024, 64
    assert torch.equal(compile_layout("longformer", N, block=b).to_dense()[0],
                       tokens_of(p_local(2), N, N, b) | tokens_of(p_global(1), N, N, b))
    assert torch.equal(compile_layout("sparse_transformer_fixed", N, block=b).to_dense()[0],
                       tokens_of(p_fixed(4, 1), N, N, b))


def test_preset_takes_no_arguments():
    with pytest.raises(LayoutError, match="preset 'bigbird' takes no arguments"):
        parse("bigbird(1)")


def test_preset_is_an_ast_node_with_span():
    pattern = parse("local(1) | bigbird")
    assert pattern.root.right.name == "bigbird"
    assert pattern.root.right.span == (11, 18)


# -- a private preset directory -----------------------------------------------------------------
def _clear_caches():
    presets.available.cache_clear()
    presets.load.cache_clear()
    parser.parse.cache_clear()
    compiler._compile_cached.cache_clear()


@pytest.fixture
def preset_dir(tmp_path, monkeypatch):
    files = {
        "local.sfl": "# a preset named like a primitive (2024)\ndense\n",
        "causal.sfl": "# another clash (2024)\nnone\n",
        "mine.sfl": "# my band (Me et al., 2024)\nlocal(0)\n",
        "uses_mine.sfl": "# builds on mine (2024)\nmine | global(1)\n",
        "broken.sfl": "# broken on purpose (2024)\nlocal(1) |\n",
        "loop_a.sfl": "# a cycle (2024)\nloop_b\n",
        "loop_b.sfl": "# a cycle (2024)\nloop_a\n",
        "heads.sfl": "# per head inside a preset (2024)\nper_head(local(0), dense)\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.setattr(presets, "_preset_dir", lambda: tmp_path)
    _clear_caches()
    yield tmp_path
    monkeypatch.undo()
    _clear_caches()


def test_primitives_win_over_presets_of_the_same_name(preset_dir):
    assert "local" not in presets.available() and "causal" not in presets.available()
    assert "mine" in presets.available()
    band = compile_layout("local(1)", 160, block=16).to_dense()[0]
    assert torch.equal(band, tokens_of(p_local(1), 160, 160, 16))
    assert torch.equal(compile_layout("causal", 160, block=16).to_dense()[0],
                       causal_tokens(160, 160))


def test_presets_use_presets(preset_dir):
    got = compile_layout("uses_mine & causal", 160, block=16).to_dense()[0]
    expected = (tokens_of(p_local(0), 160, 160, 16) | tokens_of(p_global(1), 160, 160, 16)) \
        & causal_tokens(160, 160)
    assert torch.equal(got, expected)


def test_error_inside_a_preset_names_the_file(preset_dir):
    with pytest.raises(LayoutError) as info:
        parse("broken & causal")
    assert "broken.sfl" in str(info.value)
    assert "expected a primitive" in str(info.value)


def test_self_referencing_presets_are_an_error(preset_dir):
    with pytest.raises(LayoutError, match="refers to itself"):
        parse("loop_a")


def test_per_head_inside_a_preset_points_into_the_preset(preset_dir):
    with pytest.raises(LayoutError) as info:
        compile_layout("heads | causal", 64, block=16)
    err = info.value
    assert "heads.sfl" in str(err) and "num_heads" in str(err)
    assert err.pattern[err.span[0]:err.span[1]] == "per_head"
    layout = compile_layout("heads | causal", 64, block=16, num_heads=2)
    assert layout.num_heads == 2


def test_unknown_name_suggests_presets(preset_dir):
    with pytest.raises(LayoutError, match="did you mean 'mine'"):
        parse("mime")


def test_package_exports():
    assert sparseflash.compile_layout is compile_layout
