"""load -> check -> re-score -> aggregate -> index.json."""
