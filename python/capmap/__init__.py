"""capmap: which operators of a PyTorch library can be captured as a graph."""

from capmap.cases import Case, Exclusion, RegistryError, case, exclude, library
from capmap.deferred import Deferred, deferred

__all__ = ["Case", "Deferred", "Exclusion", "RegistryError", "case", "deferred", "exclude", "library"]
__version__ = "0.1.0"
