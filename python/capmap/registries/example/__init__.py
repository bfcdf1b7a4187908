"""The bundled example survey: small torch functions and modules, quick to probe.

It is the default registry of the tests and the engine bench, and a template for a new survey.
"""

from capmap import library

library("example")

REGISTRY_MODULES = ["functions", "modules"]
