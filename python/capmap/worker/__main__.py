"""`python -m capmap.worker`: see capmap.worker."""

import sys

from capmap.worker.entry import main

sys.exit(main())
