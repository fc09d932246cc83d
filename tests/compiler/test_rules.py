"""The instruction-selection rule tables: every rule is reachable (no rule shadows another)."""

import pytest

from openptxas.lower import rule_table
from openptxas.ptx.parser import parse

TEMPLATE = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 k_param_0)
{{
 .reg .pred %p<8>; .reg .b32 %r<8>; .reg .b64 %rd<8>;
 .reg .f32 %f<8>; .reg .f64 %fd<8>; .reg .b16 %rs<8>;
$L__BB0_1:
 {ins}
 ret;
}}
"""

RULES = rule_table().rules


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_rule_selected_for_its_example(rule):
    mod = parse(TEMPLATE.format(ins=rule.example), "rule.ptx")
    ins = next(mod.entries[0].body.instructions())
    assert ins.opcode == rule.opcode, f"example of {rule.name} is a '{ins.opcode}'"
    chosen = rule_table().select(ins)
    assert chosen is rule, f"rule {rule.name} is shadowed by {chosen.name if chosen else None}"
