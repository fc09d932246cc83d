#!/usr/bin/env python3
"""Coverage of the sm_90 table: opcodes and census-style forms of the observed ptxas output.

A *form* is the census's (../shared/notes/sass-census.md): the mnemonic with its modifiers and
the kinds of the printed operands (R, UR, P, UP, SR, B, SB, imm, c[], label, address shapes such
as ``desc[UR][R+imm]``), operand modifiers and guard dropped.

    python scripts/isa_coverage.py [--markdown] [--missing]

Reads scripts/isa_data/sm90_observed.tsv.gz (every distinct word ptxas emitted for the corpus and
the probe programs, with its count) and decodes it with the committed table; reports distinct
opcodes and forms, the instructions decoded, re-encoded bit-exactly and printed as nvdisasm
prints them, and which of the census's 150 most frequent forms the observations reach.
"""

from __future__ import annotations

import argparse
import gzip
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from openptxas.isa.codec import decode_word, encode  # noqa: E402
from openptxas.isa.family import load_family  # noqa: E402
from openptxas.isa.model import Unknown  # noqa: E402
from openptxas.isa.printer import find_form, format_instruction, text_signature  # noqa: E402

DATA = REPO / "scripts" / "isa_data"


def observed(family: str) -> list[tuple[int, int, str]]:
    out = []
    for line in (
        gzip.decompress((DATA / f"{family}_observed.tsv.gz").read_bytes()).decode().splitlines()
    ):
        if line.startswith("#") or not line.strip():
            continue
        w, c, t = line.split("\t")
        out.append((int(w, 16), int(c), t))
    return out


def census_top(n: int = 150) -> list[tuple[str, int]]:
    rows = []
    for line in (DATA / "census_top150.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        form, count = line.split("\t")
        rows.append((form, int(count)))
    return rows[:n]


def census_opcodes() -> dict[str, int]:
    out = {}
    for line in (DATA / "census_opcodes.txt").read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        op, count = line.split("\t")
        out[op] = int(count)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--family", default="sm90")
    ap.add_argument("--missing", action="store_true", help="list census forms not reached")
    ap.add_argument("--forms", action="store_true", help="list every form with its count")
    args = ap.parse_args(argv)
    fam = load_family(args.family)
    forms: Counter[str] = Counter()
    opcodes: Counter[str] = Counter()
    total = decoded = exact = same_text = 0
    for word, count, text in observed(args.family):
        total += count
        ins = decode_word(word, fam, 0)
        if isinstance(ins, Unknown):
            continue
        decoded += count
        if encode(ins, fam, 0) == word:
            exact += count
        if format_instruction(ins, fam, 0) == text:
            same_text += count
        sig = text_signature(find_form(ins, fam, 0), ins)
        forms[sig] += count
        opcodes[ins.opcode] += count
    top = census_top()
    reached = [f for f, _ in top if f in forms]
    cens = census_opcodes()
    all_forms = fam.all_forms()
    derived = [f for f in all_forms if f.derived]
    table_ops = {f.opcode for f in all_forms}
    ptxas_ops = {f.opcode for f in all_forms if not f.derived}
    print(f"instructions observed: {total} ({len(observed(args.family))} distinct words)")
    print(f"decoded: {decoded} ({100 * decoded / total:.2f}%)")
    print(f"re-encoded bit-exactly: {exact} ({100 * exact / total:.2f}%)")
    print(f"text identical to nvdisasm: {same_text} ({100 * same_text / total:.2f}%)")
    print(f"distinct opcodes observed: {len(opcodes)}; distinct forms observed: {len(forms)}")
    print(
        f"table rows (encoding classes): {len(all_forms)}: {len(all_forms) - len(derived)} from"
        f" ptxas's words, {len(derived)} derived (nvdisasm only); opcodes {len(table_ops)}"
    )
    print(
        f"census sm_90 opcodes: {len(cens)}; observed (ptxas) {len(set(cens) & set(opcodes))},"
        f" in the table {len(set(cens) & table_ops)}"
        f" (from ptxas's words {len(set(cens) & ptxas_ops)})"
    )
    print(f"census top-150 forms reached: {len(reached)} of {len(top)}")
    if args.missing:
        for f, c in top:
            if f not in forms:
                print(f"  missing: {f}  ({c} in the census)")
        for op, c in cens.items():
            if op not in opcodes:
                where = "derived form only" if op in table_ops else "not in the table"
                print(f"  census opcode not observed: {op} ({c} in the census; {where})")
    if args.forms:
        for f, c in sorted(forms.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"  {c:6d}  {f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
