import struct
from pathlib import Path

import numpy as np

from openptxas.testing import refmath as R

WEIGHTS_FILE = Path(__file__).with_name("struct_param_large_w.bin")


def table_bytes():
    """The 1204-byte Table parameter: count = 300, values[i] = (7919 i^2 mod 100003) - 50000."""
    vals = [(i * i * 7919) % 100003 - 50000 for i in range(300)]
    return struct.pack("<i300i", 300, *vals)


def weights_bytes():
    """The 8192-byte Weights parameter (struct_param_large_w.bin): w[i] = ((37 i) mod 1000 - 500) / 8."""
    w = np.array([((i * 37) % 1000 - 500) * 0.125 for i in range(2048)], dtype=np.float32)
    return w.tobytes()


def struct_param_large(args, spec):
    raw, out = args
    assert raw.tobytes() == table_bytes()
    count, *values = struct.unpack("<i300i", raw.tobytes())
    out = out.copy()
    for t in range(len(out)):
        acc = 0
        for k in range(count // 10):
            acc += values[(t * 37 + k * 11) % count] * (k + 1)
        out[t] = acc
    return {1: out}


def struct_param_8k(args, spec):
    raw, x, out = args
    assert raw.tobytes() == weights_bytes() == WEIGHTS_FILE.read_bytes()
    w = np.frombuffer(raw.tobytes(), dtype=np.float32)
    acc = np.zeros(256, dtype=np.float32)
    for j in range(8):
        acc = R.fma(w[np.arange(256) * 8 + j], np.full(256, x[j], np.float32), acc, R.Fmt.F32)
    return {2: acc}
