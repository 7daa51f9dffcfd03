"""This module defines the lowering of exception class declarations: `ExceptionClassLowering`,
the part of `Lowerer` that turns `class RetryError(Exception): pass` into an `ir.ExceptionClass`
statement and reports every other shape with a message about exception classes (never the
TypedDict advice): methods and assignments (`DWF104`, which the grammar refuses in every class
body), fields, keywords, two bases, a shadowed builtin, a name bound twice and
`json.JSONDecodeError` as a base (`DWF111`), and a declaration below the top level (`DWF106`).

It is a mixin without state of its own: `Lowerer` (`compiler.lower.lowerer`) finds the script's exception
classes before the walk (`has_exception_base`, `exception_classes`), so a class may derive from
one declared further down, and resolves their names as top-level variables.
"""

from __future__ import annotations

import difflib

import ast

from dwf.grammar import builtins as B
from dwf.grammar import facade as F

from dwf.compiler import ir
from dwf.compiler.rules import syntax as X
from dwf.compiler.lower.arguments import call_args
from dwf.compiler.lower.literals import is_ellipsis, is_plain_string
from dwf.compiler.lower.scopes import dotted_name
from dwf.compiler.lower.state import LoweringState

# Class names that read as exceptions (`RetryError`, `ReviewFailed`): their diagnostics speak of
# exception classes even when the base is misspelt.
EXCEPTION_SUFFIXES = ("Error", "Exception", "Failed", "Failure", "Exceeded")


class ExceptionClassLowering(LoweringState):
    """Lowers exception class declarations; see the module docstring."""

    def find_exception_classes(self, module: ast.Module) -> None:
        """Before the walk: the top-level classes derived, directly or through each other, from
        an exception class, into `exception_classes`."""
        classes = [s for s in module.body if isinstance(s, ast.ClassDef) and s.name not in self.typeddicts]
        grown = True
        while grown:  # a class may derive from another exception class of the script, declared anywhere
            grown = False
            for statement in classes:
                if statement.name not in self.exception_classes and self.has_exception_base(statement):
                    self.exception_classes[statement.name] = statement
                    grown = True

    def has_exception_base(self, node: ast.ClassDef) -> bool:
        """Whether a class names an exception class among its bases: a builtin exception type,
        `json.JSONDecodeError` or an exception class of the script."""
        for value in node.bases:
            if isinstance(value, ast.Starred):
                value = value.value
            if isinstance(value, ast.Name) and (value.id in self.exception_classes or (
                    value.id in B.EXCEPTION_TYPES and value.id not in self.scope.module().bindings)):
                return True
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and \
                    (value.value.id, value.attr) in B.MODULE_EXCEPTION_TYPES:
                return True
        return False

    def is_exception_like(self, node: ast.ClassDef) -> bool:
        """An exception class, or a class that reads like one (`class RetryError(Exceptoin)`), so
        its diagnostics speak of exception classes, never of TypedDicts."""
        bases = [dotted_name(b.value if isinstance(b, ast.Starred) else b) for b in node.bases]
        return self.has_exception_base(node) or any(n.endswith(EXCEPTION_SUFFIXES) for n in [node.name, *bases]) \
            or any(difflib.get_close_matches(b, B.EXCEPTION_TYPES, n=1, cutoff=0.8) for b in bases)

    def lower_exception_class(self, node: ast.ClassDef) -> ir.Stmt | None:
        """`class Name(Base): pass` (or a docstring) with an exception class as its only base."""
        name = node.name
        head = self._head_span(node)
        name_span = self._def_name_span(node)
        self._check_name(name, name_span)
        if not self.at_top_level:
            self.report(X.NotTopLevel, head, what="Exception class declarations")
        hint = f"pass details as arguments: `raise {name}(f\"...\")`, and read them back with `str(e)` or `e.args`"
        positional = []
        for base in call_args(node):
            if base.keyword is not None or base.star:
                self.report(X.ExceptionClassShape, base.node, detail=f"An exception class takes no keywords or unpacking "
                            f"(`{self.code(base.node).strip(', ')}`)", hint=f"write `class {name}(Exception):`")
            else:
                positional.append(base.value)
        if len(positional) != 1:
            self.report(X.ExceptionClassShape, positional[1] if len(positional) > 1 else head,
                        detail=f"The exception class `{name}` must have exactly one base class",
                        hint=f"derive from one exception type, e.g. `class {name}(ValueError):`")
        base_expr = None
        if positional:
            base = positional[0]
            if isinstance(base, ast.Attribute) and (dotted_name(base.value), base.attr) in B.MODULE_EXCEPTION_TYPES:
                self.report(X.ExceptionClassShape, base, detail=f"`{dotted_name(base)}` cannot be subclassed: its "
                            "exceptions carry the parser's position", hint=f"derive from `ValueError`: `class {name}(ValueError):`")
            else:
                base_expr = self.expr(base)
                known = isinstance(base_expr, ir.Name) and (
                    (base_expr.scope == ir.BUILTIN and base_expr.id in B.EXCEPTION_TYPES)
                    or (base_expr.scope == ir.GLOBAL and base_expr.id in self.exception_classes))
                if not known and not (isinstance(base_expr, ir.Name) and base_expr.scope == ir.UNDEFINED):
                    self.report(X.ExceptionClassShape, base, detail=f"The base `{self.code(base)}` of `{name}` is not "
                                "an exception class", hint="derive from `Exception` or another exception class")
                    base_expr = None
        if name in B.BUILTINS or name in B.FORBIDDEN_BUILTINS or name in F.FACADE_NAMES:
            self.report(X.ExceptionClassShape, name_span, detail=f"The exception class `{name}` would shadow the builtin "
                        f"`{name}`", hint="give the class a name of its own, e.g. `Retry" + name + "`")
        if len(self.scope.module().bindings.get(name, ())) > 1 and self.at_top_level:
            self.report(X.ExceptionClassShape, name_span, detail=f"`{name}` is bound more than once; an exception "
                        "class is declared once and never reassigned", hint="give each class and variable its own name")
        for statement in node.body:
            if isinstance(statement, ast.Pass) or (isinstance(statement, ast.Expr) and (
                    is_plain_string(statement.value) or is_ellipsis(statement.value))):
                continue
            if isinstance(statement, ast.AnnAssign):
                self.report(X.ExceptionClassShape, statement, detail=f"The exception class `{name}` declares the field "
                            f"`{self.code(statement.target)}`; an exception class holds only a docstring or `pass`",
                            hint=hint)
            else:
                what = f"the method `{statement.name}`" if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) else \
                    "an assignment" if isinstance(statement, (ast.Assign, ast.AugAssign)) else \
                    f"a `{_LIBCST_NAMES.get(type(statement).__name__, type(statement).__name__)}` statement"
                self.report(X.NonTypedDictClass, statement, detail=f"The exception class `{name}` may hold only a docstring "
                            f"or `pass`, not {what}", help=hint)
        if base_expr is None:
            return None
        return ir.ExceptionClass(self.span(node), name, base_expr)


# The statement names messages have always used (libcst's), where CPython's differ.
_LIBCST_NAMES = {"Delete": "Del", "AsyncFor": "For", "AsyncWith": "With", "AsyncFunctionDef": "FunctionDef"}
