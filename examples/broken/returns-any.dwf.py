"""Mistake: `returns=` with `Any` in the type.

A typed ask is validated against a JSON Schema synthesized from its type; `Any` says nothing, so
it is rejected there (it is fine in other annotations). Declare the shape with a TypedDict, or use `object`
when any JSON value really is acceptable.
"""
from typing import Any

meta = {"name": "returns-any", "description": "Extract the configuration options from the docs."}

phase("Extract")
options = await agent("extractor").ask(
    "List every configuration option documented in docs/config.md with its default.",
    returns=dict[str, Any],  # error: DWF401:23  # `Any` is not allowed in a result type ($.*)
)
return options
