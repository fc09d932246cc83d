"""The benchmark's results: what was measured per file and per compiler, and their JSON form."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

SCHEMA = 1


class Status(StrEnum):
    OK = "ok"
    ERROR = "error"  # the compiler rejected the input with a diagnostic (e.g. UnsupportedFeature)
    CRASH = "crash"  # internal error, traceback, signal, or an unreadable output
    TIMEOUT = "timeout"


class Side(StrEnum):
    PTXAS = "ptxas"
    OPENPTXAS = "openptxas"


@dataclass(frozen=True, slots=True)
class FunctionFigures:
    """One function of a compiled file: the ``-v`` figures and what nvdisasm shows."""

    name: str
    entry: bool = True  # a kernel (.entry), not a device function (.func)
    registers: int = 0
    spill_stores: int = 0
    spill_loads: int = 0
    stack_frame: int = 0
    # Of the function's own .text section (None: it has none, its code is in its caller's).
    instructions: int | None = None  # SASS instructions without end padding
    stall_cycles: int | None = None  # sum of the control codes' stall counts over them

    @staticmethod
    def from_dict(d: dict[str, Any]) -> FunctionFigures:
        return FunctionFigures(**d)


@dataclass(frozen=True, slots=True)
class CompilerRun:
    """One compiler on one file: timings of every run, peak memory and the static figures."""

    status: Status
    message: str = ""  # the compiler's diagnostics when it failed
    wall_ms: tuple[float, ...] = ()  # one entry per timed run, each a separate process
    peak_rss_kb: int = 0  # the largest max-RSS of those processes
    inproc_ms: tuple[float, ...] = ()  # openptxas only: compile_ptx in the benchmark's process
    functions: tuple[FunctionFigures, ...] = ()
    cubin: str = ""  # the kept cubin, relative to the output directory ("" if not kept)
    cubin_sha256: str = ""
    sass_error: str = ""  # nvdisasm could not read the cubin

    @property
    def ok(self) -> bool:
        return self.status is Status.OK

    @property
    def wall_min(self) -> float | None:
        return min(self.wall_ms) if self.wall_ms else None

    @property
    def inproc_min(self) -> float | None:
        return min(self.inproc_ms) if self.inproc_ms else None

    def total(self, attr: str) -> int | None:
        """Sum of a per-function figure over the functions that have it; None if none has it.

        The SASS figures are per ``.text`` section: ptxas puts a kernel's callees inside the
        kernel's own section, so a callee has none and the kernel's figure covers it."""
        vals = [v for f in self.functions if (v := getattr(f, attr)) is not None]
        return int(sum(vals)) if vals else None

    def entry_total(self, attr: str) -> int | None:
        """Sum over the kernels (a kernel's figure already covers the functions it calls)."""
        vals = [getattr(f, attr) for f in self.functions if f.entry]
        return int(sum(vals)) if vals else None

    def maximum(self, attr: str) -> int | None:
        vals = [getattr(f, attr) for f in self.functions]
        if not vals or any(v is None for v in vals):
            return None
        return int(max(vals))

    @staticmethod
    def from_dict(d: dict[str, Any]) -> CompilerRun:
        return CompilerRun(
            status=Status(d["status"]),
            message=d.get("message", ""),
            wall_ms=tuple(d.get("wall_ms", ())),
            peak_rss_kb=int(d.get("peak_rss_kb", 0)),
            inproc_ms=tuple(d.get("inproc_ms", ())),
            functions=tuple(FunctionFigures.from_dict(f) for f in d.get("functions", ())),
            cubin=d.get("cubin", ""),
            cubin_sha256=d.get("cubin_sha256", ""),
            sass_error=d.get("sass_error", ""),
        )


@dataclass(frozen=True, slots=True)
class EmuLaunch:
    """One launch spec run in the emulator on one compiler's cubin."""

    kernel: str
    side: Side
    instructions: int | None = None  # dynamic warp instructions
    cycles: float | None = None  # the latency model's estimate
    error: str = ""

    @staticmethod
    def from_dict(d: dict[str, Any]) -> EmuLaunch:
        return EmuLaunch(
            d["kernel"], Side(d["side"]), d.get("instructions"), d.get("cycles"), d.get("error", "")
        )


@dataclass(frozen=True, slots=True)
class GpuLaunch:
    """One launch spec timed on a GPU (``python -m bench.gpu``) on one compiler's cubin."""

    kernel: str
    side: Side
    ms: float | None = None  # kernel time by CUDA events (min over the timed launches)
    error: str = ""
    matches_ptxas: bool | None = None  # openptxas side: outputs bit-identical to ptxas's

    @staticmethod
    def from_dict(d: dict[str, Any]) -> GpuLaunch:
        return GpuLaunch(
            d["kernel"],
            Side(d["side"]),
            d.get("ms"),
            d.get("error", ""),
            d.get("matches_ptxas"),
        )


@dataclass(frozen=True, slots=True)
class FileResult:
    name: str  # "t1/vec_add" for a corpus kernel, the path below --ptx-dir otherwise
    target: str
    source: str  # where the PTX came from
    ptx_lines: int
    ptxas_flags: tuple[str, ...]
    ptxas: CompilerRun
    openptxas: CompilerRun
    specs: str = ""  # launch-spec document (relative to the repository root when inside it)
    emu: tuple[EmuLaunch, ...] = ()
    gpu: tuple[GpuLaunch, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.name} [{self.target}]"

    def run(self, side: Side) -> CompilerRun:
        return self.ptxas if side is Side.PTXAS else self.openptxas

    def emu_total(self, side: Side, attr: str) -> float | None:
        """Sum over this file's emulated launches; None unless every one of them gave a value."""
        vals = [getattr(e, attr) for e in self.emu if e.side is side]
        if not vals or any(v is None for v in vals):
            return None
        return float(sum(vals))

    def gpu_total(self, side: Side) -> float | None:
        vals = [g.ms for g in self.gpu if g.side is side]
        if not vals or any(v is None for v in vals):
            return None
        return float(sum(v for v in vals if v is not None))

    @staticmethod
    def from_dict(d: dict[str, Any]) -> FileResult:
        return FileResult(
            name=d["name"],
            target=d["target"],
            source=d["source"],
            ptx_lines=int(d["ptx_lines"]),
            ptxas_flags=tuple(d.get("ptxas_flags", ())),
            ptxas=CompilerRun.from_dict(d["ptxas"]),
            openptxas=CompilerRun.from_dict(d["openptxas"]),
            specs=d.get("specs", ""),
            emu=tuple(EmuLaunch.from_dict(e) for e in d.get("emu", ())),
            gpu=tuple(GpuLaunch.from_dict(g) for g in d.get("gpu", ())),
        )


@dataclass(frozen=True, slots=True)
class RunMeta:
    command: str
    date: str
    commit: str
    runs: int
    targets: tuple[str, ...]
    inputs: str  # "corpus" or the directory
    ptxas_version: str
    openptxas_version: str
    python: str
    platform: str
    cpus: int
    # Start-up alone (min over the runs): `ptxas --version`, `python -m openptxas.cli --version`.
    ptxas_startup_ms: float | None = None
    openptxas_startup_ms: float | None = None
    rss_floor_kb: int = 0  # the smallest max RSS the measurement can report
    emulator: str = ""  # "available" or why not
    gpu: str = ""  # the GPU whose timings were merged, or why none
    notes: tuple[str, ...] = ()

    @staticmethod
    def from_dict(d: dict[str, Any]) -> RunMeta:
        return RunMeta(
            **{
                **d,
                "targets": tuple(d.get("targets", ())),
                "notes": tuple(d.get("notes", ())),
            }
        )


@dataclass(frozen=True, slots=True)
class Results:
    meta: RunMeta
    files: tuple[FileResult, ...] = field(default_factory=tuple)

    def with_files(self, files: tuple[FileResult, ...]) -> Results:
        return replace(self, files=files)

    def to_json(self) -> str:
        return json.dumps(
            {"schema": SCHEMA, "meta": asdict(self.meta), "files": [asdict(f) for f in self.files]},
            indent=1,
        )

    @staticmethod
    def from_json(text: str) -> Results:
        doc = json.loads(text)
        if doc.get("schema") != SCHEMA:
            raise ValueError(f"results schema {doc.get('schema')!r}, expected {SCHEMA}")
        return Results(
            RunMeta.from_dict(doc["meta"]),
            tuple(FileResult.from_dict(f) for f in doc["files"]),
        )

    @staticmethod
    def load(path: Path) -> Results:
        return Results.from_json(path.read_text())
