"""ptxas's SASS for texture and surface instructions: the probes lower/tex_rules.py was built
from (scripts/tex_probes/*.ptx: every tex geometry with f32/s32 coordinates, .level, .grad,
tld4, txq/suq, suld/sust with the three clamp modes, .texref/.surfref parameters and module
.texref variables, a handle loaded from memory), compiled by ptxas -arch=sm_90 and listed with
nvdisasm; with --ours, openptxas's listing of the same file next to it (or its refusal).

    python scripts/tex_probe.py                 # every probe
    python scripts/tex_probe.py --ours forms1   # one probe, ours too
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from openptxas.testing.oracle import Oracle

PROBES = Path(__file__).resolve().parent / "tex_probes"
KEEP = re.compile(r"\b(TEX|TLD|TLD4|TXQ|TXD|SULD|SUST|SUQ|ULDC|UMOV|R2UR|SEL|ISETP|FMNMX|MUFU)\b")


def _lines(sass: str, everything: bool) -> list[str]:
    out = []
    for line in sass.splitlines():
        if "/*0" not in line or "NOP" in line:
            continue
        if everything or KEEP.search(line):
            out.append(line.strip())
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("probe", nargs="*", help="probe names (default: all)")
    ap.add_argument("--ours", action="store_true", help="also openptxas's listing")
    ap.add_argument(
        "--all", action="store_true", help="every instruction, not just the texture ones"
    )
    args = ap.parse_args()
    o = Oracle()
    names = args.probe or sorted(p.stem for p in PROBES.glob("*.ptx"))
    for name in names:
        ptx = (PROBES / f"{name}.ptx").read_text()
        res = o.ptxas(ptx, "sm_90", subject=name)
        print(f"== {name}: ptxas")
        print("\n".join(_lines(o.nvdisasm(res.cubin, flags=("-c",)), args.all)))
        if args.ours:
            from openptxas.diag import OpenPtxasError
            from openptxas.driver import compile_ptx
            from openptxas.options import Options

            print(f"== {name}: openptxas")
            try:
                cubin = compile_ptx(ptx, Options(arch="sm_90"), f"{name}.ptx").cubin
            except OpenPtxasError as exc:
                print(f"refused: {exc}")
                continue
            print("\n".join(_lines(o.nvdisasm(cubin, flags=("-c",)), args.all)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
