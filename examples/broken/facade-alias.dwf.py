"""Mistake: binding a facade function to a local name.

`files.read` is an effect with a site ID; a call through an alias has no site and therefore no
journal key. Call `files.read(path)` directly (binding the container, `f = files`, is fine).
"""
meta = {"name": "facade-alias", "description": "Count the words in every Markdown page."}

read = files.read  # error: DWF301:8  # facade function `files.read` used as a value

phase("Count words")
pages = await files.glob("docs/**/*.md")
texts = await parallel(read(p) for p in pages)
summary = await agent("counter").ask(f"Comment on these word counts: {[len(t.split()) for t in texts]}")
return summary
