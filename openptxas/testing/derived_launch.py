"""Launches derived from a kernel's parameter list, for code that comes without launch specs.

The public corpus (openptxas/testing/public_corpus.py) is CUDA written outside this project: it
has no launch specs. Both differential runs over it, in the emulator (scripts/public_diff.py)
and on a GPU (scripts/gpu_public_diff.py), derive the same launches from the PTX alone: every
64-bit parameter is taken for a pointer to a buffer of its own, 32-bit integer parameters get a
small count, float parameters a plain value, other parameters zero bytes. Two input variants are
tried in turn: normal floats, then small integers.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

from openptxas.ptx.ast import Function
from openptxas.ptx.parser import parse

WORDS = 1 << 16  # 32-bit words per buffer (256 KiB)
COUNT = 256  # the value of 32-bit integer parameters (sizes, counts)
VARIANTS = ("float", "int")
DYNAMIC_SHARED = 16384  # bytes, when the module declares `.extern .shared`


def block_dims(fn: Function) -> list[int]:
    """The kernel's required block shape; else at most 64 threads of its maximum; else 64."""
    # (Function.reqntid is a property that builds a new tuple: compare by role, not identity)
    for required, dims in ((True, fn.reqntid), (False, fn.maxntid)):
        if dims:
            d = list(dims) + [1] * (3 - len(dims))
            if d[0] * d[1] * d[2] <= 1024:
                return d if required else [min(64, d[0]), 1, 1]
    return [64, 1, 1]


def derived_spec(
    fn: Function, module_text: str, variant: str, words: int = WORDS, count: int = COUNT
) -> dict[str, Any]:
    """One launch-spec document (docs/launch-spec.md) for ``fn``: two CTAs; every buffer is
    ``inout`` so that whatever the kernel writes is compared. The same arguments give the same
    document (the inputs come from a seeded generator)."""
    return spec_from_shape(launch_shape(fn, module_text), variant, words, count)


def launch_shape(fn: Function, module_text: str) -> dict[str, Any]:
    """What a derived launch needs of ``fn`` and its module, as plain JSON: the GPU script
    stores it when it prepares a run, so the launch processes there need not parse the PTX
    (for a file of many kernels that parse was most of each launch's time)."""
    params = [
        {"size": p.size, "align": p.align or 4, "type": p.type.name.lower(),
         "array": bool(p.dims) or (p.type.name.lower() == "b8" and p.size != 1)}
        for p in fn.params
    ]  # fmt: skip
    return {"kernel": fn.name, "block": block_dims(fn), "params": params,
            "dyn_shared": ".extern .shared" in module_text}  # fmt: skip


def spec_from_shape(
    shape: dict[str, Any], variant: str, words: int = WORDS, count: int = COUNT
) -> dict[str, Any]:
    """The derived launch-spec document of a :func:`launch_shape`."""
    rng = np.random.default_rng(1)
    args: list[dict[str, Any]] = []
    for p in shape["params"]:
        size, align = p["size"], p["align"]
        if p["array"]:
            args.append({"kind": "bytes", "size": size, "align": align, "init": "zeros"})
        elif size == 8:
            if variant == "float":
                data = rng.standard_normal(words).astype(np.float32).tobytes()
            else:
                data = rng.integers(0, 64, words, dtype=np.uint32).tobytes()
            args.append({"kind": "buffer", "dtype": "u32", "count": words, "role": "inout",
                         "init": {"hex": data.hex()}})  # fmt: skip
        elif p["type"] in ("f32", "f64"):
            args.append({"kind": "scalar", "dtype": p["type"], "init": 1.5})
        elif size == 4:
            args.append({"kind": "scalar", "dtype": "u32", "init": count})
        elif size == 2:
            args.append({"kind": "scalar", "dtype": "u16", "init": 16})
        elif size == 1:
            args.append({"kind": "scalar", "dtype": "u8", "init": 1})
        else:
            args.append({"kind": "bytes", "size": size, "align": align, "init": "zeros"})
    return {"kernel": shape["kernel"], "grid": [2, 1, 1], "block": shape["block"],
            "shared_bytes": DYNAMIC_SHARED if shape["dyn_shared"] else 0, "args": args}  # fmt: skip


def clocked(module_text: str) -> bool:
    """A kernel that reads a clock writes times, which differ with the code (not a
    miscompile)."""
    return any(c in module_text for c in ("%clock", "%globaltimer"))


def child_result(cmd: list[str], timeout: float, env: dict[str, str]) -> dict[str, Any]:
    """Run one differential child process (the corpus scripts run each kernel in its own: a
    fault or a hang spoils only its record) and read its last ``RESULT {json}`` line; a child
    that printed none is an ``error``, one past ``timeout`` a ``timeout``."""
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env,
                           check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "detail": f"more than {timeout:.0f} s"}
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")]
    if not lines:
        return {"status": "error", "detail": r.stderr.strip()[-300:]}
    got: dict[str, Any] = json.loads(lines[-1][7:])
    return got


def case_specs(case_dir: str) -> list[dict[str, Any]]:
    """The launch specs of a GPU probe case directory (scripts/gpu_control_probe.py prep):
    ``specs.json`` holds either the specs themselves or the kernels and variants to derive
    them for from ``in.ptx``."""
    d = Path(case_dir)
    doc = json.loads((d / "specs.json").read_text())
    if "derived" not in doc:
        specs: list[dict[str, Any]] = doc["specs"]
        return specs
    text = (d / "in.ptx").read_text()
    fns = {f.name: f for f in parse(text, "in.ptx").entries}
    return [derived_spec(fns[k["kernel"]], text, k["variant"]) for k in doc["derived"]]


def buffer_bytes(args: list[Any], spec: dict[str, Any]) -> list[np.ndarray[Any, Any]]:
    """The buffer arguments of a launch afterwards, as bytes (to compare bit for bit)."""
    return [
        np.asarray(args[i]).view(np.uint8).copy()
        for i, a in enumerate(spec["args"])
        if a.get("kind") == "buffer"
    ]
