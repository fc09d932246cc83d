"""Run a small PTX kernel, compiled by ptxas (the oracle harness, cached by content), in the
emulator: the helper of the per-opcode semantic tests (test_semantics.py), whose references are
computed independently (numpy, Python integers, ``fractions.Fraction``, the PTX ISA's rules).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from openptxas.emu.launch import LaunchResult, default_decoder, launch
from openptxas.emu.model import Instruction
from openptxas.emu.program import load_module
from openptxas.testing.oracle import Oracle

NDArray = np.ndarray[Any, Any]

_DT = {
    np.dtype(np.uint8): "u8",
    np.dtype(np.int8): "i8",
    np.dtype(np.uint16): "u16",
    np.dtype(np.int16): "i16",
    np.dtype(np.uint32): "u32",
    np.dtype(np.int32): "i32",
    np.dtype(np.uint64): "u64",
    np.dtype(np.int64): "i64",
    np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32",
    np.dtype(np.float64): "f64",
}


def ptx_header(target: str = "sm_90") -> str:
    return f".version 8.8\n.target {target}\n.address_size 64\n"


def cubin(ptx: str, target: str = "sm_90") -> bytes:
    return Oracle().ptxas(ptx, target, (), subject=f"<semantic test> [{target}]").cubin


def sass(blob: bytes, kernel: str = "k") -> list[Instruction]:
    """The kernel's instructions as the emulator decodes them (to assert which forms ran)."""
    m = load_module(blob)
    m.decoder = default_decoder(m.sm)
    return [ins for _, ins in sorted(m.instructions(m.kernel(kernel)).items())]


def run(
    ptx: str,
    buffers: Sequence[NDArray],
    *,
    target: str = "sm_90",
    grid: int = 1,
    block: int = 32,
    kernel: str = "k",
    shared_bytes: int = 0,
    hazards: bool = False,
    filled: bool = False,
) -> tuple[list[NDArray], LaunchResult, bytes]:
    """Launch ``kernel`` with one buffer argument per array (contents copied in, every buffer
    written back); returns (buffers afterwards, the launch result, the cubin). The hazard checker
    is off by default: these tests are about values (tests/emu/test_hazards.py is about timing).
    ``filled``: nvdisasm decodes the words the ISA tables do not (tests not about decoding)."""
    blob = cubin(ptx, target)
    args = []
    inputs = {}
    for i, b in enumerate(buffers):
        b = np.ascontiguousarray(b)
        args.append({"kind": "buffer", "dtype": _DT[b.dtype], "count": b.size, "role": "inout"})
        inputs[f"arg{i}"] = b.reshape(-1)
    spec = {
        "kernel": kernel,
        "grid": [grid],
        "block": [block],
        "shared_bytes": shared_bytes,
        "args": args,
    }
    dec = None
    if filled:
        from tests.emu.harness import filled_decoder

        dec = filled_decoder(blob)
    res = launch(blob, spec, inputs=inputs, hazards=hazards, decoder=dec)
    outs = [np.asarray(a).reshape(np.shape(b)) for a, b in zip(res.args, buffers, strict=True)]
    return outs, res, blob
