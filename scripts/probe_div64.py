"""ptxas 13.0's SASS for 64-bit integer division and remainder (issue 18: the shared
subroutines ``$__internal_N_$__cuda_sm20_{div,rem}_{u64,s64}``).

    python scripts/probe_div64.py            # every case below, -O3
    python scripts/probe_div64.py --opt 0 var_div_u64 two_kernels
    python scripts/probe_div64.py --list     # the case names

Each case is a small PTX module (``CASES``); the listing drops NOPs and directives.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from probe_fp19 import listing

HEAD = """.version 9.0
.target sm_90
.address_size 64
"""


def kernel(name: str, body: str) -> str:
    return f""".visible .entry {name}(.param .u64 p0)
{{
\t.reg .b32 %r<16>;
\t.reg .b64 %rd<16>;
\t.reg .f32 %f<8>;
\t.reg .pred %p<4>;
\tld.param.u64 %rd15, [p0];
\tld.global.v2.u64 {{%rd0, %rd2}}, [%rd15];
\tld.global.v2.u64 {{%rd3, %rd4}}, [%rd15+16];
\tsetp.ne.u64 %p0, %rd4, 0;
\tmov.u64 %rd1, 0;
\tmov.u64 %rd5, 0;
{body}
\tst.global.v2.u64 [%rd15+32], {{%rd1, %rd5}};
\tret;
}}
"""


def one(body: str) -> str:
    return HEAD + kernel("k", body)


CASES: dict[str, str] = {}
for _op in ("div", "rem"):
    for _t in ("u64", "s64"):
        CASES[f"var_{_op}_{_t}"] = one(f"\t{_op}.{_t} %rd1, %rd0, %rd2;")
        CASES[f"const_{_op}_{_t}"] = one(f"\t{_op}.{_t} %rd1, %rd0, 7;")
        CASES[f"pred_{_op}_{_t}"] = one(f"\t@%p0 {_op}.{_t} %rd1, %rd0, %rd2;")
CASES |= {
    "const_pow2": one("\tdiv.u64 %rd1, %rd0, 64;"),
    "const_one": one("\tdiv.u64 %rd1, %rd0, 1;"),
    "const_zero": one("\tdiv.u64 %rd1, %rd0, 0;"),
    "const_big": one("\trem.s64 %rd1, %rd0, 1000000000000;"),
    "const_neg": one("\tdiv.s64 %rd1, %rd0, -3;"),
    "const_dividend": one("\tdiv.u64 %rd1, 1000, %rd0;"),
    "const_both": one("\tdiv.u64 %rd1, 1000, 7;"),
    "alias": one("\tdiv.u64 %rd0, %rd0, %rd2;\n\tmov.u64 %rd1, %rd0;"),
    "two_same": one("\tdiv.u64 %rd1, %rd0, %rd2;\n\tdiv.u64 %rd5, %rd3, %rd4;"),
    "div_and_rem": one("\tdiv.u64 %rd1, %rd0, %rd2;\n\trem.u64 %rd5, %rd0, %rd2;"),
    "two_consts": one("\tdiv.u64 %rd1, %rd0, 7;\n\tdiv.u64 %rd5, %rd3, 9;"),
    "const_and_var": one("\tdiv.u64 %rd1, %rd0, 7;\n\tdiv.u64 %rd5, %rd3, %rd4;"),
    "all_four": one(
        "\tdiv.u64 %rd1, %rd0, %rd2;\n\trem.u64 %rd5, %rd0, %rd2;\n"
        "\tdiv.s64 %rd6, %rd3, %rd4;\n\trem.s64 %rd7, %rd3, %rd4;\n"
        "\tadd.u64 %rd1, %rd1, %rd6;\n\tadd.u64 %rd5, %rd5, %rd7;"
    ),
    "in_loop": one(
        "\tmov.u32 %r0, 0;\nLOOP:\n\trem.u64 %rd0, %rd0, %rd2;\n\tadd.u64 %rd1, %rd1, %rd0;\n"
        "\tadd.u64 %rd0, %rd1, %rd3;\n\tadd.u32 %r0, %r0, 1;\n"
        "\tsetp.lt.u32 %p1, %r0, 4;\n\t@%p1 bra LOOP;"
    ),
    "with_fp_slowpath": one(
        "\tdiv.u64 %rd1, %rd0, %rd2;\n\tcvt.rn.f32.u64 %f0, %rd3;\n\tcvt.rn.f32.u64 %f1, %rd4;\n"
        "\tdiv.rn.f32 %f2, %f0, %f1;\n\tmov.b32 %r1, %f2;\n\tcvt.u64.u32 %rd5, %r1;\n"
        "\trem.s64 %rd6, %rd3, %rd4;\n\tadd.u64 %rd5, %rd5, %rd6;"
    ),
    "two_kernels": HEAD
    + kernel("k1", "\tdiv.u64 %rd1, %rd0, %rd2;\n\trem.s64 %rd5, %rd0, %rd2;")
    + kernel("k2", "\tdiv.u64 %rd1, %rd0, %rd2;")
    + kernel("k3", "\tadd.u64 %rd1, %rd0, %rd2;"),
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("cases", nargs="*")
    ap.add_argument("--opt", type=int, default=3)
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    if a.list:
        print("\n".join(CASES))
        return
    for name in a.cases or list(CASES):
        print(f"== {name} (-O{a.opt})\n{listing(CASES[name], a.opt, True)}")


if __name__ == "__main__":
    main()
