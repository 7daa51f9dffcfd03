"""The host-agent tool layer (TOOLS §3) and its MCP front end.

- `layer.py`: `ToolLayer`, which answers the tools over one workspace.
- `definitions.py`: the tool definitions, as data.
- `mcp.py`: the tool layer served over MCP stdio (`dwfc mcp`).

`dwf.runtime.tools.ToolLayer`, `ToolLayerError` and `result_text` are the documented import paths.
"""

from dwf.runtime.tools.layer import ToolLayer, ToolLayerError, result_text

__all__ = ["ToolLayer", "ToolLayerError", "result_text"]
