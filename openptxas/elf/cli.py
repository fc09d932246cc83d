"""``openptxas-sass info`` and ``openptxas-sass rewrite``: the cubin reader and writer on the
command line. Diagnostics go to stderr in ptxas's style; exit status 0 on success, 1 on a bad
cubin, 2 on bad usage."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from typing import Any, NoReturn

from openptxas.diag import CubinFormatError, OpenPtxasError, UsageError
from openptxas.elf.consts import section_type_name
from openptxas.elf.inspect import FunctionInfo, ModuleInfo, attribute_value_text, summarize
from openptxas.elf.model import Cubin
from openptxas.elf.reader import read_cubin
from openptxas.elf.writer import section_bytes, section_size, write_cubin

TOOL = "openptxas-sass"
COMMANDS = ("info", "rewrite")


class _ArgParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _read_file(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise UsageError(f"cannot read '{path}': {exc.strerror or exc}") from None


def _write_file(path: str, data: bytes) -> None:
    """Write atomically: a failed run never leaves a partial output file."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".openptxas-")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        raise UsageError(f"cannot write '{path}': {exc.strerror or exc}") from None


def _function_json(cubin: Cubin, f: FunctionInfo) -> dict[str, Any]:
    return {
        "name": f.name,
        "kind": f.kind,
        "section": f.section,
        "size": f.size,
        "registers": f.registers,
        "barriers": f.barriers,
        "stack_frame": f.stack_frame,
        "min_stack_size": f.min_stack,
        "max_stack_size": f.max_stack,
        "shared_bytes": f.shared,
        "spill_stores": f.spill_stores,
        "spill_loads": f.spill_loads,
        "param_base": f.param_base,
        "param_bytes": f.param_size,
        "params": [
            {"ordinal": p.ordinal, "offset": p.offset, "size": p.size, "log_align": p.log_align}
            for p in f.params
        ],
        "max_threads": list(f.max_threads) if f.max_threads else None,
        "reqntid": list(f.reqntid) if f.reqntid else None,
        "cluster_dims": list(f.cluster_dims) if f.cluster_dims else None,
        "maxreg": f.maxreg,
        "attributes": [
            {"name": a.name, "format": a.fmt.name, "value": attribute_value_text(a, cubin)}
            for a in f.attributes
        ],
        "relocations": [
            {
                "section": r.section,
                "offset": r.offset,
                "type": r.type,
                "symbol": r.symbol,
                "addend": r.addend,
            }
            for r in f.relocations
        ],
    }


def info_json(cubin: Cubin, m: ModuleInfo) -> dict[str, Any]:
    return {
        "target": m.target,
        "type": "relocatable" if m.relocatable else "executable",
        "e_flags": f"{m.e_flags:#x}",
        "tool_options": m.tool_options,
        "functions": [_function_json(cubin, f) for f in m.functions],
        "module_attributes": [
            {"name": a.name, "format": a.fmt.name, "value": attribute_value_text(a, cubin)}
            for _, a in m.module_attributes
        ],
        "globals": [{"name": n, "section": s, "offset": o, "size": z} for n, s, o, z in m.globals],
        "sections": [
            {
                "name": s.name,
                "type": section_type_name(s.type),
                "flags": f"{s.flags:#x}",
                "size": section_size(s, section_bytes(cubin, s)),
            }
            for s in cubin.sections[1:]
        ],
    }


def _opt(v: object) -> str:
    return "?" if v is None else str(v)


def info_text(cubin: Cubin, m: ModuleInfo) -> str:
    out = [
        f"cubin: {m.target}, {'relocatable (-c)' if m.relocatable else 'executable'}, "
        f"e_flags {m.e_flags:#x}"
    ]
    if m.tool_options is not None:
        out.append(f"ptxas options: {m.tool_options.strip()}")
    for f in m.functions:
        out.append("")
        out.append(f"{f.kind} {f.name} ({f.section}, {f.size} bytes)")
        if f.kind == "subroutine":
            out.append(f"  at offset {f.offset:#x}")
        out.append(
            f"  registers {_opt(f.registers)}, barriers {f.barriers}, shared {_opt(f.shared)}, "
            f"stack frame {_opt(f.stack_frame)}, min stack {_opt(f.min_stack)}, "
            f"spill stores {_opt(f.spill_stores)}, spill loads {_opt(f.spill_loads)}"
        )
        if f.max_threads or f.reqntid or f.cluster_dims or f.maxreg is not None:
            parts = []
            if f.max_threads:
                parts.append("max threads {} {} {}".format(*f.max_threads))
            if f.reqntid:
                parts.append("reqntid {} {} {}".format(*f.reqntid))
            if f.cluster_dims:
                parts.append("cluster {} {} {}".format(*f.cluster_dims))
            if f.maxreg is not None:
                parts.append(f"max registers {f.maxreg}")
            out.append("  " + ", ".join(parts))
        if f.param_base is not None or f.params:
            out.append(f"  params at c[0x0][{_opt_hex(f.param_base)}], {_opt(f.param_size)} bytes")
            for p in f.params:
                out.append(f"    param {p.ordinal}: offset {p.offset:#x}, size {p.size}")
        for a in f.attributes:
            out.append(f"  {a.name} {attribute_value_text(a, cubin)}".rstrip())
        for r in f.relocations:
            add = "" if r.addend is None else f" + {r.addend:#x}"
            out.append(f"  reloc {r.offset:#06x} {r.type} {r.symbol}{add}")
    if m.module_attributes:
        out.append("")
        out.append(".nv.info:")
        for _, a in m.module_attributes:
            out.append(f"  {a.name} {attribute_value_text(a, cubin)}".rstrip())
    if m.globals:
        out.append("")
        out.append("globals:")
        for n, s, o, z in m.globals:
            out.append(f"  {n}: {s} + {o:#x}, {z} bytes")
    return "\n".join(out) + "\n"


def _opt_hex(v: int | None) -> str:
    return "?" if v is None else f"{v:#x}"


def cmd_info(argv: Sequence[str]) -> int:
    ap = _ArgParser(prog=f"{TOOL} info", description="Describe a cubin's kernels.")
    ap.add_argument("cubin")
    ap.add_argument("--json", action="store_true", help="print JSON instead of text")
    args = ap.parse_args(argv)
    cubin = read_cubin(_read_file(args.cubin))
    m = summarize(cubin)
    if args.json:
        sys.stdout.write(json.dumps(info_json(cubin, m), indent=1) + "\n")
    else:
        sys.stdout.write(info_text(cubin, m))
    return 0


def cmd_rewrite(argv: Sequence[str]) -> int:
    ap = _ArgParser(prog=f"{TOOL} rewrite", description="Read a cubin into the model, write it.")
    ap.add_argument("cubin")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args(argv)
    data = write_cubin(read_cubin(_read_file(args.cubin)))
    _write_file(args.output, data)
    return 0


def main(argv: Sequence[str]) -> int:
    """Run ``info`` or ``rewrite`` (``argv[0]`` is the subcommand); render errors, never raise."""
    if not argv or argv[0] not in COMMANDS:
        print(f"{TOOL}: expected one of: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    cmd, rest = argv[0], list(argv[1:])
    try:
        return cmd_info(rest) if cmd == "info" else cmd_rewrite(rest)
    except UsageError as exc:
        print(exc.render(TOOL), file=sys.stderr)
        return 2
    except CubinFormatError as exc:
        print(exc.render(TOOL), file=sys.stderr)
        return 1
    except OpenPtxasError as exc:
        print(exc.render(TOOL), file=sys.stderr)
        return 1
    except RecursionError:  # pragma: no cover - defensive: never a traceback
        print(f"{TOOL} error   : input too deeply nested", file=sys.stderr)
        return 1


__all__ = ["COMMANDS", "main"]
