"""Tests of ensel.collect (a package, so its conftest does not shadow tests/conftest.py)."""
