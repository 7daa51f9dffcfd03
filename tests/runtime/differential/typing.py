"""Differential snippets for the typing names in annotations and TypedDict constructors
(language issue #11): code annotated with `List`, `Dict`, `Tuple`, `Set`, `FrozenSet`,
`Optional`, `Union`, `Any`, `Callable`, `Iterable`, `Sequence`, `Mapping` runs as in CPython
(annotations are not checked at run time), and calling a TypedDict builds a plain dict with
`dict()`'s semantics, its errors included. Class declarations are hoisted to the top level."""

ISSUE = '''
from typing import NotRequired, TypedDict
class Issue(TypedDict):
    file: str
    line: int
    note: NotRequired[str]
'''

SNIPPETS: list[tuple[str, str]] = [
    # ---------------------------------------------------------------- annotations
    ("annotated-function-list-dict", """
from typing import Dict, List
def count_words(lines: List[str]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for line in lines:
        for word in line.split():
            counts[word] = counts.get(word, 0) + 1
    return counts
return count_words(["a b", "b c b"])
"""),
    ("annotated-optional-return", """
from typing import List, Optional
def first_failure(results: List[int]) -> Optional[int]:
    for index, code in enumerate(results):
        if code != 0:
            return index
    return None
return [first_failure([0, 0, 2]), first_failure([0])]
"""),
    ("annotated-union-parameter", """
from typing import Union
def as_text(value: Union[int, str, None]) -> str:
    return "" if value is None else str(value)
return [as_text(3), as_text("x"), as_text(None)]
"""),
    ("annotated-tuple-return", """
from typing import List, Tuple
def split_path(path: str) -> Tuple[str, str]:
    head, _, tail = path.rpartition("/")
    return head, tail
def pairs(items: List[str]) -> Tuple[Tuple[str, str], ...]:
    return tuple(split_path(p) for p in items)
return pairs(["src/a.py", "b.py"])
"""),
    ("annotated-any", """
from typing import Any, Dict
def describe(value: Any) -> str:
    return f"{value!r}"
config: Dict[str, Any] = {"retries": 3, "name": "x", "tags": [1]}
return [describe(v) for v in config.values()]
"""),
    ("annotated-callable", """
from typing import Callable, List
def apply_all(items: List[int], fn: Callable[[int], int]) -> List[int]:
    return [fn(i) for i in items]
return [apply_all([1, 2], lambda x: x * 10), apply_all([], abs)]
"""),
    ("annotated-callable-default", """
from typing import Callable, Optional
def transform(text: str, fn: Optional[Callable[[str], str]] = None) -> str:
    return fn(text) if fn is not None else text
return [transform("a"), transform("a", lambda s: s.upper())]
"""),
    ("annotated-set-frozenset", """
from typing import FrozenSet, List, Set
def unique(items: List[str]) -> Set[str]:
    seen: Set[str] = set()
    for item in items:
        seen.add(item)
    return seen
allowed: FrozenSet[str] = {"a", "b"}
return [sorted(unique(["b", "a", "b"])), sorted(allowed)]
"""),
    ("annotated-iterable-sequence-mapping", """
from typing import Iterable, Mapping, Sequence
def total(values: Iterable[int]) -> int:
    return sum(values)
def last(items: Sequence[str]) -> str:
    return items[-1]
def keys(table: Mapping[str, int]) -> list:
    return sorted(table)
return [total(range(5)), total([1, 2]), last(["x", "y"]), last("abc"), keys({"b": 1, "a": 2})]
"""),
    ("annotations-are-not-checked", """
from typing import Dict, List
def f(xs: List[int]) -> Dict[str, int]:
    return xs
value: List[str] = 42
return [f("not a list"), value]
"""),
    ("annotated-locals-and-kwonly", """
from typing import Dict, List, Optional
def summarize(paths: List[str], *, limit: Optional[int] = None, prefix: str = "") -> Dict[str, List[str]]:
    chosen: List[str] = paths[:limit] if limit is not None else paths
    return {"shown": [prefix + p for p in chosen]}
return [summarize(["a", "b", "c"], limit=2), summarize(["z"], prefix="./")]
"""),
    ("annotated-nested-generics", """
from typing import Dict, List, Optional, Tuple
def group(pairs: List[Tuple[str, int]]) -> Dict[str, List[int]]:
    out: Dict[str, List[int]] = {}
    for key, value in pairs:
        out.setdefault(key, []).append(value)
    return out
best: Optional[Dict[str, List[int]]] = group([("a", 1), ("b", 2), ("a", 3)])
return best
"""),
    ("annotated-async-def-signature", """
from typing import List
async def fetch(paths: List[str], *, retries: int = 2) -> List[str]:
    return paths
def plain(n: int) -> int:
    return n + 1
return plain(1)
"""),
    # ---------------------------------------------------------------- TypedDict constructors
    ("typeddict-keywords", ISSUE + """
issue = Issue(file="a.py", line=3)
return [issue, isinstance(issue, dict), issue == {"file": "a.py", "line": 3}]
"""),
    ("typeddict-from-dict", ISSUE + """
raw = {"file": "b.py", "line": 7}
issue = Issue(raw)
issue["line"] += 1
return [issue, raw, issue == raw]
"""),
    ("typeddict-spread", ISSUE + """
base = {"file": "c.py", "line": 1}
return [Issue(**base), Issue(**base, note="n"), Issue(base, line=9)]
"""),
    ("typeddict-missing-fields-allowed", ISSUE + """
partial = Issue(file="d.py")
partial["line"] = 4
return [Issue(), partial, len(Issue(line=2))]
"""),
    ("typeddict-unknown-keys-through-spread", ISSUE + """
extra = {"file": "e.py", "severity": "high"}
return Issue(**extra)
"""),
    ("typeddict-from-pairs", ISSUE + """
return [Issue([("file", "f.py"), ("line", 2)]), Issue(zip(["file", "line"], ["g.py", 5]))]
"""),
    ("typeddict-in-comprehension", ISSUE + """
files = ["x.py", "y.py", "z.py"]
issues = [Issue(file=f, line=n * 10) for n, f in enumerate(files)]
return sorted(issues, key=lambda i: -i["line"])
"""),
    ("typeddict-json-round-trip", ISSUE + """
issue = Issue(file="h.py", line=1, note="todo")
text = json.dumps(issue, sort_keys=True)
return [text, json.loads(text) == issue]
"""),
    ("typeddict-nested", ISSUE + """
from typing import List
class Report(TypedDict):
    issues: List[Issue]
    total: int
one = Issue(file="i.py", line=2)
report = Report(issues=[one, Issue(file="j.py", line=3)], total=2)
return [report, report["issues"][1]["file"]]
"""),
    ("typeddict-inherited-fields", """
from typing import TypedDict
class Located(TypedDict):
    file: str
    line: int
class Finding(Located):
    message: str
finding = Finding(file="k.py", line=8, message="unused import")
return [finding, list(finding)]
"""),
    ("typeddict-total-false", """
from typing import TypedDict
class Options(TypedDict, total=False):
    retries: int
    verbose: bool
return [Options(), Options(retries=2), Options(verbose=True, retries=0)]
"""),
    ("typeddict-methods-are-dict-methods", ISSUE + """
issue = Issue(file="l.py", line=4)
copy = issue.copy()
copy["line"] = 5
return [issue.get("note", "none"), sorted(issue.keys()), copy, issue, issue.pop("line"), issue]
"""),
    ("typeddict-annotated-variable", ISSUE + """
from typing import List
found: List[Issue] = []
for line, text in enumerate(["ok", "TODO: x", "TODO: y"]):
    if text.startswith("TODO"):
        found.append(Issue(file="m.py", line=line, note=text[6:]))
return found
"""),
    ("typeddict-function-signature", ISSUE + """
from typing import List, Optional
def worst(issues: List[Issue]) -> Optional[Issue]:
    return max(issues, key=lambda i: i["line"]) if issues else None
return [worst([Issue(file="a", line=1), Issue(file="b", line=9)]), worst([])]
"""),
    ("typeddict-merge-operator", ISSUE + """
issue = Issue(file="n.py", line=1) | {"note": "merged"}
return [issue, Issue(file="o.py") == dict(file="o.py")]
"""),
    ("typeddict-error-not-iterable", ISSUE + """
return Issue(3)
"""),
    ("typeddict-error-bad-sequence", ISSUE + """
return Issue(["ab", "c"])
"""),
    ("typeddict-error-too-many-arguments", ISSUE + """
return Issue({"file": "a"}, {"line": 1})
"""),
    ("typeddict-error-caught", ISSUE + """
out = []
for raw in [{"file": "a", "line": 1}, [("file", "b")], 5, "xy"]:
    try:
        out.append(Issue(raw))
    except (TypeError, ValueError) as e:
        out.append(str(e))
return out
"""),
    ("typeddict-key-error-on-missing-field", ISSUE + """
issue = Issue(file="p.py")
return issue["line"]
"""),
]
