"""Fixtures for the Python tests; the helpers themselves live in capmap_testing."""

from capmap_testing import capmap_bin, fault_registry, worker_factory

__all__ = ["capmap_bin", "fault_registry", "worker_factory"]
