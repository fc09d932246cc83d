"""Widths of the spill/refill instructions EIATTR_ANNOTATIONS points at (for ``info``'s spill
figures, which ptxas prints with ``-v`` but does not store as numbers).

Learned from nvdisasm listings of ptxas 13.0.88 output on sm_75..sm_120 (the same on all):
``STL`` has opcode ``0x387`` and ``LDL`` ``0x983`` in bits 0..11 of the 128-bit word; the access
size is bits 73..75 (0/1 8-bit, 2/3 16-bit, 4 32-bit, 5 64-bit, 6/7 128-bit).
tests/elf/test_info.py checks the resulting byte counts against ``ptxas -v`` on every kernel.
"""

from __future__ import annotations

_STL = 0x387
_LDL = 0x983
_SIZE_BYTES = (1, 1, 2, 2, 4, 8, 16, 16)


def spill_width(word: bytes, sm: int) -> tuple[bool, int] | None:
    """``(is_store, bytes)`` of the STL/LDL instruction in ``word`` (16 bytes), else None."""
    del sm  # the encoding is the same on every target openptxas knows
    if len(word) != 16:
        return None
    lo = int.from_bytes(word[:8], "little")
    hi = int.from_bytes(word[8:], "little")
    op = lo & 0xFFF
    if op not in (_STL, _LDL):
        return None
    return op == _STL, _SIZE_BYTES[(hi >> 9) & 7]
