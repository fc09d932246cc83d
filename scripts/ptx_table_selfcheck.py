"""Check the PTX instruction table (openptxas/ptx/optable.py) against ptxas 13.0.88.

For every form whose operands can be generated (roles d/a../r/i/m/p/q/pq/dp/ds/l), this makes
sample instructions (the first value of every required modifier group; then each value of each
type slot and of each choice; then each optional modifier), and

* compiles them with ptxas on a target that has the form (its gates) and .version 9.0: ptxas must
  accept them (else the table allows something ptxas rejects);
* compiles them below each gate (the previous target, or the previous .version): ptxas must
  reject them (else the gate is wrong);
* runs openptxas's checker on the same files and reports every sample where its decision differs
  from ptxas's.

Samples are batched, one kernel per (target, version), each sample on its own line; a batch
with a fatal parse error is re-run one sample at a time.

    python scripts/ptx_table_selfcheck.py [--opcodes add,ld,...] [--jobs 2] [--save FILE]

``--save`` writes every sample with ptxas's answer as JSON (tests/ptx/data/table_samples.json is
made this way; tests/ptx/test_ptx_table.py replays it against the checker without ptxas).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openptxas.diag import Severity
from openptxas.ptx import diagnose
from openptxas.ptx.check import TARGET_MIN_PTX, VERSIONS
from openptxas.ptx.modifiers import decode_name
from openptxas.ptx.opspec import Form, Gate
from openptxas.ptx.optable import table
from openptxas.ptx.types import PtxType, StateSpace

# Register types the samples use (half types go in .b16/.b32 registers: .reg .bf16 needs sm_90).
REG_TYPES = [
    "pred",
    "b8",
    "b16",
    "b32",
    "b64",
    "b128",
    "u8",
    "u16",
    "u32",
    "u64",
    "s8",
    "s16",
    "s32",
    "s64",
    "f32",
    "f64",
]
PLAIN_TARGETS = [
    (50, "sm_50"),
    (52, "sm_52"),
    (53, "sm_53"),
    (60, "sm_60"),
    (61, "sm_61"),
    (62, "sm_62"),
    (70, "sm_70"),
    (72, "sm_72"),
    (75, "sm_75"),
    (80, "sm_80"),
    (86, "sm_86"),
    (87, "sm_87"),
    (89, "sm_89"),
    (90, "sm_90"),
    (100, "sm_100"),
    (103, "sm_103"),
    (120, "sm_120"),
]
IMM = {
    "setmaxnreg": "64",
    "cp.async": "16",
    "pmevent": "1",
    "cp.async.wait_group": "0",
    "cp.async.bulk.wait_group": "0",
    "wgmma.wait_group": "0",
    "lop3": "255",
    "applypriority": "128",
    "discard": "128",
    "st.bulk": "0",
    "fence": "128",
    "tensormap.cp_fenceproxy": "128",
    "tcgen05.ld": "16",
    "tcgen05.st": "16",
}
SKIP_ROLES = {"x", "v"}
_ERR = re.compile(r"^ptxas t\.ptx, line (\d+); (error|fatal)\s*: (.*)$")


@dataclass(frozen=True)
class Sample:
    form: Form
    text: str
    target: str
    version: str
    expect_ok: bool
    why: str


def reg(t: str, k: int) -> str:
    if t not in REG_TYPES:
        bits = PtxType(t).bits
        t = {8: "b8", 16: "b16", 32: "b32", 64: "b64", 128: "b128"}.get(bits, "b32")
    return f"%v_{t}_{k}"


def resolve(ty: str, types: list[str]) -> str:
    if ty in ("", "T"):
        return types[0] if types else "b32"
    if ty.startswith("T") and ty[1:].isdigit():
        return types[int(ty[1:])] if int(ty[1:]) < len(types) else "b32"
    if ty == "addr":
        return "b64"
    if ty == "W":
        return {"u16": "u32", "u32": "u64", "s16": "s32", "s32": "s64"}.get(types[0], "b64")
    return ty


def address(opcode: str, spaces: list[StateSpace], k: int) -> str:
    sp = spaces[k] if k < len(spaces) else (spaces[0] if spaces and k == 0 else None)
    if sp is None:
        return "[%v_b64_9]"
    base = sp.base
    if base is StateSpace.SHARED:
        return "[smem]"
    if base is StateSpace.PARAM:
        return "[sp]" if opcode == "st" else "[p0]"
    if base is StateSpace.CONST:
        return "[cvar]"
    return "[%v_b64_9]"


def render(opcode: str, mods: list[str], form: Form) -> str | None:
    name = opcode + "".join(m if m.startswith("::") else "." + m for m in mods)
    _, decoded = decode_name(name)
    types = [t.value for t in decoded.types]
    vec = decoded.vec
    ops: list[str] = []
    nmem = 0
    for i, o in enumerate(form.operands):
        if o.optional:
            break
        if o.role in SKIP_ROLES:
            return None
        t = resolve(o.type, types)
        if o.role in ("d", "dp", "ds", "r") or o.role in "abcefgh":
            k = 0 if o.role in ("d", "dp", "ds") else i + 1
            if vec and o.role in ("d", "a"):
                ops.append("{" + ", ".join(reg(t, k + j) for j in range(vec)) + "}")
            else:
                ops.append(reg(t, k))
        elif o.role == "i":
            ops.append(IMM.get(opcode, "1"))
        elif o.role == "m":
            ops.append(address(opcode, list(decoded.spaces), nmem))
            nmem += 1
        elif o.role in ("p", "pq"):
            ops.append(reg("pred", 0))
        elif o.role == "q":
            ops.append(reg("pred", 1))
        elif o.role == "l":
            ops.append("$L_end")
        else:
            return None
    return name + (" " + ", ".join(ops) if ops else "") + ";"


def positive_target(gates: tuple[Gate, ...]) -> str:
    sm = 90
    for g in gates:
        if g.kind == "x":
            return f"sm_{g.sm}{g.variant}"
        if g.kind in ("a", "fam"):
            return f"sm_{max(g.sm, 90)}a"
        if g.kind == "sm":
            sm = max(sm, g.sm)
    return f"sm_{sm}"


def mod_variants(form: Form) -> list[list[str]]:
    base: list[str] = []
    for g in form.groups:
        if not g.optional:
            base.append(sorted(g.values)[0])
    tbase = [sorted(s.values)[0] for s in form.type_slots]
    out = [base + tbase]
    for i, s in enumerate(form.type_slots):
        for v in sorted(s.values)[1:]:
            t = list(tbase)
            t[i] = v
            out.append(base + t)
    for gi, g in enumerate(form.groups):
        if g.optional:
            for v in sorted(g.values):
                out.append([*base, v, *tbase])
        elif len(g.values) > 1:
            idx = [j for j, gg in enumerate(form.groups) if not gg.optional].index(gi)
            for v in sorted(g.values)[1:]:
                b = list(base)
                b[idx] = v
                out.append(b + tbase)
    return out


def samples(opcodes: set[str] | None) -> list[Sample]:
    out: list[Sample] = []
    versions = sorted(VERSIONS)
    for opcode, forms in sorted(table().items()):
        if opcodes and opcode not in opcodes:
            continue
        for form in forms:
            target = positive_target(form.gates)
            for mods in mod_variants(form):
                text = render(opcode, mods, form)
                if text is None:
                    continue
                out.append(Sample(form, text, target, "9.0", True, "in the table"))
            base = render(opcode, mod_variants(form)[0], form)
            if base is None:
                continue
            for g in form.gates:
                for tgt, ver, why in _below(g, target, versions):
                    out.append(Sample(form, base, tgt, ver, False, why))
    return out


def _below(g: Gate, target: str, versions: list[tuple[int, int]]) -> list[tuple[str, str, str]]:
    if g.kind == "sm":
        lower = [t for n, t in PLAIN_TARGETS if n < g.sm]
        return [(lower[-1], "9.0", f"below gate sm_{g.sm}")] if lower else []
    if g.kind == "x":
        return [(f"sm_{g.sm}", "9.0", f"plain sm_{g.sm} (gate x{g.sm}{g.variant})")]
    if g.kind in ("a", "fam"):
        return [(f"sm_{g.sm}", "9.0", f"plain sm_{g.sm} (gate {g.kind}{g.sm})")]
    if g.kind == "ptx":
        prev = [v for v in versions if v < g.ptx]
        if not prev:
            return []
        p = prev[-1]
        key = target if target in TARGET_MIN_PTX else target.rstrip("af")
        if TARGET_MIN_PTX.get(key, (99, 0)) > p:
            return []
        return [(target, f"{p[0]}.{p[1]}", f"below gate ptx{g.ptx[0]}.{g.ptx[1]}")]
    return []


def kernel(lines: list[str], target: str, version: str) -> str:
    sm = int(re.sub(r"\D", "", target))
    b128 = sm >= 70 and tuple(int(x) for x in version.split(".")) >= (8, 3)
    decl = "".join(f"\t.reg .{t} %v_{t}_<16>;\n" for t in REG_TYPES if t != "b128" or b128)
    body = "".join(f"\t{ln}\n" for ln in lines)
    return (
        f".version {version}\n.target {target}\n.address_size 64\n"
        ".const .align 16 .b8 cvar[64];\n"
        ".visible .entry k(.param .u64 p0)\n{\n"
        f"{decl}\t.shared .align 16 .b8 smem[1024];\n\t.param .b64 sp;\n"
        "\t.local .align 16 .b8 lvar[64];\n"
        f"{body}$L_end:\n\tret;\n}}\n"
    )


HEADER_LINES = 6  # lines before the first register declaration


def run_ptxas(text: str, target: str) -> tuple[int, list[tuple[int, str, str]]]:
    arch = target if int(re.sub(r"\D", "", target)) >= 75 else "sm_75"
    with tempfile.TemporaryDirectory() as td:
        (Path(td) / "t.ptx").write_text(text)
        r = subprocess.run(
            ["ptxas", f"-arch={arch}", "t.ptx", "-o", "t.cubin"],
            cwd=td,
            capture_output=True,
            text=True,
            check=False,
        )
    errs = []
    for ln in (r.stdout + r.stderr).splitlines():
        m = _ERR.match(ln)
        if m:
            errs.append((int(m.group(1)), m.group(2), m.group(3)))
    return r.returncode, errs


def evaluate(batch: list[Sample]) -> list[tuple[Sample, bool, str, bool]]:
    """(sample, ptxas accepted it, ptxas message, openptxas accepted it) for each sample."""
    target, version = batch[0].target, batch[0].version
    text = kernel([s.text for s in batch], target, version)
    first = text.count("\n", 0, text.index(batch[0].text)) + 1
    rc, errs = run_ptxas(text, target)
    if any(kind == "fatal" for _, kind, _ in errs) and len(batch) > 1:
        out = []
        for s in batch:
            out.extend(evaluate([s]))
        return out
    if len(batch) == 1 and any(kind == "fatal" and line != first for line, kind, _ in errs):
        return [(batch[0], batch[0].expect_ok, "inconclusive: " + errs[0][2], batch[0].expect_ok)]
    ours = diagnose(text, "t.ptx", None)
    bad_ours = {d.span.line for d in ours if d.severity is not Severity.WARNING and d.span}
    by_line: dict[int, str] = {}
    for line, _, msg in errs:
        by_line.setdefault(line, msg)
    out = []
    for i, s in enumerate(batch):
        line = first + i
        ok = line not in by_line and not (rc != 0 and not errs and len(batch) == 1)
        out.append((s, ok, by_line.get(line, ""), line not in bad_ours))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opcodes", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--save", type=Path, help="write samples and ptxas's answers as JSON")
    args = ap.parse_args(argv)
    ops = set(args.opcodes.split(",")) if args.opcodes else None
    all_samples = samples(ops)
    groups: dict[tuple[str, str], list[Sample]] = defaultdict(list)
    for s in all_samples:
        groups[(s.target, s.version)].append(s)
    batches = [g[i : i + 400] for g in groups.values() for i in range(0, len(g), 400)]
    with ThreadPoolExecutor(args.jobs) as ex:
        results = [r for rs in ex.map(evaluate, batches) for r in rs]
    table_wrong = 0
    ours_wrong = 0
    for s, ok, msg, ours_ok in results:
        if ok != s.expect_ok:
            table_wrong += 1
            exp = "accept" if s.expect_ok else "reject"
            print(
                f"TABLE  {s.text}  [{s.target} .version {s.version}] ptxas should {exp} "
                f"({s.why}): {msg or 'accepted'}   form: {s.form.opcode} {s.form.text}"
            )
        if ok != ours_ok:
            ours_wrong += 1
            print(
                f"CHECK  {s.text}  [{s.target} .version {s.version}] ptxas "
                f"{'accepts' if ok else 'rejects: ' + msg}; openptxas "
                f"{'accepts' if ours_ok else 'rejects'}"
            )
    if args.save:
        rows = [
            {
                "text": s.text,
                "target": s.target,
                "version": s.version,
                "ptxas_ok": ok,
                "ptxas_message": msg,
            }
            for s, ok, msg, _ in results
            if not msg.startswith("inconclusive")
        ]
        rows.sort(key=lambda r: (r["target"], r["version"], r["text"]))
        args.save.write_text(json.dumps(rows, indent=0) + "\n")
    n = len(results)
    print(
        f"{n} samples from {len({id(s.form) for s in all_samples})} forms: table disagrees with "
        f"ptxas on {table_wrong}, openptxas's checker on {ours_wrong}"
    )
    return 1 if table_wrong or ours_wrong else 0


if __name__ == "__main__":
    sys.exit(main())
