"""This module defines the compiler's limits and the pre-checks that hold them before the text
is lowered (`size_problem`, `nesting_problem`): a script is at most `MAX_SCRIPT_BYTES` of UTF-8,
and its syntax tree at most `MAX_NESTING` levels deep, measured over the tree CPython's parser
(the first stage of `compiler.parse`) builds.

Why: the lowering and the passes over the IR recurse once per level. The IR nests each `and`/`or`
of a chain one level deeper (`a and b and c` is `(a and b) and c`; CPython keeps a chain flat),
so the depth counted here is the depth the IR will have: a `BoolOp` of n values counts n - 1
levels.
"""

from __future__ import annotations

import ast

MAX_SCRIPT_BYTES = 1 << 20  # 1 MB: the longest example script is under 20 KB
MAX_NESTING = 2000  # levels of the syntax tree: far below where the recursive passes would overflow


def size_problem(size: int) -> str | None:
    """What is wrong with a script of `size` bytes of UTF-8, or None when it is within the limit."""
    if size <= MAX_SCRIPT_BYTES:
        return None
    return f"{size:,} bytes; a script is at most {MAX_SCRIPT_BYTES:,} bytes (1 MB)"


def nesting_problem(tree: ast.AST) -> tuple[int, int, str] | None:
    """(line, column, what is wrong) for the first node of `tree` whose children lie deeper than
    `MAX_NESTING` levels, as the IR will nest them; None when the tree is within the limit. The walk keeps its
    own stack: it never recurses, whatever the depth."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        children = list(ast.iter_child_nodes(node))
        inner = depth + (len(node.values) - 1 if isinstance(node, ast.BoolOp) else 1)
        if children and inner > MAX_NESTING:  # the node that nests its children too deep
            line, column = getattr(node, "lineno", 1), getattr(node, "col_offset", 0) + 1
            return line, column, (f"the code at line {line} is nested more than {MAX_NESTING} levels deep "
                                  f"(each `and`/`or` of a chain counts as a level); at most {MAX_NESTING} are allowed")
        stack.extend((child, inner) for child in children)
    return None
