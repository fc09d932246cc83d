"""Fuzz the PTX front end with mutations of valid (and invalid) PTX: no tracebacks, no hangs.

Each case takes a seed file from the corpus (tests/ptx/data, tests/ptx/negative, examples), cuts
a window of it (the header kept), applies 1-4 random mutations (deleting, duplicating, swapping
and splicing text; inserting or replacing tokens drawn from real PTX; odd bytes and numbers), then
runs the whole front end as the CLI does: ``diagnose`` (parse + check) and, when the text parses,
print -> re-parse -> compare. Any exception is a failure (the front end must answer with
diagnostics only); a case that runs longer than --timeout seconds is a hang. Failing inputs are
written to --out for reproduction. Deterministic for a given --seed.

``--full`` runs the whole compiler as well: the seeds also come from the public corpus's sm_90 and
sm_90a PTX ($OPENPTXAS_PUBLIC_CORPUS/build/sm_90*), tests/kernels (its .ptx files and the nvcc PTX
of its .cu kernels in the oracle cache, $OPENPTXAS_ORACLE_CACHE) and Triton's PTX, and every
mutated input that passes the checks goes on through ``openptxas.driver.compile_ptx``, as the CLI
does. An ``OpenPtxasError`` diagnostic is a fine answer there; any other exception, an
``InternalError``, or a cubin that is not an ELF file is a failure. The CLI writes the cubin
through a temporary file renamed into place, so a failure cannot leave a partial output file
(tests/ptx/test_ptx_fuzz_regress.py checks that).

    python scripts/ptx_fuzz.py --cases 100000 --jobs 2 [--seed 1] [--out /tmp/ptx_fuzz]
    python scripts/ptx_fuzz.py --full --cases 20000 --jobs 2
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import random
import re
import signal
import sys
import time
import traceback
from pathlib import Path
from types import FrameType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from openptxas.ptx import diagnose, parse, print_module  # noqa: E402

_TOKEN = re.compile(r"\.[\w:]+|%[\w$]+|[A-Za-z_$][\w$.:]*|0[fFdD][0-9a-fA-F]+|\d+|\S")
_ODD = [
    "\x00",
    "\xff",
    "é",
    "\t",
    "\r",
    "\\",
    '"',
    "/*",
    "*/",
    "//",
    "{",
    "}",
    "[",
    "]",
    "(",
    ")",
    ";",
    ",",
    "@",
    "!",
    "|",
    "<",
    ">",
    "::",
    "..",
    "0x",
    "0f",
    "99999999999999999999999",
    "-0",
    "%",
    "$",
    "_",
    "=",
    "?",
    ":",
]


def corpus(full: bool = False) -> list[tuple[str, str]]:
    files = sorted((ROOT / "tests" / "ptx" / "data").rglob("*.ptx"))
    files += sorted((ROOT / "tests" / "ptx" / "negative").glob("*.ptx"))
    files += sorted((ROOT / "examples").glob("*.ptx"))
    if full:
        files += sorted((ROOT / "tests" / "kernels").rglob("*.ptx"))
        pub = Path(os.environ.get("OPENPTXAS_PUBLIC_CORPUS", "/work/main/.cache/public-corpus"))
        for arch in ("sm_90", "sm_90a"):
            files += sorted((pub / "build" / arch).rglob("*.ptx"))
        oracle = Path(os.environ.get("OPENPTXAS_ORACLE_CACHE", "/work/main/.cache/oracle"))
        files += sorted(oracle.rglob("*.ptx"))
    return [(str(p), p.read_text(errors="replace")) for p in files]


def window(text: str, rng: random.Random, max_lines: int = 400) -> str:
    """Small files whole; big ones cut after a random line of their first function (the body
    closed again), so that most cases stay well-formed enough to reach the checker."""
    lines = text.splitlines(keepends=True)
    if len(lines) <= max_lines:
        return text
    cut = rng.randrange(max_lines // 2, max_lines)
    return "".join(lines[:cut]) + "\n\tret;\n}\n"


_DIRECTIVES = frozenset(
    [
        "version",
        "target",
        "address_size",
        "entry",
        "func",
        "visible",
        "extern",
        "weak",
        "common",
        "reg",
        "param",
        "local",
        "shared",
        "global",
        "const",
        "tex",
        "file",
        "loc",
        "section",
        "align",
        "ptr",
        "pragma",
        "maxntid",
        "reqntid",
        "minnctapersm",
        "maxnreg",
        "callprototype",
        "branchtargets",
        "calltargets",
        "noreturn",
        "alias",
        "b8",
        "b16",
        "b32",
        "b64",
    ]
)


def _klass(tok: str) -> str:
    if tok.startswith("."):
        if not tok[1:2].isalpha():
            return "num"
        return "dir" if tok[1:] in _DIRECTIVES else "mod"
    if tok.startswith("%"):
        return "reg"
    if tok[0].isdigit():
        return "num"
    if tok.endswith(":"):
        return "labeldef"
    if tok[0].isalpha() and "." in tok:
        return "opcode"
    if tok[0].isalpha() or tok[0] in "_$":
        return "id"
    return "punct"


def mutate(
    text: str,
    pool: list[str],
    by_class: dict[str, list[str]],
    donor: str,
    rng: random.Random,
    gentle: bool = False,
) -> str:
    """1-4 random mutations; ``gentle``: one token replaced by another of its kind (the input
    mostly still checks clean, so that it reaches the back end)."""
    for _ in range(1 if gentle else rng.choice((1, 1, 1, 2, 2, 3, 4))):
        n = len(text)
        if n == 0:
            text = rng.choice(pool)
            continue
        i = rng.randrange(n)
        j = min(n, i + rng.randint(1, 40))
        r = 10 if gentle else rng.randrange(20)
        if r >= 10:  # replace a token with one of its kind (mostly still parses: checker work)
            m = _TOKEN.search(text, i)
            if m:
                text = text[: m.start()] + rng.choice(by_class[_klass(m.group())]) + text[m.end() :]
            continue
        if r == 0:  # delete a span
            text = text[:i] + text[j:]
        elif r == 1:  # duplicate a span
            text = text[:j] + text[i:j] + text[j:]
        elif r == 2:  # insert a token from real PTX
            text = text[:i] + rng.choice(pool) + text[i:]
        elif r == 3:  # replace a token
            m = _TOKEN.search(text, i)
            if m:
                text = text[: m.start()] + rng.choice(pool) + text[m.end() :]
        elif r == 4:  # swap two lines
            ls = text.splitlines(keepends=True)
            if len(ls) > 1:
                a, b = rng.randrange(len(ls)), rng.randrange(len(ls))
                ls[a], ls[b] = ls[b], ls[a]
                text = "".join(ls)
        elif r == 5:  # truncate
            text = text[:i]
        elif r == 6:  # odd characters
            text = text[:i] + rng.choice(_ODD) + text[i:]
        elif r == 7:  # numbers: change one
            m = re.search(r"\d+", text[i:])
            if m:
                s = i + m.start()
                new = rng.choice(["0", "-1", "4294967296", "18446744073709551616", "07", "1.5"])
                text = text[:s] + new + text[s + len(m.group()) :]
        elif r == 8:  # splice in a piece of another file
            k = rng.randrange(max(1, len(donor)))
            text = text[:i] + donor[k : k + rng.randint(1, 200)] + text[j:]
        else:  # drop or double a line
            ls = text.splitlines(keepends=True)
            if ls:
                a = rng.randrange(len(ls))
                ls.insert(a, ls[a]) if rng.random() < 0.5 else ls.pop(a)
                text = "".join(ls)
    return text


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: FrameType | None) -> None:
    raise _Hang


_TGT = re.compile(r"^\s*\.target\s+(sm_\d+a?)", re.MULTILINE)


def run_case(text: str, name: str, full: bool = False) -> tuple[bool, str]:
    """The CLI's work on one input: diagnose, and the print/re-parse round trip; with ``full``,
    a text that checks clean goes on through the whole compiler. Returns whether the text parsed
    and how the compiler ended: "" (not run), "cubin" or "refused"."""
    from openptxas.diag import InternalError, OpenPtxasError, Severity

    tm = _TGT.search(text)
    arch = "sm_90a" if tm and tm.group(1) == "sm_90a" else "sm_90"
    diagnose(text, name)
    diags = diagnose(text, name, arch)
    try:
        m = parse(text, name)
    except OpenPtxasError:
        return False, ""
    printed = print_module(m)
    m2 = parse(printed, name)
    if m2 != m:
        raise AssertionError("print/re-parse changed the AST")
    if not full or any(d.severity in (Severity.ERROR, Severity.FATAL) for d in diags):
        return True, ""
    from openptxas.driver import compile_ptx
    from openptxas.options import Options

    try:
        res = compile_ptx(text, Options(arch=arch), name)
    except InternalError:
        raise
    except OpenPtxasError:
        return True, "refused"
    if not res.cubin.startswith(b"\x7fELF"):
        raise AssertionError("compile_ptx returned something that is not an ELF file")
    return True, "cubin"


Result = tuple[int, int, int, int, list[str], int, int]


def worker(args: tuple[int, int, int, float, str, bool]) -> Result:
    _, start, count, timeout, out, full = args
    seeds = corpus(full)
    pool = sorted({t for _, s in seeds for t in _TOKEN.findall(s)})
    by_class: dict[str, list[str]] = {}
    for t in pool:
        by_class.setdefault(_klass(t), []).append(t)
    rng = random.Random(start)
    signal.signal(signal.SIGALRM, _alarm)
    fails = 0
    hangs = 0
    parsed = 0
    cubins = refused = 0
    kinds: list[str] = []
    outdir = Path(out)
    for k in range(count):
        name, seed = rng.choice(seeds)
        _, donor = rng.choice(seeds)
        gentle = full and rng.random() < 0.6
        text = mutate(window(seed, rng, 200 if full else 400), pool, by_class, donor, rng, gentle)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            ok, how = run_case(text, Path(name).name, full)
            parsed += ok
            cubins += how == "cubin"
            refused += how == "refused"
        except _Hang:
            hangs += 1
            outdir.mkdir(parents=True, exist_ok=True)
            (outdir / f"hang_{start + k}.ptx").write_text(text, errors="surrogateescape")
        except Exception:
            fails += 1
            tb = traceback.format_exc()
            last = tb.strip().splitlines()
            where = next((ln for ln in reversed(last) if ln.strip().startswith("File")), "?")
            kinds.append(f"{last[-1]} @ {where.strip()}")
            outdir.mkdir(parents=True, exist_ok=True)
            (outdir / f"fail_{start + k}.ptx").write_text(text, errors="surrogateescape")
            (outdir / f"fail_{start + k}.txt").write_text(tb)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    return count, fails, hangs, parsed, kinds, cubins, refused


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=10.0, help="seconds per case (a hang)")
    ap.add_argument("--out", default="/tmp/ptx_fuzz")
    ap.add_argument("--full", action="store_true", help="also run the whole compiler")
    args = ap.parse_args(argv)
    chunk = 500
    jobs = []
    for i, start in enumerate(range(0, args.cases, chunk)):
        n = min(chunk, args.cases - start)
        jobs.append((i, args.seed * 1_000_003 + start, n, args.timeout, args.out, args.full))
    t0 = time.time()
    done = fails = hangs = parsed = cubins = refused = 0
    kinds: dict[str, int] = {}
    with mp.Pool(args.jobs) as pool:
        for n, f, h, ok, ks, cb, rf in pool.imap_unordered(worker, jobs):
            done += n
            cubins += cb
            refused += rf
            fails += f
            hangs += h
            parsed += ok
            for kk in ks:
                kinds[kk] = kinds.get(kk, 0) + 1
            print(
                f"\r{done}/{args.cases} cases, {fails} tracebacks, {hangs} hangs, "
                f"{time.time() - t0:.0f} s",
                end="",
                file=sys.stderr,
            )
    print(file=sys.stderr)
    for kk, c in sorted(kinds.items(), key=lambda x: -x[1]):
        print(f"{c:6d}  {kk}")
    if args.full:
        print(
            f"whole compiler: {cubins + refused} cases checked clean and went on through "
            f"compile_ptx: {cubins} cubins, {refused} refused with a diagnostic"
        )
    print(
        f"{done} cases ({parsed} parsed, the rest rejected with a syntax error) in "
        f"{time.time() - t0:.0f} s: {fails} tracebacks, {hangs} hangs "
        f"(seed {args.seed}, timeout {args.timeout} s, failures in {args.out})"
    )
    return 1 if fails or hangs else 0


if __name__ == "__main__":
    sys.exit(main())
