#!/usr/bin/env bash
# The peer for bench/instructions/ifbench_differential.py: IFBench's own checkers in a venv of their own.
#   bash bench/instructions/setup_ifbench_peer.sh IFBENCH_CHECKOUT [/work/peers/ifbench]
# IFBENCH_CHECKOUT: a git clone of allenai/IFBench (the project's checkers are read at db69a6f0).
# IFBench's requirements without spacy (not imported by its checkers). At import IFBench tries to
# download NLTK's punkt, stopwords and POS tagger; offline those downloads fail at once and the
# checkers that need them raise. Sentences use the punkt_tab that bench/instructions/setup_peer.sh
# builds under /work/peers/lm-eval/nltk_data (NLTK_DATA points there when the peer runs).
set -euo pipefail
CHECKOUT="$1"
VENV="${2:-/work/peers/ifbench}"
python3 -m venv "$VENV"
"$VENV/bin/pip" install --quiet "nltk==3.9.2" "emoji==2.16.0" "syllapy==0.8.0" absl-py langdetect immutabledict
mkdir -p "$VENV/src"
git -C "$CHECKOUT" archive db69a6f0 ifbench | tar -x -C "$VENV/src"
