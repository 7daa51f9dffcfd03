"""The DWF language definition as data: syntax grammar, facade registry, allow-lists, meta schema,
and the language guide written for models. It imports nothing from the rest of DWF.

- `dwf.lark`: the normative grammar of the accepted syntax (LALR).
- `syntax.py`: its loader and parser (`parse_tree`, `accepts`), with what LALR cannot state.
- `builtins.py`: the allow-lists: builtins, exception types, modules and their members, the
  methods of each value type and which of them change their receiver, and the names not offered
  with the hint to give.
- `facade.py`: the facade registry: containers, members, site kinds, argument shapes.
- `programs.py`: what DWF knows about the programs scripts run: interpreters, programs that run
  programs, and the options of each that execute code or leave the workspace.
- `meta.py` and `meta.schema.json`: the meta block's JSON Schema and `Meta`, its type as data.
- `language.md`: the language guide (`docs/language.md` points to it), shipped as package data
  so that `dwfc guide` and `dwfc mcp` serve it from an installed wheel; `language_guide()` reads it.

`__all__` names the guide's reader and the modules; the package imports none of them (`syntax`
loads lark).
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

GUIDE_FILE = "language.md"

__all__ = ["GUIDE_FILE", "builtins", "facade", "language_guide", "meta", "programs", "syntax"]


@cache
def language_guide() -> str:
    """The language guide as Markdown text."""
    return (Path(__file__).parent / GUIDE_FILE).read_text(encoding="utf-8")
