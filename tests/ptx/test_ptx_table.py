"""The instruction table against ptxas: tests/ptx/data/table_samples.json holds ~2700 samples
generated from every form of the table (scripts/ptx_table_selfcheck.py --save), each with
ptxas 13.0.88's verdict; the checker must agree with ptxas on all but the known exceptions."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from openptxas.diag import Severity
from openptxas.ptx import diagnose

SAMPLES = Path(__file__).resolve().parent / "data" / "table_samples.json"
# Rules the checker does not model yet (samples it would accept although ptxas rejects them).
KNOWN: tuple[str, ...] = ()
REGS = [
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


def _kernel(lines: list[str], target: str, version: str) -> str:
    sm = int("".join(c for c in target if c.isdigit()))
    b128 = sm >= 70 and tuple(int(x) for x in version.split(".")) >= (8, 3)
    decl = "".join(f"\t.reg .{t} %v_{t}_<16>;\n" for t in REGS if t != "b128" or b128)
    body = "".join(f"\t{ln}\n" for ln in lines)
    return (
        f".version {version}\n.target {target}\n.address_size 64\n"
        ".const .align 16 .b8 cvar[64];\n"
        ".visible .entry k(.param .u64 p0)\n{\n"
        f"{decl}\t.shared .align 16 .b8 smem[1024];\n\t.param .b64 sp;\n"
        "\t.local .align 16 .b8 lvar[64];\n"
        f"{body}$L_end:\n\tret;\n}}\n"
    )


def test_checker_agrees_with_ptxas_on_table_samples():
    rows = json.loads(SAMPLES.read_text())
    assert len(rows) > 2000
    groups: dict[tuple[str, str], list[dict[str, object]]] = defaultdict(list)
    for r in rows:
        groups[(str(r["target"]), str(r["version"]))].append(r)
    wrong = []
    for (target, version), rs in groups.items():
        lines = [str(r["text"]) for r in rs]
        text = _kernel(lines, target, version)
        first = text.count("\n", 0, text.index(lines[0])) + 1
        bad = {
            d.span.line
            for d in diagnose(text, "t.ptx")
            if d.severity is not Severity.WARNING and d.span is not None
        }
        for i, r in enumerate(rs):
            ours = first + i not in bad
            if ours != r["ptxas_ok"] and not str(r["text"]).startswith(KNOWN):
                wrong.append((target, version, r["text"], r["ptxas_message"]))
    assert not wrong, f"{len(wrong)} disagreements, e.g. {wrong[:5]}"
