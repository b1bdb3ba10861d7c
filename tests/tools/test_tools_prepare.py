"""A row's own tools are rendered into its prompt through a real chat template's tool section (TRL's Qwen2.5 template)."""

from __future__ import annotations

from importlib import resources

import pytest

from grpo_rewards_tools import CallMatch, prepare_row
from grpo_rewards_tools.rows import RowFormatError

XLAM = {"query": "Where can I find live giveaways for beta access?",
        "tools": '[{"name": "live_giveaways_by_type", "description": "Retrieve live giveaways.", '
                 '"parameters": {"type": {"description": "The type.", "type": "str", "default": "game"}}}]',
        "answers": '[{"name": "live_giveaways_by_type", "arguments": {"type": "beta"}}]'}


@pytest.fixture(scope="module")
def tokenizer():
    from tokenizers import Tokenizer, models
    from transformers import PreTrainedTokenizerFast

    tok = PreTrainedTokenizerFast(tokenizer_object=Tokenizer(models.WordLevel({"[UNK]": 0}, unk_token="[UNK]")))
    tok.chat_template = (resources.files("trl") / "chat_templates" / "qwen2_5.jinja").read_text(encoding="utf-8")
    return tok


def test_the_rows_tools_are_rendered_in_the_templates_tool_section(tokenizer):
    prepared = prepare_row(XLAM, tokenizer=tokenizer)
    prompt = prepared["prompt"]
    assert prompt.index("<tools>\n") < prompt.index('"name": "live_giveaways_by_type"') < prompt.rindex("</tools>")
    assert '"default": "game"' in prompt and '"type": "string"' in prompt  # xLAM's "str" as JSON Schema
    assert prompt.rstrip().endswith("<|im_start|>assistant")
    assert "<|im_start|>user\nWhere can I find live giveaways for beta access?<|im_end|>" in prompt
    assert prepared["answers"] == XLAM["answers"]  # the gold stays for the rewards


def test_a_prepared_row_still_scores_the_calls_a_qwen_template_model_writes(tokenizer):
    prepared = prepare_row(XLAM, tokenizer=tokenizer)
    text = '<tool_call>\n{"name": "live_giveaways_by_type", "arguments": {"type": "beta"}}\n</tool_call>'
    assert CallMatch()(text, **prepared) == (1.0, "matched")


def test_tools_can_be_left_to_the_rows_own_system_text(tokenizer):
    prompt = prepare_row(XLAM, tokenizer=tokenizer, tools_in_template=False)["prompt"]
    assert "<tools>" not in prompt


def test_a_row_without_prompt_messages_is_an_error():
    with pytest.raises(RowFormatError, match="a native row without prompt messages"):
        prepare_row({"tools": [], "gold_calls": []}, tokenizer=None)
