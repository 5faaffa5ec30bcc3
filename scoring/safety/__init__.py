"""Safety rules for inputs strangers wrote: names are data, files are files (docs/safety.md)."""
