"""Sphinx configuration of capmap's documentation site."""

import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
sys.path[:0] = [str(DOCS / "_ext"), str(DOCS.parent / "python")]

project = "capmap"
author = "capmap contributors"
html_title = "capmap"

extensions = ["myst_parser", "sphinx.ext.autodoc", "capmap.sphinx", "cli_help"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store", "**/.ipynb_checkpoints"]

myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# Standard-library types in signatures: there is no intersphinx inventory to resolve them offline.
nitpick_ignore = [
    ("py:class", "Any"),
    ("py:class", "Callable"),
    ("py:class", "Sequence"),
    ("py:class", "collections.abc.Callable"),
    ("py:class", "collections.abc.Sequence"),
    ("py:class", "typing.Any"),
    # Return types of the registry functions; registries never use them by name.
    ("py:class", "capmap.cases.Case"),
    ("py:class", "capmap.cases.Exclusion"),
    ("py:class", "capmap.deferred.Deferred"),
]

html_theme = "furo"
html_static_path = ["_static"]
