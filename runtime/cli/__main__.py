"""`python -m dwf.runtime.cli ...` runs `dwfc` (the same `main` as the console script)."""

import sys

from dwf.runtime.cli.main import main

sys.exit(main())
