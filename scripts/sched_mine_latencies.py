#!/usr/bin/env python3
"""Mine ptxas's sm_90 scheduling decisions: which ops use scoreboards, and the fixed latencies it
assumes between producers and consumers.

Reads the nvdisasm listings (with control words) of ptxas-built cubins from the oracle harness and,
for every instruction that reads a register written by an earlier instruction of the same block,
records the issue distance in cycles (the sum of the stall counts in between) when the producer
uses no write scoreboard. ptxas never lets a consumer issue early, so for each (producer,
consumer) class the distances are >= the latency ptxas assumes; the smallest distance seen often
enough is that latency.

    python scripts/sched_mine_latencies.py [--targets sm_90] [--report]

The script calls NVIDIA tools through the oracle harness (never the compiler itself).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openptxas.testing.corpus import discover
from openptxas.testing.oracle import Oracle, SassInstr

# Leading operands that are destinations, by opcode, when not 1. Predicate-writing forms are
# detected from the operand kinds (a leading P/UP/PT operand followed by more operands).
NO_DST = {
    "STG",
    "STS",
    "ST",
    "STL",
    "RED",
    "REDG",
    "BAR",
    "BRA",
    "EXIT",
    "BSYNC",
    "WARPSYNC",
    "NOP",
    "CALL",
    "RET",
    "MEMBAR",
    "ERRBAR",
    "CGAERRBAR",
    "CCTL",
    "DEPBAR",
    "YIELD",
    "BPT",
    "SYNCS",
    "NANOSLEEP",
    "FENCE",
    "UTMASTG",
    "UTMALDG",
    "UTMACMDFLUSH",
    "UBLKCP",
    "ARRIVES",
    "LDGDEPBAR",
    "WARPGROUP",
    "ENDCOLLECTIVE",
    "BREAK",
    "KILL",
    "PREEXIT",
    "ACQBULK",
    "USETMAXREG",
}
TWO_PRED_DST = {
    "ISETP",
    "FSETP",
    "DSETP",
    "HSETP2",
    "PSETP",
    "UISETP",
    "PLOP3",
    "UPLOP3",
    "UFSETP",
}

_REG = re.compile(r"(?<![\w.])(!?-?\|?)(UR|R|UP|P)(\d+|Z|T)(\.64|\.128)?")


@dataclass
class Ins:
    text: str
    op: str
    mods: tuple[str, ...]
    stall: int
    yld: int
    wr: int
    rd: int
    wait: int
    reuse: int
    defs: list[tuple[str, int]]
    uses: list[tuple[str, int]]
    label: bool = False


def ctrl_fields(hi: int) -> tuple[int, int, int, int, int, int]:
    c = hi >> 41
    return c & 0xF, (c >> 4) & 1, (c >> 5) & 7, (c >> 8) & 7, (c >> 11) & 0x3F, (c >> 17) & 0xF


def width_of(op: str, mods: tuple[str, ...], is_dst: bool, pos: int) -> int:
    if "128" in mods:
        return 4
    if "64" in mods and op not in ("SHF", "USHF", "LEA", "ULEA", "IADD3", "I2F", "F2I"):
        return 2
    if op in ("IMAD", "UIMAD") and "WIDE" in mods and (is_dst or pos == 3):
        return 2
    if op in ("DADD", "DMUL", "DFMA", "DSETP", "DMNMX") and (is_dst or op != "DSETP"):
        return 2
    if op in ("F2F", "I2F", "F2I", "FRND") and "F64" in mods:
        # F64 on the destination side when it is the first type modifier
        types = [m for m in mods if re.fullmatch(r"[FSU](8|16|32|64)", m)]
        if types:
            if is_dst and types[0] == "F64":
                return 2
            if not is_dst and types[-1] == "F64":
                return 2
    return 1


def regs_of(
    token: str, op: str, mods: tuple[str, ...], is_dst: bool, pos: int
) -> list[tuple[str, int]]:
    out = []
    for m in _REG.finditer(token):
        file, idx, suf = m.group(2), m.group(3), m.group(4)
        if idx in ("Z", "T"):
            continue
        n = int(idx)
        w = 2 if suf == ".64" else 4 if suf == ".128" else 1
        if suf is None and file in ("R", "UR"):
            w = width_of(op, mods, is_dst, pos)
        if token.startswith("desc[") and token.index(m.group(0)) < token.index("]"):
            w = 2  # descriptor UR pair
        out.extend((file, n + k) for k in range(w))
    return out


def split_operands(s: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def parse(si: SassInstr) -> Ins:
    text = si.text
    t = re.sub(r"^@!?U?P[T\d]\s+", "", text)
    guard = text[: len(text) - len(t)]
    head, _, rest = t.partition(" ")
    parts = head.split(".")
    op, mods = parts[0], tuple(parts[1:])
    ops = split_operands(rest)
    stall, yld, wr, rd, wait, reuse = ctrl_fields(si.hi)
    ndst = 0
    if op not in NO_DST and ops:
        if op in TWO_PRED_DST:
            ndst = 2
        else:
            ndst = 1
            # "IADD3 R, P, P, ..." / "LEA R, P, ..." / "SHFL P, R, ..." / "LOP3.LUT P, R, ..."
            k = 1
            while k < len(ops) and re.fullmatch(r"U?P(\d|T)", ops[k]) and k < len(ops) - 2:
                k += 1
            ndst = k
            if re.fullmatch(r"U?P(\d|T)", ops[0]) and len(ops) > 2 and op not in ("VOTE",):
                ndst = 2
    if op in ("ATOMG", "ATOM", "ATOMS"):
        ndst = 2
    defs, uses = [], []
    for i, o in enumerate(ops):
        (defs if i < ndst else uses).extend(regs_of(o, op, mods, i < ndst, i))
    if guard:
        uses.extend(regs_of(guard.strip()[1:], op, mods, False, -1))
    return Ins(text, op, mods, stall, yld, wr, rd, wait, reuse, defs, uses)


def mine(builds: list[tuple[str, dict[str, list[SassInstr]]]]):
    lat: dict[tuple[str, str, str], Counter[int]] = defaultdict(Counter)
    sb_use: Counter[str] = Counter()
    total: Counter[str] = Counter()
    rd_use: Counter[str] = Counter()
    stall_yield: Counter[tuple[int, int]] = Counter()
    for _, funcs in builds:
        for instrs in funcs.values():
            parsed = [parse(s) for s in instrs]
            # block boundaries: nvdisasm labels are not in SassInstr; use branch targets
            targets = set()
            for s in instrs:
                m = re.search(r"\.L_x_(\d+)", s.text)
                if m:
                    targets.add(m.group(0))
            last_def: dict[tuple[str, int], int] = {}
            cycle = [0] * (len(parsed) + 1)
            for i, p in enumerate(parsed):
                cycle[i + 1] = cycle[i] + max(p.stall, 1)
            for j, c in enumerate(parsed):
                total[c.op] += 1
                stall_yield[(c.stall, c.yld)] += 1
                if c.wr != 7:
                    sb_use[c.op] += 1
                if c.rd != 7:
                    rd_use[c.op] += 1
                for r in set(c.uses):
                    i = last_def.get(r)
                    if i is None:
                        continue
                    p = parsed[i]
                    if p.wr != 7:
                        continue
                    # any branch/label between i and j breaks the straight line
                    if any(
                        q.op in ("BRA", "BSSY", "BSYNC", "EXIT", "CALL", "WARPSYNC")
                        for q in parsed[i:j]
                    ):
                        continue
                    d = cycle[j] - cycle[i]
                    lat[(p.op + ("." + ".".join(p.mods) if p.mods else ""), c.op, r[0])][d] += 1
                for r in c.defs:
                    last_def[r] = j
                if c.op in ("BRA", "EXIT", "BSYNC", "BSSY", "WARPSYNC", "CALL", "RET"):
                    last_def.clear()
    return lat, sb_use, rd_use, total, stall_yield


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--targets", default="sm_90")
    ap.add_argument(
        "--root", action="append", default=[], help="kernel corpus root(s) (default tests/kernels)"
    )
    args = ap.parse_args()
    oracle = Oracle()
    builds = []
    roots = [Path(r) for r in args.root] or [None]
    kernels = [k for r in roots for k in (discover(r) if r else discover())]
    for ks in kernels:
        for t in args.targets.split(","):
            if ks.compiles_for(t):
                b = oracle.build_kernel(ks, t)
                builds.append((ks.name, b.sass()))
    lat, sb_use, rd_use, total, sy = mine(builds)
    print("# ops with write scoreboards (count with SB / total)")
    for op in sorted(total, key=lambda o: -total[o]):
        print(f"{op:14s} wr {sb_use[op]:5d}/{total[op]:5d}  rd {rd_use[op]:5d}")
    print("\n# fixed-latency producer -> consumer (regfile): min distance, histogram")
    for key in sorted(lat):
        h = lat[key]
        print(
            f"{key[0]:26s} -> {key[1]:10s} {key[2]:3s} min {min(h):2d}  "
            + " ".join(f"{d}:{n}" for d, n in sorted(h.items())[:8])
        )
    print("\n# (stall, yield) histogram")
    print(" ".join(f"{k}:{v}" for k, v in sorted(sy.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
