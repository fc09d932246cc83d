#!/usr/bin/env python3
"""Which opcodes of a shared ISA table a target does not have (the ``lacks`` list of its data
file, issue 23).

sm_80 and sm_86 share one table (family sm80: nvdisasm reads every word ptxas emits for either
alike), but sm_86 added instructions sm_80 lacks. For every form of the target's family table
this encodes a sample word (the form's fixed bits, modifier fields at their first valid value)
and asks nvdisasm for the target's architecture and for a reference architecture to read it.
A form the reference reads and the target rejects is one the target lacks. Forms whose sample
both reject (control bits nvdisasm wants set) are retried with a real word of that form from
ptxas's cubins of tests/kernels for the reference target (the oracle cache).

    python scripts/isa_target_lacks.py --target sm_80 --reference sm_86

Prints the forms each side lacks and the ``lacks = [...]`` line (opcodes every form of which
the target rejects).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from isa_nvdisasm import RawDisasm  # noqa: E402

from openptxas.isa.family import load_family  # noqa: E402
from openptxas.isa.spec import Form  # noqa: E402
from openptxas.targets import get_target  # noqa: E402


def _set_bits(w: int, bits: tuple[tuple[int, int], ...], v: int) -> int:
    for lo, width in bits:
        m = (1 << width) - 1
        w = (w & ~(m << lo)) | ((v & m) << lo)
        v >>= width
    return w


def sample(form: Form) -> int:
    """A word of ``form``: its fixed bits, each modifier field at its first valid value."""
    w = form.value | form.loose_value
    for mf in form.mods:
        good = [v for v, t in mf.tokens.items() if not any("INVALID" in x for x in t)]
        if mf.bits and good:
            w = _set_bits(w, mf.bits, good[0])
    return w


def real_words(forms: set[str], reference: str) -> dict[str, int]:
    """One word of each named form from ptxas's cubins of tests/kernels for ``reference``."""
    from openptxas.elf.reader import read_cubin
    from openptxas.isa.codec import form_of
    from openptxas.testing.corpus import discover
    from tests.emu.harness import _cubin

    fam = load_family(get_target(reference).family)
    out: dict[str, int] = {}
    for ks in discover():
        if not ks.compiles_for(reference):
            continue
        try:
            blob = _cubin(ks.name, reference)
        except Exception:  # a kernel ptxas refuses has no words to give
            continue
        for _, sec in read_cubin(blob).find_sections(".text."):
            data = sec.data()
            for i in range(0, len(data) - 15, 16):
                w = int.from_bytes(data[i : i + 16], "little")
                f = form_of(w, fam)
                if f is not None and f.name in forms:
                    out.setdefault(f.name, w)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", default="sm_80")
    ap.add_argument("--reference", default="sm_86")
    args = ap.parse_args(argv)
    t, r = get_target(args.target), get_target(args.reference)
    if t.family != r.family:
        ap.error(f"{args.target} ({t.family}) and {args.reference} ({r.family}) share no table")
    arch_t, arch_r = f"SM{t.sm}", f"SM{r.sm}"
    forms = list(t.isa.all_forms())
    words = [sample(f) for f in forms]
    text_t = RawDisasm(arch_t).texts(words)
    text_r = RawDisasm(arch_r).texts(words)
    seen: dict[str, tuple[bool, bool]] = {
        f.name: (a is not None, b is not None)
        for f, a, b in zip(forms, text_t, text_r, strict=True)
    }
    unread = {n for n, (a, b) in seen.items() if not a and not b}
    real = real_words(unread, args.reference)
    names = list(real)
    for n, a, b in zip(
        names,
        RawDisasm(arch_t).texts([real[n] for n in names]),
        RawDisasm(arch_r).texts([real[n] for n in names]),
        strict=True,
    ):
        seen[n] = (a is not None, b is not None)
    lack_t = sorted(n for n, (a, b) in seen.items() if b and not a)
    lack_r = sorted(n for n, (a, b) in seen.items() if a and not b)
    unknown = sorted(n for n, (a, b) in seen.items() if not a and not b)
    print(f"{len(forms)} forms; {len(unknown)} read by neither (no sample nvdisasm takes)")
    print(f"{args.target} rejects {len(lack_t)}: {' '.join(lack_t)}")
    print(f"{args.reference} rejects {len(lack_r)}: {' '.join(lack_r)}")
    by_op: dict[str, list[bool]] = {}
    for f in forms:
        a, b = seen[f.name]
        if a or b:
            by_op.setdefault(f.opcode, []).append(a)
    lacks = sorted(op for op, ok in by_op.items() if not any(ok))
    print("lacks = [" + ", ".join(f'"{op}"' for op in lacks) + "]")
    return 0


if __name__ == "__main__":
    sys.exit(main())
