"""The task ``code:sql``: generated SQLite databases (as the SQL text that builds them) and questions with gold queries.

Each row is self-contained (no file on disk): ``db_sql`` builds a small shop database (customers, products,
orders; random but seeded), ``query`` is the gold SQL, ``prompt`` gives the schema and the question and asks for
one ```` ```sql ```` block. ``code.sql_match`` scores it offline.

>>> rows = make_sql(4, seed=0)
>>> sorted(rows[0]), [r["family"] for r in rows]
(['db_sql', 'family', 'prompt', 'query'], ['count_city', 'top_spender', 'products_under', 'orders_per_customer'])
"""

from __future__ import annotations

import random
from typing import Any

SQL_COLUMNS = ("prompt", "family", "db_sql", "query")
_FIRST = ["Ada", "Ben", "Chen", "Dana", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea", "Mia", "Noor", "Omar",
          "Pia", "Quin", "Rosa"]
_CITIES = ["Lyon", "Oslo", "Quito", "Pune", "Perth", "Cork"]
_PRODUCTS = ["lamp", "desk", "chair", "kettle", "mug", "rug", "shelf", "clock", "fan", "vase"]
SCHEMA = ("customers(id INTEGER PRIMARY KEY, name TEXT, city TEXT), products(id INTEGER PRIMARY KEY, name TEXT, "
          "price REAL), orders(id INTEGER PRIMARY KEY, customer_id INTEGER, product_id INTEGER, quantity INTEGER)")
PROMPT = ("You are given a SQLite database with the tables {schema}.\n{sample}\nWrite one SQLite query that answers: "
          "{question}\nAnswer with the query in one ```sql code block.")


def _sql_text(value: Any) -> str:
    return "'" + value.replace("'", "''") + "'" if isinstance(value, str) else repr(value)


def _database(rng: random.Random) -> tuple[str, dict[str, list[tuple[Any, ...]]]]:
    customers = [(i + 1, name, rng.choice(_CITIES)) for i, name in enumerate(rng.sample(_FIRST, rng.randint(5, 10)))]
    products = [(i + 1, name, round(rng.uniform(2, 120), 2)) for i, name in enumerate(rng.sample(_PRODUCTS, rng.randint(4, 8)))]
    orders = [(i + 1, rng.choice(customers)[0], rng.choice(products)[0], rng.randint(1, 5)) for i in range(rng.randint(8, 20))]
    tables: dict[str, list[tuple[Any, ...]]] = {"customers": customers, "products": products, "orders": orders}
    script = ["CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, city TEXT);",
              "CREATE TABLE products(id INTEGER PRIMARY KEY, name TEXT, price REAL);",
              "CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER, product_id INTEGER, quantity INTEGER);"]
    for table, rows in tables.items():
        values = ", ".join("(" + ", ".join(_sql_text(v) for v in row) + ")" for row in rows)
        script.append(f"INSERT INTO {table} VALUES {values};")
    return "\n".join(script), tables


def _count_city(rng: random.Random, t: dict[str, list[tuple[Any, ...]]]) -> tuple[str, str]:
    city = rng.choice([c[2] for c in t["customers"]])
    return f"How many customers live in {city}?", f"SELECT COUNT(*) FROM customers WHERE city = '{city}'"


def _top_spender(rng: random.Random, t: dict[str, list[tuple[Any, ...]]]) -> tuple[str, str]:
    return ("What is the name of each customer and the total they spent (price times quantity over all their orders), "
            "largest total first?",
            "SELECT c.name, SUM(p.price * o.quantity) AS total FROM orders o JOIN customers c ON c.id = o.customer_id "
            "JOIN products p ON p.id = o.product_id GROUP BY c.id ORDER BY total DESC, c.name")


def _products_under(rng: random.Random, t: dict[str, list[tuple[Any, ...]]]) -> tuple[str, str]:
    limit = rng.choice([20, 40, 60, 80])
    return f"Which products (their names) cost less than {limit}?", f"SELECT name FROM products WHERE price < {limit}"


def _orders_per_customer(rng: random.Random, t: dict[str, list[tuple[Any, ...]]]) -> tuple[str, str]:
    return ("For each customer with at least one order, give their name and their number of orders.",
            "SELECT c.name, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.id")


def _never_ordered(rng: random.Random, t: dict[str, list[tuple[Any, ...]]]) -> tuple[str, str]:
    return ("Which products (their names) were never ordered?",
            "SELECT name FROM products WHERE id NOT IN (SELECT product_id FROM orders)")


def _average_price(rng: random.Random, t: dict[str, list[tuple[Any, ...]]]) -> tuple[str, str]:
    return "What is the average price of a product?", "SELECT AVG(price) FROM products"


#: family -> (rng, tables) -> (question, gold query)
FAMILIES = {"count_city": _count_city, "top_spender": _top_spender, "products_under": _products_under,
            "orders_per_customer": _orders_per_customer, "never_ordered": _never_ordered, "average_price": _average_price}


def make_sql(n: int, seed: int, families: list[str] | None = None) -> list[dict[str, Any]]:
    """``n`` rows, each a family of :data:`FAMILIES` (cycled in order) on a database of its own, seeded by ``seed``."""
    names = list(families or FAMILIES)
    unknown = [f for f in names if f not in FAMILIES]
    if unknown or not names:
        raise ValueError(f"families must be some of {', '.join(FAMILIES)}, not {unknown or names}")
    rng = random.Random(seed)
    rows = []
    for k in range(n):
        family = names[k % len(names)]
        script, tables = _database(rng)
        question, query = FAMILIES[family](rng, tables)
        sample = "Example row of customers: " + repr(tables["customers"][0]) + "."
        prompt = PROMPT.format(schema=SCHEMA, sample=sample, question=question)
        rows.append({"prompt": [{"role": "user", "content": prompt}], "family": family, "db_sql": script, "query": query})
    return rows
