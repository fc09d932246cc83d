"""The ``openptxas-sass`` command: SASS disassembler, assembler and round-trip checker.

::

    openptxas-sass dis FILE.cubin [--kernel K] [--hex] [--control]
    openptxas-sass asm FILE.sass -o FILE.bin [--arch sm_90]
    openptxas-sass roundtrip FILE.cubin [--text] [--quiet]
    openptxas-sass info|rewrite ...          (cubin structure: openptxas.elf.cli)

``dis`` prints every code section in nvdisasm's syntax and layout; ``--hex`` adds each
instruction's two 64-bit words, ``--control`` prefixes its decoded control field
(``[B------:R-:W0:Y:S02]``, see openptxas/isa/control.py). Words the tables do not describe print
as ``UNKNOWN 0x..., 0x... ;`` lines. ``asm`` assembles such text (control prefixes optional; the
default control field is all zero) into raw code: until the cubin writer lands, the output is the
sections' code bytes, concatenated. ``roundtrip`` decodes and re-encodes every instruction and
exits 0 only when all are bit-exact (``--text`` also goes through the printed text).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from openptxas.diag import OpenPtxasError, UsageError
from openptxas.isa.asmparse import parse_instruction
from openptxas.isa.codec import encode
from openptxas.isa.family import Family, load_family
from openptxas.isa.listing import (
    CodeSection,
    DecodedSection,
    Reloc,
    Symbol,
    assemble,
    disassemble,
    format_section,
    instruction_text,
    listing_width,
)
from openptxas.isa.model import Instruction, Unknown
from openptxas.targets import get_target


def disassemble_cubin(data: bytes) -> tuple[Family, list[DecodedSection]]:
    """Decode every code section of a cubin, labels and indirect-branch targets included."""
    from openptxas.elf.consts import SymbolType
    from openptxas.elf.model import InfoSection, RelocTable
    from openptxas.elf.nvinfo import EIATTR, IndirectBranchTargets
    from openptxas.elf.reader import read_cubin

    cub = read_cubin(data)
    fam = load_family(get_target(f"sm_{cub.sm}").family)
    texts = [(i, s) for i, s in cub.find_sections(".text.") if s.has_file_data]
    where = {shndx: k for k, (shndx, _) in enumerate(texts)}
    sections = [CodeSection(s.name[len(".text.") :], s.data()) for _, s in texts]
    symbols = [
        Symbol(where[sym.shndx], sym.value, sym.size, sym.name)
        for sym in cub.symtab.symbols
        if sym.type == SymbolType.FUNC and sym.shndx in where
    ]
    relocs: dict[str, list[Reloc]] = {}
    syms = cub.symtab.symbols
    for sec in cub.sections:
        # (.rel/.rela.text.<f> only: sm_100's .nv.merc.rela.text.<f> belongs to the Mercury
        # image, whose symbols are .nv.merc.symtab's; nvdisasm's listing does not read it)
        if not isinstance(sec.content, RelocTable) or not sec.name.startswith(
            (".rel.text.", ".rela.text.")
        ):
            continue
        owner = sec.name.split(".text.", 1)[1]
        for r in sec.content.relocs:
            sym = syms[r.sym] if 0 <= r.sym < len(syms) else None
            if sym is None:
                continue
            target = None
            if sym.type == SymbolType.FUNC and sym.shndx in where:
                target = (where[sym.shndx], sym.value + (r.addend or 0))
            relocs.setdefault(owner, []).append(
                Reloc(r.offset, r.type, sym.name, r.addend or 0, target)
            )
    targets: dict[str, dict[int, tuple[int, ...]]] = {}
    for _, sec in cub.find_sections(".nv.info."):
        if isinstance(sec.content, InfoSection):
            for attr in sec.content.find(EIATTR.INDIRECT_BRANCH_TARGETS):
                if isinstance(attr.value, IndirectBranchTargets):
                    fn = targets.setdefault(sec.name[len(".nv.info.") :], {})
                    for br in attr.value.branches:
                        fn[br.offset] = br.targets
    return fam, disassemble(sections, symbols, fam, targets, relocs)


def _load(path: str) -> tuple[Family, list[DecodedSection]]:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    return disassemble_cubin(data)


def _cmd_dis(args: argparse.Namespace) -> int:
    fam, sections = _load(args.file)
    out: list[str] = []
    found = False
    width = listing_width(sections, fam, args.exact)
    for sec in sections:
        if args.kernel and sec.name != args.kernel:
            continue
        found = True
        out.append(f"//--------------------- .text.{sec.name:<24} --------------------------")
        out.append(f'\t.section\t.text.{sec.name},"ax",@progbits')
        out.extend(format_section(sec, fam, args.hex, args.control, args.exact, width))
        out.append("")
    if args.kernel and not found:
        raise UsageError(f"no function '{args.kernel}' in {args.file}")
    sys.stdout.write("\n".join(out))
    return 0


def _cmd_asm(args: argparse.Namespace) -> int:
    try:
        text = Path(args.file).read_text()
    except OSError as exc:
        raise UsageError(f"cannot read {args.file}: {exc.strerror}") from None
    fam = load_family(get_target(args.arch).family)
    sections = assemble(text, fam, args.file)
    code = b"".join(s.code for s in sections)
    tmp = Path(args.output + ".tmp")
    tmp.write_bytes(code)
    tmp.replace(args.output)
    return 0


def _cmd_roundtrip(args: argparse.Namespace) -> int:
    fam, sections = _load(args.file)
    total = bad = 0
    for sec in sections:
        for n, item in enumerate(sec.items):
            addr = 16 * n
            total += 1
            original = encode(item, fam, addr)
            problem = ""
            if isinstance(item, Unknown):
                problem = "unknown encoding"
            elif args.text:
                text = instruction_text(item, fam, addr, None, exact=True)
                try:
                    again = parse_instruction(text, fam, addr, control=item.control)
                    if encode(again, fam, addr) != original:
                        problem = f"text {text!r} re-encodes differently"
                except OpenPtxasError as exc:
                    problem = f"text {text!r} does not parse: {exc.message}"
            else:
                assert isinstance(item, Instruction)
                if encode(item, fam, addr) != original:
                    problem = "re-encodes differently"
            if problem:
                bad += 1
                lo, hi = original & (2**64 - 1), original >> 64
                print(f"{sec.name} /*{addr:04x}*/ {lo:#018x} {hi:#018x}: {problem}")
    if not args.quiet:
        print(f"{total} instructions, {total - bad} bit-exact, {bad} mismatches")
    return 0 if bad == 0 else 1


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list and args_list[0] in ("info", "rewrite"):
        from openptxas.elf import cli as elf_cli

        return elf_cli.main(args_list)
    ap = argparse.ArgumentParser(
        prog="openptxas-sass", description="SASS disassembler, assembler and round-trip check"
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("dis", help="disassemble a cubin in nvdisasm's syntax")
    d.add_argument("file")
    d.add_argument("--kernel", help="only this function")
    d.add_argument("--hex", action="store_true", help="show each instruction's 64-bit words")
    d.add_argument("--control", action="store_true", help="prefix the decoded control field")
    d.add_argument(
        "--exact",
        action="store_true",
        help="spell out what nvdisasm's text loses (NaN payloads, .reuse on yielding "
        "instructions), so that asm reproduces the code bit for bit",
    )
    a = sub.add_parser("asm", help="assemble SASS text into raw code")
    a.add_argument("file")
    a.add_argument("-o", "--output", required=True)
    a.add_argument("--arch", default="sm_90")
    r = sub.add_parser("roundtrip", help="decode and re-encode every instruction of a cubin")
    r.add_argument("file")
    r.add_argument("--text", action="store_true", help="re-encode from the printed text")
    r.add_argument("--quiet", action="store_true")
    args = ap.parse_args(args_list)
    try:
        if args.cmd == "dis":
            return _cmd_dis(args)
        if args.cmd == "asm":
            return _cmd_asm(args)
        return _cmd_roundtrip(args)
    except OpenPtxasError as exc:
        print(exc.render("openptxas-sass"), file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
