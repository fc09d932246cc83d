"""Facts the learner cannot infer from single-bit flips, each verified by probing nvdisasm.

ALIASES: modifiers nvdisasm derives from operand values rather than from bits. For each opcode,
``(token, position in the modifier tuple, ((operand index, test), ...))`` in nvdisasm's priority
order; the first entry whose tests all hold is printed (tests: openptxas/isa/spec.py ``Alias``).
The learner keeps, per form, the longest ordered subset that predicts nvdisasm's output on every
combination of probe values of the tested operands.
"""

ALIASES: dict[str, tuple[tuple[str, int, tuple[tuple[int, str], ...]], ...]] = {
    # IMAD d, a, b, c computes a*b + c. nvdisasm prints IMAD.MOV when the product is 0 or the
    # whole is a copy of a, IMAD.SHL for a*2^k with c = RZ (k = 1..30 except 16), and IMAD.IADD
    # for a*1 + c.
    "IMAD": (
        ("MOV", 0, ((1, "zero"),)),
        ("MOV", 0, ((2, "zero"),)),
        ("MOV", 0, ((2, "eq:1"), (3, "zero"))),
        ("SHL", 0, ((2, "pow2:0x7ffefffe"), (3, "zero"))),
        ("IADD", 0, ((2, "eq:1"),)),
    ),
}
