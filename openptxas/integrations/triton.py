"""Make Triton compile its PTX with openptxas in-process, without a ptxas subprocess.

::

    import openptxas.integrations.triton as ot

    with ot.enabled() as hook:          # or: hook = ot.install(); ...; ot.uninstall()
        kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32))
    hook.compiled                       # names of the kernels openptxas compiled

While installed, ``CUDABackend.make_cubin`` (triton/backends/nvidia/compiler.py) builds the
command line Triton would give ptxas (``-lineinfo``, ``--fmad=false`` when fusion is off,
``-v``, ``--opt-level 0`` under ``DISABLE_PTXAS_OPT``, ``--regAllocOptLevel=2``,
``PTXAS_OPTIONS``, ``--gpu-name=sm_XXa``), parses it with openptxas's own option parser and
calls :func:`openptxas.driver.compile_ptx`. Errors raise Triton's ``PTXASError`` with
openptxas's diagnostics. Two more patches keep Triton consistent with the compiler it now uses:

- ``CUDABackend.hash`` is made of openptxas's ``--version`` text instead of ptxas's (what the
  subprocess route gives too), so Triton's cache never hands back a cubin that ptxas made for
  the same source (nor the other way round), and no ``ptxas --version`` subprocess runs;
- the PTX ISA version Triton targets when none is given follows the ptxas release openptxas
  reimplements (13.0: PTX 9.0), as Triton does from ``ptxas --version``.

Requires ``triton`` (3.x, tested with 3.9). Installing twice is harmless; ``uninstall``
restores Triton's own functions.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from openptxas import PTXAS_RELEASE


@dataclass
class Hook:
    """What an installed hook did: the kernels it compiled, the command lines it parsed."""

    compiled: list[str] = field(default_factory=list)
    command_lines: list[list[str]] = field(default_factory=list)
    saved: dict[str, Any] = field(default_factory=dict)


_hook: Hook | None = None


def triton_args(opt: Any, capability: int) -> list[str]:
    """The ptxas arguments Triton's make_cubin passes (without the file names)."""
    from triton import knobs
    from triton.backends.nvidia.compiler import sm_arch_from_capability

    args: list[str] = []
    if knobs.compilation.disable_line_info:
        args += ["-lineinfo", "-suppress-debug-info"]
    elif knobs.nvidia.disable_ptxas_opt:
        args += ["-g"]
    else:
        args += ["-lineinfo"]
    if not opt.enable_fp_fusion:
        args.append("--fmad=false")
    args.append("-v")
    if knobs.nvidia.disable_ptxas_opt:
        args += ["--opt-level", "0"]
    args.append("--regAllocOptLevel=2")
    if opt.ptx_options:
        args += opt.ptx_options.split(" ")
    args.append(f"--gpu-name={sm_arch_from_capability(capability)}")
    return args


def _make_cubin(self: Any, src: str, metadata: dict[str, Any], opt: Any, capability: int) -> bytes:
    from triton import knobs
    from triton.runtime.errors import PTXASError

    from openptxas.diag import OpenPtxasError
    from openptxas.driver import compile_ptx
    from openptxas.options import parse_args

    hook = _hook
    assert hook is not None, "openptxas Triton hook called while not installed"
    args = [*triton_args(opt, capability), "kernel.ptx"]
    hook.command_lines.append(args)
    log: list[str] = []
    try:
        options = parse_args(args).options
        log += [w.render() for w in options.warnings]
        result = compile_ptx(src, options, "kernel.ptx")
    except OpenPtxasError as exc:
        text = "\n".join(d.render() for d in exc.diagnostics)
        raise PTXASError(
            f"openptxas (in-process) failed\n`ptxas` stderr:\n{text}\n"
            f"Repro command: openptxas {' '.join(args)}\n"
        ) from exc
    log += [d.render() for d in result.diagnostics]
    log.append(result.verbose_report())
    if knobs.nvidia.dump_ptxas_log:
        print("\n".join(log))
    hook.compiled.append(str(metadata.get("name", "")))
    return result.cubin


def install() -> Hook:
    """Patch Triton's CUDA backend to compile through openptxas; returns the active hook."""
    global _hook
    if _hook is not None:
        return _hook
    import triton.backends.nvidia.compiler as tc

    hook = Hook()
    cls = tc.CUDABackend
    hook.saved = {
        "make_cubin": cls.make_cubin,
        "hash": cls.hash,
        "get_ptx_version_from_options": tc.get_ptx_version_from_options,
    }
    orig_ptx_version = tc.get_ptx_version_from_options

    def make_hash(self: Any) -> str:
        # Triton's: f"{ptxas --version}-{arch}" (a subprocess); openptxas's version text instead,
        # the same key the subprocess route gives, so both routes share cache entries
        from openptxas.cli import VERSION_TEXT

        return f"{VERSION_TEXT}-{self.target.arch}"

    def ptx_version(options: Any, arch: int) -> int:
        if options.ptx_version is None:
            return int(tc.ptx_get_version(PTXAS_RELEASE))
        return int(orig_ptx_version(options, arch))

    cls.make_cubin = _make_cubin
    cls.hash = make_hash
    tc.get_ptx_version_from_options = ptx_version
    tc.get_features.cache_clear()  # cached from the PTX version of Triton's own ptxas
    _hook = hook
    return hook


def uninstall() -> None:
    """Restore Triton's own ptxas invocation."""
    global _hook
    if _hook is None:
        return
    import triton.backends.nvidia.compiler as tc

    cls = tc.CUDABackend
    cls.make_cubin = _hook.saved["make_cubin"]
    cls.hash = _hook.saved["hash"]
    tc.get_ptx_version_from_options = _hook.saved["get_ptx_version_from_options"]
    tc.get_features.cache_clear()
    _hook = None


@contextlib.contextmanager
def enabled() -> Iterator[Hook]:
    """``with enabled() as hook:`` Triton compiles through openptxas inside the block."""
    hook = install()
    try:
        yield hook
    finally:
        uninstall()
