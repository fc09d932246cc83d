"""The project's own kernel corpus under ``tests/kernels`` (format: tests/kernels/README.md).

Each kernel file ``<tier>/<stem>.cu`` (or ``<stem>.ptx``, for kernels generated as PTX, e.g. by
Triton) has a launch-spec document ``<stem>.json`` and a numpy reference module ``<stem>.py``
beside it.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from openptxas.spec import LaunchSpec, SpecError, parse_spec_document

# Every target the oracle harness builds, in a stable order.
ALL_TARGETS: tuple[str, ...] = (
    "sm_90",
    "sm_90a",
    "sm_80",
    "sm_86",
    "sm_89",
    "sm_75",
    "sm_100",
    "sm_120",
)
TIERS: tuple[str, ...] = ("t1", "t2", "t3", "t4")

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_ROOT = REPO_ROOT / "tests" / "kernels"

# Launch-spec extensions the corpus already uses but openptxas.spec does not parse yet. A kernel
# whose document lists one under "needs" keeps its raw specs; tests that need parsed specs skip it,
# with the reason. Every other part of its document is still validated (see load_kernel).
UNPARSED_NEEDS: dict[str, str] = {
    "bytes-args": "raw parameter bytes ({'kind': 'bytes'}: by-value structs, params over 1 KB, "
    "tensor maps) are not supported by openptxas.spec yet",
}

Reference = Callable[[list[np.ndarray[Any, Any]], LaunchSpec], dict[int, np.ndarray[Any, Any]]]


def target_sm(target: str) -> int:
    return int(target.removeprefix("sm_").rstrip("af"))


@dataclass
class KernelSource:
    name: str  # "<tier>/<stem>", unique in the corpus
    tier: str
    cu_path: Path  # the source: CUDA (.cu), or PTX (.ptx) used as is for its .target
    meta: dict[str, Any]  # the spec document's file-level fields
    specs: list[LaunchSpec]  # empty when spec_error is set
    raw_specs: list[dict[str, Any]] = field(default_factory=list)
    spec_error: str | None = None  # why the specs are not parsed (an UNPARSED_NEEDS extension)
    _module: ModuleType | None = field(default=None, repr=False)

    @property
    def stem(self) -> str:
        return self.cu_path.stem

    @property
    def nvcc_flags(self) -> list[str]:
        return list(self.meta.get("nvcc_flags", []))

    @property
    def ptxas_flags(self) -> list[str]:
        return list(self.meta.get("ptxas_flags", []))

    @property
    def needs(self) -> list[str]:
        return list(self.meta.get("needs", []))

    @property
    def kernel_names(self) -> list[str]:
        """The .entry names of the kernels launched, known even when the specs are not parsed."""
        return [str(r["kernel"]) for r in self.raw_specs]

    def reference_name(self, raw_spec: dict[str, Any]) -> str:
        return str(raw_spec.get("reference", raw_spec["kernel"]))

    def compiles_for(self, target: str) -> bool:
        """Whether this kernel is built for ``target`` (``targets`` list, else ``min_sm``)."""
        if "targets" in self.meta:
            return target in self.meta["targets"]
        if target.endswith(("a", "f")):
            return bool(self.meta.get("arch_specific", False)) and (
                target_sm(target) >= int(self.meta.get("min_sm", 75))
            )
        return target_sm(target) >= int(self.meta.get("min_sm", 75))

    def targets(self) -> list[str]:
        return [t for t in ALL_TARGETS if self.compiles_for(t)]

    def module(self) -> ModuleType:
        if self._module is None:
            py = self.cu_path.with_suffix(".py")
            modname = f"openptxas_kernel_ref_{self.tier}_{self.stem}"
            spec = importlib.util.spec_from_file_location(modname, py)
            if spec is None or spec.loader is None:
                raise SpecError(f"{self.name}: no reference module {py}")
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            self._module = mod
        return self._module

    def reference(self, spec: LaunchSpec) -> Reference:
        fname = str(spec.extra.get("reference", spec.kernel))
        fn = getattr(self.module(), fname, None)
        if fn is None:
            raise SpecError(f"{self.name}: reference function '{fname}' not found")
        return fn  # type: ignore[no-any-return]


def load_kernel(cu: Path, root: Path = DEFAULT_ROOT) -> KernelSource:
    js = cu.with_suffix(".json")
    try:
        doc = json.loads(js.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise SpecError(f"{cu}: cannot load launch specs from {js}: {exc}") from None
    meta = {k: v for k, v in doc.items() if k != "kernels"} if "kernels" in doc else {}
    raw = doc["kernels"] if isinstance(doc, dict) and "kernels" in doc else [doc]
    spec_error: str | None = None
    try:
        specs = parse_spec_document(doc, js.parent)
    except SpecError as exc:
        pending = [n for n in meta.get("needs", []) if n in UNPARSED_NEEDS]
        if not pending:
            raise SpecError(f"{cu}: {exc.message}") from None
        # Tolerate exactly the pending extension: the rest of the document must parse.
        parse_spec_document(placeholder_document(doc), js.parent)
        spec_error = f"{exc.message} ({'; '.join(UNPARSED_NEEDS[n] for n in pending)})"
        specs = []
    tier = cu.parent.name
    return KernelSource(
        name=f"{tier}/{cu.stem}",
        tier=tier,
        cu_path=cu,
        meta=meta,
        specs=specs,
        raw_specs=list(raw),
        spec_error=spec_error,
    )


def placeholder_document(doc: Any) -> Any:
    """``doc`` with every ``{"kind": "bytes", "size": n, ...}`` argument replaced by a uint8
    buffer of n elements (same position, so default seeds stay put): what the rest of a
    bytes-args document looks like to the current spec loader."""
    if not isinstance(doc, dict):
        return doc

    def fix(spec: Any) -> Any:
        if not isinstance(spec, dict) or not isinstance(spec.get("args"), list):
            return spec
        args = [
            {"kind": "buffer", "dtype": "uint8", "count": int(a.get("size", 0)), "seed": i}
            if isinstance(a, dict) and a.get("kind") == "bytes"
            else a
            for i, a in enumerate(spec["args"])
        ]
        return {**spec, "args": args}

    if "kernels" in doc and isinstance(doc["kernels"], list):
        return {**doc, "kernels": [fix(k) for k in doc["kernels"]]}
    return fix(doc)


def discover(root: Path = DEFAULT_ROOT, tiers: tuple[str, ...] = TIERS) -> list[KernelSource]:
    out: list[KernelSource] = []
    for tier in tiers:
        d = root / tier
        if not d.is_dir():
            continue
        sources = [*d.glob("*.cu"), *d.glob("*.ptx")]
        for cu in sorted(sources, key=lambda p: (p.stem, p.suffix)):
            out.append(load_kernel(cu, root))
    return out


def compare_outputs(
    spec: LaunchSpec, got: dict[int, np.ndarray[Any, Any]], want: dict[int, np.ndarray[Any, Any]]
) -> list[str]:
    """Compare final buffer contents; returns a list of human-readable mismatches (empty = ok).

    Exact (bitwise, NaN == NaN) unless the argument spec carries ``rtol``/``atol`` (documented
    approximations) or ``"check": false``.
    """
    problems: list[str] = []
    for i, exp in sorted(want.items()):
        a = spec.args[i]
        if a.extra.get("check", True) is False:
            continue
        if i not in got:
            problems.append(f"arg{i}: missing from the results")
            continue
        g = np.asarray(got[i])
        e = (
            np.asarray(exp).astype(g.dtype, copy=False).reshape(g.shape)
            if np.asarray(exp).size == g.size
            else np.asarray(exp)
        )
        if g.shape != e.shape:
            problems.append(f"arg{i}: shape {g.shape} != expected {e.shape}")
            continue
        rtol = a.extra.get("rtol")
        atol = a.extra.get("atol")
        if (rtol is not None or atol is not None) and g.dtype.kind == "f":
            ok = np.isclose(g, e, rtol=float(rtol or 0.0), atol=float(atol or 0.0), equal_nan=True)
        elif g.dtype.kind == "f":
            ok = (g.view(f"u{g.itemsize}") == e.view(f"u{e.itemsize}")) | (
                np.isnan(g) & np.isnan(e)
            )
        else:
            ok = g == e
        if not np.all(ok):
            bad = np.flatnonzero(~ok)
            j = int(bad[0])
            problems.append(
                f"arg{i}: {bad.size} of {g.size} elements differ; first at [{j}]: "
                f"got {g.flat[j]!r}, expected {e.flat[j]!r}"
            )
    return problems
