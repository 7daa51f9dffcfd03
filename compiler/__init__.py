"""The DWF compiler: source text to diagnostics, site IDs, schemas and the analyzed IR."""
