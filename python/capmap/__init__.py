"""capmap: which operators of a PyTorch library can be captured as a graph."""

from capmap.cases import Case, Exclusion, RegistryError, case, exclude, library

__all__ = ["Case", "Exclusion", "RegistryError", "case", "exclude", "library"]
__version__ = "0.1.0"
