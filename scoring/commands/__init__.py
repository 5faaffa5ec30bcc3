"""The command line: the only user of argparse. One module per command; options and console text shared."""
