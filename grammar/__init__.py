"""The DWF language definition as data: syntax grammar, facade registry, allow-lists, meta schema."""
