"""The target model (openptxas.targets): the one place that knows an SM.

- No SM literal (``"sm_90"``) or ABI constant (bank-0 offsets, parameter bases) in the compiler's
  packages: they ask the target.
- The operation properties derived from the ISA table agree with the opcode sets the passes kept
  before (copied here), each difference explained.
- The ABI, lowering choices and latency model come from the data files, one object per family.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from openptxas.diag import UnsupportedFeature
from openptxas.targets import BASE_TARGETS, default_latency_model, get_target
from openptxas.targets.latency import load_latency_model

PKG = Path(__file__).resolve().parents[2] / "openptxas"
COMPILER = ["lower", "passes", "regalloc", "sched", "ir", "codegen.py", "pipeline.py", "driver.py"]
SM_LITERAL = re.compile(r"\bsm_?\d{2,3}[af]?\b")


def _abi_constants() -> set[int]:
    """Numbers that would be SM-specific if written in the compiler: every target's parameter
    base and its ABI's constant-bank offsets and shared base."""
    out: set[int] = set()
    for name in BASE_TARGETS:
        t = get_target(name)
        out.add(t.param_base)
        if t.abi_ is not None:
            a = t.abi_
            out |= {a.cb_stack, a.cb_global_desc, a.shared_base}
    return out - {0}  # (sm_80's shared base: zero is no SM's own number)


def sm_literals(source: str, constants: set[int]) -> list[tuple[int, str]]:
    """(line, literal) of every SM name in a string (docstrings aside) and every ABI constant
    written as a hexadecimal number in ``source``."""
    tree = ast.parse(source)
    docs: set[int] = set()
    for n in ast.walk(tree):
        if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = n.body[0] if n.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                docs.add(id(first.value))
    lines = source.splitlines()
    out: list[tuple[int, str]] = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.Constant) or id(n) in docs:
            continue
        if isinstance(n.value, str) and SM_LITERAL.search(n.value):
            out.append((n.lineno, repr(n.value)))
        elif type(n.value) is int and n.value in constants:
            text = lines[n.lineno - 1][n.col_offset : n.end_col_offset]
            if text.lower().startswith("0x"):
                out.append((n.lineno, text))
    return out


def _compiler_files() -> list[Path]:
    files: list[Path] = []
    for part in COMPILER:
        p = PKG / part
        files.extend(sorted(p.rglob("*.py")) if p.is_dir() else [p])
    return files


def test_the_scanner_finds_literals() -> None:
    src = (
        '"""Docstrings may say sm_90 (where a fact was observed)."""\n'
        "A = 0x210\n"
        'B = load("sm_90a")\n'
        "C = 528  # decimal spellings are ordinary numbers\n"
        "D = f'{x}sm_100'\n"
    )
    found = sm_literals(src, {0x210})
    assert [ln for ln, _ in found] == [2, 3, 5], found


def test_no_sm_literals_in_the_compiler() -> None:
    constants = _abi_constants()
    assert {0x210, 0x28, 0x208, 0x400} <= constants
    bad = [
        f"{f.relative_to(PKG.parent)}:{ln}: {lit}"
        for f in _compiler_files()
        for ln, lit in sm_literals(f.read_text(), constants)
    ]
    assert not bad, "SM-specific literals outside openptxas/targets:\n" + "\n".join(bad)


# ---------------------------------------------------------------------------------------------
# The opcode sets the passes kept before the target model (openptxas 2026-11-26, baa9931).

OLD_IMM_SLOTS = {
    "IADD3": {1},
    "IMAD": {1},
    "LOP3": {1},
    "SHF": {1},
    "SEL": {1},
    "ISETP": {1},
    "VIMNMX": {1},
    "LEA": {1},
    "MOV": {0},
    "IADD": {1},
    "PRMT": {1},
    "SHFL": {1, 2},
}
OLD_IMM_LIMIT = {("SHFL", 1): 0x1F, ("SHFL", 2): 0x1FFF}
OLD_UR_SLOTS = {
    "IADD3": {1},
    "IMAD": {1, 2},
    "LOP3": {1},
    "SHF": {1},
    "SEL": {1},
    "ISETP": {1},
    "FADD": {1},
    "FMUL": {1},
    "FFMA": {1, 2},
    "FSETP": {1},
    "FMNMX": {1},
    "FSEL": {1},
    "VIMNMX": {1},
    "LEA": {1},
    "MOV": {0},
    "I2FP": {0},
    "F2I": {0},
    "I2F": {0},
    "IABS": {0},
    "POPC": {0},
    "FLO": {0},
    "BREV": {0},
}
OLD_UNIFORM_OP = {
    "IADD3": "UIADD3",
    "IMAD": "UIMAD",
    "LOP3": "ULOP3",
    "SHF": "USHF",
    "SEL": "USEL",
    "LEA": "ULEA",
    "PRMT": "UPRMT",
    "FLO": "UFLO",
    "POPC": "UPOPC",
    "BREV": "UBREV",
    "SGXT": "USGXT",
    "MOV": "UMOV",
    "ISETP": "UISETP",
    "PLOP3": "UPLOP3",
    "LDC": "ULDC",
    "S2R": "S2UR",
}
OLD_MEMORY_OPS = {"LDG", "STG", "ATOMG", "REDG", "LD", "ST", "LDS", "STS", "ATOMS", "LDGSTS"}
OLD_MAX_OFFSET = (1 << 23) - 1

# Where the table says more than the old sets, and why.
IMM_DIFFERENCES = {
    # C-slot immediates: the table has IMAD R, R, R, imm / SHF R, R, R, imm / LEA R, P, R, R,
    # imm, shift / PRMT R, R, R, imm (forms ptxas emits); the old set named the B slot only.
    "IMAD": {2},
    "SHF": {2},
    "LEA": {2},
    "PRMT": {2},
    # IADD does not exist on sm_90 (IADD3 does): the old entry was dead.
    "IADD": {1},
}
UR_DIFFERENCES = {"SHF": {2}}  # SHF R, R, R, UR (the funnel shift's high word uniform)
TWIN_DIFFERENCES = {"BMSK": "UBMSK", "LEPC": "ULEPC"}  # twins the old map did not list


def test_immediate_slots_agree_with_the_old_sets() -> None:
    ops = get_target("sm_90").ops
    for op, old in OLD_IMM_SLOTS.items():
        new = set(ops.slots(op).imm)
        assert new ^ old == IMM_DIFFERENCES.get(op, set()), op
    for (op, k), limit in OLD_IMM_LIMIT.items():
        assert ops.slots(op).imm_max(k) == limit
    # 32-bit fields elsewhere: no limit below the full word
    assert ops.slots("IADD3").imm_max(1) == 0xFFFFFFFF
    assert ops.slots("SHFL").multi_imm and not ops.slots("IMAD").multi_imm


def test_uniform_slots_agree_with_the_old_sets() -> None:
    ops = get_target("sm_90").ops
    for op, old in OLD_UR_SLOTS.items():
        assert set(ops.slots(op).ur) ^ old == UR_DIFFERENCES.get(op, set()), op
    assert not ops.slots("BRA").ur and not ops.slots("NOSUCHOP").imm


def test_uniform_twins_agree_with_the_old_map() -> None:
    t = get_target("sm_90")
    for op, twin in OLD_UNIFORM_OP.items():
        assert t.ops.uniform_twin(op) == twin, op
    derived = {op: tw for op in t.isa.opcodes if (tw := t.ops.uniform_twin(op)) is not None}
    assert {op: tw for op, tw in derived.items() if op not in OLD_UNIFORM_OP} == TWIN_DIFFERENCES
    assert t.ops.uniform_twin("FADD") is None  # no uniform floating point on sm_90


def test_memory_ops_agree_with_the_old_set() -> None:
    ops = get_target("sm_90").ops
    assert all(ops.is_memory_op(op) for op in OLD_MEMORY_OPS)
    assert all(ops.is_memory_op(op) for op in ("LDL", "STL", "LDSM"))  # the table knows more
    assert not ops.is_memory_op("IADD3")
    for op in OLD_MEMORY_OPS - {"LDGSTS"}:
        (bits,) = ops.mem_offset_bits(op)
        assert (1 << (bits - 1)) - 1 == OLD_MAX_OFFSET, op
    # LDGSTS's addresses have narrower offsets (shared 20 bits, global 12) than the 24 bits the
    # old constant assumed for every memory operation.
    assert ops.mem_offset_bits("LDGSTS") == (20, 12)


# ---------------------------------------------------------------------------------------------


def test_abi_and_lowering_come_from_the_data_file() -> None:
    t = get_target("sm_90a")
    assert t.param_base == 0x210
    assert t.abi.cb_ntid == (0x0, 0x4, 0x8) and t.abi.cb_stack == 0x28
    assert t.abi.reserved_gprs == frozenset({t.abi.stack_pointer})
    assert t.abi.frame_cie.hex().startswith("0300047c")
    assert t.lowering.smid_sreg == "SR_VIRTUALSMID"


def test_how_global_addresses_are_written() -> None:
    """One fact per target (Abi.global_address) says how a global access names its address."""
    import dataclasses

    from openptxas.targets import Abi, _abi

    by_target = {
        t: (a.desc_encoded, a.desc_printed, a.wide_printed)
        for t in ("sm_75", "sm_80", "sm_89", "sm_90")
        for a in [get_target(t).abi]
    }
    assert by_target == {
        "sm_75": (False, False, False),  # LDG.E.SYS R0, [R2]
        "sm_80": (True, False, True),  # LDG.E R0, [R2.64] (the descriptor encoded, not printed)
        "sm_89": (True, False, True),
        "sm_90": (True, True, True),  # LDG.E R0, desc[UR4][R2.64]
    }
    d = {f.name: getattr(get_target("sm_90").abi, f.name) for f in dataclasses.fields(Abi)}
    d["frame_cie"] = d["frame_cie"].hex()
    d["global_address"] = "hidden"
    with pytest.raises(ValueError, match="global_address"):
        _abi(d)


def test_targets_without_a_model_say_so() -> None:
    # sm_120 has the ELF writer's facts, neither the compiler's ABI nor a latency model
    with pytest.raises(UnsupportedFeature):
        _ = get_target("sm_120").abi
    with pytest.raises(UnsupportedFeature):
        _ = get_target("sm_120").latency


def test_one_latency_model_per_family() -> None:
    model = load_latency_model("sm_90")
    assert get_target("sm_90").latency is model
    assert get_target("sm_90a").latency is model
    assert default_latency_model() is model


def test_the_passes_use_what_the_old_sets_said() -> None:
    """The passes' policies (which instructions they rewrite) with the table's slots give back
    exactly the old sets: the refactoring changes no code (scripts/cubin_identity.py)."""
    from openptxas.passes.const_fold import FOLDS, FOLDS_NARROW
    from openptxas.passes.uniform_regs import CONVERTS, READS_UR, _ur_slots

    t = get_target("sm_90")
    folded = {}
    for op in FOLDS | FOLDS_NARROW:
        s = t.ops.slots(op)
        folded[op] = {k for k in s.imm if k == s.b or s.multi_imm}
    assert folded == {op: v for op, v in OLD_IMM_SLOTS.items() if op != "IADD"}
    assert {op: set(_ur_slots(op, t.ops)) for op in READS_UR} == OLD_UR_SLOTS
    assert {op: t.ops.uniform_twin(op) for op in CONVERTS} == OLD_UNIFORM_OP


@pytest.mark.parametrize("arch", ["sm_100", "sm_100a", "sm_120", "sm_120a"])
def test_targets_without_code_generation_are_refused(arch: str) -> None:
    """Issue 23: a target must never get another family's instructions (sm_100 used to be
    compiled with sm_90's encodings into a cubin nvdisasm rejects); until its code generation
    works end to end it is refused with a diagnostic, and no cubin comes out."""
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    ptx = ".version 8.8\n.target sm_75\n.address_size 64\n.visible .entry k()\n{\n\tret;\n}\n"
    assert not get_target(arch).codegen
    with pytest.raises(UnsupportedFeature, match=f"compiling for {arch} is not supported"):
        compile_ptx(ptx, Options(arch=arch))


def test_targets_that_generate_code() -> None:
    """Turing, Ampere, Ada and Hopper (tests/compiler/test_targets_pre_hopper.py checks the first
    three; sm_88 is sm_86 there)."""
    from openptxas.targets import BASE_TARGETS

    assert [t for t in BASE_TARGETS if get_target(t).codegen] == [
        "sm_75",
        "sm_80",
        "sm_86",
        "sm_88",
        "sm_89",
        "sm_90",
    ]
    assert get_target("sm_90a").codegen
