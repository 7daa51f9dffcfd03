"""A built wheel installs into a fresh virtual environment, maps the three folders onto the
`dwf.grammar`, `dwf.compiler` and `dwf.runtime` packages, ships the grammar's data files, and
provides the `dwfc` console script, whose `dwfc guide` prints the language guide from the
installed package data.

Tests are offline, so the fresh environment installs only the wheel (`--no-index --no-deps`)
and borrows the third-party dependencies from the project's own environment through a `.pth`
line; the wheel's metadata is checked to pin the same versions."""

import subprocess
import sys
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_installs_and_imports(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist), str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (wheel,) = dist.glob("dwf-*.whl")
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    install = subprocess.run([str(python), "-m", "pip", "install", "--disable-pip-version-check", "-q",
                              "--no-index", "--no-deps", str(wheel)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr
    site_packages = next(env_dir.glob("lib/python3*/site-packages"))
    borrowed = [p for p in sys.path if p.endswith("site-packages") and Path(p).is_dir()]
    (site_packages / "zz_borrowed_dependencies.pth").write_text("\n".join(borrowed) + "\n")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert {"dwf/grammar/dwf.lark", "dwf/grammar/meta.schema.json", "dwf/grammar/language.md",
            "dwf/compiler/rules/__init__.py", "dwf/runtime/cli/main.py", "dwf/runtime/viewer/static/index.html",
            "dwf/runtime/viewer/static/viewer.js", "dwf/runtime/viewer/static/viewer.css"} <= names
    assert "Requires-Dist: lark==1.3.1" in metadata and "libcst" not in metadata  # the front end is CPython's `ast` (#18)
    assert "Requires-Dist: starlette==1.10.0" in metadata
    from dwf.compiler.version import COMPILER_VERSION

    assert f"Version: {COMPILER_VERSION}\n" in metadata
    probe = ("import dwf.grammar, dwf.compiler, dwf.runtime, dwf.compiler.rules;"
             "from dwf.grammar.meta import meta_schema; from dwf.grammar.syntax import accepts;"
             "print(dwf.compiler.__file__); print(meta_schema()['title']); print(accepts('x = 1\\n'))")
    done = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    compiler_file, title, accepted = done.stdout.split("\n")[:3]
    assert "site-packages/dwf/compiler/__init__.py" in compiler_file  # the installed copy, not the checkout
    assert title == "DWF meta block"
    assert accepted == "True"
    version = subprocess.run([str(env_dir / "bin" / "dwfc"), "--version"], capture_output=True, text=True, timeout=60)
    assert version.returncode == 0
    assert version.stdout.strip().startswith("dwfc ")
    guide = subprocess.run([str(env_dir / "bin" / "dwfc"), "guide"], capture_output=True, text=True, cwd=tmp_path,
                           timeout=60)
    assert guide.returncode == 0, guide.stderr
    assert guide.stdout == (ROOT / "grammar" / "language.md").read_text(encoding="utf-8")
