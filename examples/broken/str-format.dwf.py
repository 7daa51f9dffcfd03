"""Mistake: building instructions with `str.format`.

`str.format` and `format_map` can reach attributes through the format string, so they are not
available. Use an f-string: `f"Review {path} for {focus} problems."`.
"""
meta = {"name": "str-format", "description": "Review a module with a given focus."}

path = "src/billing/invoice.py"
focus = "rounding"

phase("Review")
prompt = "Review {} for {} problems.".format(path, focus)  # error: DWF203:39  # `str.format` is not allowed; use an f-string
review = await agent("reviewer").ask(prompt)
return review
