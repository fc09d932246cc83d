"""SASS instruction table for sm100 (sm_100, sm_100a): sm90's rows plus sm_100's differences.

Hand-written from probes of nvdisasm 13.2.86 (``-b SM100``), as a demonstration of how a family
is derived from another; the differences are not yet learned by scripts/isa_learn.py (phase 2),
so rows that sm_100 changes beyond these are still sm_90's. ``python scripts/isa_learn.py check
--family sm100`` measures how many of the inherited rows nvdisasm confirms for sm_100.

Differences (verified: ``UMOV UR4, URZ`` is ``...0ff00047c82`` on sm_100 and prints ``UR63`` for
sm_90's ``...03f00047c82``):
- uniform registers are 8-bit fields (UR0-UR79 on sm_100) and URZ is register 255;
"""

from typing import Any

FAMILY = "sm100"
BASE = "sm90"
REG_ZERO = {"UR": 255}
REG_WIDTH = {"UR": 8}  # widen sm90's 6-bit UR fields over the two (fixed-zero) bits above them
DROP: tuple[str, ...] = ()
FORMS: tuple[Any, ...] = ()
