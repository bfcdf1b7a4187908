"""Repro scripts for failing cells (`capmap repro`) and the check that they reproduce."""
