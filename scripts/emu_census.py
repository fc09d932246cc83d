"""Emulator census: does every opcode and form ptxas emits for sm_90/sm_90a bind in the emulator?

Lists every instruction of ptxas's cubins (the tests/kernels corpus built by the oracle harness
for sm_90 and sm_90a and, when it exists, the public corpus of
``openptxas.testing.public_corpus``), grouped by opcode, by *opmod* (opcode with its dot
modifiers) and by *form* (opmod plus the kinds of its operands), and binds each instruction in
the emulator without executing it (``openptxas.emu.launch.bind_all``). A word the ISA tables do
not decode is counted apart (a gap of the tables, not of the emulator).

    python scripts/emu_census.py [--corpus kernels,public] [--json OUT] [--show N]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from openptxas.emu.decode import UNDECODED  # noqa: E402
from openptxas.emu.launch import bind_all  # noqa: E402
from openptxas.emu.model import CBank, GDesc, Imm, Instruction, Label, Mem, Reg, SReg  # noqa: E402

TARGETS = ("sm_90", "sm_90a")


def kernel_cubins() -> Iterator[tuple[str, bytes]]:
    from openptxas.testing.corpus import discover
    from openptxas.testing.oracle import Oracle, OracleError

    o = Oracle()
    for ks in discover():
        for tgt in TARGETS:
            if not ks.compiles_for(tgt):
                continue
            try:
                ptx = o.cu_to_ptx(ks.cu_path, tgt, ks.nvcc_flags, subject=ks.name)
                res = o.ptxas(ptx, tgt, ks.ptxas_flags, subject=f"{ks.name} [{tgt}]")
            except OracleError as exc:
                print(f"skip {ks.name} [{tgt}]: {exc.tool} failed", file=sys.stderr)
                continue
            yield f"kernels:{ks.name}[{tgt}]", res.cubin


def public_cubins() -> Iterator[tuple[str, bytes]]:
    try:
        from openptxas.testing import public_corpus  # type: ignore[attr-defined,unused-ignore]
    except ImportError:
        print("no public corpus module (openptxas.testing.public_corpus)", file=sys.stderr)
        return
    for tgt in TARGETS:
        try:
            for entry, blob in public_corpus.iter_cubins(tgt):
                yield f"public:{entry.get('repo')}:{entry.get('source')}[{tgt}]", blob
        except FileNotFoundError as exc:
            print(f"no public corpus: {exc}", file=sys.stderr)
            return


def operand_kind(o: object) -> str:
    if isinstance(o, Reg):
        return "PT" if o.is_pred and o.is_zero else (o.file.value + ("Z" if o.is_zero else ""))
    if isinstance(o, Imm):
        return "imm"
    if isinstance(o, CBank):
        return "c[]" if o.reg is None or o.reg.is_zero else "c[R]"
    if isinstance(o, Mem):
        parts = ("desc" if o.desc else "", "R" if o.base else "", "UR" if o.ubase else "")
        return "[" + "+".join(p for p in parts if p) + "]"
    if isinstance(o, Label):
        return "label"
    if isinstance(o, SReg):
        return "SR"
    if isinstance(o, GDesc):
        return "gdesc"
    return type(o).__name__


def opmod(ins: Instruction) -> str:
    return ".".join((ins.opcode, *ins.mods))


def form(ins: Instruction) -> str:
    return opmod(ins) + " " + ",".join(operand_kind(o) for o in ins.operands)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="kernels,public")
    ap.add_argument("--json", type=Path)
    ap.add_argument("--show", type=int, default=50, help="failing forms to list")
    args = ap.parse_args(argv)
    sources = {"kernels": kernel_cubins, "public": public_cubins}
    counts: dict[str, Counter[str]] = {k: Counter() for k in ("opcode", "opmod", "form")}
    failed: dict[str, Counter[str]] = {k: Counter() for k in ("opcode", "opmod", "form")}
    undecoded = 0
    reasons: dict[str, str] = {}
    where: dict[str, str] = {}
    per_source: dict[str, int] = defaultdict(int)
    ncubins = 0
    for src in args.corpus.split(","):
        for name, blob in sources[src]():
            ncubins += 1
            try:
                allins, fails = bind_all(blob)
            except Exception as exc:  # an unreadable cubin is reported, not fatal to the census
                print(f"{name}: cannot load: {exc}", file=sys.stderr)
                continue
            per_source[src] += len(allins)
            bad = {(f.kernel, f.pc): f for f in fails}
            for kname, pc, ins in allins:
                if ins.opcode == UNDECODED:
                    undecoded += 1
                    continue
                keys = {"opcode": ins.opcode, "opmod": opmod(ins), "form": form(ins)}
                for k, v in keys.items():
                    counts[k][v] += 1
                f = bad.get((kname, pc))
                if f is not None:
                    for k, v in keys.items():
                        failed[k][v] += 1
                    reasons.setdefault(keys["form"], f.reason)
                    where.setdefault(keys["form"], f"{name} {kname} {pc:#x}: {f.text}")
    print(f"cubins {ncubins}, instructions {sum(per_source.values())} {dict(per_source)}")
    print(f"undecoded words (ISA tables): {undecoded}")
    for k in ("opcode", "opmod", "form"):
        total = len(counts[k])
        print(f"{k}s: {total - len(failed[k])} / {total} bind")
    for fm, n in failed["form"].most_common(args.show):
        print(f"  {n:6d}  {fm}\n          {where[fm]}\n          {reasons[fm]}")
    if args.json:
        doc = {
            "cubins": ncubins,
            "instructions": dict(per_source),
            "undecoded": undecoded,
            **{f"{k}s": {"total": len(counts[k]), "failing": dict(failed[k])} for k in counts},
        }
        args.json.write_text(json.dumps(doc, indent=1, sort_keys=True))
    return 1 if failed["form"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
