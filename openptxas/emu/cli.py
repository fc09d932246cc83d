"""The ``openptxas-emu`` command: run a kernel from a cubin in the SASS emulator.

    openptxas-emu run FILE.cubin --spec S.json [--kernel NAME] [--in IN.npz] [--out OUT.npz]
                      [--hazards] [--trace] [--stats]
    openptxas-emu check FILE.cubin [--kernel NAME]

``check`` runs the hazard checker statically, on every path of every kernel (no launch spec);
it prints each report to stderr in the format of ``run --hazards``.

stdout carries the kernel's device ``printf`` output (thread by thread in launch order) and
nothing else unless ``--trace`` or ``--stats`` asks for more; diagnostics go to stderr. The exit
status is 0 on success, 1 when the kernel faults, a hazard is found (``--hazards``) or the input is
wrong, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from openptxas.diag import OpenPtxasError
from openptxas.emu.program import Decoder

TOOL = "openptxas-emu"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # usage errors: exit status 2, no traceback
        self.print_usage(sys.stderr)
        print(f"{TOOL}: error: {message}", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    ap = _Parser(prog=TOOL, description="Run a kernel of a cubin in the SASS emulator.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run one kernel launch")
    r.add_argument("cubin", help="the cubin (ELF) file")
    r.add_argument("--spec", required=True, help="launch spec (JSON; docs/launch-spec.md)")
    r.add_argument("--kernel", help="the kernel to launch when the spec holds several")
    r.add_argument("--in", dest="inp", help=".npz with initial contents, keyed arg<i>")
    r.add_argument("--out", help="write every buffer argument after the run to this .npz")
    r.add_argument("--hazards", action="store_true", help="check the control codes")
    r.add_argument("--trace", action="store_true", help="print every executed instruction")
    r.add_argument("--stats", action="store_true", help="print executed instructions per opcode")
    c = sub.add_parser("check", help="check the control codes on every path (no launch)")
    c.add_argument("cubin", help="the cubin (ELF) file")
    c.add_argument("--kernel", help="only this kernel")
    return ap


def _check(module: Any, kernel: str | None) -> int:
    from openptxas.emu.hazards import latency_for
    from openptxas.emu.static_hazards import StaticChecker

    ck = StaticChecker(latency_for(module.sm))
    names = [kernel] if kernel else sorted(module.kernels)
    found = undecoded = 0
    for name in names:
        res = ck.check_kernel(module, module.kernel(name))
        if res.undecoded:
            undecoded += res.undecoded
            print(
                f"{TOOL} warning : {name}: {res.undecoded} undecodable word(s), not checked",
                file=sys.stderr,
            )
        for h in res.reports:
            print(f"{TOOL} hazard  : {name}: {h}", file=sys.stderr)
        found += len(res.reports)
    if found:
        print(f"{TOOL} error   : {found} hazard(s) found", file=sys.stderr)
        return 1
    return 1 if undecoded else 0


def _write_npz(path: str, arrays: dict[str, np.ndarray[Any, Any]]) -> None:
    """Write atomically: a complete file or none."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=".emu-", suffix=".npz", dir=target.parent or Path("."))
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **arrays)  # type: ignore[arg-type]
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _load_inputs(path: str) -> dict[str, np.ndarray[Any, Any]]:
    from openptxas.spec import SpecError

    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except OSError as exc:
        raise SpecError(f"cannot read --in file '{path}': {exc}") from None
    except ValueError as exc:
        raise SpecError(f"--in file '{path}' is not a valid .npz: {exc}") from None


def main(argv: Sequence[str] | None = None, decoder: Decoder | None = None) -> int:
    """Entry point; ``decoder`` replaces the ISA-table decoder (tests)."""
    args = _parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    from openptxas.emu.launch import launch
    from openptxas.emu.program import load_module

    try:
        try:
            blob = Path(args.cubin).read_bytes()
        except OSError as exc:
            raise OpenPtxasError(f"cannot read '{args.cubin}': {exc.strerror}") from None
        try:
            module = load_module(blob, decoder, relocatable=args.cmd == "check")
        except OpenPtxasError as exc:
            raise OpenPtxasError(f"'{args.cubin}': {exc.message}") from None
        if args.cmd == "check":
            if module.decoder is None:
                from openptxas.emu.launch import default_decoder

                module.decoder = default_decoder(module.sm)
            return _check(module, args.kernel)
        inputs = _load_inputs(args.inp) if args.inp else None
        trace = io.StringIO() if args.trace else None
        res = launch(
            module,
            args.spec,
            kernel=args.kernel,
            inputs=inputs,
            hazards=args.hazards,
            trace=trace,
            decoder=decoder,
        )
    except OpenPtxasError as exc:
        print(exc.render(TOOL), file=sys.stderr)
        return 1
    except (MemoryError, RecursionError, ValueError, TypeError, IndexError, KeyError) as exc:
        print(
            f"{TOOL} fatal   : internal error ({type(exc).__name__}: {exc}); please report it "
            f"with: {TOOL} {args.cmd} {args.cubin}"
            + (f" --spec {args.spec}" if args.cmd == "run" else ""),
            file=sys.stderr,
        )
        return 3
    out = sys.stdout
    if trace is not None:
        out.write(trace.getvalue())
    out.write(res.printf)
    if args.stats:
        total = res.warp_instructions
        print(f"# executed warp-instructions per opcode ({res.spec.kernel})", file=out)
        for op, n in sorted(res.opcode_counts.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"{op:16s} {n:12d}", file=out)
        rate = total / res.run_seconds if res.run_seconds > 0 else 0.0
        print(
            f"{'total':16s} {total:12d}  (run {res.run_seconds:.3f} s, {rate:,.0f}/s; "
            f"{res.seconds:.3f} s with loading and decoding; {res.cycles:.1f} issue cycles "
            "per warp)",
            file=out,
        )
    if args.out:
        try:
            _write_npz(args.out, res.npz_dict())
        except OSError as exc:
            print(f"{TOOL} error   : cannot write '{args.out}': {exc.strerror}", file=sys.stderr)
            return 1
    if res.hazards:
        for h in res.hazards:
            print(f"{TOOL} hazard  : {h}", file=sys.stderr)
        print(f"{TOOL} error   : {len(res.hazards)} hazard(s) found", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
