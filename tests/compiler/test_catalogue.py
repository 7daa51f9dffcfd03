"""Meta-tests of the diagnostic catalogue (`dwf.compiler.rules`): codes, names, documentation
and message templates are well-formed, and every rule has a fixture that makes it fire."""

from __future__ import annotations

import re

import pytest

from dwf.compiler.compile import compile_bytes
from dwf.compiler.rules import GROUPS, REGISTRY, RETIRED, Rule, all_rules
from expectations import FIXTURES, LATIN1_SCRIPT, ROOT, actual_diagnostics, all_fixtures, compile_fixture, \
    parse_expectations, rule_fixtures

RULES = all_rules()
RULE_IDS = [rule.code for rule in RULES]
# The catalogue module each code group lives in.
GROUP_MODULES = {"0": "syntax", "1": "syntax", "2": "names", "3": "effects", "4": "schemas", "5": "meta",
                 "9": "internal"}
DOC_SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead")
KEBAB_CASE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")
# Rules no script can trigger on purpose: an internal error is a compiler bug (tested in
# test_rules.py by making a pass crash).
NEVER_IN_FIXTURES = {"DWF901", "DWF326"}  # internal; snippets only (tests/runtime/test_snippets.py)


def _subclasses(cls: type) -> list[type]:
    return [sub for direct in cls.__subclasses__() for sub in (direct, *_subclasses(direct))]


def test_every_rule_class_is_registered_under_a_unique_code():
    classes = _subclasses(Rule)
    codes = [cls.code for cls in classes]
    assert len(codes) == len(set(codes)), "a code is used twice"
    assert sorted(codes) == sorted(REGISTRY)
    assert not RETIRED & set(codes), "a retired code was handed out again"


@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
def test_code_is_well_formed_and_in_its_group_module(rule):
    assert re.fullmatch(r"DWF\d{3}", rule.code)
    group = rule.code[3]
    assert group in GROUPS
    assert rule.__module__.rsplit(".", 1)[-1] == GROUP_MODULES[group], \
        f"{rule.code} belongs in rules/{GROUP_MODULES[group]}.py, not {rule.__module__}"


def test_names_are_unique_kebab_case():
    names = [rule.name for rule in RULES]
    assert len(names) == len(set(names)), "a rule name is used twice"
    for rule in RULES:
        assert KEBAB_CASE.fullmatch(rule.name), f"{rule.code}: {rule.name!r} is not kebab-case"


@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
def test_docs_have_every_section_in_order(rule):
    docs = rule.docs()
    positions = [docs.find(section + "\n") for section in DOC_SECTIONS]
    missing = [section for section, at in zip(DOC_SECTIONS, positions) if at < 0]
    assert not missing, f"{rule.code} docs lack {missing}"
    assert positions == sorted(positions), f"{rule.code} docs sections are out of order"
    bodies = re.split("|".join(re.escape(s) for s in DOC_SECTIONS), docs)[1:]
    assert all(body.strip() for body in bodies), f"{rule.code} has an empty docs section"


@pytest.mark.parametrize("rule", RULES, ids=RULE_IDS)
def test_message_templates(rule):
    assert rule.severity in ("error", "warning")
    for template in (rule.message, rule.help):
        if template is None:
            continue
        assert template == template.strip()
        assert not template.endswith("."), f"{rule.code}: {template!r} ends with a period"
    assert rule.message[:1] == rule.message[:1].upper() or rule.message.startswith("{"), \
        f"{rule.code}: messages are in sentence case"


def test_every_rule_fires_in_a_fixture():
    fired = {"DWF002"} if compile_bytes(LATIN1_SCRIPT, "latin1.dwf.py").diagnostics else set()
    for path in all_fixtures():
        fired |= {d.code for d in actual_diagnostics(compile_fixture(path))}
    silent = [rule.code for rule in RULES if rule.code not in fired | NEVER_IN_FIXTURES]
    assert not silent, f"no fixture makes these rules fire: {silent}"


@pytest.mark.parametrize("path", rule_fixtures(), ids=[p.name for p in rule_fixtures()])
def test_rule_fixture_is_named_after_a_rule_and_otherwise_clean(path):
    # `DWF301.dwf.py` is the fixture of DWF301; `DWF309-commands-only.dwf.py` is a variant for a
    # case that cannot share a file with the main fixture.
    code, _, variant = path.name.removesuffix(".dwf.py").partition("-")
    assert code in REGISTRY, f"{path.name} names no rule"
    expected = {e.code for e in parse_expectations(path.read_text(encoding="utf-8"))}
    assert expected <= {code}, f"{path.name} also expects {sorted(expected - {code})}"
    if not variant:
        assert expected == {code}, f"{path.name} never expects {code}"


def test_every_rule_except_parse_errors_has_its_own_fixture():
    names = {path.name for path in rule_fixtures()}
    missing = [rule.code for rule in RULES if rule.code not in {"DWF001", "DWF002"} | NEVER_IN_FIXTURES
               and f"{rule.code}.dwf.py" not in names]
    assert not missing, f"missing fixtures in {FIXTURES.relative_to(ROOT)}: {missing}"
