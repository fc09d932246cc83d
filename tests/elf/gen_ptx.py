"""Regenerate tests/elf/ptx/*.ptx from tests/elf/src/*.cu with nvcc (a test-input generator).

Each CUDA source becomes up to three PTX flavours, so ptxas can be driven into every section it
writes:

- ``<stem>.ptx``       plain ``nvcc -ptx`` (what the oracle harness feeds ptxas)
- ``<stem>.li.ptx``    ``nvcc -ptx -lineinfo``: carries ``.file``/``.loc``, so ptxas emits line info
- ``<stem>.G.ptx``     ``nvcc -ptx -G``: carries the DWARF sections ptxas ``-g`` merges

Run: ``python tests/elf/gen_ptx.py`` (needs nvcc; the PTX files are committed).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE / "src"
OUT = HERE / "ptx"

# stem -> (PTX .target, extra nvcc flags, flavours)
SOURCES: dict[str, tuple[str, list[str], tuple[str, ...]]] = {
    "globals": ("sm_75", [], ("", "li", "G")),
    "calls": ("sm_75", [], ("", "li", "G")),
    "calls_rdc": ("sm_75", ["-rdc=true"], ("", "li")),
    "shared": ("sm_75", [], ("", "li", "G")),
    "printf_assert": ("sm_75", [], ("", "li")),
    "params": ("sm_75", [], ("", "G")),
    "misc": ("sm_75", [], ("", "li", "G")),
    "coop": ("sm_75", [], ("",)),
    "cluster": ("sm_90", [], ("", "li")),
    "mangled": ("sm_75", [], ("", "G")),
    "texture": ("sm_75", [], ("", "li")),
    "tensor": ("sm_80", [], ("", "li")),
    "hopper": ("sm_90", [], ("",)),
    "sm90a": ("sm_90a", [], ("",)),
    "reloc": ("sm_75", ["-rdc=true"], ("", "li", "G")),
    "dynstack": ("sm_75", [], ("", "G")),
    "sm100": ("sm_100a", [], ("",)),
    "spill": ("sm_75", [], ("", "li")),
}

FLAVOUR_FLAGS = {"": [], "li": ["-lineinfo"], "G": ["-G"]}


def main() -> int:
    OUT.mkdir(exist_ok=True)
    for stem, (arch, flags, flavours) in SOURCES.items():
        cu = SRC / f"{stem.removesuffix('_rdc')}.cu"
        for fl in flavours:
            name = f"{stem}.{fl}.ptx" if fl else f"{stem}.ptx"
            with tempfile.TemporaryDirectory() as td:
                out = Path(td) / "out.ptx"
                cmd = ["nvcc", f"-arch={arch}", "-ptx", *flags, *FLAVOUR_FLAGS[fl], str(cu)]
                subprocess.run([*cmd, "-o", str(out)], check=True, cwd=td)
                text = out.read_text()
            # The source path nvcc records in .file directives depends on the checkout.
            text = text.replace(str(SRC), "tests/elf/src")
            (OUT / name).write_text(text)
            print(name, len(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
