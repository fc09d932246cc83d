#!/usr/bin/env python3
"""Coverage of the sm_90 table: opcodes and census-style forms of the observed ptxas output.

A *form* is the census's (../shared/notes/sass-census.md): the mnemonic with its modifiers and
the kinds of the printed operands (R, UR, P, UP, SR, B, SB, imm, c[], label, address shapes such
as ``desc[UR][R+imm]``), operand modifiers and guard dropped.

    python scripts/isa_coverage.py [--markdown] [--missing]
    python scripts/isa_coverage.py --public [--jobs 2] [--show 30] [--dump FILE]
    python scripts/isa_coverage.py --public --family sm80 [--targets sm_80,sm_86] [--root DIR]

Reads scripts/isa_data/sm90_observed.tsv.gz (every distinct word ptxas emitted for the corpus and
the probe programs, with its count) and decodes it with the committed table; reports distinct
opcodes and forms, the instructions decoded, re-encoded bit-exactly and printed as nvdisasm
prints them, and which of the census's 150 most frequent forms the observations reach.

``--public``: the same figures over the public reference corpus (issue 15): every built,
non-duplicate sm_90/sm_90a cubin listed in ``manifest.json`` of ``$OPENPTXAS_PUBLIC_CORPUS``
(default ``.cache/public-corpus``; ``scripts/public_corpus.py build`` makes it). Each cubin is
decoded with the committed table, listed as ``openptxas-sass dis`` lists it and re-encoded, and
compared with ``nvdisasm -hex -c`` (through the oracle cache): instructions decoded, re-encoded
bit-exactly, listed identically; the failures grouped by opcode (``--show`` of them with an
example), and with ``--dump`` every distinct failing word with nvdisasm's text. For another family
(``--family sm80``) the corpus is the public corpus rebuilt for its targets by
``scripts/corpus_retarget.py`` (``$OPENPTXAS_RETARGET_CORPUS``, default
``.cache/public-corpus-retarget``); each cubin is decoded with its target's family.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
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


def public_root() -> Path:
    env = os.environ.get("OPENPTXAS_PUBLIC_CORPUS")
    return Path(env) if env else REPO / ".cache" / "public-corpus"


# the targets of each family's public corpus (sm90: the public corpus itself; others: rebuilt
# from its sm_90 PTX by scripts/corpus_retarget.py)
FAMILY_TARGETS = {
    "sm90": ("sm_90", "sm_90a"),
    "sm80": ("sm_80", "sm_86"),
    "sm89": ("sm_89",),
    "sm75": ("sm_75",),
    "sm100": ("sm_100",),
    "sm120": ("sm_120",),
}


def retarget_root() -> Path:
    env = os.environ.get("OPENPTXAS_RETARGET_CORPUS")
    return Path(env) if env else REPO / ".cache" / "public-corpus-retarget"


def public_cubins(
    root: Path, targets: tuple[str, ...] = ("sm_90", "sm_90a")
) -> list[tuple[str, Path]]:
    """(entry id, cubin path) of every built, non-duplicate manifest entry of ``targets``."""
    manifest = json.loads((root / "manifest.json").read_text())
    out = []
    for e in manifest["entries"]:
        if e.get("status") != "ok" or e.get("duplicate_of"):
            continue
        if e.get("target") not in targets:
            continue
        out.append((str(e["id"]), root / str(e["cubin"])))
    return out


def sweep_public(
    root: Path, jobs: int, show: int, dump: str | None, targets: tuple[str, ...]
) -> int:
    """Decode, re-encode and list every cubin of the public corpus; compare with nvdisasm."""
    from openptxas.testing.oracle import Oracle
    from openptxas.testing.sass_check import CubinCheck, compare_cubin

    cubins = public_cubins(root, targets)
    oracle = Oracle()

    def one(item: tuple[str, Path]) -> tuple[str, CubinCheck | str]:
        name, path = item
        blob = path.read_bytes()
        try:
            listing = oracle.nvdisasm(blob, subject=name)
            return name, compare_cubin(blob, listing)
        except Exception as exc:  # a cubin the checker cannot read: counted, listed
            return name, f"{type(exc).__name__}: {exc}"

    n = dec = exact = same = 0
    errors: list[str] = []
    bad_cubins: set[str] = set()
    classes: dict[tuple[str, str], Counter[int]] = {}
    example: dict[tuple[str, str], tuple[str, str]] = {}
    texts: dict[int, str] = {}
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        for name, res in ex.map(one, cubins):
            if isinstance(res, str):
                errors.append(f"{name}: {res}")
                continue
            n += res.instructions
            dec += res.decoded
            exact += res.bit_exact
            same += res.same_text
            if res.problems:
                bad_cubins.add(name)
            for kind, word, theirs, ours in res.failures:
                toks = theirs.split()
                if toks and toks[0].startswith("@"):
                    toks = toks[1:]
                key = (kind, toks[0] if toks else "?")  # the mnemonic with its modifiers
                classes.setdefault(key, Counter())[word] += 1
                example.setdefault(key, (theirs, ours))
                texts[word] = theirs

    def pct(k: int) -> str:
        return f"{100 * k / n:.4f}%" if n else "-"

    print(f"public corpus: {root} ({', '.join(targets)})")
    print(f"cubins: {len(cubins)} ({len(bad_cubins)} with a difference, {len(errors)} unreadable)")
    print(f"instructions: {n}")
    print(f"decoded: {dec} ({pct(dec)}); undecoded: {n - dec}")
    print(f"re-encoded bit-exactly: {exact} ({pct(exact)}); mismatches: {dec - exact}")
    print(f"listing text identical to nvdisasm: {same} ({pct(same)}); mismatches: {n - same}")
    for e in errors[:show]:
        print(f"  error: {e}")
    ranked = sorted(classes.items(), key=lambda kv: -sum(kv[1].values()))
    for (kind, op), words in ranked[:show]:
        theirs, ours = example[(kind, op)]
        print(
            f"  {kind:7s} {op:28s} {sum(words.values()):6d} instr, {len(words):4d} words;"
            f" e.g. {theirs!r}" + (f" -> {ours!r}" if ours else "")
        )
    if dump:
        with open(dump, "w") as fh:
            for (kind, _op), words in ranked:
                for w, c in words.most_common():
                    fh.write(f"{kind}\t{w:032x}\t{c}\t{texts[w]}\n")
    return 0 if n == dec == exact == same and not errors else 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--family", default="sm90")
    ap.add_argument("--missing", action="store_true", help="list census forms not reached")
    ap.add_argument("--forms", action="store_true", help="list every form with its count")
    ap.add_argument("--public", action="store_true", help="sweep the public corpus instead")
    ap.add_argument("--jobs", type=int, default=2, help="nvdisasm runs at once (--public)")
    ap.add_argument("--show", type=int, default=30, help="failure classes to list (--public)")
    ap.add_argument("--dump", help="write every failing word to this file (--public)")
    ap.add_argument("--targets", help="targets to sweep (--public; default: the family's)")
    ap.add_argument("--root", type=Path, help="corpus location (--public)")
    args = ap.parse_args(argv)
    if args.public:
        targets = tuple(args.targets.split(",")) if args.targets else FAMILY_TARGETS[args.family]
        root = args.root or (public_root() if args.family == "sm90" else retarget_root())
        return sweep_public(root, args.jobs, args.show, args.dump, targets)
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
