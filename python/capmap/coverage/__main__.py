"""`python -m capmap.coverage`: what `capmap coverage` runs."""

import sys

from capmap.coverage.cli import main

sys.exit(main())
