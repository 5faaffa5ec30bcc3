"""The command line: the only user of argparse. One module per command (or per group: ``score``
holds score, validate and solver-score, ``reports`` table, diff and verify, ``prepare`` init and
fill), each registering its parsers (``add_parsers``); options and console text shared."""
