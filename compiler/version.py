"""This module defines the compiler version recorded in every IR program and journal row."""

from importlib import metadata

try:
    COMPILER_VERSION = metadata.version("dwf")
except metadata.PackageNotFoundError:  # running from a source tree that was never installed
    COMPILER_VERSION = "0.1.0"
