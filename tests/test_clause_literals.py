"""Clause text comes from the catalogue: no "§<digit>" clause is typed in conformance/.

A failure names its clause with ``conformance.contract.clauses`` (each name is a section of
``requirements.yaml``, checked at import). A clause literal is a string that starts with
``§`` and a digit, the way a clause starts a failure message; docstrings and comments may
cite the interface, and so may prose inside a message (``... (§8 Limits)``).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from conformance.contract import clauses
from conformance.contract.requirements import default_catalogue

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "conformance"
CLAUSE_START = re.compile(r"§\d")

# (file, start of the literal): why it is not a clause retyped
ALLOWED: dict[tuple[str, str], str] = {
    **{("contract/markers.py", f"§{n}"): "part numbers, not clauses" for n in range(2, 10)},
    ("contract/endpoint_schemas.py", "§4 {self.section}"): (
        "the §4 heading of each endpoint comes from the interface's endpoint table"
    ),
    ("contract/openapi.py", "§"): "descriptions in the OpenAPI document the suite writes",
}


def _docstrings(tree: ast.AST) -> set[tuple[int, int]]:
    found: set[tuple[int, int]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add((first.value.lineno, first.value.col_offset))
    return found


def clause_literals(path: Path) -> list[tuple[int, str]]:
    """The string literals of ``path`` that start with a "§<digit>" clause (line, text)."""
    source = path.read_text(encoding="utf-8")
    docstrings = _docstrings(ast.parse(source))
    found: list[tuple[int, str]] = []
    previous: tokenize.TokenInfo | None = None
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            continue
        if (
            token.type == tokenize.STRING
            and token.start not in docstrings
            # the rest of an implicitly joined string is prose, not the start of a clause
            and not (previous is not None and previous.type == tokenize.STRING)
        ):
            body = re.sub(r"^[rRbBuUfF]*(\"\"\"|'''|\"|')", "", token.string)
            if CLAUSE_START.match(body):
                found.append((token.start[0], body.rstrip("\"'")))
        previous = token
    return found


def typed_clauses(package: Path) -> list[str]:
    """Each clause literal of ``package`` that no entry of :data:`ALLOWED` justifies."""
    typed: list[str] = []
    for path in sorted(package.rglob("*.py")):
        where = path.relative_to(package).as_posix()
        for line, text in clause_literals(path):
            if not any(f == where and text.startswith(start) for f, start in ALLOWED):
                typed.append(f"conformance/{where}:{line}: {text[:70]!r}")
    return typed


def test_no_clause_is_typed_outside_the_catalogue() -> None:
    typed = typed_clauses(PACKAGE)
    assert not typed, (
        "clause text retyped; name it with conformance.contract.clauses instead "
        "(add a name there if the catalogue has the section):\n  " + "\n  ".join(typed)
    )


def test_a_typed_clause_is_found(tmp_path: Path) -> None:
    module = tmp_path / "area.py"
    module.write_text(
        '"""§4 Accounts, cited in a docstring."""\n'
        "# §4 Accounts, cited in a comment\n"
        'CLAUSE = "§4 Accounts"\n'
        'HINT = "see the limits " "(§8 Limits)"\n'
        'DETAIL = f"§7 Errors — {CLAUSE}"\n',
        encoding="utf-8",
    )
    assert [line for line, _ in clause_literals(module)] == [3, 5]


def test_every_section_of_the_catalogue_has_a_name() -> None:
    named = {getattr(clauses, name) for name in clauses.__all__}
    assert named == {requirement.section for requirement in default_catalogue()}
