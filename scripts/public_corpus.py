"""Build and inspect the public reference corpus (ptxas 13.0 cubins of public CUDA code).

A thin entry point for openptxas.testing.public_corpus, which holds the logic and documents it:

    python scripts/public_corpus.py build [--jobs 2] [--repos GLOB,...] [--targets sm_90,sm_90a]
    python scripts/public_corpus.py list [--target sm_90] [--repo NAME] [--skipped]
    python scripts/public_corpus.py stats [--json]

The corpus goes to $OPENPTXAS_PUBLIC_CORPUS (default .cache/public-corpus, git-ignored), read from
the git snapshots under $OPENPTXAS_MIRRORS (default /work/.mirror). See docs/corpus.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from openptxas.testing.public_corpus import main

if __name__ == "__main__":
    sys.exit(main())
