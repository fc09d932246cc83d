"""Every option of ``ptxas --help`` (13.0.88), against ptxas itself, in every spelling.

For each row of :data:`openptxas.options.OPTION_TABLE` and each of its spellings and value forms
(``--long=V``, ``--long V``, ``-short=V``, ``-short V``), openptxas and ptxas run the same
command line on the same PTX: the exit status, the diagnostics on stderr and whether an output
file appears must agree (``Compile time``/``STAT`` figures and register counts normalised).
Then each option's effect is checked: options that only tune ptxas's internals
(``Effect.TUNING``) leave openptxas's cubin byte-identical, implemented ones do what ptxas does
(one test each below), unsupported ones are refused with a clear message, never ignored.

openptxas runs in-process (``openptxas.cli.main``) so that the suite stays fast.
"""

from __future__ import annotations

import os
import re
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from openptxas import cli
from openptxas.options import OPTION_TABLE, TKINFO_ORDER, Effect, OptionSpec
from openptxas.testing.tools import find_tool
from tests.conftest import need_tools

ROOT = Path(__file__).resolve().parents[2]
VEC_ADD = (ROOT / "examples" / "vec_add.ptx").read_text()
VEC_B = VEC_ADD.replace("vec_add", "vec_b")
# a multiply feeding an add: contracted into FFMA unless --fmad=false
MULADD = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .f32 %f<4>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.f32 %f1, [%rd2];
  mul.f32 %f2, %f1, %f1;
  add.f32 %f3, %f2, 0f3F800000;
  st.global.f32 [%rd2], %f3;
  ret;
}
"""
# doubles (one cvt: warned twice) and a local array
USAGE = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .f64 %d<4>;
  .reg .f32 %f<3>;
  .reg .b64 %rd<3>;
  .local .align 8 .b8 buf[64];
  ld.param.u64 %rd1, [p];
  cvta.to.global.u64 %rd2, %rd1;
  ld.global.f32 %f1, [%rd2];
  cvt.f64.f32 %d1, %f1;
  add.f64 %d2, %d1, %d1;
  st.local.f64 [buf], %d2;
  ld.local.f64 %d3, [buf+8];
  mov.b64 %rd1, %d3;
  st.global.f64 [%rd2], %d3;
  ret;
}
"""
DOUBLE = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k() { .reg .f64 %d; mov.f64 %d, 0d3FF0000000000000; ret; }
"""

# A value each value option is tried with (value forms are checked with it).
SAMPLE: dict[str, str] = {
    "Ofast-compile": "mid",
    "allow-expensive-optimizations": "false",
    "compiler-stats": "time",
    "def-load-cache": "ca",
    "def-store-cache": "wb",
    "device-function-maxrregcount": "40",
    "device-stack-protector": "false",
    "entry": "vec_add",
    "fmad": "false",
    "force-load-cache": "cg",
    "force-store-cache": "wt",
    "gpu-name": "sm_90",
    "machine": "64",
    "maxntid": "128,1,1",
    "maxrregcount": "64",
    "minnctapersm": "2",
    "opt-level": "2",
    "output-file": "out.cubin",
    "position-independent-code": "true",
    "regAllocOptLevel": "2",
    "register-usage-level": "5",
    "split-compile": "4",
    "sanitize": "memcheck",
    "input-as-string": "<PTX>",  # the PTX text itself
    "options-file": "opts.txt",
}
# options with a bad value ptxas refuses, and how (message checked against ptxas)
BAD_VALUES: dict[str, str] = {
    "Ofast-compile": "fast",
    "allow-expensive-optimizations": "yes",
    "compiler-stats": "all",
    "device-stack-protector": "maybe",
    "fmad": "maybe",
    "gpu-name": "sm_91",
    "machine": "32",
    "maxrregcount": "x",
    "minnctapersm": "x",
    "opt-level": "x",
    "position-independent-code": "1",
    "regAllocOptLevel": "x",
    "register-usage-level": "x",
    "split-compile": "x",
    "sanitize": "asan",
}


def _ptxas() -> str:
    need_tools("ptxas")
    p = find_tool("ptxas")
    assert p is not None
    return p


def _norm(text: str) -> str:
    text = re.sub(r"Used \d+ registers", "Used N registers", text)
    text = re.sub(r"Compile time = [\d.]+ ms", "Compile time = T ms", text)
    text = re.sub(r"(STAT: \w+) = [\d.]+", r"\1 = X", text)
    return re.sub(r"tmpxft_[\w-]+_stdin", "tmpxft_stdin", text)


@dataclass
class Run:
    rc: int
    out: str
    err: str
    cubin: bytes | None


def _files(d: Path) -> None:
    (d / "k.ptx").write_text(VEC_ADD)
    (d / "b.ptx").write_text(VEC_B)
    (d / "muladd.ptx").write_text(MULADD)
    (d / "double.ptx").write_text(DOUBLE)
    (d / "usage.ptx").write_text(USAGE)
    (d / "func.ptx").write_text(
        ".version 9.0\n.target sm_90\n.address_size 64\n"
        ".visible .func (.reg .b32 r) f(.reg .b32 a) { add.u32 r, a, 1; ret; }\n"
    )
    (d / "opts.txt").write_text('-v  --opt-level 2\n-o "out file.cubin"\n')


def ours(args: list[str], d: Path, capfd: pytest.CaptureFixture[str], stdin: str = "") -> Run:
    out_path = d / "out.cubin"
    out_path.unlink(missing_ok=True)
    old = os.getcwd()
    os.chdir(d)
    try:
        capfd.readouterr()
        rc = cli.main(args)
        cap = capfd.readouterr()
    finally:
        os.chdir(old)
    return Run(rc, cap.out, cap.err, out_path.read_bytes() if out_path.exists() else None)


def theirs(args: list[str], d: Path, stdin: str = "") -> Run:
    out_path = d / "out.cubin"
    out_path.unlink(missing_ok=True)
    p = subprocess.run(
        [_ptxas(), *args], capture_output=True, text=True, cwd=d, input=stdin, check=False
    )
    cubin = out_path.read_bytes() if out_path.exists() else None
    return Run(p.returncode, p.stdout, p.stderr, cubin)


def _forms(s: OptionSpec, value: str) -> list[list[str]]:
    """Every spelling ptxas accepts for option ``s`` with ``value``."""
    if not s.takes_value:
        return [[f"--{s.long}"], [f"-{s.short}"]]
    forms = [[f"--{s.long}={value}"], [f"--{s.long}", value]]
    if not s.short:
        return forms
    if s.long == "opt-level":  # -O takes its value attached (-O2, -O=2)
        return [*forms, [f"-O{value}"], [f"-O={value}"]]
    return [*forms, [f"-{s.short}={value}"], [f"-{s.short}", value]]


def _command(s: OptionSpec, form: list[str]) -> list[str]:
    arch = [] if s.long == "gpu-name" else ["-arch=sm_90"]
    out = [] if s.long in ("output-file", "options-file") else ["-o", "out.cubin"]
    inputs = [] if s.long == "input-as-string" else ["k.ptx"]
    return [*arch, *form, *inputs, *out]


# the options whose output openptxas deliberately does not match ptxas's (documented in
# docs/cli.md): refused, or one more warning that says an effect is missing
DIFFERS = {
    s.long
    for s in OPTION_TABLE
    if (s.effect is Effect.UNSUPPORTED and s.long != "compile-as-tools-patch")
    or s.long in ("generate-line-info", "help")
}

CASES = [
    (s.long, " ".join(form))
    for s in OPTION_TABLE
    if s.long not in DIFFERS
    for form in _forms(s, SAMPLE.get(s.long, ""))
]
# the PTX text of --input-as-string (it holds blanks and commas: one argument, never split)
PTX_ARG = "<PTX>"


@pytest.mark.parametrize(("long", "form"), CASES)
def test_value_forms_as_ptxas(
    long: str, form: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Each spelling of each option: same status, stderr and output file as ptxas."""
    _files(tmp_path)
    spec = next(s for s in OPTION_TABLE if s.long == long)
    words = [w.replace(PTX_ARG, VEC_ADD) for w in form.split(" ")]
    args = _command(spec, words)
    t = theirs(args, tmp_path)
    o = ours(args, tmp_path, capfd)
    assert o.rc == t.rc, (o.err, t.err)
    assert _norm(o.err) == _norm(t.err)
    assert (o.cubin is None) == (t.cubin is None)
    if long not in ("help", "version", "list-version"):
        assert o.out == t.out == ""


@pytest.mark.parametrize("long", sorted(BAD_VALUES))
def test_bad_values_as_ptxas(long: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    _files(tmp_path)
    spec = next(s for s in OPTION_TABLE if s.long == long)
    args = _command(spec, [f"--{long}={BAD_VALUES[long]}"])
    t = theirs(args, tmp_path)
    o = ours(args, tmp_path, capfd)
    assert (o.rc, o.err, o.cubin) == (t.rc, t.err, t.cubin)


def test_table_is_ptxas_help() -> None:
    """OPTION_TABLE holds exactly the options of ptxas --help (plus its hidden ones), with the
    same long and short spellings and value placeholders."""
    text = subprocess.run([_ptxas(), "--help"], capture_output=True, text=True).stdout
    listed = re.findall(r"^--(\S+)(?: (<[^>]*>(?:,\.\.\.)?))?\s+\(-(\S+)\)", text, re.M)
    assert len(listed) > 50
    hidden = {"regAllocOptLevel", "compiler-stats"}
    # the cache-modifier options take a value their help line shows no placeholder for
    valued = {"def-load-cache", "def-store-cache", "force-load-cache", "force-store-cache"}
    table = {s.long: s for s in OPTION_TABLE if s.long not in hidden}
    assert sorted(table) == sorted(long for long, _, _ in listed)
    for long, meta, short in listed:
        s = table[long]
        assert s.short == short, long
        assert (meta != "" or long in valued) == s.takes_value, long


def test_every_option_accepted_and_documented(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Every option is accepted (or, if UNSUPPORTED, refused with a message naming openptxas),
    appears in --help, and in docs/cli.md."""
    _files(tmp_path)
    doc = (ROOT / "docs" / "cli.md").read_text()
    helptext = cli.usage()
    accepted = 0
    for s in OPTION_TABLE:
        assert f"--{s.long}" in helptext, s.long
        assert f"(-{s.short})" in helptext or not s.short, s.long
        assert f"`--{s.long}`" in doc and (f"`-{s.short}`" in doc or not s.short), s.long
        value = SAMPLE.get(s.long, "")
        args = _command(s, [f"--{s.long}={value}"] if s.takes_value else [f"--{s.long}"])
        args = [a.replace(PTX_ARG, VEC_ADD) for a in args]
        if s.long == "compile-as-tools-patch":  # patch code: device functions only
            args = [a.replace("k.ptx", "func.ptx") for a in args]
        r = ours(args, tmp_path, capfd)
        if s.effect is Effect.UNSUPPORTED:
            assert r.rc == 255 and "openptxas" in r.err and r.cubin is None, s.long
        else:
            assert r.rc == 0, (s.long, r.err)
            accepted += 1
    unsupported = [s.long for s in OPTION_TABLE if s.effect is Effect.UNSUPPORTED]
    assert accepted == len(OPTION_TABLE) - len(unsupported)
    assert sorted(unsupported) == [
        "compile-as-tools-patch", "sanitize"
    ]  # fmt: skip


@pytest.mark.parametrize("long", [s.long for s in OPTION_TABLE if s.effect is Effect.TUNING])
def test_tuning_options_leave_the_cubin_unchanged(
    long: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Options that only tune ptxas's internals are accepted and change nothing in
    openptxas's output but the command line recorded in .note.nv.tkinfo (as ptxas records
    it: test_tkinfo_records_options_as_ptxas); docs/cli.md says so for each."""
    _files(tmp_path)
    spec = next(s for s in OPTION_TABLE if s.long == long)
    base = ours(["-arch=sm_90", "muladd.ptx", "-o", "out.cubin"], tmp_path, capfd)
    form = [f"--{long}", SAMPLE[long]] if spec.takes_value else [f"--{long}"]
    r = ours(["-arch=sm_90", *form, "muladd.ptx", "-o", "out.cubin"], tmp_path, capfd)
    assert r.rc == 0 and r.err == ""
    assert r.cubin is not None and base.cubin is not None
    assert (r.cubin != base.cubin) == (long in TKINFO_ORDER)  # ptxas records it, or not
    assert _without_tkinfo(r.cubin) == _without_tkinfo(base.cubin)


def _without_tkinfo(cubin: bytes) -> list[tuple[str, object]]:
    from openptxas.elf.reader import read_cubin

    return [(s.name, s.content) for s in read_cubin(cubin).sections if s.name != ".note.nv.tkinfo"]


# ---- effects of the implemented options ---------------------------------------------------


def _opcodes(cubin: bytes) -> list[str]:
    from openptxas.isa.model import Instruction
    from openptxas.tools.sass_cli import disassemble_cubin

    _, sections = disassemble_cubin(cubin)
    return [i.opcode for sec in sections for i in sec.items if isinstance(i, Instruction)]


def _kernels(cubin: bytes) -> list[str]:
    from openptxas.elf.reader import read_cubin

    return sorted(s.name[len(".text.") :] for _, s in read_cubin(cubin).find_sections(".text."))


def test_fmad(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    _files(tmp_path)
    for flag, fused in (("--fmad=true", True), ("--fmad=false", False)):
        args = ["-arch=sm_90", flag, "muladd.ptx", "-o", "out.cubin"]
        o, t = ours(args, tmp_path, capfd), theirs(args, tmp_path)
        assert o.cubin is not None and t.cubin is not None
        assert ("FFMA" in _opcodes(o.cubin)) == ("FFMA" in _opcodes(t.cubin)) == fused
        assert ("FMUL" in _opcodes(o.cubin)) == (not fused)


def test_opt_level(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    _files(tmp_path)
    o0 = ours(["-arch=sm_90", "-O0", "muladd.ptx", "-o", "out.cubin"], tmp_path, capfd)
    o3 = ours(["-arch=sm_90", "-O3", "muladd.ptx", "-o", "out.cubin"], tmp_path, capfd)
    assert o0.cubin and o3.cubin and o0.cubin != o3.cubin
    assert "FFMA" not in _opcodes(o0.cubin)  # ptxas does not contract at -O0


def test_gpu_name(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    from openptxas.elf.reader import read_cubin

    _files(tmp_path)
    for arch in ("sm_90", "sm_90a"):
        r = ours([f"--gpu-name={arch}", "k.ptx", "-o", "out.cubin"], tmp_path, capfd)
        assert r.cubin is not None
        t = theirs([f"--gpu-name={arch}", "k.ptx", "-o", "out.cubin"], tmp_path)
        assert t.cubin is not None
        assert read_cubin(r.cubin).e_flags == read_cubin(t.cubin).e_flags


@pytest.mark.parametrize("arch", ["compute_90", "lto_90", "compute_90a"])
def test_virtual_arch_checks_only(
    arch: str, tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """compute_XX/lto_XX: parse and check only, no output file (ptxas: the same)."""
    _files(tmp_path)
    for ptx in ("k.ptx", "double.ptx"):
        args = [f"-arch={arch}", "-v", ptx, "-o", "out.cubin"]
        o, t = ours(args, tmp_path, capfd), theirs(args, tmp_path)
        assert (o.rc, o.err, o.cubin) == (t.rc, t.err, t.cubin)
    (tmp_path / "bad.ptx").write_text(VEC_ADD.replace("ret;", "bogus;"))
    args = [f"-arch={arch}", "bad.ptx", "-o", "out.cubin"]
    o, t = ours(args, tmp_path, capfd), theirs(args, tmp_path)
    assert (o.rc, o.err, o.cubin) == (t.rc, t.err, None)


def test_entry_selects_kernels(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    _files(tmp_path)
    r = ours(["-arch=sm_90", "-e", "vec_b", "k.ptx", "b.ptx", "-o", "out.cubin"], tmp_path, capfd)
    assert r.cubin is not None and _kernels(r.cubin) == ["vec_b"]
    r = ours(["-arch=sm_90", "-e", "nope", "k.ptx", "-o", "out.cubin"], tmp_path, capfd)
    t = theirs(["-arch=sm_90", "-e", "nope", "k.ptx", "-o", "out.cubin"], tmp_path)
    assert (r.rc, r.err, r.cubin) == (t.rc, t.err, None)


def test_several_inputs_one_program(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """Several input files make one cubin with every kernel, compiled (and reported) in
    reverse order of definition; a name defined twice is an error (ptxas: the same)."""
    _files(tmp_path)
    args = ["-arch=sm_90", "-v", "k.ptx", "b.ptx", "-o", "out.cubin"]
    o, t = ours(args, tmp_path, capfd), theirs(args, tmp_path)
    assert o.rc == t.rc == 0 and _norm(o.err) == _norm(t.err)
    assert o.cubin and t.cubin and _kernels(o.cubin) == _kernels(t.cubin) == ["vec_add", "vec_b"]
    args = ["-arch=sm_90", "k.ptx", "k.ptx", "-o", "out.cubin"]
    o, t = ours(args, tmp_path, capfd), theirs(args, tmp_path)
    assert (o.rc, o.cubin) == (t.rc, t.cubin) == (255, None)
    assert "Duplicate definition of function 'vec_add'" in o.err


def test_stdin_and_input_as_string(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    """``-`` reads standard input; --input-as-string takes PTX text (several, comma-separated,
    named 'application ptx input' in messages). Each gives the cubin of the same file."""
    import io
    import sys

    _files(tmp_path)
    ref = ours(["-arch=sm_90", "k.ptx", "-o", "out.cubin"], tmp_path, capfd).cubin
    old = sys.stdin
    sys.stdin = io.StringIO(VEC_ADD)
    try:
        r = ours(["-arch=sm_90", "-", "-o", "out.cubin"], tmp_path, capfd)
    finally:
        sys.stdin = old
    assert r.rc == 0 and r.cubin == ref
    r = ours(["-arch=sm_90", "-ias", VEC_ADD, "-o", "out.cubin"], tmp_path, capfd)
    assert r.rc == 0 and r.cubin == ref
    bad = VEC_ADD.replace("ret;", "bogus;")
    args = ["-arch=sm_90", "-ias", bad, "-o", "out.cubin"]
    o, t = ours(args, tmp_path, capfd), theirs(args, tmp_path)
    assert (o.rc, o.err) == (t.rc, t.err)
    assert "application ptx input, line" in o.err
    # stdin through a real process: the temporary-file name ptxas reports
    t = theirs(["-arch=sm_90", "-", "-o", "out.cubin"], tmp_path, stdin=bad)
    p = subprocess.run(
        [sys.executable, "-m", "openptxas", "-arch=sm_90", "-", "-o", "out.cubin"],
        input=bad, capture_output=True, text=True, cwd=tmp_path, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert p.returncode == t.rc == 255 and _norm(p.stderr) == _norm(t.err)


def test_options_file(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    _files(tmp_path)
    r = ours(["-arch=sm_90", "-optf", "opts.txt", "k.ptx"], tmp_path, capfd)
    assert r.rc == 0 and "Compiling entry function 'vec_add'" in r.err  # -v from the file
    assert (tmp_path / "out file.cubin").exists()  # a quoted name with a blank
    args = ["-arch=sm_90", "--options-file", "nope.txt", "k.ptx"]
    o, t = ours(args, tmp_path, capfd), theirs(args, tmp_path)
    assert (o.rc, o.err) == (t.rc, t.err)


def test_compiler_stats(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    _files(tmp_path)
    r = ours(
        ["-arch=sm_90", "--compiler-stats=time,memory", "k.ptx", "-o", "out.cubin"],
        tmp_path,
        capfd,
    )
    lines = r.err.splitlines()
    assert re.fullmatch(r"ptxas info    : STAT: CompileTime = \d+\.\d{6} ms", lines[0])
    assert re.fullmatch(r"ptxas info    : STAT: PeakMemoryUsage = \d+\.\d{3} KB", lines[1])
    assert float(lines[1].split("= ")[1].split()[0]) > 1000


@pytest.mark.parametrize(
    "args",
    [
        ["-maxrregcount", "300", "-v"],
        ["-maxrregcount", "300", "-w"],
        ["-maxrregcount", "300", "-Werror"],
        ["-maxrregcount", "archmax", "-v"],
        ["-maxrregcount", "archmin", "-v"],
        ["-maxrregcount", "16", "-v"],
        ["-preserve-relocs", "-Werror"],
        ["-preserve-relocs", "-w"],
        ["-regUsageLevel", "11"],
        ["-o", "a.cubin", "-O3", "-O1"],
        ["-arch=sm_80"],
        ["-suppress-debug-info", "-lineinfo"],
        ["-g-tmem-access-check"],  # the info line names .target (sm_90)
        ["-astoolspatch"],
        ["-m64"],
        ["-O"],
        ["-O-1", "-v"],
        ["-maxrregcount=-5", "-v"],
        ["-maxrregcount=-0", "-v"],
        ["--split-compile=-1"],
        ["-mfoo"],
        ["-m", "32"],
    ],
    ids=lambda a: "_".join(a),
)
def test_messages_as_ptxas(
    args: list[str], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """Warnings and info lines options cause, their -w/-Werror forms, redefinitions."""
    _files(tmp_path)
    full = ["-arch=sm_90", *args, "k.ptx", "-o", "out.cubin"]
    o, t = ours(full, tmp_path, capfd), theirs(full, tmp_path)
    assert o.rc == t.rc
    assert _norm(o.err) == _norm(t.err)
    assert (o.cubin is None) == (t.cubin is None)


@pytest.mark.parametrize(
    "args",
    [
        ["-warn-double-usage", "-v"],
        ["-warn-lmem-usage", "-v"],
        ["--warn-on-double-precision-use", "--warn-on-local-memory-usage", "-v"],
        ["-warn-double-usage", "-warn-lmem-usage", "-w"],
        ["-warn-lmem-usage", "-Werror"],
        ["-warn-double-usage", "-o", "/nonexistent/x.cubin"],
    ],
    ids=lambda a: "_".join(a),
)
def test_usage_warnings_as_ptxas(
    args: list[str], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """--warn-on-double-precision-use (each f64 instruction, a cvt twice, before the output
    check) and --warn-on-local-memory-usage (each function with a frame, before -v)."""
    _files(tmp_path)
    full = ["-arch=sm_90", "usage.ptx", "-o", "out.cubin", *args]
    o, t = ours(full, tmp_path, capfd), theirs(full, tmp_path)
    assert o.rc == t.rc
    assert _norm(o.err) == _norm(t.err)
    assert (o.cubin is None) == (t.cubin is None)


def test_lineinfo_writes_line_sections_and_g(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """-lineinfo writes the line sections (tests/compiler/test_lineinfo.py checks them), quietly
    as ptxas; --suppress-debug-info drops them; -g writes the -g sections."""
    _files(tmp_path)
    r = ours(["-arch=sm_90", "-lineinfo", "k.ptx", "-o", "out.cubin"], tmp_path, capfd)
    assert r.rc == 0 and r.err == "" and r.cubin is not None and b".nv_debug_line_sass" in r.cubin
    r = ours(
        ["-arch=sm_90", "-lineinfo", "-suppress-debug-info", "k.ptx", "-o", "out.cubin"],
        tmp_path,
        capfd,
    )
    assert r.rc == 0 and r.cubin is not None and b".nv_debug_line_sass" not in r.cubin
    # -g (tests/compiler/test_debug_g.py): on PTX without nvcc -G's DWARF, ptxas's two warnings
    r = ours(["-arch=sm_90", "-g", "k.ptx", "-o", "out.cubin"], tmp_path, capfd)
    assert r.rc == 0 and r.cubin is not None and b".nv_debug_info_reg_sass" in r.cubin
    assert r.err.splitlines() == [
        "ptxas warning :  .debug_abbrev section not found",
        "ptxas warning :  .debug_info section not found",
    ]
    r = ours(["-arch=sm_90", "--sanitize=memcheck", "k.ptx", "-o", "out.cubin"], tmp_path, capfd)
    assert r.rc == 255 and "not supported by openptxas" in r.err and r.cubin is None


def test_version_and_help(capfd: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    r = ours(["--version"], tmp_path, capfd)
    assert r.rc == 0 and "openptxas" in r.out
    # Triton's parse of ptxas --version (triton/knobs.py NvidiaTool.from_path)
    m = re.search(r".*release (\d+\.\d+).*", r.out, flags=re.MULTILINE)
    assert m is not None and m.group(1) == "13.0"
    for args in (["--help"], ["-h"], [], ["-arch=sm_90"]):
        r = ours(args, tmp_path, capfd)
        assert r.rc == 0 and r.out == cli.usage() and r.err == ""
    assert ours(["-version-ls"], tmp_path, capfd).out == theirs(["-version-ls"], tmp_path).out


def test_output_file_mode_and_unwritable_path(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    _files(tmp_path)
    old = os.umask(0o022)
    try:
        assert ours(["-arch=sm_90", "k.ptx", "-o", "out.cubin"], tmp_path, capfd).rc == 0
        assert stat.S_IMODE((tmp_path / "out.cubin").stat().st_mode) == 0o644
        os.umask(0o027)
        assert ours(["-arch=sm_90", "k.ptx", "-o", "out.cubin"], tmp_path, capfd).rc == 0
        assert stat.S_IMODE((tmp_path / "out.cubin").stat().st_mode) == 0o640
    finally:
        os.umask(old)
    for out in ("/nonexistent/dir/x.cubin", ".", ""):
        # before code generation: the -v report never appears; after parsing: a syntax
        # error still does (ptxas: the same)
        (tmp_path / "bad.ptx").write_text(VEC_ADD.replace("ret;", "bogus;"))
        for ptx in ("k.ptx", "bad.ptx"):
            args = ["-arch=sm_90", "-v", ptx, "-o", out]
            o, t = ours(args, tmp_path, capfd), theirs(args, tmp_path)
            assert (o.rc, _norm(o.err)) == (t.rc, _norm(t.err))


def test_docs_tables_current() -> None:
    """docs/cli.md's option tables are generated from OPTION_TABLE (scripts/gen_cli_doc.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen", ROOT / "scripts" / "gen_cli_doc.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    doc = (ROOT / "docs" / "cli.md").read_text()
    assert gen.render(doc) == doc, "run: python scripts/gen_cli_doc.py"


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["-v"],
        ["-O2"],
        ["-O3"],
        ["--fmad=false"],
        ["-lineinfo", "-suppress-debug-info"],
        ["-lineinfo", "-v", "--regAllocOptLevel=2", "--fmad=false", "--gpu-name=sm_90a"],
        ["-maxrregcount", "archmax", "-O5", "--fmad=true"],
        ["-Werror", "-dlcm", "ca", "-annotate", "-w", "-m64", "-fmad=false", "-ewp",
         "-split-compile", "2", "-pic", "false"],
        ["-e", "vec_add", "-v", "-O1", "-Ofc", "mid"],
        ["-warn-spills", "-warn-lmem-usage", "-no-bb-merge", "-ret-end", "-sp-bounds-check"],
        ["-maxntid", "128,1,1", "-minnctapersm", "2", "-override-directive-values",
         "-regUsageLevel", "3", "--compiler-stats=time"],
    ],
    ids=lambda a: "_".join(a) or "none",
)  # fmt: skip
def test_tkinfo_records_options_as_ptxas(
    args: list[str], tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    """ptxas records the options given in .note.nv.tkinfo, in its own order: the note is
    byte-identical to ptxas's."""
    from openptxas.elf.reader import read_cubin

    def note(cubin: bytes | None) -> bytes:
        assert cubin is not None
        return b"".join(s.data() for _, s in read_cubin(cubin).find_sections(".note.nv.tkinfo"))

    _files(tmp_path)
    full = ["-arch=sm_90", *args, "k.ptx", "-o", "out.cubin"]
    o, t = ours(full, tmp_path, capfd), theirs(full, tmp_path)
    assert note(o.cubin) == note(t.cubin)
    # the same options through the library record the same line
    import openptxas

    lib = openptxas.compile(VEC_ADD, args=full[:-3])
    assert note(lib.cubin) == note(t.cubin)


def test_fast_compile_conflicts_as_ptxas(tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    _files(tmp_path)
    for args in (["-O3", "-Ofc", "mid"], ["-O1", "-Ofc", "min"], ["-Ofc", "max", "-O3"],
                 ["-O0", "-Ofc", "max"], ["-O2", "-Ofc", "0"], ["-Ofc", "mid"]):  # fmt: skip
        full = ["-arch=sm_90", *args, "k.ptx", "-o", "out.cubin"]
        o, t = ours(full, tmp_path, capfd), theirs(full, tmp_path)
        assert (o.rc, o.err) == (t.rc, t.err), args
