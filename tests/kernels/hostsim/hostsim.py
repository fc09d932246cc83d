"""hostsim: check the corpus's numpy references by running the CUDA kernels on the CPU.

Each kernel file is rewritten lightly (``extern __shared__`` arrays, single-instruction inline
``asm``), prefixed with ``shim.h`` (CUDA device semantics by hand: see its header) and built with
g++ under AddressSanitizer and UndefinedBehaviorSanitizer (signed overflow, shifts out of range,
float to int overflow, division by zero are all errors). Every launch spec then runs with one OS
thread per CUDA thread and its outputs are compared with the reference exactly as the emulator's
will be (``openptxas.testing.corpus.compare_outputs``).

This is an independent second opinion on the references, not a GPU: float arithmetic is IEEE
without contraction (the corpus pins its float operations with ``__fmaf_rn``/``__fmul_rn``/...), and
warp operations need every live lane of the warp to take part.

Usage (from the repository root)::

    python tests/kernels/hostsim/hostsim.py [GLOB ...]      # e.g. 't1/*' 't2/intdiv_*'
"""

from __future__ import annotations

import argparse
import ctypes
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
SHIM = HERE / "shim.h"
BUILD = ROOT / ".cache" / "hostsim"

CXXFLAGS = [
    "-std=c++20",
    "-O1",
    "-g",
    "-fPIC",
    "-shared",
    "-pthread",
    "-ffp-contract=off",
    "-fno-strict-aliasing",
    "-fsanitize=address,undefined,float-cast-overflow,float-divide-by-zero",
    "-fno-sanitize-recover=all",
    "-Wall",
    "-Wno-unknown-pragmas",
    "-Wno-unused-variable",
    "-Wno-unused-function",
]


class HostsimError(Exception):
    pass


# ------------------------------------------------------------------------------------------------
# Source rewriting

_EXTERN_SHARED = re.compile(r"extern\s+__shared__\s+([^;\[\]{}]*?)\s*\b(\w+)\s*\[\s*\]\s*;")
_ALIGN = re.compile(r"__align__\s*\(\s*\d+\s*\)")


def _rewrite_extern_shared(src: str) -> str:
    def repl(m: re.Match[str]) -> str:
        ty = " ".join(_ALIGN.sub(" ", m.group(1)).split())
        name = m.group(2)
        return f"\n#undef {name}\n#define {name} (reinterpret_cast<{ty}*>(__hs_dyn_smem))\n"

    return _EXTERN_SHARED.sub(repl, src)


def _match_paren(s: str, i: int) -> int:
    """Index of the ')' matching the '(' at s[i], skipping string literals."""
    depth = 0
    j = i
    while j < len(s):
        c = s[j]
        if c == '"':
            j += 1
            while s[j] != '"':
                j += 2 if s[j] == "\\" else 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise HostsimError("unbalanced parentheses in asm statement")


def _split_top(s: str, sep: str) -> list[str]:
    out, depth, cur, j = [], 0, [], 0
    while j < len(s):
        c = s[j]
        if c == '"':
            k = j + 1
            while s[k] != '"':
                k += 2 if s[k] == "\\" else 1
            cur.append(s[j : k + 1])
            j = k + 1
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        if c == sep and depth == 0:
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        j += 1
    out.append("".join(cur))
    return out


_OPERAND = re.compile(r'^\s*"([^"]*)"\s*\((.*)\)\s*$', re.S)


def _asm_to_call(body: str) -> str:
    parts = _split_top(body, ":")
    template = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', parts[0]))
    template = template.replace("\\n", " ").replace("\\t", " ").strip()
    outs = [o for o in _split_top(parts[1], ",") if o.strip()] if len(parts) > 1 else []
    ins = [o for o in _split_top(parts[2], ",") if o.strip()] if len(parts) > 2 else []
    ops: list[tuple[str, str]] = []
    for o in [*outs, *ins]:
        m = _OPERAND.match(o)
        if not m:
            raise HostsimError(f"cannot parse asm operand {o!r}")
        ops.append((m.group(1), m.group(2).strip()))
    if not template:
        return "std::atomic_signal_fence(std::memory_order_seq_cst);"
    insns = [t.strip() for t in template.split(";") if t.strip()]
    if len(insns) != 1 or "{" in template:
        raise HostsimError(f"hostsim handles single-instruction asm only: {template!r}")
    m = re.match(r"^([\w.]+)\s+(.*)$", insns[0])
    if not m:
        raise HostsimError(f"cannot parse asm instruction {insns[0]!r}")
    opcode, operand_text = m.group(1), m.group(2)
    operands = [x.strip() for x in operand_text.split(",")]
    if len(outs) != 1 or operands[0] != "%0" or not ops[0][0].startswith("="):
        raise HostsimError(f"asm must have exactly one output operand %0: {template!r}")
    name = "ptx_" + opcode.replace(".", "_")
    args: list[str] = []
    for x in operands[1:]:
        if x.startswith("%%"):
            name += "_" + x[2:]
        elif re.fullmatch(r"%\d+", x):
            args.append(f"({ops[int(x[1:])][1]})")
        elif re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|\d+)", x):
            args.append(f"{x}u" if not x.startswith("-") else x)
        else:
            raise HostsimError(f"unsupported asm operand {x!r} in {template!r}")
    return f"({ops[0][1]}) = {name}({', '.join(args)});"


_ASM = re.compile(r"\b(?:asm|__asm__)\s*(?:volatile\s*|__volatile__\s*)?\(")


def _rewrite_asm(src: str) -> str:
    out: list[str] = []
    pos = 0
    while m := _ASM.search(src, pos):
        open_i = m.end() - 1
        close_i = _match_paren(src, open_i)
        semi = src.index(";", close_i)
        out.append(src[pos : m.start()])
        out.append(_asm_to_call(src[open_i + 1 : close_i]))
        pos = semi + 1
    out.append(src[pos:])
    return "".join(out)


def rewrite(src: str) -> str:
    return _rewrite_asm(_rewrite_extern_shared(src))


# ------------------------------------------------------------------------------------------------
# Build


_CTYPES = {
    "int8": "signed char",
    "uint8": "unsigned char",
    "int16": "short",
    "uint16": "unsigned short",
    "int32": "int",
    "uint32": "unsigned",
    "int64": "long long",
    "uint64": "unsigned long long",
    "float32": "float",
    "float64": "double",
}


def launchers(specs) -> str:  # type: ignore[no-untyped-def]
    """One C++ launcher per launch spec: `hs_launch_<k>(void** argv, size_t dyn_smem)`. The kernel
    is reached through its (possibly mangled) symbol with a declaration built from the spec."""
    out = ["\n// ---- launchers generated by hostsim.py from the launch specs ----"]
    for k, spec in enumerate(specs):
        params, unpack, names = [], [], []
        for i, a in enumerate(spec.args):
            ty = "void*" if a.kind == "buffer" else _CTYPES.get(a.np_dtype.name, "")
            if not ty:
                raise HostsimError(f"{spec.kernel}: scalar dtype {a.dtype} is not supported")
            params.append(ty)
            unpack.append(f"    {ty} a{i} = *static_cast<{ty}*>(argv[{i}]);")
            names.append(f"a{i}")
        out.append(f'void hs_kernel_{k}({", ".join(params)}) __asm__("{spec.kernel}");')
        out.append(
            f'extern "C" __attribute__((visibility("default"))) void hs_launch_{k}('
            "void** argv, size_t dyn_smem) {"
        )
        out.extend(unpack)
        out.append(f"    __hs_run_grid(dyn_smem, [&] {{ hs_kernel_{k}({', '.join(names)}); }});")
        out.append("}")
    return "\n".join(out) + "\n"


def standin(cu: Path) -> Path | None:
    """A C++ stand-in for a kernel file whose source hostsim cannot take as is (multi-instruction
    inline PTX): ``standins/<tier>_<stem>.cu``, same kernels and semantics, reviewed by hand."""
    p = HERE / "standins" / f"{cu.parent.name}_{cu.stem}.cu"
    return p if p.exists() else None


def build(cu: Path) -> Path:
    sys.path.insert(0, str(ROOT))
    from openptxas.testing.corpus import load_kernel

    src = (standin(cu) or cu).read_text()
    text = f'#include "{SHIM}"\n#line 1 "{cu}"\n' + rewrite(src) + launchers(load_kernel(cu).specs)
    h = hashlib.sha256()
    for blob in (SHIM.read_bytes(), text.encode(), json.dumps(CXXFLAGS).encode()):
        h.update(blob)
    key = h.hexdigest()[:24]
    so = BUILD / f"{cu.parent.name}_{cu.stem}_{key}.so"
    if so.exists():
        return so
    BUILD.mkdir(parents=True, exist_ok=True)
    cpp = so.with_suffix(".cpp")
    cpp.write_text(text)
    cmd = ["g++", *CXXFLAGS, str(cpp), "-o", str(so) + ".tmp"]
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise HostsimError(f"g++ failed for {cu}:\n{p.stderr}")
    os.replace(str(so) + ".tmp", so)
    return so


# ------------------------------------------------------------------------------------------------
# Run (in a child process: sanitizer reports abort it)


def _ctype(dt: object) -> type:
    import numpy as np

    d = np.dtype(dt)  # type: ignore[call-overload]
    table = {
        "int8": ctypes.c_int8,
        "uint8": ctypes.c_uint8,
        "int16": ctypes.c_int16,
        "uint16": ctypes.c_uint16,
        "int32": ctypes.c_int32,
        "uint32": ctypes.c_uint32,
        "int64": ctypes.c_int64,
        "uint64": ctypes.c_uint64,
        "float32": ctypes.c_float,
        "float64": ctypes.c_double,
    }
    return table[d.name]


def _reseeded(spec, reseed: int):  # type: ignore[no-untyped-def]
    """The spec with every random argument drawn from another seed (to shake out references and
    kernels that only work for the committed inputs)."""
    import dataclasses

    args = tuple(
        dataclasses.replace(a, seed=a.seed + 7919 * reseed) if a.init == "random" else a
        for a in spec.args
    )
    return dataclasses.replace(spec, args=args)


def run_child(cu: Path, so: Path, reseed: int = 0) -> list[dict[str, object]]:
    import numpy as np

    sys.path.insert(0, str(ROOT))
    from openptxas.spec import materialize
    from openptxas.testing.corpus import compare_outputs, load_kernel

    ks = load_kernel(cu)
    if reseed:
        ks.specs = [_reseeded(s, reseed) for s in ks.specs]
    lib = ctypes.CDLL(str(so))
    lib.hs_alloc.restype = ctypes.c_void_p
    lib.hs_alloc.argtypes = [ctypes.c_size_t]
    lib.hs_free.argtypes = [ctypes.c_void_p]
    lib.hs_begin_launch.argtypes = [ctypes.c_uint] * 6 + [ctypes.c_size_t]
    results: list[dict[str, object]] = []
    for k, spec in enumerate(ks.specs):
        vals = materialize(spec)
        want = ks.reference(spec)([v.copy() for v in vals], spec)
        ptrs: dict[int, int] = {}
        cargs: list[ctypes._SimpleCData] = []  # type: ignore[type-arg]
        for i, (a, v) in enumerate(zip(spec.args, vals, strict=True)):
            if a.kind == "buffer":
                p = lib.hs_alloc(max(v.nbytes, 0))
                ctypes.memmove(p, v.ctypes.data, v.nbytes)
                ptrs[i] = p
                cargs.append(ctypes.c_void_p(p))
            else:
                cargs.append(_ctype(v.dtype)(v[0].item()))
        gx, gy, gz = spec.grid
        bx, by, bz = spec.block
        argv = (ctypes.c_void_p * len(cargs))(
            *[ctypes.cast(ctypes.pointer(c), ctypes.c_void_p) for c in cargs]
        )
        lib.hs_begin_launch(gx, gy, gz, bx, by, bz, spec.shared_bytes)
        launch = lib[f"hs_launch_{k}"]
        launch.restype = None
        launch.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        launch(argv, spec.shared_bytes)
        lib.hs_end_launch()
        got: dict[int, np.ndarray] = {}
        for i, a in enumerate(spec.args):
            if a.kind == "buffer" and a.role in ("out", "inout"):
                arr = np.empty_like(vals[i])
                ctypes.memmove(arr.ctypes.data, ptrs[i], arr.nbytes)
                got[i] = arr
        for p in ptrs.values():
            lib.hs_free(p)
        missing = sorted(
            i for i, a in enumerate(spec.args) if a.role in ("out", "inout") and i not in want
        )
        problems = compare_outputs(spec, got, want)
        problems += [f"arg{i}: the reference returns nothing for it" for i in missing]
        results.append({"kernel": spec.kernel, "problems": problems})
    return results


@dataclass
class Outcome:
    name: str
    ok: bool
    detail: str


def check(cu: Path, timeout: float = 300.0, reseed: int = 0) -> Outcome:
    name = f"{cu.parent.name}/{cu.stem}"
    try:
        so = build(cu)
    except HostsimError as exc:
        return Outcome(name, False, str(exc))
    env = dict(os.environ)
    libasan = subprocess.run(
        ["g++", "-print-file-name=libasan.so"], capture_output=True, text=True, check=True
    ).stdout.strip()
    env["LD_PRELOAD"] = libasan
    env["ASAN_OPTIONS"] = "detect_leaks=0:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1"
    try:
        p = subprocess.run(
            [sys.executable, __file__, "--child", str(cu), str(so), "--reseed", str(reseed)],
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Outcome(name, False, f"timed out after {timeout:.0f} s (deadlock?)")
    if p.returncode != 0:
        return Outcome(name, False, (p.stderr or p.stdout)[-4000:])
    results = json.loads(p.stdout.strip().splitlines()[-1])
    bad = [f"{r['kernel']}: {'; '.join(r['problems'])}" for r in results if r["problems"]]
    if bad:
        return Outcome(name, False, "\n".join(bad))
    via = " (hostsim stand-in source)" if standin(cu) else ""
    return Outcome(name, True, f"{len(results)} launch(es) match{via}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("globs", nargs="*", default=["t1/*"])
    ap.add_argument("--child", nargs=2, metavar=("CU", "SO"), help=argparse.SUPPRESS)
    ap.add_argument(
        "--reseed",
        type=int,
        default=0,
        help="draw random inputs from other seeds (robustness check; the committed seeds are 0)",
    )
    ns = ap.parse_args(argv)
    if ns.child:
        res = run_child(Path(ns.child[0]), Path(ns.child[1]), ns.reseed)
        print(json.dumps(res))
        return 0
    kroot = ROOT / "tests" / "kernels"
    files = sorted(
        cu
        for cu in kroot.glob("t*/*.cu")
        if any(fnmatch.fnmatch(f"{cu.parent.name}/{cu.stem}", g) for g in ns.globs)
    )
    failures = 0
    for cu in files:
        o = check(cu, reseed=ns.reseed)
        print(f"{'ok  ' if o.ok else 'FAIL'} {o.name}: {o.detail}", flush=True)
        failures += not o.ok
    print(f"{len(files) - failures} of {len(files)} kernel files match their references")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
