"""The Sphinx command the page tests build their docs projects with."""

import sys

# -N: no colour codes in the messages the tests read (Sphinx colours them when CI=true);
# -W -n: a warning or a broken reference fails the build.
SPHINX_HTML = [sys.executable, "-m", "sphinx", "-N", "-W", "-n", "-q", "-b", "html"]
