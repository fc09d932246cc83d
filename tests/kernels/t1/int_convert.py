import numpy as np

F = np.float32


def int_widths(args, spec):
    a, b, out32, out64, n = args
    n = int(n[0])
    x, y = a[:n], b[:n]
    rows32 = [
        x.astype(np.int8),
        x.astype(np.uint8),
        x.astype(np.int16),
        x.astype(np.uint16),
        y.astype(np.int32),
        (y >> 32).astype(np.int32),
        (x >> 8).astype(np.int8).astype(np.int32) + (y >> 20).astype(np.int16).astype(np.int32),
        (x >> 24).astype(np.uint8).astype(np.int32) * (x >> 16).astype(np.int8).astype(np.int32),
    ]
    rows64 = [
        x.astype(np.int64),
        x.view(np.uint32).astype(np.int64),
        y.astype(np.int16),
        y.astype(np.uint16),
        (y >> 40).astype(np.int8),
        y.astype(np.int32),
        (y >> 7).astype(np.uint32).astype(np.int64),
    ]
    r32, r64 = out32.copy(), out64.copy()
    for k, r in enumerate(rows32):
        r32[k * n : (k + 1) * n] = r.astype(np.int32)
    for k, r in enumerate(rows64):
        r64[k * n : (k + 1) * n] = r.astype(np.int64)
    return {2: r32, 3: r64}


def int_float(args, spec):
    a, b, f, fout, iout, lout, n = args
    n = int(n[0])
    x, y = a[:n], b[:n]
    v = f[:n] * F(1000)
    assert np.all(np.abs(v.astype(np.float64) * 1e9) < 2.0**62)
    assert np.all(np.abs(v.astype(np.float64) * 1000) < 2.0**31)
    frows = [
        x.astype(F),
        x.view(np.uint32).astype(F),
        y.astype(F),
        (x >> 8).astype(F),
        x.astype(np.int16).astype(F),
    ]
    irows = [
        v.astype(np.int32),
        np.abs(v).astype(np.uint32).astype(np.int32),
        (v * F(1000)).astype(np.int32),
    ]
    fr, ir, lr = fout.copy(), iout.copy(), lout.copy()
    for k, r in enumerate(frows):
        fr[k * n : (k + 1) * n] = r
    for k, r in enumerate(irows):
        ir[k * n : (k + 1) * n] = r
    lr[:n] = (v * F(1.0e9)).astype(np.int64)
    return {3: fr, 4: ir, 5: lr}
