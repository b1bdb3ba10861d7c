"""The tasks of the environments: ``tools:calculator`` and ``tools:sqlite``, deterministic for a seed.

``tools:calculator``: products of multi-digit numbers and sums or differences of fractions, which
a 135M model cannot work out in its head; the ``solution`` is exact (``1812696``, ``71/84``), and
the run's reward (``math.accuracy`` on the final ``\\boxed{}``) checks the answer, not the calls.

``tools:sqlite``: a small generated database per row (employees and departments) and a question
whose gold is the result set of a reference query run on that database by SQLite itself.

>>> rows = make_calculator(2, seed=0)
>>> [r["solution"] for r in rows], rows[0]["prompt"][1]["content"]
(['6404436', '-5/4'], 'What is 7311 * 876?')
"""

from __future__ import annotations

import json
import random
import sqlite3
from fractions import Fraction
from typing import Any

CALCULATOR_SYSTEM = ("You have a calculator tool. Use it for every computation, then give the final answer "
                     "as \\boxed{ANSWER} (a whole number, or a fraction p/q in lowest terms).")

SQLITE_SYSTEM = ("You can query a SQLite database with the query tool. Tables: employees(id, name, dept, salary) "
                 "and departments(name, city). Answer the question with one SQL query whose result is exactly "
                 "the answer.")

_NAMES = ["Ada", "Ben", "Chen", "Dana", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea", "Mia", "Noor"]
_DEPTS = ["sales", "research", "support", "finance"]
_CITIES = ["Lyon", "Oslo", "Quito", "Pune", "Perth", "Cork"]


def _fraction(rng: random.Random) -> Fraction:
    denominator = rng.randint(2, 13)
    return Fraction(rng.randint(1, denominator * 2), denominator)


def make_calculator(n: int, seed: int, *, digits: int = 3, fractions: bool = True) -> list[dict[str, Any]]:
    """Arithmetic the calculator is for: a ``digits+1``-digit by ``digits``-digit product, and (with
    ``fractions``) every other row a sum or difference of two fractions."""
    if digits < 1 or digits > 12:
        raise ValueError(f"digits must be between 1 and 12, not {digits}")
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        if fractions and i % 2 == 1:
            a, b = _fraction(rng), _fraction(rng)
            op = rng.choice("+-")
            value = a + b if op == "+" else a - b
            question = f"What is {a} {op} {b}?"
        else:
            x = rng.randint(10 ** digits, 10 ** (digits + 1) - 1)
            y = rng.randint(10 ** (digits - 1), 10 ** digits - 1)
            value = Fraction(x * y)
            question = f"What is {x} * {y}?"
        solution = str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
        rows.append({"prompt": [{"role": "system", "content": CALCULATOR_SYSTEM},
                                {"role": "user", "content": question}],
                     "solution": solution})
    return rows


def _database(rng: random.Random) -> tuple[str, list[tuple[Any, ...]], list[tuple[str, str]]]:
    depts = rng.sample(_DEPTS, 3)
    departments = [(d, c) for d, c in zip(depts, rng.sample(_CITIES, 3))]
    employees = [(i + 1, name, rng.choice(depts), rng.randrange(3000, 9000, 100))
                 for i, name in enumerate(rng.sample(_NAMES, rng.randint(6, 10)))]
    script = ("CREATE TABLE departments(name TEXT, city TEXT);\n"
              "CREATE TABLE employees(id INTEGER, name TEXT, dept TEXT, salary INTEGER);\n"
              + "".join(f"INSERT INTO departments VALUES ('{d}', '{c}');\n" for d, c in departments)
              + "".join(f"INSERT INTO employees VALUES ({i}, '{n}', '{d}', {s});\n" for i, n, d, s in employees))
    return script, employees, departments


def _question(rng: random.Random, employees: list[tuple[Any, ...]], departments: list[tuple[str, str]]
              ) -> tuple[str, str, tuple[Any, ...]]:
    kind = rng.randrange(4)
    if kind == 0:
        dept = rng.choice(departments)[0]
        return (f"How many employees work in the {dept} department?",
                "SELECT COUNT(*) FROM employees WHERE dept = ?", (dept,))
    if kind == 1:
        limit = rng.randrange(4000, 8000, 500)
        return (f"Which employees earn more than {limit}? List their names.",
                "SELECT name FROM employees WHERE salary > ?", (limit,))
    if kind == 2:
        dept = rng.choice(departments)[0]
        return (f"What is the total salary of the {dept} department?",
                "SELECT SUM(salary) FROM employees WHERE dept = ?", (dept,))
    name = rng.choice(employees)[1]
    return (f"In which city does {name} work?",
            "SELECT d.city FROM employees e JOIN departments d ON e.dept = d.name WHERE e.name = ?", (name,))


def make_sqlite(n: int, seed: int) -> list[dict[str, Any]]:
    """Rows with a ``database`` (an SQL script), a question, and its ``gold`` result set (JSON) and ``gold_sql``."""
    rng = random.Random(seed)
    rows = []
    for _ in range(n):
        script, employees, departments = _database(rng)
        question, sql, args = _question(rng, employees, departments)
        connection = sqlite3.connect(":memory:")
        try:
            connection.executescript(script)
            gold = [list(r) for r in connection.execute(sql, args).fetchall()]
        finally:
            connection.close()
        rendered = sql.replace("?", repr(args[0]) if isinstance(args[0], str) else str(args[0]))
        rows.append({"prompt": [{"role": "system", "content": SQLITE_SYSTEM}, {"role": "user", "content": question}],
                     "database": script, "gold": json.dumps(gold), "gold_sql": rendered})
    return rows
