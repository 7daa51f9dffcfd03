"""The DWF runtime: command line, interpreter, engine and ports."""
