import json

import numpy as np
import pytest

from openptxas.spec import (
    SpecError,
    bf16_bits_to_float,
    float_to_bf16_bits,
    load_spec_file,
    materialize,
    pack_params,
    parse_spec,
    storage_dtype,
)

BASE = {
    "kernel": "k",
    "grid": [2, 1, 1],
    "block": [32, 1, 1],
    "shared_bytes": 0,
    "args": [
        {"kind": "buffer", "dtype": "float32", "count": 8, "init": "random", "seed": 3},
        {"kind": "buffer", "dtype": "int32", "count": 4, "init": "arange", "role": "out"},
        {"kind": "scalar", "dtype": "u64", "init": 7},
    ],
}


def test_parse_and_materialize():
    s = parse_spec(BASE)
    assert s.grid == (2, 1, 1) and s.threads == 32 and s.ctas == 2
    a, b, c = materialize(s)
    rng = np.random.default_rng(3)
    assert np.array_equal(a, rng.standard_normal(8).astype(np.float32))
    assert b.tolist() == [0, 1, 2, 3]
    assert c.dtype == np.uint64 and c.tolist() == [7]


def test_random_integers_cover_full_range():
    s = parse_spec(
        {
            "kernel": "k",
            "args": [
                {"kind": "buffer", "dtype": "uint8", "count": 4000, "init": "random", "seed": 1}
            ],
        }
    )
    (a,) = materialize(s)
    assert a.min() == 0 and a.max() == 255


def test_short_dtypes_and_bf16():
    assert storage_dtype("i16") == np.int16
    assert storage_dtype("bf16") == np.uint16
    x = np.array([1.0, -2.5, 3.140625, np.inf], dtype=np.float32)
    assert np.array_equal(bf16_bits_to_float(float_to_bf16_bits(x)), x)
    # round to nearest even: 1 + 2^-8 is a tie between 1 and 1 + 2^-7 -> 1
    assert float_to_bf16_bits(np.array([1.00390625], np.float32))[0] == 0x3F80


@pytest.mark.parametrize(
    "bad,msg",
    [
        ({"grid": [0]}, "grid"),
        ({"args": [{"kind": "pointer", "dtype": "f32"}]}, "kind"),
        ({"args": [{"kind": "buffer", "dtype": "complex64"}]}, "dtype"),
        ({"args": [{"kind": "buffer", "dtype": "f32", "role": "sideways"}]}, "role"),
        ({"kernel": ""}, "kernel"),
    ],
)
def test_errors(bad, msg):
    with pytest.raises(SpecError, match=msg):
        parse_spec({**BASE, **bad})


def test_file_with_several_kernels(tmp_path):
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"kernels": [BASE, {**BASE, "kernel": "k2"}], "min_sm": 80}))
    specs = load_spec_file(p)
    assert [s.kernel for s in specs] == ["k", "k2"]
    assert specs[1].extra["file"] == {"min_sm": 80}
    assert specs[0].base_dir == tmp_path


def test_pack_params_alignment():
    s = parse_spec(
        {
            "kernel": "k",
            "args": [
                {"kind": "scalar", "dtype": "int32", "init": 5},
                {"kind": "buffer", "dtype": "f32", "count": 1},
                {"kind": "scalar", "dtype": "int8", "init": 1},
            ],
        }
    )
    vals = materialize(s)
    raw = pack_params(s, vals, [0, 0x1122334455667788, 0])
    assert raw[:4] == (5).to_bytes(4, "little")
    assert raw[8:16] == (0x1122334455667788).to_bytes(8, "little")
    assert raw[16] == 1 and len(raw) == 17


def test_bytes_args_hex_file_and_layout(tmp_path):
    (tmp_path / "blob.bin").write_bytes(bytes(range(24)))
    np.save(tmp_path / "x.npy", np.arange(4, dtype=np.float32))
    doc = {
        "kernel": "k",
        "args": [
            {"kind": "scalar", "dtype": "i8", "init": 3},
            {"kind": "bytes", "size": 24, "align": 8, "init": {"file": "blob.bin"}},
            {"kind": "bytes", "size": 4, "align": 4, "init": {"hex": "01 02 03 04"}},
            {"kind": "buffer", "dtype": "f32", "count": 4, "init": {"file": "x.npy"}},
        ],
    }
    p = tmp_path / "s.json"
    p.write_text(json.dumps(doc))
    (s,) = load_spec_file(p)
    vals = materialize(s)
    assert vals[1].tobytes() == bytes(range(24))
    assert vals[2].tolist() == [1, 2, 3, 4]
    assert vals[3].tolist() == [0.0, 1.0, 2.0, 3.0]
    from openptxas.spec import param_layout

    assert param_layout(s) == [(0, 1), (8, 24), (32, 4), (40, 8)]
    raw = pack_params(s, vals, [0, 0, 0, 0xABCD])
    assert raw[8:32] == bytes(range(24)) and raw[32:36] == b"\x01\x02\x03\x04"
    assert len(raw) == 48


@pytest.mark.parametrize(
    "arg,msg",
    [
        ({"kind": "bytes", "init": "zeros"}, "positive 'size'"),
        ({"kind": "bytes", "size": 8, "align": 3}, "power of two"),
        ({"kind": "bytes", "size": 8, "init": "random"}, "init"),
        ({"kind": "bytes", "size": 8, "init": {"hex": "zz"}}, "hexadecimal"),
        ({"kind": "scalar", "dtype": "i32", "role": "out"}, "by value"),
    ],
)
def test_bytes_errors(arg, msg):
    with pytest.raises(SpecError, match=msg):
        parse_spec({"kernel": "k", "args": [arg]})


def test_data_file_size_mismatch(tmp_path):
    (tmp_path / "d.bin").write_bytes(b"\0" * 10)
    s = parse_spec(
        {
            "kernel": "k",
            "args": [{"kind": "buffer", "dtype": "f32", "count": 4, "init": {"file": "d.bin"}}],
        },
        tmp_path,
    )
    with pytest.raises(SpecError, match="has 10 bytes, the spec needs 16"):
        materialize(s)
