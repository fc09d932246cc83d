"""Device-side ``printf``: the driver's ``vprintf(fmt, args)`` as the emulator's built-in.

ptxas passes the format string's generic address in R4:R5 and the argument buffer's in R6:R7
(the caller's stack, through the local window). Arguments are packed in order, each aligned to
its size: 4 bytes for ``int``/``char`` conversions without a length modifier, 8 bytes for
``l``/``ll``/``z``/``j``/``t`` integers, for every floating-point conversion (C promotes
``float`` to ``double``) and for ``%s``/``%p`` pointers. The text is formatted as C's printf
does (the CUDA runtime uses the host C library) and kept per thread; :mod:`openptxas.emu.launch`
prints it thread by thread in launch order (blocks in linear blockIdx order, then threads in
linear threadIdx order).
"""

from __future__ import annotations

import math
import re
import struct
from typing import TYPE_CHECKING, Any

import numpy as np

from openptxas.emu.lanes import Sel

if TYPE_CHECKING:
    from openptxas.emu.machine import Machine

_SPEC = re.compile(
    r"%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|z|j|t|L)?([diouxXeEfFgGaAcspn%])"
)
MAX_STRING = 1 << 16


def _read_cstring(m: Machine, addr: int, lane: int) -> bytes:
    out = bytearray()
    a = addr
    lanes = np.array([lane], dtype=np.intp)
    while len(out) < MAX_STRING:
        b = int(m.load("generic", np.array([a], dtype=np.int64), lanes, 1, False)[0, 0])
        if b == 0:
            break
        out.append(b)
        a += 1
    return bytes(out)


def _read(m: Machine, addr: int, lane: int, n: int) -> bytes:
    lanes = np.array([lane], dtype=np.intp)
    words = m.load("generic", np.array([addr], dtype=np.int64), lanes, n, False)
    return b"".join(int(w).to_bytes(4, "little") for w in words[:, 0])[:n]


def _fmt_float(flags: str, width: str, prec: str | None, conv: str, v: float) -> str:
    spec = "%" + flags + width + ("." + prec if prec is not None else "") + conv
    if math.isnan(v) or math.isinf(v):
        text = "nan" if math.isnan(v) else "inf"
        if conv.isupper():
            text = text.upper()
        if math.copysign(1.0, v) < 0:
            text = "-" + text
        elif "+" in flags:
            text = "+" + text
        elif " " in flags:
            text = " " + text
        w = int(width) if width else 0
        return text.ljust(w) if "-" in flags else text.rjust(w)
    if conv in "aA":
        # glibc: the shortest exact hexadecimal mantissa ("0x1.8p+0", "0x1p+0", "0x0p+0")
        h = float.hex(abs(v))
        mant, _, exp = h.partition("p")
        mant = mant.rstrip("0").rstrip(".") if "." in mant else mant
        sign = (
            "-"
            if math.copysign(1.0, v) < 0
            else "+"
            if "+" in flags
            else " "
            if " " in flags
            else ""
        )
        text = f"{sign}{mant}p{exp}"
        if conv == "A":
            text = text.upper()
        w = int(width) if width else 0
        return text.ljust(w) if "-" in flags else text.rjust(w)
    return spec % v


def _fmt_int(flags: str, width: str, prec: str | None, conv: str, v: int) -> str:
    """An integer conversion as C's printf writes it (Python's % differs for ``%#o``, ``%#x``
    of 0, a zero precision, and the ``0`` flag with a precision)."""
    mag = abs(v)
    if conv in "diu":
        digits = str(mag)
    elif conv == "o":
        digits = f"{mag:o}"
    else:
        digits = f"{mag:x}" if conv == "x" else f"{mag:X}"
    if prec is not None:
        p = int(prec or 0)
        digits = "" if p == 0 and mag == 0 else digits.zfill(p)
    prefix = ""
    if "#" in flags:
        if conv == "o" and not digits.startswith("0"):
            digits = "0" + digits
        elif conv in "xX" and mag != 0:
            prefix = "0" + conv
    sign = ""
    if conv in "di":
        sign = "-" if v < 0 else "+" if "+" in flags else " " if " " in flags else ""
    w = int(width) if width else 0
    if "-" in flags:
        return (sign + prefix + digits).ljust(w)
    if "0" in flags and prec is None:
        return sign + prefix + digits.zfill(w - len(sign) - len(prefix))
    return (sign + prefix + digits).rjust(w)


def format_printf(fmt: bytes, fetch: Any, read_string: Any) -> str:
    """Format ``fmt`` as C's printf, taking arguments from ``fetch(size) -> bytes`` (which
    handles alignment) and strings from ``read_string(address) -> bytes``."""
    text = fmt.decode("utf-8", "replace")
    out: list[str] = []
    pos = 0
    for mt in _SPEC.finditer(text):
        out.append(text[pos : mt.start()])
        pos = mt.end()
        flags, width, prec, length, conv = mt.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*":
            width = str(struct.unpack("<i", fetch(4))[0])
        if prec == "*":
            prec = str(struct.unpack("<i", fetch(4))[0])
        width = width or ""
        if conv in "diouxXc":
            wide = length in ("l", "ll", "z", "j", "t")
            raw = fetch(8 if wide else 4)
            if conv in "di":
                v: Any = int.from_bytes(raw, "little", signed=True)
                if length == "h":
                    v = struct.unpack("<h", raw[:2])[0]
                elif length == "hh":
                    v = struct.unpack("<b", raw[:1])[0]
            else:
                v = int.from_bytes(raw, "little", signed=False)
                if length == "h":
                    v &= 0xFFFF
                elif length == "hh":
                    v &= 0xFF
            if conv == "c":
                out.append(("%" + flags + width + "c") % chr(v & 0xFF))
                continue
            out.append(_fmt_int(flags, width, prec, conv, v))
        elif conv in "eEfFgGaA":
            v = struct.unpack("<d", fetch(8))[0]
            out.append(_fmt_float(flags, width, prec, conv, v))
        elif conv == "s":
            ptr = int.from_bytes(fetch(8), "little")
            s = "(null)" if ptr == 0 else read_string(ptr).decode("utf-8", "replace")
            if prec is not None and prec != "":
                s = s[: int(prec)]
            w = int(width) if width else 0
            out.append(s.ljust(w) if "-" in flags else s.rjust(w))
        elif conv == "p":
            ptr = int.from_bytes(fetch(8), "little")
            s = f"0x{ptr:x}" if ptr else "(nil)"
            w = int(width) if width else 0
            out.append(s.ljust(w) if "-" in flags else s.rjust(w))
        else:  # %n: writes nothing on the GPU
            fetch(8)
    out.append(text[pos:])
    return "".join(out)


def vprintf(m: Machine, pc: int, sel: Sel) -> None:
    from openptxas.emu.machine import PrintfRecord

    idx = m.index(sel)
    R = m.R
    fmt_ptr = R[4][idx].astype(np.uint64) | (R[5][idx].astype(np.uint64) << np.uint64(32))
    arg_ptr = R[6][idx].astype(np.uint64) | (R[7][idx].astype(np.uint64) << np.uint64(32))
    results = np.zeros(idx.size, dtype=np.uint32)
    for k, lane in enumerate(idx.tolist()):
        fmt = _read_cstring(m, int(fmt_ptr[k]), lane)
        base = int(arg_ptr[k])
        state = {"off": 0, "n": 0}

        def fetch(
            size: int, lane: int = lane, base: int = base, st: dict[str, int] = state
        ) -> bytes:
            st["off"] = (st["off"] + size - 1) // size * size
            b = _read(m, base + st["off"], lane, size)
            st["off"] += size
            st["n"] += 1
            return b

        text = format_printf(fmt, fetch, lambda a, lane=lane: _read_cstring(m, a, lane))
        m.printf.append(
            PrintfRecord(
                int(m.cta_linear[lane]), int(m.tid_linear[lane]), int(m.printf_seq[lane]), text
            )
        )
        m.printf_seq[lane] += 1
        results[k] = state["n"]
    R[4][idx] = results
