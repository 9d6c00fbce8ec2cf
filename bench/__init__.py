"""Benchmarks (not part of the unit-test suite): `make bench`."""
