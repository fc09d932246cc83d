"""nvdisasm as an oracle for raw instruction words (used by the isa_* table scripts only).

``RawDisasm.texts(words)`` disassembles many 128-bit words in one ``nvdisasm -b SM90`` run
(word i at byte address 16*i) and returns each instruction's text exactly as printed (``;``
included), or None where nvdisasm rejects the word. nvdisasm refuses a whole file when one word is
illegal but names the offending addresses on stderr, so rejected words are replaced by NOPs and the
file is disassembled again. Results are cached per batch under ``.cache/isa/`` (content hash of the
nvdisasm version, the architecture and the words), so re-running a deterministic script is fast.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path

from openptxas.testing.tools import require_tool, tool_version

REPO = Path(__file__).resolve().parents[1]
CACHE = Path(os.environ.get("OPENPTXAS_ISA_CACHE", REPO / ".cache" / "isa"))
_LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s*(.*?)\s*$")
_ERR = re.compile(r"at address 0x([0-9a-f]+)")
NOP = (0x000FC00000000000 << 64) | 0x0000000000007918
CHUNK = 1 << 20


class RawDisasm:
    def __init__(self, arch: str = "SM90") -> None:
        self.arch = arch
        self.tool = require_tool("nvdisasm")
        self.version = tool_version("nvdisasm")
        self.runs = 0

    def texts(self, words: Sequence[int]) -> list[str | None]:
        out: list[str | None] = []
        for i in range(0, len(words), CHUNK):
            out.extend(self._batch(list(words[i : i + CHUNK])))
        return out

    def _batch(self, words: list[int]) -> list[str | None]:
        blob = b"".join(w.to_bytes(16, "little") for w in words)
        h = hashlib.sha256(f"{self.version}|{self.arch}|".encode() + blob).hexdigest()
        path = CACHE / h[:2] / f"{h}.json"
        if path.exists():
            return list(json.loads(path.read_text()))
        res = self._run(words)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(res))
        tmp.replace(path)
        return res

    def _run(self, words: list[int]) -> list[str | None]:
        words = list(words)
        bad: set[int] = set()
        while True:
            with tempfile.NamedTemporaryFile(suffix=".bin", delete=False) as f:
                for w in words:
                    f.write(w.to_bytes(16, "little"))
                name = f.name
            try:
                proc = subprocess.run(
                    [self.tool, "-b", self.arch, name], capture_output=True, text=True, check=False
                )
            finally:
                os.unlink(name)
            self.runs += 1
            if proc.returncode == 0:
                break
            errs = {int(m.group(1), 16) // 16 for m in _ERR.finditer(proc.stderr)}
            errs -= bad
            if not errs:
                raise RuntimeError(f"nvdisasm failed without naming an address:\n{proc.stderr}")
            for i in errs:
                bad.add(i)
                words[i] = NOP
        res: dict[int, str] = {}
        for line in proc.stdout.splitlines():
            m = _LINE.match(line)
            if m:
                res[int(m.group(1), 16) // 16] = m.group(2)
        return [None if i in bad else res.get(i) for i in range(len(words))]
