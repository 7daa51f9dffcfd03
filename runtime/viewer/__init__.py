"""The live run viewer (`dwfc ui`, #15): a local web app over a workspace's journal, beside the
tool layer. It imports the host, the engine, the journal and the ports; never the tool layer or
the command line (which passes it the Graphviz renderer).

- `app.py`: `Viewer`, the Starlette app: the page, the JSON API, the server-sent event stream
  and the actions (answer, cancel, resume, concurrency).
- `views.py`: the read models the page draws (`runs_page`, `run_page`, `node_detail`) and
  `JournalMarks`, what the live stream compares.
- `graph.py`: `phase_graph`, the plan's phase graph of a run's script, as SVG and text.
- `security.py`: `TokenGuard`, the per-start token, cookie, POST and CSP checks.

The page itself is `static/` (`index.html`, `viewer.js`, `viewer.css`): no build step, no CDN.
"""

from dwf.runtime.viewer.app import Viewer
from dwf.runtime.viewer.security import new_token

__all__ = ["Viewer", "new_token"]
