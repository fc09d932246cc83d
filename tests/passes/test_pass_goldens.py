"""Per-pass golden tests: IR in, exactly one pass, IR out.

Each ``golden/<pass>/<case>.ir`` is read (``openptxas.ir.reader``), the pass named by its folder
runs once (``openptxas.tools.runpass``: the passes of ``openptxas/passes``, ``regalloc`` and
``sched``), and the printed result must equal ``<case>.out.ir``. A case whose name starts with
``keep_`` shows where the pass must not fire: its output must equal its input; every other case
must change something. ``OPENPTXAS_BLESS=1`` rewrites the ``.out.ir`` files (review the diff);
the input's leading ``//`` comment is copied to the top of its golden.

By hand: ``python -m openptxas.tools.runpass PASS tests/passes/golden/PASS/CASE.ir``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from openptxas.ir.printer import format_functions
from openptxas.ir.reader import read_ir
from openptxas.options import Options
from openptxas.passes.manager import PassContext
from openptxas.targets import get_target
from openptxas.tools.runpass import PASSES, run_pass

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p for p in GOLDEN.glob("*/*.ir") if not p.name.endswith(".out.ir"))
BLESS = os.environ.get("OPENPTXAS_BLESS", "") not in ("", "0")
# Cases whose golden is the correct output that the pass does not produce yet (strict xfails:
# fixing the pass makes them pass, and then they must leave this list). Blessing skips them.
KNOWN_BUGS: dict[str, str] = {}
# Every pass module of the pipeline has golden cases (at least this many).
MIN_CASES = 2


def _case_id(p: Path) -> str:
    return f"{p.parent.name}/{p.stem}"


def _header(text: str) -> str:
    lines = []
    for line in text.splitlines():
        if not line.startswith("//"):
            break
        lines.append(line + "\n")
    return "".join(lines)


def run_case(path: Path) -> tuple[str, str]:
    """(input as printed, output as printed) of one golden case."""
    text = path.read_text()
    ir = read_ir(text, str(path))
    target = get_target(ir.target or "sm_90")
    opts = Options(arch=target.name, verify=True)
    before = format_functions(ir.functions, ir.target)
    for fn in ir.functions:
        run_pass(path.parent.name, fn, PassContext(target, opts))
    return before, _header(text) + format_functions(ir.functions, ir.target)


def _params() -> list[object]:
    out = []
    for p in CASES:
        cid = _case_id(p)
        marks = []
        if cid in KNOWN_BUGS:
            marks.append(pytest.mark.xfail(reason=KNOWN_BUGS[cid], strict=True))
        out.append(pytest.param(p, id=cid, marks=marks))
    return out


@pytest.mark.parametrize("path", _params())
def test_pass_golden(path: Path) -> None:
    before, got = run_case(path)
    golden = path.with_suffix(".out.ir")
    if BLESS and _case_id(path) not in KNOWN_BUGS:
        golden.write_text(got)
    assert golden.exists(), f"no golden {golden.name}: run with OPENPTXAS_BLESS=1"
    assert got == golden.read_text(), f"{_case_id(path)}: output differs from {golden.name}"
    body = got[len(_header(got)) :]
    if path.stem.startswith("keep_"):
        assert body == before, "a keep_ case: the pass must leave the IR as it is"
    else:
        assert body != before, "the pass changed nothing: the case tests nothing"


def test_every_pass_has_cases() -> None:
    have: dict[str, int] = {}
    for p in CASES:
        have[p.parent.name] = have.get(p.parent.name, 0) + 1
    assert set(have) <= set(PASSES), f"folders that name no pass: {set(have) - set(PASSES)}"
    few = {n: have.get(n, 0) for n in PASSES if have.get(n, 0) < MIN_CASES}
    assert not few, f"passes with fewer than {MIN_CASES} golden cases: {few}"
    stale = [
        g.name
        for g in GOLDEN.glob("*/*.out.ir")
        if not g.with_name(g.name.removesuffix(".out.ir") + ".ir").exists()
    ]
    assert not stale, f"goldens without an input: {stale}"


def test_every_pipeline_pass_module_is_registered() -> None:
    """A new pass module under openptxas/passes gets a runpass name (and so golden cases)."""
    import openptxas.passes

    root = Path(openptxas.passes.__file__).parent
    modules = {p.stem for p in root.glob("*.py")} - {"__init__", "manager"}
    assert modules <= set(PASSES), f"pass modules without a runpass name: {modules - set(PASSES)}"
