"""The IR: every example lowers to a program that round-trips through JSON unchanged, whose
canonical text dump is snapshot-tested, and whose hash is the same in every process."""

import json
import os
import subprocess
import sys

from conftest import EXAMPLES, ROOT, compile_text, relative

from dwf.compiler import ir


def compile_example(path):
    result = compile_text(path.read_text(encoding="utf-8"), relative(path))
    assert result.program is not None, [str(d) for d in result.diagnostics]
    return result.program


def test_json_round_trip(example):
    program = compile_example(example)
    data = ir.to_json(program)
    text = json.dumps(data)
    assert ir.from_json(json.loads(text)) == program
    assert ir.from_json(json.loads(text)).ir_hash == program.ir_hash


def test_text_dump_snapshot(example, snapshot):
    assert ir.dump(compile_example(example)) == snapshot


def test_every_node_type_serializes():
    names = set(ir.NODE_TYPES)
    seen: set[str] = set()

    def walk(value):
        if isinstance(value, dict):
            if "node" in value:
                seen.add(value["node"])
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for path in EXAMPLES:
        walk(ir.to_json(compile_example(path)))
    # Node types the examples never produce: the error placeholder, the base class and constructs
    # the examples happen not to use.
    assert names - seen <= {"Invalid", "Node", "ExceptionClass", "TypeName", "Delete", "Raise", "Assert", "AnnAssign", "Set", "SetComp",
                            "Lambda", "Slice", "DictComp", "NamedExpr", "Starred", "Continue", "Pass",
                            "UnaryOp", "While", "Import"}


def test_program_records_meta_commands_phases():
    text = (
        'meta = {"name": "demo", "description": "d", "phases": [{"title": "B"}, {"title": "A"}]}\n'
        'phase("B")\nawait world.run("zeta", [])\nawait agent("x").ask("hi")\n'
        'phase("A")\nawait world.run("alpha", ["-q"])\n'
    )
    program = compile_text(text).program
    assert program.meta["name"] == "demo"
    assert program.commands == ("alpha", "zeta")
    assert program.phases == ("B", "A")
    assert [s.id for s in program.sites] == ["run#1", "ask#1", "actor#1", "run#2"]


def test_typed_ask_refers_to_schema_by_key():
    text = (
        'from typing import TypedDict\n'
        'meta = {"name": "demo", "description": "d"}\n'
        'class Item(TypedDict):\n    name: str\n'
        'phase("P")\n'
        'a = await agent("a").ask("x", returns=list[Item])\n'
        'b = await agent("b").ask("y", returns=list[Item])\n'
    )
    program = compile_text(text).program
    asks = [node for node in _walk(program) if isinstance(node, ir.FacadeCall) and node.op == "ask"]
    assert [a.schema for a in asks] == ["list[Item]", "list[Item]"]
    assert program.schema("list[Item]")["type"] == "array"


def _walk(node):
    if isinstance(node, ir.Node):
        yield node
        for name in node.__dataclass_fields__:
            yield from _walk(getattr(node, name))
    elif isinstance(node, tuple):
        for item in node:
            yield from _walk(item)


def test_hash_is_stable_across_processes():
    script = (
        "import sys; from pathlib import Path; from dwf.compiler.compile import compile_source\n"
        "for p in sorted(Path(sys.argv[1]).glob('*.dwf.py')):\n"
        "    print(p.name, compile_source(p.read_text(), p.name).program.ir_hash)\n"
    )
    outputs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", script, str(ROOT / "examples")], env=env,
                              capture_output=True, text=True, check=True, timeout=120)
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert len(outputs[0].splitlines()) == len(EXAMPLES)
