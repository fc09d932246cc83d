"""Hooks that make other tools compile through openptxas in-process (see docs/triton.md).

Nothing here is on the compiler's import path; each hook imports its tool lazily.
"""
