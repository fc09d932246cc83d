"""The oracle harness: what NVIDIA's tools make of our kernels, cached by content hash.

For each kernel and target: nvcc 13.0 -> PTX, ``ptxas -v`` 13.0.88 -> reference cubin plus the
parsed ``-v`` figures, nvdisasm 13.2.86 -> SASS text with hex words. Every step's result is stored
under a key that hashes the tool's version, its arguments and its input, so a re-run is instant.

CLI::

    python -m openptxas.testing.oracle build [--targets sm_90,sm_80] [--kernels GLOB]
                                             [--ptx-dir DIR] [--jobs N] [--json FILE]
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from openptxas.testing.corpus import ALL_TARGETS, REPO_ROOT, KernelSource, discover
from openptxas.testing.tools import require_tool, tool_version

DEFAULT_CACHE = REPO_ROOT / ".cache" / "oracle"
CACHE_FORMAT = 1


class OracleError(RuntimeError):
    """A tool failed on an input. The message names the kernel, the tool and the tool's text."""

    def __init__(self, subject: str, tool: str, message: str) -> None:
        super().__init__(f"{subject}: {tool} failed:\n{message.rstrip()}")
        self.subject = subject
        self.tool = tool
        self.tool_message = message


# ----------------------------------------------------------------------------------------------
# ptxas -v report


@dataclass
class FunctionStats:
    name: str
    kind: str = "entry"  # "entry" or "function"
    registers: int = 0
    barriers: int = 0
    stack_frame: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    cumulative_stack: int = 0
    smem: int = 0
    cmem: dict[int, int] = field(default_factory=dict)
    compile_ms: float = 0.0


_RE_GMEM = re.compile(r"^ptxas info\s*: (\d+) bytes gmem")
_RE_COMPILING = re.compile(r"^ptxas info\s*: Compiling (entry function|function) '([^']+)' for")
_RE_PROPS = re.compile(r"^ptxas info\s*: Function properties for (\S+)")
_RE_FRAME = re.compile(
    r"^\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads"
)
_RE_USED = re.compile(r"^ptxas info\s*: Used (\d+) registers(.*)$")
_RE_TIME = re.compile(r"^ptxas info\s*: Compile time = ([\d.]+) ms")


def parse_ptxas_verbose(text: str) -> tuple[int, list[FunctionStats]]:
    """Parse ptxas 13.0 ``-v`` output into (gmem bytes, per-function figures)."""
    gmem = 0
    funcs: dict[str, FunctionStats] = {}
    order: list[str] = []
    current: FunctionStats | None = None
    props_for: str | None = None

    def get(name: str) -> FunctionStats:
        if name not in funcs:
            funcs[name] = FunctionStats(name)
            order.append(name)
        return funcs[name]

    for line in text.splitlines():
        if m := _RE_GMEM.match(line):
            gmem = int(m.group(1))
        elif m := _RE_COMPILING.match(line):
            current = get(m.group(2))
            current.kind = "entry" if m.group(1) == "entry function" else "function"
        elif m := _RE_PROPS.match(line):
            props_for = m.group(1)
        elif (m := _RE_FRAME.match(line)) and props_for is not None:
            f = get(props_for)
            f.stack_frame, f.spill_stores, f.spill_loads = (int(m.group(i)) for i in (1, 2, 3))
            props_for = None
        elif (m := _RE_USED.match(line)) and current is not None:
            current.registers = int(m.group(1))
            for part in m.group(2).split(","):
                part = part.strip()
                if mm := re.match(r"used (\d+) barriers", part):
                    current.barriers = int(mm.group(1))
                elif mm := re.match(r"(\d+) bytes cumulative stack size", part):
                    current.cumulative_stack = int(mm.group(1))
                elif mm := re.match(r"(\d+) bytes smem", part):
                    current.smem = int(mm.group(1))
                elif mm := re.match(r"(\d+) bytes cmem\[(\d+)\]", part):
                    current.cmem[int(mm.group(2))] = int(mm.group(1))
        elif (m := _RE_TIME.match(line)) and current is not None:
            current.compile_ms = float(m.group(1))
    return gmem, [funcs[n] for n in order]


# ----------------------------------------------------------------------------------------------
# nvdisasm listing


@dataclass(frozen=True)
class SassInstr:
    addr: int
    text: str  # instruction text as nvdisasm prints it, without the trailing ' ;'
    lo: int  # low 64-bit word
    hi: int  # high 64-bit word

    @property
    def word(self) -> int:
        return self.lo | (self.hi << 64)

    @property
    def raw(self) -> bytes:
        return self.lo.to_bytes(8, "little") + self.hi.to_bytes(8, "little")


_RE_INSTR = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*/\* (0x[0-9a-f]{16}) \*/\s*$")
_RE_HI = re.compile(r"^\s*/\* (0x[0-9a-f]{16}) \*/\s*$")
_RE_SECTION = re.compile(r"^\s*\.section\s+\.text\.([^,\s]+)")


def parse_nvdisasm(text: str) -> dict[str, list[SassInstr]]:
    """Parse ``nvdisasm -hex -c`` output into instructions per function (``.text.<name>``)."""
    out: dict[str, list[SassInstr]] = {}
    cur: list[SassInstr] | None = None
    pending: tuple[int, str, int] | None = None
    for line in text.splitlines():
        if m := _RE_SECTION.match(line):
            cur = out.setdefault(m.group(1), [])
            continue
        if m := _RE_INSTR.match(line):
            txt = m.group(2).rstrip()
            txt = txt[:-1].rstrip() if txt.endswith(";") else txt
            pending = (int(m.group(1), 16), txt, int(m.group(3), 16))
            continue
        if pending is not None and (m := _RE_HI.match(line)):
            if cur is not None:
                cur.append(SassInstr(pending[0], pending[1], pending[2], int(m.group(1), 16)))
            pending = None
    return out


def body_length(instrs: Sequence[SassInstr]) -> int:
    """Instructions in a function without its end padding (the final BRA-to-self and NOPs)."""
    n = len(instrs)
    while n and instrs[n - 1].text == "NOP":
        n -= 1
    if n and re.fullmatch(r"BRA `\(\.L_x_\d+\)", instrs[n - 1].text):
        n -= 1
    return n


# ----------------------------------------------------------------------------------------------
# Cache


class Cache:
    """Content-addressed store: ``root/<k[:2]>/<k>/{meta.json, <files>}``."""

    def __init__(self, root: Path | None = None) -> None:
        env = os.environ.get("OPENPTXAS_ORACLE_CACHE")
        self.root = Path(root or env or DEFAULT_CACHE)
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(parts: dict[str, Any], inputs: Iterable[bytes]) -> str:
        h = hashlib.sha256()
        h.update(json.dumps({"format": CACHE_FORMAT, **parts}, sort_keys=True).encode())
        for blob in inputs:
            h.update(len(blob).to_bytes(8, "little"))
            h.update(blob)
        return h.hexdigest()

    def _dir(self, key: str) -> Path:
        return self.root / key[:2] / key

    def get(self, key: str) -> tuple[dict[str, Any], dict[str, bytes]] | None:
        d = self._dir(key)
        meta_p = d / "meta.json"
        if not meta_p.exists():
            self.misses += 1
            return None
        meta = json.loads(meta_p.read_text())
        files = {n: (d / n).read_bytes() for n in meta.get("files", [])}
        self.hits += 1
        return meta, files

    def put(self, key: str, meta: dict[str, Any], files: dict[str, bytes]) -> None:
        d = self._dir(key)
        d.mkdir(parents=True, exist_ok=True)
        for n, b in files.items():
            _atomic_write(d / n, b)
        _atomic_write(d / "meta.json", json.dumps({**meta, "files": sorted(files)}).encode())


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


# ----------------------------------------------------------------------------------------------
# Steps


@dataclass
class PtxasResult:
    cubin: bytes
    gmem: int
    functions: list[FunctionStats]
    wall_ms: float
    log: str

    def function(self, name: str) -> FunctionStats:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)


@dataclass
class BuildResult:
    name: str
    target: str
    ptx: str
    ptxas: PtxasResult
    sass_text: str
    variant: str = ""

    def sass(self) -> dict[str, list[SassInstr]]:
        return parse_nvdisasm(self.sass_text)


def _run(
    cmd: list[str], subject: str, tool: str, cwd: str | None = None
) -> tuple[subprocess.CompletedProcess[bytes], float]:
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, check=False, cwd=cwd, timeout=600)
    except subprocess.TimeoutExpired:
        raise OracleError(subject, tool, "timed out after 600 s") from None
    ms = (time.perf_counter() - t0) * 1000.0
    if proc.returncode != 0:
        msg = (proc.stderr + proc.stdout).decode(errors="replace")
        raise OracleError(subject, tool, msg or f"exit status {proc.returncode}")
    return proc, ms


_PTX_TARGET = re.compile(r"^\s*\.target\s+(\w+)", re.MULTILINE)


def ptx_source(path: Path, target: str, flags: Sequence[str], subject: str) -> str:
    """A corpus kernel given as PTX (a generated kernel: tests/kernels/README.md): its text, as
    is, for the target its ``.target`` directive names; it has no nvcc step, so no nvcc flags."""
    text = path.read_text()
    if flags:
        raise OracleError(subject, "ptx-source", f"nvcc flags {list(flags)} given for a PTX source")
    m = _PTX_TARGET.search(text)
    if m is None or m.group(1) != target:
        found = m.group(1) if m else "no .target directive"
        raise OracleError(subject, "ptx-source", f"PTX source is for {found}, not {target}")
    return text


class Oracle:
    def __init__(self, cache: Cache | None = None) -> None:
        self.cache = cache or Cache()

    # nvcc: .cu -> .ptx
    def cu_to_ptx(
        self, cu_path: Path, target: str, flags: Sequence[str] = (), subject: str | None = None
    ) -> str:
        subject = subject or str(cu_path)
        if cu_path.suffix == ".ptx":
            return ptx_source(cu_path, target, flags, subject)
        src = cu_path.read_bytes()
        parts = {
            "step": "nvcc-ptx",
            "tool": tool_version("nvcc"),
            "target": target,
            "flags": list(flags),
        }
        key = self.cache.key(parts, [src])
        hit = self.cache.get(key)
        if hit is not None:
            return hit[1]["out.ptx"].decode()
        nvcc = require_tool("nvcc")
        with tempfile.TemporaryDirectory() as td:
            out = Path(td) / "out.ptx"
            cu = Path(td) / cu_path.name
            cu.write_bytes(src)
            _run(
                [nvcc, f"-arch={target}", "-ptx", *flags, str(cu), "-o", str(out)],
                subject,
                "nvcc",
                cwd=td,
            )
            ptx = out.read_bytes()
        self.cache.put(key, {"parts": parts, "source": str(cu_path)}, {"out.ptx": ptx})
        return ptx.decode()

    # ptxas: .ptx -> cubin + -v figures
    def ptxas(
        self, ptx: str, target: str, flags: Sequence[str] = (), subject: str = "<ptx>"
    ) -> PtxasResult:
        data = ptx.encode()
        parts = {
            "step": "ptxas",
            "tool": tool_version("ptxas"),
            "target": target,
            "flags": list(flags),
        }
        key = self.cache.key(parts, [data])
        hit = self.cache.get(key)
        if hit is not None:
            meta, files = hit
            log = files["log.txt"].decode()
            gmem, funcs = parse_ptxas_verbose(log)
            return PtxasResult(files["out.cubin"], gmem, funcs, float(meta["wall_ms"]), log)
        ptxas = require_tool("ptxas")
        with tempfile.TemporaryDirectory() as td:
            inp = Path(td) / "in.ptx"
            out = Path(td) / "out.cubin"
            inp.write_bytes(data)
            proc, ms = _run(
                [ptxas, "-v", f"-arch={target}", *flags, str(inp), "-o", str(out)],
                subject,
                "ptxas",
                cwd=td,
            )
            cubin = out.read_bytes()
        log = (proc.stdout + proc.stderr).decode(errors="replace")
        gmem, funcs = parse_ptxas_verbose(log)
        self.cache.put(
            key, {"parts": parts, "wall_ms": ms}, {"out.cubin": cubin, "log.txt": log.encode()}
        )
        return PtxasResult(cubin, gmem, funcs, ms, log)

    # nvdisasm: cubin -> SASS text with hex words
    def nvdisasm(
        self, cubin: bytes, subject: str = "<cubin>", flags: Sequence[str] = ("-hex", "-c")
    ) -> str:
        parts = {"step": "nvdisasm", "tool": tool_version("nvdisasm"), "flags": list(flags)}
        key = self.cache.key(parts, [cubin])
        hit = self.cache.get(key)
        if hit is not None:
            return hit[1]["out.sass"].decode()
        nvdisasm = require_tool("nvdisasm")
        with tempfile.TemporaryDirectory() as td:
            inp = Path(td) / "in.cubin"
            inp.write_bytes(cubin)
            proc, _ = _run([nvdisasm, *flags, str(inp)], subject, "nvdisasm", cwd=td)
        text = proc.stdout
        self.cache.put(key, {"parts": parts}, {"out.sass": text})
        return text.decode(errors="replace")

    def build_kernel(
        self,
        ks: KernelSource,
        target: str,
        extra_ptxas_flags: Sequence[str] = (),
        variant: str = "",
    ) -> BuildResult:
        ptx = self.cu_to_ptx(ks.cu_path, target, ks.nvcc_flags, subject=ks.name)
        res = self.ptxas(
            ptx, target, [*ks.ptxas_flags, *extra_ptxas_flags], subject=f"{ks.name} [{target}]"
        )
        sass = self.nvdisasm(res.cubin, subject=f"{ks.name} [{target}]")
        return BuildResult(ks.name, target, ptx, res, sass, variant)

    def build_ptx_file(self, path: Path, target: str, flags: Sequence[str] = ()) -> BuildResult:
        ptx = path.read_text()
        res = self.ptxas(ptx, target, flags, subject=f"{path} [{target}]")
        sass = self.nvdisasm(res.cubin, subject=f"{path} [{target}]")
        return BuildResult(str(path), target, ptx, res, sass)


# ----------------------------------------------------------------------------------------------
# CLI


@dataclass
class Row:
    kernel: str
    function: str
    target: str
    registers: int
    instructions: int
    spill_bytes: int
    stack: int
    smem: int
    ptxas_ms: float


def rows_for(build: BuildResult) -> list[Row]:
    sass = build.sass()
    rows = []
    for f in build.ptxas.functions:
        instrs = sass.get(f.name, [])
        rows.append(
            Row(
                build.name,
                f.name,
                build.target,
                f.registers,
                body_length(instrs),
                f.spill_stores + f.spill_loads,
                f.stack_frame,
                f.smem,
                build.ptxas.wall_ms,
            )
        )
    return rows


def format_table(rows: Sequence[Row]) -> str:
    head = ("kernel", "function", "target", "regs", "instrs", "spill B", "stack", "smem", "ms")
    body = [
        (
            r.kernel,
            r.function,
            r.target,
            str(r.registers),
            str(r.instructions),
            str(r.spill_bytes),
            str(r.stack),
            str(r.smem),
            f"{r.ptxas_ms:.1f}",
        )
        for r in rows
    ]
    tot = (
        "TOTAL",
        f"{len(rows)} functions",
        "",
        str(sum(r.registers for r in rows)),
        str(sum(r.instructions for r in rows)),
        str(sum(r.spill_bytes for r in rows)),
        str(sum(r.stack for r in rows)),
        str(sum(r.smem for r in rows)),
        f"{sum(r.ptxas_ms for r in _unique_builds(rows)):.1f}",
    )
    allrows = [head, *body, tot]
    widths = [max(len(r[i]) for r in allrows) for i in range(len(head))]
    fmt = "  ".join(f"{{:<{w}}}" if i < 3 else f"{{:>{w}}}" for i, w in enumerate(widths))
    lines = [fmt.format(*r) for r in allrows]
    lines.insert(1, "-" * len(lines[0]))
    lines.insert(len(lines) - 1, "-" * len(lines[0]))
    return "\n".join(lines)


def _unique_builds(rows: Sequence[Row]) -> list[Row]:
    seen: set[tuple[str, str]] = set()
    out = []
    for r in rows:
        if (r.kernel, r.target) not in seen:
            seen.add((r.kernel, r.target))
            out.append(r)
    return out


def _cmd_build(args: argparse.Namespace) -> int:
    oracle = Oracle(Cache(Path(args.cache)) if args.cache else None)
    targets = args.targets.split(",") if args.targets else ["sm_90"]
    for t in targets:
        if t not in ALL_TARGETS:
            print(
                f"oracle: unknown target '{t}' (known: {', '.join(ALL_TARGETS)})", file=sys.stderr
            )
            return 2
    jobs: list[tuple[str, Any]] = []
    if args.ptx_dir:
        for p in sorted(Path(args.ptx_dir).rglob("*.ptx")):
            for t in targets:
                jobs.append((t, p))
    else:
        kernels = discover(Path(args.root)) if args.root else discover()
        if args.kernels:
            kernels = [
                k
                for k in kernels
                if fnmatch.fnmatch(k.name, args.kernels) or fnmatch.fnmatch(k.stem, args.kernels)
            ]
        for k in kernels:
            for t in targets:
                if k.compiles_for(t):
                    jobs.append((t, k))

    def work(job: tuple[str, Any]) -> list[Row] | OracleError:
        t, item = job
        try:
            b = (
                oracle.build_ptx_file(item, t)
                if isinstance(item, Path)
                else oracle.build_kernel(item, t)
            )
        except OracleError as exc:
            return exc
        return rows_for(b)

    with ThreadPoolExecutor(max_workers=args.jobs or os.cpu_count() or 1) as ex:
        results = list(ex.map(work, jobs))
    rows: list[Row] = []
    failures: list[OracleError] = []
    for r in results:
        if isinstance(r, OracleError):
            failures.append(r)
        else:
            rows.extend(r)
    print(format_table(rows))
    print(
        f"\n{len(jobs)} builds, {len(failures)} failed; cache: {oracle.cache.hits} hits, "
        f"{oracle.cache.misses} misses ({oracle.cache.root})"
    )
    if args.json:
        Path(args.json).write_text(json.dumps([asdict(r) for r in rows], indent=1))
    for f in failures:
        print(f"error: {f}", file=sys.stderr)
    return 1 if failures else 0


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m openptxas.testing.oracle",
        description="Build the kernel corpus with NVIDIA's tools.",
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="nvcc -> ptxas -v -> nvdisasm for every kernel and target")
    b.add_argument(
        "--targets", help=f"comma-separated, default sm_90 (known: {','.join(ALL_TARGETS)})"
    )
    b.add_argument("--kernels", help="glob on kernel names (e.g. 't1/*' or 'vec*')")
    b.add_argument("--root", help="kernel corpus root (default tests/kernels)")
    b.add_argument("--ptx-dir", help="build every .ptx file under this directory instead")
    b.add_argument("--jobs", type=int, default=0)
    b.add_argument(
        "--cache", help="cache directory (default .cache/oracle or $OPENPTXAS_ORACLE_CACHE)"
    )
    b.add_argument("--json", help="also write the table as JSON")
    args = ap.parse_args(argv)
    if args.cmd == "build":
        return _cmd_build(args)
    return 2


if __name__ == "__main__":
    sys.exit(main())
