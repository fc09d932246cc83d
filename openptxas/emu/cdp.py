"""Device-side launches (CUDA dynamic parallelism): the device runtime's launch functions as the
emulator's built-ins, and the child grids they queue.

nvcc 13 compiles ``child<<<grid, block, shared>>>(args)`` in device code (``-rdc=true``, linked
with cudadevrt) into two calls of functions the driver resolves at load time, with the return
address in R20:R21 (``CALL.ABS.NOINC `(f)``, an R_CUDA_ABS55_16_34 relocation):

* ``__cudaCDP2GetParameterBufferV2``: R4:R5 the child's function descriptor (``UMOV UR4,
  32@lo(fun@fdesc(child))``, an R_CUDA_FUNC_DESC32 relocation), R6-R8 the grid, R9-R11 the block,
  R12 the dynamic shared memory; returns in R4:R5 a buffer for the child's parameters (NULL when
  the runtime has no room), which the parent fills with its usual stores;
* ``__cudaCDP2LaunchDeviceV2``: R4:R5 that buffer, R6:R7 the stream; returns a ``cudaError_t``
  in R4 (0: the launch is queued).

CUDA lets a child grid run at any time after its launch and before its parent grid completes;
device code cannot wait for it (CDP2 has no device-side cudaDeviceSynchronize). The emulator runs
the child grids after the parent grid, in launch order (which keeps every stream's order), each
seeing every write of its parent; a child's own launches join the end of the queue.

The emulator's function descriptors are ``FUNC_DESC_BASE`` + the kernel's position among the
module's kernels by name; the loader writes them, and code addresses of the kernel's own section,
into the immediates the driver would patch.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from openptxas.emu.errors import KernelFault
from openptxas.emu.model import Imm, ImmKind, Instruction

if TYPE_CHECKING:
    from openptxas.emu.lanes import Sel
    from openptxas.emu.machine import Machine
    from openptxas.emu.memory import GlobalMemory
    from openptxas.emu.program import Kernel, Module

NDArray = np.ndarray[Any, Any]
FUNC_DESC_BASE = 0xFD00_0000_0000
STREAM_BASE = 0x5700_0000
HEAP_BYTES = 1 << 20  # parameter buffers of pending launches
CUDA_SUCCESS = 0
CUDA_ERROR_INVALID_VALUE = 1

GET_PARAMETER_BUFFER = "__cudaCDP2GetParameterBufferV2"
LAUNCH_DEVICE = "__cudaCDP2LaunchDeviceV2"
DEVICE_LAUNCH = frozenset({GET_PARAMETER_BUFFER, LAUNCH_DEVICE})


def func_descs(module: Module) -> dict[str, int]:
    """The emulator's function descriptor of every kernel of the module."""
    return {name: FUNC_DESC_BASE + i for i, name in enumerate(sorted(module.kernels))}


def patch_code(
    module: Module, kernel: Kernel, code: Mapping[int, Instruction]
) -> Mapping[int, Instruction]:
    """The kernel's instructions with the immediates the driver relocates filled in: function
    descriptors (R_CUDA_FUNC_DESC32_LO_32/HI_32) and addresses of code in the kernel's own
    section (R_CUDA_ABS32_LO_32/HI_32: return addresses). Other relocations are left alone."""
    descs: dict[str, int] | None = None
    out: dict[int, Instruction] | None = None
    for r in kernel.code_relocs:
        kind, _, half = r.type.rpartition("32_")
        if kind == "R_CUDA_FUNC_DESC":
            if descs is None:
                descs = func_descs(module)
            if r.symbol not in descs:
                continue
            value = descs[r.symbol] + r.addend
        elif kind == "R_CUDA_ABS":
            sym = module.symbols.get(r.symbol)
            if sym is None or sym.section != kernel.section:
                continue
            value = sym.value + r.addend
        else:
            continue
        if half not in ("LO_32", "HI_32"):
            continue
        ins = code.get(r.offset)
        if ins is None:
            continue
        imms = [i for i, o in enumerate(ins.operands) if isinstance(o, Imm)]
        if len(imms) != 1:
            continue
        part = value & 0xFFFFFFFF if half == "LO_32" else (value >> 32) & 0xFFFFFFFF
        ops = list(ins.operands)
        ops[imms[0]] = Imm(part, ImmKind.INT)
        if out is None:
            out = dict(code)
        out[r.offset] = replace(ins, operands=tuple(ops))
    return code if out is None else out


@dataclass(frozen=True)
class ChildLaunch:
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared_bytes: int
    params: bytes
    parent: str


class DeviceRuntime:
    """The device runtime of one launch: parameter buffers and the queue of child grids."""

    def __init__(self, module: Module, mem: GlobalMemory) -> None:
        self.module = module
        self.mem = mem
        self.by_desc = {v: k for k, v in func_descs(module).items()}
        self.heap = mem.alloc(HEAP_BYTES, "device runtime")
        self.next = self.heap
        self.pending: dict[int, tuple[str, tuple[int, int, int], tuple[int, int, int], int]] = {}
        self.queue: deque[ChildLaunch] = deque()
        self.launched = 0
        self.streams = 0
        self.last_error: dict[tuple[str, int, int], int] = {}

    def builtins(self) -> dict[str, Any]:
        return {
            GET_PARAMETER_BUFFER: self.get_parameter_buffer,
            LAUNCH_DEVICE: self.launch_device,
            "__cudaCDP2GetLastError": self.get_last_error,
            "__cudaCDP2PeekAtLastError": self.peek_at_last_error,
            "__cudaCDP2StreamCreateWithFlags": self.stream_create,
            "__cudaCDP2StreamDestroy": self.stream_destroy,
        }

    def _error(self, m: Machine, lane: int, code: int) -> int:
        """Return ``code`` to the lane, remembering a failure as its thread's last error."""
        if code:
            key = (m.kernel.name, int(m.cta_linear[lane]), int(m.tid_linear[lane]))
            self.last_error[key] = code
        return code

    def get_last_error(self, m: Machine, pc: int, sel: Sel) -> None:
        for lane in m.index(sel).tolist():
            key = (m.kernel.name, int(m.cta_linear[lane]), int(m.tid_linear[lane]))
            m.R[4][lane] = self.last_error.pop(key, CUDA_SUCCESS)

    def peek_at_last_error(self, m: Machine, pc: int, sel: Sel) -> None:
        for lane in m.index(sel).tolist():
            key = (m.kernel.name, int(m.cta_linear[lane]), int(m.tid_linear[lane]))
            m.R[4][lane] = self.last_error.get(key, CUDA_SUCCESS)

    def stream_create(self, m: Machine, pc: int, sel: Sel) -> None:
        """cudaStreamCreateWithFlags(&stream, flags): a new stream handle (streams only order
        launches, which run in launch order here anyway)."""
        idx = m.index(sel)
        R = m.R
        for k, lane in enumerate(idx.tolist()):
            ptr = int(R[4][lane]) | int(R[5][lane]) << 32
            self.streams += 1
            h = STREAM_BASE + self.streams
            words = np.array([[h & 0xFFFFFFFF], [h >> 32]], dtype=np.uint32)
            m.store("generic", np.array([ptr], np.int64), idx[k : k + 1], 8, words)
            R[4][lane] = CUDA_SUCCESS

    def stream_destroy(self, m: Machine, pc: int, sel: Sel) -> None:
        for lane in m.index(sel).tolist():
            m.R[4][lane] = CUDA_SUCCESS

    def get_parameter_buffer(self, m: Machine, pc: int, sel: Sel) -> None:
        idx = m.index(sel)
        R = m.R
        for lane in idx.tolist():
            desc = int(R[4][lane]) | int(R[5][lane]) << 32
            name = self.by_desc.get(desc)
            if name is None:
                raise KernelFault(f"device-side launch of an unknown function {desc:#x}", pc)
            grid = (int(R[6][lane]), int(R[7][lane]), int(R[8][lane]))
            block = (int(R[9][lane]), int(R[10][lane]), int(R[11][lane]))
            k = self.module.kernel(name)
            size = max(k.param_size, 1)
            addr = (self.next + 63) // 64 * 64
            if addr + size > self.heap + HEAP_BYTES:
                addr = 0  # NULL: no room for another pending launch
            else:
                self.next = addr + size
                self.mem.write(addr, bytes(size))
                self.pending[addr] = (name, grid, block, int(R[12][lane]))
            R[4][lane] = addr & 0xFFFFFFFF
            R[5][lane] = addr >> 32

    def launch_device(self, m: Machine, pc: int, sel: Sel) -> None:
        idx = m.index(sel)
        R = m.R
        for lane in idx.tolist():
            buf = int(R[4][lane]) | int(R[5][lane]) << 32
            got = self.pending.pop(buf, None)
            if got is None:
                R[4][lane] = self._error(m, lane, CUDA_ERROR_INVALID_VALUE)
                continue
            name, grid, block, shared = got
            k = self.module.kernel(name)
            params = self.mem.read(buf, k.param_size)
            self.queue.append(ChildLaunch(name, grid, block, shared, params, m.kernel.name))
            self.launched += 1
            R[4][lane] = CUDA_SUCCESS
