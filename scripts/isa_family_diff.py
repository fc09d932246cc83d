#!/usr/bin/env python3
"""Do two nvdisasm architectures read the same words alike? (Which SMs can share one ISA table.)

Collects the distinct instruction words of the retargeted public corpus
(``scripts/corpus_retarget.py``) for the given targets, disassembles every word with
``nvdisasm -b`` of each architecture, and counts the words whose text differs or that one
architecture rejects. Identical texts on every word ptxas emitted for all of them (and on random
encodings, ``isa_learn.py check --family``) is the evidence that the SMs are one family.

    python scripts/isa_family_diff.py --targets sm_80,sm_86,sm_89 --archs SM80,SM86,SM87,SM88,SM89
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus_retarget import default_root  # noqa: E402
from isa_nvdisasm import RawDisasm  # noqa: E402

from openptxas.elf.reader import read_cubin  # noqa: E402
from openptxas.testing import public_corpus as pc  # noqa: E402


def corpus_words(targets: list[str], root: Path) -> Counter[int]:
    words: Counter[int] = Counter()
    for t in targets:
        for _, blob in pc.iter_cubins(t, root=root):
            for _, sec in read_cubin(blob).find_sections(".text."):
                if not sec.has_file_data:
                    continue
                data = sec.data()
                for i in range(0, len(data) - 15, 16):
                    words[int.from_bytes(data[i : i + 16], "little")] += 1
    return words


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--targets", default="sm_80,sm_86,sm_89")
    ap.add_argument("--archs", default="SM80,SM86,SM87,SM88,SM89")
    ap.add_argument("--root", type=Path, default=None)
    ap.add_argument("--show", type=int, default=10, help="differences listed per pair")
    args = ap.parse_args(argv)
    words = corpus_words(args.targets.split(","), args.root or default_root())
    ws = sorted(words)
    archs = args.archs.split(",")
    texts = {a: RawDisasm(a).texts(ws) for a in archs}
    print(f"{len(ws)} distinct words ({sum(words.values())} instructions) of {args.targets}")
    base = archs[0]
    for a in archs[1:]:
        diff = [i for i, w in enumerate(ws) if texts[a][i] != texts[base][i]]
        print(f"{base} vs {a}: {len(ws) - len(diff)} alike, {len(diff)} differ")
        for i in diff[: args.show]:
            print(f"  {ws[i]:032x}  {base}: {texts[base][i]!r}  {a}: {texts[a][i]!r}")
    for a in archs:
        print(f"{a}: rejects {sum(t is None for t in texts[a])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
