"""The interpreter covers what the compiler emits and what the grammar allows: every IR node type
has an interpreter handler and a data-flow case (compiler/plan/dataflow.py), or is a part its
parent handles; and the runtime implements exactly the builtins, module members and regex methods
grammar/builtins.py offers. (These were load-time asserts, which `python -O` strips.)"""

from __future__ import annotations

import typing

from dwf.compiler import ir
from dwf.compiler.compile import compile_source
from dwf.compiler.plan.dataflow import FlowAnalysis
from dwf.grammar import builtins as B
from dwf.runtime.interpreter import regex
from dwf.runtime.interpreter.builtins import BUILTIN_IMPLS, make_modules
from dwf.runtime.interpreter.interpreter import EXPRESSIONS, STATEMENTS

# Node types compiled by their parent's handler, never dispatched on their own.
PARTS = {ir.FormattedValue, ir.Starred, ir.Keyword, ir.Param, ir.Comprehension, ir.ExceptHandler, ir.Site,
         ir.Program}
STATEMENT_TYPES = set(typing.get_args(ir.Stmt))
EXPRESSION_TYPES = set(typing.get_args(ir.Expr)) - PARTS


def flow_analysis() -> FlowAnalysis:
    program = compile_source('meta = {"name": "x", "description": "y"}\n', "x.dwf.py").program
    return FlowAnalysis(program)


def test_every_ir_node_type_is_a_statement_an_expression_or_a_part():
    assert STATEMENT_TYPES | EXPRESSION_TYPES | PARTS == set(ir.NODE_TYPES.values())


def test_every_ir_node_has_an_interpreter_handler():
    assert STATEMENT_TYPES - set(STATEMENTS) == set()
    assert EXPRESSION_TYPES - set(EXPRESSIONS) == set()


def test_every_ir_node_has_a_data_flow_case():
    analysis = flow_analysis()
    assert STATEMENT_TYPES - set(analysis.statement_cases) == set()
    assert EXPRESSION_TYPES - set(analysis.expression_cases) == set()


def test_the_runtime_implements_what_the_grammar_offers():
    assert set(BUILTIN_IMPLS) == set(B.BUILTIN_FUNCTIONS)
    for name, module in make_modules().items():
        assert set(module.members) == set(B.MODULES[name]), name
    assert {*regex.PATTERN_METHODS, *regex.PATTERN_DATA} == set(B.PATTERN_METHODS)
    assert {*regex.MATCH_METHODS, *regex.MATCH_DATA} == set(B.MATCH_METHODS)
