"""The words and commands the grammar knows: function names, Greek letters, relations, units, ..."""

from __future__ import annotations

FUNCS = frozenset({"sin", "cos", "tan", "cot", "sec", "csc", "arcsin", "arccos", "arctan", "arccot", "arcsec",
                   "arccsc", "sinh", "cosh", "tanh", "coth", "ln", "log", "exp", "abs", "sgn"})
INVERSE = {"sin": "arcsin", "cos": "arccos", "tan": "arctan", "cot": "arccot", "sec": "arcsec", "csc": "arccsc"}
GREEK = frozenset("""alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi
    rho varrho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Sigma Phi Psi Omega""".split())
WRAPPERS = frozenset({"boxed", "fbox", "mathbf", "boldsymbol", "mathit", "bm", "vec", "overline", "mathsf",
                      "underline", "displaystyle", "mathnormal", "ensuremath"})
RELOPS = {"=": "=", "<": "<", ">": ">", "LE": "<=", "GE": ">=", "NE": "!=", "le": "<=", "leq": "<=",
          "leqslant": "<=", "ge": ">=", "geq": ">=", "geqslant": ">=", "ne": "!=", "neq": "!=", "lt": "<",
          "gt": ">", "approx": "=", "equiv": "=", "cong": "="}
MATRIX_ENVS = frozenset({"pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "matrix", "array", "smallmatrix"})
UNITS = frozenset("""cm m km mm kg g mg ft in mi yd hr hrs h min mins sec secs s ml l oz lb lbs sq cu mph kph
    units unit""".split())
SEPARATOR_WORDS = frozenset({"or", "and"})
FUNCTION_NAMES = frozenset("fghpqFGHPQ")
PERCENT_WORDS = frozenset({"percent", "pct", "percentage", "per cent", "%"})
DEGREE_WORDS = frozenset({"degree", "degrees", "deg"})
MULT_CMDS = frozenset({"cdot", "times", "ast"})
ATOM_CMDS = frozenset({"frac", "sqrt", "pi", "infty", "binom", "sum", "prod", "lfloor", "lceil", "emptyset", "varnothing",
                       "imath", "infin", "mathbb", "langle"}) | FUNCS | GREEK | WRAPPERS
#: after a degree sign, these letters name a temperature scale (``-5.5°C``), not a variable
TEMPERATURE_LETTERS = frozenset("CFK")
