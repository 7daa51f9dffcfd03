# A snippet that runs a command: `dwfc eval` shows `git` and asks before it runs (or pass --yes).
status = await git.status()
commits = await git.log(3)
counted = await world.run("git", ["rev-list", "--count", "HEAD"])
return {
    "branch": status.branch,
    "clean": status.clean,
    "commits": int(counted.stdout.strip()),
    "latest": [commit.subject for commit in commits],
}
