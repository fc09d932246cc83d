"""The public-corpus builder (openptxas.testing.public_corpus) on a tiny fake repository.

The real corpus is built from mirrors by scripts/public_corpus.py, outside the test suite; here a
git repository made in tmp_path stands in for a mirror: selection, included ``.cu`` files, skips
with reasons, duplicates, the manifest's figures, and a second build that rebuilds nothing.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from openptxas.elf.reader import read_cubin
from openptxas.testing import public_corpus as pc
from tests.conftest import need_tools

KERNEL = """extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"""

FILES = {
    "src/axpy.cu": KERNEL,
    "src/copy_of_axpy.cu": KERNEL,  # same PTX as axpy.cu: a duplicate
    "src/host_only.cu": "int main() { return 0; }\n",
    "src/needs_lib.cu": "#include <no_such_library.h>\n__global__ void k() {}\n",
    "src/main.cu": '#include "part.cu"\nint main() { return 0; }\n',
    "src/part.cu": "__global__ void part_kernel(int* p) { *p = 7; }\n",
    "docs/readme.txt": "not a source\n",
}

SPEC = pc.RepoSpec("acme/kernels", sources=("src/*.cu",), exclude=("src/copy_*",))
SPEC_ALL = pc.RepoSpec("acme/kernels", sources=("src/*.cu",))


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


@pytest.fixture
def mirrors(tmp_path: Path) -> Path:
    """A mirror root holding acme+kernels/repo: a clone with a work tree (``repo/.git``)."""
    repo = tmp_path / "mirrors" / "acme+kernels" / "repo"
    for rel, text in FILES.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "fake")
    return tmp_path / "mirrors"


def test_selection_and_includes(mirrors: Path, tmp_path: Path) -> None:
    gd = pc.git_dir(mirrors / "acme+kernels")
    assert gd.name == ".git"
    files = sorted(FILES)
    assert pc.select_sources(SPEC, files) == [
        "src/axpy.cu",
        "src/host_only.cu",
        "src/main.cu",
        "src/needs_lib.cu",
        "src/part.cu",
    ]
    tree, missing = pc.extract(gd, pc.head_commit(gd), tmp_path / "tree")
    assert missing == []
    assert (tree / "src/axpy.cu").read_text() == KERNEL
    assert pc.included_sources(tree, files, ()) == {"src/part.cu": "src/main.cu"}


def test_build_manifest_and_cache(mirrors: Path, tmp_path: Path) -> None:
    need_tools("nvcc", "ptxas")
    root = tmp_path / "corpus"
    rep = pc.build(root=root, mirrors=mirrors, repos=[SPEC_ALL], targets=("sm_90",), triton=False)
    m = json.loads((root / "manifest.json").read_text())
    assert m["complete"] is True
    commit = _git(mirrors / "acme+kernels" / "repo", "rev-parse", "HEAD")
    assert m["repos"]["acme/kernels"]["commit"] == commit
    by_src = {e["source"]: e for e in m["entries"]}
    assert set(by_src) == {f for f in FILES if f.endswith(".cu")}

    ok = by_src["src/axpy.cu"]
    assert ok["status"] == "ok" and ok["target"] == "sm_90" and ok["commit"] == commit
    assert ok["nvcc_flags"][:2] == ["-ptx", "-arch=sm_90"] and ok["ptxas_flags"] == ["-arch=sm_90"]
    assert ok["kernels"] == ["axpy"]
    blob = (root / ok["cubin"]).read_bytes()
    assert hashlib.sha256(blob).hexdigest() == ok["cubin_sha256"]
    assert (root / ok["ptx"]).read_text().count(".entry axpy") == 1
    # instruction counts are the .text sections' sizes over 16, per function
    texts = {s.name: len(s.data()) for _, s in read_cubin(blob).find_sections(".text.")}
    assert ok["functions"] == {"axpy": texts[".text.axpy"] // 16}
    assert ok["instructions"] == ok["functions"]["axpy"] > 4

    assert by_src["src/copy_of_axpy.cu"]["duplicate_of"] == ok["id"]
    skipped = {s: e["reason"] for s, e in by_src.items() if e["status"] != "ok"}
    assert skipped == {
        "src/host_only.cu": "no kernels (host code only)",
        "src/needs_lib.cu": "missing header no_such_library.h",
        "src/part.cu": "included by src/main.cu (not a translation unit)",
    }
    assert by_src["src/main.cu"]["kernels"] == ["_Z11part_kernelPi"]  # part.cu's, through main.cu
    t = m["totals"]
    assert (t["cubins"], t["duplicates"], t["skipped"]) == (2, 1, 3)
    assert t["instructions"] == ok["instructions"] + by_src["src/main.cu"]["instructions"]
    assert t["skip_reasons"]["missing header no_such_library.h"] == 1
    assert (rep.built, rep.reused) == (3, 0)

    # the API: built, non-duplicate cubins only
    got = [(e["source"], b) for e, b in pc.iter_cubins("sm_90", root=root)]
    assert [s for s, _ in got] == ["src/axpy.cu", "src/main.cu"] and got[0][1] == blob

    # a second build reuses every entry and leaves the outputs untouched
    mtime = (root / ok["cubin"]).stat().st_mtime_ns
    again = pc.build(root=root, mirrors=mirrors, repos=[SPEC_ALL], targets=("sm_90",), triton=False)
    assert (again.built, again.reused) == (0, len(by_src))
    assert (root / ok["cubin"]).stat().st_mtime_ns == mtime
    assert again.manifest["entries"] == m["entries"]

    # a new commit changes every key of the repository: its entries are built again
    repo = mirrors / "acme+kernels" / "repo"
    (repo / "src/axpy.cu").write_text(KERNEL.replace("a * x[i]", "a * x[i] * x[i]"))
    _git(repo, "commit", "-q", "-am", "square")
    third = pc.build(root=root, mirrors=mirrors, repos=[SPEC], targets=("sm_90",), triton=False)
    assert (third.built, third.reused) == (2, 0)
    new = {e["source"]: e for e in third.manifest["entries"]}
    assert "src/copy_of_axpy.cu" not in new  # excluded by SPEC now
    assert new["src/axpy.cu"]["cubin_sha256"] != ok["cubin_sha256"]


def test_skip_reasons() -> None:
    ptxas = (
        "ptxas /c/build/sm_90/triton/mm.ptx, line 983; error   : "
        "Instruction 'wgmma.fence' not supported on .target 'sm_90'\n"
    )
    assert pc._summarise("ptxas", ptxas) == "needs sm_90a: Instruction 'wgmma.fence'"
    nvcc = 'a/b.cu(309): warning #186-D: x\na/b.cu(333): error: identifier "N" is undefined\n'
    assert pc._summarise("nvcc", nvcc) == 'nvcc: error: identifier "N" is undefined'
    missing = "k.cu:1:10: fatal error: GL/glew.h: No such file or directory\n"
    assert pc._summarise("nvcc", missing) == "missing header GL/glew.h"
    assert pc.reason_category("included by a/main.cu (not a translation unit)") == (
        "included by another .cu (not a translation unit)"
    )
    assert pc.reason_category("needs sm_90a: Instruction 'tensormap.replace'") == "needs sm_90a"


def test_triton_variants_are_listed() -> None:
    names = pc.triton_variants()
    assert {"vector_add", "softmax", "layernorm", "row_sum", "attention_w8"} <= set(names)
    assert {"matmul_w4", "matmul_w8", "matmul_tma_w4", "matmul_tma_w8"} <= set(names)
