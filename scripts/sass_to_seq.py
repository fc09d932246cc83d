"""Turn ptxas's listing of one f32 instruction's kernel (scripts/probe_fpdiv.py) into an IR-text
sequence for openptxas/lower/fpseq.py: the instructions between the operand loads and the result
store, with the subroutine ptxas calls placed in cold blocks (CALL -> branch, RET -> branch back),
physical registers as sequence names ($R4, $p0), SASS spellings the IR lacks written with the
forms it has (IMAD.MOV -> MOV, VIADD -> IADD3, IMAD.SHL -> SHF.L, LEA.HI -> SHF.R + IADD3, a branch
on two predicates -> PLOP3 + branch), and floating-point immediates as their bits. The operands
are copied into the registers ptxas loads them into ($a -> $R0 ...), the result out of the one
it stores ($q).

    python scripts/sass_to_seq.py div.rz.f32 > /tmp/seq.txt

openptxas/lower/fpdiv_directed.py holds the output for the directed-rounding f32 forms.
"""

from __future__ import annotations

import math
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from probe_fpdiv import NVDISASM, kernel

SETP = {"ISETP", "FSETP", "DSETP", "PLOP3"}
FLOAT_OPS = {"FFMA", "FMUL", "FADD", "FSETP", "FSEL", "MUFU", "FMNMX"}
WIDE_OPS = {"DFMA", "DMUL", "DADD", "DSETP"}
# registers that some f64 instruction names as the low half of a pair (set per listing): R{n}
# is then the sequence pair $D{n} (R{n+1} its high word $D{n}.1)
PAIRS: set[int] = set()


def int_kernel(instr: str) -> str:
    """A one-instruction kernel for a 64-bit integer ``instr`` (``div.u64``, ``rem.s64``)."""
    return f""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{{
.reg .b64 %rd<6>;
ld.param.u64 %rd1, [p];
cvta.to.global.u64 %rd2, %rd1;
ld.global.u64 %rd3, [%rd2];
ld.global.u64 %rd4, [%rd2+8];
{instr} %rd5, %rd3, %rd4;
st.global.u64 [%rd2+16], %rd5;
ret;
}}
"""


def listing(instr: str) -> list[str]:
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "k.ptx"
        src.write_text(int_kernel(instr) if instr.endswith(("u64", "s64")) else kernel(instr))
        cub = Path(d) / "k.cubin"
        subprocess.run(["ptxas", "-arch=sm_90", str(src), "-o", str(cub)], check=True)
        out = subprocess.run([NVDISASM, "-c", str(cub)], check=True, capture_output=True)
    lines = []
    for ln in out.stdout.decode().splitlines():
        m = re.match(r"\s*/\*[0-9a-f]+\*/\s*(.*?)\s*;?\s*$", ln)
        if m:
            lines.append(m.group(1).rstrip(" ;"))
        elif re.match(r"^(\.L_x_\d+|\$__internal\S+):$", ln.strip()):
            lines.append(ln.strip())
    return lines


def f32_bits(text: str) -> str:
    if text == "+INF":
        return "f32:0x7f800000"
    if text == "-INF":
        return "f32:0xff800000"
    if text in ("-QNAN", "QNAN", "+QNAN"):
        return "f32:0xffffffff" if text.startswith("-") else "f32:0x7fffffff"
    bits = struct.unpack("<I", struct.pack("<f", float(text)))[0]
    return f"f32:{bits:#x}"


def f64_bits(text: str) -> str:
    v = {"+INF": math.inf, "-INF": -math.inf}.get(text)
    bits = struct.unpack("<Q", struct.pack("<d", float(text) if v is None else v))[0]
    return f"f64:{bits:#x}"


def reg(n: int, wide: bool) -> str:
    if n in PAIRS:
        return f"$D{n}" if wide else f"$D{n}.0"
    assert not wide, f"R{n} is not a pair"
    if n - 1 in PAIRS:
        return f"$D{n - 1}.1"
    return f"$R{n}"


def operand(text: str, fp: bool, wide: bool = False) -> str:
    t = text.strip().replace(".reuse", "")
    if t.startswith("`("):
        return "`(" + t[2:-1].replace(".L_x_", "x") + ")"
    m = re.fullmatch(r"([-!|~]*)(R|P)(\d+)(\|?)", t)
    if m:
        pre, f, n, post = m.groups()
        r = reg(int(n), wide) if f == "R" else f"$p{n}"
        return f"{pre}{r}{post}"
    if re.fullmatch(r"[-!|]*(RZ|PT)\|?", t):
        return t
    if re.fullmatch(r"-?0x[0-9a-f]+", t) and not fp:
        return t
    if wide:
        return f64_bits(t)
    if fp or re.fullmatch(r"[-+]?(\d|INF|QNAN)", t[:2].lstrip("+-") or "x"):
        return f32_bits(t)
    return t


def convert(ins: str, n_br: list[int]) -> list[str]:
    guard = ""
    m = re.match(r"(@!?P\d+|@!?PT)\s+(.*)", ins)
    if m:
        g, ins = m.groups()
        guard = "@" + operand(g[1:], False) + " "
    op, _, rest = ins.partition(" ")
    ops = [o for o in (s.strip() for s in rest.split(",")) if o] if rest else []
    base = op.split(".")[0]
    fp = base in FLOAT_OPS
    wide = base in WIDE_OPS
    if base == "BRA" and len(ops) == 2:  # @g BRA p2, L: both
        n_br[0] += 1
        t = f"$p_br{n_br[0]}"
        g = guard[1:].strip() or "PT"
        return [
            f"{t}, PT = PLOP3.LUT {g}, {operand(ops[0], False)}, PT, 0x80, 0x0",
            f"@{t} BRA {operand(ops[1], False)}",
        ]
    o = [operand(x, fp, wide and not x.startswith("P")) for x in ops]
    if base in ("IMAD", "I2F", "F2I") and not wide:
        # 64-bit integer forms: the operands that are register pairs
        w64 = [False] * len(ops)
        if op.startswith("IMAD.WIDE"):
            w64[0] = True
            w64[-1] = ops[-1].startswith("R") and ops[-1] != "RZ"
        elif op.startswith(("I2F.U64", "I2F.S64")):
            w64[1] = True
        elif op.startswith(("F2I.U64", "F2I.S64")):
            w64[0] = True
        o = [operand(x, fp, w) if w else y for x, y, w in zip(ops, o, w64, strict=True)]
        if len(o) > 1 and o[1].startswith("$p"):  # a carry out
            return [f"{guard}{o[0]}, {o[1]} = {op} {', '.join(o[2:])}"]
    if op == "CS2R" and ops[1] == "SRZ":
        return [
            f"{guard}{reg(int(ops[0][1:]), False)} = MOV RZ",
            f"{guard}{reg(int(ops[0][1:]) + 1, False)} = MOV RZ",
        ]
    if op == "VIADDMNMX":
        n_br[0] += 1
        t = f"$t_mnmx{n_br[0]}"
        return [
            f"{guard}{t} = IADD3 {o[1]}, {o[2]}, RZ",
            f"{guard}{o[0]} = VIMNMX {t}, {o[3]}, {o[4]}",
        ]
    if op == "IMAD.MOV.U32" and o[1:3] == ["RZ", "RZ"]:
        return [f"{guard}{o[0]} = MOV {o[3]}"]
    if op == "IMAD.MOV" and o[1:3] == ["RZ", "RZ"]:
        return [f"{guard}{o[0]} = IADD3 RZ, {o[3]}, RZ"]
    if op == "IMAD.IADD" and o[2] == "0x1":
        return [f"{guard}{o[0]} = IADD3 {o[1]}, {o[3]}, RZ"]
    if op == "VIADD":
        return [f"{guard}{o[0]} = IADD3 {o[1]}, {o[2]}, RZ"]
    if op == "IMAD.SHL.U32" and o[3] == "RZ":
        k = int(ops[2], 16).bit_length() - 1
        return [f"{guard}{o[0]} = SHF.L.U32 {o[1]}, {k:#x}, RZ"]
    if op == "LEA.HI" and o[3] == "RZ":
        sh = 32 - int(ops[4], 16)
        n_br[0] += 1
        t = f"$t_lea{n_br[0]}"
        return [
            f"{guard}{t} = SHF.R.U32.HI RZ, {sh:#x}, {o[1]}",
            f"{guard}{o[0]} = IADD3 {t}, {o[2]}, RZ",
        ]
    if op == "HFMA2.MMA" and ops[1:] == ["-RZ", "RZ", "0", "0"]:
        return [f"{guard}{o[0]} = MOV RZ"]
    if base == "MOV":
        return [f"{guard}{o[0]} = MOV {o[1]}"]
    if (
        base in SETP
        or (base == "LOP3" and o[0].startswith("$p"))
        or (base == "IADD3" and len(o) > 1 and o[1].startswith("$p"))
    ):
        return [f"{guard}{o[0]}, {o[1]} = {op} {', '.join(o[2:])}"]
    if base in ("BRA", "EXIT", "RET"):
        return [f"{guard}{op} {', '.join(o)}"]
    return [f"{guard}{o[0]} = {op} {', '.join(o[1:])}"]


def sequence(instr: str) -> str:
    """The IR-text sequence ($a, $b operands, $q result) of ptxas's code for ``instr``."""
    lines = listing(instr)
    PAIRS.clear()
    for ln in lines:
        body = re.sub(r"^@!?P\w+\s+", "", ln)
        op = body.split(" ")[0]
        regs = [int(n) for n in re.findall(r"(?<![\w.])R(\d+)(?![\d.])", body.partition(" ")[2])]
        if op.split(".")[0] in WIDE_OPS or op.startswith(("LDG.E.64", "STG.E.64")):
            PAIRS.update(regs)
        elif op.startswith("IMAD.WIDE"):  # the destination and the addend
            PAIRS.update({regs[0], regs[-1]} if len(regs) == 4 or "RZ" not in body else {regs[0]})
        elif op.startswith(("I2F.U64", "I2F.S64")):  # the source
            PAIRS.update(regs[1:])
        elif op.startswith(("F2I.U64", "F2I.S64")):  # the destination
            PAIRS.update(regs[:1])
    assert not any(n + 1 in PAIRS for n in PAIRS), "overlapping pairs"
    loads = [ln for ln in lines if ln.startswith("LDG")]
    store = next(ln for ln in lines if ln.startswith("STG"))
    ins_regs = []
    for ln in loads:
        m = re.match(r"LDG\S* (R\d+), .*R\d+\.64(?:\+0x(\d+))?\]", ln)
        assert m, ln
        ins_regs.append((int(m.group(2) or "0", 16), m.group(1)))
    ins_regs.sort()
    out_reg = store.rsplit(",", 1)[1].strip()
    first = lines.index(loads[-1]) + 1
    out = []
    for k, (_, r) in enumerate(ins_regs):
        n = int(r[1:])
        if n in PAIRS:
            out += [f"$D{n}.{h} = MOV $D{'ab'[k]}.{h}" for h in (0, 1)]
        else:
            out.append(f"${r} = MOV ${'ab'[k]}")
    n_br = [0]
    in_sub = False
    # the return address: set before the CALL, moved into the RET's register in the subroutine
    link = {
        m.group(1)
        for k, ln in enumerate(lines[:-1])
        if lines[k + 1].startswith("CALL")
        for m in [re.match(r"MOV (R\d+), 0x", ln)]
        if m
    }
    ret = None
    # the RET's high word (the subroutine zeroes it just before RET; lower/fpslow.py builds the
    # pair itself)
    drop = set()
    for k, ln in enumerate(lines):
        m = re.fullmatch(r"RET\.\S+ R(\d+) .*", ln)
        if m is None:
            continue
        hi = f"R{int(m.group(1)) + 1}"
        for j in range(k - 1, 0, -1):
            d = re.match(r"(?:@!?P\d+ )?\S+ (R\d+)\b", lines[j])
            if d and d.group(1) == hi:
                drop.add(j)
                break
        # the caller must not read the zero: after each CALL, the first mention of the register
        # (up to the subroutine) is a write
        for c in (i for i, x in enumerate(lines) if x.startswith("CALL")):
            for x in lines[c + 1 :]:
                if x.startswith("$__internal"):
                    break
                ops = re.findall(r"(?<![\w.])R\d+(?![\d])", x.split(" ", 1)[-1])
                if hi in ops:
                    assert ops[0] == hi and not x.startswith(("ST", "@")), (hi, x)
                    break
    for k, ln in enumerate(lines[first:], first):
        if k in drop:
            continue
        if ln.startswith(("LDC", "STG", "EXIT", "ULDC", "NOP")):
            continue
        if ln.startswith("$__internal"):
            out += [".cold", "slow:"]
            in_sub = True
            continue
        if ln.startswith(".L_x_"):
            out.append(ln[:-1].replace(".L_x_", "x") + ":")
            continue
        if ln.startswith("MOV") and lines[k + 1].startswith("CALL"):
            continue  # the return address
        if ln.startswith("CALL"):
            out += ["BRA `(slow)", "ret:"]
            ret = "ret"
            continue
        m = re.fullmatch(r"(?:IMAD\.MOV\.U32|MOV) (R\d+), (?:RZ, RZ, )?(R\d+)", ln)
        if in_sub and m and m.group(2) in link:
            continue  # the return address into the RET's register
        if ln.startswith("RET"):
            out.append(f"BRA `({ret})")
            continue
        m = re.fullmatch(r"BRA `\((\.L_x_\d+)\)", ln)
        if m and lines[k - 1] == m.group(1) + ":":
            continue  # the trailing self-loop
        out += convert(ln, n_br)
    if in_sub:
        out.append(".hot")
    n = int(out_reg[1:])
    out.append("end:")
    if n in PAIRS:
        out += [f"$Dq.{h} = MOV $D{n}.{h}" for h in (0, 1)]
    else:
        out.append(f"$q = MOV ${out_reg}")
    # a block ends at every branch
    split: list[str] = []
    for k, ln in enumerate(out):
        split.append(ln)
        nxt = out[k + 1] if k + 1 < len(out) else ""
        if " BRA " in f" {ln}" and not nxt.endswith(":") and nxt not in (".cold", ".hot"):
            split.append(f"b{k}:")
    out = split
    used = set(re.findall(r"`\((\w+)\)", "\n".join(out)))
    keep = used | {"end", "slow"} | {ln[:-1] for ln in out if re.fullmatch(r"b\d+:", ln)}
    return "\n".join(ln for ln in out if not ln.endswith(":") or ln[:-1] in keep) + "\n"


def main() -> None:
    for instr in sys.argv[1:]:
        print(f"# ---- {instr}")
        print(sequence(instr))


if __name__ == "__main__":
    main()
