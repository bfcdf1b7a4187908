"""`python -m capmap.worker`: see capmap.worker."""

import sys

from capmap.environment import withhold_ci_variables

# Before anything imports torch: it reads CI at import time.
withhold_ci_variables()

from capmap.worker.entry import main  # noqa: E402

sys.exit(main())
