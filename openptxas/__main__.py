"""``python -m openptxas``: the ptxas-compatible command line (openptxas.cli)."""

import sys

from openptxas.cli import main

sys.exit(main())
