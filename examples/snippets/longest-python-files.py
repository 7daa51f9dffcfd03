# A snippet (`dwfc eval`): no meta block, no agents; it reads the workspace and returns a value.
# Only the top two folder levels: a `**` pattern would also list a virtual environment's files.
paths = await files.glob("*.py") + await files.glob("*/*.py")
sizes = []
for path in paths:
    text = await files.read(path)
    sizes.append({"path": path, "lines": len(text.splitlines())})
log(f"{len(paths)} Python files")
return sorted(sizes, key=lambda s: (-s["lines"], s["path"]))[:5]
