"""Texture and surface instructions of the public corpus, one by one: how many openptxas lowers
and why it refuses the others (lower/tex_rules.py). A file's first refusal (compile_sweep.py)
is often elsewhere (div.rn.f32, local memory), so this lowers every texture/surface
instruction of every function on its own: the function's other instructions are lowered too
(their refusals ignored) so that handles and registers are set up as in a real compile.

    python scripts/tex_census.py                  # sm_90 PTX of the corpus
    python scripts/tex_census.py --json /tmp/tex_census.json
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import re
from pathlib import Path

from openptxas.diag import OpenPtxasError
from openptxas.ir.core import Block, CBank, Function, Param
from openptxas.lower import _flatten, _layout_variables, rule_table
from openptxas.lower.context import LowerCtx
from openptxas.ptx import ast, parse_and_check
from openptxas.ptx.types import StateSpace
from openptxas.targets import get_target

PUBLIC = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", "/work/main/.cache/public-corpus"))
TEXOPS = ("tex", "tld4", "txq", "suq", "suld", "sust", "sured", "istypep")
GREP = re.compile(r"\b(tex|tld4|txq|suq|suld|sust|sured|istypep)\.")


def census(text: str, name: str, target: str) -> list[tuple[str, str]]:
    """(instruction, "ok" or the refusal) for each texture/surface instruction of the file."""
    out: list[tuple[str, str]] = []
    try:
        module = parse_and_check(text, name, target)
    except OpenPtxasError as exc:
        return [("<file>", f"front end: {exc}")]
    sm = get_target(target)
    table = rule_table()
    for func in module.functions:
        if func.body is None:
            continue
        fn = Function(func.name, [], is_entry=func.is_entry)
        c = LowerCtx(sm, module, func, fn)
        stmts = _flatten(func.body)
        for s in stmts:
            if isinstance(s, ast.VarDecl) and s.space is StateSpace.REG:
                for n in s.names():
                    c.reg_types[n] = s.type
        for slot in func.param_layout():
            c.params[slot.param.name] = (slot.offset, slot.size)
            fn.params.append(Param(slot.param.name, slot.offset, slot.size, slot.param.alignment))
        with contextlib.suppress(OpenPtxasError):
            _layout_variables(c, [g for g in module.globals if g.space is not StateSpace.REG])
        c.block = Block(".L_entry")
        fn.blocks.append(c.block)
        c.emit("LDC", (), [c.sp], [CBank(0, sm.abi.cb_stack)])
        for s in stmts:
            if not isinstance(s, ast.Instruction):
                continue
            c.span = s.span
            mine = s.opcode in TEXOPS
            rule = table.select(s)
            try:
                if rule is None:
                    raise c.unsupported(f"instruction '{s.name}'")
                rule.emit(s, c)
                verdict = "ok"
            except OpenPtxasError as exc:
                verdict = str(exc)
            except Exception as exc:  # a crash is a finding: reported
                verdict = f"CRASH {type(exc).__name__}: {exc}"
            if mine:
                out.append((s.name, verdict))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--target", default="sm_90")
    ap.add_argument("--json", help="write every instruction's verdict here")
    args = ap.parse_args()
    root = PUBLIC / "build" / args.target
    rows = []
    for f in sorted(root.rglob("*.ptx")):
        text = f.read_text(errors="replace")
        if not GREP.search(text):
            continue
        rel = str(f.relative_to(root))
        for ins, verdict in census(text, rel, args.target):
            rows.append({"file": rel, "instruction": ins, "verdict": verdict})
    files = collections.defaultdict(list)
    for r in rows:
        files[r["file"]].append(r["verdict"] == "ok")
    n_ok = sum(r["verdict"] == "ok" for r in rows)
    print(
        f"{len(files)} files with texture/surface instructions; {len(rows)} instructions, "
        f"{n_ok} lowered, {len(rows) - n_ok} refused; files with all lowered: "
        f"{sum(all(v) for v in files.values())}"
    )
    by_form = collections.Counter((r["instruction"], r["verdict"]) for r in rows)
    for (ins, verdict), k in sorted(by_form.items(), key=lambda x: (-x[1], x[0])):
        print(f"  {k:5d}  {ins:32s} {verdict[:110]}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
