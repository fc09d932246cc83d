"""``launch()``: run one kernel of a cubin on a launch spec and return every argument afterwards.

Steps, as the CUDA driver does them: place the module's globals and constant banks in global
memory and apply their relocations; allocate every buffer argument and copy its initial contents;
check the spec against the kernel's parameter list (count, size and offset of each parameter,
from ``.nv.info``); fill constant bank 0 (:mod:`openptxas.emu.abi`) with the launch values and the
packed parameters; run the grid (clusters as compiled); copy the buffers back.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from openptxas.emu.abi import Geometry, bank0_layout, build_bank0
from openptxas.emu.cdp import DEVICE_LAUNCH, ChildLaunch, DeviceRuntime, func_descs
from openptxas.emu.errors import EmuLaunchError, EmuLoadError
from openptxas.emu.hazards import Hazard
from openptxas.emu.linked import link_functions
from openptxas.emu.machine import Machine, default_local_size
from openptxas.emu.memory import PARAM_WINDOW, GlobalMemory
from openptxas.emu.model import Instruction
from openptxas.emu.printf import vprintf
from openptxas.emu.program import DataSection, Decoder, Kernel, Module, load_module
from openptxas.emu.registry import binders
from openptxas.emu.texture import TexObject, tex_object
from openptxas.emu.tma import TensorMap, tensor_map
from openptxas.spec import (
    HANDLE_KINDS,
    LaunchSpec,
    SpecError,
    load_spec_file,
    materialize,
    pack_params,
    param_layout,
    parse_spec_document,
)

NDArray = np.ndarray[Any, Any]
BUILTIN_BASE = 0xFFFF_0000_0000
BUILTIN_FUNCS = {"vprintf": vprintf}
TEX_HANDLE_BASE = 0x100  # texture/surface handles: TEX_HANDLE_BASE + argument position


@dataclass(frozen=True)
class LaunchResult:
    """What one emulated launch produced.

    ``cycles`` is the issue-time estimate of the control codes: the stall counts (at least 1 per
    instruction) summed over every warp-instruction executed, divided by the number of warps
    launched, i.e. the mean issue cycles of a warp. It ignores scoreboard waits, memory latency
    and contention between warps: a measure of schedule length for comparing two compilers'
    code on the same launch, not a runtime prediction.
    """

    spec: LaunchSpec
    args: tuple[NDArray, ...]  # every argument's final contents (scalars and bytes unchanged;
    # textures and surfaces: their texels)
    printf: str  # device printf output, thread by thread in launch order
    opcode_counts: Mapping[str, int]  # warp-instructions executed per opcode
    dynamic_instructions: int  # warp-instructions executed, all warps
    issue_cycles: int  # stall cycles summed over every warp-instruction executed
    warps: int  # warps launched
    seconds: float  # wall time of the whole launch (loading and decoding included)
    run_seconds: float  # wall time of the execution alone
    hazards: tuple[Hazard, ...] = ()  # hazard reports (``hazards=True``)
    child_grids: int = 0  # grids launched from the device (run after their parent; counted in
    # the instruction and cycle figures)
    undefined: tuple[str, ...] = ()  # reads whose value PTX leaves undefined ("pc: what"), e.g.
    # a shuffle from a lane not executing it: outputs depending on them are not comparable

    @property
    def outputs(self) -> dict[int, NDArray]:
        """Every buffer and surface argument after the run, by parameter position."""
        return {
            i: a for i, a in enumerate(self.args) if self.spec.args[i].kind in ("buffer", "surface")
        }

    @property
    def warp_instructions(self) -> int:
        return self.dynamic_instructions

    @property
    def cycles(self) -> float:
        return self.issue_cycles / self.warps if self.warps else 0.0

    def npz_dict(self) -> dict[str, NDArray]:
        """``{"arg<i>": array}`` for every buffer argument (the CLI's ``--out`` file)."""
        return {f"arg{i}": a for i, a in self.outputs.items()}


def default_decoder(sm: int) -> Decoder:
    from openptxas.emu.decode import isa_decoder
    from openptxas.targets import get_target

    try:
        fam = get_target(f"sm_{sm}").family
    except Exception:
        raise EmuLoadError(f"no target data for sm_{sm}") from None
    return isa_decoder(fam)


def resolve_spec(spec: Any, module: Module, kernel: str | None) -> LaunchSpec:
    """A LaunchSpec from a spec object, a parsed document, a path, or a list of specs."""
    specs: list[LaunchSpec]
    if isinstance(spec, LaunchSpec):
        specs = [spec]
    elif isinstance(spec, str | Path):
        specs = load_spec_file(spec)
    elif isinstance(spec, Sequence):
        specs = list(spec)
    else:
        specs = parse_spec_document(spec)
    if kernel is not None:
        chosen = [s for s in specs if s.kernel == kernel]
        if not chosen:
            names = ", ".join(s.kernel for s in specs)
            raise SpecError(f"the spec has no launch of kernel '{kernel}' (it has: {names})")
        return chosen[0]
    if len(specs) > 1:
        names = ", ".join(s.kernel for s in specs)
        raise SpecError(f"the spec holds several launches ({names}): choose one with --kernel")
    return specs[0]


def check_params(spec: LaunchSpec, k: Kernel) -> None:
    """The spec's argument list must match the kernel's parameters exactly."""
    layout = param_layout(spec, k.param_base)
    params = sorted(k.params, key=lambda p: p.ordinal)
    if len(layout) != len(params):
        raise SpecError(
            f"kernel '{k.name}' takes {len(params)} parameter(s), the spec gives "
            f"{len(layout)} argument(s)"
        )
    for i, ((off, size), p) in enumerate(zip(layout, params, strict=True)):
        a = spec.args[i]
        if size != p.size or off != p.offset:
            what = f"{a.kind} {a.dtype}" if a.kind != "bytes" else f"{a.size} raw bytes"
            raise SpecError(
                f"argument {i} ({what}): the spec places {size} byte(s) at parameter offset "
                f"{off:#x}, the kernel's parameter {p.ordinal} is {p.size} byte(s) at offset "
                f"{p.offset:#x}"
            )


def _apply_relocs(
    data: bytearray,
    sec: DataSection,
    symaddr: Mapping[str, int],
    what: str,
    descs: Mapping[str, int] | None = None,
) -> None:
    """Apply a data section's relocations: addresses (R_CUDA_64/32, G64/G32) and function
    descriptors of kernels (R_CUDA_FUNC_DESC_64, the device runtime's tables: emu/cdp.py)."""
    for r in sec.relocs:
        if r.type == "R_CUDA_FUNC_DESC_64" and descs is not None and r.symbol in descs:
            v = descs[r.symbol] + r.addend
            data[r.offset : r.offset + 8] = (v & (2**64 - 1)).to_bytes(8, "little")
            continue
        if r.symbol not in symaddr:
            raise EmuLoadError(f"{what}: relocation against unknown symbol '{r.symbol}'")
        v = symaddr[r.symbol] + r.addend
        if r.type in ("R_CUDA_64", "R_CUDA_G64"):
            data[r.offset : r.offset + 8] = (v & (2**64 - 1)).to_bytes(8, "little")
        elif r.type in ("R_CUDA_32", "R_CUDA_G32"):
            data[r.offset : r.offset + 4] = (v & 0xFFFFFFFF).to_bytes(4, "little")
        else:
            raise EmuLoadError(f"{what}: unsupported relocation {r.type}")


def launch(
    cubin: bytes | str | Path | Module,
    spec: Any,
    *,
    kernel: str | None = None,
    inputs: Mapping[str, NDArray] | None = None,
    hazards: bool = False,
    hazard_checker: Any = None,
    trace: TextIO | None = None,
    decoder: Decoder | None = None,
    max_lanes: int = 8192,
    stack_limit: int = 1024,
    max_instructions: int = 200_000_000,
    max_child_grids: int = 10_000,
) -> LaunchResult:
    """Run a kernel in the emulator.

    ``cubin``: the file's bytes or path (or a loaded :class:`Module`); ``spec``: a LaunchSpec, a
    spec document, a path to one, or a list of specs (``kernel`` picks one); ``inputs``:
    ``{"arg<i>": array}`` replacing initial contents; ``hazards``: run the hazard checker
    (reports in ``LaunchResult.hazards``).
    """
    t0 = time.perf_counter()
    if isinstance(cubin, Module):
        module = cubin
    else:
        blob = Path(cubin).read_bytes() if isinstance(cubin, str | Path) else bytes(cubin)
        module = load_module(blob, None)
    if module.decoder is None:
        module.decoder = decoder or default_decoder(module.sm)
    ls = resolve_spec(spec, module, kernel)
    k = module.kernel(ls.kernel)
    check_params(ls, k)
    values = materialize(ls)
    if inputs:
        values = apply_inputs(ls, values, inputs)
    mem = GlobalMemory()
    # Module data: globals and constant banks, then relocations.
    base: dict[str, int] = {}
    for name, sec in sorted(module.data.items()):
        base[name] = mem.alloc(max(sec.size, 1), name)
    builtins: dict[int, str] = {}
    descs = func_descs(module)
    symaddr: dict[str, int] = {}
    nb = 0
    for sname, sym in module.symbols.items():
        if sym.section in base:
            symaddr[sname] = base[sym.section] + sym.value
        elif sym.section.startswith(".text."):
            symaddr[sname] = sym.value
        elif sym.section == "" and sym.is_func:
            addr = BUILTIN_BASE + 16 * nb
            nb += 1
            symaddr[sname] = addr
            builtins[addr] = sname
    module_banks: dict[int, NDArray] = {}
    for name, sec in sorted(module.data.items()):
        data = bytearray(sec.data.ljust(sec.size, b"\0"))
        _apply_relocs(data, sec, symaddr, name, descs)
        mem.write(base[name], bytes(data))
    for num, name in module.banks.items():
        module_banks[num] = np.frombuffer(
            mem.read(base[name], module.data[name].size), np.uint8
        ).copy()

    def kernel_banks(kk: Kernel) -> dict[int, NDArray]:
        banks = {n: b.copy() for n, b in module_banks.items()}
        for num, sec in kk.banks.items():
            data = bytearray(sec.data.ljust(sec.size, b"\0"))
            _apply_relocs(data, sec, symaddr, sec.name, descs)
            banks[num] = np.frombuffer(bytes(data), dtype=np.uint8).copy()
        return banks

    banks = kernel_banks(k)
    # Arguments: buffers, and the texels of textures and surfaces, in global memory; a texture
    # or surface parameter is its handle in the launch's table (emu/texture.py).
    pointers = [0] * len(ls.args)
    for i, a in enumerate(ls.args):
        if a.kind in HANDLE_KINDS:
            pointers[i] = mem.alloc(max(a.nbytes, 1), f"arg{i}")
            mem.write(pointers[i], values[i].tobytes())
    textures: dict[int, TexObject] = {}
    handles = list(pointers)
    for i, a in enumerate(ls.args):
        if a.kind in ("texture", "surface"):
            handles[i] = TEX_HANDLE_BASE + i
            textures[handles[i]] = tex_object(a, i, pointers[i])
    params = pack_params(ls, values, handles, k.param_base)
    runtime = None
    if any(
        set(kk.calls.values()) & DEVICE_LAUNCH
        or {r.symbol for r in kk.code_relocs} & DEVICE_LAUNCH  # (a call through a register)
        for kk in module.kernels.values()
    ):
        runtime = DeviceRuntime(module, mem)
    tensor_maps = _tensor_maps(ls, k, pointers)
    geo = _geometry(ls, k, stack_limit)
    banks[0] = build_bank0(k.cbank0_size, geo, params, k.param_base, bank0_layout(module.sm))
    checker = hazard_checker
    if checker is None and hazards:
        from openptxas.emu.hazards import HazardChecker, latency_for

        checker = HazardChecker(latency_for(module.sm))
    m = Machine(
        module,
        k,
        geo,
        mem,
        banks,
        binders(),
        builtins,
        max_lanes=max_lanes,
        hazards=checker,
        trace=trace,
        max_instructions=max_instructions,
    )
    m.builtin_fns.update(BUILTIN_FUNCS)
    if runtime is not None:
        m.builtin_fns.update(runtime.builtins())
    link_functions(m, symaddr)
    m.tensor_maps.update(tensor_maps)
    m.textures.update(textures)
    t_run = time.perf_counter()
    m.run()
    machines = [m]
    warps = ls.ctas * ((ls.threads + 31) // 32)
    # Child grids of device-side launches, after their parent grid (emu/cdp.py).
    while runtime is not None and runtime.queue:
        if len(machines) > max_child_grids:
            raise EmuLaunchError(f"more than {max_child_grids} device-side launches")
        cl = runtime.queue.popleft()
        ck = module.kernel(cl.kernel)
        cgeo = _child_geometry(cl, ck, stack_limit)
        cbanks = kernel_banks(ck)
        cbanks[0] = build_bank0(
            ck.cbank0_size, cgeo, cl.params, ck.param_base, bank0_layout(module.sm)
        )
        mc = Machine(
            module,
            ck,
            cgeo,
            mem,
            cbanks,
            binders(),
            builtins,
            max_lanes=max_lanes,
            hazards=checker,
            trace=trace,
            max_instructions=max_instructions,
        )
        mc.builtin_fns.update(BUILTIN_FUNCS)
        mc.builtin_fns.update(runtime.builtins())
        link_functions(mc, symaddr)
        mc.textures.update(textures)
        mc.run()
        machines.append(mc)
        warps += cgeo.ctas * ((cgeo.threads + 31) // 32)
    t_end = time.perf_counter()
    out: list[NDArray] = []
    for i, a in enumerate(ls.args):
        if a.kind in HANDLE_KINDS:
            raw = mem.read(pointers[i], a.nbytes)
            out.append(np.frombuffer(raw, dtype=a.np_dtype).copy())
        else:
            out.append(values[i])
    text = ""
    counts: Counter[str] = Counter()
    for mm in machines:  # the parent grid's printf text first, then each child grid's
        text += "".join(r.text for r in sorted(mm.printf, key=lambda r: (r.cta, r.thread, r.seq)))
        counts.update(mm.opcode_counts())
    return LaunchResult(
        spec=ls,
        args=tuple(out),
        printf=text,
        opcode_counts=dict(counts),
        dynamic_instructions=sum(mm.issued for mm in machines),
        issue_cycles=sum(mm.issue_cycles() for mm in machines),
        warps=warps,
        seconds=t_end - t0,
        run_seconds=t_end - t_run,
        hazards=tuple(checker.reports) if checker is not None else (),
        child_grids=len(machines) - 1,
        undefined=tuple(
            f"{pc:#06x}: {w}" for mm in machines for pc, w in sorted(mm.undefined.items())
        ),
    )


def run_launch(
    cubin: bytes | str | Path,
    spec: Any,
    *,
    kernel: str | None = None,
    inputs: Mapping[str, NDArray] | None = None,
    hazards: bool = False,
    decoder: Decoder | None = None,
    stack_limit: int = 1024,
) -> LaunchResult:
    """Run one launch of ``cubin`` (bytes or a path) on ``spec`` (a LaunchSpec, a spec document,
    a path to one, or a list of specs with ``kernel`` picking one) and return the result:
    ``.outputs`` (buffers by argument position), ``.printf``, ``.hazards`` (with
    ``hazards=True``), ``.dynamic_instructions`` and ``.cycles``. Raises the emulator's errors
    (:class:`~openptxas.emu.errors.EmuError`, :class:`~openptxas.spec.SpecError`).
    ``decoder`` replaces the ISA tables' decoder (tests cross-check with another one);
    ``stack_limit``: CUDA's ``cudaLimitStackSize`` (bytes per thread beyond the frame)."""
    return launch(
        cubin,
        spec,
        kernel=kernel,
        inputs=inputs,
        hazards=hazards,
        decoder=decoder,
        stack_limit=stack_limit,
    )


def _tensor_maps(ls: LaunchSpec, k: Kernel, pointers: Sequence[int]) -> dict[int, TensorMap]:
    """The spec's tensor-map parameters, by their generic address in the parameter window."""
    out: dict[int, TensorMap] = {}
    layout = param_layout(ls, k.param_base)
    for i, a in enumerate(ls.args):
        desc = a.extra.get("tensor_map")
        if desc is None:
            continue
        what = f"argument {i}"
        if not isinstance(desc, Mapping):
            raise SpecError(f"{what}: 'tensor_map' must be an object")
        src = desc.get("buffer_arg")
        if not isinstance(src, int) or not 0 <= src < len(ls.args) or ls.args[src].kind != "buffer":
            raise SpecError(f"{what}: tensor_map 'buffer_arg' must be a buffer argument's index")
        out[PARAM_WINDOW + layout[i][0]] = tensor_map(desc, pointers[src], what)
    return out


def apply_inputs(
    ls: LaunchSpec, values: list[NDArray], inputs: Mapping[str, NDArray]
) -> list[NDArray]:
    out = list(values)
    for key, arr in inputs.items():
        if not key.startswith("arg") or not key[3:].isdigit():
            raise SpecError(f"input '{key}': keys are arg<i> (parameter positions)")
        i = int(key[3:])
        if i >= len(ls.args):
            raise SpecError(f"input '{key}': the kernel has {len(ls.args)} argument(s)")
        a = ls.args[i]
        arr = np.asarray(arr)
        if arr.dtype != a.np_dtype:
            raise SpecError(f"input '{key}': dtype {arr.dtype}, argument {i} is {a.np_dtype}")
        if arr.nbytes != a.nbytes:
            raise SpecError(f"input '{key}': {arr.nbytes} bytes, argument {i} needs {a.nbytes}")
        out[i] = np.ascontiguousarray(arr).reshape(-1).copy()
    return out


def _child_geometry(cl: ChildLaunch, k: Kernel, stack_limit: int) -> Geometry:
    """A device-side launch's geometry, checked as the device runtime would (a launch it
    rejects would have returned an error to the parent instead)."""
    cluster = k.cluster_dims or (1, 1, 1)
    threads = cl.block[0] * cl.block[1] * cl.block[2]
    if not 1 <= threads <= 1024 or min(cl.grid) < 1:
        raise EmuLaunchError(
            f"device-side launch of '{cl.kernel}' from '{cl.parent}': grid {cl.grid}, "
            f"block {cl.block}"
        )
    return Geometry(
        grid=cl.grid,
        block=cl.block,
        cluster=cluster,
        explicit_cluster=k.explicit_cluster,
        dynamic_shared=cl.shared_bytes,
        local_size=default_local_size(k, stack_limit),
    )


def _geometry(ls: LaunchSpec, k: Kernel, stack_limit: int) -> Geometry:
    cluster = k.cluster_dims or (1, 1, 1)
    for g, c, ax in zip(ls.grid, cluster, "xyz", strict=True):
        if g % c:
            raise EmuLaunchError(
                f"grid {ls.grid} is not a multiple of the kernel's cluster dimensions {cluster} "
                f"(along {ax})"
            )
    threads = ls.threads
    if threads > 1024:
        raise EmuLaunchError(f"block {ls.block} has {threads} threads (at most 1024)")
    if k.reqntid is not None and tuple(ls.block) != tuple(k.reqntid):
        raise EmuLaunchError(f"block {ls.block} differs from the kernel's .reqntid {k.reqntid}")
    if k.max_threads is not None:
        mt = k.max_threads[0] * k.max_threads[1] * k.max_threads[2]
        if threads > mt:
            raise EmuLaunchError(f"block {ls.block} exceeds the kernel's .maxntid {k.max_threads}")
    return Geometry(
        grid=ls.grid,
        block=ls.block,
        cluster=cluster,
        explicit_cluster=k.explicit_cluster,
        dynamic_shared=ls.shared_bytes,
        local_size=default_local_size(k, stack_limit),
    )


@dataclass(frozen=True)
class BindFailure:
    """An instruction the emulator cannot bind (the census check, :func:`bind_all`)."""

    kernel: str
    pc: int
    text: str  # the instruction as the decoder gave it
    opcode: str
    mods: tuple[str, ...]
    reason: str


def bind_all(
    blob: bytes, decoder: Decoder | None = None
) -> tuple[list[tuple[str, int, Instruction]], list[BindFailure]]:
    """Decode every kernel of a cubin and bind each instruction without executing anything.

    Returns (every instruction as (kernel, address, instruction), the ones that do not bind).
    Binding is what turns a decoded instruction into its handler: an instruction that binds has
    an implementation for its opcode, modifiers and operand shapes; the geometry used is one
    warpgroup in a CTA (one cluster when the kernel has cluster dimensions). Relocatable
    (``ptxas -c``) cubins are accepted: their unresolved calls bind like any other."""
    from openptxas.emu.errors import EmuError

    module = load_module(blob, relocatable=True)
    module.decoder = decoder or default_decoder(module.sm)
    allins: list[tuple[str, int, Instruction]] = []
    failures: list[BindFailure] = []
    for name, k in module.kernels.items():
        cluster = k.cluster_dims or (1, 1, 1)
        block = k.reqntid or (128, 1, 1)
        geo = Geometry(cluster, block, cluster, k.explicit_cluster, 0, default_local_size(k, 1024))
        banks: dict[int, NDArray] = {}
        for num, sname in module.banks.items():
            sec = module.data[sname]
            banks[num] = np.frombuffer(sec.data.ljust(sec.size, b"\0"), np.uint8).copy()
        for num, sec in k.banks.items():
            banks[num] = np.frombuffer(sec.data.ljust(sec.size, b"\0"), np.uint8).copy()
        params = bytes(k.param_size)
        banks[0] = build_bank0(k.cbank0_size, geo, params, k.param_base, bank0_layout(module.sm))
        m = Machine(module, k, geo, GlobalMemory(), banks, binders(), {}, max_lanes=128)
        for pc, ins in sorted(m.instructions.items()):
            allins.append((name, pc, ins))
            try:
                m._bind(pc)
            except EmuError as exc:
                failures.append(BindFailure(name, pc, str(ins), ins.opcode, ins.mods, str(exc)))
    return allins, failures
