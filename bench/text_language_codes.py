"""``text.language``'s reading of an expected language (``detect.language_code``) beside langcodes, a peer library.

    python3 -m venv /work/peers/langcodes && /work/peers/langcodes/bin/pip install langcodes==3.5.1 language_data==1.4.0
    .venv/bin/python bench/text_language_codes.py --peer /work/peers/langcodes

The cases: every alias of our table (codes, ISO 639-2/639-3 codes, English names), eight codes with regions and
scripts, every two-letter string ``aa``..``zz`` and each with FLORES-200's ``_Latn``. langcodes reads each
(``Language.get(normalize=True)``, else ``find`` for a name); what it finds is turned into the detector's codes the
way ``language_code`` means to (a language outside langdetect's 55 is None; Chinese by script or region). Each
case where the two differ is printed with langcodes' language, for bench/text.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import string
import subprocess
from pathlib import Path

from grpo_rewards_text.detect import _CODES, language_code

_THEIRS = """
import json, sys, langcodes
out = []
for v in json.load(sys.stdin):
    try:
        found = langcodes.Language.get(v, normalize=True)
    except Exception:
        try:
            found = langcodes.find(v)
        except Exception:
            found = None
    out.append(None if found is None else [found.language, found.script, found.territory])
print(json.dumps(out))
"""


def detector_code(found: list[str | None] | None) -> str | None:
    if found is None or found[0] is None:
        return None
    language, script, territory = found
    if language == "zh":
        if script == "Hans" or territory in ("CN", "SG", "MY"):
            return "zh-cn"
        if script == "Hant" or territory in ("TW", "HK", "MO"):
            return "zh-tw"
        return "zh"
    return language if language in set(_CODES.values()) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--peer", type=Path, required=True, help="a venv with langcodes installed")
    args = parser.parse_args()
    twos = ["".join(p) for p in itertools.product(string.ascii_lowercase, repeat=2)]
    values = sorted(_CODES) + [code + suffix for code in ("fr", "pt", "en", "zh", "es", "de", "sr", "yue")
                               for suffix in ("-FR", "_BR", "-US", "-Hant", "-Hans-CN", "-TW", "-Latn", "_Cyrl")]
    values += twos + [t + "_Latn" for t in twos]
    theirs = json.loads(subprocess.run([str(args.peer / "bin" / "python"), "-c", _THEIRS], input=json.dumps(values),
                                       capture_output=True, text=True, check=True).stdout)
    different = [(v, language_code(v), detector_code(t), t and t[0]) for v, t in zip(values, theirs)
                 if language_code(v) != detector_code(t)]
    print(f"{len(values)} cases, {len(values) - len(different)} the same, {len(different)} different")
    for value, ours, peer, their_language in different:
        print(f"  {value!r}: ours {ours!r}, langcodes {peer!r} (its language {their_language!r})")


if __name__ == "__main__":
    main()
