"""Benchmarks of openptxas against ptxas 13.0.88: compile speed, memory and code quality.

``python -m bench run`` measures a set of PTX files (default: the project's kernel corpus) with
ptxas and openptxas interleaved and writes JSON, a markdown report and PNG plots;
``python -m bench report`` re-renders a report from its JSON (merging GPU timings made by
``python -m bench.gpu``); ``python -m bench profile FILE.ptx`` prints compile time per phase, as
ptxas's ``--compiler-stats`` does. The README's "Benchmarks" section documents the commands.

This package may call NVIDIA's tools (it is a benchmark, not the compiler); the compiler never
imports it.
"""
