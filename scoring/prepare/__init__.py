"""The steps before scoring: a skeleton attempts table, solver scores filled in from the records."""
