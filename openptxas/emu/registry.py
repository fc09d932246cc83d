"""Opcode -> binder table, assembled from the ``ops_*`` modules."""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping

from openptxas.emu.bind import Bound, Ctx


@functools.cache
def binders() -> Mapping[str, Callable[[Ctx], Bound]]:
    from openptxas.emu import (
        ops_async,
        ops_conv,
        ops_ctrl,
        ops_fp,
        ops_gmma,
        ops_half,
        ops_int,
        ops_mem,
        ops_mma,
        ops_simd,
        ops_tex,
        ops_warp,
    )

    table: dict[str, Callable[[Ctx], Bound]] = {}
    mods = (
        ops_int,
        ops_ctrl,
        ops_mem,
        ops_fp,
        ops_conv,
        ops_half,
        ops_warp,
        ops_mma,
        ops_async,
        ops_simd,
        ops_gmma,
        ops_tex,
    )
    for mod in mods:
        for name, fn in mod.BINDERS.items():
            if name in table:
                raise AssertionError(f"opcode {name} bound twice")
            table[name] = fn
    return table
