"""The IR text round trip over whole sets of programs: for every function the compiler produces,
after every phase, print -> read must give the same Function (compared field by field) and
print -> read -> print the same text.

    python scripts/ir_roundtrip.py --kernels all --fuzz 0:500 [--public 500] [-O 3] [--jobs 2]

``--kernels`` takes tiers or glob patterns of tests/kernels ('all', 't1', 't2/*atomic*'); their PTX
comes from the oracle cache (nvcc). ``--public N``: the first N sm_90 PTX files of the public
corpus ($OPENPTXAS_PUBLIC_CORPUS); programs openptxas cannot compile yet are counted, not failed.
Each phase also runs again on the function read back from the text printed before it and must
print the same result (phase replays). Prints one line per failure and the totals; exit status 1
when anything failed. tests/passes/test_ir_roundtrip.py runs the same check on a sample.
"""

from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from openptxas.diag import OpenPtxasError
from openptxas.ir.core import Function
from openptxas.ir.printer import format_function
from openptxas.ir.reader import read_function
from openptxas.options import Options


def ir_difference(a: Function, b: Function) -> str | None:
    """The first difference between two functions (None when equal), ignoring instruction uids."""
    for f in dataclasses.fields(a):
        if f.name in ("blocks", "params"):
            continue
        if getattr(a, f.name) != getattr(b, f.name):
            return f"{f.name}: {getattr(a, f.name)!r} != {getattr(b, f.name)!r}"
    pa = [dataclasses.astuple(p) for p in a.params]
    pb = [dataclasses.astuple(p) for p in b.params]
    if pa != pb:
        return f"params: {pa} != {pb}"
    if [x.name for x in a.blocks] != [x.name for x in b.blocks]:
        return "block names differ"
    for ba, bb in zip(a.blocks, b.blocks, strict=True):
        if len(ba.instrs) != len(bb.instrs):
            return f"{ba.name}: {len(ba.instrs)} != {len(bb.instrs)} instructions"
        for k, (x, y) in enumerate(zip(ba.instrs, bb.instrs, strict=True)):
            for name in ("op", "mods", "dsts", "srcs", "guard", "ctrl", "line", "contract"):
                if getattr(x, name) != getattr(y, name):
                    return f"{ba.name}[{k}] {name}: {getattr(x, name)!r} != {getattr(y, name)!r}"
    return None


def check_function(fn: Function, where: str) -> str | None:
    """print -> read -> compare -> print for one function; a message on failure."""
    text = format_function(fn)
    try:
        back = read_function(text, where)
    except OpenPtxasError as exc:
        return f"{where}: read failed: {exc.render()}"
    diff = ir_difference(fn, back)
    if diff is not None:
        return f"{where}: read back differs: {diff}"
    if format_function(back) != text:
        return f"{where}: printed text differs after reading back"
    return None


@dataclass
class Outcome:
    functions: int = 0  # functions compiled through the phases
    checks: int = 0  # (function, phase) round trips
    replays: int = 0  # phases re-run on read-back IR with the same result
    failures: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # did not compile (with the reason)


def roundtrip_ptx(ptx: str, name: str, options: Options, replay: bool = True) -> Outcome:
    """Compile ``ptx`` phase by phase (as the driver does) and round-trip every function after
    the lowering and after every phase that runs. With ``replay``, each phase also runs on the
    function read back from the text printed before it, and must print the same result: the
    text holds everything a phase needs."""
    from openptxas.driver import _check
    from openptxas.lower import lower_function
    from openptxas.passes.manager import PassContext
    from openptxas.pipeline import pipeline
    from openptxas.ptx.parser import parse
    from openptxas.targets import get_target

    out = Outcome()
    target = get_target(options.arch)
    try:
        module = parse(ptx, name)
        _check(module, options, name)
    except OpenPtxasError as exc:
        out.skipped.append(f"{name}: {exc.message}")
        return out
    for func in module.entries:
        try:
            fn = lower_function(module, func, target)
        except OpenPtxasError as exc:
            out.skipped.append(f"{name}:{func.name}: {exc.message}")
            continue
        except Exception as exc:  # a compiler bug, not a round-trip failure: report it
            out.skipped.append(f"{name}:{func.name}: internal error {type(exc).__name__}: {exc}")
            continue
        if func.maxnreg is not None:
            fn.maxnreg = func.maxnreg
        out.functions += 1
        ctx = PassContext(target, options)
        stages = [("lowered", None)] + [(p.name, p) for p in pipeline()]
        for stage, ph in stages:
            if ph is not None:
                if options.opt_level < ph.min_opt:
                    continue
                before = format_function(fn)
                try:
                    ph.run(fn, ctx)
                except OpenPtxasError as exc:
                    out.skipped.append(f"{name}:{func.name}: {stage}: {exc.message}")
                    break
                except Exception as exc:  # as above
                    out.skipped.append(
                        f"{name}:{func.name}: {stage}: internal error {type(exc).__name__}: {exc}"
                    )
                    break
            out.checks += 1
            where = f"{name}:{func.name}:{stage}"
            msg = check_function(fn, where)
            if msg is not None:
                out.failures.append(msg)
            elif replay and ph is not None:
                try:
                    copy = read_function(before, where)
                    ph.run(copy, PassContext(target, options))
                    again = format_function(copy)
                except Exception as exc:
                    again = f"{type(exc).__name__}: {exc}"
                if again != format_function(fn):
                    out.failures.append(f"{where}: the phase run on the read-back IR differs")
                else:
                    out.replays += 1
    return out


def kernel_ptx(patterns: list[str]) -> Iterator[tuple[str, str, list[str]]]:
    """(name, PTX, ptxas flags) of tests/kernels matching the patterns (tiers or globs)."""
    from openptxas.testing.corpus import discover
    from openptxas.testing.oracle import Oracle

    oracle = Oracle()
    for ks in discover():
        if not any(
            p == "all" or p == ks.tier or fnmatch.fnmatch(ks.name, p) for p in patterns
        ) or not ks.compiles_for("sm_90"):
            continue
        if ks.cu_path.suffix == ".ptx":
            ptx = ks.cu_path.read_text()
        else:
            ptx = oracle.cu_to_ptx(ks.cu_path, "sm_90", ks.nvcc_flags)
        yield ks.name, ptx, ks.ptxas_flags


def public_ptx(limit: int) -> Iterator[tuple[str, str, list[str]]]:
    """(name, PTX, ptxas flags) of the public corpus's sm_90 entries ($OPENPTXAS_PUBLIC_CORPUS)."""
    import json
    import os
    from pathlib import Path

    root = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", ".cache/public-corpus"))
    entries = json.loads((root / "manifest.json").read_text())["entries"]
    n = 0
    for e in entries:
        if e.get("status") != "ok" or e.get("target") != "sm_90" or "ptx" not in e:
            continue
        if n == limit:
            break
        n += 1
        flags = [f for f in e.get("ptxas_flags", []) if not f.startswith("-arch")]
        yield e["id"], (root / e["ptx"]).read_text(), flags


def fuzz_ptx(seeds: range) -> Iterator[tuple[str, str, list[str]]]:
    from openptxas.testing.difffuzz import generate, render

    for s in seeds:
        yield f"fuzz{s}", render(generate(s)), []


def _job(args: tuple[str, str, list[str], int]) -> Outcome:
    from openptxas.options import parse_args

    name, ptx, flags, opt = args
    options = parse_args([*flags, "-arch=sm_90", f"-O{opt}", "x.ptx"]).options
    try:
        return roundtrip_ptx(ptx, name, dataclasses.replace(options, verify=True))
    except Exception as exc:  # report and go on: one broken program must not stop a sweep
        return Outcome(failures=[f"{name}: {type(exc).__name__}: {exc}"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kernels", nargs="*", default=["all"], help="tiers or globs ('all')")
    ap.add_argument("--fuzz", default="0:200", help="difffuzz seeds A:B ('' for none)")
    ap.add_argument("--public", type=int, default=0, help="this many public-corpus PTX files")
    ap.add_argument("-O", dest="opt", type=int, action="append", help="opt levels (3 and 0)")
    ap.add_argument("--jobs", type=int, default=1)
    a = ap.parse_args(argv)
    opts = a.opt or [3, 0]
    progs = list(kernel_ptx(a.kernels)) if a.kernels else []
    if a.public:
        progs += list(public_ptx(a.public))
    if a.fuzz:
        lo, hi = (int(x) for x in a.fuzz.split(":"))
        progs += list(fuzz_ptx(range(lo, hi)))
    jobs = [(n, p, f, o) for n, p, f in progs for o in opts]
    total = Outcome()
    with ProcessPoolExecutor(max_workers=a.jobs) as ex:
        for r in ex.map(_job, jobs, chunksize=4):
            total.functions += r.functions
            total.checks += r.checks
            total.replays += r.replays
            total.failures += r.failures
            total.skipped += r.skipped
            for m in r.failures:
                print("FAIL", m, flush=True)
    for m in total.skipped:
        print("skipped", m)
    print(
        f"programs {len(progs)} x opt levels {opts}: functions {total.functions}, "
        f"(function, phase) round trips {total.checks}, phase replays {total.replays}, "
        f"failures {len(total.failures)}, "
        f"not compiled {len(total.skipped)}"
    )
    return 1 if total.failures else 0


if __name__ == "__main__":
    sys.exit(main())
