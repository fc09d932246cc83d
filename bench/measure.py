"""Measuring both compilers on one PTX file, runs interleaved.

Each timed run is a separate process, as a user runs the compiler: ``ptxas`` and
``python -m openptxas.cli`` (interpreter start-up included). Wall time is taken around the
process, peak memory is the process's own max RSS from ``os.wait4`` (getrusage's RUSAGE_CHILDREN
would fold every child ever reaped into one maximum). The two compilers alternate run by run, in
alternating order, so that machine noise hits both alike. openptxas is also timed in this process
(``compile_ptx`` after a warm-up), which separates start-up from compile work; its figures
(registers, spills, stack) come from that ``CompileResult``, ptxas's from its ``-v`` report.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from bench.emu import EmuUnavailable, emulate
from bench.inputs import BenchInput
from bench.model import CompilerRun, EmuLaunch, FileResult, FunctionFigures, Side, Status
from bench.static import SassFigures, sass_figures
from openptxas.testing.corpus import REPO_ROOT
from openptxas.testing.oracle import Oracle, OracleError, parse_ptxas_verbose
from openptxas.testing.tools import require_tool

# How many lines of a compiler's diagnostics a failure keeps.
MESSAGE_LINES = 6


@dataclass(frozen=True, slots=True)
class ProcRun:
    wall_ms: float
    maxrss_kb: int
    returncode: int  # negative: killed by that signal
    output: str  # stdout and stderr, interleaved
    timed_out: bool = False


# The measured process is started by this small launcher (``python -S -I``, about 7 MiB), not by
# the benchmark itself: on Linux a child's max RSS includes its spawner's at exec time, so a
# process started straight from the benchmark (which holds numpy, matplotlib, ...) would read as
# at least the benchmark's size. The launcher times the child from spawn to exit and writes
# "max-RSS-KiB wall-ns exit-code" to the file named by its first argument.
_LAUNCHER = """
import os, sys, time
res, cmd = sys.argv[1], sys.argv[2:]
t0 = time.perf_counter_ns()
try:
    pid = os.posix_spawnp(cmd[0], cmd, os.environ)
except OSError as exc:
    print(f"cannot run {cmd[0]}: {exc}", file=sys.stderr)
    sys.exit(127)
_, status, usage = os.wait4(pid, 0)
t1 = time.perf_counter_ns()
with open(res, "w") as f:
    f.write(f"{usage.ru_maxrss} {t1 - t0} {os.waitstatus_to_exitcode(status)}")
"""


def run_process(
    cmd: Sequence[str],
    env: Mapping[str, str] | None = None,
    timeout_s: float = 600.0,
    cwd: str | None = None,
) -> ProcRun:
    """Run ``cmd`` to completion: its wall time, its own max RSS and its output."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryDirectory() as td:
        res = Path(td) / "rusage"
        proc = subprocess.Popen(
            [sys.executable, "-S", "-I", "-c", _LAUNCHER, str(res), *cmd],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=cwd,
            start_new_session=True,  # a timeout kills the launcher and the compiler together
        )
        killed = threading.Event()

        def kill() -> None:
            killed.set()
            os.killpg(proc.pid, signal.SIGKILL)

        # A blocking wait (Popen.wait with a timeout polls, up to 50 ms late).
        timer = threading.Timer(timeout_s, kill)
        timer.start()
        try:
            rc = proc.wait()
        finally:
            timer.cancel()
        timed_out = killed.is_set()
        out.seek(0)
        text = out.read().decode(errors="replace")
        fields = res.read_text().split() if res.exists() else []
    if len(fields) != 3:
        return ProcRun(timeout_s * 1000.0 if timed_out else 0.0, 0, rc or -1, text, timed_out)
    # ru_maxrss is in KiB on Linux.
    return ProcRun(int(fields[1]) / 1e6, int(fields[0]), int(fields[2]), text, timed_out)


def rss_floor_kb() -> int:
    """The smallest max RSS this measurement can report (the launcher's own share)."""
    return run_process(["true"]).maxrss_kb


def child_env() -> dict[str, str]:
    """The environment of openptxas's processes: this checkout first on the path, and no IR
    verification (tests switch it on; users do not)."""
    env = dict(os.environ)
    env.pop("OPENPTXAS_VERIFY", None)
    # As an installed package runs: from byte-code caches (some machines set
    # PYTHONDONTWRITEBYTECODE, which makes every start re-compile ~1 MB of ISA tables).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO_ROOT), env.get("PYTHONPATH", "")) if p)
    return env


@contextlib.contextmanager
def no_verify() -> Iterator[None]:
    """In-process compiles without the IR verifier (restores the caller's setting)."""
    old = os.environ.pop("OPENPTXAS_VERIFY", None)
    try:
        yield
    finally:
        if old is not None:
            os.environ["OPENPTXAS_VERIFY"] = old


def startup_ms(runs: int) -> tuple[float | None, float | None]:
    """Start-up cost alone: ``ptxas --version`` and ``python -m openptxas.cli --version``."""
    env = child_env()
    p = [run_process([require_tool("ptxas"), "--version"]).wall_ms for _ in range(runs)]
    o = [
        run_process([sys.executable, "-m", "openptxas.cli", "--version"], env).wall_ms
        for _ in range(runs)
    ]
    return min(p, default=None), min(o, default=None)


def _diagnostics(output: str) -> str:
    """The compiler's error lines (the -v report and the closing 'aborted' line left out)."""
    keep = [
        ln
        for ln in output.splitlines()
        if ln.strip()
        and not ln.startswith("ptxas info")
        and not ln.startswith("    ")
        and "Ptx assembly aborted due to errors" not in ln
    ]
    return "\n".join(keep[:MESSAGE_LINES]) or output.strip()[:400]


def _classify(run: ProcRun) -> Status:
    if run.timed_out:
        return Status.TIMEOUT
    if run.returncode == 0:
        return Status.OK
    if run.returncode == 255 and "internal error" not in run.output:
        return Status.ERROR
    return Status.CRASH


@dataclass(frozen=True, slots=True)
class InProcess:
    status: Status
    message: str
    times_ms: tuple[float, ...]
    cubin: bytes
    functions: tuple[FunctionFigures, ...]


def compile_in_process(inp: BenchInput, runs: int) -> InProcess:
    """``compile_ptx`` ``runs`` times after one warm-up (which pays the lazy imports)."""
    from openptxas.diag import InternalError, OpenPtxasError, UsageError
    from openptxas.driver import compile_ptx
    from openptxas.options import parse_args

    times: list[float] = []
    try:
        # the same command line as the timed process (-v is recorded in .note.nv.tkinfo)
        opts = parse_args(
            ["-v", f"-arch={inp.target}", *inp.ptxas_flags, "in.ptx", "-o", "out.cubin"]
        ).options
        with no_verify():
            result = compile_ptx(inp.ptx, opts, "in.ptx")
            for _ in range(runs):
                t0 = time.perf_counter()
                result = compile_ptx(inp.ptx, opts, "in.ptx")
                times.append((time.perf_counter() - t0) * 1000.0)
    except (InternalError, UsageError) as exc:
        return InProcess(Status.CRASH, exc.render(), (), b"", ())
    except OpenPtxasError as exc:
        return InProcess(Status.ERROR, exc.render(), (), b"", ())
    except Exception as exc:  # a bug in openptxas: record it, keep measuring the others
        return InProcess(Status.CRASH, f"internal error: {type(exc).__name__}: {exc}", (), b"", ())
    funcs = tuple(
        FunctionFigures(
            f.name,
            entry=f.is_entry,
            registers=f.registers,
            spill_stores=f.spill_stores,
            spill_loads=f.spill_loads,
            stack_frame=f.stack_frame,
        )
        for f in result.functions
    )
    return InProcess(Status.OK, "", tuple(times), result.cubin, funcs)


def _with_sass(
    funcs: Sequence[FunctionFigures], sass: Mapping[str, SassFigures]
) -> tuple[FunctionFigures, ...]:
    out = []
    for f in funcs:
        s = sass.get(f.name)
        out.append(
            replace(
                f,
                instructions=s.instructions if s else None,
                stall_cycles=s.stall_cycles if s else None,
            )
        )
    return tuple(out)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name)


OPENPTXAS_CLI: tuple[str, ...] = (sys.executable, "-m", "openptxas.cli")


@dataclass(frozen=True, slots=True)
class Settings:
    runs: int = 3
    timeout_s: float = 600.0
    keep_dir: Path | None = None  # write both cubins under keep_dir/cubins/
    emulate: bool = True
    # How openptxas is run: as a process (ptxas's arguments follow) and in this process.
    openptxas_cmd: tuple[str, ...] = OPENPTXAS_CLI
    in_process: Callable[[BenchInput, int], InProcess] = compile_in_process


def measure(inp: BenchInput, oracle: Oracle, settings: Settings) -> FileResult:
    ptxas = require_tool("ptxas")
    env = child_env()
    with tempfile.TemporaryDirectory(prefix="openptxas-bench-") as td:
        # Relative names, run in the temporary directory: diagnostics carry no random paths.
        ptx = Path("in.ptx")
        (Path(td) / ptx).write_text(inp.ptx)
        outs = {Side.PTXAS: Path("ptxas.cubin"), Side.OPENPTXAS: Path("openptxas.cubin")}
        cmds = {
            Side.PTXAS: [ptxas, "-v", f"-arch={inp.target}", *inp.ptxas_flags, str(ptx)],
            Side.OPENPTXAS: [
                *settings.openptxas_cmd,
                "-v",
                f"-arch={inp.target}",
                *inp.ptxas_flags,
                str(ptx),
            ],
        }
        runs: dict[Side, list[ProcRun]] = {Side.PTXAS: [], Side.OPENPTXAS: []}
        for i in range(settings.runs):
            order = (Side.PTXAS, Side.OPENPTXAS) if i % 2 == 0 else (Side.OPENPTXAS, Side.PTXAS)
            for side in order:
                done = runs[side]
                if done and done[-1].returncode != 0:
                    continue  # a failure repeats: time it once
                (Path(td) / outs[side]).unlink(missing_ok=True)
                done.append(
                    run_process(
                        [*cmds[side], "-o", str(outs[side])],
                        env if side is Side.OPENPTXAS else None,
                        settings.timeout_s,
                        cwd=td,
                    )
                )
        cubins = {
            s: (Path(td) / outs[s]).read_bytes()
            if runs[s][-1].returncode == 0 and (Path(td) / outs[s]).exists()
            else b""
            for s in Side
        }
    inproc = settings.in_process(inp, settings.runs)

    p_run = _ptxas_run(inp, oracle, runs[Side.PTXAS], cubins[Side.PTXAS])
    o_run = _openptxas_run(inp, oracle, runs[Side.OPENPTXAS], cubins[Side.OPENPTXAS], inproc)
    if settings.keep_dir is not None:
        p_run, o_run = (
            _keep(run, cubins[side], settings.keep_dir, inp, side)
            for run, side in ((p_run, Side.PTXAS), (o_run, Side.OPENPTXAS))
        )
    emu = _emulate(inp, cubins, p_run, o_run) if settings.emulate and inp.specs else ()
    return FileResult(
        name=inp.name,
        target=inp.target,
        source=inp.source,
        ptx_lines=inp.ptx.count("\n"),
        ptxas_flags=inp.ptxas_flags,
        ptxas=p_run,
        openptxas=o_run,
        specs=inp.specs_path,
        emu=emu,
    )


def _sass_or_error(
    oracle: Oracle, cubin: bytes, subject: str
) -> tuple[dict[str, SassFigures], str]:
    try:
        return sass_figures(oracle, cubin, subject), ""
    except OracleError as exc:
        return {}, _diagnostics(exc.tool_message)


def _ptxas_run(inp: BenchInput, oracle: Oracle, runs: list[ProcRun], cubin: bytes) -> CompilerRun:
    last = runs[-1]
    status = _classify(last)
    if status is not Status.OK:
        return CompilerRun(status, _diagnostics(last.output), tuple(r.wall_ms for r in runs))
    _, stats = parse_ptxas_verbose(last.output)
    funcs = [
        FunctionFigures(
            f.name, f.kind == "entry", f.registers, f.spill_stores, f.spill_loads, f.stack_frame
        )
        for f in stats
    ]
    sass, sass_error = _sass_or_error(oracle, cubin, f"{inp.key} ptxas")
    return CompilerRun(
        Status.OK,
        wall_ms=tuple(r.wall_ms for r in runs),
        peak_rss_kb=max(r.maxrss_kb for r in runs),
        functions=_with_sass(funcs, sass),
        cubin_sha256=hashlib.sha256(cubin).hexdigest(),
        sass_error=sass_error,
    )


def _openptxas_run(
    inp: BenchInput, oracle: Oracle, runs: list[ProcRun], cubin: bytes, inproc: InProcess
) -> CompilerRun:
    last = runs[-1]
    status = _classify(last)
    walls = tuple(r.wall_ms for r in runs)
    if status is not Status.OK:
        return CompilerRun(status, _diagnostics(last.output), walls)
    if inproc.status is not Status.OK:
        msg = f"the CLI compiled it but compile_ptx failed: {inproc.message}"
        return CompilerRun(Status.CRASH, msg, walls)
    notes = []
    if inproc.cubin != cubin:
        notes.append("warning: the CLI's cubin differs from compile_ptx's (non-determinism?)")
    sass, sass_error = _sass_or_error(oracle, cubin, f"{inp.key} openptxas")
    if sass_error:
        # A cubin nvdisasm cannot read is a broken output, not a compiled file.
        return CompilerRun(
            Status.CRASH,
            f"nvdisasm cannot read openptxas's cubin: {sass_error}",
            walls,
            max(r.maxrss_kb for r in runs),
            inproc.times_ms,
            sass_error=sass_error,
        )
    return CompilerRun(
        Status.OK,
        "\n".join(notes),
        walls,
        max(r.maxrss_kb for r in runs),
        inproc.times_ms,
        _with_sass(inproc.functions, sass),
        cubin_sha256=hashlib.sha256(cubin).hexdigest(),
    )


def _keep(
    run: CompilerRun, cubin: bytes, keep_dir: Path, inp: BenchInput, side: Side
) -> CompilerRun:
    if not run.ok or not cubin:
        return run
    rel = Path("cubins") / f"{_safe(inp.name)}.{inp.target}.{side.value}.cubin"
    (keep_dir / rel).parent.mkdir(parents=True, exist_ok=True)
    (keep_dir / rel).write_bytes(cubin)
    return replace(run, cubin=rel.as_posix())


def _emulate(
    inp: BenchInput, cubins: Mapping[Side, bytes], p_run: CompilerRun, o_run: CompilerRun
) -> tuple[EmuLaunch, ...]:
    out: list[EmuLaunch] = []
    for side, run in ((Side.PTXAS, p_run), (Side.OPENPTXAS, o_run)):
        if not run.ok:
            continue
        for spec in inp.specs:
            try:
                fig = emulate(cubins[side], spec)
            except EmuUnavailable:
                return ()
            except Exception as exc:  # the emulator's failure on one launch, recorded
                out.append(EmuLaunch(spec.kernel, side, error=f"{type(exc).__name__}: {exc}"))
                continue
            out.append(EmuLaunch(spec.kernel, side, fig.instructions, fig.cycles))
    return tuple(out)
