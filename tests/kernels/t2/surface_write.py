"""Reference for surface_write.cu: surfaces are dense row-major texel arrays (channels, then x,
y, z or the layer), addressed by byte x coordinate."""

import numpy as np


def write_2d(args, spec):
    _surf, inp, _w = args
    return {0: (inp * np.float32(2.0)).astype(np.float32)}


def write_2d_rgba(args, spec):
    out = args[0].copy().reshape(7, 20, 4)
    for y in range(7):
        for x in range(20):
            out[y, x] = [x, y, x ^ y, 255 - x]
    return {0: out.reshape(-1)}


def write_3d_u8(args, spec):
    out = args[0].copy().reshape(5, 8, 8)
    for z in range(5):
        for y in range(8):
            for x in range(8):
                out[z, y, x] = (x * 16 + y * 4 + z * 3 + 1) & 0xFF
    return {0: out.reshape(-1)}


def write_layered_f4(args, spec):
    out = args[0].copy().reshape(2, 3, 10, 4)
    for layer in range(2):
        for y in range(3):
            for x in range(10):
                out[layer, y, x] = [x, y, layer, x + 10 * y + 100 * layer]
    return {0: out.reshape(-1)}


def write_1d_f4(args, spec):
    _surf, inp = args
    out = inp.reshape(32, 4)[::-1].copy()
    return {0: out.reshape(-1)}


def write_2d_zero(args, spec):
    out = args[0].copy().reshape(4, 12)
    for y in range(4):
        for x in range(12):
            out[y, x] = y * 1000 + x
    return {0: out.reshape(-1)}


def read_2d(args, spec):
    surf, out, _w = args
    s = surf.reshape(5, 16)
    res = out.copy().reshape(5, 16)
    for y in range(5):
        for x in range(16):
            v = (int(s[y, (x * 5) % 16]) + x + 2**31) % 2**32 - 2**31  # wrap-around
            res[y, x] = v
    return {1: res.reshape(-1)}
