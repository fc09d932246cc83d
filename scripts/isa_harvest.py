#!/usr/bin/env python3
"""Collect the SASS that ptxas 13.0.88 emits, as (instruction word, nvdisasm text) pairs.

Sources: every kernel of the corpus (tests/kernels) built by the oracle harness for the family's
targets (sm90: sm_90 and sm_90a; sm80: sm_80 and sm_86), plus the ISA probe programs in
scripts/isa_src (*.cu through nvcc, *.ptx directly; a ``// targets: sm_90a`` line restricts the
targets, ``// nvcc-flags: ...`` adds nvcc flags; a probe whose targets are all outside the
family is not built for it, and one ptxas refuses for a target is skipped with a warning).

Writes scripts/isa_data/<family>_observed.tsv.gz (gzip, reproducible): one line per distinct
128-bit word, ``<word hex> <count> <raw text>`` where the raw text is what ``nvdisasm -b <arch>``
(the family's learning architecture, isa_learn.FAMILY_ARCH) prints for the word at byte address
0 (branch targets as addresses). It is the learning input of scripts/isa_learn.py and the
tool-free golden data of tests/isa.

Usage: python scripts/isa_harvest.py [--jobs N] [--family sm90|sm80]
"""

from __future__ import annotations

import argparse
import collections
import gzip
import re
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from isa_nvdisasm import RawDisasm

from openptxas.testing.corpus import discover
from openptxas.testing.oracle import BuildResult, Oracle, OracleError

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "scripts" / "isa_src"
DATA = REPO / "scripts" / "isa_data"
# the targets each family's words are harvested from (their nvdisasm texts must agree: sm_86
# prints every sm_80 word as sm_80 does and adds I2FP, scripts/isa_family_diff.py)
FAMILY_TARGETS = {
    "sm90": ("sm_90", "sm_90a"),
    "sm80": ("sm_80", "sm_86"),
    "sm89": ("sm_89",),
    "sm75": ("sm_75",),
    "sm100": ("sm_100",),
    "sm120": ("sm_120",),
}


def _directives(path: Path, family_targets: tuple[str, ...]) -> tuple[list[str], list[str]]:
    text = path.read_text()
    targets = list(family_targets)
    flags: list[str] = []
    if m := re.search(r"^//\s*targets:\s*(.+)$", text, re.M):
        targets = [t for t in m.group(1).split() if t in family_targets]
    if m := re.search(r"^//\s*nvcc-flags:\s*(.+)$", text, re.M):
        flags = m.group(1).split()
    return targets, flags


def build_all(oracle: Oracle, jobs: int, targets: tuple[str, ...]) -> list[BuildResult]:
    work: list[tuple[str, object, str]] = []
    for ks in discover():
        for t in targets:
            if ks.compiles_for(t):
                work.append(("kernel", ks, t))
    for path in sorted(SRC.glob("*.cu")) + sorted(SRC.glob("*.ptx")):
        for t in _directives(path, targets)[0]:
            work.append(("src", path, t))

    def run(item: tuple[str, object, str]) -> BuildResult | None:
        kind, obj, target = item
        try:
            if kind == "kernel":
                return oracle.build_kernel(obj, target)  # type: ignore[arg-type]
            path = obj
            assert isinstance(path, Path)
            _, flags = _directives(path, targets)
            if path.suffix == ".cu":
                ptx = oracle.cu_to_ptx(path, target, flags, subject=path.name)
            else:
                ptx = re.sub(
                    r"^\s*\.target\s+\S+",
                    f".target {target}",
                    path.read_text(),
                    count=1,
                    flags=re.M,
                )
            res = oracle.ptxas(ptx, target, subject=f"{path.name} [{target}]")
            sass = oracle.nvdisasm(res.cubin, subject=f"{path.name} [{target}]")
            return BuildResult(path.name, target, ptx, res, sass)
        except OracleError as exc:
            print(f"warning: {exc}", file=sys.stderr)
            return None

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        return [b for b in ex.map(run, work) if b is not None]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--family", default="sm90")
    args = ap.parse_args(argv)
    from isa_learn import FAMILY_ARCH

    targets = FAMILY_TARGETS[args.family]
    builds = build_all(Oracle(), args.jobs, targets)
    counts: collections.Counter[int] = collections.Counter()
    for b in builds:
        for instrs in b.sass().values():
            for ins in instrs:
                counts[ins.word] += 1
    words = sorted(counts)
    # Each word at address 0: decode one-word-per-slot batches at a fixed address by giving
    # every word its own copy of the address space is impossible, so decode in place and keep
    # only words whose text does not depend on the address (checked by decoding twice).
    dis = RawDisasm(FAMILY_ARCH[args.family])
    texts = _texts_at_zero(dis, words)
    DATA.mkdir(parents=True, exist_ok=True)
    out = DATA / f"{args.family}_observed.tsv.gz"
    lines = [f"{w:032x}\t{counts[w]}\t{texts[w] if texts[w] is not None else '?'}" for w in words]
    text = (
        f"# Generated by scripts/isa_harvest.py: distinct {'/'.join(targets)} instruction words\n"
        "# emitted by"
        " ptxas 13.0.88 for the corpus and scripts/isa_src, with nvdisasm 13.2.86's text\n"
        f"# (-b {FAMILY_ARCH[args.family]}, word at address 0)."
        " Columns: word (hex, high word first), count, text.\n" + "\n".join(lines) + "\n"
    )
    out.write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
    nbad = sum(1 for w in words if texts[w] is None)
    print(
        f"{len(builds)} builds, {sum(counts.values())} instructions, {len(words)} distinct words"
        f" ({nbad} rejected by nvdisasm -b) -> {out.relative_to(REPO)}"
    )
    return 0


def _texts_at_zero(dis: RawDisasm, words: list[int]) -> dict[int, str | None]:
    """nvdisasm's text for each word placed at address 0.

    A batch puts word i at address 16*i; branch targets print as absolute addresses, so the text
    of a word at address 0 is obtained by decoding each word in two batches at different
    addresses and shifting every number that moved by the address difference.
    """
    first = dis.texts(words)
    second = dis.texts([_NOP, *words])
    out: dict[int, str | None] = {}
    for i, w in enumerate(words):
        a, b = first[i], second[i + 1]
        if a is None or b is None:
            out[w] = None
            continue
        out[w] = _shift_labels(a, b, 16 * i)
    return out


_NOP = (0x000FC00000000000 << 64) | 0x0000000000007918
_HEXNUM = re.compile(r"-?0x[0-9a-f]+")


def _shift_labels(a: str, b: str, addr: int) -> str:
    """Rewrite text ``a`` (word at ``addr``) as at address 0, given ``b`` (the word at addr+16)."""
    if a == b:
        return a
    na, nb = _HEXNUM.findall(a), _HEXNUM.findall(b)
    parts = _HEXNUM.split(a)
    if len(na) != len(nb):
        raise ValueError(f"cannot align {a!r} and {b!r}")
    fixed = []
    for x, y in zip(na, nb, strict=True):
        vx, vy = int(x, 16), int(y, 16)
        if vy - vx == 16:
            v = vx - addr
            fixed.append(f"-{-v:#x}" if v < 0 else f"{v:#x}")
        else:
            fixed.append(x)
    out = parts[0]
    for num, rest in zip(fixed, parts[1:], strict=True):
        out += num + rest
    # A branch whose offset changes sign changes nvdisasm's blank before ';' too.
    return out


if __name__ == "__main__":
    sys.exit(main())
