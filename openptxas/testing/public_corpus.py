"""The public reference corpus: ptxas 13.0's cubins of CUDA code written outside this project.

Sources are public repositories, read from git snapshots ("mirrors") at their HEAD commit, plus
Triton kernels made by ``scripts/ptx_gen_triton.py``. Each selected ``.cu`` file gives one entry
per target: nvcc 13.0 -> PTX (``nvcc -ptx``), then ptxas 13.0.88 -> cubin, for sm_90 and sm_90a.
Every output lives in a git-ignored cache; nothing built from fetched code is committed.
``manifest.json`` in the cache lists every entry, built or skipped (with the reason), and is
rewritten atomically while the build goes on, so other tools can read it at any time.

Locations: ``$OPENPTXAS_PUBLIC_CORPUS`` (default ``<repo>/.cache/public-corpus``) and
``$OPENPTXAS_MIRRORS`` (default ``/work/.mirror``: one ``OWNER+NAME/repo`` git directory, bare or
with a ``.git`` inside, per repository).

CLI (``scripts/public_corpus.py`` is the same)::

    python -m openptxas.testing.public_corpus build [--jobs 2] [--repos GLOB] [--targets sm_90,...]
    python -m openptxas.testing.public_corpus list [--target sm_90] [--skipped]
    python -m openptxas.testing.public_corpus stats [--json]

Python API: :func:`load_manifest`, :func:`iter_entries`, :func:`iter_cubins`, :func:`corpus_root`,
:func:`cubin_path`, :func:`ptx_path`.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import posixpath
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openptxas.diag import CubinFormatError
from openptxas.elf.consts import NOBITS_TYPES
from openptxas.elf.elffile import parse_elf
from openptxas.elf.reader import read_cubin
from openptxas.testing.corpus import REPO_ROOT
from openptxas.testing.tools import require_tool, tool_version

MANIFEST_FORMAT = 1
DEFAULT_TARGETS: tuple[str, ...] = ("sm_90", "sm_90a")
DEFAULT_MIRRORS = Path("/work/.mirror")
TRITON_SCRIPT = REPO_ROOT / "scripts" / "ptx_gen_triton.py"
TRITON_REPO = "triton"  # the repo name of the Triton entries in the manifest
TOOL_TIMEOUT_S = 900
INSTR_BYTES = 16

Entry = dict[str, Any]


def corpus_root() -> Path:
    """The corpus location: ``$OPENPTXAS_PUBLIC_CORPUS`` or ``<repo>/.cache/public-corpus``."""
    env = os.environ.get("OPENPTXAS_PUBLIC_CORPUS")
    return Path(env) if env else REPO_ROOT / ".cache" / "public-corpus"


def mirrors_root() -> Path:
    """Where the git snapshots are: ``$OPENPTXAS_MIRRORS`` or ``/work/.mirror``."""
    env = os.environ.get("OPENPTXAS_MIRRORS")
    return Path(env) if env else DEFAULT_MIRRORS


def manifest_path(root: Path | None = None) -> Path:
    return (root or corpus_root()) / "manifest.json"


# ----------------------------------------------------------------------------------------------
# What is taken from each repository


@dataclass(frozen=True)
class RepoSpec:
    """How one repository's translation units are selected and compiled.

    ``sources``/``exclude`` are fnmatch patterns on paths relative to the repository root (``*``
    matches ``/`` too). nvcc runs in the extracted root (``<corpus>/src/OWNER+NAME``), so
    ``include_dirs`` (relative to it; ``../OTHER+REPO/...`` reaches another extracted repository)
    and the recorded flags are reproducible. ``system_includes`` names header sets taken from the
    Python environment when present (:func:`system_include_dirs`); a file that needs one that is
    absent is skipped with the missing header as its reason.
    """

    name: str  # "owner/name"
    sources: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    nvcc_flags: tuple[str, ...] = ()
    system_includes: tuple[str, ...] = ("cuda-libs",)
    file_flags: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (pattern, extra nvcc flags)

    def flags_for(self, source: str) -> list[str]:
        """The nvcc flags of ``source`` past ``-ptx -arch``: the repo's, then the file's own."""
        out = list(self.nvcc_flags)
        for d in self.include_dirs:
            out += ["-I", d]
        for pattern, extra in self.file_flags:
            if fnmatch.fnmatchcase(source, pattern):
                out += extra
        return out

    @property
    def mirror_name(self) -> str:
        return self.name.replace("/", "+")


# CUDA 13 removed the cudaThread* runtime calls that old benchmarks still use on the host side.
_CUDA_THREAD_API = (
    "-DcudaThreadSynchronize=cudaDeviceSynchronize",
    "-DcudaThreadExit=cudaDeviceReset",
)

REPOS: tuple[RepoSpec, ...] = (
    RepoSpec(
        "NVIDIA/cuda-samples",
        sources=("Samples/*.cu",),
        exclude=("Samples/8_Platform_Specific/*",),  # Tegra-only samples
        include_dirs=("Common",),
        file_flags=(
            ("Samples/5_Domain_Specific/FDTD3d/*", ("-I", "Samples/5_Domain_Specific/FDTD3d/inc")),
        ),
    ),
    RepoSpec(
        "yuhc/gpu-rodinia",
        sources=("cuda/*.cu", "others/*.cu"),
        nvcc_flags=_CUDA_THREAD_API,
        file_flags=(
            # the headers each benchmark's Makefile points at
            ("cuda/cfd/*", ("-I", "../NVIDIA+cuda-samples/Common")),
            ("cuda/lud/*", ("-I", "cuda/lud/common")),
            ("cuda/heartwall/*", ("-I", "cuda/heartwall/AVI")),
            ("cuda/leukocyte/*", ("-I", "cuda/leukocyte/meschach_lib")),
            ("cuda/mummergpu/*", ("-I", "cuda/mummergpu/src")),
        ),
    ),
    RepoSpec(
        "cavazos-lab/PolyBench-ACC",
        sources=("CUDA/*.cu",),
        include_dirs=("CUDA/utilities",),
        nvcc_flags=_CUDA_THREAD_API,
    ),
    RepoSpec(
        "karpathy/llm.c",
        sources=("*.cu",),
        include_dirs=(".",),
        nvcc_flags=("--use_fast_math",),  # as its Makefile builds it
    ),
    RepoSpec("siboehm/SGEMM_CUDA", sources=("*.cu",), include_dirs=("src",)),
    RepoSpec("b0nes164/GPUSorting", sources=("GPUSortingCUDA/*.cu",)),
    RepoSpec(
        "tspeterkim/flash-attention-minimal",
        sources=("flash.cu",),
        system_includes=("cuda-libs", "torch"),
    ),
    RepoSpec(
        "pranjalssh/fast.cu",
        sources=("*.cu",),
        include_dirs=(".",),
        # as its Makefile builds it, less -arch, -w and the host compiler's options
        nvcc_flags=(
            "-O3",
            "-DNDEBUG",
            "--expt-relaxed-constexpr",
            "--expt-extended-lambda",
            "--use_fast_math",
        ),
    ),
)


def system_include_dirs(kind: str) -> list[str]:
    """Header directories of optional dependencies installed as Python packages.

    ``cuda-libs``: cuBLAS/cuRAND/cuFFT headers of the ``nvidia-cublas`` / ``nvidia-curand`` /
    ``nvidia-cufft`` wheels (``site-packages/nvidia/cu13/include``); ``torch``: PyTorch's C++
    headers and Python's. Empty when not installed.
    """
    out: list[str] = []
    if kind == "cuda-libs":
        for entry in sys.path:
            d = Path(entry) / "nvidia" / "cu13" / "include"
            if d.is_dir() and str(d) not in out:
                out.append(str(d))
    elif kind == "torch":
        spec = importlib.util.find_spec("torch")
        if spec is not None and spec.origin:
            base = Path(spec.origin).parent / "include"
            if base.is_dir():
                out += [str(base), str(base / "torch" / "csrc" / "api" / "include")]
                out.append(sysconfig.get_paths()["include"])
    else:
        raise ValueError(f"unknown system include set {kind!r}")
    return out


# ----------------------------------------------------------------------------------------------
# Mirrors


def git_dir(mirror: Path) -> Path:
    """A snapshot's git directory: ``repo/.git`` for a clone with a work tree, else ``repo``."""
    repo = mirror / "repo"
    return repo / ".git" if (repo / ".git").is_dir() else repo


def _git(gd: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={gd}", *args], capture_output=True, check=True).stdout


def head_commit(gd: Path) -> str:
    return _git(gd, "rev-parse", "HEAD").decode().strip()


def extract(gd: Path, commit: str, dest: Path) -> tuple[Path, list[str]]:
    """Write ``commit``'s tree into ``dest`` once; return it and the paths the snapshot lacks.

    Snapshots may lack their largest blobs (``git archive`` then fails), so files are read one by
    one with ``git cat-file --batch``; absent blobs, symbolic links and submodules are left out and
    listed. A ``.extracted`` marker (commit, then the missing paths) makes a second call a no-op.
    """
    marker = dest / ".extracted"
    if marker.exists():
        lines = marker.read_text().splitlines()
        if lines and lines[0] == commit:
            return dest, lines[1:]
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=dest.name + ".", dir=dest.parent))
    listing = _git(gd, "ls-tree", "-r", "-z", "--full-tree", commit).decode(
        errors="surrogateescape"
    )
    blobs: list[tuple[str, str]] = []  # (oid, path)
    missing: list[str] = []
    for item in filter(None, listing.split("\0")):
        meta, path = item.split("\t", 1)
        mode, kind, oid = meta.split()
        if kind == "blob" and mode in ("100644", "100755"):
            blobs.append((oid, path))
        else:
            missing.append(path)
    proc = subprocess.run(
        ["git", f"--git-dir={gd}", "cat-file", "--batch"],
        input="".join(f"{oid}\n" for oid, _ in blobs).encode(),
        capture_output=True,
        check=True,
    )
    out, pos = proc.stdout, 0
    for _oid, path in blobs:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if len(header) < 3 or header[1] == b"missing":
            missing.append(path)
            continue
        size = int(header[2])
        target = tmp / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(out[pos : pos + size])
        pos += size + 1
    missing.sort()
    (tmp / ".extracted").write_text("\n".join([commit, *missing]) + "\n")
    if dest.exists():
        shutil.rmtree(dest)
    tmp.rename(dest)
    return dest, missing


_RE_INCLUDE_CU = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*["<]([^">]+\.cu)[">]', re.M)
_TEXT_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".c", ".cc", ".cpp", ".cxx", ".inl")


def included_sources(
    tree: Path, files: Sequence[str], include_dirs: Sequence[str]
) -> dict[str, str]:
    """``.cu`` files that another file ``#include``s (not translation units): path -> includer."""
    present = set(files)
    out: dict[str, str] = {}
    for f in files:
        if not f.endswith(_TEXT_SUFFIXES):
            continue
        try:
            text = (tree / f).read_bytes()
        except OSError:
            continue
        for m in _RE_INCLUDE_CU.finditer(text):
            inc = m.group(1).decode(errors="replace")
            bases = [posixpath.dirname(f), *include_dirs]
            for base in bases:
                cand = posixpath.normpath(posixpath.join(base, inc))
                if cand in present and cand != f:
                    out.setdefault(cand, f)
                    break
    return out


def select_sources(spec: RepoSpec, files: Sequence[str]) -> list[str]:
    """The repository's ``.cu`` files that ``spec`` selects, sorted."""
    out = []
    for f in files:
        if not f.endswith(".cu"):
            continue
        if not any(fnmatch.fnmatchcase(f, p) for p in spec.sources):
            continue
        if any(fnmatch.fnmatchcase(f, p) for p in spec.exclude):
            continue
        out.append(f)
    return sorted(out)


# ----------------------------------------------------------------------------------------------
# Jobs


@dataclass
class Job:
    """One entry to build: a source (a ``.cu`` file or a Triton variant) for one target."""

    id: str
    repo: str
    commit: str
    source: str
    target: str
    kind: str  # "nvcc" or "triton"
    nvcc_flags: list[str] = field(default_factory=list)
    ptxas_flags: list[str] = field(default_factory=list)
    tree: Path | None = None  # extracted source tree (nvcc jobs)
    skip: str | None = None  # decided before building (e.g. included by another file)
    key: str = ""
    ptx_key: str = ""  # Triton: key of the variant's PTX, shared by its targets

    def base(self) -> Path:
        """Output path stem, relative to the corpus root."""
        if self.kind == "triton":
            return Path("build") / self.target / TRITON_REPO / self.source
        return Path("build") / self.target / self.repo.replace("/", "+") / self.source


def _key(parts: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def entry_id(repo: str, source: str, target: str) -> str:
    return f"{repo}:{source}@{target}"


def _tool_versions(triton: bool) -> dict[str, str]:
    out = {"nvcc": tool_version("nvcc"), "ptxas": tool_version("ptxas")}
    if triton:
        out["triton"] = triton_version() or "not installed"
    return out


def triton_version() -> str | None:
    try:
        return importlib.metadata.version("triton")
    except importlib.metadata.PackageNotFoundError:
        return None


def repo_jobs(
    spec: RepoSpec, mirrors: Path, root: Path, targets: Sequence[str], tools: dict[str, str]
) -> tuple[list[Job], dict[str, Any]]:
    """Extract ``spec``'s snapshot at HEAD; list its jobs (one per source and target) and facts."""
    gd = git_dir(mirrors / spec.mirror_name)
    commit = head_commit(gd)
    tree, missing = extract(gd, commit, root / "src" / spec.mirror_name)
    files = _git(gd, "ls-tree", "-r", "--name-only", commit).decode().splitlines()
    inc_dirs = [
        *spec.include_dirs,
        *(f[i + 1] for _, f in spec.file_flags for i, a in enumerate(f) if a == "-I"),
    ]
    included = included_sources(tree, files, inc_dirs)
    sys_inc = [d for kind in spec.system_includes for d in system_include_dirs(kind)]
    jobs = []
    for src in select_sources(spec, files):
        for target in targets:
            flags = ["-ptx", f"-arch={target}", *spec.flags_for(src)]
            for d in sys_inc:
                flags += ["-I", d]
            job = Job(
                id=entry_id(spec.name, src, target),
                repo=spec.name,
                commit=commit,
                source=src,
                target=target,
                kind="nvcc",
                nvcc_flags=flags,
                ptxas_flags=[f"-arch={target}"],
                tree=tree,
            )
            if src in included:
                job.skip = f"included by {included[src]} (not a translation unit)"
            job.key = _key(
                {
                    "format": MANIFEST_FORMAT,
                    "id": job.id,
                    "commit": commit,
                    "nvcc_flags": flags,
                    "skip": job.skip,
                    "tools": {"nvcc": tools["nvcc"], "ptxas": tools["ptxas"]},
                }
            )
            jobs.append(job)
    info = {
        "commit": commit,
        "src": str(tree.relative_to(root)) if tree.is_relative_to(root) else str(tree),
        "sources": len({j.source for j in jobs}),
        "missing_from_snapshot": missing,
    }
    return jobs, info


def triton_jobs(targets: Sequence[str], tools: dict[str, str]) -> list[Job]:
    """One job per Triton variant (scripts/ptx_gen_triton.py CORPUS_VARIANTS) and target."""
    variants = triton_variants()
    version = triton_version()
    script_sha = _sha256(TRITON_SCRIPT.read_bytes())
    jobs = []
    for v in variants:
        ptx_key = _key({"variant": v, "script": script_sha, "triton": version})
        for target in targets:
            job = Job(
                id=entry_id(TRITON_REPO, v, target),
                repo=TRITON_REPO,
                commit=f"triton=={version}" if version else "triton not installed",
                source=v,
                target=target,
                kind="triton",
                ptxas_flags=[f"-arch={target}"],
                ptx_key=ptx_key,
            )
            if version is None:
                job.skip = "triton is not installed (pip install triton)"
            job.key = _key(
                {
                    "format": MANIFEST_FORMAT,
                    "id": job.id,
                    "script": script_sha,
                    "skip": job.skip,
                    "tools": {"ptxas": tools["ptxas"], "triton": str(version)},
                }
            )
            jobs.append(job)
    return jobs


def triton_variants() -> list[str]:
    """The variant names of scripts/ptx_gen_triton.py, read without importing Triton."""
    text = TRITON_SCRIPT.read_text()
    m = re.search(r"^CORPUS_VARIANTS[^=]*= \{\n(.*?)^\}", text, re.M | re.S)
    if m is None:
        raise RuntimeError(f"{TRITON_SCRIPT}: no CORPUS_VARIANTS table")
    return re.findall(r'^\s+"([A-Za-z0-9_]+)":', m.group(1), re.M)


# ----------------------------------------------------------------------------------------------
# Building one entry


_RE_ENTRY = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?\.entry\s+([A-Za-z_$][\w$]*)", re.M)
_RE_MISSING = re.compile(r"fatal error: ([^:\s]+): No such file or directory")
_RE_NOT_ON_SM90 = re.compile(r"(Instruction '[^']+') not supported on \.target 'sm_90'")
# "ptxas /abs/path.ptx, line 12; error   : " and "/abs/file.cu(12): error: " prefixes
_RE_LOCATION = re.compile(r"^(?:ptxas )?\S+(?:, line \d+;|\(\d+\):)\s*")


class _Failure(Exception):
    def __init__(self, stage: str, reason: str, log: str = "") -> None:
        super().__init__(reason)
        self.stage = stage
        self.reason = reason
        self.log = log


def _run(cmd: Sequence[str], cwd: Path | None, stage: str) -> str:
    try:
        proc = subprocess.run(
            list(cmd), cwd=cwd, capture_output=True, timeout=TOOL_TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired as e:
        raise _Failure(stage, f"{stage}: timed out after {TOOL_TIMEOUT_S} s") from e
    log = (proc.stdout + proc.stderr).decode(errors="replace")
    if proc.returncode != 0:
        raise _Failure(stage, _summarise(stage, log), log)
    return log


def _summarise(stage: str, log: str) -> str:
    """A short reason for a failed tool run: the missing header, or the first error line."""
    if m := _RE_MISSING.search(log):
        return f"missing header {m.group(1)}"
    lines = [ln.strip() for ln in log.splitlines() if ln.strip()]
    errs = [ln for ln in lines if "error" in ln.lower()]
    first = (errs or lines or ["(no output)"])[0]
    if stage == "triton":
        first = (lines or ["(no output)"])[-1]  # the exception, after the traceback
    first = _RE_LOCATION.sub("", first)
    if m := _RE_NOT_ON_SM90.search(log):
        return f"needs sm_90a: {m.group(1)}"
    return f"{stage}: {first[:200]}"


def reason_category(reason: str) -> str:
    """A coarse class of a skip reason, for the totals: the reason less its file names."""
    if reason.startswith("included by"):
        return "included by another .cu (not a translation unit)"
    if reason.startswith("needs sm_90a"):
        return "needs sm_90a"
    return reason[:120]


def cubin_functions(blob: bytes) -> dict[str, int]:
    """Instruction count of each function (``.text.<name>`` section) of a cubin, 16 bytes each."""
    cubin = read_cubin(blob)
    out: dict[str, int] = {}
    for _, sec in cubin.find_sections(".text."):
        if sec.has_file_data:
            out[sec.name[len(".text.") :]] = len(sec.data()) // INSTR_BYTES
    return out


def _raw_text_sizes(blob: bytes) -> dict[str, int]:
    """As :func:`cubin_functions`, from the bare ELF section table (when the reader fails)."""
    raw = parse_elf(blob, NOBITS_TYPES)
    out: dict[str, int] = {}
    for i in range(1, len(raw.sections)):
        name = raw.name_of(i)
        if name.startswith(".text."):
            out[name[len(".text.") :]] = len(raw.data[i]) // INSTR_BYTES
    return out


def ptx_kernels(ptx: str) -> list[str]:
    return _RE_ENTRY.findall(ptx)


def ptx_norm_sha256(ptx: str) -> str:
    """Hash of the PTX less its comment lines (tool banners), to find sources that duplicate."""
    body = "\n".join(ln for ln in ptx.splitlines() if not ln.lstrip().startswith("//"))
    return _sha256(body.encode())


class _TritonPtx:
    """Makes each variant's PTX once (Triton emits sm_90a for capability 9.0) under a lock."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._locks: dict[str, threading.Lock] = {}
        self._guard = threading.Lock()

    def get(self, variant: str, key: str) -> str:
        with self._guard:
            lock = self._locks.setdefault(variant, threading.Lock())
        with lock:
            path = self.root / "build" / "triton-ptx" / f"{variant}.ptx"
            stamp = path.with_suffix(".key")
            if path.exists() and stamp.exists() and stamp.read_text() == key:
                return path.read_text()
            path.parent.mkdir(parents=True, exist_ok=True)
            cmd = [sys.executable, str(TRITON_SCRIPT), "--variant", variant, "--targets", "90"]
            _run([*cmd, "--ptx", str(path)], REPO_ROOT, "triton")
            stamp.write_text(key)
            return path.read_text()


def build_job(job: Job, root: Path, triton_ptx: _TritonPtx) -> Entry:
    """Build one entry (nvcc or Triton -> PTX -> ptxas -> cubin); return its manifest record."""
    entry: Entry = {
        "id": job.id,
        "repo": job.repo,
        "commit": job.commit,
        "source": job.source,
        "target": job.target,
        "key": job.key,
    }
    if job.kind == "nvcc":
        entry["nvcc_flags"] = list(job.nvcc_flags)
    entry["ptxas_flags"] = list(job.ptxas_flags)
    if job.skip:
        return {**entry, "status": "skipped", "stage": "select", "reason": job.skip}
    base = job.base()
    ptx_rel, cubin_rel, log_rel = (
        base.with_name(base.name + s) for s in (".ptx", ".cubin", ".log")
    )
    ptx_file, cubin_file = root / ptx_rel, root / cubin_rel
    ptx_file.parent.mkdir(parents=True, exist_ok=True)
    (root / log_rel).unlink(missing_ok=True)
    started = time.monotonic()
    try:
        if job.kind == "nvcc":
            ptx = _nvcc(job, ptx_file, entry)
        else:
            ptx = triton_ptx.get(job.source, job.ptx_key)
            if job.target != "sm_90a":
                ptx = re.sub(r"^\.target sm_90a\b", f".target {job.target}", ptx, flags=re.M)
                entry["ptx_note"] = f"Triton's .target sm_90a rewritten to {job.target}"
            _write_atomic(ptx_file, ptx.encode())
        kernels = ptx_kernels(ptx)
        if not kernels:
            raise _Failure("ptx", "no kernels (host code only)")
        flags = list(job.ptxas_flags)
        if entry.get("rdc"):
            flags.append("-c")  # relocatable: device-side launches and extern calls stay unresolved
        part = cubin_file.with_name(cubin_file.name + ".part")
        _run([require_tool("ptxas"), *flags, "-o", str(part), str(ptx_file)], None, "ptxas")
        entry["ptxas_flags"] = flags
        blob = part.read_bytes()
        try:
            funcs = cubin_functions(blob)
        except CubinFormatError as e:  # our reader's fault, not the entry's: count it anyway
            entry["reader_error"] = str(e)
            funcs = _raw_text_sizes(blob)
        os.replace(part, cubin_file)  # readers of a running build never see a partial cubin
    except _Failure as f:
        for name in (ptx_file.name, cubin_file.name):
            ptx_file.with_name(name + ".part").unlink(missing_ok=True)
        if f.log:
            (root / log_rel).write_text(f.log)
            entry["log"] = str(log_rel)
        cubin_file.unlink(missing_ok=True)
        return {**entry, "status": "skipped", "stage": f.stage, "reason": f.reason}
    ptx_bytes = ptx_file.read_bytes()
    return {
        **entry,
        "status": "ok",
        "ptx": str(ptx_rel),
        "cubin": str(cubin_rel),
        "ptx_sha256": _sha256(ptx_bytes),
        "ptx_norm_sha256": ptx_norm_sha256(ptx),
        "cubin_sha256": _sha256(blob),
        "kernels": kernels,
        "functions": funcs,
        "instructions": sum(funcs.values()),
        "build_s": round(time.monotonic() - started, 2),
    }


def _nvcc(job: Job, ptx_file: Path, entry: Entry) -> str:
    nvcc = require_tool("nvcc")
    flags = list(job.nvcc_flags)
    part = ptx_file.with_name(ptx_file.name + ".part")
    cmd = [nvcc, *flags, "-o", str(part), job.source]
    try:
        _run(cmd, job.tree, "nvcc")
    except _Failure as f:
        if "separate compilation" not in f.log:
            raise
        # device-side kernel launches (CUDA dynamic parallelism) need relocatable device code
        flags.append("-rdc=true")
        _run([nvcc, *flags, "-o", str(part), job.source], job.tree, "nvcc")
        entry["rdc"] = True
    entry["nvcc_flags"] = flags
    os.replace(part, ptx_file)
    return ptx_file.read_text(errors="replace")


def _reusable(old: Entry | None, job: Job, root: Path) -> bool:
    """Whether ``old`` (the last manifest's record) is still the result of ``job``."""
    if old is None or old.get("key") != job.key:
        return False
    if old.get("status") != "ok":
        return True
    cubin = root / str(old["cubin"])
    return cubin.exists() and _sha256(cubin.read_bytes()) == old.get("cubin_sha256")


# ----------------------------------------------------------------------------------------------
# Manifest


def compose_manifest(entries: Iterable[Entry], meta: dict[str, Any]) -> dict[str, Any]:
    """Order the entries, mark duplicates (same PTX as an earlier entry) and add the totals."""
    ordered = sorted(entries, key=lambda e: str(e["id"]))
    first: dict[tuple[str, str], str] = {}
    for e in ordered:
        e.pop("duplicate_of", None)
        if e.get("status") != "ok":
            continue
        k = (str(e["target"]), str(e["ptx_norm_sha256"]))
        if k in first:
            e["duplicate_of"] = first[k]
        else:
            first[k] = str(e["id"])
    return {**meta, "format": MANIFEST_FORMAT, "totals": totals(ordered), "entries": ordered}


def _counts() -> dict[str, int]:
    return {"cubins": 0, "functions": 0, "instructions": 0, "skipped": 0, "duplicates": 0}


def totals(entries: Iterable[Entry]) -> dict[str, Any]:
    """Corpus figures: cubins, functions, SASS instructions (duplicates excluded), skips."""
    all_ = _counts()
    by_repo: dict[str, dict[str, int]] = {}
    by_target: dict[str, dict[str, int]] = {}
    reasons: Counter[str] = Counter()
    for e in entries:
        rows = (
            all_,
            by_repo.setdefault(e["repo"], _counts()),
            by_target.setdefault(e["target"], _counts()),
        )
        for row in rows:
            if e.get("status") != "ok":
                row["skipped"] += 1
            elif e.get("duplicate_of"):
                row["duplicates"] += 1
            else:
                row["cubins"] += 1
                row["functions"] += len(e["functions"])
                row["instructions"] += int(e["instructions"])
        if e.get("status") != "ok":
            reasons[reason_category(str(e.get("reason", "")))] += 1
    return {
        **all_,
        "by_repo": dict(sorted(by_repo.items())),
        "by_target": dict(sorted(by_target.items())),
        "skip_reasons": dict(reasons.most_common()),
    }


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", dir=path.parent)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(tmp, path)


def write_json_atomic(path: Path, data: Any) -> None:
    _write_atomic(path, (json.dumps(data, indent=1) + "\n").encode())


def load_manifest(root: Path | None = None) -> dict[str, Any]:
    """The corpus manifest (raise FileNotFoundError, naming the build command, if none)."""
    path = manifest_path(root)
    if not path.exists():
        raise FileNotFoundError(
            f"{path}: no public corpus here (python scripts/public_corpus.py build)"
        )
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def iter_entries(
    target: str | None = None,
    *,
    root: Path | None = None,
    repo: str | None = None,
    include_duplicates: bool = False,
    status: str | None = "ok",
) -> Iterator[Entry]:
    """Manifest entries, built ones by default (``status=None``: all), duplicates left out."""
    for e in load_manifest(root)["entries"]:
        if status is not None and e.get("status") != status:
            continue
        if target is not None and e["target"] != target:
            continue
        if repo is not None and e["repo"] != repo:
            continue
        if e.get("duplicate_of") and not include_duplicates:
            continue
        yield e


def cubin_path(entry: Entry, root: Path | None = None) -> Path:
    return (root or corpus_root()) / str(entry["cubin"])


def ptx_path(entry: Entry, root: Path | None = None) -> Path:
    return (root or corpus_root()) / str(entry["ptx"])


def iter_cubins(
    target: str | None = None,
    *,
    root: Path | None = None,
    repo: str | None = None,
    include_duplicates: bool = False,
) -> Iterator[tuple[Entry, bytes]]:
    """(entry, cubin bytes) of every built entry, optionally of one target or repository."""
    for e in iter_entries(target, root=root, repo=repo, include_duplicates=include_duplicates):
        yield e, cubin_path(e, root).read_bytes()


# ----------------------------------------------------------------------------------------------
# Build


@dataclass
class BuildReport:
    built: int = 0
    reused: int = 0
    skipped: int = 0
    seconds: float = 0.0
    manifest: dict[str, Any] = field(default_factory=dict)


def build(
    *,
    root: Path | None = None,
    mirrors: Path | None = None,
    repos: Sequence[RepoSpec] = REPOS,
    targets: Sequence[str] = DEFAULT_TARGETS,
    triton: bool = True,
    jobs: int = 2,
    force: bool = False,
    progress: bool = False,
) -> BuildReport:
    """Build (or bring up to date) the corpus; return what was built, reused and skipped.

    Entries whose key (commit, source, flags, tool versions) is unchanged are reused from the last
    manifest. Entries of repositories or targets outside this call stay in the manifest.
    """
    root = root or corpus_root()
    mirrors = mirrors or mirrors_root()
    started = time.monotonic()
    tools = _tool_versions(triton)
    old: dict[str, Entry] = {}
    if manifest_path(root).exists():
        try:
            old = {e["id"]: e for e in load_manifest(root)["entries"]}
        except (ValueError, KeyError):
            old = {}
    work: list[Job] = []
    repo_meta: dict[str, Any] = {}
    for spec in repos:
        mirror = mirrors / spec.mirror_name
        if not mirror.exists():
            print(f"public corpus: no mirror {mirror}; {spec.name} left out", file=sys.stderr)
            continue
        rj, repo_meta[spec.name] = repo_jobs(spec, mirrors, root, targets, tools)
        work += rj
    if triton:
        tj = triton_jobs(targets, tools)
        repo_meta[TRITON_REPO] = {"commit": tj[0].commit if tj else ""}
        work += tj
    in_scope = {j.id for j in work}
    scope_repos = set(repo_meta)
    kept = {
        i: e
        for i, e in old.items()
        if i not in in_scope and not (e["repo"] in scope_repos and e["target"] in targets)
    }
    results: dict[str, Entry] = dict(kept)
    prior_meta: dict[str, Any] = {}
    if old and manifest_path(root).exists():
        prior_meta = load_manifest(root).get("repos", {})
    meta: dict[str, Any] = {
        "tools": tools,
        "targets": sorted({*targets, *(e["target"] for e in kept.values())}),
        "repos": {**prior_meta, **repo_meta},
        "mirrors": str(mirrors),
    }
    report = BuildReport()
    todo: list[Job] = []
    for j in work:
        prev = old.get(j.id)
        if not force and _reusable(prev, j, root):
            assert prev is not None
            results[j.id] = prev
            report.reused += 1
        else:
            todo.append(j)
    lock = threading.Lock()
    last_write = [0.0]
    done = [0]

    def flush(complete: bool) -> dict[str, Any]:
        # While building, an entry not rebuilt yet keeps its last record (marked "stale").
        stale = (
            {} if complete else {j.id: {**old[j.id], "stale": True} for j in todo if j.id in old}
        )
        m = compose_manifest(
            [dict(e) for e in {**stale, **results}.values()],
            {**meta, "complete": complete, "pending": 0 if complete else len(todo) - done[0]},
        )
        write_json_atomic(manifest_path(root), m)
        last_write[0] = time.monotonic()
        return m

    flush(False)
    triton_ptx = _TritonPtx(root)
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(build_job, j, root, triton_ptx): j for j in todo}
        for fut in as_completed(futures):
            j = futures[fut]
            entry = fut.result()
            with lock:
                results[j.id] = entry
                done[0] += 1
                if entry["status"] == "ok":
                    report.built += 1
                if progress:
                    what = entry["status"] if entry["status"] == "ok" else entry["reason"]
                    print(f"[{done[0]}/{len(todo)}] {j.id}: {what}", file=sys.stderr, flush=True)
                if time.monotonic() - last_write[0] > 5.0:
                    flush(False)
    report.manifest = flush(True)
    report.skipped = int(report.manifest["totals"]["skipped"])
    report.seconds = time.monotonic() - started
    return report


# ----------------------------------------------------------------------------------------------
# CLI


def _fmt_row(name: str, row: dict[str, int]) -> str:
    return (
        f"{name:40s} {row['cubins']:6d} {row['functions']:9d} {row['instructions']:12d} "
        f"{row['skipped']:7d} {row['duplicates']:5d}"
    )


def format_stats(manifest: dict[str, Any]) -> str:
    t = manifest["totals"]
    cols = ("cubins", 6), ("functions", 9), ("instructions", 12), ("skipped", 7), ("dup", 5)
    head = " ".join([" " * 40, *(f"{c:>{w}s}" for c, w in cols)])
    lines = [head]
    lines += [_fmt_row(r, row) for r, row in t["by_repo"].items()]
    lines += [_fmt_row(f"[{tg}]", row) for tg, row in t["by_target"].items()]
    lines.append(_fmt_row("total", t))
    lines.append("")
    lines.append("skipped, by reason:")
    lines += [f"  {n:5d}  {r}" for r, n in t["skip_reasons"].items()]
    if not manifest.get("complete", True):
        lines.append(f"(build in progress: {manifest.get('pending', '?')} entries pending)")
    return "\n".join(lines)


def format_stats_markdown(manifest: dict[str, Any]) -> str:
    """The same figures as :func:`format_stats`, as Markdown tables (for docs/corpus.md)."""
    t = manifest["totals"]
    cols = ("cubins", "functions", "instructions", "skipped", "duplicates")
    lines = ["| | " + " | ".join(cols) + " |", "|---|" + "---:|" * len(cols)]
    rows = [*t["by_repo"].items(), *((f"[{k}]", v) for k, v in t["by_target"].items())]
    for name, row in [*rows, ("**total**", t)]:
        lines.append(f"| {name} | " + " | ".join(f"{row[c]:,}" for c in cols) + " |")
    lines += ["", "| skipped entries | reason |", "|---:|---|"]
    lines += [f"| {n} | {r.replace('|', '/')} |" for r, n in t["skip_reasons"].items()]
    return "\n".join(lines)


def _select_repos(patterns: str | None) -> tuple[list[RepoSpec], bool]:
    if not patterns:
        return list(REPOS), True
    pats = patterns.split(",")
    chosen = [r for r in REPOS if any(fnmatch.fnmatchcase(r.name, p) for p in pats)]
    return chosen, any(fnmatch.fnmatchcase(TRITON_REPO, p) for p in pats)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="public_corpus", description="The public reference corpus (see module docstring)."
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="build or update the corpus in the cache")
    b.add_argument("--jobs", "-j", type=int, default=2, help="parallel tool runs (default 2)")
    b.add_argument("--repos", help="comma-separated globs of repo names ('triton' for Triton)")
    b.add_argument("--targets", default=",".join(DEFAULT_TARGETS))
    b.add_argument("--force", action="store_true", help="rebuild every entry")
    b.add_argument("--quiet", "-q", action="store_true")
    ls = sub.add_parser("list", help="one line per entry: status, target, instructions, id")
    ls.add_argument("--target")
    ls.add_argument("--repo")
    ls.add_argument("--skipped", action="store_true", help="skipped entries, with the reason")
    st = sub.add_parser("stats", help="cubins, functions and SASS instructions per repo")
    st.add_argument("--json", action="store_true")
    st.add_argument("--markdown", action="store_true")
    for p in (b, ls, st):
        p.add_argument("--root", type=Path, help="corpus location (default: see module doc)")
    args = ap.parse_args(argv)
    root: Path = args.root or corpus_root()
    if args.cmd == "build":
        repos, with_triton = _select_repos(args.repos)
        rep = build(
            root=root,
            repos=repos,
            targets=tuple(args.targets.split(",")),
            triton=with_triton,
            jobs=args.jobs,
            force=args.force,
            progress=not args.quiet,
        )
        print(format_stats(rep.manifest))
        print(
            f"\n{rep.built} built, {rep.reused} reused, {rep.skipped} skipped in "
            f"{rep.seconds:.0f} s; manifest: {manifest_path(root)}"
        )
        return 0
    if args.cmd == "list":
        status = None if args.skipped else "ok"
        for e in iter_entries(
            args.target, root=root, repo=args.repo, status=status, include_duplicates=True
        ):
            if args.skipped:
                if e["status"] != "ok":
                    print(f"skipped {e['target']:7s} {e['id']}: {e['reason']}")
                continue
            dup = f" (duplicate of {e['duplicate_of']})" if e.get("duplicate_of") else ""
            print(f"ok {e['target']:7s} {e['instructions']:8d} {e['id']}{dup}")
        return 0
    m = load_manifest(root)
    m["totals"] = totals(m["entries"])
    if args.json:
        print(json.dumps(m["totals"], indent=1))
    else:
        print(format_stats_markdown(m) if args.markdown else format_stats(m))
    return 0


if __name__ == "__main__":
    sys.exit(main())
