"""``openptxas-sass info`` / ``rewrite``."""

from __future__ import annotations

import json

from openptxas.tools.sass_cli import main as sass_main
from tests.elf.samples import DATA, SAMPLE_SPECS


def test_info_text_and_json(capsys) -> None:
    path = DATA / "globals_sm90.cubin"
    assert sass_main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "entry use_globals" in out and "registers 26" in out
    assert "params at c[0x0][0x210], 12 bytes" in out
    assert sass_main(["info", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    f = {x["name"]: x for x in doc["functions"]}["use_globals"]
    assert f["registers"] == 26
    assert [(p["offset"], p["size"]) for p in f["params"]] == [(0, 8), (8, 4)]
    assert any(a["name"] == "EIATTR_EXIT_INSTR_OFFSETS" for a in f["attributes"])
    assert doc["target"] == "sm_90"


def test_rewrite_is_identity(tmp_path) -> None:
    for name in SAMPLE_SPECS:
        src = DATA / f"{name}.cubin"
        out = tmp_path / f"{name}.out"
        assert sass_main(["rewrite", str(src), "-o", str(out)]) == 0
        assert out.read_bytes() == src.read_bytes()


def test_usage_errors(tmp_path, capsys) -> None:
    assert sass_main(["info"]) == 2
    assert "error" in capsys.readouterr().err
    assert sass_main(["rewrite", str(DATA / "globals_sm90.cubin")]) == 2
    assert sass_main(["info", str(tmp_path / "missing.cubin")]) == 2
    err = capsys.readouterr().err
    assert "cannot read" in err and "Traceback" not in err
