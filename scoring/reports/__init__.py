"""What is made from a scored run or from index.json files: comparisons, plans, tables, diffs, verification."""
