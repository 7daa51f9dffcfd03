"""The host-agent tool layer (TOOLS §3) and its MCP front end, above the host services. It
imports the host, the engine and the ports; never the command line.

- `layer.py`: `ToolLayer`, which answers the eleven tools over one workspace (through
  `host.session.WorkspaceSession`), and `result_text`.
- `definitions.py`: the tool definitions as data (`ToolDefinition`, with `approval` and
  `read_only`), approval requests and input validation.
- `mcp.py`: the tool layer served over MCP stdio (`dwfc mcp`).
- `notices.py`: `NoticeDelivery`, run notices pushed to the MCP client (log, channel and
  resource-updated notifications, `subscriptions/listen`) and the `dwf://runs` resources.
- `prompts.py`: the MCP prompts: `write-workflow` (the guide) and one per saved workflow.

`dwf.runtime.tools.ToolLayer`, `ToolLayerError` and `result_text` are the documented import paths.
"""

from dwf.runtime.tools.layer import ToolLayer, ToolLayerError, result_text

__all__ = ["ToolLayer", "ToolLayerError", "result_text"]
