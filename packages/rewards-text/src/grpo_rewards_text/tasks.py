"""Offline tasks with reference answers: ``text:capitals`` and ``text:json_extraction``.

Each factory is ``factory(n, seed, **params) -> list[dict]``, deterministic for a seed, built from
tables in this module (no download).

- ``text:capitals``: "What is the capital of France? ..." with the column ``reference`` (the
  capital and its accepted other names); rewarded by ``text.exact_match``.
- ``text:json_extraction``: a generated sentence about a person ("Ada Okafor, 34, lives in Lyon and
  works as a nurse.") to extract as JSON with the columns ``schema`` (a JSON Schema: ``name``,
  ``age``, ``city``, ``job`` required, no other field) and ``reference`` (the expected object);
  rewarded by ``text.json`` with ``reference_column: reference``.

>>> make_capitals(1, seed=0)[0]["reference"]
['Brasília', 'Brasilia']
>>> make_json_extraction(1, seed=0)[0]["reference"]
{'name': 'Amara Rossi', 'age': 34, 'city': 'Krakow', 'job': 'teacher'}
"""

from __future__ import annotations

import json
import random
from typing import Any

CAPITALS_INSTRUCTION = "Answer with the name of the city only, inside <answer></answer>."
JSON_INSTRUCTION = ('Reply with a JSON object with the fields "name" (string), "age" (integer), "city" (string) '
                    'and "job" (string), and nothing else.')

#: country -> accepted answers (the first is the usual English name)
CAPITALS: dict[str, tuple[str, ...]] = {
    "Australia": ("Canberra",), "Austria": ("Vienna", "Wien"), "Belgium": ("Brussels", "Bruxelles"),
    "Brazil": ("Brasília", "Brasilia"), "Canada": ("Ottawa",), "Chile": ("Santiago", "Santiago de Chile"),
    "China": ("Beijing", "Peking"), "Colombia": ("Bogotá", "Bogota"), "Czechia": ("Prague", "Praha"),
    "Denmark": ("Copenhagen", "København"), "Egypt": ("Cairo",), "Finland": ("Helsinki",),
    "France": ("Paris",), "Germany": ("Berlin",), "Greece": ("Athens",), "Hungary": ("Budapest",),
    "India": ("New Delhi",), "Indonesia": ("Jakarta",), "Ireland": ("Dublin",), "Italy": ("Rome", "Roma"),
    "Japan": ("Tokyo",), "Kenya": ("Nairobi",), "Mexico": ("Mexico City", "Ciudad de México"),
    "Morocco": ("Rabat",), "Netherlands": ("Amsterdam",), "New Zealand": ("Wellington",), "Nigeria": ("Abuja",),
    "Norway": ("Oslo",), "Peru": ("Lima",), "Poland": ("Warsaw", "Warszawa"), "Portugal": ("Lisbon", "Lisboa"),
    "Russia": ("Moscow",), "South Korea": ("Seoul",), "Spain": ("Madrid",), "Sweden": ("Stockholm",),
    "Switzerland": ("Bern", "Berne"), "Thailand": ("Bangkok",), "Turkey": ("Ankara",), "Ukraine": ("Kyiv", "Kiev"),
    "United Kingdom": ("London",), "United States": ("Washington, D.C.", "Washington"), "Vietnam": ("Hanoi",),
}

_FIRST = ("Ada", "Kofi", "Mei", "Lars", "Amara", "Diego", "Yuki", "Omar", "Ines", "Ravi", "Sofia", "Tariq")
_LAST = ("Okafor", "Lindqvist", "Tanaka", "Moreau", "Haddad", "Silva", "Novak", "Kowalski", "Mensah", "Rossi")
_CITIES = ("Lyon", "Oslo", "Accra", "Osaka", "Porto", "Krakow", "Quito", "Tunis", "Perth", "Leeds")
_JOBS = ("nurse", "pilot", "carpenter", "teacher", "chemist", "baker", "architect", "librarian")
_TEMPLATES = ("{name}, {age}, lives in {city} and works as a {job}.",
              "Meet {name}: a {job} from {city}, {age} years old.",
              "At {age}, {name} moved to {city}, where they now work as a {job}.")

#: The schema every ``text:json_extraction`` row carries (as JSON text in the ``schema`` column).
PERSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["name", "age", "city", "job"],
    "properties": {"name": {"type": "string", "minLength": 1}, "age": {"type": "integer", "minimum": 0},
                   "city": {"type": "string", "minLength": 1}, "job": {"type": "string", "minLength": 1}},
    "additionalProperties": False,
}


def _check(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative integer, not {n!r}")


def _prompt(text: str, chat: bool) -> Any:
    return [{"role": "user", "content": text}] if chat else text


def make_capitals(n: int, seed: int = 0, chat: bool = False) -> list[dict[str, Any]]:
    """``n`` questions "What is the capital of X?" drawn from :data:`CAPITALS`, with the accepted answers.

    >>> make_capitals(1, seed=1)[0]["prompt"]
    'What is the capital of Turkey? Answer with the name of the city only, inside <answer></answer>.'
    """
    _check(n)
    rng = random.Random(f"text:capitals:{seed}")
    countries = sorted(CAPITALS)
    rows = []
    for _ in range(n):
        country = rng.choice(countries)
        rows.append({"prompt": _prompt(f"What is the capital of {country}? {CAPITALS_INSTRUCTION}", chat),
                     "reference": list(CAPITALS[country])})
    return rows


def make_json_extraction(n: int, seed: int = 0, chat: bool = False) -> list[dict[str, Any]]:
    """``n`` sentences about a made-up person, to extract as JSON against :data:`PERSON_SCHEMA`."""
    _check(n)
    rng = random.Random(f"text:json_extraction:{seed}")
    schema = json.dumps(PERSON_SCHEMA)
    rows = []
    for _ in range(n):
        person = {"name": f"{rng.choice(_FIRST)} {rng.choice(_LAST)}", "age": rng.randint(19, 79),
                  "city": rng.choice(_CITIES), "job": rng.choice(_JOBS)}
        sentence = rng.choice(_TEMPLATES).format(**person)
        rows.append({"prompt": _prompt(f"{sentence}\n\n{JSON_INSTRUCTION}", chat), "schema": schema,
                     "reference": person})
    return rows


#: task name -> (factory, description)
TASKS = {
    "capitals": (make_capitals, "Capitals of 42 countries (accepted other names included); offline"),
    "json_extraction": (make_json_extraction, "Extract a made-up person's fields as JSON against a schema; offline"),
}
