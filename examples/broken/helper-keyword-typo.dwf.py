"""Mistake: a keyword argument that the helper function does not have.

`review(pth=...)` names no parameter of `review(path, focus=None)`: the call would raise
`TypeError` after the earlier reviews were paid for. The compiler knows the parameters.
"""
meta = {"name": "helper-keyword-typo", "description": "Review each changed file with a focus."}


async def review(path, focus=None):
    text = await files.read(path)
    return await agent(f"reviewer-{path}").ask(f"Review {path} for {focus or 'bugs'}:\n{text}")


phase("Review")
reviews = []
for changed in await git.changed_files():
    reviews.append(await review(pth=changed, focus="security"))  # error: DWF212:33  # unexpected keyword `pth`
return reviews
