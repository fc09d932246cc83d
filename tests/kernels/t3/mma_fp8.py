import importlib.util
from pathlib import Path

import numpy as np

_spec = importlib.util.spec_from_file_location(
    "corpus_fp8_ref_mma_fp8", Path(__file__).parent / "fp8_convert.py"
)
_fp8 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_fp8)


def _mma(a, b, c, fa, fb):
    """fp8 codes chosen with few significant bits and a narrow exponent range (see the spec):
    every product and partial sum is exact in f32, whatever the accumulation order."""
    av = _fp8.decode(a, fa).reshape(16, 32)
    bv = _fp8.decode(b, fb).reshape(32, 8)
    return (av @ bv + c.astype(np.float64).reshape(16, 8)).astype(np.float32).reshape(-1)


def mma_m16n8k32_e4m3(args, spec):
    a, b, c, _ = args
    return {3: _mma(a, b, c, _fp8.E4M3, _fp8.E4M3)}


def mma_m16n8k32_e4m3_e5m2(args, spec):
    a, b, c, _ = args
    return {3: _mma(a, b, c, _fp8.E4M3, _fp8.E5M2)}
