"""Helpers the tests share: builders of runs and files, and drivers of the dashboard (fixtures are in
tests/conftest.py). No test module imports another."""
