"""Merging the GPU timings written by ``python -m bench.gpu`` into a run's results."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from bench.model import GpuLaunch, Results

GPU_SCHEMA = 1


def merge_gpu(results: Results, doc: dict[str, Any]) -> Results:
    """Attach each file's GPU launches (matched by file name and target); files the GPU run
    did not cover keep none."""
    if doc.get("schema") != GPU_SCHEMA:
        raise ValueError(f"GPU results schema {doc.get('schema')!r}, expected {GPU_SCHEMA}")
    by_file: dict[tuple[str, str], list[GpuLaunch]] = {}
    for d in doc.get("launches", []):
        by_file.setdefault((d["file"], d["target"]), []).append(GpuLaunch.from_dict(d))
    files = tuple(
        replace(f, gpu=tuple(by_file[(f.name, f.target)])) if (f.name, f.target) in by_file else f
        for f in results.files
    )
    device = str(doc.get("device", "unknown GPU"))
    timed = doc.get("timed_launches")
    note = f"{device}, min over {timed} timed launches per kernel" if timed else device
    return Results(replace(results.meta, gpu=note), files)
