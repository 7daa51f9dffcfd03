"""Escapes caught at check time by the kind checks (`compiler/checks/kind_checks.py`): the same reaches
for record, actor and awaitable internals as the run-time corpus, written where the compiler
sees the value's kind (a list element, a loop variable, a name), so they never run."""

from escape_kinds import compile_error

CORPUS = [
    compile_error("record-fields-static", "rs = [await world.run('echo', ['x'])]\nreturn rs[0].fields", "DWF207"),
    compile_error("record-type-name-loop", "for r in [await world.run('echo', ['x'])]:\n    return r.type_name", "DWF207"),
    compile_error("record-subscript-static", "r = await world.run('echo', ['x'])\nreturn r['stdout']", "DWF214"),
    compile_error("grep-record-get", "ms = await files.grep('x')\nreturn [m.get('path') for m in ms]", "DWF207"),
    compile_error("agent-key-static", "xs = [agent('a')]\nreturn xs[0].key", "DWF207"),
    compile_error("awaitable-attribute-static", "async def f():\n    return 1\nxs = [f()]\nreturn xs[0].start", "DWF328"),
    compile_error("awaitable-frame", "t = files.read('a.py')\nreturn t.cr_frame", "DWF328"),
    compile_error("ask-result-attribute", "a = agent('a')\nr = await a.ask('x', returns=dict[str, int])\nreturn r.keys.__self__", "DWF202"),
    compile_error("json-data-attribute", "import json\nd = json.loads('{}')\nreturn d.__dict__", "DWF202"),
    compile_error("str-decode-static", "r = await world.run('echo', ['x'])\nreturn r.stdout.decode()", "DWF207"),
]
