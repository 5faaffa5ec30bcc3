"""Every file's type and its decoder: inputs, records, the reference, the output documents and their
JSON Schemas."""
