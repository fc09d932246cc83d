"""Audit of issue 19's Deliver list, form by form (openptxas/testing/fp_audit.py enumerates every
form it names over every combination of modifiers): for each, does ptxas 13.0 accept it for
sm_90, does openptxas, and

- both accept: the differential result (both cubins in the emulator, ours with the hazard checker,
  special values and random inputs: openptxas/testing/fpmath_cases.run_case, or for division,
  reciprocal and square root openptxas/testing/fpdiff.compare, every pair of special values);
- ptxas refuses: does openptxas refuse with the same diagnostics (line, severity, message)?

    python scripts/fp_audit.py --n 512 --opt 3,0 --out audit.md
    python scripts/fp_audit.py --grep cvt.rn.f16 --n 256

Prints one line per form and a summary; ``--out`` writes the table (markdown), ``--json`` the rows.
Exit status 1 when a form is a gap (ptxas accepts, openptxas refuses or differs; or the refusals
differ).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass

from openptxas.diag import OpenPtxasError, Severity
from openptxas.driver import compile_ptx
from openptxas.options import Options
from openptxas.testing.fp_audit import Form, forms
from openptxas.testing.fpdiff import compare
from openptxas.testing.fpmath_cases import O3_ONLY, ptx, run_case
from openptxas.testing.oracle import Oracle, OracleError

_DIAG = re.compile(r"^ptxas (?:\S+, line (\d+); )?(error|fatal|warning)\s*: (.*)$")
_FOOTER = "Ptx assembly aborted due to errors"


@dataclass
class Row:
    group: str
    form: str
    ptxas: str  # "accepts" or "refuses"
    ours: str  # "compiles", "refuses", "same refusal", "other refusal", "accepts", "internal"
    inputs: int = 0
    mismatches: int = 0
    note: str = ""

    @property
    def gap(self) -> bool:
        if self.ptxas == "accepts":
            return self.ours != "compiles" or self.mismatches > 0
        return self.ours != "same refusal"


def _ptxas_diags(log: str) -> list[tuple[int, str, str]]:
    out = []
    for ln in log.splitlines():
        m = _DIAG.match(ln.strip())
        if m and m.group(2) != "warning" and m.group(3) != _FOOTER:
            out.append((int(m.group(1) or 0), m.group(2), m.group(3).strip()))
    return out


def _our_diags(exc: OpenPtxasError) -> list[tuple[int, str, str]]:
    out = []
    for d in exc.diagnostics:
        if d.severity in (Severity.ERROR, Severity.FATAL) and d.message != _FOOTER:
            line = d.span.line if d.span is not None else 0
            out.append((line, d.severity.value, d.message.strip()))
    return out


def audit(form: Form, n: int, opts: list[int], oracle: Oracle) -> Row:
    text = ptx(form.case)
    try:
        oracle.ptxas(text, "sm_90")
    except OracleError as exc:
        want = _ptxas_diags(exc.tool_message)
        try:
            compile_ptx(text, Options(arch="sm_90"), "k.ptx")
        except OpenPtxasError as oe:
            got = _our_diags(oe)
            if got == want:
                return Row(form.group, form.name, "refuses", "same refusal", note=want[0][2])
            return Row(form.group, form.name, "refuses", "other refusal",
                       note=f"ptxas {want}, ours {got}")  # fmt: skip
        except Exception as oe:
            return Row(form.group, form.name, "refuses", "internal", note=repr(oe)[:200])
        return Row(form.group, form.name, "refuses", "accepts", note=str(want[:1]))
    row = Row(form.group, form.name, "accepts", "compiles")
    for opt in opts:
        if opt != 3 and form.name in O3_ONLY:
            continue
        try:
            if form.div:
                r = compare(form.name, n, 0, opt)
                row.inputs += r.cases
                row.mismatches += r.mismatches
                if r.mismatches and not row.note:
                    ops, got_w, want_w = r.examples[0]
                    row.note = (
                        f"-O{opt} {[hex(o) for o in ops]}: ours {got_w:#x}, ptxas {want_w:#x}"
                    )
            else:
                res = run_case(form.case, n, 0, opt)
                row.inputs += res.runs
                row.mismatches += res.mismatches
                if res.mismatches and not row.note:
                    row.note = f"-O{opt} {res.first}"
        except OpenPtxasError as oe:
            row.ours = "refuses"
            row.note = f"-O{opt} {str(oe).splitlines()[0]}"
            break
        except OracleError as oe:
            row.ours = "internal"
            row.note = f"-O{opt} ptxas: {oe.tool_message.strip()[:160]}"
            break
        except Exception as oe:
            row.ours = "internal"
            row.note = f"-O{opt} {oe!r}"[:200]
            break
    return row


def table(rows: list[Row]) -> str:
    lines = [
        "| group | form | ptxas | openptxas | inputs | mismatches | note |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        note = r.note.replace("|", "\\|")
        lines.append(
            f"| {r.group} | `{r.form}` | {r.ptxas} | {r.ours} | {r.inputs} | {r.mismatches} "
            f"| {note} |"
        )
    return "\n".join(lines) + "\n"


def summary(rows: list[Row]) -> str:
    acc = [r for r in rows if r.ptxas == "accepts"]
    ref = [r for r in rows if r.ptxas == "refuses"]
    groups = Counter(r.group for r in rows)
    parts = [
        f"forms {len(rows)}; ptxas accepts {len(acc)}, refuses {len(ref)}",
        f"accepted: openptxas compiles {sum(r.ours == 'compiles' for r in acc)}, "
        f"refuses {sum(r.ours == 'refuses' for r in acc)}, internal "
        f"{sum(r.ours == 'internal' for r in acc)}; differential inputs "
        f"{sum(r.inputs for r in acc)}, mismatching {sum(r.mismatches for r in acc)} "
        f"(in {sum(r.mismatches > 0 for r in acc)} forms)",
        f"refused: openptxas the same diagnostics {sum(r.ours == 'same refusal' for r in ref)}, "
        f"other {sum(r.ours == 'other refusal' for r in ref)}, accepts "
        f"{sum(r.ours == 'accepts' for r in ref)}, internal "
        f"{sum(r.ours == 'internal' for r in ref)}",
        "per group (forms / ptxas accepts / gaps): "
        + ", ".join(
            f"{g} {c}/{sum(r.ptxas == 'accepts' for r in rows if r.group == g)}/"
            f"{sum(r.gap for r in rows if r.group == g)}"
            for g, c in groups.items()
        ),
        f"gaps {sum(r.gap for r in rows)}",
    ]
    return "\n".join(parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=512, help="random inputs per form and -O level")
    ap.add_argument("--opt", default="3", help="comma-separated -O levels")
    ap.add_argument("--grep", default="", help="forms whose name contains this")
    ap.add_argument("--group", default="", help="forms of groups whose name contains this")
    ap.add_argument("--out", default="", help="write the markdown table here")
    ap.add_argument("--json", default="", help="write the rows here")
    args = ap.parse_args(argv)
    opts = [int(o) for o in args.opt.split(",")]
    oracle = Oracle()
    rows: list[Row] = []
    t0 = time.time()
    for form in forms():
        if args.grep not in form.name or args.group not in form.group:
            continue
        row = audit(form, args.n, opts, oracle)
        rows.append(row)
        tag = "GAP " if row.gap else "ok  "
        print(f"{tag} {row.form:40s} ptxas {row.ptxas:8s} ours {row.ours:14s} "
              f"{row.mismatches}/{row.inputs} {row.note}")  # fmt: skip
        sys.stdout.flush()
    s = summary(rows)
    print(s)
    print(f"{time.time() - t0:.0f} s")
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(f"`python scripts/fp_audit.py --n {args.n} --opt {args.opt}`\n\n")
            fh.write(s.replace("\n", "\n\n") + "\n\n" + table(rows))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([asdict(r) for r in rows], fh, indent=0)
    return 1 if any(r.gap for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
