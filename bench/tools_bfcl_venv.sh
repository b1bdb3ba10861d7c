#!/bin/bash
# Make a bfcl-eval venv (default /work/peers/bfcl) importable enough for bfcl_eval's AST checker: install each missing module it asks for.
cd "${1:-/work/peers/bfcl}"
declare -A MAP=([dotenv]=python-dotenv [google]=google-genai [writerai]=writer-sdk [bs4]=beautifulsoup4 [serpapi]=google-search-results [yaml]=pyyaml [faiss]=faiss-cpu [sklearn]=scikit-learn [qwen_agent]=qwen-agent [tree_sitter_java]=tree-sitter-java==0.21.0 [tree_sitter_javascript]=tree-sitter-javascript==0.21.4 [tree_sitter]=tree_sitter==0.21.3 [numpy]=numpy==1.26.4 [datamodel_code_generator]=datamodel-code-generator==0.25.7 [mistralai]=mistralai==1.7.0 [cohere]=cohere==5.18.0)
for i in $(seq 40); do
  err=$(bin/python -c "from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker" 2>&1 | grep -o "No module named '[^']*'" | head -1)
  [ -z "$err" ] && { echo OK; break; }
  mod=$(echo "$err" | sed "s/No module named '\([^'.]*\).*/\1/")
  pkg=${MAP[$mod]:-$mod}
  echo "installing $pkg for $mod"
  bin/pip install -q "$pkg" || { echo "failed $pkg"; break; }
done
bin/python -c "from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker" 2>&1 | tail -2
