"""Pathfinder: are the two circular markers joined by one dashed curve?

Each image (white on black, ``uint8``) contains

* two *target* snakes A and B, each a chain of ``contour_length`` dashes. A
  snake is a random walk with a smoothness prior: dash ``i+1`` starts
  ``segment_length + gap_length`` after dash ``i`` along its direction, and its
  direction turns by ``Uniform(-max_turn, max_turn)`` from the previous one;
* ``num_distractors`` extra snakes of ``distractor_length`` dashes;
* two filled circular markers: positive (label 1) at both ends of A, negative
  (label 0) at one end of A and one end of B.

Both classes share the same geometry process (B is drawn even when unmarked), so
the amount of ink carries no label information. A and B never come within
``clearance`` pixels of each other, distractors never come near A, B or the
markers (rejection sampling), while distractors may cross each other. With
``clearance >= 2`` px no inked pixel (anti-aliasing included) of one snake is
4-adjacent to one of another, so in the gap-free rendering kept for debugging
(:class:`PathfinderDebug`), "the markers are 4-connected through ink" is
exactly the label; the tests check this with a flood fill.

Coordinates are ``(x, y)`` = ``(column, row)`` of pixel centres, in ``[0, res-1]``.

Speed: snake shapes are sampled for the whole batch with numpy and placed by
translation (always in bounds, no rejection for that); the separation tests are
batched segment-to-segment distances in torch, and rendering stamps a small
window of pixels around every dash (distance of each window pixel to its dash,
anti-aliased, merged with ``scatter_reduce(amax)``), all on ``device``.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from typing import NamedTuple

import numpy as np
import torch

from .cache import build_or_load, derive_seed

NUM_CLASSES = 2
VOCAB_SIZE = 256  # tokens are pixel intensities
GENERATOR_VERSION = 1
DIFFICULTY_CONTOUR_LENGTH: dict[str, int] = {"easy": 6, "medium": 9, "hard": 14}

# Rejection-sampling limits. Targets are resampled until they are separated
# (raising only if a configuration is essentially infeasible); a distractor
# that keeps colliding after _DISTRACTOR_TRIES draws is left out of that image.
_MAX_TARGET_ROUNDS = 200
_DISTRACTOR_TRIES = 10
_MAX_PLACE_ROUNDS = 200
# Pixels per internal batch (bounds the memory of the float canvas).
_PIXELS_PER_BATCH = 1 << 22


@dataclass(frozen=True)
class PathfinderConfig:
    """Geometry of one Pathfinder variant; lengths in pixels, angles in radians.

    Attributes:
        resolution: image side ``res``; the model sequence length is ``res**2``.
        contour_length: dashes per target snake (14 = LRA "hard").
        distractor_length: dashes per distractor snake.
        num_distractors: distractor snakes per image (fewer if they do not fit).
        segment_length: length of one dash.
        gap_length: empty space between consecutive dashes.
        thickness: stroke width.
        marker_radius: radius of the filled end markers.
        max_turn: bound of the uniform turn between consecutive dashes.
        clearance: minimum free space between strokes/markers of snakes that
            must not touch (>= 2 keeps them apart at pixel level, see module doc).
    """

    resolution: int
    contour_length: int
    distractor_length: int
    num_distractors: int
    segment_length: float
    gap_length: float
    thickness: float
    marker_radius: float
    max_turn: float
    clearance: float

    def __post_init__(self) -> None:
        if self.resolution < 8:
            raise ValueError(f"resolution must be >= 8, got {self.resolution}")
        if self.contour_length < 1 or self.distractor_length < 1 or self.num_distractors < 0:
            raise ValueError(
                "contour_length and distractor_length must be >= 1, num_distractors >= 0"
            )
        if (
            self.segment_length <= 0
            or self.gap_length < 0
            or self.thickness <= 0
            or self.marker_radius <= 0
        ):
            raise ValueError(
                "segment_length, thickness, marker_radius must be > 0 and gap_length >= 0"
            )
        if not 0 <= self.max_turn <= math.pi:
            raise ValueError(f"max_turn must be in [0, pi], got {self.max_turn}")
        if self.clearance < 0:
            raise ValueError(f"clearance must be >= 0, got {self.clearance}")

    @property
    def step(self) -> float:
        """Distance between the starts of consecutive dashes."""
        return self.segment_length + self.gap_length

    @property
    def margin(self) -> float:
        """Distance kept between every snake vertex and the image border (markers fit inside)."""
        return max(self.marker_radius, self.thickness / 2) + 0.5


def _cfg(
    res: int, segment: float, gap: float, thick: float, marker: float, clear: float
) -> PathfinderConfig:
    """Hard-difficulty settings with the fields shared by every resolution."""
    return PathfinderConfig(
        resolution=res,
        contour_length=DIFFICULTY_CONTOUR_LENGTH["hard"],
        distractor_length=5,
        num_distractors=2,
        segment_length=segment,
        gap_length=gap,
        thickness=thick,
        marker_radius=marker,
        max_turn=0.8,
        clearance=clear,
    )


# Per-resolution settings. The picture is meant to look the same at every
# resolution (LRA's Path-X is "the same task, longer sequence"), so lengths scale
# about linearly with s = res / 32: the dash pitch (segment + gap) is 1.5*s px,
# i.e. a 14-dash snake has an arc length of ~0.65*res, and the marker radius
# grows from 1.5 to 7 px; the number of snakes, their length in dashes and the
# turn angle do not change. Three quantities grow more slowly than s, because
# they are bounded by pixels rather than by the picture:
# * thickness (1 -> 3 px): a 1 px stroke is the thinnest that renders at 32 px;
# * clearance (2 -> 4 px): 2 px is what keeps snakes apart at pixel level, and
#   at 32 px it already forces short snakes (a 32 px image is crowded);
# * the gap between dashes (0.5*s at 32 px, 0.7*s above): at 32 px dashes blur
#   into a modulated line whatever the gap, so the gap is kept small there to
#   leave room for the snakes; from 64 px the gaps are visible.
# Distractors are short (5 dashes) so that they fit next to the targets at 32 px.
# Contour length is 14 dashes (LRA's hard split); pathfinder_config() gives 6/9.
# Columns are in pixels.
# fmt: off
PATHFINDER_CONFIGS: dict[int, PathfinderConfig] = {
    #         res  segment  gap   thick  marker  clear
    32:  _cfg(32,  1.0,     0.5,  1.0,   1.5,    2.0),
    64:  _cfg(64,  1.75,    1.25, 1.5,   2.5,    2.5),
    128: _cfg(128, 3.5,     2.5,  2.0,   4.0,    3.0),
    256: _cfg(256, 7.0,     5.0,  3.0,   7.0,    4.0),
}
# fmt: on


def pathfinder_config(resolution: int = 32, difficulty: str = "hard") -> PathfinderConfig:
    """Settings for ``resolution`` (32/64/128/256); contour length 6/9/14 for easy/medium/hard."""
    if resolution not in PATHFINDER_CONFIGS:
        raise ValueError(
            f"resolution must be one of {sorted(PATHFINDER_CONFIGS)}, got {resolution}"
        )
    if difficulty not in DIFFICULTY_CONTOUR_LENGTH:
        raise ValueError(
            f"difficulty must be one of {sorted(DIFFICULTY_CONTOUR_LENGTH)}, got {difficulty!r}"
        )
    length = DIFFICULTY_CONTOUR_LENGTH[difficulty]
    return replace(PATHFINDER_CONFIGS[resolution], contour_length=length)


class PathfinderBatch(NamedTuple):
    """A batch of Pathfinder images.

    Attributes:
        images: uint8 ``(S, res, res)``, 0 = background, 255 = ink.
        labels: int64 ``(S,)``, 1 iff both markers lie on the same snake.
    """

    images: torch.Tensor
    labels: torch.Tensor


class PathfinderDebug(NamedTuple):
    """Geometry behind a :class:`PathfinderBatch` (for tests and inspection).

    Attributes:
        vertices: float32 ``(S, K, V, 2)``: ``K = 2 + num_distractors`` snakes
            (0 = A, 1 = B, then distractors), ``V = max(lengths) + 1`` polyline
            vertices in ``(x, y)``; shorter snakes repeat their last vertex.
            Dash ``i`` starts at vertex ``i``; the last vertex ends the last dash.
        snake_valid: bool ``(S, K)``: False for distractors that did not fit.
        markers: float32 ``(S, 2, 2)``: marker centres ``(x, y)``.
        solid: uint8 ``(S, res, res)``: the same scene drawn without gaps.
    """

    vertices: torch.Tensor
    snake_valid: torch.Tensor
    markers: torch.Tensor
    solid: torch.Tensor


# --------------------------------------------------------------------------- #
# Geometry (numpy sampling, torch distance tests).
# --------------------------------------------------------------------------- #
def _place_snakes(
    rng: np.random.Generator, n: int, length: int, cfg: PathfinderConfig
) -> np.ndarray:
    """Sample ``n`` snakes of ``length`` dashes lying inside the image.

    The shape is drawn first, then translated uniformly among the positions
    that keep it inside ``[margin, res-1-margin]``; shapes too large to fit at
    all are redrawn.

    Returns:
        float64 ``(n, length + 1, 2)`` polyline vertices ``(x, y)``.
    """
    lo_lim, hi_lim = cfg.margin, cfg.resolution - 1 - cfg.margin
    out = np.empty((n, length + 1, 2))
    todo = np.arange(n)
    for _ in range(_MAX_PLACE_ROUNDS):
        m = todo.size
        if m == 0:
            return out
        heading = rng.uniform(0, 2 * math.pi, size=(m, 1)) + np.concatenate(
            [
                np.zeros((m, 1)),
                np.cumsum(rng.uniform(-cfg.max_turn, cfg.max_turn, size=(m, length - 1)), axis=1),
            ],
            axis=1,
        )  # (m, length) direction of each dash
        direction = np.stack([np.cos(heading), np.sin(heading)], axis=-1)  # (m, length, 2)
        starts = np.concatenate(
            [np.zeros((m, 1, 2)), np.cumsum(direction[:, :-1] * cfg.step, axis=1)], axis=1
        )
        verts = np.concatenate(
            [starts, starts[:, -1:] + direction[:, -1:] * cfg.segment_length], axis=1
        )
        lo, hi = verts.min(axis=1), verts.max(axis=1)  # (m, 2)
        room = (hi_lim - lo_lim) - (hi - lo)
        fits = (room >= 0).all(axis=1)
        shift = lo_lim - lo + rng.random((m, 2)) * np.maximum(room, 0)
        out[todo[fits]] = verts[fits] + shift[fits, None, :]
        todo = todo[~fits]
    raise RuntimeError(
        f"snakes of {length} dashes essentially never fit in {cfg.resolution} px; shorten them"
    )


def _point_segment_d2(
    px: torch.Tensor,
    py: torch.Tensor,
    ax: torch.Tensor,
    ay: torch.Tensor,
    bx: torch.Tensor,
    by: torch.Tensor,
) -> torch.Tensor:
    """Squared distance from points ``p`` to segments ``[a, b]`` (all broadcastable)."""
    dx, dy = bx - ax, by - ay
    t = (((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy).clamp_min(1e-12)).clamp(0, 1)
    ex, ey = ax + t * dx - px, ay + t * dy - py
    return ex * ex + ey * ey


def _polyline_d2(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Squared distance between polylines: ``a (n, P+1, 2)``, ``b (n, Q+1, 2)`` -> ``(n,)``."""
    a0x, a0y = a[:, :-1, None, 0], a[:, :-1, None, 1]  # (n, P, 1)
    a1x, a1y = a[:, 1:, None, 0], a[:, 1:, None, 1]
    b0x, b0y = b[:, None, :-1, 0], b[:, None, :-1, 1]  # (n, 1, Q)
    b1x, b1y = b[:, None, 1:, 0], b[:, None, 1:, 1]
    d2 = torch.minimum(
        torch.minimum(
            _point_segment_d2(a0x, a0y, b0x, b0y, b1x, b1y),
            _point_segment_d2(a1x, a1y, b0x, b0y, b1x, b1y),
        ),
        torch.minimum(
            _point_segment_d2(b0x, b0y, a0x, a0y, a1x, a1y),
            _point_segment_d2(b1x, b1y, a0x, a0y, a1x, a1y),
        ),
    )  # (n, P, Q); exact unless the two segments properly cross:
    ux, uy, vx, vy = a1x - a0x, a1y - a0y, b1x - b0x, b1y - b0y
    o1 = ux * (b0y - a0y) - uy * (b0x - a0x)
    o2 = ux * (b1y - a0y) - uy * (b1x - a0x)
    o3 = vx * (a0y - b0y) - vy * (a0x - b0x)
    o4 = vx * (a1y - b0y) - vy * (a1x - b0x)
    crossing = (o1 * o2 < 0) & (o3 * o4 < 0)
    return d2.masked_fill(crossing, 0.0).flatten(1).amin(dim=1)


def _ends_to_polyline_d2(ends: torch.Tensor, poly: torch.Tensor) -> torch.Tensor:
    """Squared distance from points ``ends (n, E, 2)`` to polylines ``poly (n, Q+1, 2)``.

    Returns:
        ``(n,)``: the minimum over points and polyline pieces.
    """
    px, py = ends[:, :, None, 0], ends[:, :, None, 1]
    d2 = _point_segment_d2(
        px,
        py,
        poly[:, None, :-1, 0],
        poly[:, None, :-1, 1],
        poly[:, None, 1:, 0],
        poly[:, None, 1:, 1],
    )
    return d2.flatten(1).amin(dim=1)


def _endpoints(v: torch.Tensor) -> torch.Tensor:
    """``(n, V, 2)`` -> ``(n, 2, 2)`` first and last vertex."""
    return v[:, [0, -1]]


def _separated(
    marked: torch.Tensor, other: torch.Tensor, other_marked: bool, cfg: PathfinderConfig
) -> torch.Tensor:
    """Whether snake ``other`` keeps ``clearance`` away from ``marked`` and its end markers.

    Args:
        marked: ``(n, V, 2)`` snake whose two ends may carry markers.
        other: ``(n, W, 2)`` the other snake.
        other_marked: ``other``'s ends may carry markers too (target pair).

    Returns:
        bool ``(n,)``.
    """
    h, r, c = cfg.thickness / 2, cfg.marker_radius, cfg.clearance
    reach = 2 * max(h, r) + c  # no constraint can fail beyond this distance
    ok = torch.ones(marked.shape[0], dtype=torch.bool, device=marked.device)
    # Cheap pre-filter: snakes whose bounding boxes are far apart are fine.
    near = (
        (marked.amin(1) - reach <= other.amax(1)) & (other.amin(1) - reach <= marked.amax(1))
    ).all(dim=1)
    idx = near.nonzero().squeeze(1)
    if idx.numel() == 0:
        return ok
    a, b = marked[idx], other[idx]
    good = _polyline_d2(a, b) > (2 * h + c) ** 2
    good &= _ends_to_polyline_d2(_endpoints(a), b) > (r + h + c) ** 2
    if other_marked:
        good &= _ends_to_polyline_d2(_endpoints(b), a) > (r + h + c) ** 2
        # Two markers of different snakes (negative images) must not touch either.
        ea, eb = _endpoints(a), _endpoints(b)
        good &= ((ea[:, :, None] - eb[:, None, :]) ** 2).sum(-1).flatten(1).amin(1) > (
            2 * r + c
        ) ** 2
    ok[idx] = good
    return ok


def _sample_scene(
    rng: np.random.Generator, n: int, cfg: PathfinderConfig, device: torch.device
) -> tuple[torch.Tensor, torch.Tensor]:
    """Sample all snakes of ``n`` images.

    Returns:
        vertices float32 ``(n, K, V, 2)`` on ``device`` and valid bool ``(n, K)``.
    """
    lt, ld = cfg.contour_length, cfg.distractor_length
    v_max = max(lt, ld) + 1
    k = 2 + cfg.num_distractors

    def to_dev(x: np.ndarray) -> torch.Tensor:
        return torch.from_numpy(x.astype(np.float32)).to(device)

    def pad(v: torch.Tensor) -> torch.Tensor:  # repeat the last vertex up to v_max
        return torch.cat([v, v[:, -1:].expand(-1, v_max - v.shape[1], -1)], dim=1)

    verts = torch.zeros((n, k, v_max, 2), dtype=torch.float32, device=device)
    valid = torch.zeros((n, k), dtype=torch.bool, device=device)
    # Targets: joint rejection of the pair, so A and B are exchangeable.
    todo = torch.arange(n, device=device)
    for _ in range(_MAX_TARGET_ROUNDS):
        if todo.numel() == 0:
            break
        a = to_dev(_place_snakes(rng, todo.numel(), lt, cfg))
        b = to_dev(_place_snakes(rng, todo.numel(), lt, cfg))
        ok = _separated(a, b, True, cfg)
        done = todo[ok]
        verts[done, 0], verts[done, 1] = pad(a[ok]), pad(b[ok])
        todo = todo[~ok]
    else:
        if todo.numel():
            raise RuntimeError(
                "target snakes could not be separated; the configuration is too crowded"
            )
    valid[:, :2] = True
    for j in range(2, k):
        todo = torch.arange(n, device=device)
        for _ in range(_DISTRACTOR_TRIES):
            if todo.numel() == 0:
                break
            d = to_dev(_place_snakes(rng, todo.numel(), ld, cfg))
            ok = _separated(verts[todo, 0, : lt + 1], d, False, cfg) & _separated(
                verts[todo, 1, : lt + 1], d, False, cfg
            )
            done = todo[ok]
            verts[done, j] = pad(d[ok])
            valid[done, j] = True
            todo = todo[~ok]
    return verts, valid


# --------------------------------------------------------------------------- #
# Rendering.
# --------------------------------------------------------------------------- #
def _stamp_segments(
    canvas: torch.Tensor,
    p0: torch.Tensor,
    p1: torch.Tensor,
    valid: torch.Tensor,
    radius: float,
    max_len: float,
) -> None:
    """Draw anti-aliased capsules (segments of half-width ``radius``) into ``canvas``.

    Only a ``W x W`` window around each segment is evaluated, ``W`` covering
    ``max_len + 2 * radius + 1`` pixels, so the cost is independent of ``res``.

    Args:
        canvas: float ``(n, res, res)``, updated in place with the max.
        p0, p1: ``(n, M, 2)`` segment ends ``(x, y)``; a point if ``p0 == p1``.
        valid: bool ``(n, M)``; invalid segments are not drawn.
        radius: half-width; intensity ``clamp(radius + 0.5 - distance, 0, 1)``.
        max_len: upper bound of the segment lengths.
    """
    n, res, _ = canvas.shape
    if n == 0 or p0.shape[1] == 0:
        return
    reach = radius + 0.5
    w = int(math.ceil(max_len + 2 * reach)) + 2  # +2: floor() of the origin and float slack
    origin = torch.floor(torch.minimum(p0, p1) - reach)  # (n, M, 2) top-left pixel of the window
    offs = torch.arange(w, device=canvas.device, dtype=p0.dtype)
    px = origin[..., 0, None, None] + offs[None, None, None, :]  # (n, M, 1, w)
    py = origin[..., 1, None, None] + offs[None, None, :, None]  # (n, M, w, 1)
    d2 = _point_segment_d2(
        px,
        py,
        p0[..., 0, None, None],
        p0[..., 1, None, None],
        p1[..., 0, None, None],
        p1[..., 1, None, None],
    )
    val = (reach - d2.sqrt()).clamp(0, 1)  # (n, M, w, w)
    inside = (px >= 0) & (px < res) & (py >= 0) & (py < res) & valid[..., None, None]
    val = val * inside
    flat = (py.clamp(0, res - 1) * res + px.clamp(0, res - 1)).long() + (
        torch.arange(n, device=canvas.device) * res * res
    )[:, None, None, None]
    canvas.view(-1).scatter_reduce_(0, flat.reshape(-1), val.reshape(-1), reduce="amax")


def _render(
    verts: torch.Tensor,
    valid: torch.Tensor,
    markers: torch.Tensor,
    cfg: PathfinderConfig,
    solid: bool,
) -> torch.Tensor:
    """Rasterise snakes (dashed, or ``solid`` polylines) and markers -> uint8 ``(n, res, res)``."""
    n, k, v, _ = verts.shape
    res = cfg.resolution
    canvas = torch.zeros((n, res, res), dtype=torch.float32, device=verts.device)
    p0 = verts[:, :, :-1]  # dash i starts at vertex i
    if solid:
        p1, max_len = verts[:, :, 1:], cfg.step
    else:
        direction = verts[:, :, 1:] - p0
        norm = direction.norm(dim=-1, keepdim=True)
        # The last dash already has segment_length; padded dashes have length 0.
        p1, max_len = (
            p0 + direction * (cfg.segment_length / norm.clamp_min(1e-6)).clamp(max=1.0),
            cfg.segment_length,
        )
    seg_valid = valid[:, :, None].expand(n, k, v - 1)
    _stamp_segments(
        canvas,
        p0.reshape(n, -1, 2),
        p1.reshape(n, -1, 2),
        seg_valid.reshape(n, -1),
        cfg.thickness / 2,
        max_len,
    )
    _stamp_segments(
        canvas,
        markers,
        markers,
        torch.ones(markers.shape[:2], dtype=torch.bool, device=verts.device),
        cfg.marker_radius,
        0.0,
    )
    return (canvas * 255).round_().to(torch.uint8)


# --------------------------------------------------------------------------- #
# Public API.
# --------------------------------------------------------------------------- #
def _resolve_config(config: PathfinderConfig | int) -> PathfinderConfig:
    if isinstance(config, PathfinderConfig):
        return config
    if isinstance(config, int):
        return pathfinder_config(config)
    raise TypeError(
        f"config must be a PathfinderConfig or a resolution, got {type(config).__name__}"
    )


def generate_pathfinder(
    num_samples: int,
    config: PathfinderConfig | int = 32,
    *,
    seed: int,
    device: str | torch.device | None = None,
    return_debug: bool = False,
    num_threads: int | None = None,
) -> PathfinderBatch | tuple[PathfinderBatch, PathfinderDebug]:
    """Generate ``num_samples`` Pathfinder images.

    Args:
        num_samples: ``S``.
        config: a :class:`PathfinderConfig` or a resolution (hard settings).
        seed: seed of the ``numpy.random.Generator`` that draws all geometry and
            labels; the output is reproducible for the same arguments and device
            type (float rounding may differ between CPU and GPU).
        device: torch device for distance tests and rendering (default CPU);
            outputs are always returned on the CPU.
        return_debug: also return the :class:`PathfinderDebug` geometry.
        num_threads: torch CPU threads while generating (restored afterwards;
            default: leave torch's setting). On a CPU that other busy processes
            share, torch's OpenMP threads wait on each other and generation
            can be 5-10x slower; ``num_threads=1`` avoids that.

    Returns:
        :class:`PathfinderBatch` with ``images uint8 (S, res, res)`` and
        ``labels int64 (S,)``; plus :class:`PathfinderDebug` if ``return_debug``.
    """
    cfg = _resolve_config(config)
    if num_samples < 0:
        raise ValueError(f"num_samples must be >= 0, got {num_samples}")
    if num_threads is not None and num_threads < 1:
        raise ValueError(f"num_threads must be >= 1, got {num_threads}")
    with _torch_threads(num_threads):
        return _generate(num_samples, cfg, seed, device, return_debug)


@contextlib.contextmanager
def _torch_threads(num_threads: int | None) -> Iterator[None]:
    """Temporarily set torch's intra-op CPU thread count (process-wide)."""
    if num_threads is None:
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(num_threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def _generate(
    num_samples: int,
    cfg: PathfinderConfig,
    seed: int,
    device: str | torch.device | None,
    return_debug: bool,
) -> PathfinderBatch | tuple[PathfinderBatch, PathfinderDebug]:
    """Body of :func:`generate_pathfinder` (arguments already validated)."""
    dev = torch.device(device) if device is not None else torch.device("cpu")
    rng = np.random.default_rng(seed)
    res = cfg.resolution
    batch = max(1, _PIXELS_PER_BATCH // (res * res))
    images, labels, dbg = [], [], []
    for start in range(0, num_samples, batch):
        n = min(batch, num_samples - start)
        label = rng.integers(0, 2, size=n)
        end_a, end_b = rng.integers(0, 2, size=n), rng.integers(0, 2, size=n)
        verts, valid = _sample_scene(rng, n, cfg, dev)
        last = cfg.contour_length  # index of the last vertex of the targets
        ends_a = torch.stack([verts[:, 0, 0], verts[:, 0, last]], dim=1)  # (n, 2, 2)
        ends_b = torch.stack([verts[:, 1, 0], verts[:, 1, last]], dim=1)
        rows = torch.arange(n, device=dev)
        ea, eb = torch.from_numpy(end_a).to(dev), torch.from_numpy(end_b).to(dev)
        # Positive: both ends of A. Negative: one end of A and one end of B.
        second = torch.where(
            torch.from_numpy(label).bool().to(dev)[:, None], ends_a[rows, 1 - ea], ends_b[rows, eb]
        )
        markers = torch.stack([ends_a[rows, ea], second], dim=1)  # (n, 2, 2)
        images.append(_render(verts, valid, markers, cfg, solid=False).cpu())
        labels.append(torch.from_numpy(label))
        if return_debug:
            dbg.append(
                (
                    verts.cpu(),
                    valid.cpu(),
                    markers.cpu(),
                    _render(verts, valid, markers, cfg, solid=True).cpu(),
                )
            )
    if images:
        out = PathfinderBatch(torch.cat(images), torch.cat(labels).long())
    else:
        out = PathfinderBatch(
            torch.zeros((0, res, res), dtype=torch.uint8), torch.zeros(0, dtype=torch.long)
        )
    if not return_debug:
        return out
    if dbg:
        debug = PathfinderDebug(*(torch.cat(x) for x in zip(*dbg)))
    else:
        k, v = 2 + cfg.num_distractors, max(cfg.contour_length, cfg.distractor_length) + 1
        debug = PathfinderDebug(
            torch.zeros((0, k, v, 2)),
            torch.zeros((0, k), dtype=torch.bool),
            torch.zeros((0, 2, 2)),
            out.images.clone(),
        )
    return out, debug


def pathfinder_tokens(images: torch.Tensor) -> torch.Tensor:
    """Model input: uint8 ``(S, res, res)`` -> LongTensor ``(S, res*res)``, intensities 0-255.

    Pixels are flattened row-major (raster order), the LRA convention.
    """
    if images.dtype != torch.uint8 or images.dim() != 3:
        raise ValueError(
            f"expected uint8 (S, res, res) images, got {images.dtype} {tuple(images.shape)}"
        )
    return images.reshape(images.shape[0], -1).long()


def random_dihedral(images: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Apply one of the square's 8 symmetries (flips and a transpose), drawn per image.

    Pathfinder's label (are the markers on one snake?) survives every symmetry, so this is
    a label-preserving augmentation; the draw comes from ``generator`` alone (``(B, 3)``
    random bits), so a seeded generator repeats it.

    Args:
        images: ``(B, ..., H, H)`` square images of any dtype.
        generator: CPU ``torch.Generator``.

    Returns:
        ``(B, ..., H, H)``, same dtype and device.
    """
    if images.dim() < 3 or images.shape[-1] != images.shape[-2]:
        raise ValueError(f"expected (B, ..., H, H) square images, got {tuple(images.shape)}")
    bits = torch.randint(0, 2, (images.shape[0], 3), generator=generator).bool()
    flips = bits.view(images.shape[0], 3, *([1] * (images.dim() - 1))).to(images.device)
    out = torch.where(flips[:, 0], images.flip(-1), images)
    out = torch.where(flips[:, 1], out.flip(-2), out)
    return torch.where(flips[:, 2], out.transpose(-1, -2), out)


# --------------------------------------------------------------------------- #
# Cached splits.
# --------------------------------------------------------------------------- #
SPLITS: tuple[str, ...] = ("train", "val", "test")


@dataclass(frozen=True)
class PathfinderDataConfig:
    """Split sizes and settings of a Pathfinder dataset (default: 200K images, 80/10/10)."""

    resolution: int = 32
    difficulty: str = "hard"
    num_train: int = 160_000
    num_val: int = 20_000
    num_test: int = 20_000
    seed: int = 0
    chunk_size: int = 10_000

    def num_samples(self, split: str) -> int:
        if split not in SPLITS:
            raise ValueError(f"split must be one of {SPLITS}, got {split!r}")
        return {"train": self.num_train, "val": self.num_val, "test": self.num_test}[split]


def load_pathfinder(
    split: str,
    config: PathfinderDataConfig = PathfinderDataConfig(),
    *,
    cache_dir: str | os.PathLike | None = None,
    device: str | torch.device | None = None,
    progress: bool = True,
    num_threads: int | None = None,
) -> PathfinderBatch:
    """Load one split, generating and caching it (as uint8 images) if needed.

    ``device`` and ``num_threads`` only affect generation speed (see
    :func:`generate_pathfinder`); they are not part of the cache key.

    Returns:
        :class:`PathfinderBatch`; feed ``pathfinder_tokens(batch.images)`` to a model.
    """
    n = config.num_samples(split)
    cfg = pathfinder_config(config.resolution, config.difficulty)

    def builder(num: int, seed: int) -> dict[str, torch.Tensor]:
        return generate_pathfinder(
            num, cfg, seed=seed, device=device, num_threads=num_threads
        )._asdict()

    data = build_or_load(
        f"pathfinder{config.resolution}-{config.difficulty}-{split}",
        builder,
        n,
        params={**asdict(cfg), "base_seed": config.seed, "version": GENERATOR_VERSION},
        # The geometry is nearly scale-free, so the same seed would give the same
        # scenes at every resolution: mix the resolution into the split seed.
        seed=derive_seed(config.seed, SPLITS.index(split), config.resolution),
        chunk_size=config.chunk_size,
        cache_dir=cache_dir,
        progress=progress,
    )
    return PathfinderBatch(**data)
